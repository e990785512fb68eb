#include "linker/inspect.h"

#include "contract/image_info.h"
#include "contract/json_access.h"
#include "contract/metadata.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace tta::link {

namespace {

template <class T> std::string orDash(const std::optional<T> &value) {
  return value ? std::to_string(*value) : std::string("-");
}

std::string plural(std::size_t n, const std::string &word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

Diagnostic inspectError(const fs::path &path, std::string message) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.file = path.string();
  return diag;
}

/// A metadata file: one row, with the figures the compiler read from its image.
std::string formatMetadata(const KernelMetadata &m) {
  std::string config = m.variant.config.empty() ? "-" : m.variant.config;
  std::string out = "variant " + m.variant.id + " of kernel " + m.name + " (Triton " +
                    m.tritonVersion + ")\n";
  out += formatTable({"kernel", "config", "signature", "target", "regs", "spills", "shared",
                      "static", "bytes"},
                     {{m.name, config, m.variant.signature.empty() ? "-" : m.variant.signature,
                       m.target.spelling(), orDash(m.resources.registers),
                       orDash(m.resources.spills), std::to_string(m.launch.shared),
                       orDash(m.resources.staticShared),
                       std::to_string(m.images.empty() ? 0 : m.images[0].size)}},
                     {false, false, false, false, true, true, true, true, true});
  return out;
}

/// An image: one row per kernel symbol, from the ELF itself.
std::string formatImage(const fs::path &path, const ImageInfo &info, std::size_t size) {
  std::string arch = info.arch;
  if (info.backend == Backend::Hip) {
    if (info.sramecc)
      arch += std::string(":sramecc") + info.sramecc;
    if (info.xnack)
      arch += std::string(":xnack") + info.xnack;
  }
  std::string out = path.filename().string() + ": " +
                    (info.backend == Backend::Cuda ? "cubin" : "HSACO") + " for " + arch + ", " +
                    plural(size, "byte") + ", " + plural(info.kernels.size(), "kernel") + "\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto &[name, r] : info.kernels)
    rows.push_back({name, arch, orDash(r.registers), orDash(r.sgprs), orDash(r.spills),
                    orDash(r.staticShared)});
  out += formatTable({"kernel", "arch", "regs", "sgprs", "spills", "static"}, rows,
                     {false, false, true, true, true, true});
  return out;
}

Expected<std::string> inspectManifestJson(const nlohmann::json &json) {
  auto manifest = parseLibraryManifest(json);
  if (!manifest)
    return makeError(ExitCode::UsageError, manifest.error().message);
  return formatManifest(*manifest);
}

} // namespace

std::string formatTable(const std::vector<std::string> &header,
                        const std::vector<std::vector<std::string>> &rows,
                        const std::vector<bool> &numeric) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto &row : rows)
      if (c < row.size())
        width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string> &cells) {
    std::string text;
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      std::string pad(width[c] - cell.size(), ' ');
      bool right = c < numeric.size() && numeric[c];
      text += right ? pad + cell : cell + pad;
      if (c + 1 < header.size())
        text += "  ";
    }
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out += text + '\n';
  };
  line(header);
  for (const auto &row : rows)
    line(row);
  return out;
}

std::string formatManifest(const LibraryManifest &m) {
  std::size_t configs = 0, functions = 0;
  std::set<std::string> targets;
  bool compressed = false;
  std::vector<std::vector<std::string>> rows;
  for (const ManifestKernel &k : m.kernels) {
    configs += k.configs.size();
    targets.insert(k.targets.begin(), k.targets.end());
    for (const ManifestConfig &c : k.configs)
      for (const ManifestVariant &v : c.variants)
        for (const ManifestFunction &f : v.functions) {
          ++functions;
          compressed |= f.image.compressed;
          rows.push_back({k.name, c.name, variantHintsText(v), f.target, orDash(f.resources.registers),
                          orDash(f.resources.spills), std::to_string(f.launch.shared),
                          orDash(f.resources.staticShared), std::to_string(f.image.rawSize),
                          std::to_string(f.image.storedSize)});
        }
  }
  std::string versions;
  for (const std::string &v : m.tritonVersions)
    versions += (versions.empty() ? "" : ", ") + v;
  std::string out = "library " + m.name + " (prefix " + m.prefix + "): " +
                    plural(m.kernels.size(), "kernel") + ", " + plural(configs, "config") + ", " +
                    plural(functions, "function") + ", " + plural(targets.size(), "target") +
                    (versions.empty() ? "" : "; Triton " + versions) + "\n";
  std::vector<std::string> header = {"kernel", "config", "variant", "target", "regs",
                                     "spills", "shared", "static", "bytes", "stored"};
  std::vector<bool> numeric = {false, false, false, false, true, true, true, true, true, true};
  if (!compressed) {   // the stored size is the size: leave the column out
    header.pop_back();
    numeric.pop_back();
    for (auto &row : rows)
      row.pop_back();
  }
  return out + formatTable(header, rows, numeric);
}

Expected<std::string> inspectManifestText(std::string_view manifestText) {
  nlohmann::json json = nlohmann::json::parse(manifestText, nullptr, false);
  if (json.is_discarded())
    return makeError(ExitCode::UsageError, "the manifest is not JSON");
  return inspectManifestJson(json);
}

Expected<std::string> inspectFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return inspectError(path, "cannot read '" + path.string() + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();

  if (!bytes.empty() && (bytes[0] == '{' || path.extension() == ".json")) {
    nlohmann::json json = nlohmann::json::parse(bytes, nullptr, false);
    if (json.is_discarded())
      return inspectError(path, "not a JSON file");
    if (stringOr(json, "schema") == kMetadataSchema) {
      auto meta = parseMetadata(json);
      if (!meta)
        return inspectError(path, meta.error().message);
      return formatMetadata(*meta);
    }
    auto table = inspectManifestJson(json);
    if (!table)
      return inspectError(path, table.error().message);
    return table;
  }
  auto info = inspectImage(
      std::span(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size()));
  if (!info)
    return inspectError(path, info.error().message +
                                  " (--inspect reads a library's .json manifest, a metadata "
                                  "file, a .cubin or a .hsaco)");
  return formatImage(path, *info, bytes.size());
}

} // namespace tta::link
