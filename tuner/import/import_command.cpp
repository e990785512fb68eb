#include "tuner/import/import_command.h"

#include "contract/diagnostic.h"
#include "contract/output_transaction.h"
#include "contract/read_file.h"
#include "contract/sha256.h"
#include "contract/tuning_table.h"
#include "tuner/import/triton_cache_import.h"

#include <algorithm>
#include <filesystem>

namespace tta {
namespace {

int report(const Diagnostic &diag, const std::string &tool, std::ostream &err) {
  std::string text = formatDiagnostic(diag);
  err << (diag.file.empty() ? tool + ": " : "") << text;
  return static_cast<int>(diag.code);
}

Expected<std::string> readText(const std::string &path, const char *what) {
  std::optional<std::string> text = readFile(path);
  if (!text) {
    Diagnostic diag = makeError(ExitCode::UsageError, std::string("cannot read the ") + what);
    diag.file = path;
    return diag;
  }
  return *text;
}

std::size_t shapeCount(const TuningTable &table) {
  std::size_t count = 0;
  for (const TunedKernel &kernel : table.kernels)
    for (const TunedTarget &target : kernel.targets)
      count += target.shapes.size();
  return count;
}

} // namespace

void addTritonCacheImportOptions(CLI::App &app, TritonCacheImportCommand &command) {
  app.add_option("--import-triton-cache", command.cachePaths,
                 "Triton autotune cache files or directories (TRITON_CACHE_DIR, default "
                 "~/.triton/cache) to turn into a tuning table");
  app.add_option("--manifest", command.manifest,
                 "With --import-triton-cache: the library's "
                 "manifest (<lib>.json)");
  app.add_option("--target", command.target,
                 "With --import-triton-cache: the target the cache was tuned on (cuda:90a)");
  app.add_option("--dtypes", command.dtypes,
                 "With --import-triton-cache: the dtypes ending the cached keys "
                 "(torch.float16,...), when the manifest cannot say")
      ->delimiter(',');
  app.add_option("--device-name", command.deviceName,
                 "With --import-triton-cache: the GPU the cache was tuned on, for the record");
}

void addKernelAndOutputOptions(CLI::App &app, TritonCacheImportCommand &command) {
  app.add_option("--kernel", command.kernels, "A kernel's name in the library (repeatable)");
  app.add_option("--output", command.output, "The tuning table to write or merge into");
}

bool importRequested(const TritonCacheImportCommand &command) {
  return !command.cachePaths.empty();
}

int runTritonCacheImport(const TritonCacheImportCommand &command, const std::string &tool,
                         std::ostream &out, std::ostream &err) {
  for (auto [flag, missing] : {std::pair{"--manifest", command.manifest.empty()},
                               {"--kernel", command.kernels.empty()},
                               {"--target", command.target.empty()},
                               {"--output", command.output.empty()}})
    if (missing)
      return report(
          makeError(ExitCode::UsageError, std::string("--import-triton-cache needs ") + flag), tool,
          err);
  auto manifestText = readText(command.manifest, "library manifest");
  if (!manifestText)
    return report(manifestText.error(), tool, err);
  nlohmann::json manifest = nlohmann::json::parse(*manifestText, nullptr, false);
  if (manifest.is_discarded()) {
    Diagnostic diag = makeError(ExitCode::UsageError, "the library manifest is not valid JSON");
    diag.file = command.manifest;
    return report(diag, tool, err);
  }
  TuningTable table;
  std::vector<std::string> summaries;
  for (const std::string &kernel : command.kernels) {
    TritonCacheImportOptions options{kernel, command.target, command.dtypes, command.deviceName,
                                     sha256Hex(*manifestText)};
    auto imported = importTritonAutotuneCache(command.cachePaths, manifest, options);
    if (!imported) {
      Diagnostic diag = imported.takeError();
      if (diag.file.empty() && diag.message.rfind("manifest: ", 0) == 0) {
        diag.file = command.manifest;
        diag.message.erase(0, std::string("manifest: ").size());
      }
      return report(diag, tool, err);
    }
    for (const std::string &warning : imported->warnings)
      err << tool << ": warning: " << warning << "\n";
    const std::size_t shapes = shapeCount(imported->table);
    summaries.push_back("imported " + std::to_string(shapes) + " shape" + (shapes == 1 ? "" : "s") +
                        " of kernel '" + kernel + "' for " + command.target + " from " +
                        std::to_string(imported->filesRead) + " Triton autotune cache file" +
                        (imported->filesRead == 1 ? "" : "s") + " into " + command.output);
    if (Status merged = mergeTuningTables(table, imported->table); !merged)
      return report(merged.error(), tool, err);
  }
  if (std::filesystem::exists(command.output)) {
    auto existing = readTuningTable(command.output);
    if (!existing)
      return report(existing.error(), tool, err);
    if (Status merged = mergeTuningTables(*existing, table); !merged)
      return report(merged.error(), tool, err);
    table = std::move(*existing);
  }
  OutputTransaction transaction;
  if (Status staged = transaction.stage(command.output, tuningTableJson(table).dump(2) + "\n");
      !staged)
    return report(staged.error(), tool, err);
  if (Status committed = transaction.commit(); !committed)
    return report(committed.error(), tool, err);
  for (const std::string &summary : summaries)
    out << summary << "\n";
  return 0;
}

int tritonCacheImportMain(const std::vector<std::string> &args, const std::string &tool,
                          std::ostream &out, std::ostream &err) {
  CLI::App app("Imports Triton's autotune cache into a tuning table", tool);
  TritonCacheImportCommand command;
  addTritonCacheImportOptions(app, command);
  addKernelAndOutputOptions(app, command);
  std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 parses from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp &) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError &e) {
    return report(makeError(ExitCode::UsageError, e.what()), tool, err);
  }
  if (!importRequested(command))
    return report(makeError(ExitCode::UsageError, "--import-triton-cache is required"), tool, err);
  return runTritonCacheImport(command, tool, out, err);
}

} // namespace tta
