// The metadata file written for each compiled variant and target: the contract between
// triton-aot-cc, triton-aot-ld and the runtime. Documented field by field in docs/metadata.md;
// machine-checkable as docs/metadata.schema.json.
#pragma once

#include "contract/diagnostic.h"
#include "contract/target.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tta {

inline constexpr const char *kMetadataSchema = "triton-aot-kernel";
/// The record written in place of a variant that a target cannot build or run (docs/metadata.md).
inline constexpr const char *kRefusalSchema = "triton-aot-refusal";
inline constexpr int kMetadataSchemaVersion = 1;
inline constexpr int kRefusalSchemaVersion = 1;

/// A host tensor descriptor parameter's TMA facts (Triton's tensordesc_meta, host numbering):
/// what the runtime needs to encode its CUtensorMap with cuTensorMapEncodeTiled.
struct TensorDescInfo {
  int rank = 0;                   ///< 1..5
  int dataType = 0;               ///< CUtensorMapDataType
  int elemSize = 0;               ///< bytes per element
  int swizzle = 0;                ///< CUtensorMapSwizzle
  std::vector<int> box;           ///< the block Triton encodes, outermost first (rank entries)
  bool fp4Padded = false;         ///< fp4 two to a byte: the encoded innermost dimension doubles
  bool shapeArgsPadded = false;   ///< ... and the kernel's shape argument too (Triton 3.6)
  bool operator==(const TensorDescInfo &) const = default;
};

/// One kernel parameter in declaration order, then the trailing parameters Triton appends.
struct ParamInfo {
  enum class Kind {
    Pointer,          ///< runtime device pointer (8 bytes)
    Scalar,           ///< runtime scalar, passed at its exact width
    Constexpr,        ///< compiled in; not passed
    SpecializedToOne, ///< declared ":1": compiled in as 1, not passed; the caller must pass 1
    HeuristicInput,   ///< a constexpr a @triton.heuristics value computes from the caller's
                      ///< value: the C API takes it (type), the heuristic's value is compiled
                      ///< in (value); not passed
    TensorDesc,       ///< host tensor descriptor: its 128-byte CUtensorMap, encoded per launch
    TensorDescShape,  ///< the i32 shape arguments that follow a TensorDesc, one per dimension
    TensorDescStride, ///< then its i64 strides (elements), one per dimension
    GlobalScratch,    ///< trailing pointer Triton appends (global scratch), 8 bytes
    ProfileScratch,   ///< trailing pointer Triton appends (profile scratch), 8 bytes
  };
  std::string name;
  Kind kind = Kind::Scalar;
  std::string type;          ///< Triton type: "*fp32", "i32", "fp16"; "constexpr" for constexprs
  std::size_t size = 0;      ///< bytes in the launch argument buffer; 0 when not passed
  int hint = 0;              ///< 0, 16 or 1 as declared
  /// Constexpr / SpecializedToOne / HeuristicInput: the value (JSON number, bool, string, null)
  nlohmann::json value;
  std::string valueText;     ///< the value in signature syntax ("1024", "tl.float16", "'ieee'")
  std::optional<TensorDescInfo> tensordesc;  ///< TensorDesc only
  /// Pointer / TensorDesc: whether the kernel stores to, or atomically updates, the memory the
  /// parameter points to (found in the compiled IR). Absent: not known; a reader that needs it
  /// (a PyTorch op schema's mutation mark) must then assume it is written.
  std::optional<bool> written;
  bool operator==(const ParamInfo &) const = default;
};

const char *paramKindName(ParamInfo::Kind kind);   ///< "pointer", "scalar", "constexpr", ...

struct ScratchInfo {
  std::uint64_t size = 0;    ///< bytes per program (CTA); 0 = not used (NULL is passed)
  std::uint64_t align = 1;
  bool operator==(const ScratchInfo &) const = default;
};

/// What a launcher needs, read from Triton's metadata (never from the command line).
struct LaunchInfo {
  std::string entry;                   ///< the symbol to load (cuModuleGetFunction name)
  int numWarps = 0;                    ///< after Triton's rewrites (warp specialization)
  int warpSize = 0;
  std::array<int, 3> block{0, 1, 1};   ///< numWarps * warpSize, 1, 1
  std::uint64_t shared = 0;            ///< dynamic shared memory bytes
  int numCtas = 1;                     ///< > 1: cluster launch, grid x multiplied by it
  std::array<int, 3> clusterDims{1, 1, 1};
  ScratchInfo globalScratch;
  ScratchInfo profileScratch;
  bool cooperative = false;
  bool pdl = false;                    ///< programmatic dependent launch
  std::uint64_t tmemSize = 0;          ///< tensor memory columns (sm_100); 0 elsewhere
  bool operator==(const LaunchInfo &) const = default;
};

struct ImageFile {
  std::string kind;          ///< "cubin", "hsaco", "ptx"
  std::string file;          ///< file name, relative to the metadata file's directory
  std::uint64_t size = 0;
  std::string sha256;        ///< lower-case hex
  bool operator==(const ImageFile &) const = default;
};

/// Resource figures read from the image (cubin .nv.info, HSACO kernel metadata), where known.
struct ResourceInfo {
  std::optional<int> registers;       ///< per thread (CUDA) / VGPRs (HIP)
  std::optional<int> sgprs;           ///< HIP only
  std::optional<int> spills;          ///< bytes of local memory (CUDA) / spilled registers (HIP)
  std::optional<std::uint64_t> staticShared;   ///< static shared memory / LDS in the image
  bool operator==(const ResourceInfo &) const = default;
};

