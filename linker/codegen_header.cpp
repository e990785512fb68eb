// <lib>.h: self-contained (only <stddef.h>, <stdint.h>, <stdbool.h>), C and C++.
#include "contract/c_names.h"
#include "linker/c_text.h"
#include "linker/codegen_parts.h"
#include "linker/link_group.h"

#include <algorithm>
#include <sstream>

namespace tta::link {

namespace {

// Must stay token-for-token the definitions in runtime-shim/include/triton_aot/runtime.h: both
// headers define them under the same guard, so whichever comes first wins.
constexpr const char *kSharedDefinitions = R"(#ifndef TRITON_AOT_STATUS_DEFINED
#define TRITON_AOT_STATUS_DEFINED
typedef enum triton_aot_status {
  TRITON_AOT_SUCCESS = 0,
  TRITON_AOT_ERROR_NO_DRIVER = 1,        /* libcuda.so.1 / libamdhip64.so missing or too old */
  TRITON_AOT_ERROR_NO_DEVICE = 2,        /* the driver reports no GPU, or no current device */
  TRITON_AOT_ERROR_NO_IMAGE = 3,         /* the library has no image that runs on this device */
  TRITON_AOT_ERROR_LOAD_FAILED = 4,      /* the driver refused the image, or it is damaged (hash, decompression) */
  TRITON_AOT_ERROR_LAUNCH_FAILED = 5,    /* the driver refused the launch, or it needs more than the device has */
  TRITON_AOT_ERROR_INVALID_ARGUMENT = 6, /* bad config index, no variant accepts the arguments, grid too large */
  TRITON_AOT_ERROR_OUT_OF_MEMORY = 7     /* host or device allocation (scratch) failed */
} triton_aot_status;
#endif

/* Replaces how scratch buffers are allocated (see <prefix>_set_allocator below). */
#ifndef TRITON_AOT_ALLOCATOR_DEFINED
#define TRITON_AOT_ALLOCATOR_DEFINED
typedef struct triton_aot_allocator {
  /* Returns 0 and sets *ptr to device memory of at least `size` bytes aligned to `align`
   * (a power of two), usable by work enqueued on `stream`; non-zero on failure. */
  int (*allocate)(void *user, size_t size, size_t align, void *stream, void **ptr);
  /* Called after the launch that used `ptr` was enqueued on `stream` (may be NULL: nothing). */
  void (*release)(void *user, void *ptr, void *stream);
  void *user;
} triton_aot_allocator;
#endif
)";

std::vector<std::string> variantsText(const Kernel &kernel, const KernelConfig &config) {
  std::vector<std::string> out;
  for (const HintVariant &variant : config.variants)
    out.push_back(variantText(kernel.cParams, variant, " ", "generic"));
  return out;
}

/// "a; b; c" on one comment line when it fits, else one variant per line.
void addVariantLines(std::vector<std::string> &lines, const std::string &title,
                     const std::vector<std::string> &variants) {
  std::string joined;
  for (const std::string &variant : variants)
    joined += (joined.empty() ? "" : "; ") + variant;
  if (title.size() + 1 + joined.size() <= 96) {
    lines.push_back(title + " " + joined);
    return;
  }
  lines.push_back(title);
  for (const std::string &variant : variants)
    lines.push_back("  " + variant);
}

std::string configText(const KernelConfig &config) {
  std::string out = cStringLiteral(config.name);
  for (const auto &[name, value] : config.constexprs)
    out += " " + name + "=" + constexprDisplay(value);
  out += " num_warps=" + std::to_string(config.numWarps) +
         " num_stages=" + std::to_string(config.numStages);
  if (config.options.is_object())
    for (const auto &[name, value] : config.options.items())
      out += " " + name + "=" + constexprDisplay(value);
  return out;
}

/// The C expression of the heuristic that sets \p name ("bool(GEMMA)").
std::string heuristicExpression(const Kernel &kernel, const std::string &name) {
  for (const KernelConfig &config : kernel.configs)
    for (const HintVariant &variant : config.variants)
      for (const HeuristicRecord &h : variant.heuristics)
        if (h.name == name)
          return h.expression;
  return name;   // unreachable: the metadata reader requires the heuristic
}

void writeKernelComment(std::ostream &out, const Kernel &kernel, const KernelPlan &plan) {
  std::vector<std::string> lines;
  lines.push_back(kernel.name + ": @triton.jit " + kernel.function + " in " + kernel.source);
  lines.push_back("");
  std::size_t width = 0;
  for (const std::string &name : plan.params)
    width = std::max(width, name.size());
  for (std::size_t p = 0; p < kernel.cParams.size(); ++p) {
    const CParam &param = kernel.cParams[p];
    std::string line = "  " + plan.params[p] + std::string(width - plan.params[p].size() + 2, ' ') +
                       param.tritonType;
    const std::string dim = std::to_string(param.dim);
    if (param.tensorPart == CParam::TensorPart::Base)
      line += " " + param.tensor + ": base, 16-byte aligned";
    else if (param.tensorPart == CParam::TensorPart::Shape)
      line += " " + param.tensor + ".shape[" + dim + "], elements";
    else if (param.tensorPart == CParam::TensorPart::Stride)
      line += " " + param.tensor + ".strides[" + dim + "], elements (innermost: 1)";
    else if (param.heuristicInput)
      line += " (" + param.name + " = " + heuristicExpression(kernel, param.name) +
              " by @triton.heuristics picks the variant)";
    else if (plan.params[p] != param.name)
      line += " (the kernel's " + param.name + ")";
    lines.push_back(line);
  }
  // Kernel::params is one variant's view: a ":1" there may be a runtime parameter in another
  // variant, so ":1" ones come from oneOnly (":1" in every variant).
  std::string compiledIn;
  for (const ParamInfo &param : kernel.params) {
    const bool oneEverywhere =
        std::find(kernel.oneOnly.begin(), kernel.oneOnly.end(), param.name) != kernel.oneOnly.end();
    if (param.kind == ParamInfo::Kind::Constexpr)
      compiledIn += (compiledIn.empty() ? "" : ", ") + param.name + " (constexpr)";
    else if (oneEverywhere)
      compiledIn += (compiledIn.empty() ? "" : ", ") + param.name + " = 1 (:1)";
  }
  if (!compiledIn.empty())
    lines.push_back("  compiled in: " + compiledIn);
  lines.push_back("");

  const std::string callerGrid =
      kernel.grid ? "" : ", " + plan.gridX + ", " + plan.gridY + ", " + plan.gridZ;
  lines.push_back("Configs (" + plan.api + "_config(" + plan.stream + ", " + plan.config +
                  callerGrid + ", ...); " + plan.api + "() uses 0):");
  for (std::size_t c = 0; c < kernel.configs.size(); ++c)
    lines.push_back("  " + std::to_string(c) + "  " + configText(kernel.configs[c]));
  bool sameVariants = true;
  for (const KernelConfig &config : kernel.configs)
    sameVariants =
        sameVariants && variantsText(kernel, config) == variantsText(kernel, kernel.configs[0]);
  if (sameVariants && !kernel.configs.empty()) {
    addVariantLines(lines, "Variants, first that fits:", variantsText(kernel, kernel.configs[0]));
  } else {
    for (std::size_t c = 0; c < kernel.configs.size(); ++c)
      addVariantLines(lines, "Variants of config " + std::to_string(c) + ", first that fits:",
                      variantsText(kernel, kernel.configs[c]));
  }
  if (kernel.grid)
    lines.push_back("Grid: (" + (*kernel.grid)[0] + ", " + (*kernel.grid)[1] + ", " +
                    (*kernel.grid)[2] + ")");
  else
    lines.push_back("Grid: the caller's, " + plan.gridX + " x " + plan.gridY + " x " + plan.gridZ +
                    " programs, passed after the stream (and config); a 0 launches nothing, one above the device's limit is "
                    "TRITON_AOT_ERROR_INVALID_ARGUMENT");
  std::string targets;
  for (const Target &target : kernel.targets)
    targets += (targets.empty() ? "" : ", ") + targetDisplayName(target);
  lines.push_back("Targets: " + targets);

  out << "/* ";
  bool first = true;
  for (const std::string &line : lines)
    for (const std::string &text : wrapWords(commentText(line), 96, 4)) {
      out << (first ? "" : text.empty() ? " *" : " * ") << text << "\n";
      first = false;
    }
  out << " */\n";
}

/// Config indices by name, for configs named with C identifiers (named ones and those derived
/// from a @triton.autotune's values): <api>_CONFIG_<name>, an index for <api>_config().
void writeConfigIndices(std::ostream &out, const Kernel &kernel, const KernelPlan &kp) {
  std::vector<std::string> lines;
  for (std::size_t c = 0; c < kernel.configs.size(); ++c)
    if (kernel.configs[c].named && isCIdentifier(kernel.configs[c].name))
      lines.push_back("  " + kp.api + "_CONFIG_" + kernel.configs[c].name + " = " +
                      std::to_string(c));
  if (lines.empty())
    return;
  out << "/* Config indices for " << kp.api << "_config(), by name. */\nenum {\n";
  for (std::size_t i = 0; i < lines.size(); ++i)
    out << lines[i] << (i + 1 < lines.size() ? ",\n" : "\n");
  out << "};\n";
}

} // namespace

