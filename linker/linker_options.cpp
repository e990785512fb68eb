#include "linker/linker_options.h"

#include "contract/c_names.h"

#include <CLI/CLI.hpp>
#include <zstd.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace tta::link {

namespace {

Diagnostic usage(std::string message) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.notes.push_back("run 'triton-aot-ld --help' for the options");
  return diag;
}

} // namespace

Expected<LinkCommandLine> parseLinkCommandLine(const std::vector<std::string> &args) {
  CLI::App app{"triton-aot-ld: link the kernels triton-aot-cc compiled into one C library "
               "(header, dispatcher, embedded images, manifest)",
               "triton-aot-ld"};
  app.footer("Inputs are metadata files (.json) and the --index files triton-aot-cc writes.\n"
             "Writes <dir>/<name>.h, .c, .images.S, .images and .json; nothing on failure.\n"
             "Exit status: 0 success, 2 bad command line or inputs, 4 outputs cannot be written,\n"
             "5 internal error, 130 interrupted. See docs/linker.md.");
  app.get_formatter()->column_width(30);

  std::string name, prefix, outputDir, inspect, torchOps, manifest;
  std::vector<std::string> inputs, tuning;
  bool noPtx = false, compress = false, verbose = false, version = false;
  int level = 0;
  app.add_option("inputs", inputs, "Metadata files and --index files of triton-aot-cc");
  app.add_option("--name", name, "Library name: the output files are <name>.h, .c, ...");
  app.add_option("--prefix", prefix, "C prefix of the API (default: the name; a C identifier)");
  app.add_option("-o,--output-dir", outputDir, "Directory for the outputs (created if missing)");
  app.add_flag("--no-ptx", noPtx, "Do not embed the PTX beside CUDA images (no JIT on newer GPUs)");
  app.add_flag("--compress", compress, "zstd-compress the embedded images (decompressed at load)");
  app.add_option("--compress-level", level,
                 "zstd level, 1 to " + std::to_string(ZSTD_maxCLevel()) + " (default 19)");
  app.add_option("--tuning", tuning,
                 "A tuning table (triton-aot-tune) to compile into shape dispatch; repeatable "
                 "(docs/tuning.md)")
      ->allow_extra_args(false);   // one table per --tuning: the inputs follow it
  app.add_option("--torch-ops", torchOps,
                 "Also write <name>_torch_ops.cpp, registering every kernel as the PyTorch "
                 "operator torch.ops.NAMESPACE.<kernel> (docs/torch.md)")
      ->type_name("NAMESPACE");
  app.add_option("--manifest", manifest,
                 "With --torch-ops and -o: write the operators of this already linked library "
                 "(<name>.json) instead of linking");
  app.add_flag("-v,--verbose", verbose, "Say what was read and written");
  app.add_option("--inspect", inspect,
                 "Print the kernels, variants, targets and resources of a library's .json "
                 "manifest, a metadata file, a .cubin or a .hsaco, and exit");
  app.add_flag("--version", version, "Print the version and exit");

  std::vector<std::string> reversed(args.rbegin(), args.rend());   // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp &) {
    LinkCommandLine help;
    help.earlyExitText = app.help();
    return help;
  } catch (const CLI::ParseError &e) {
    return usage(e.what());
  }
  LinkCommandLine out;
  if (version) {
    out.earlyExitText = std::string("triton-aot-ld ") + TRITON_AOT_VERSION + "\n";
    return out;
  }
  if (!inspect.empty()) {
    for (const char *flag : {"--name", "--prefix", "--output-dir", "--no-ptx", "--compress",
                             "--compress-level", "--tuning", "--torch-ops", "inputs"})
      if (app.count(flag))
        return usage(std::string("--inspect reads one file and takes no ") +
                     (std::string(flag) == "inputs" ? "inputs" : flag));
    out.inspect = inspect;
    return out;
  }
  if (!manifest.empty()) {
    if (torchOps.empty() || outputDir.empty())
      return usage("--manifest needs --torch-ops NAMESPACE and -o DIR: it writes the operators "
                   "of a linked library");
    for (const char *flag : {"--name", "--prefix", "--no-ptx", "--compress", "--compress-level",
                             "--tuning", "inputs"})
      if (app.count(flag))
        return usage(std::string("--manifest reads a linked library and takes no ") +
                     (std::string(flag) == "inputs" ? "inputs" : flag));
    if (!isCIdentifier(torchOps))
      return usage("--torch-ops '" + torchOps + "' is not a C identifier; the operators are "
                   "torch.ops.<namespace>.<kernel>, so it must be one (e.g. mylib)");
    out.torchManifest = manifest;
    out.options.torchNamespace = torchOps;
    out.options.outputDir = fs::absolute(outputDir).lexically_normal();
    return out;
  }
  if (name.empty())
    return usage("missing --name: the library's name, which names the outputs (<name>.h, ...) "
                 "and is the default C prefix");
  if (outputDir.empty())
    return usage("missing -o/--output-dir: the directory for <name>.h, .c, .images.S, .images "
                 "and .json");
  if (inputs.empty())
    return usage("no inputs: give the metadata files or the --index file triton-aot-cc wrote");
  if (app.count("--compress-level")) {
    if (!compress)
      return usage("--compress-level needs --compress");
    if (level < 1 || level > ZSTD_maxCLevel())
      return usage("--compress-level " + std::to_string(level) + " is out of range: 1 to " +
                   std::to_string(ZSTD_maxCLevel()));
  }

  if (app.count("--torch-ops") && !isCIdentifier(torchOps))
    return usage("--torch-ops '" + torchOps + "' is not a C identifier; the operators are "
                 "torch.ops.<namespace>.<kernel>, so it must be one (e.g. mylib)");

  LinkOptions &o = out.options;
  o.name = name;
  o.prefix = prefix;
  o.outputDir = fs::absolute(outputDir).lexically_normal();
  o.inputs = inputs;
  o.embedPtx = !noPtx;
  o.compress = compress;
  if (app.count("--compress-level"))
    o.compressionLevel = level;
  o.verbose = verbose;
  o.tuningTables = tuning;
  o.torchNamespace = torchOps;
  return out;
}

} // namespace tta::link
