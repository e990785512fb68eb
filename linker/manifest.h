// The manifest of a linked library (<lib>.json, and <prefix>_manifest() at run time): every
// kernel, config, hint variant and target with its launch facts, resource figures and image
// sizes. Documented field by field in docs/linker.md.
#pragma once

#include "contract/diagnostic.h"
#include "linker/image_blob.h"
#include "linker/link_model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tta::link {

inline constexpr const char *kManifestSchema = "triton-aot-library";
inline constexpr int kManifestSchemaVersion = 1;

/// The manifest of \p library whose images are laid out in \p blob (for the stored sizes).
nlohmann::json manifestJson(const Library &library, const ImageBlob &blob);

/// The C condition under which the promises of \p variant hold, over the C parameter names:
/// "((uintptr_t)x_ptr % 16 == 0) && (n % 16 == 0) && (stride == 1)"; "1" for no hints.
std::string hintCondition(const Kernel &kernel, const HintVariant &variant);

// What --inspect reads back: the manifest's figures, per function.

struct ManifestImage {
  std::string kind;             ///< "cubin", "ptx", "hsaco"
  std::uint64_t rawSize = 0;
  std::uint64_t storedSize = 0;
  bool compressed = false;
  std::string sha256;
  bool operator==(const ManifestImage &) const = default;
};

struct ManifestFunction {
  std::string target;           ///< "cuda:90a"
  std::string variantId;
  std::string entry;
  LaunchInfo launch;
  ResourceInfo resources;
  ManifestImage image;
  std::optional<ManifestImage> ptx;
  std::string refused;          ///< why the config is not built for this target ("" if it is)
  bool operator==(const ManifestFunction &) const = default;
};

struct ManifestVariant {
  std::string hints;            ///< "x_ptr:16, n:1" or "no hints"
  std::string condition;
  std::vector<ManifestFunction> functions;
};

struct ManifestConfig {
  std::string name;
  bool named = false;
  std::vector<ManifestVariant> variants;
};

struct ManifestKernel {
  std::string name;
  std::vector<std::string> params;      ///< the C API's parameters (kernel names), in order
  std::vector<std::string> targets;
  std::vector<ManifestConfig> configs;
};

struct Manifest {
  std::string generator;
  std::string name;
  std::string prefix;
  std::vector<std::string> tritonVersions;
  std::vector<ManifestKernel> kernels;
};

/// Reads a manifest (schema "triton-aot-library"): rejects another schema or a newer
/// schema_version; errors name the field ("kernels[0].configs[1].name: expected a string").
Expected<Manifest> parseManifest(const nlohmann::json &json);

} // namespace tta::link
