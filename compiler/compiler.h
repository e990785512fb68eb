// triton-aot-cc as a library: expands kernels x signatures x configs x targets into variants,
// serves what it can from the cache, compiles the rest through frontend workers in parallel,
// checks every image, and writes images, metadata, depfile and index all-or-nothing.
#pragma once

#include "compiler/config.h"
#include "compiler/heuristics.h"
#include "compiler/signature.h"
#include "compiler/source_names.h"
#include "compiler/specialize.h"
#include "contract/diagnostic.h"
#include "contract/grid.h"
#include "contract/log_sink.h"
#include "contract/metadata.h"
#include "contract/target.h"
#include "contract/variant_origins.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tta {

/// One entry point: a kernel function and the variants to build of it.
struct KernelSpec {
  std::string source;                  ///< as given (diagnostics, metadata)
  std::filesystem::path sourcePath;    ///< absolute
  std::string sourceKind;              ///< "python", "ttir", "ttgir" (from the extension)
  std::string function;                ///< the @jit function; empty for IR (taken from the IR)
  std::string name;                    ///< entry point name; default: function
  std::vector<Signature> signatures;   ///< hint variants; empty for IR sources
  std::vector<Config> configs;         ///< at least one (possibly empty)
  /// The declaration gave no config: a @triton.autotune'd kernel's configs are the decorator's
  /// (docs/compiler.md#autotuned-kernels); any other kernel compiles the one empty config.
  bool configsFromDecorator = false;
  bool dropPreHooks = false;           ///< --drop-pre-hooks: decorator configs' pre_hooks are dropped
  std::vector<Target> targets;         ///< at least one
  /// The launch grid as expressions; absent: the caller passes the grid (grid_x, grid_y, grid_z
  /// after the stream), as upstream compile.py's launchers take it.
  std::optional<Grid> grid;
  HeuristicDeclarations heuristics;    ///< --heuristic / --heuristic-values
  SpecializePolicy specialize;         ///< --specialize-for / --specialize-arg
  std::string origin;                  ///< where it was declared: "command line" or the spec file
};

struct CompileOptions {
  /// Outputs are "<outputStem>.<target tag>.<digest>.<ext>" per kernel: outputDir / name.
  std::filesystem::path outputDir;
  /// Upstream's -o: an explicit stem for a single-kernel run (empty: outputDir / name).
  std::filesystem::path outputStem;
  std::filesystem::path depfile;       ///< empty: none
  std::filesystem::path index;         ///< empty: none
  std::string indexAsGiven;            ///< --index as spelled (the depfile's target)
  bool relativeOutputs = false;        ///< -o was relative: depfile targets are too
  std::filesystem::path cacheDir;      ///< empty: no cache
  /// --remote-cache: the shared cache's URL (empty: $TRITON_AOT_REMOTE_CACHE, if set; see
  /// compiler/remote/remote_cache.h), and --remote-cache-read-only.
  std::string remoteCache;
  bool remoteReadOnly = false;
  /// The project's root (absolute, normal): sources are named relative to it in outputs and
  /// cache keys, so another checkout directory gives the same bytes and the same keys.
  std::filesystem::path sourceRoot;
  /// --file-prefix-map OLD=NEW, in the order given (compiler/source_names.h).
  std::vector<PrefixMapping> filePrefixMap;
  std::string python;                  ///< interpreter with Triton (absolute or on PATH)
  std::filesystem::path workerScript;  ///< triton_aot_worker.py
  std::filesystem::path irDir;         ///< --emit-ir: also write ttir/ttgir/llir/ptx|amdgcn here
  bool writePtx = true;                ///< CUDA: write the .ptx beside the cubin
  int jobs = 0;                        ///< parallel workers; 0 = one per CPU
  bool workerPool = false;             ///< lease warm workers from the pool (worker_lease.h)
  int workerIdleSeconds = 120;         ///< how long a pooled worker waits for the next run
  /// Whose kernel code pooled workers run: the --source-root given, else the directories of
  /// the kernel files (docs/security.md, "Workers"). Runs of two projects never share a worker.
  std::string workerProject;
  /// --compile-timeout / TRITON_AOT_COMPILE_TIMEOUT: seconds a frontend request (an import and
  /// description, a compile) may take before its worker is killed; 0: no limit.
  int compileTimeoutSeconds = 600;
  bool verbose = false;
  int interruptFd = -1;                ///< readable when the run must stop (SIGINT self-pipe)
};

struct CompileRequest {
  std::vector<KernelSpec> kernels;
  CompileOptions options;
};

/// Where a variant's outputs came from.
enum class CacheOrigin { Compiled, Local, Remote };

struct CompiledVariant {
  KernelMetadata metadata;
  std::filesystem::path metadataPath;
  CacheOrigin origin = CacheOrigin::Compiled;
  std::string specializedFor;   ///< the call --specialize-for added it for; "" if declared
  /// Compiled now: how long Triton's compile took in its worker (the answer's compile_ms).
  std::optional<double> compileSeconds;
};

struct CompileOutcome {
  ExitCode code = ExitCode::Success;
  std::vector<CompiledVariant> variants;   ///< in expansion order; empty on failure
  std::vector<Diagnostic> errors;          ///< every failure, in expansion order
  /// Compiled now and refused by the target (shared memory, threads): Triton's compile times.
  std::vector<double> refusedCompileSeconds;
  double seconds = 0;                      ///< the run's wall time
  int workers = 0;                         ///< how many frontend workers compiled (-j)
};

CompileOutcome compile(const CompileRequest &request, const LogSink &log = {});

/// What --prepare-workers found besides the pool: whether the installation of opts.python is
/// recorded under opts.cacheDir (or there is no cache, or no such interpreter: nothing to
/// learn ahead).
struct Preparation {
  bool installationRecorded = true;
};

/// --prepare-workers: asks the worker pool of \p opts' project (started if need be) for
/// opts.jobs workers warmed up for \p targets, so that the project's first build leases warm
/// workers (CMake's configure runs it; docs/compiler.md, "Warm workers"). Returns without
/// waiting for them; no workers without the pool. Errors: the interpreter is not found, the
/// pool cannot be started.
Expected<Preparation> prepareWorkers(const CompileOptions &opts,
                                     const std::vector<Target> &targets, const LogSink &log = {});

/// --prepare-workers' other half: learns the installation of opts.python (hashing Triton's
/// files: a second or two) and records it under opts.cacheDir, so that the build's first run
/// recalls it; with a worker of its own. Errors: as a run's that learns it.
Status learnInstallationAhead(const CompileOptions &opts, const LogSink &log = {});

/// The table printed by --summary: kernel, variant, target, image size, shared, registers, spills;
/// then where they came from, what --specialize-for added, and the run's time beside its floor.
std::string formatSummary(const CompileOutcome &outcome);

/// Oldest Triton the frontend supports, and the newest, the default (requirements.txt pins it):
/// every release between them passes the `versions` test preset.
inline constexpr const char *kMinTritonVersion = "3.5.0";
inline constexpr const char *kTestedTritonVersion = "3.9.0";

} // namespace tta
