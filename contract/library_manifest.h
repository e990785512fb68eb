// The manifest of a linked library (<lib>.json, and <prefix>_manifest() at run time): every
// kernel, config, hint variant and target with its launch facts, resource figures and image
// sizes. triton-aot-ld writes it (linker/manifest.h); this is its one reader, for
// triton-aot-ld --inspect, triton-aot-tune and --import-triton-cache. Documented field by field
// in docs/linker.md.
#pragma once

#include "contract/diagnostic.h"
#include "contract/metadata.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tta {

inline constexpr const char *kManifestSchema = "triton-aot-library";
inline constexpr int kManifestSchemaVersion = 1;

struct ManifestImage {
  std::string kind;             ///< "cubin", "ptx", "hsaco"
  std::uint64_t rawSize = 0;
  std::uint64_t storedSize = 0;
  bool compressed = false;
  std::string sha256;
  bool operator==(const ManifestImage &) const = default;
};

/// A tensordesc parameter's TMA facts in one function.
struct ManifestTensorMap {
  std::string param;            ///< the tensordesc parameter
  TensorDescInfo info;
  bool operator==(const ManifestTensorMap &) const = default;
};

struct ManifestFunction {
  std::string target;           ///< "cuda:90a"
  std::string refused;          ///< why the config is not built for this target ("" if it is)
  // The rest only where it is built:
  std::string variantId;
  std::string entry;
  std::string tritonVersion;
  LaunchInfo launch;            ///< launch.entry is entry
  ResourceInfo resources;
  ManifestImage image;
  std::optional<ManifestImage> ptx;
  std::vector<ManifestTensorMap> tensorMaps;
  bool operator==(const ManifestFunction &) const = default;
};

/// A @triton.heuristics value a variant is chosen by at launch.
struct ManifestHeuristic {
  std::string name;
  std::string expression;
  nlohmann::json value;
  bool operator==(const ManifestHeuristic &) const = default;
};

struct ManifestVariant {
  /// The hints that select it (1 or 16), by C parameter, in the kernel's parameter order.
  std::vector<std::pair<std::string, int>> hints;
  std::string condition;        ///< the C condition over the C parameter names
  std::vector<ManifestHeuristic> heuristics;
  std::vector<ManifestFunction> functions;   ///< one per kernel target, in its order
  bool operator==(const ManifestVariant &) const = default;
};

struct ManifestConfig {
  int index = 0;
  std::string name;
  std::map<std::string, nlohmann::json> constexprs;
  bool named = false;
  int numWarps = 0;
  int numStages = 0;
  nlohmann::json options = nlohmann::json::object();
  std::vector<ManifestVariant> variants;
  bool operator==(const ManifestConfig &) const = default;
};

/// One C parameter of a kernel's entry point.
struct ManifestParam {
  std::string name;      ///< the kernel parameter (a descriptor's parts: "a_desc.shape0")
  std::string cName;     ///< the C spelling ("int_" for a parameter named int)
  std::string kind;      ///< pointer, scalar, tensordesc, tensordesc_shape, tensordesc_stride
  std::string type;      ///< Triton's type: "*fp16", "i32", "tensordesc<fp16[64, 64]>"
  std::string cType;     ///< "const void *", "int32_t", "uint16_t", ...
  int size = 0;          ///< bytes the C function takes
  std::string tensordesc;   ///< a descriptor's parts: the descriptor
  int dim = 0;              ///< tensordesc_shape / _stride: the dimension
  bool heuristicInput = false;   ///< the caller's value goes to a heuristic, not the kernel
  /// pointer / tensordesc: whether the kernel writes what it points to (metadata's
  /// params[].written, any variant's); absent: not known (take it as written).
  std::optional<bool> written;
  bool operator==(const ManifestParam &) const = default;
};

struct ManifestKernel {
  std::string name;
  std::string function;
  std::string source;
  std::vector<ManifestParam> params;
  std::vector<std::string> constexprParams;
  std::vector<std::string> specializedToOneParams;
  std::optional<std::array<std::string, 3>> grid;   ///< none: the caller passes the grid
  bool globalScratchArg = false;
  bool profileScratchArg = false;
  std::vector<std::string> targets;  ///< "cuda:80", "cuda:90a", ...
  std::vector<ManifestConfig> configs;
  std::optional<AutotuneInfo> autotune;
  bool operator==(const ManifestKernel &) const = default;
};

struct LibraryManifest {
  std::string generator;
  std::string name;
  std::string prefix;
  std::vector<std::string> tritonVersions;
  std::vector<ManifestKernel> kernels;
  bool operator==(const LibraryManifest &) const = default;
};

/// Reads a manifest (schema "triton-aot-library"): rejects another schema or a newer
/// schema_version, and checks every field as the metadata reader checks the ones they come
/// from (names are C identifiers, targets parse, launch facts are within their target).
/// Errors name the field ("kernels[0].configs[1].name: expected a string"); the caller adds the
/// file.
Expected<LibraryManifest> parseLibraryManifest(const nlohmann::json &json);
/// The same from the manifest's text (<lib>.json, <prefix>_manifest()); errors name \p where.
Expected<LibraryManifest> parseLibraryManifest(std::string_view text, const std::string &where);

/// A variant as --inspect shows it: "x_ptr:16, n:1", then the heuristics' values
/// ("EVEN=true"); "no hints" for neither.
std::string variantHintsText(const ManifestVariant &variant);

/// The kernel named \p name, or null.
const ManifestKernel *findKernel(const LibraryManifest &manifest, std::string_view name);

} // namespace tta
