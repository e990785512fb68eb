// launch_overhead: host time per launch of a generated entry point, bench_kernels_vector_add(),
// against a raw cuLaunchKernel of the same function (the same cubin variant, loaded with
// cuModuleLoadData, the same arguments including the two trailing NULL scratch pointers), in
// the same run, on the same stream. More raw methods show where a difference comes from: the
// same cubin launched as a CUkernel from cuLibraryLoadData and as that CUkernel's CUfunction
// (how the runtime loaded before it used modules), and the reference plus the driver calls the
// runtime makes per launch to find the current context. With --upstream-lib, also upstream
// Triton's generated launcher for the same kernel (compile.py + link.py, built by
// bench/upstream_launcher.py), through its dispatcher vector_add_default(). And the tuned dispatch: the same kernel in a library with two configs
// and a tuning table (bench/launch_overhead.tuning.json) that picks, at the benchmark's size,
// the config whose cubin is this one, so the difference is the table lookup per launch. See
// docs/benchmarks.md ("Launch overhead").
//
//   launch_overhead [--device N] [--elements N] [--repetitions N] [--launches N] [--csv FILE]
//                   [--processes N] [--upstream-lib libupstream_vector_add.so]
//                   [--seed N]
//
// Each repetition times one batch of launches per method, back to back, in an order shuffled
// anew for each repetition (from --seed; process p of --processes uses seed + p), so drift
// (clocks, other load) and whatever one batch leaves for the next affect all alike; the stream
// is synchronised between batches, never inside one. --processes N spreads the repetitions over
// N processes (this one and N - 1 it starts, one after another) and pools them: where code, stack
// and data land in memory differs from process to process and moves a method by 2-4% either way
// against another (docs/benchmarks.md), which one process alone cannot tell from the method's
// cost; pooled over enough processes, that placement averages out. Exit status: 0 measured,
// 1 error, 77 skipped (no CUDA driver or GPU, or a GPU none of the embedded cubins runs on).
#include <bench_kernels.h>
#include <bench_tuned.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "cuda_bench_support.h"

namespace {

using namespace tta::gpu;
using namespace tta::bench;
using Clock = std::chrono::steady_clock;

constexpr int kSkipped = 77;

struct Options {
  int device = 0;
  int elements = 4096;
  int repetitions = 30;
  int launches = 500;
  int processes = 1;
  int seed = 1;
  std::string csv;
  std::string upstream_lib;
};

[[noreturn]] void usage(const char *message) {
  std::fprintf(stderr,
               "launch_overhead: %s\nusage: launch_overhead [--device N] [--elements N] "
               "[--repetitions N] [--launches N] [--csv FILE]\n"
               "                       [--processes N] [--upstream-lib PATH.so] [--seed N]\n",
               message);
  std::exit(1);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + flag).c_str());
    const char *value = argv[++i];
    auto number = [&] { return parseCount(flag, value, usage); };
    if (flag == "--device") options.device = number();
    else if (flag == "--elements") options.elements = number();
    else if (flag == "--repetitions") options.repetitions = number();
    else if (flag == "--launches") options.launches = number();
    else if (flag == "--csv") options.csv = value;
    else if (flag == "--processes") options.processes = number();
    else if (flag == "--upstream-lib") options.upstream_lib = value;
    else if (flag == "--seed") options.seed = number();
    else usage(("unknown option " + flag).c_str());
  }
  // The library then dispatches to the hinted variant, which is the cubin embedded here.
  if (options.elements <= 0 || options.elements % 16 != 0)
    usage("--elements must be a positive multiple of 16");
  if (options.repetitions <= 0 || options.launches <= 0)
    usage("--repetitions and --launches must be positive");
  if (options.processes <= 0 || options.processes > options.repetitions)
    usage("--processes must be between 1 and --repetitions");
  return options;
}

// One way of launching the kernel, and its per-repetition figures.
struct Method {
  const char *label;
  const char *csv_name;
  std::function<void()> launch;
  std::vector<double> us;  // host microseconds per launch, one per repetition
};

// upstream link.py's entry point for the default config: hint checks, then compile.py's
// launcher (lazy load, grid, argument array, cuLaunchKernel).
using UpstreamDispatcher = CUresult (*)(CUstream stream, CUdeviceptr x_ptr, CUdeviceptr y_ptr,
                                        CUdeviceptr out_ptr, int32_t n_elements);
constexpr const char *kUpstreamDispatcher = "vector_add_default";

