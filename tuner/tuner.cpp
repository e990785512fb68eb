#include "tuner/tuner.h"

#include "contract/output_transaction.h"
#include "contract/sha256.h"
#include "tuner/cuda_session.h"
#include "tuner/kernel_arguments.h"
#include "tuner/kernel_library.h"
#include "tuner/tuning_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>

namespace tta::tune {

namespace {

/// triton_aot_status of a config the library has no image for on this device.
constexpr int kNoImage = 3;
/// Fixed, so two runs fill buffers alike.
constexpr std::uint64_t kRandomSeed = 0x7472746f6e61ull;

Diagnostic usage(std::string message, std::string note = {}) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  if (!note.empty())
    diag.notes.push_back(std::move(note));
  return diag;
}

std::string joinKernelNames(const LibraryManifest &manifest) {
  std::string out;
  for (const ManifestKernel &kernel : manifest.kernels)
    out += (out.empty() ? "" : ", ") + kernel.name;
  return out;
}

/// A number as JSON: integral values as integers (25, not 25.0).
nlohmann::json number(double value) {
  if (std::floor(value) == value && std::abs(value) < 1e15)
    return static_cast<std::int64_t>(value);
  return value;
}

nlohmann::json methodJson(const MeasureSettings &settings) {
  return {{"warmup_ms", number(settings.warmupMs)},
          {"repetitions", settings.repetitions},
          {"max_ms_per_measurement", number(settings.maxMsPerMeasurement)},
          {"statistic", "median"},
          {"l2_flush", true}};
}

std::string formatUs(double us) {
  char text[32];
  std::snprintf(text, sizeof text, us < 10 ? "%.2f us" : "%.1f us", us);
  return text;
}

/// The spec's kernels the run times, each checked against the library.
struct Job {
  BoundKernel bound;
  ConfigArgvLauncher launch = nullptr;
};

Expected<std::vector<Job>> planJobs(const TuningSpec &spec, const KernelLibrary &library,
                                    const std::vector<std::string> &only) {
  for (const std::string &name : only)
    if (std::none_of(spec.kernels.begin(), spec.kernels.end(),
                     [&](const KernelSpec &k) { return k.kernel == name; }))
      return usage("--kernel " + name + ": the spec has no kernel of that name",
                   "--kernel picks among the spec's kernels");
  std::vector<Job> jobs;
  for (const KernelSpec &kernelSpec : spec.kernels) {
    if (!only.empty() && std::find(only.begin(), only.end(), kernelSpec.kernel) == only.end())
      continue;
    const ManifestKernel *kernel = findKernel(library.manifest(), kernelSpec.kernel);
    if (!kernel) {
      Diagnostic diag = usage("kernel '" + kernelSpec.kernel + "' is not in library " +
                                  library.manifest().name,
                              "its kernels are " + joinKernelNames(library.manifest()));
      diag.file = kernelSpec.where;
      return diag;
    }
    if (kernel->configs.empty())
      return usage("kernel " + kernel->name + " has no configs in the library's manifest");
    auto bound = bindKernel(kernelSpec, *kernel);
    if (!bound)
      return bound.takeError();
    auto launch = library.launcher(kernel->name);
    if (!launch)
      return launch.takeError();
    jobs.push_back({std::move(*bound), *launch});
  }
  return jobs;
}

std::string describeShape(const KernelSpec &spec, const std::vector<std::int64_t> &key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i)
    out += " " + spec.key[i] + "=" + std::to_string(key[i]);
  return out;
}

} // namespace

std::string targetForDevice(int major, int minor, const std::vector<std::string> &libraryTargets) {
  std::string capability = std::to_string(major) + std::to_string(minor);
  bool archSpecific = capability == "90" || capability == "100";
  std::string preferred = "cuda:" + capability + (archSpecific ? "a" : "");
  std::vector<std::string> candidates = {preferred, "cuda:" + capability,
                                         "cuda:" + capability + "a", "cuda:" + capability + "f"};
  for (const std::string &candidate : candidates)
    if (std::find(libraryTargets.begin(), libraryTargets.end(), candidate) != libraryTargets.end())
      return candidate;
  return preferred;
}