/// One @triton.heuristics value of a variant.
struct HeuristicRecord {
  std::string name;          ///< the constexpr parameter it sets
  std::string expression;    ///< C over parameter names (docs/compiler.md#heuristics)
  std::string written;       ///< as written: the lambda's body, or the --heuristic text
  bool runtime = false;      ///< reads runtime arguments: the dispatcher tests it at launch
  nlohmann::json value;      ///< this variant's value (also in constexprs)
  bool operator==(const HeuristicRecord &) const = default;
};

/// What a @triton.autotune declares that outlives the build (docs/metadata.md, variant.autotune).
struct AutotuneInfo {
  std::vector<std::string> key;           ///< argument names whose values select a tuned config
  std::vector<std::string> resetToZero;   ///< zeroed before each benchmark run (tuning only)
  std::vector<std::string> restoreValue;  ///< restored after each benchmark run (tuning only)
  std::string configsFrom;                ///< "decorator" or "declaration" (CONFIG replaced them)
  std::vector<std::string> droppedPreHooks;   ///< config pre_hooks dropped by --drop-pre-hooks
  bool operator==(const AutotuneInfo &) const = default;
};

struct VariantInfo {
  std::string id;                      ///< unique within a library: "<name>.<target tag>.<digest>"
  std::string config;                  ///< config name ("" when none was given)
  /// The config's place in its kernel's declared list (0-based: --config order, or the
  /// @triton.autotune decorator's after build-time pruning); the library keeps that order.
  /// None from an older triton-aot-cc.
  std::optional<int> configIndex;
  std::string signature;               ///< canonical signature after constexpr names were resolved
  std::map<std::string, nlohmann::json> constexprs;   ///< name -> value, including ":1" ones
  int numWarps = 0;                    ///< as requested
  int numStages = 0;                   ///< as requested (or the backend default)
  nlohmann::json options = nlohmann::json::object();  ///< every other Triton option requested
  /// @triton.heuristics values of this variant, in Triton's order.
  std::vector<HeuristicRecord> heuristics;
  std::optional<AutotuneInfo> autotune;   ///< the kernel is @triton.autotune'd
  bool operator==(const VariantInfo &) const = default;
};

struct KernelMetadata {
  int schemaVersion = kMetadataSchemaVersion;
  std::string generator;               ///< "triton-aot-cc 0.1.0"
  std::string tritonVersion;           ///< "3.6.0"
  std::string name;                    ///< the entry point's name (-on / out_name)
  std::string function;                ///< the @jit function's name
  std::string source;                  ///< the kernel file as given on the command line
  std::string sourceKind;              ///< "python", "ttir", "ttgir"
  Target target;                       ///< what was asked for ("90a", "gfx90a:xnack-")
  std::string imageArch;               ///< what the image is built for ("sm_90a", "gfx90a")
  VariantInfo variant;
  std::vector<ParamInfo> params;       ///< declaration order, then trailing scratch params
  LaunchInfo launch;
  /// C expressions over parameter and constexpr names; absent: the caller passes the grid.
  std::optional<std::array<std::string, 3>> grid;
  std::vector<ImageFile> images;       ///< the binary first, then the PTX (CUDA)
  ResourceInfo resources;
  std::string tritonHash;              ///< Triton's own hash of this compilation
  bool operator==(const KernelMetadata &) const = default;
};

nlohmann::json toJson(const KernelMetadata &meta);
/// Strict reader: every required field present with the right type, a known schema and a
/// supported schema version; unknown extra fields are allowed (forward compatibility). Every
/// field is checked once, here (docs/metadata.md, "What the reader checks"): names that reach
/// generated C are C identifiers, text is one line, enums are known values, and every launch
/// fact is within what a device of the target can launch (contract/target_limits.h).
/// Errors name the field path ("launch.shared: expected an unsigned integer"); the caller adds
/// the file.
Expected<KernelMetadata> parseMetadata(const nlohmann::json &json);

/// The record written in place of a variant's metadata where its target cannot build or run
/// its config (docs/metadata.md#refusal-records, docs/refusal.schema.json).
struct RefusalRecord {
  int schemaVersion = kRefusalSchemaVersion;
  std::string generator;
  std::string kernel;                  ///< kernel.name: the entry point (a C identifier)
  std::string function;
  std::string source;
  std::string sourceKind;              ///< "python", "ttir", "ttgir"
  Target target;
  std::string variantId;
  std::string config;                  ///< "" for an unnamed config (the linker refuses that)
  std::optional<int> configIndex;      ///< the config's place in the declared list
  std::string signature;
  int numWarps = 0;                    ///< 0 where the source fixes it
  int numStages = 0;
  nlohmann::json options = nlohmann::json::object();
  std::map<std::string, nlohmann::json> constexprs;
  std::string reason;                  ///< one line: the library's launch returns it
  bool operator==(const RefusalRecord &) const = default;
};

nlohmann::json toJson(const RefusalRecord &record);
/// The strict reader of refusal records, with the checks of parseMetadata() for the fields
/// they share.
Expected<RefusalRecord> parseRefusal(const nlohmann::json &json);

} // namespace tta
