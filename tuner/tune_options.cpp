#include "tuner/tune_options.h"

#include <CLI/CLI.hpp>

namespace tta::tune {

namespace {

Diagnostic usage(std::string message) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.notes.push_back("run 'triton-aot-tune --help' for the options");
  return diag;
}

} // namespace

Expected<TuneCommandLine> parseTuneCommandLine(const std::vector<std::string> &args) {
  CLI::App app{"triton-aot-tune: time every config of a triton-aot library's kernels over the "
               "shapes of a tuning spec, on a GPU, and write the tuning table triton-aot-ld "
               "--tuning compiles into the library",
               "triton-aot-tune"};
  app.footer("Merges into --output when it exists; writes it only when every measurement ran.\n"
             "Exit status: 0 success, 1 a launch failed, 2 bad command line, spec or library,\n"
             "3 no CUDA driver or device, 4 the table cannot be written, 5 internal error.\n"
             "See docs/tuning.md.");
  app.get_formatter()->column_width(34);

  TuneCommandLine out;
  TuneOptions &o = out.options;
  bool version = false;
  app.add_option("--library", o.library, "The built shared library (libmm.so)");
  app.add_option("--spec", o.spec, "The tuning spec: kernels, key, shapes, args (*.tune.json)");
  app.add_option("--output", o.output, "The tuning table to write or merge into (*.tuning.json)");
  app.add_option("--prefix", o.prefix, "The library's C prefix (default: the file name, "
                                       "libmm.so -> mm)");
  app.add_option("--device", o.device, "CUDA device ordinal (default 0)");
  app.add_option("--kernel", o.kernels, "Tune only this kernel of the spec (repeatable)");
  app.add_option("--repetitions", o.measure.repetitions,
                 "Timed launches per config and shape, at most (default 100)");
  app.add_option("--warmup-ms", o.measure.warmupMs,
                 "Warm-up launches before timing, for about this long (default 25)");
  app.add_option("--max-ms-per-measurement", o.measure.maxMsPerMeasurement,
                 "Fewer timed launches when they would take longer (default 200)");
  app.add_flag("--version", version, "Print the version and exit");
  addTritonCacheImportOptions(app, out.import);

  std::vector<std::string> reversed(args.rbegin(), args.rend());   // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp &) {
    out.earlyExitText = app.help();
    return out;
  } catch (const CLI::ParseError &e) {
    return usage(e.what());
  }
  if (version) {
    out.earlyExitText = std::string("triton-aot-tune ") + TRITON_AOT_VERSION + "\n";
    return out;
  }
  if (importRequested(out.import)) {   // no GPU: Triton's own timings become the table
    if (!o.library.empty() || !o.spec.empty())
      return usage("--import-triton-cache reads Triton's timings; it takes no --library or --spec");
    out.import.kernels = o.kernels;
    out.import.output = o.output;
    return out;
  }
  if (o.library.empty())
    return usage("missing --library: the shared library to tune (built by triton-aot)");
  if (o.spec.empty())
    return usage("missing --spec: the tuning spec naming the kernels, key, shapes and args "
                 "(docs/tuning.md)");
  if (o.output.empty())
    return usage("missing --output: the tuning table to write (e.g. mm.tuning.json)");
  if (o.device < 0)
    return usage("--device " + std::to_string(o.device) + " is negative: a CUDA ordinal is 0 or more");
  if (o.measure.repetitions < 1)
    return usage("--repetitions " + std::to_string(o.measure.repetitions) + " must be at least 1");
  if (o.measure.warmupMs < 0)
    return usage("--warmup-ms must not be negative");
  if (o.measure.maxMsPerMeasurement <= 0)
    return usage("--max-ms-per-measurement must be positive");
  return out;
}

} // namespace tta::tune