namespace {

/// What one tuning run shares across its kernels, shapes and configs.
struct TuningRun {
  const TuneOptions &options;
  const ProgressSink &progress;
  const KernelLibrary &library;
  CudaSession &session;
  std::size_t done = 0, total = 0;
  std::mt19937_64 random{kRandomSeed};
};

/// The median time of one config for one shape, or nullopt where the library refuses the
/// config on this device.
Expected<std::optional<double>> timeConfig(TuningRun &run, const Job &job,
                                           const std::vector<std::int64_t> &key,
                                           const LaunchArguments &arguments,
                                           const ManifestConfig &config) {
  const ManifestKernel &kernel = *job.bound.kernel;
  auto grid = evaluateGrid(job.bound, key, config);
  if (!grid)
    return grid.takeError();
  const std::uint32_t *gridArg = takesCallerGrid(kernel) ? grid->data() : nullptr;
  auto launchOnce = [&] {
    return job.launch(run.session.stream(), config.index, gridArg, arguments.pointers.data());
  };
  const std::string what = "kernel " + kernel.name + ", config " + config.name + "," +
                           describeShape(*job.bound.spec, key);
  auto launch = [&]() -> Status {
    if (launchOnce() == 0)
      return ok();
    return makeError(ExitCode::KernelError,
                     what + ": the launch failed: " + run.library.lastError());
  };
  // A driver error after launches is most likely the kernel's (a fault is reported at the next
  // synchronisation): say which one ran.
  auto inContext = [&](Diagnostic diag) {
    diag.message = what + ": " + diag.message;
    return diag;
  };
  std::string line = "[" + std::to_string(++run.done) + "/" + std::to_string(run.total) + "] " +
                     kernel.name + describeShape(*job.bound.spec, key) + " " + config.name + ": ";
  // The first launch also loads the image: it is never timed.
  int first = launchOnce();
  if (first == kNoImage) {   // this device cannot run the config: the library refuses it
    run.progress(line + "refused on this device (" + run.library.lastError() + ")");
    return std::optional<double>();
  }
  if (first != 0)
    return launch().takeError();   // the same launch again, for its message
  if (Status synced = run.session.synchronize(); !synced) {
    Diagnostic diag = inContext(synced.takeError());
    diag.code = ExitCode::KernelError;
    return diag;
  }
  auto us = measureMedianUs(run.session, launch, run.options.measure);
  if (!us)
    return us.error().code == ExitCode::KernelError ? us.takeError() : inContext(us.takeError());
  double rounded = std::round(*us * 1000) / 1000;   // 1 ns: finer than events resolve
  run.progress(line + formatUs(rounded));
  return std::optional<double>(rounded);
}

/// Every config of \p job's kernel timed for one shape, on buffers made once for it.
Expected<TunedShape> timeShape(TuningRun &run, const Job &job, const std::vector<std::int64_t> &key) {
  auto arguments = buildArguments(job.bound, key, run.random,
                                  [&](const std::vector<unsigned char> &bytes) {
                                    return run.session.upload(bytes);
                                  });
  if (!arguments)
    return arguments.takeError();
  TunedShape shape;
  shape.key = key;
  double bestUs = std::numeric_limits<double>::infinity();
  for (const ManifestConfig &config : job.bound.kernel->configs) {
    auto time = timeConfig(run, job, key, *arguments, config);
    if (!time)
      return time.takeError();
    shape.timesUs[config.name] = *time;
    if (*time && **time < bestUs) {
      bestUs = **time;
      shape.best = config.name;
    }
  }
  run.session.releaseBuffers();
  return shape;
}

/// Where a kernel's times come from: the device, the library, the method.
TunedTarget describeTarget(const TuningRun &run, const ManifestKernel &kernel) {
  const GpuDevice &device = run.session.device();
  const LibraryManifest &manifest = run.library.manifest();
  TunedTarget target;
  target.target = targetForDevice(device.major, device.minor, kernel.targets);
  target.device = device.name;
  target.tritonVersion = tritonVersionsOf(manifest);
  target.library = manifest.name;
  target.libraryHash = sha256Hex(run.library.manifestText());
  target.source = "triton-aot-tune";
  target.method = methodJson(run.options.measure);
  return target;
}

Diagnostic noConfigRuns(const TuningRun &run, const ManifestKernel &kernel,
                        const std::string &target) {
  std::string targets;
  for (const std::string &t : kernel.targets)
    targets += (targets.empty() ? "" : ", ") + t;
  const GpuDevice &device = run.session.device();
  return makeError(ExitCode::UsageError,
                   "kernel " + kernel.name + ": no config runs on device " +
                       std::to_string(device.ordinal) + " (" + device.name + ", " + target +
                       "); the library has images for " + targets);
}

} // namespace

Expected<TuningTable> tune(const TuneOptions &options, const ProgressSink &progress) {
  // Everything that can be checked without a GPU is checked first.
  auto spec = readTuningSpec(options.spec);
  if (!spec)
    return spec.takeError();
  auto library = KernelLibrary::open(options.library, options.prefix);
  if (!library)
    return library.takeError();
  auto jobs = planJobs(*spec, **library, options.kernels);
  if (!jobs)
    return jobs.takeError();
  auto session = CudaSession::open(options.device);
  if (!session)
    return session.takeError();
  // Declared after the session, so it runs first: nothing stays loaded in a context the
  // session is about to release.
  struct UnloadAtExit {
    const KernelLibrary &library;
    ~UnloadAtExit() { library.unload(); }
  } unloadAtExit{**library};

  TuningRun run{options, progress, **library, **session};
  for (const Job &job : *jobs)
    run.total += job.bound.spec->shapes.size() * job.bound.kernel->configs.size();
  TuningTable table;
  for (const Job &job : *jobs) {
    TunedTarget target = describeTarget(run, *job.bound.kernel);
    for (const std::vector<std::int64_t> &key : job.bound.spec->shapes) {
      auto shape = timeShape(run, job, key);
      if (!shape)
        return shape.takeError();
      if (shape->best.empty())
        return noConfigRuns(run, *job.bound.kernel, target.target);
      target.shapes.push_back(std::move(*shape));
    }
    table.kernels.push_back({job.bound.kernel->name, job.bound.spec->key, {std::move(target)}});
  }
  return table;
}

Status tuneAndWrite(const TuneOptions &options, const ProgressSink &progress) {
  // An existing table that does not read is an error before hours of timing, not after.
  TuningTable merged;
  bool existing = std::filesystem::exists(options.output);
  if (existing) {
    auto old = readTuningTable(options.output);
    if (!old)
      return old.takeError();
    merged = std::move(*old);
  }
  auto table = tune(options, progress);
  if (!table)
    return table.takeError();
  if (Status status = mergeTuningTables(merged, *table); !status)
    return status.takeError();
  OutputTransaction output;
  if (Status status = output.stage(options.output, tuningTableJson(merged).dump(2) + "\n"); !status)
    return status.takeError();
  return output.commit();
}

} // namespace tta::tune