// Opens the library bench/upstream_launcher.py built; says whether it embeds the same cubin.
UpstreamDispatcher openUpstream(const std::string &path, const BenchImage &image) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) fail(std::string("--upstream-lib: ") + dlerror());
  auto dispatcher = reinterpret_cast<UpstreamDispatcher>(dlsym(handle, kUpstreamDispatcher));
  if (!dispatcher) fail(path + " has no " + kUpstreamDispatcher + " (not link.py's output?)");
  const auto *sha256 = static_cast<const char *>(dlsym(handle, "tta_upstream_cubin_sha256"));
  if (!sha256)
    std::printf("upstream: %s has no tta_upstream_cubin_sha256: cannot tell whether its cubin "
                "is the library's\n", path.c_str());
  else if (std::strcmp(sha256, image.sha256) != 0)
    std::printf("upstream: WARNING: its hinted cubin (sha256 %s) is not the library's (%s): "
                "not the same function\n", sha256, image.sha256);
  else
    std::printf("upstream: the same cubin as the library's (sha256 %s)\n", sha256);
  return dispatcher;  // the handle stays open for the process's lifetime
}

// Repetitions each process times: --repetitions spread over --processes.
size_t perProcess(const Options &options) {
  return static_cast<size_t>(options.repetitions / options.processes);
}

// Per pooled repetition, beside each method's figure: the process that timed it and the method
// that went first.
struct Repetitions {
  std::vector<int> process;
  std::vector<size_t> first;  // an index into the methods
};

// Appends the rows of a child's CSV (the same program: the same methods in the same order) to
// `methods` and `repetitions`, as timed by process `process`.
void appendProcessRows(const std::string &path, int process, std::vector<Method> &methods,
                       Repetitions &repetitions) {
  FILE *csv = std::fopen(path.c_str(), "r");
  if (!csv) fail("cannot read " + path);
  char line[4096];
  bool header = true;
  while (std::fgets(line, sizeof line, csv)) {
    if (header) { header = false; continue; }
    // Fields: device, image, elements, launches, repetition, process, first, then the figures
    // in the order of `methods`.
    std::vector<std::string> fields;
    for (char *field = std::strtok(line, ",\n"); field; field = std::strtok(nullptr, ",\n"))
      fields.push_back(field);
    if (fields.size() != 7 + methods.size()) fail("malformed row in " + path);
    size_t first = 0;
    while (first < methods.size() && fields[6] != methods[first].csv_name) ++first;
    if (first == methods.size()) fail("unknown first method in " + path + ": " + fields[6]);
    repetitions.process.push_back(process);
    repetitions.first.push_back(first);
    for (size_t m = 0; m < methods.size(); ++m)
      methods[m].us.push_back(std::strtod(fields[7 + m].c_str(), nullptr));
  }
  std::fclose(csv);
}

// --processes N: the other N - 1 processes, one after another, each timing its share into a
// CSV of its own; their rows are appended after this one's.
void runOtherProcesses(const Options &options, std::vector<Method> &methods,
                       Repetitions &repetitions) {
  const std::string self = selfPath();
  for (int p = 1; p < options.processes; ++p) {
    std::string rows = (options.csv.empty() ? std::string("launch_overhead") : options.csv) +
                       ".process" + std::to_string(p);
    std::string command = shellQuote(self) + " --device " + std::to_string(options.device) +
                          " --elements " + std::to_string(options.elements) +
                          " --launches " + std::to_string(options.launches) +
                          " --repetitions " + std::to_string(perProcess(options)) +
                          " --seed " + std::to_string(options.seed + p) + " --csv " +
                          shellQuote(rows);
    if (!options.upstream_lib.empty())
      command += " --upstream-lib " + shellQuote(options.upstream_lib);
    if (std::system((command + " > /dev/null").c_str()) != 0)
      fail("the process timing share " + std::to_string(p) + " failed: " + command);
    appendProcessRows(rows, p, methods, repetitions);
    std::remove(rows.c_str());
  }
}

// Each repetition: one batch per method, in an order shuffled for this repetition. Host
// microseconds per launch into each method's figures; the GPU is idle when each batch starts.
void timeMethods(const Options &options, CUstream stream, std::vector<Method> &methods,
                 Repetitions &repetitions) {
  const CudaDriver &cu = cudaDriver();
  std::mt19937 random(static_cast<unsigned>(options.seed));
  std::vector<size_t> order(methods.size());
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t r = 0; r < perProcess(options); ++r) {
    std::shuffle(order.begin(), order.end(), random);
    repetitions.process.push_back(0);
    repetitions.first.push_back(order[0]);
    for (size_t m : order) {
      Method &method = methods[m];
      auto start = Clock::now();
      for (int i = 0; i < options.launches; ++i) method.launch();
      auto stop = Clock::now();
      check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize");
      method.us.push_back(std::chrono::duration<double, std::micro>(stop - start).count() /
                          options.launches);
    }
  }
}

