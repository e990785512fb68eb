#include "tuner/cuda_session.h"

#include <dlfcn.h>

#include <type_traits>

namespace tta::tune {

using CUresult = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

namespace {
constexpr CUresult kSuccess = 0;
constexpr int kAttributeMajor = 75, kAttributeMinor = 76;   // CU_DEVICE_ATTRIBUTE_COMPUTE_*
constexpr unsigned kStreamNonBlocking = 1;                  // CU_STREAM_NON_BLOCKING
constexpr unsigned kEventDefault = 0;                       // timing events
constexpr std::size_t kL2FlushBytes = std::size_t(256) << 20;
} // namespace

struct CudaDriverApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(int *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(int) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, std::size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, std::size_t) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, std::size_t, CUstream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  std::string unavailable;   ///< empty when every entry point was found
};

namespace {

using GetProcAddressV2 = CUresult (*)(const char *, void **, int, std::uint64_t, int *);

/// Entry points at the lowest ABI version with the signature declared above (cudaTypedefs.h's
/// _v<version> names), so a newer driver never binds another ABI under the same name.
CudaDriverApi loadDriver() {
  CudaDriverApi api;
  // Never closed: the runtime inside the tuned library holds the same driver.
  void *library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = ::dlerror();
    api.unavailable = std::string("no CUDA driver: cannot load libcuda.so.1 (") +
                      (why ? why : "unknown reason") + ")";
    return api;
  }
  auto getProc = reinterpret_cast<GetProcAddressV2>(::dlsym(library, "cuGetProcAddress_v2"));
  if (!getProc) {
    api.unavailable = "the CUDA driver is older than 12.0 (no cuGetProcAddress_v2)";
    return api;
  }
  std::string missing;
  auto get = [&](auto &function, const char *symbol, int version) {
    void *pointer = nullptr;
    if (getProc(symbol, &pointer, version, 0, nullptr) != kSuccess || !pointer)
      missing += (missing.empty() ? "" : ", ") + std::string(symbol);
    else
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(pointer);
  };
  get(api.cuInit, "cuInit", 2000);
  get(api.cuGetErrorName, "cuGetErrorName", 6000);
  get(api.cuDeviceGetCount, "cuDeviceGetCount", 2000);
  get(api.cuDeviceGet, "cuDeviceGet", 2000);
  get(api.cuDeviceGetName, "cuDeviceGetName", 2000);
  get(api.cuDeviceGetAttribute, "cuDeviceGetAttribute", 2000);
  get(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000);
  get(api.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000);
  get(api.cuCtxSetCurrent, "cuCtxSetCurrent", 4000);
  get(api.cuMemAlloc, "cuMemAlloc", 3020);
  get(api.cuMemFree, "cuMemFree", 3020);
  get(api.cuMemcpyHtoD, "cuMemcpyHtoD", 3020);
  get(api.cuMemsetD8Async, "cuMemsetD8Async", 3020);
  get(api.cuStreamCreate, "cuStreamCreate", 2000);
  get(api.cuStreamDestroy, "cuStreamDestroy", 4000);
  get(api.cuStreamSynchronize, "cuStreamSynchronize", 2000);
  get(api.cuEventCreate, "cuEventCreate", 2000);
  get(api.cuEventRecord, "cuEventRecord", 2000);
  get(api.cuEventElapsedTime, "cuEventElapsedTime", 2000);
  get(api.cuEventDestroy, "cuEventDestroy", 4000);
  if (!missing.empty())
    api.unavailable = "the CUDA driver lacks " + missing;
  return api;
}

const CudaDriverApi &driver() {
  static const CudaDriverApi api = loadDriver();
  return api;
}

Diagnostic environmentError(std::string message) {
  Diagnostic diag = makeError(ExitCode::EnvironmentError, std::move(message));
  diag.notes.push_back("triton-aot-tune times kernels on a GPU: run it where the CUDA driver "
                       "and the device are");
  return diag;
}

} // namespace

Diagnostic CudaSession::driverError(const std::string &call, int result) const {
  const char *name = nullptr;
  if (api_ && api_->cuGetErrorName)
    api_->cuGetErrorName(result, &name);
  return makeError(ExitCode::EnvironmentError,
                   call + " failed on device " + std::to_string(device_.ordinal) + ": " +
                       (name ? name : "CUresult " + std::to_string(result)));
}