std::string generateHeader(const Library &library, const CodegenPlan &plan) {
  const std::string guard = includeGuard(library);
  const std::string &p = library.prefix;
  std::ostringstream out;
  out << "/* " << commentText(library.name) << ".h: the C API of the triton-aot library "
      << commentText(cStringLiteral(library.name)) << ",\n"
      << " * generated by triton-aot-ld " TRITON_AOT_VERSION " (do not edit).\n"
      << " *\n"
      << " * Build it from " << commentText(library.name) << ".c and " << commentText(library.name)
      << ".images.S, linked with the triton_aot_runtime library.\n"
      << " * Functions return TRITON_AOT_SUCCESS or an error status; " << p
      << "_last_error() says why.\n"
      << " * Pointers are device pointers; fp16/bf16 scalars are their 16-bit patterns. */\n"
      << "#ifndef " << guard << "\n#define " << guard << "\n\n"
      << "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
      << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
      << "/* Exported even when the library is built with -fvisibility=hidden. */\n"
      << "#ifndef TRITON_AOT_API\n#if defined(__GNUC__)\n"
      << "#define TRITON_AOT_API __attribute__((visibility(\"default\")))\n"
      << "#else\n#define TRITON_AOT_API\n#endif\n#endif\n\n"
      << kSharedDefinitions << "\n";

  for (std::size_t k = 0; k < library.kernels.size(); ++k) {
    const Kernel &kernel = library.kernels[k];
    const KernelPlan &kp = plan.kernels[k];
    writeKernelComment(out, kernel, kp);
    out << wrapCall("TRITON_AOT_API triton_aot_status " + kp.api, apiParameters(kernel, kp, false),
                    ";\n")
        << wrapCall("TRITON_AOT_API triton_aot_status " + kp.api + "_config",
                    apiParameters(kernel, kp, true), ";\n")
        << "/* As " << kp.api << "_config, each runtime parameter by address (args[i] points to a\n"
        << " * value of the i-th, in order); grid: the caller's three, for a kernel without one. */\n"
        << "TRITON_AOT_API triton_aot_status " << kp.api
        << "_config_argv(void *stream, int config, const uint32_t *grid,\n"
        << "    void *const *args);\n"
        << "/* The config " << kp.api << "() runs for these arguments on a device of `"
        << kp.target << "`\n"
        << " * (\"cuda:90a\"), by the tuning compiled in (docs/tuning.md); 0 when untuned. No driver. */\n"
        << wrapCall("TRITON_AOT_API int " + kp.api + "_select_config",
                    selectConfigParameters(kernel, kp), ";\n")
        << "TRITON_AOT_API int " << kp.api << "_config_count(void);\n"
        << "/* NULL when config is out of range. */\n"
        << "TRITON_AOT_API const char *" << kp.api << "_config_name(int config);\n";
    writeConfigIndices(out, kernel, kp);
    out << "\n";
  }

  out << "/* Chooses and loads every kernel's image on the current device, so that no launch\n"
         " * loads (for example during CUDA graph capture). */\n"
      << "TRITON_AOT_API triton_aot_status " << p << "_preload(void);\n"
      << "/* Unloads from every device; the next launch loads again. Not concurrently with "
         "launches. */\n"
      << "TRITON_AOT_API triton_aot_status " << p << "_unload(void);\n"
      << "/* The triton-aot version that generated the library: \"" TRITON_AOT_VERSION "\". */\n"
      << "TRITON_AOT_API const char *" << p << "_version(void);\n"
      << "/* The manifest (" << commentText(library.name)
      << ".json): kernels, variants, targets and resources, as JSON text. */\n"
      << "TRITON_AOT_API const char *" << p << "_manifest(void);\n"
      << "/* What triton-aot-ld --inspect prints for " << commentText(library.name)
      << ".json: a summary line, then one row per\n"
         " * function (kernel, config, variant, target, registers, spills, shared memory, image\n"
         " * size). */\n"
      << "TRITON_AOT_API const char *" << p << "_inventory(void);\n"
      << "/* This thread's message for the last failed call; \"\" if none. */\n"
      << "TRITON_AOT_API const char *" << p << "_last_error(void);\n"
      << "/* Replaces the scratch allocator (default: stream-ordered); NULL restores the default.\n"
         " * Not while launches are in flight on other threads. */\n"
      << "TRITON_AOT_API void " << p << "_set_allocator(const triton_aot_allocator *allocator);\n\n"
      << "#ifdef __cplusplus\n}\n#endif\n#endif /* " << guard << " */\n";
  return out.str();
}

} // namespace tta::link
