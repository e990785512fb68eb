#include "compiler/naming.h"

#include "compiler/cache.h"

namespace tta {

std::string variantDigest(const std::string &function, const std::string &sourceKind,
                          const Signature &resolved, const Config &config) {
  // One field per line, so no two different tuples hash the same text.
  std::string text = "triton-aot variant 1\n";
  text += "function=" + function + '\n';
  text += "source_kind=" + sourceKind + '\n';
  text += "signature=" + formatSignature(resolved) + '\n';
  text += "config=" + formatConfig(config) + '\n';
  return sha256Hex(text).substr(0, 12);
}

std::string variantId(const std::string &name, const Target &target, const std::string &digest) {
  return name + '.' + target.fileTag() + '.' + digest;
}

OutputPaths outputPaths(const std::filesystem::path &stem, const Target &target,
                        const std::string &digest) {
  std::string base = stem.filename().string() + '.' + target.fileTag() + '.' + digest;
  std::filesystem::path dir = stem.parent_path();
  OutputPaths paths;
  paths.image = dir / (base + (target.backend == Backend::Cuda ? ".cubin" : ".hsaco"));
  if (target.backend == Backend::Cuda)
    paths.ptx = dir / (base + ".ptx");
  paths.metadata = dir / (base + ".json");
  return paths;
}

} // namespace tta