Expected<std::unique_ptr<CudaSession>> CudaSession::open(int ordinal) {
  const CudaDriverApi &api = driver();
  if (!api.unavailable.empty())
    return environmentError(api.unavailable);
  std::unique_ptr<CudaSession> session(new CudaSession());
  session->api_ = &api;
  session->device_.ordinal = ordinal;
  int count = 0;
  CUresult result = api.cuInit(0);
  if (result == kSuccess)
    result = api.cuDeviceGetCount(&count);
  if (result != kSuccess) {
    Diagnostic diag = session->driverError("cuInit", result);
    diag.code = ExitCode::EnvironmentError;
    diag.message = "the CUDA driver has no usable device: " + diag.message;
    diag.notes.push_back("triton-aot-tune times kernels on a GPU: run it where one is");
    return diag;
  }
  if (ordinal < 0 || ordinal >= count)
    return environmentError("no CUDA device " + std::to_string(ordinal) + ": the driver has " +
                            std::to_string(count) + (count == 1 ? " device" : " devices"));
  if ((result = api.cuDeviceGet(&session->cuDevice_, ordinal)) != kSuccess)
    return session->driverError("cuDeviceGet", result);
  char name[256] = {};
  if ((result = api.cuDeviceGetName(name, sizeof name, session->cuDevice_)) != kSuccess)
    return session->driverError("cuDeviceGetName", result);
  session->device_.name = name;
  if ((result = api.cuDeviceGetAttribute(&session->device_.major, kAttributeMajor,
                                         session->cuDevice_)) != kSuccess ||
      (result = api.cuDeviceGetAttribute(&session->device_.minor, kAttributeMinor,
                                         session->cuDevice_)) != kSuccess)
    return session->driverError("cuDeviceGetAttribute", result);
  CUcontext context = nullptr;
  if ((result = api.cuDevicePrimaryCtxRetain(&context, session->cuDevice_)) != kSuccess)
    return session->driverError("cuDevicePrimaryCtxRetain", result);
  session->retained_ = true;
  if ((result = api.cuCtxSetCurrent(context)) != kSuccess)
    return session->driverError("cuCtxSetCurrent", result);
  CUstream stream = nullptr;
  if ((result = api.cuStreamCreate(&stream, kStreamNonBlocking)) != kSuccess)
    return session->driverError("cuStreamCreate", result);
  session->stream_ = stream;
  CUdeviceptr flush = 0;
  if ((result = api.cuMemAlloc(&flush, kL2FlushBytes)) != kSuccess)
    return session->driverError("cuMemAlloc of the 256 MiB L2 flush buffer", result);
  session->flushBuffer_ = flush;
  return session;
}

CudaSession::~CudaSession() {
  if (!api_)
    return;
  releaseBuffers();
  if (flushBuffer_)
    api_->cuMemFree(flushBuffer_);
  for (void *event : events_)
    if (event)
      api_->cuEventDestroy(static_cast<CUevent>(event));
  if (stream_)
    api_->cuStreamDestroy(static_cast<CUstream>(stream_));
  if (retained_)
    api_->cuDevicePrimaryCtxRelease(cuDevice_);
}

Expected<std::uint64_t> CudaSession::upload(const std::vector<unsigned char> &bytes) {
  CUdeviceptr pointer = 0;
  if (CUresult result = api_->cuMemAlloc(&pointer, bytes.size()); result != kSuccess)
    return driverError("cuMemAlloc of " + std::to_string(bytes.size()) + " bytes", result);
  buffers_.push_back(pointer);
  if (CUresult result = api_->cuMemcpyHtoD(pointer, bytes.data(), bytes.size()); result != kSuccess)
    return driverError("cuMemcpyHtoD", result);
  return std::uint64_t(pointer);
}

void CudaSession::releaseBuffers() {
  for (std::uint64_t buffer : buffers_)
    api_->cuMemFree(buffer);
  buffers_.clear();
}

Status CudaSession::flushL2() {
  if (CUresult result = api_->cuMemsetD8Async(flushBuffer_, 0, kL2FlushBytes,
                                              static_cast<CUstream>(stream_));
      result != kSuccess)
    return driverError("cuMemsetD8Async (the L2 flush)", result);
  return ok();
}

Status CudaSession::record(std::size_t index) {
  if (index >= events_.size())
    events_.resize(index + 1, nullptr);
  if (!events_[index]) {
    CUevent event = nullptr;
    if (CUresult result = api_->cuEventCreate(&event, kEventDefault); result != kSuccess)
      return driverError("cuEventCreate", result);
    events_[index] = event;
  }
  if (CUresult result = api_->cuEventRecord(static_cast<CUevent>(events_[index]),
                                            static_cast<CUstream>(stream_));
      result != kSuccess)
    return driverError("cuEventRecord", result);
  return ok();
}

Status CudaSession::synchronize() {
  if (CUresult result = api_->cuStreamSynchronize(static_cast<CUstream>(stream_));
      result != kSuccess)
    return driverError("cuStreamSynchronize", result);
  return ok();
}

Expected<double> CudaSession::elapsedMs(std::size_t from, std::size_t to) {
  float ms = 0;
  if (CUresult result = api_->cuEventElapsedTime(&ms, static_cast<CUevent>(events_.at(from)),
                                                 static_cast<CUevent>(events_.at(to)));
      result != kSuccess)
    return driverError("cuEventElapsedTime", result);
  return double(ms);
}

} // namespace tta::tune