// Median of `method`'s figures from process `process`.
double processMedian(const Method &method, const Repetitions &repetitions, int process) {
  std::vector<double> figures;
  for (size_t r = 0; r < method.us.size(); ++r)
    if (repetitions.process[r] == process) figures.push_back(method.us[r]);
  return median(figures);
}

// Each process's ratio of `method`'s median to `raw`'s.
std::vector<double> processRatios(const Method &method, const Method &raw,
                                  const Repetitions &repetitions, int processes) {
  std::vector<double> ratios;
  for (int p = 0; p < processes; ++p)
    ratios.push_back(processMedian(method, repetitions, p) / processMedian(raw, repetitions, p));
  return ratios;
}

// Every figure to --csv, one row per repetition: the process that timed it, the method that
// went first, then microseconds per launch for each method.
void writeCsv(const Options &options, const DeviceInfo &device, const BenchImage &image,
              const std::vector<Method> &methods, const Repetitions &repetitions) {
  const size_t count = methods[0].us.size();
  FILE *csv = std::fopen(options.csv.c_str(), "w");
  if (!csv) fail("cannot write " + options.csv + ": " + std::strerror(errno));
  std::fprintf(csv, "device,image,elements,launches,repetition,process,first");
  for (const Method &method : methods) std::fprintf(csv, ",%s_us_per_launch", method.csv_name);
  std::fprintf(csv, "\n");
  for (size_t r = 0; r < count; ++r) {
    std::fprintf(csv, "\"%s\",%s,%d,%d,%zu,%d,%s", device.name.c_str(), image.name,
                 options.elements, options.launches, r, repetitions.process[r],
                 methods[repetitions.first[r]].csv_name);
    for (const Method &method : methods) std::fprintf(csv, ",%.4f", method.us[r]);
    std::fprintf(csv, "\n");
  }
  if (std::fclose(csv) != 0) fail("cannot write " + options.csv);
  std::printf("raw figures: %s\n", options.csv.c_str());
}

// The medians and ratios against the raw launch (methods[1]) on stdout; every figure to
// --csv (writeCsv).
void report(const Options &options, const DeviceInfo &device, const BenchImage &image,
            const std::vector<Method> &methods, const Repetitions &repetitions) {
  const CudaDriver &cu = cudaDriver();
  const int32_t n = options.elements;
  const Method &library = methods[0], &raw = methods[1];
  const size_t count = library.us.size();  // pooled over the processes
  std::vector<double> ratios;
  for (size_t r = 0; r < count; ++r) ratios.push_back(library.us[r] / raw.us[r]);
  const std::vector<double> process_ratios =
      processRatios(library, raw, repetitions, options.processes);
  std::printf("device: %s (sm_%d%d, %d SMs), CUDA driver %d.%d\n", device.name.c_str(),
              device.major, device.minor, device.multiprocessors, cu.driver_version / 1000,
              cu.driver_version % 1000 / 10);
  std::printf("kernel: %s in %s (entry %s), %d elements, %u threads x %d programs\n",
              image.variant, image.name, image.entry, n, image.block_x,
              (n + image.block - 1) / image.block);
  std::printf("cubin sha256: %s\n", image.sha256);
  std::printf("method: host time per launch, median of %zu repetitions x %d launches in %d "
              "process(es), methods in a shuffled order\n", count, options.launches,
              options.processes);
  std::printf("  (x raw: the median over processes of each one's ratio of medians)\n");
  for (const Method &method : methods)
    std::printf("  %-52s %7.3f us  (min %.3f)  x raw %.3f\n", method.label, median(method.us),
                *std::min_element(method.us.begin(), method.us.end()),
                median(processRatios(method, raw, repetitions, options.processes)));
  // The headline: each process compares the methods under its own placement of code and data;
  // the median over processes is the typical ratio, which no single lucky or unlucky placement
  // of the raw launch moves (docs/benchmarks.md). With one process, its ratio of medians.
  std::printf("ratio library / raw cuLaunchKernel: %.3f (median over %d process(es) of each "
              "one's ratio of medians)\n",
              median(process_ratios), options.processes);
  if (options.processes > 1)
    std::printf("  per process: %.3f to %.3f\n",
                *std::min_element(process_ratios.begin(), process_ratios.end()),
                *std::max_element(process_ratios.begin(), process_ratios.end()));
  std::printf("  pooled: ratio of medians %.3f, median of per-repetition ratios %.3f\n",
              median(library.us) / median(raw.us), median(ratios));

  if (!options.csv.empty()) writeCsv(options, device, image, methods, repetitions);
}

