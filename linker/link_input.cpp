// Reading the inputs: index expansion, metadata, and every image checked against its metadata
// (size, SHA-256) and its target (ELF machine and arch, entry symbol). Grouping the checked
// variants into kernels is link_group.cpp.
#include "linker/link_input.h"

#include "contract/image_info.h"
#include "contract/index_file.h"
#include "contract/json_access.h"
#include "contract/read_file.h"
#include "contract/sha256.h"
#include "contract/target_limits.h"
#include "contract/types.h"
#include "linker/link_group.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace tta::link {

namespace {

/// Images: a fat cubin of many kernels is a few MB; none is near this.
constexpr std::uint64_t kMaxImageBytes = std::uint64_t{1} << 31;

Expected<nlohmann::json> readJson(const std::string &path, const std::string &blame) {
  auto text = readToolFile(path, kMaxToolFileBytes, blame);
  if (!text)
    return text.takeError();
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded())
    return errorIn(path, "not a JSON file: triton-aot-ld reads the metadata (.json) and "
                         "--index files that triton-aot-cc writes");
  return json;
}

/// A reader's error, located in \p path.
Diagnostic inFile(Diagnostic diag, const std::string &path) {
  if (diag.file.empty())
    diag.file = path;
  return diag;
}

/// One input file, read: the JSON of a metadata file or refusal record.
struct InputFile {
  std::string path;
  nlohmann::json json;
};

Expected<std::vector<InputFile>> loadInputs(const std::vector<std::string> &inputs) {
  std::vector<InputFile> files;
  for (const std::string &input : inputs) {
    auto json = readJson(input, input);
    if (!json)
      return json.takeError();
    std::string schema = stringOr(*json, "schema");
    if (schema == kMetadataSchema || schema == kRefusalSchema) {
      files.push_back({input, std::move(*json)});
      continue;
    }
    if (schema != kIndexSchema)
      return errorIn(input, "not a triton-aot metadata or index file (schema '" + schema +
                                "'; expected '" + kMetadataSchema + "' or '" + kIndexSchema + "')");
    auto index = parseIndex(*json);
    if (!index)
      return inFile(index.takeError(), input);
    const fs::path dir = fs::path(input).parent_path();
    for (const std::string &entry : index->metadata) {
      std::string path = (dir / entry).lexically_normal().string();
      auto listedJson = readJson(path, input);
      if (!listedJson)
        return listedJson.takeError();
      if (stringOr(*listedJson, "schema") != kMetadataSchema &&
          stringOr(*listedJson, "schema") != kRefusalSchema)
        return errorIn(path, "not a triton-aot metadata file (listed in the index '" + input + "')");
      files.push_back({path, std::move(*listedJson)});
    }
  }
  return files;
}

/// Library::images without repeats: identical bytes of the same kind are embedded once.
class ImageTable {
public:
  explicit ImageTable(std::vector<EmbeddedImage> &images) : images_(images) {}

  std::size_t add(const std::string &kind, const std::string &path, std::string bytes,
                  const std::string &sha256) {
    auto [it, inserted] = index_.emplace(kind + ":" + sha256, images_.size());
    if (!inserted)
      return it->second;
    EmbeddedImage image;
    image.kind = kind;
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    image.sourceFile = (ec ? fs::path(path) : absolute).lexically_normal().string();
    image.bytes.assign(bytes.begin(), bytes.end());
    if (kind == "ptx")
      image.bytes.push_back(0);   // the driver's JIT takes NUL-terminated text
    image.sha256 = sha256;
    images_.push_back(std::move(image));
    return it->second;
  }

private:
  std::vector<EmbeddedImage> &images_;
  std::map<std::string, std::size_t> index_;
};

std::string kernelList(const ImageInfo &info) {
  std::string out;
  for (const auto &[name, resources] : info.kernels)
    out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

/// Reads the images of one metadata file: each must be the file the compiler wrote (size and
/// SHA-256), and the binary an ELF for the declared target holding the entry symbol.
Expected<ReadVariant> readVariant(const InputFile &input, bool embedPtx, ImageTable &images) {
  auto parsed = parseMetadata(input.json);
  if (!parsed)
    return inFile(parsed.takeError(), input.path);
  ReadVariant variant;
  variant.file = input.path;
  variant.meta = std::move(*parsed);
  const KernelMetadata &meta = variant.meta;
  const fs::path dir = fs::path(input.path).parent_path();
  const std::string rerun = "the outputs are stale or mixed up; re-run triton-aot-cc for " +
                            meta.variant.id;

  for (const ImageFile &image : meta.images) {
    if (image.kind == "ptx" && !embedPtx)
      continue;
    std::string path = (dir / image.file).string();
    std::error_code ec;
    if (!fs::exists(path, ec))
      return errorIn(input.path, "image '" + path + "' listed in this metadata file is missing; " +
                                     rerun);
    auto bytes = readToolFile(path, kMaxImageBytes, input.path);
    if (!bytes)
      return bytes.takeError();
    if (bytes->size() != image.size)
      return errorIn(input.path, "image '" + path + "' has " + std::to_string(bytes->size()) +
                                     " bytes but this metadata file says " +
                                     std::to_string(image.size) + "; " + rerun);
    if (sha256Hex(*bytes) != image.sha256)
      return errorIn(input.path, "image '" + path +
                                     "' does not have the SHA-256 this metadata file records; " +
                                     rerun);
    if (image.kind == "ptx") {
      variant.ptx = images.add(image.kind, path, std::move(*bytes), image.sha256);
      continue;
    }
    std::span<const std::uint8_t> view(reinterpret_cast<const std::uint8_t *>(bytes->data()),
                                       bytes->size());
    auto info = inspectImage(view);
    if (!info)
      return errorIn(input.path, "image '" + path + "': " + info.error().message);
    if (Status matches = checkImageMatchesTarget(*info, meta.target); !matches)
      return errorIn(input.path, "image '" + path + "': " + matches.error().message);
    auto kernel = info->kernels.find(meta.launch.entry);
    if (kernel == info->kernels.end())
      return errorIn(input.path, "image '" + path + "' has no kernel '" + meta.launch.entry +
                                     "' (launch.entry); its kernels: " + kernelList(*info));
    // Figures from the image itself, not the metadata's copy of them: its static shared
    // memory and the dynamic one must fit a block together.
    variant.resources = kernel->second;
    if (std::string why = sharedMemoryRefusal(
            meta.target, meta.launch.shared + std::min<std::uint64_t>(
                                                  kernel->second.staticShared.value_or(0), UINT32_MAX));
        !why.empty())
      return errorIn(input.path, "image '" + path + "' (kernel '" + meta.launch.entry +
                                     "', with launch.shared): no device of " +
                                     meta.target.spelling() + " can launch it: " + why);
    variant.imageSize = bytes->size();
    variant.binary = images.add(image.kind, path, std::move(*bytes), image.sha256);
  }
  return variant;
}

} // namespace

