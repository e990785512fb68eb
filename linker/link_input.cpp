// Reading the inputs: index expansion, metadata, and every image checked against its metadata
// (size, SHA-256) and its target (ELF machine and arch, entry symbol). Grouping the checked
// variants into kernels is link_group.cpp.
#include "linker/link_input.h"

#include "contract/image_info.h"
#include "contract/json_access.h"
#include "contract/sha256.h"
#include "contract/types.h"
#include "linker/link_group.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace tta::link {

namespace {

Expected<std::string> readBytes(const std::string &path, const std::string &blame) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return errorIn(blame, "cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Expected<nlohmann::json> readJson(const std::string &path, const std::string &blame) {
  auto text = readBytes(path, blame);
  if (!text)
    return text.takeError();
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded())
    return errorIn(path, "not a JSON file: triton-aot-ld reads the metadata (.json) and "
                         "--index files that triton-aot-cc writes");
  return json;
}

/// One input file, read: the JSON of a metadata file.
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
    auto version = integerOf(*json, "schema_version");
    if (!version || *version < 1)
      return errorIn(input, "schema_version: expected a positive integer");
    if (*version > kIndexSchemaVersion)
      return errorIn(input, "schema_version " + std::to_string(*version) +
                                " is newer than this tool supports (" +
                                std::to_string(kIndexSchemaVersion) + "); update triton-aot");
    const nlohmann::json *listed = member(*json, "metadata");
    if (!listed || !listed->is_array())
      return errorIn(input, "metadata: expected a list of metadata file names");
    const fs::path dir = fs::path(input).parent_path();
    for (const nlohmann::json &entry : *listed) {
      if (!entry.is_string())
        return errorIn(input, "metadata: expected a list of metadata file names");
      std::string path = (dir / entry.get<std::string>()).lexically_normal().string();
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
  if (!parsed) {
    Diagnostic diag = parsed.takeError();
    if (diag.file.empty())
      diag.file = input.path;
    return diag;
  }
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
    auto bytes = readBytes(path, input.path);
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
    // Figures from the image itself, not the metadata's copy of them.
    variant.resources = kernel->second;
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
      const nlohmann::json &variant = objectOf(file.json, "variant");
      Refusal refusal;
      refusal.file = file.path;
      refusal.kernel = stringOr(objectOf(file.json, "kernel"), "name");
      refusal.target = stringOr(objectOf(file.json, "target"), "spelling");
      refusal.config = stringOr(variant, "config");
      if (const nlohmann::json *index = member(variant, "config_index")) {
        if (!index->is_number_integer() || index->get<std::int64_t>() < 0 ||
            index->get<std::int64_t>() > std::numeric_limits<int>::max())
          return errorIn(file.path, "variant.config_index: expected a non-negative integer, got " +
                                        index->dump());
        refusal.configIndex = index->get<int>();
      }
      refusal.reason = stringOr(file.json, "reason");
      refusal.numWarps = static_cast<int>(integerOf(variant, "num_warps").value_or(0));
      refusal.numStages = static_cast<int>(integerOf(variant, "num_stages").value_or(0));
      refusal.options = objectOf(variant, "options");
      for (const auto &[name, value] : objectOf(variant, "constexprs").items())
        refusal.constexprs[name] = value;
      if (refusal.kernel.empty() || refusal.target.empty() || refusal.reason.empty())
        return errorIn(file.path, "a refusal record needs kernel.name, target.spelling and reason");
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
