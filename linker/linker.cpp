#include "linker/tuning_link.h"
#include "linker/linker.h"

#include "contract/index_file.h"
#include "contract/json_access.h"
#include "contract/output_transaction.h"
#include "contract/read_file.h"
#include "contract/variant_origins.h"
#include "linker/codegen.h"
#include "linker/image_blob.h"
#include "linker/inspect.h"
#include "linker/link_group.h"
#include "linker/manifest.h"
#include "linker/torch_ops.h"

#include <system_error>

namespace fs = std::filesystem;

namespace tta::link {

namespace {

std::span<const char> asChars(const std::vector<std::uint8_t> &bytes) {
  return {reinterpret_cast<const char *>(bytes.data()), bytes.size()};
}

Diagnostic interruptedError() { return makeError(ExitCode::Interrupted, "interrupted"); }

/// One line for the library: where its variants came from, summed over the compiler's index
/// files (triton-aot-cc's "variants_from"); empty unless a remote cache was in use, so that a
/// build with one prints its totals once per library and any other build stays quiet.
std::string variantOrigins(const std::vector<std::string> &inputs) {
  std::size_t compiled = 0, local = 0, remote = 0;
  bool usedRemote = false;
  for (const std::string &input : inputs) {
    // Index files only (buildLibrary() read and checked every input already).
    auto text = readToolFile(input, kMaxToolFileBytes);
    nlohmann::json json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (stringOr(json, "schema") != kIndexSchema)
      continue;
    auto index = parseIndex(json);
    if (!index || !index->variantsFrom)
      continue;
    usedRemote = usedRemote || index->variantsFrom->remoteCache;
    compiled += index->variantsFrom->compiled;
    local += index->variantsFrom->local;
    remote += index->variantsFrom->remote;
  }
  return usedRemote ? describeVariantOrigins(compiled, local, remote) : "";
}

Status linkInto(const LinkOptions &options, const LogSink &log, OutputTransaction &outputs) {
  auto stopped = [&] { return options.interrupted && options.interrupted(); };
  auto library = buildLibrary(options, log);
  if (!library)
    return library.takeError();
  if (Status s = applyTuning(*library, options.tuningTables, log); !s)
    return s;
  if (log)
    for (const std::string &warning : defaultConfigWarnings(*library))
      log("warning: " + warning);
  if (stopped())
    return interruptedError();

  auto blob = packImages(*library, PackOptions{options.compress, options.compressionLevel});
  if (!blob)
    return blob.takeError();
  const std::string manifest = manifestJson(*library, *blob).dump(2);
  appendManifest(*blob, manifest);
  // <prefix>_inventory(): what --inspect prints for <lib>.json, made by the same code from the
  // same text, so a program without tools can print it.
  Expected<std::string> inventory = inspectManifestText(manifest);
  if (!inventory)
    return makeError(ExitCode::InternalError,
                     "the linker's own manifest does not read back: " + inventory.error().message);
  appendInventory(*blob, *inventory);
  CodegenOptions codegen;
  const std::vector<fs::path> paths = outputPaths(options);
  codegen.blobPath = fs::absolute(paths[0]).lexically_normal();
  GeneratedSources sources = generateSources(*library, *blob, codegen);
  if (stopped())
    return interruptedError();

  std::string torchOps;
  if (!options.torchNamespace.empty()) {
    // From the manifest as its reader gives it, as any other consumer of the library would.
    auto read = parseLibraryManifest(manifest, options.name + ".json");
    if (!read)
      return makeError(ExitCode::InternalError, "the linker's own manifest does not read back: " +
                                                    read.error().message);
    auto source = torchOpsSource(*read, options.torchNamespace);
    if (!source)
      return source.takeError();
    torchOps = std::move(*source);
  }

  const std::string manifestFile = manifest + "\n";
  for (auto [path, bytes] : {std::pair{paths[0], asChars(blob->bytes)},
                             std::pair{paths[1], std::span<const char>(manifestFile)},
                             std::pair{paths[2], std::span<const char>(sources.header)},
                             std::pair{paths[3], std::span<const char>(sources.source)},
                             std::pair{paths[4], std::span<const char>(sources.assembly)}})
    if (Status s = outputs.stage(path, bytes); !s)
      return s;
  if (!torchOps.empty())
    if (Status s = outputs.stage(paths[5], std::span<const char>(torchOps)); !s)
      return s;
  if (stopped())
    return interruptedError();
  if (Status s = outputs.commit(); !s)
    return s;
  if (options.verbose && log)
    log("wrote " + paths[0].string() + " (" + std::to_string(blob->bytes.size()) +
        " bytes) and " + options.name + ".json, .h, .c, .images.S beside it");
  return ok();
}

} // namespace

std::vector<fs::path> outputPaths(const LinkOptions &options) {
  std::vector<fs::path> paths;
  for (const char *suffix : {".images", ".json", ".h", ".c", ".images.S"})
    paths.push_back(options.outputDir / (options.name + suffix));
  if (!options.torchNamespace.empty())
    paths.push_back(options.outputDir / (options.name + "_torch_ops.cpp"));
  return paths;
}

void removeOutputs(const LinkOptions &options) {
  if (options.outputDir.empty() || !isOutputName(options.name))
    return;   // the name makes no file name: nothing of ours can exist
  for (const fs::path &path : outputPaths(options)) {
    std::error_code ec;
    fs::file_status status = fs::symlink_status(path, ec);
    // Files only: a directory of that name was never ours.
    if (fs::is_regular_file(status) || fs::is_symlink(status))
      fs::remove(path, ec);
  }
}

Status link(const LinkOptions &options, const LogSink &log) {
  OutputTransaction outputs;
  // An unchanged library keeps its files' times: what compiles them is not rebuilt.
  outputs.keepIdenticalDestinations(true);
  Status status = ok();
  try {
    status = linkInto(options, log, outputs);
  } catch (const std::exception &e) {   // a bug or out of memory: still leave nothing behind
    status = makeError(ExitCode::InternalError, std::string("unexpected error: ") + e.what());
  }
  if (!status) {
    outputs.rollback();
    removeOutputs(options);
  } else if (log) {
    if (std::string origins = variantOrigins(options.inputs); !origins.empty())
      log(options.name + ": " + origins);
  }
  return status;
}

} // namespace tta::link