Expected<std::vector<std::string>> expandInputs(const std::vector<std::string> &inputs) {
  auto files = loadInputs(inputs);
  if (!files)
    return files.takeError();
  std::vector<std::string> paths;
  for (const InputFile &file : *files)
    paths.push_back(file.path);
  return paths;
}

std::string cTypeOf(const std::string &tritonType) {
  if (!tritonType.empty() && tritonType[0] == '*')
    return "const void *";
  auto scalar = parseScalarType(tritonType);
  if (!scalar || !typeInfo(*scalar).scalarAllowed)
    return "";
  if (*scalar == ScalarType::I1)
    return "bool";   // the generated API takes bool; the argument is stored as one byte
  return std::string(typeInfo(*scalar).cType);
}

Expected<Library> buildLibrary(const LinkOptions &options, const LogSink &log) {
  auto say = [&](const std::string &line) {
    if (log)
      log(line);
  };
  Library library;
  library.name = options.name;
  library.prefix = options.prefix.empty() ? options.name : options.prefix;
  if (Status s = checkLibraryNames(library); !s)
    return s.takeError();
  if (options.inputs.empty())
    return makeError(ExitCode::UsageError,
                     "no inputs: give the metadata files or the --index file triton-aot-cc wrote");

  auto files = loadInputs(options.inputs);
  if (!files)
    return files.takeError();
  ImageTable images(library.images);
  std::vector<ReadVariant> variants;
  std::map<std::string, std::string> fileOfId;   // variant id -> the file that has it
  std::vector<Refusal> refusals;
  for (const InputFile &file : *files) {
    if (stringOr(file.json, "schema") == kRefusalSchema) {
      auto record = parseRefusal(file.json);
      if (!record)
        return inFile(record.takeError(), file.path);
      Refusal refusal;
      refusal.file = file.path;
      refusal.kernel = record->kernel;
      refusal.target = record->target.spelling();
      refusal.config = record->config;
      refusal.configIndex = record->configIndex;
      refusal.reason = record->reason;
      refusal.numWarps = record->numWarps;
      refusal.numStages = record->numStages;
      refusal.options = record->options;
      refusal.constexprs = record->constexprs;
      if (refusal.config.empty())
        return errorIn(file.path, "kernel '" + refusal.kernel + "': an unnamed config is not built for " +
                                      refusal.target + " (" + refusal.reason + "); name the config "
                                      "(name=...) so the library can refuse it there");
      refusals.push_back(std::move(refusal));
      continue;
    }
    auto variant = readVariant(file, options.embedPtx, images);
    if (!variant)
      return variant.takeError();
    auto [it, inserted] = fileOfId.emplace(variant->meta.variant.id, file.path);
    if (!inserted)
      return errorIn(file.path, "duplicate variant " + variant->meta.variant.id +
                                    (it->second == file.path
                                         ? ": this file is given twice"
                                         : ": also in '" + it->second + "'"));
    variants.push_back(std::move(*variant));
  }

  if (Status s = groupVariants(variants, library, refusals); !s)
    return s.takeError();

  // Mixed Triton versions work (the metadata resolves every ABI difference) but are unusual.
  std::map<std::string, std::string> versions;   // version -> a file compiled by it
  for (const ReadVariant &v : variants)
    versions.emplace(v.meta.tritonVersion, v.file);
  for (const auto &[version, file] : versions)
    library.tritonVersions.push_back(version);
  if (versions.size() > 1) {
    std::string list;
    for (const auto &[version, file] : versions)
      list += (list.empty() ? "" : ", ") + version + " ('" + file + "')";
    say("warning: the library mixes kernels compiled by different Triton versions: " + list);
  }

  if (options.verbose) {
    std::size_t configs = 0, hintVariants = 0, functions = 0, bytes = 0;
    for (const Kernel &k : library.kernels) {
      configs += k.configs.size();
      for (const KernelConfig &c : k.configs) {
        hintVariants += c.variants.size();
        for (const HintVariant &h : c.variants)
          functions += h.functions.size();
      }
    }
    for (const EmbeddedImage &image : library.images)
      bytes += image.bytes.size();
    auto count = [](std::size_t n, const std::string &what) {
      return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    say("read " + count(variants.size(), "metadata file") + ": " +
        count(library.kernels.size(), "kernel") + ", " + count(configs, "config") + ", " +
        count(hintVariants, "hint variant") + ", " + count(functions, "function") + ", " +
        count(library.images.size(), "distinct image") + " (" + count(bytes, "byte") + ")");
  }
  return library;
}

} // namespace tta::link
