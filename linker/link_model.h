// The library triton-aot-ld builds, after reading and validating every metadata file: kernels,
// their configs, the hint variants of each config, and one function (image + launch facts) per
// variant and target. Code generation, the manifest and --inspect all read this model; nothing
// downstream reads metadata files again.
#pragma once

#include "contract/metadata.h"
#include "contract/target.h"

#include <cstdint>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tta::link {

/// One parameter of the generated C function (a runtime parameter of the kernel).
struct CParam {
  std::string name;        ///< the kernel's parameter name
  std::string cName;       ///< the C identifier used for it (name, or name + "_" if it is a C keyword)
  std::string tritonType;  ///< "*fp32", "i32", "fp16"
  std::string cType;       ///< "const void *", "int32_t", "uint16_t" (fp16/bf16 bits), "float", "bool"
  std::size_t size = 0;    ///< bytes in the argument buffer (8 for pointers)
  std::size_t kernelIndex = 0;  ///< position in the kernel's declaration (metadata params index)
  /// A host tensor descriptor (metadata kind tensordesc) is 1 + 2 * rank C parameters, one per
  /// kernel argument Triton lowers it to: its base pointer (for the CUtensorMap the runtime
  /// encodes), then each shape, then each stride (int64_t elements, as TensorDescriptor holds
  /// them). None for pointers and scalars.
  enum class TensorPart { None, Base, Shape, Stride };
  TensorPart tensorPart = TensorPart::None;
  std::string tensor{};         ///< the descriptor's parameter name (tensorPart != None)
  int dim = 0;                  ///< Shape / Stride: the dimension, outermost first
  /// The caller's value of a constexpr a @triton.heuristics value computes from it (metadata
  /// kind heuristic_input): the dispatcher computes the heuristic to pick the variant; it is
  /// never passed to the kernel, which has the heuristic's value compiled in.
  bool heuristicInput = false;
};

/// An embedded image, shared between functions when the bytes are identical.
struct EmbeddedImage {
  std::string kind;                  ///< "cubin", "ptx", "hsaco"
  std::string sourceFile;            ///< absolute path of the file it was read from
  std::vector<std::uint8_t> bytes;   ///< raw bytes (PTX: with a terminating NUL appended)
  std::string sha256;                ///< of the file's bytes as listed in the metadata
};

/// A variant built for one target.
struct Function {
  std::string metadataFile;   ///< the metadata JSON it came from (for messages)
  std::string variantId;      ///< metadata variant.id
  std::string entry;          ///< launch.entry
  std::size_t binary = 0;     ///< index into Library::images
  std::optional<std::size_t> ptx;   ///< index into Library::images, when embedded
  LaunchInfo launch;
  ResourceInfo resources;     ///< as read from the image by the linker (not trusted from metadata)
  std::uint64_t imageSize = 0;      ///< binary bytes
  std::string tritonVersion;
  /// Per host tensor descriptor parameter of the kernel, in order: its TMA facts as this
  /// function's metadata records them (the box follows the config's block shape).
  std::vector<TensorDescInfo> tensorMaps;
  /// Not built for this target ("config X is not built for cuda:80: <reason>"): the launch
  /// returns TRITON_AOT_ERROR_NO_IMAGE with this message; no image.
  std::string refusal;
};

/// The argument properties one hint variant was specialised for.
struct HintVariant {
  /// Per C parameter index: 0 (no promise), 16 (pointer 16-byte aligned / integer % 16 == 0)
  /// or 1 (specialised to 1; the argument must equal 1).
  std::vector<int> hints;
  /// The @triton.heuristics values the dispatcher tests for this variant (those over runtime
  /// arguments), in Triton's order; empty without such heuristics.
  std::vector<HeuristicRecord> heuristics;
  /// Every constexpr of the variant (the config's plus its heuristics'): names in the tests.
  std::map<std::string, nlohmann::json> constexprs;
  std::vector<Function> functions;  ///< one per Kernel::targets entry, same order
};

struct KernelConfig {
  std::string name;           ///< the config's name, or a derived one ("BLOCK=1024,num_warps=4")
  bool named = false;         ///< the user named it
  std::map<std::string, nlohmann::json> constexprs;   ///< without the ":1" ones
  int numWarps = 0;
  int numStages = 0;
  nlohmann::json options = nlohmann::json::object();
  /// Most specialised first (more hints first; ties: declaration order); the last one has no
  /// hints when the user declared a generic signature.
  std::vector<HintVariant> variants;
};

/// A kernel's shape dispatch from tuning tables (docs/tuning.md), as the generated C computes it.
struct KernelTuning {
  std::vector<std::size_t> keyParams;   ///< the C parameter (cParams index) of each key name
  struct TargetDispatch {
    std::vector<std::vector<std::int64_t>> values;   ///< per key dimension, ascending
    std::vector<std::vector<double>> boundaries;     ///< per dimension, between the values
    std::vector<int> grid;                           ///< config index per cell, row-major
    std::string device;                              ///< where it was tuned
    std::size_t shapes = 0;                          ///< tuned shapes behind it
  };
  /// Per Kernel::targets entry: its dispatch, or none (that target runs the first config).
  std::vector<std::optional<TargetDispatch>> targets;
  std::string table;                    ///< the table it came from
};

struct Kernel {
  std::string name;                 ///< kernel.name (the entry point name)
  std::string function;             ///< the @jit function
  std::string source;
  std::vector<ParamInfo> params;    ///< of the first variant read, declaration order + trailing
  std::vector<CParam> cParams;      ///< the generated function's parameters, in order
  std::vector<std::string> oneOnly; ///< parameters ":1" in every variant (left out of the API)
  /// The grid expressions (identical in every variant); absent: the caller passes the grid.
  std::optional<std::array<std::string, 3>> grid;
  bool globalScratchArg = false;    ///< the kernel takes the trailing global_scratch pointer
  bool profileScratchArg = false;   ///< ... and profile_scratch
  std::vector<Target> targets;      ///< every config and variant has a function for each
  std::vector<KernelConfig> configs;   ///< first = default; order of first appearance
  std::optional<AutotuneInfo> autotune;   ///< of the first variant: key, reset/restore, sources
  std::optional<KernelTuning> tuning;     ///< from --tuning tables; none: the first config
};

/// The library-wide C functions, <prefix>_<name>, in the generated header's order
/// (docs/generated-api.md); no kernel may take one of these names.
inline constexpr const char *kLibraryWideFunctions[] = {
    "preload", "unload", "version", "manifest", "inventory", "last_error", "set_allocator"};

struct Library {
  std::string name;     ///< --name
  std::string prefix;   ///< --prefix, default: name
  std::vector<Kernel> kernels;      ///< order of first appearance on the command line
  std::vector<EmbeddedImage> images;
  std::vector<std::string> tritonVersions;   ///< distinct, sorted
};

} // namespace tta::link
