// The CUDA driver calls the tuner makes itself: the device, its primary context, a stream,
// device buffers, events and an L2 flush. The driver is loaded with dlopen("libcuda.so.1") and
// its entry points taken through cuGetProcAddress at pinned ABI versions, as the runtime does,
// so the tuner builds and starts where there is no driver and says so.
#pragma once

#include "contract/diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tta::tune {

struct CudaDriverApi;   // the entry points (cuda_session.cpp)

struct GpuDevice {
  int ordinal = 0;
  std::string name;       ///< cuDeviceGetName: "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;
};

/// One device's primary context and a stream on it, with the buffers and events a tuning run
/// uses; everything is released by the destructor.
class CudaSession {
public:
  /// Loads the driver, makes \p ordinal's primary context current and creates a stream.
  /// Errors (ExitCode::EnvironmentError) say what is missing: the driver, a device.
  static Expected<std::unique_ptr<CudaSession>> open(int ordinal);
  ~CudaSession();
  CudaSession(const CudaSession &) = delete;
  CudaSession &operator=(const CudaSession &) = delete;

  const GpuDevice &device() const { return device_; }
  void *stream() const { return stream_; }

  /// A device buffer holding \p bytes, freed by releaseBuffers() or the destructor.
  Expected<std::uint64_t> upload(const std::vector<unsigned char> &bytes);
  void releaseBuffers();

  /// Overwrites a 256 MiB buffer on the stream, so no launch finds its inputs in L2.
  Status flushL2();
  /// Records event \p index (created on first use) on the stream.
  Status record(std::size_t index);
  /// Waits for the stream; a failed kernel's error surfaces here.
  Status synchronize();
  /// Milliseconds between two recorded events (after synchronize()).
  Expected<double> elapsedMs(std::size_t from, std::size_t to);

private:
  CudaSession() = default;
  Diagnostic driverError(const std::string &call, int result) const;

  const CudaDriverApi *api_ = nullptr;
  GpuDevice device_;
  int cuDevice_ = 0;
  bool retained_ = false;
  void *stream_ = nullptr;
  std::uint64_t flushBuffer_ = 0;
  std::vector<std::uint64_t> buffers_;
  std::vector<void *> events_;
};

} // namespace tta::tune
