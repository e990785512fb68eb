// first_launch: the cost of the first call of a generated entry point in a process, against
// loading the same cubin with the driver directly and launching it once. Each figure comes from
// a fresh process (the program re-executes itself), after the driver is initialised, the
// device's primary context is current and the buffers are filled, so what is timed is only:
//
//   library     bench_kernels_vector_add(): the runtime's first call (reaching the driver's
//               entry points, choosing the image for the device, loading it, launching)
//   module      cuModuleLoadData + cuModuleGetFunction + cuLaunchKernel of the same cubin
//   cu_library  cuLibraryLoadData + cuLibraryGetKernel + cuLaunchKernel of the same cubin
//
// and, to show where the library's time goes, parts of what its first call does (or did):
//
//   cu_library_function  an earlier runtime's driver calls for the image: cuLibraryLoadData
//                        (with an error-log buffer) + cuLibraryGetKernel + cuKernelGetFunction
//                        + launch
//   module_ex            cuModuleLoadDataEx with an error-log buffer + cuModuleGetFunction +
//                        launch: the module path with the runtime's load options
//   resolve              opening the driver: dlopen + cuGetProcAddress of each entry point the
//                        runtime resolves (runtime_entry_points.c)
//   resolve_dlsym        the same entry points through plain dlsym instead
//   dlopen               dlopen of the (already loaded) driver alone
//   dlopen_noload        the same dlopen with RTLD_NOLOAD
//   facts                the device queries an earlier runtime made once per device (the
//                        runtime now asks the compute capability only, the rest when needed)
//   init                 cuInit(0) again, in a process where the driver is initialised
//
// each followed by a synchronisation (the launch has run when the clock stops). Each child also
// reports the minor page faults taken while the clock ran (first touches of code and data). The
// cubin is the one launch_overhead embeds: the variant the library dispatches to. See
// docs/benchmarks.md ("First launch").
//
//   first_launch [--runs N] [--device N] [--elements N] [--methods LIST] [--csv FILE]
//
// --methods times only the comma-separated methods named (library, module and cu_library, the
// ratios' terms, always among them): more runs of the ratios in the same time.
//
// Runs rotate which method goes first. Exit status: 0 measured, 1 error, 77 skipped (no CUDA
// driver or GPU, or a GPU none of the embedded cubins runs on).
#include <bench_kernels.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <vector>

#include "cuda_bench_support.h"

extern "C" int tta_bench_resolve_runtime_entry_points(void);
extern "C" int tta_bench_dlsym_runtime_entry_points(void);
extern "C" int tta_bench_dlopen_driver(void);
extern "C" int tta_bench_dlopen_driver_noload(void);

namespace {

using namespace tta::gpu;
using namespace tta::bench;
using Clock = std::chrono::steady_clock;

// Minor page faults of this process so far: first touches of pages already in memory (the
// driver's and this program's code and tables).
long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

constexpr int kSkipped = 77;
// cuda.h's CU_JIT_ERROR_LOG_BUFFER and _SIZE_BYTES: the options the runtime loads with.
constexpr int kJitErrorLogBuffer = 5, kJitErrorLogBufferSize = 6;
// What an earlier runtime asked of a device once (the `facts` part): compute capability,
// opt-in shared memory, grid limits (cuda.h CU_DEVICE_ATTRIBUTE_*). The runtime now asks the
// first two attributes on a first launch and the others when needed (library_cuda.c).
constexpr int kDeviceFactAttributes[] = {75, 76, 97, 5, 6, 7};
constexpr const char *kMethods[] = {"library",   "module",        "cu_library",
                                    "cu_library_function", "module_ex", "resolve",
                                    "resolve_dlsym", "dlopen",   "dlopen_noload",
                                    "facts",   "init"};
constexpr size_t kMethodCount = std::size(kMethods);

struct Options {
  int runs = 20;
  int device = 0;
  int elements = 4096;
  std::string csv;
  std::vector<size_t> methods;  // indices into kMethods: those timed
  std::string child_method;     // set in a re-executed child: time this method once
};

// "a,b,c" as indices into kMethods; library, module and cu_library must be among them.
std::vector<size_t> parseMethods(const std::string &list, void (*usage)(const char *)) {
  std::vector<size_t> chosen;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, end - start);
    auto found = std::find(std::begin(kMethods), std::end(kMethods), name);
    if (found == std::end(kMethods)) usage(("unknown method in --methods: " + name).c_str());
    chosen.push_back(static_cast<size_t>(found - std::begin(kMethods)));
    start = end + 1;
  }
  for (size_t required = 0; required < 3; ++required)
    if (std::find(chosen.begin(), chosen.end(), required) == chosen.end())
      usage("--methods must include library, module and cu_library (the ratios' terms)");
  return chosen;
}