// Both libraries embed the very cubin the raw methods launch (their manifests list its hash),
// and the tuned library's table picks that cubin's config at this size.
void checkSameCubin(const Options &options, const BenchImage &image) {
  if (!std::strstr(bench_kernels_manifest(), image.sha256))
    fail(std::string("the library's manifest does not list the cubin of ") + image.variant);
  if (!std::strstr(bench_tuned_manifest(), image.sha256))
    fail(std::string("the tuned library's manifest does not list the cubin of ") + image.variant);
  const std::string target = std::string("cuda:") + (image.name + 3);  // "sm_90a" -> "cuda:90a"
  if (bench_tuned_vector_add_select_config(target.c_str(), nullptr, nullptr, nullptr,
                                           options.elements) != bench_tuned_vector_add_CONFIG_b1024)
    fail("the tuned library does not pick b1024 (BLOCK=1024) for " +
         std::to_string(options.elements) + " elements on " + target +
         ": see bench/launch_overhead.tuning.json");
}

// What every method launches with: the device's primary context, the cubin as a module (and
// as a CUkernel where the driver has cuLibraryLoadData), a stream, and filled buffers.
struct Bench {
  const CudaDriver &cu = cudaDriver();
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUlibrary library = nullptr;
  CUkernel kernel = nullptr;
  CUstream stream = nullptr;
  VectorAddBuffers buffers;

  void rawLaunch(CUfunction f) const { buffers.rawLaunch(f, stream); }
};

