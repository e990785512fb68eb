// The GPU side of the example programs: device 0 of the CUDA driver (libcuda.so.1) or, where
// there is none, of the HIP runtime (libamdhip64.so), opened with dlopen. No CUDA or ROCm
// header or library is needed to build; without a GPU, Device::open() says why instead of
// failing, so the programs run (and print their library's inventory) anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace examples {

class Device {
public:
  /// Device 0 of the first backend that has one (CUDA, then HIP), current on this thread.
  static Device open();
  /// How every example starts: turns on the runtime's load log (stderr: which image it chose
  /// for this device, and why), opens the device and prints "device: ..."; without a GPU it
  /// prints why and the library's \p inventory instead, and available() is false.
  static Device openOrShowInventory(const char *inventory);

  /// False without a usable GPU; why() then says what is missing.
  bool available() const { return backend_ != nullptr; }
  const std::string &why() const { return why_; }
  /// "NVIDIA H100 80GB HBM3 (CUDA, compute capability 9.0)".
  const std::string &description() const { return description_; }

  // Memory and synchronisation; each throws std::runtime_error naming the failed call.
  void *allocate(std::size_t bytes) const;
  void release(void *pointer) const noexcept;
  void upload(void *device, const void *host, std::size_t bytes) const;
  void download(void *host, const void *device, std::size_t bytes) const;
  /// Waits for every launch on the device (the examples launch on the default stream).
  void synchronize() const;

  class Backend; // CUDA or HIP, in device.cpp

private:
  std::shared_ptr<const Backend> backend_;
  std::string why_;
  std::string description_;
};

/// Device memory holding \p count values of T, freed with the buffer.
template <class T> class DeviceBuffer {
public:
  DeviceBuffer(const Device &device, std::size_t count)
      : device_(&device), pointer_(device.allocate(count * sizeof(T))), count_(count) {}
  ~DeviceBuffer() { device_->release(pointer_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  /// The device address, as the generated API takes it.
  void *get() const { return pointer_; }
  /// The address \p elements values in (for a deliberately misaligned argument). Integer
  /// arithmetic: the address is not a host pointer.
  void *at(std::size_t elements) const {
    return reinterpret_cast<void *>(reinterpret_cast<std::uintptr_t>(pointer_) +
                                    elements * sizeof(T));
  }

  void upload(const std::vector<T> &values, std::size_t offset = 0) const {
    device_->upload(at(offset), values.data(), values.size() * sizeof(T));
  }
  std::vector<T> download(std::size_t count, std::size_t offset = 0) const {
    std::vector<T> values(count);
    device_->download(values.data(), at(offset), count * sizeof(T));
    return values;
  }
  std::size_t size() const { return count_; }

private:
  const Device *device_;
  void *pointer_;
  std::size_t count_;
};

} // namespace examples