[[noreturn]] void usage(const char *message) {
  std::fprintf(stderr, "first_launch: %s\nusage: first_launch [--runs N] [--device N] "
                       "[--elements N] [--methods LIST] [--csv FILE]\n", message);
  std::exit(1);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + flag).c_str());
    const char *value = argv[++i];
    auto number = [&] { return parseCount(flag, value, usage); };
    if (flag == "--runs") options.runs = number();
    else if (flag == "--device") options.device = number();
    else if (flag == "--elements") options.elements = number();
    else if (flag == "--csv") options.csv = value;
    else if (flag == "--methods") options.methods = parseMethods(value, usage);
    else if (flag == "--child") options.child_method = value;
    else usage(("unknown option " + flag).c_str());
  }
  // The library then dispatches to the hinted variant, which is the cubin embedded here.
  if (options.elements <= 0 || options.elements % 16 != 0)
    usage("--elements must be a positive multiple of 16");
  if (options.runs <= 0) usage("--runs must be positive");
  if (options.methods.empty())
    for (size_t m = 0; m < kMethodCount; ++m) options.methods.push_back(m);
  return options;
}

// A child's device and its primary context (current), and the filled buffers, all set up
// before the clock starts.
struct Child {
  const CudaDriver &cu = cudaDriver();
  CUdevice device = 0;
  VectorAddBuffers buffers;

  // cuModuleLoadData + cuModuleGetFunction + launch: the reference, and the untimed launch after
  // a part.
  void launchThroughModule() const {
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    check(cu.cuModuleLoadData(&module, buffers.image->begin), "cuModuleLoadData");
    check(cu.cuModuleGetFunction(&function, module, buffers.image->entry), "cuModuleGetFunction");
    buffers.rawLaunch(function, nullptr);
  }
};