void prepare(const Options &options, const BenchImage &image, Bench &bench) {
  const CudaDriver &cu = bench.cu;
  CUdevice cu_device = 0;
  CUcontext context = nullptr;
  check(cu.cuDeviceGet(&cu_device, options.device), "cuDeviceGet");
  check(cu.cuDevicePrimaryCtxRetain(&context, cu_device), "cuDevicePrimaryCtxRetain");
  check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  check(cu.cuModuleLoadData(&bench.module, image.begin), "cuModuleLoadData");
  check(cu.cuModuleGetFunction(&bench.function, bench.module, image.entry), "cuModuleGetFunction");
  if (cu.cuLibraryLoadData) {
    check(cu.cuLibraryLoadData(&bench.library, image.begin, nullptr, nullptr, 0, nullptr, nullptr,
                               0),
          "cuLibraryLoadData");
    check(cu.cuLibraryGetKernel(&bench.kernel, bench.library, image.entry), "cuLibraryGetKernel");
  }
  check(cu.cuStreamCreate(&bench.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  // The copies run on the legacy stream, which `stream` (non-blocking) does not wait for:
  // allocate() waits for them.
  bench.buffers.allocate(image, options.elements);
}

void release(const Bench &bench) {
  const CudaDriver &cu = bench.cu;
  bench.buffers.release();
  cu.cuStreamDestroy(bench.stream);
  cu.cuModuleUnload(bench.module);
  if (bench.library) cu.cuLibraryUnload(bench.library);
}

// The methods, each checking its status as a careful caller does. The first two are the
// comparison; the others split the difference between them into the driver's part and ours.
std::vector<Method> buildMethods(const Bench &bench, UpstreamDispatcher upstream) {
  const CudaDriver &cu = bench.cu;
  const VectorAddBuffers &buffers = bench.buffers;
  auto pointer = [](CUdeviceptr p) {
    return reinterpret_cast<const void *>(static_cast<uintptr_t>(p));
  };
  const void *px = pointer(buffers.x), *py = pointer(buffers.y), *pout = pointer(buffers.out);
  const int32_t n = buffers.n;
  CUstream stream = bench.stream;
  std::vector<Method> methods;
  methods.push_back({"bench_kernels_vector_add()", "library", [=] {
    if (bench_kernels_vector_add(stream, px, py, pout, n) != TRITON_AOT_SUCCESS)
      fail(std::string("bench_kernels_vector_add: ") + bench_kernels_last_error());
  }, {}});
  methods.push_back({"raw cuLaunchKernel (CUfunction, cuModuleLoadData)", "raw",
                     [&bench] { bench.rawLaunch(bench.function); }, {}});
  methods.push_back({"bench_tuned_vector_add() (tuned dispatch)", "library_tuned", [=] {
    if (bench_tuned_vector_add(stream, px, py, pout, n) != TRITON_AOT_SUCCESS)
      fail(std::string("bench_tuned_vector_add: ") + bench_tuned_last_error());
  }, {}});
  if (bench.kernel) {
    CUfunction as_function = reinterpret_cast<CUfunction>(bench.kernel);
    methods.push_back({"raw cuLaunchKernel (CUkernel, cuLibraryLoadData)", "raw_kernel",
                       [&bench, as_function] { bench.rawLaunch(as_function); }, {}});
    // The CUkernel's CUfunction for this context (what the runtime launched before it loaded
    // modules): as fast as the module's?
    CUfunction kernel_function = nullptr;
    if (cu.cuKernelGetFunction) {
      check(cu.cuKernelGetFunction(&kernel_function, bench.kernel), "cuKernelGetFunction");
      methods.push_back({"raw cuLaunchKernel (cuKernelGetFunction's CUfunction)",
                         "raw_kernel_function",
                         [&bench, kernel_function] { bench.rawLaunch(kernel_function); }, {}});
    }
    methods.push_back({"raw CUkernel + cuCtxGetCurrent + cuCtxGetDevice", "raw_kernel_ctx",
                       [&bench, &cu, as_function] {
                         CUcontext current = nullptr;
                         CUdevice current_device = 0;
                         if (cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current ||
                             cu.cuCtxGetDevice(&current_device) != CUDA_SUCCESS)
                           fail("no current context");
                         bench.rawLaunch(as_function);
                       },
                       {}});
  }
  // The runtime's per-launch driver calls, one at a time, on the reference's CUfunction: what
  // finding the current context (TLS) and its id (the key of the runtime's per-context cache)
  // cost over the bare launch.
  methods.push_back({"raw CUfunction + cuCtxGetCurrent", "raw_ctx_current", [&bench, &cu] {
                       CUcontext current = nullptr;
                       if (cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current)
                         fail("no current context");
                       bench.rawLaunch(bench.function);
                     },
                     {}});
  if (cu.cuCtxGetId)
    methods.push_back({"raw CUfunction + cuCtxGetCurrent + cuCtxGetId", "raw_ctx_id",
                       [&bench, &cu] {
                         CUcontext current = nullptr;
                         unsigned long long id = 0;
                         if (cu.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current ||
                             cu.cuCtxGetId(current, &id) != CUDA_SUCCESS)
                           fail("no current context");
                         bench.rawLaunch(bench.function);
                       },
                       {}});
  if (upstream)
    methods.push_back({"upstream compile.py + link.py vector_add_default()", "upstream",
                       [&bench, &cu, upstream] {
                         const VectorAddBuffers &b = bench.buffers;
                         CUresult r = upstream(bench.stream, b.x, b.y, b.out, b.n);
                         if (r != CUDA_SUCCESS)
                           fail("upstream vector_add_default: " + cu.describe(r));
                       },
                       {}});
  return methods;
}

// Warm up (the library loads its image on its first call) and check each computes x + y.
void warmUpAndCheck(const Bench &bench, std::vector<Method> &methods) {
  const CudaDriver &cu = bench.cu;
  for (Method &method : methods) {
    check(cu.cuMemsetD8(bench.buffers.out, 0, bench.buffers.bytes()), "cuMemsetD8");
    check(cu.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
    for (int i = 0; i < 1000; ++i) method.launch();
    check(cu.cuStreamSynchronize(bench.stream), "cuStreamSynchronize");
    bench.buffers.checkSum(method.label);
  }
}

}  // namespace

int main(int argc, char **argv) {
  const Options options = parseOptions(argc, argv);
  DeviceInfo device;
  const BenchImage *image = deviceImageOrSkip(options.device, &device);
  if (!image) return kSkipped;
  checkSameCubin(options, *image);
  Bench bench;
  prepare(options, *image, bench);
  UpstreamDispatcher upstream = nullptr;
  if (!options.upstream_lib.empty()) upstream = openUpstream(options.upstream_lib, *image);
  std::vector<Method> methods = buildMethods(bench, upstream);
  warmUpAndCheck(bench, methods);
  Repetitions repetitions;
  timeMethods(options, bench.stream, methods, repetitions);
  runOtherProcesses(options, methods, repetitions);
  report(options, device, *image, methods, repetitions);
  release(bench);
  return 0;
}
