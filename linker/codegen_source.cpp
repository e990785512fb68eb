// <lib>.c: the static const tables the runtime reads (runtime-shim/include/triton_aot/runtime.h),
// the helpers the dispatchers call, the dispatchers (codegen_dispatcher.cpp) and the public API.
#include "linker/c_text.h"
#include "linker/codegen_parts.h"
#include "linker/link_group.h"
#include "linker/grid_codegen.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>

namespace tta::link {

namespace {

/// {rank, data_type, elem_size, swizzle, flags, {box}}: a triton_aot_tensor_map row.
std::string tensorMapRow(const TensorDescInfo &t) {
  std::string flags;
  if (t.fp4Padded)
    flags = "TRITON_AOT_TENSOR_FP4_PADDED";
  if (t.fp4Padded && t.shapeArgsPadded)
    flags += " | TRITON_AOT_TENSOR_SHAPE_ARGS_PADDED";
  std::string box;
  for (std::size_t d = 0; d < 5; ++d)
    box += (d ? ", " : "") + std::to_string(d < t.box.size() ? t.box[d] : 0);
  return "{" + std::to_string(t.rank) + ", " + std::to_string(t.dataType) + ", " +
         std::to_string(t.elemSize) + ", " + std::to_string(t.swizzle) + ", " +
         (flags.empty() ? "0" : flags) + ", {" + box + "}}";
}

/// The test a hint promises, or (with \p negated) the test that it is broken.
const char *imageKind(const std::string &kind) {
  if (kind == "cubin")
    return "TRITON_AOT_IMAGE_CUBIN";
  if (kind == "ptx")
    return "TRITON_AOT_IMAGE_PTX";
  if (kind == "hsaco")
    return "TRITON_AOT_IMAGE_HSACO";
  return "0 /* unknown image kind */";
}

int featureValue(char feature) { return feature == '+' ? 1 : feature == '-' ? 0 : -1; }

std::string launchInfo(const LaunchInfo &launch) {
  std::string flags;
  if (launch.cooperative)
    flags = "TRITON_AOT_LAUNCH_COOPERATIVE";
  if (launch.pdl)
    flags += std::string(flags.empty() ? "" : " | ") + "TRITON_AOT_LAUNCH_PDL";
  std::ostringstream out;
  out << "{" << launch.block[0] << ", " << launch.shared << ", {" << launch.clusterDims[0] << ", "
      << launch.clusterDims[1] << ", " << launch.clusterDims[2] << "}, " << launch.numCtas << ", "
      << (flags.empty() ? "0" : flags) << ", " << launch.globalScratch.size << ", "
      << launch.globalScratch.align << ", " << launch.profileScratch.size << ", "
      << launch.profileScratch.align << "}";
  return out.str();
}

/// The C text of every name a grid expression of config \p config may use.
class StringTable {
public:
  std::uint32_t add(const std::string &text) {
    const auto [at, inserted] = offsets_.emplace(text, size_);
    if (inserted) {
      order_.push_back(text);
      size_ += static_cast<std::uint32_t>(text.size() + 1);
    }
    return at->second;
  }
  bool empty() const { return order_.empty(); }
  void write(std::ostream &out) const {
    if (empty())
      return;
    // ISO C promises string literals of 4,095 bytes only (-Wpedantic says so); GCC and clang
    // take any length, and __extension__ keeps them quiet about it.
    out << "/* entry and config names, NUL-terminated, at the offsets the tables use */\n"
        << "#if defined(__GNUC__)\n__extension__\n#endif\n"
        << "static const char tta_strings[] =\n";
    for (const std::string &text : order_) {
      std::string literal = cStringLiteral(text);
      literal.insert(literal.size() - 1, "\\0"); // an escape cannot swallow the quote after it
      out << "  " << literal << " /* " << offsets_.at(text) << " */\n";
    }
    out << "  ;\n\n";
  }

private:
  std::map<std::string, std::uint32_t, std::less<>> offsets_;
  std::vector<std::string> order_;
  std::uint32_t size_ = 0;
};

/// tta_tensor_maps: the TMA facts of every function's descriptors, each distinct list once.
class TensorMapTable {
public:
  std::uint32_t add(const std::vector<TensorDescInfo> &maps) {
    if (maps.empty())
      return 0;
    std::string key;
    for (const TensorDescInfo &t : maps)
      key += tensorMapRow(t) + ";";
    const auto [at, inserted] = offsets_.emplace(key, static_cast<std::uint32_t>(rows_.size()));
    if (inserted)
      for (const TensorDescInfo &t : maps)
        rows_.push_back(tensorMapRow(t));
    return at->second;
  }
  bool empty() const { return rows_.empty(); }
  void write(std::ostream &out) const {
    if (empty())
      return;
    out << "/* host tensor descriptors' TMA facts (triton_aot_function.tensor_maps): rank,\n"
           " * CUtensorMapDataType, element bytes, CUtensorMapSwizzle, flags, box (outermost first) */\n"
           "static const triton_aot_tensor_map tta_tensor_maps[] = {\n";
    for (std::size_t i = 0; i < rows_.size(); ++i)
      out << "  " << rows_[i] << ", /* " << i << " */\n";
    out << "};\n\n";
  }

private:
  std::map<std::string, std::uint32_t> offsets_;
  std::vector<std::string> rows_;
};

/// tta_targets: the library's targets, in the order kernels' target lists index.
void writeTargetTable(std::ostream &out, const CodegenPlan &plan) {
  out << "/* backend, capability, arch-specific (exact capability only), name, HIP processor,\n"
         " * xnack and sramecc (-1 any, 0 off, 1 on) */\n";
  if (!plan.targets.empty()) {
    out << "static const triton_aot_target tta_targets[] = {\n";
    for (const Target &t : plan.targets)
      out << "  {"
          << (t.backend == Backend::Cuda ? "TRITON_AOT_BACKEND_CUDA" : "TRITON_AOT_BACKEND_HIP")
          << ", " << t.capability << ", " << (t.archSuffix == 'a' ? 1 : 0) << ", "
          << cStringLiteral(targetDisplayName(t)) << ", "
          << (t.backend == Backend::Hip ? cStringLiteral(t.processor) : "NULL") << ", "
          << featureValue(t.xnack) << ", " << featureValue(t.sramecc) << "},\n";
    out << "};\n\n";
  }

}

/// A 64-bit hash as a C constant: "0x0123456789abcdefULL".
std::string hexHash(std::uint64_t hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text = "0x0000000000000000ULL";
  for (int i = 17; i >= 2; --i, hash >>= 4)
    text[static_cast<std::size_t>(i)] = kDigits[hash & 15];
  return text;
}

/// tta_images: where each image lies in the blob.
void writeImageTable(std::ostream &out, const Library &library, const ImageBlob &blob) {
  out << "/* offset in the blob, stored bytes, bytes after decompression, kind, compression,\n"
         " * XXH3-64 of the bytes after decompression */\n";
  if (!library.images.empty()) {
    out << "static const triton_aot_image tta_images[] = {\n";
    for (std::size_t i = 0; i < library.images.size(); ++i) {
      const StoredImage stored = i < blob.images.size() ? blob.images[i] : StoredImage{};
      const std::string file = library.images[i].sourceFile;
      out << "  /* " << i << ": " << commentText(file.substr(file.find_last_of('/') + 1)) << " */\n"
          << "  {" << stored.offset << ", " << stored.storedSize << ", "
          << stored.rawSize << ", " << imageKind(library.images[i].kind) << ", "
          << (stored.compressed ? "TRITON_AOT_COMPRESSION_ZSTD" : "TRITON_AOT_COMPRESSION_NONE")
          << ", " << hexHash(stored.hash) << "},\n";
    }
    out << "};\n\n";
  }

}

/// One kernel's tables: its descriptors' argument slots and names, its targets, and one
/// function row per (variant, target) of each runtime entry.
void writeKernelRows(std::ostream &out, const Kernel &kernel, const KernelPlan &kp,
                     const CodegenPlan &plan, StringTable &strings, TensorMapTable &tensorMaps) {
  out << "/* " << kernel.name
      << ": one row per variant and target; entry (in tta_strings), binary image,\n"
      << " * PTX image,\n"
      << " * {block_x, shared bytes, cluster, num_ctas, flags, global scratch size, align,\n"
      << " *  profile scratch size, align}, first tensor map */\n";
  const std::vector<std::size_t> bases = tensorBases(kernel);
  for (std::size_t e = 0; e < kp.entries.size() && !bases.empty(); ++e) {
    // Each descriptor's CUtensorMap slot in this entry's args (":1" parameters before it
    // are not passed, so the slot is counted over the passed ones).
    const RuntimeEntry &entry = plan.entries[kp.entries[e]];
    std::vector<std::string> slots;
    for (std::size_t b : bases)
      slots.push_back(std::to_string(std::count(entry.passed.begin(),
                                                entry.passed.begin() + static_cast<long>(b), true)));
    out << wrapList("static const uint32_t " + kp.statics + "_tensor_slots" +
                        (kp.entries.size() > 1 ? std::to_string(e) : "") + "[] = ",
                    "{", slots, "}", ";\n");
  }
  if (!bases.empty()) {
    std::vector<std::string> names;
    for (std::size_t b : bases)
      names.push_back(std::to_string(strings.add(kernel.cParams[b].name)));
    out << wrapList("static const uint32_t " + kp.statics + "_tensor_names[] = ", "{", names,
                    "}", "; /* in tta_strings */\n");
  }
  if (!kp.targets.empty()) {
    out << "static const uint32_t " << kp.statics << "_targets[] = {";
    for (std::size_t t = 0; t < kp.targets.size(); ++t)
      out << (t ? ", " : "") << kp.targets[t];
    out << "};\n";
  }
  for (std::size_t e = 0; e < kp.entries.size(); ++e) {
    const RuntimeEntry &entry = plan.entries[kp.entries[e]];
    if (kp.targets.empty())
      continue;
    out << "static const triton_aot_function " << kp.statics << "_functions"
        << (kp.entries.size() > 1 ? std::to_string(e) : "") << "[] = {\n";
    for (std::size_t row = 0; row < entry.rows.size(); ++row) {
      const auto [c, v] = entry.rows[row];
      const KernelConfig &config = kernel.configs[c];
      const std::string comment =
          "  /* variant " + std::to_string(row) + ": config " + std::to_string(c) + " " +
          commentText(cStringLiteral(config.name)) + ", " +
          commentText(variantText(kernel.cParams, config.variants[v], " ", "generic")) + " */";
      for (const std::string &line : wrapWords(comment, 100, 3))
        out << line << "\n";
      const std::vector<Function> &functions = config.variants[v].functions;
      for (std::size_t t = 0; t < functions.size(); ++t) {
        const Function &f = functions[t];
        if (!f.refusal.empty()) {
          // Not built for this target: no image; the entry string is why (the runtime's
          // message when the config is launched on such a device).
          out << "  {" << strings.add(f.refusal) << ", TRITON_AOT_NO_IMAGE, TRITON_AOT_NO_IMAGE, "
              << launchInfo(f.launch) << ", 0}, /* refused: "
              << (t < kernel.targets.size() ? targetDisplayName(kernel.targets[t]) : "?")
              << " */\n";
          continue;
        }
        out << "  {" << strings.add(f.entry) << ", " << f.binary << ", "
            << (f.ptx ? std::to_string(*f.ptx) : "TRITON_AOT_NO_IMAGE") << ", "
            << launchInfo(f.launch) << ", " << tensorMaps.add(f.tensorMaps) << "}, /* "
            << (t < kernel.targets.size() ? targetDisplayName(kernel.targets[t]) : "?")
            << " */\n";
      }
    }
    out << "};\n";
  }
  out << "\n";
}

/// tta_kernels: one row per runtime entry, pointing at its kernel's tables.
void writeKernelTable(std::ostream &out, const Library &library, const CodegenPlan &plan) {
  out << "/* name, targets, variants (config-major), their functions, first slot, arguments,\n"
         " * trailing scratch pointers, host tensor descriptors and their argument slots */\n";
  if (!plan.entries.empty()) {
    out << "static const triton_aot_kernel tta_kernels[] = {\n";
    for (std::size_t e = 0; e < plan.entries.size(); ++e) {
      const RuntimeEntry &entry = plan.entries[e];
      const Kernel &kernel = library.kernels[entry.kernel];
      const KernelPlan &kp = plan.kernels[entry.kernel];
      const std::size_t local = static_cast<std::size_t>(
          std::find(kp.entries.begin(), kp.entries.end(), e) - kp.entries.begin());
      std::string trailing;
      if (kernel.globalScratchArg)
        trailing = "TRITON_AOT_ARG_GLOBAL_SCRATCH";
      if (kernel.profileScratchArg)
        trailing += std::string(trailing.empty() ? "" : " | ") + "TRITON_AOT_ARG_PROFILE_SCRATCH";
      const bool hasTables = !kp.targets.empty();
      std::ostringstream row;
      row << "  {" << cStringLiteral(kp.api) << ", " << kp.targets.size() << ", "
          << (hasTables ? kp.statics + "_targets" : "NULL") << ", " << entry.rows.size() << ", "
          << (hasTables
                  ? kp.statics + "_functions" + (kp.entries.size() > 1 ? std::to_string(local) : "")
                  : "NULL")
          << ", " << entry.firstSlot << ", " << entry.argCount << ",";
      const std::size_t tensors = tensorBases(kernel).size();
      const std::string slots =
          tensors == 0 ? "NULL"
                       : kp.statics + "_tensor_slots" +
                             (kp.entries.size() > 1 ? std::to_string(local) : "");
      const std::string tensorPart =
          std::to_string(tensors) + ", " + slots + ", " +
          (tensors == 0 ? "NULL" : kp.statics + "_tensor_names") + "}, /* " +
          std::to_string(e) + " */";
      const std::string last = (trailing.empty() ? "0" : trailing) + ", " + tensorPart;
      if (row.str().size() + 1 + last.size() <= 100)
        out << row.str() << " " << last << "\n";
      else if (3 + last.size() <= 100)
        out << row.str() << "\n   " << last << "\n";
      else
        out << row.str() << "\n   " << (trailing.empty() ? "0" : trailing) << ",\n   "
            << tensorPart << "\n";
    }
    out << "};\n\n";
  }

}

/// tta_library: the descriptor the runtime takes, pointing at every table.
void writeLibrary(std::ostream &out, const Library &library, const CodegenPlan &plan,
                  const StringTable &strings, const TensorMapTable &tensorMaps) {
  const std::string blobName = blobSymbol(library);
  std::size_t slots = 0;
  for (const RuntimeEntry &entry : plan.entries)
    slots += entry.rows.size();
  out << "static void *tta_state; /* the runtime's: per-device modules and functions */\n"
      << "static const triton_aot_library tta_library = {\n"
      << "  .name = " << cStringLiteral(library.name) << ",\n"
      << "  .prefix = " << cStringLiteral(library.prefix) << ",\n"
      << "  .blob = " << (library.images.empty() ? "NULL" : blobName) << ",\n"
      << "  .strings = " << (strings.empty() ? "NULL" : "tta_strings") << ",\n"
      << "  .target_count = " << plan.targets.size() << ",\n"
      << "  .targets = " << (plan.targets.empty() ? "NULL" : "tta_targets") << ",\n"
      << "  .image_count = " << library.images.size() << ",\n"
      << "  .images = " << (library.images.empty() ? "NULL" : "tta_images") << ",\n"
      << "  .kernel_count = " << plan.entries.size() << ",\n"
      << "  .kernels = " << (plan.entries.empty() ? "NULL" : "tta_kernels") << ",\n"
      << "  .slot_count = " << slots << ",\n"
      << "  .state = &tta_state,\n"
      << "  .tensor_maps = " << (tensorMaps.empty() ? "NULL" : "tta_tensor_maps") << ",\n"
      << "};\n\n";
}

void writeTables(std::ostream &out, const Library &library, const CodegenPlan &plan,
                 const ImageBlob &blob, StringTable &strings) {
  TensorMapTable tensorMaps;
  writeTargetTable(out, plan);
  writeImageTable(out, library, blob);
  for (std::size_t k = 0; k < library.kernels.size(); ++k)
    writeKernelRows(out, library.kernels[k], plan.kernels[k], plan, strings, tensorMaps);
  writeKernelTable(out, library, plan);
  tensorMaps.write(out);
  writeLibrary(out, library, plan, strings, tensorMaps);
}

/// One of the dispatchers' launch helpers, tta_launch[_tensors][_at](): the empty and negative
/// grid checks, then the runtime's entry of the same name. _at takes the tuned entry's place;
/// _tensors the caller's descriptors and their storage.
void writeLaunchHelper(std::ostream &out, bool place, bool tensors, const std::string &comment) {
  const std::string suffix = std::string(tensors ? "_tensors" : "") + (place ? "_at" : "");
  std::vector<std::string> params = {"uint32_t kernel", "uint32_t variant"};
  std::vector<std::string> args = {"&tta_library", "kernel", "variant"};
  if (place) {
    params.push_back("const triton_aot_place *place");
    args.push_back("place");
  }
  params.insert(params.end(), {"void *stream", "const int64_t grid[3]", "void **args"});
  args.insert(args.end(), {"stream", "(const uint64_t *)grid", "args"});
  if (tensors) {
    params.insert(params.end(),
                  {"const triton_aot_tensor_arg *tensors", "triton_aot_tensor_storage *storage"});
    args.insert(args.end(), {"tensors", "storage"});
  }
  out << comment << wrapCall("static triton_aot_status tta_launch" + suffix, params, " {\n")
      << "  triton_aot_status status;\n"
         "  if (!tta_grid(kernel, grid, &status))\n"
         "    return status;\n"
      << wrapCall("  return triton_aot_launch" + suffix, args, ";\n}\n\n");
}

void writeHelpers(std::ostream &out, const DispatcherNeeds &used) {
  if (used.grid.cdiv)
    out << "static inline int64_t tta_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }\n";
  if (used.grid.min)
    out << "static inline int64_t tta_min(int64_t a, int64_t b) { return a < b ? a : b; }\n";
  if (used.grid.max)
    out << "static inline int64_t tta_max(int64_t a, int64_t b) { return a > b ? a : b; }\n";
  if (used.grid.cdiv || used.grid.min || used.grid.max)
    out << "\n";
  for (const std::string &helper : used.heuristicHelpers)
    out << heuristicHelperDefinition(helper) << "\n";
  if (used.invalid)
    out << "static triton_aot_status tta_invalid(const char *message) {\n"
           "  return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT, \"%s\", message);\n"
           "}\n\n";
  if (used.launch || used.launchTensors || used.launchAt || used.launchTensorsAt)
    out << "/* A negative grid dimension: the caller's mistake, said so (off the launch path). */\n"
           "static triton_aot_status tta_negative_grid(uint32_t kernel, const int64_t grid[3]) {\n"
           "  const int axis = grid[0] < 0 ? 0 : grid[1] < 0 ? 1 : 2;\n"
           "  return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,\n"
           "                         \"%s: grid %c is %lld; it must not be negative\",\n"
           "                         tta_kernels[kernel].name, \"xyz\"[axis], (long long)grid[axis]);\n"
           "}\n\n"
           "/* Whether to launch `grid`: 0 with *status set when a dimension is negative (an error) or\n"
           " * 0 (an empty grid launches nothing and succeeds). The runtime then takes the grid as\n"
           " * uint64_t: the same values (C lets the two types alias). */\n"
           "static inline int tta_grid(uint32_t kernel, const int64_t grid[3],\n"
           "                           triton_aot_status *status) {\n"
           "  if (grid[0] < 0 || grid[1] < 0 || grid[2] < 0) {\n"
           "    *status = tta_negative_grid(kernel, grid);\n"
           "    return 0;\n"
           "  }\n"
           "  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) {\n"
           "    triton_aot_clear_error();\n"
           "    *status = TRITON_AOT_SUCCESS;\n"
           "    return 0;\n"
           "  }\n"
           "  return 1;\n"
           "}\n\n";
  if (used.launch)
    writeLaunchHelper(out, false, false,
                      "/* Launches a variant of tta_kernels[kernel]; an empty grid launches "
                      "nothing. */\n");
  if (used.launchAt)
    writeLaunchHelper(out, true, false,
                      "/* tta_launch for a tuned kernel: `place` is where its target query found "
                      "the\n * thread's context (NULL: the runtime asks). */\n");
  if (used.launchTensorsAt)
    writeLaunchHelper(out, true, true,
                      "/* tta_launch_tensors for a tuned kernel, with its target query's place. "
                      "*/\n");
  if (used.launchTensors)
    writeLaunchHelper(out, false, true,
                      "/* tta_launch for a kernel with host tensor descriptors: the runtime "
                      "encodes each\n * into `storage` for the function it chooses, and fills "
                      "their argument slots. */\n");
}

/// <api>_config_argv(stream, config, grid, args): every runtime parameter by address, for callers
/// that know the parameters only at run time (triton-aot-tune, from the manifest).
void writeArgvEntry(std::ostream &out, const Kernel &kernel, const KernelPlan &kp) {
  std::vector<std::string> forwarded = {kp.stream, kp.config};
  if (kernel.tuning)
    forwarded.push_back("NULL"); /* no target query: the launch asks for the context */
  if (!kernel.grid)
    forwarded.insert(forwarded.end(), {"tta_grid[0]", "tta_grid[1]", "tta_grid[2]"});
  for (std::size_t p = 0; p < kernel.cParams.size(); ++p) {
    const std::string &type = kernel.cParams[p].cType;
    forwarded.push_back("*(" + type + (isPointer(kernel.cParams[p]) ? "const *" : " const *") +
                        ")tta_args[" + std::to_string(p) + "]");
  }
  out << wrapCall("triton_aot_status " + kp.api + "_config_argv",
                  {"void *" + kp.stream, "int " + kp.config, "const uint32_t *tta_grid",
                   "void *const *tta_args"},
                  " {\n");
  if (kernel.grid)
    out << "  (void)tta_grid; /* the kernel computes its grid */\n";
  else
    out << "  if (tta_grid == NULL)\n"
        << "    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,\n"
        << "                           "
        << wrappedStringLiteral(kp.api + "_config_argv: the kernel takes its grid from the caller; "
                                         "pass three uint32_t",
                                27, 27, 2)
        << ");\n";
  if (kernel.cParams.empty())
    out << "  (void)tta_args;\n";
  out << wrapCall("  return " + kp.statics + "_dispatch", forwarded, ";\n}\n");
}

/// p_K: a tuned kernel's entry picks its config by the table for the device's target, and hands
/// the launch the context its target query found; an untuned kernel's runs the first config.
/// \p forwarded is the dispatcher's arguments as p_K passes them.
void writeEntry(std::ostream &out, const Kernel &kernel, const KernelPlan &kp,
                std::vector<std::string> forwarded) {
  const std::string dispatch = kp.statics + "_dispatch";
  out << wrapCall("triton_aot_status " + kp.api, apiParameters(kernel, kp, false), " {\n");
  if (kernel.tuning) {
    const std::string entry = std::to_string(kp.entries.front());
    forwarded[1] = "tta_config";
    out << "  triton_aot_place tta_place;\n"
        << "  const int tta_target = triton_aot_kernel_target_at(&tta_library, " << entry
        << ", &tta_place);\n"
        << wrapCall("  const int tta_tuned = " + kp.statics + "_tuned_config",
                    tunedConfigCall(kernel, kp, "tta_target"), ";\n")
        << "  const int tta_config = tta_tuned < 0 ? 0 : tta_tuned; /* untuned: the first */\n"
        << "  triton_aot_log_tuned(&tta_library, " << entry
        << ", tta_tuned < 0 ? -1 : tta_target, tta_config,\n"
        << "                       " << kp.api << "_config_name(tta_config));\n";
  }
  out << wrapCall("  return " + dispatch, forwarded, ";\n}\n");
}

/// p_K_config_count() and p_K_config_name(), the names in tta_strings.
void writeConfigNames(std::ostream &out, const Kernel &kernel, const KernelPlan &kp,
                      StringTable &strings) {
  out << "int " << kp.api << "_config_count(void) { return " << kernel.configs.size() << "; }\n";
  out << "const char *" << kp.api << "_config_name(int config) {\n";
  if (kernel.configs.empty()) {
    out << "  (void)config;\n  return NULL;\n}\n\n";
    return;
  }
  std::vector<std::string> offsets;
  for (const KernelConfig &config : kernel.configs)
    offsets.push_back(std::to_string(strings.add(config.name)));
  out << wrapList("  static const uint32_t names[] = ", "{", offsets, "}", ";\n")
      << "  return config >= 0 && config < " << kernel.configs.size()
      << " ? tta_strings + names[config] : NULL;\n}\n\n";
}

/// The library's own functions: preload, unload, version, manifest, inventory, last error,
/// allocator.
void writeLibraryFunctions(std::ostream &out, const Library &library, const ImageBlob &blob) {
  const std::string &p = library.prefix;
  // Texts in the blob (or "" where none was appended: the codegen tests' bare blobs).
  auto blobText = [&](std::uint64_t offset, std::uint64_t size) {
    return holdsText(blob, offset, size)
               ? "(const char *)(" + blobSymbol(library) + " + " + std::to_string(offset) + ")"
               : std::string("\"\"");
  };
  out << "triton_aot_status " << p
      << "_preload(void) { return triton_aot_preload(&tta_library); }\n"
      << "triton_aot_status " << p << "_unload(void) { return triton_aot_unload(&tta_library); }\n"
      << "const char *" << p << "_version(void) { return \"" TRITON_AOT_VERSION "\"; }\n"
      << "const char *" << p << "_manifest(void) { return "
      << blobText(blob.manifestOffset, blob.manifestSize) << "; }\n"
      << "const char *" << p << "_inventory(void) { return "
      << blobText(blob.inventoryOffset, blob.inventorySize) << "; }\n"
      << "const char *" << p << "_last_error(void) { return triton_aot_last_error(); }\n"
      << "void " << p << "_set_allocator(const triton_aot_allocator *allocator) {\n"
      << "  triton_aot_set_allocator(allocator);\n}\n";
}

void writeApi(std::ostream &out, const Library &library, const CodegenPlan &plan,
              const ImageBlob &blob, StringTable &strings) {
  for (std::size_t k = 0; k < library.kernels.size(); ++k) {
    const Kernel &kernel = library.kernels[k];
    const KernelPlan &kp = plan.kernels[k];
    std::vector<std::string> forwarded = {kp.stream, "0"};
    if (kernel.tuning)
      forwarded.push_back("&tta_place");
    if (!kernel.grid)
      forwarded.insert(forwarded.end(), {kp.gridX, kp.gridY, kp.gridZ});
    for (const std::string &name : kp.params)
      forwarded.push_back(name);
    if (kernel.tuning)
      writeTunedConfig(out, kernel, kp); // the device's target picks the table
    writeEntry(out, kernel, kp, forwarded);
    forwarded[1] = kp.config;
    if (kernel.tuning)
      forwarded[2] = "NULL"; /* no target query: the launch asks for the context */
    out << wrapCall("triton_aot_status " + kp.api + "_config", apiParameters(kernel, kp, true),
                    " {\n")
        << wrapCall("  return " + kp.statics + "_dispatch", forwarded, ";\n}\n");
    writeArgvEntry(out, kernel, kp);
    writeSelectConfig(out, kernel, kp);
    writeConfigNames(out, kernel, kp, strings);
  }
  writeLibraryFunctions(out, library, blob);
}

} // namespace

std::string generateSource(const Library &library, const CodegenPlan &plan, const ImageBlob &blob) {
  DispatcherNeeds used;
  std::ostringstream dispatchers;
  for (std::size_t k = 0; k < library.kernels.size(); ++k)
    writeDispatcher(dispatchers, library, plan, k, used);

  bool anyBool = false;
  for (const Kernel &kernel : library.kernels)
    for (const CParam &param : kernel.cParams)
      anyBool = anyBool || param.cType == "bool";

  std::ostringstream out;
  out << "/* " << commentText(library.name)
      << ".c: dispatchers and descriptor tables of the triton-aot library "
      << commentText(cStringLiteral(library.name)) << ",\n"
      << " * generated by triton-aot-ld " TRITON_AOT_VERSION " (do not edit). The tables follow\n"
      << " * <triton_aot/runtime.h>; the runtime chooses the image for the device and launches. "
         "*/\n"
      << (anyTuned(library) ? "#include <string.h>\n" : "")
      << "#include <triton_aot/runtime.h>\n"
      << "#include \"" << library.name << ".h\"\n\n";
  if (anyBool)
    out << "_Static_assert(sizeof(bool) == 1, \"i1 arguments are passed as 1-byte bool\");\n\n";
  out << "/* " << commentText(library.name) << ".images, by " << commentText(library.name)
      << ".images.S: the images at the offsets below, then the manifest. */\n"
      << "TRITON_AOT_HIDDEN extern const unsigned char " << blobSymbol(library) << "[];\n\n";
  // The tables and the API add to the string table, which must come before both.
  StringTable strings;
  std::ostringstream tables, api;
  writeTables(tables, library, plan, blob, strings);
  writeApi(api, library, plan, blob, strings);
  strings.write(out);
  out << tables.str();
  writeHelpers(out, used);
  if (anyTuned(library))
    writeSnapHelper(out);
  out << dispatchers.str() << api.str();
  return out.str();
}

} // namespace tta::link