Child prepareChild(const Options &options) {
  Child child;
  const CudaDriver &cu = child.cu;
  if (!cu.available()) fail("child: " + cu.unavailable);
  DeviceInfo device;
  if (std::string error = queryDevice(options.device, &device); !error.empty()) fail(error);
  const BenchImage *image = imageFor(device);
  if (!image) fail("child: no embedded cubin for this device");
  CUcontext context = nullptr;
  check(cu.cuDeviceGet(&child.device, options.device), "cuDeviceGet");
  check(cu.cuDevicePrimaryCtxRetain(&context, child.device), "cuDevicePrimaryCtxRetain");
  check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  child.buffers.allocate(*image, options.elements);
  check(cu.cuMemsetD8(child.buffers.out, 0, child.buffers.bytes()), "cuMemsetD8");
  check(cu.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  return child;
}

// A method that launches: the library's first call, or the driver's ways to the same cubin.
// Returns false if `method` is not one.
bool runLaunchMethod(const std::string &method, const Child &child) {
  const CudaDriver &cu = child.cu;
  const VectorAddBuffers &buffers = child.buffers;
  const BenchImage &image = *buffers.image;
  if (method == "library") {
    const void *px = reinterpret_cast<const void *>(static_cast<uintptr_t>(buffers.x));
    const void *py = reinterpret_cast<const void *>(static_cast<uintptr_t>(buffers.y));
    const void *pout = reinterpret_cast<const void *>(static_cast<uintptr_t>(buffers.out));
    if (bench_kernels_vector_add(nullptr, px, py, pout, buffers.n) != TRITON_AOT_SUCCESS)
      fail(std::string("bench_kernels_vector_add: ") + bench_kernels_last_error());
  } else if (method == "module") {
    child.launchThroughModule();
  } else if (method == "cu_library") {
    if (!cu.cuLibraryLoadData) fail("the driver has no cuLibraryLoadData (CUDA 12.0+)");
    CUlibrary library = nullptr;
    CUkernel kernel = nullptr;
    check(cu.cuLibraryLoadData(&library, image.begin, nullptr, nullptr, 0, nullptr, nullptr, 0),
          "cuLibraryLoadData");
    check(cu.cuLibraryGetKernel(&kernel, library, image.entry), "cuLibraryGetKernel");
    // A CUkernel launches as a CUfunction.
    buffers.rawLaunch(reinterpret_cast<CUfunction>(kernel), nullptr);
  } else if (method == "cu_library_function") {
    if (!cu.cuLibraryLoadData || !cu.cuKernelGetFunction)
      fail("the driver has no cuLibraryLoadData or cuKernelGetFunction (CUDA 12.0+)");
    char log[2048] = "";
    int jit_options[2] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
    void *values[2] = {log, reinterpret_cast<void *>(sizeof log)};
    CUlibrary library = nullptr;
    CUkernel kernel = nullptr;
    CUfunction function = nullptr;
    check(cu.cuLibraryLoadData(&library, image.begin, jit_options, values, 2, nullptr, nullptr, 0),
          "cuLibraryLoadData");
    check(cu.cuLibraryGetKernel(&kernel, library, image.entry), "cuLibraryGetKernel");
    check(cu.cuKernelGetFunction(&function, kernel), "cuKernelGetFunction");
    buffers.rawLaunch(function, nullptr);
  } else if (method == "module_ex") {
    char log[2048] = "";
    int jit_options[2] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
    void *values[2] = {log, reinterpret_cast<void *>(sizeof log)};
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    check(cu.cuModuleLoadDataEx(&module, image.begin, 2, jit_options, values),
          "cuModuleLoadDataEx");
    check(cu.cuModuleGetFunction(&function, module, image.entry), "cuModuleGetFunction");
    buffers.rawLaunch(function, nullptr);
  } else {
    return false;
  }
  return true;
}

// A part of the library's first call, timed alone (it launches nothing). Returns false if
// `method` is not one.
bool runPart(const std::string &method, const Child &child) {
  const CudaDriver &cu = child.cu;
  if (method == "resolve") {
    if (tta_bench_resolve_runtime_entry_points() <= 0) fail("cannot resolve the entry points");
  } else if (method == "resolve_dlsym") {
    if (tta_bench_dlsym_runtime_entry_points() <= 0) fail("cannot find the entry points");
  } else if (method == "dlopen") {
    if (tta_bench_dlopen_driver() <= 0) fail("cannot open libcuda.so.1");
  } else if (method == "dlopen_noload") {
    if (tta_bench_dlopen_driver_noload() <= 0) fail("libcuda.so.1 is not loaded");
  } else if (method == "init") {
    check(cu.cuInit(0), "cuInit");
  } else if (method == "facts") {
    char name[128];
    int value = 0;
    check(cu.cuDeviceGetName(name, sizeof name, child.device), "cuDeviceGetName");
    for (int attribute : kDeviceFactAttributes)
      check(cu.cuDeviceGetAttribute(&value, attribute, child.device), "cuDeviceGetAttribute");
  } else {
    return false;
  }
  return true;
}

// The child: sets everything up untimed, then times one method. A part stops the clock when
// done and the kernel is launched untimed, so every method's output is checked alike. Prints
// "us <value>".
int runChild(const Options &options) {
  const Child child = prepareChild(options);
  const std::string &method = options.child_method;
  std::optional<Clock::time_point> part_done;
  long faults_after = 0;
  const long faults_before = minorFaults();
  auto start = Clock::now();
  if (runPart(method, child)) {
    part_done = Clock::now();
    faults_after = minorFaults();
    child.launchThroughModule();
  } else if (!runLaunchMethod(method, child)) {
    fail("unknown --child method " + method);
  }
  check(child.cu.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  auto stop = part_done ? *part_done : Clock::now();
  if (!part_done) faults_after = minorFaults();
  child.buffers.checkSum(method);
  std::printf("us %.3f faults %ld\n",
              std::chrono::duration<double, std::micro>(stop - start).count(),
              faults_after - faults_before);
  return 0;
}

// Runs this program again as a child timing `method`; returns its figures.
ChildFigures timeInFreshProcess(const std::string &self, const Options &options,
                                const char *method) {
  std::string command = shellQuote(self) + " --child " + method + " --device " +
                        std::to_string(options.device) + " --elements " +
                        std::to_string(options.elements);
  return childFigures(command, std::string("the child timing ") + method);
}

}  // namespace

int main(int argc, char **argv) {
  const Options options = parseOptions(argc, argv);
  if (!options.child_method.empty()) return runChild(options);

  // The parent only checks that a child can run here; it loads nothing on the GPU.
  const CudaDriver &cu = cudaDriver();
  DeviceInfo device;
  const BenchImage *image = deviceImageOrSkip(options.device, &device);
  if (!image) return kSkipped;
  if (!std::strstr(bench_kernels_manifest(), image->sha256))
    fail(std::string("the library's manifest does not list the cubin of ") + image->variant);
  const std::string self = selfPath();

  const std::vector<size_t> &chosen = options.methods;
  std::vector<std::vector<double>> us(kMethodCount), faults(kMethodCount);
  for (int r = 0; r < options.runs; ++r)
    for (size_t k = 0; k < chosen.size(); ++k) {
      size_t m = chosen[(static_cast<size_t>(r) + k) % chosen.size()];
      ChildFigures figures = timeInFreshProcess(self, options, kMethods[m]);
      us[m].push_back(figures.us);
      faults[m].push_back(static_cast<double>(figures.faults));
    }

  std::printf("device: %s (sm_%d%d), CUDA driver %d.%d\n", device.name.c_str(), device.major,
              device.minor, cu.driver_version / 1000, cu.driver_version % 1000 / 10);
  std::printf("kernel: %s in %s (%zu bytes), %d elements\n", image->variant, image->name,
              static_cast<size_t>(image->end - image->begin), options.elements);
  std::printf("method: first launch + synchronise in a fresh process, median of %d runs\n",
              options.runs);
  const double module_median = median(us[1]);
  for (size_t m : chosen)
    std::printf("  %-20s %9.1f us  (min %.1f)  x module %.3f  page faults %.0f\n", kMethods[m],
                median(us[m]), *std::min_element(us[m].begin(), us[m].end()),
                median(us[m]) / module_median, median(faults[m]));
  std::printf("ratio library / cuModuleLoadData: %.3f; library / cuLibraryLoadData: %.3f\n",
              median(us[0]) / module_median, median(us[0]) / median(us[2]));

  if (!options.csv.empty()) {
    FILE *csv = std::fopen(options.csv.c_str(), "w");
    if (!csv) fail("cannot write " + options.csv + ": " + std::strerror(errno));
    std::fprintf(csv, "device,image,elements,run,first");
    for (size_t m : chosen) std::fprintf(csv, ",%s_us", kMethods[m]);
    for (size_t m : chosen) std::fprintf(csv, ",%s_faults", kMethods[m]);
    std::fprintf(csv, "\n");
    for (int r = 0; r < options.runs; ++r) {
      std::fprintf(csv, "\"%s\",%s,%d,%d,%s", device.name.c_str(), image->name,
                   options.elements, r, kMethods[chosen[static_cast<size_t>(r) % chosen.size()]]);
      for (size_t m : chosen) std::fprintf(csv, ",%.3f", us[m][static_cast<size_t>(r)]);
      for (size_t m : chosen) std::fprintf(csv, ",%.0f", faults[m][static_cast<size_t>(r)]);
      std::fprintf(csv, "\n");
    }
    if (std::fclose(csv) != 0) fail("cannot write " + options.csv);
    std::printf("raw figures: %s\n", options.csv.c_str());
  }
  return 0;
}
