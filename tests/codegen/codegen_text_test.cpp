// The generated text itself: names, shared definitions, dispatch order, tables, the assembler
// file, determinism, and the API name check.
#include "codegen_fixture.h"
#include "linker/codegen_plan.h"
#include "linker/image_blob.h"
#include "test_libraries.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

namespace tta::link::testing {
namespace {

GeneratedSources generate(const Library &library, const PackOptions &pack = {},
                          const std::string &blobPath = "/build/out/lib.images") {
  Expected<ImageBlob> blob = packImages(library, pack);
  EXPECT_TRUE(blob);
  appendManifest(*blob, "{}");
  return generateSources(library, *blob, CodegenOptions{blobPath});
}

/// Where \p needle starts in \p text, failing the test when it is missing.
std::size_t at(const std::string &text, const std::string &needle, std::size_t from = 0) {
  const std::size_t found = text.find(needle, from);
  EXPECT_NE(found, std::string::npos) << "missing: " << needle;
  return found;
}

/// The text of the function whose definition starts with \p signature, up to its closing "\n}".
std::string function(const std::string &text, const std::string &signature) {
  const std::size_t begin = at(text, signature);
  if (begin == std::string::npos)
    return "";
  return text.substr(begin, text.find("\n}\n", begin) + 2 - begin);
}

TEST(CodegenText, HeaderDeclaresExactlyTheDocumentedNames) {
  const Library library = vectorAddLibrary("mk");
  const GeneratedSources sources = generate(library);
  const std::string &h = sources.header;
  EXPECT_EQ(apiSymbols(library),
            (std::vector<std::string>{"mk_add", "mk_add_config", "mk_add_config_argv", "mk_add_select_config", "mk_add_config_count",
                                      "mk_add_config_name", "mk_preload", "mk_unload", "mk_version",
                                      "mk_manifest", "mk_inventory", "mk_last_error",
                                      "mk_set_allocator"}));
  at(h, "#ifndef TRITON_AOT_LIB_MK_H\n#define TRITON_AOT_LIB_MK_H\n");
  at(h,
     "TRITON_AOT_API triton_aot_status mk_add(void *stream, const void *x_ptr, const void *y_ptr,\n"
     "                                        const void *out_ptr, int32_t n_elements);\n");
  at(h, "TRITON_AOT_API triton_aot_status mk_add_config(void *stream, int config, const void "
        "*x_ptr,\n");
  at(h, "TRITON_AOT_API triton_aot_status mk_add_config_argv(void *stream, int config, const "
        "uint32_t *grid,\n    void *const *args);\n");
  at(h, "TRITON_AOT_API int mk_add_config_count(void);\n");
  at(h, "TRITON_AOT_API const char *mk_add_config_name(int config);\n");
  at(h, "TRITON_AOT_API triton_aot_status mk_preload(void);\n");
  at(h, "TRITON_AOT_API triton_aot_status mk_unload(void);\n");
  at(h, "TRITON_AOT_API const char *mk_version(void);\n");
  at(h, "TRITON_AOT_API const char *mk_manifest(void);\n");
  at(h, "TRITON_AOT_API const char *mk_inventory(void);\n");
  at(h, "TRITON_AOT_API const char *mk_last_error(void);\n");
  at(h, "TRITON_AOT_API void mk_set_allocator(const triton_aot_allocator *allocator);\n");
  at(h, "#define TRITON_AOT_API __attribute__((visibility(\"default\")))\n");
  // Every declaration is exported; nothing else is declared.
  std::size_t declarations = 0;
  for (std::size_t i = h.find("\nTRITON_AOT_API "); i != std::string::npos;
       i = h.find("\nTRITON_AOT_API ", i + 1))
    ++declarations;
  EXPECT_EQ(declarations, apiSymbols(library).size());
  // Self-contained: only these three includes.
  std::size_t includes = 0;
  for (std::size_t i = h.find("#include"); i != std::string::npos; i = h.find("#include", i + 1))
    ++includes;
  EXPECT_EQ(includes, 3u);
  at(h, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n");
  at(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
}

TEST(CodegenText, HeaderDocumentsEachKernel) {
  const GeneratedSources sources = generate(edgeLibrary());
  const std::string &h = sources.header;
  at(h, "/* names: @triton.jit names_fn in kernels/names.py\n");
  at(h, " *   int_              *fp32 (the kernel's int)\n");
  at(h, " *   compiled in: SCALE (constexpr), OFFSET (constexpr), EVEN (constexpr), MODE "
        "(constexpr)\n");
  at(h, " *   0  \"half\" EVEN=true MODE=\"ieee\" OFFSET=-3 SCALE=0.5 num_warps=4 num_stages=3\n");
  at(h,
     " *   1  \"neg\" EVEN=false MODE=\"tf32\" OFFSET=-1 SCALE=-1.25 num_warps=4 num_stages=3\n");
  // A config name cannot end the comment early.
  at(h, " *   2  \"odd * / name \\\"q\\\" ?\\?= 100%\"");
  at(h, " * Variants of config 0, first that fits: int:16 default:16; generic\n");
  at(h, " * Grid: (max(cdiv(default, 4) + OFFSET, 0), EVEN + 1, min(grid, 8))\n");
  at(h, " * Targets: sm_90a, gfx942\n");
  at(h, " * Variants, first that fits: x:16 stride:1; stride:1; x:16; generic\n");
  at(h, " *   compiled in: unit = 1 (:1), BLOCK (constexpr)\n");
  // stride is ":1" in some variants only: a runtime parameter, not compiled in.
  const std::string fallback = h.substr(at(h, "/* one_fallback:"), 400);
  EXPECT_EQ(fallback.find("compiled in"), std::string::npos) << fallback;
}

// The status enum and the allocator struct must stay the runtime header's, token for token:
// whichever of the two headers comes first defines them.
TEST(CodegenText, SharedDefinitionsMatchTheRuntimeHeader) {
  const std::string runtime = readText(runtimeIncludeDir() + "/triton_aot/runtime.h");
  const std::string header = generate(vectorAddLibrary()).header;
  for (const auto &[guard, first, last] :
       {std::tuple<std::string, std::string, std::string>{"TRITON_AOT_STATUS_DEFINED",
                                                          "typedef enum triton_aot_status {",
                                                          "} triton_aot_status;"},
        {"TRITON_AOT_ALLOCATOR_DEFINED", "typedef struct triton_aot_allocator {",
         "} triton_aot_allocator;"}}) {
    const std::size_t begin = at(runtime, first);
    ASSERT_NE(begin, std::string::npos);
    const std::string definition =
        runtime.substr(begin, at(runtime, last, begin) + last.size() - begin);
    const std::string guarded =
        "#ifndef " + guard + "\n#define " + guard + "\n" + definition + "\n#endif\n";
    EXPECT_NE(header.find(guarded), std::string::npos) << guarded;
    EXPECT_NE(runtime.find(guarded), std::string::npos) << "runtime.h: " << guarded;
  }
}

TEST(CodegenText, DispatcherTriesMostSpecialisedFirstAndEachOneVariantPassesItsArguments) {
  const std::string c = generate(edgeLibrary()).source;
  const std::string dispatch = function(c, "static triton_aot_status tta_one_fallback_dispatch(");
  // Two argument lists: without stride (compiled with stride == 1), and all of them.
  const std::size_t a0 =
      at(dispatch, "  /* compiled with stride == 1 */\n  void *args0[2 + 2] = {&x, &n};\n");
  const std::size_t a1 =
      at(dispatch, "  /* every argument */\n  void *args1[3 + 2] = {&x, &n, &stride};\n");
  EXPECT_LT(a0, a1);
  const std::size_t first = at(dispatch, "    if (((uintptr_t)x & 15u) == 0 && stride == 1)\n"
                                         "      { kernel = 2; variant = 0; args = args0; }\n");
  const std::size_t second = at(dispatch, "    else if (stride == 1)\n"
                                          "      { kernel = 2; variant = 1; args = args0; }\n");
  const std::size_t third = at(dispatch, "    else if (((uintptr_t)x & 15u) == 0)\n"
                                         "      { kernel = 3; variant = 0; args = args1; }\n");
  const std::size_t last =
      at(dispatch, "    else\n      { kernel = 3; variant = 1; args = args1; }\n");
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_LT(third, last);
  at(dispatch, "  return tta_launch(kernel, variant, stream, grid, args);\n");
  EXPECT_EQ(dispatch.find("tta_invalid"), std::string::npos); // it has a generic variant

  // Two runtime kernel entries for it, with their own argument counts.
  at(c, "  {\"edge_one_fallback\", 1, tta_one_fallback_targets, 2, tta_one_fallback_functions0, 6, "
        "2,\n");
  at(c, "  {\"edge_one_fallback\", 1, tta_one_fallback_targets, 2, tta_one_fallback_functions1, 8, "
        "3,\n");
}

TEST(CodegenText, WithoutGenericVariantTheLastElseRefuses) {
  const std::string c = generate(edgeLibrary()).source;
  const std::string dispatch = function(c, "static triton_aot_status tta_strict_dispatch(");
  const std::size_t choose =
      at(dispatch, "    else if (((uintptr_t)x & 15u) == 0 && ((uintptr_t)y & 15u) == 0)\n"
                   "      variant = 1;\n");
  const std::size_t refuseX =
      at(dispatch, "    else if (((uintptr_t)x & 15u) != 0)\n      return tta_invalid(");
  const std::size_t refuseY =
      at(dispatch, "    else\n      return tta_invalid(\"edge_strict: no variant accepts these "
                   "arguments: y is not 16-byte \"\n");
  EXPECT_LT(choose, refuseX);
  EXPECT_LT(refuseX, refuseY);
  at(c, "static triton_aot_status tta_invalid(const char *message) {\n"
        "  return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT, \"%s\", message);\n}\n");
}

TEST(CodegenText, TheModelsVariantOrderDoesNotMatterToTheDispatcher) {
  // A generic variant listed first must still be tried last (it accepts everything).
  Library library = makeLibrary("order");
  KernelBuilder("k")
      .param("x", "*fp32")
      .param("n", "i32")
      .grid("n")
      .target("cuda:80")
      .config("c", nlohmann::json::object(), {{}, {"x:16"}, {"x:16", "n:16"}})
      .addTo(library);
  const std::string dispatch =
      function(generate(library).source, "static triton_aot_status tta_k_dispatch(");
  const std::size_t both =
      at(dispatch, "    if (((uintptr_t)x & 15u) == 0 && n % 16 == 0)\n      variant = 2;\n");
  const std::size_t one =
      at(dispatch, "    else if (((uintptr_t)x & 15u) == 0)\n      variant = 1;\n");
  const std::size_t generic = at(dispatch, "    else\n      variant = 0;\n");
  EXPECT_LT(both, one);
  EXPECT_LT(one, generic);
}

TEST(CodegenText, ConfigBoundsAreCheckedByCountInTheSwitch) {
  const std::string c = generate(vectorAddLibrary()).source;
  const std::string dispatch = function(c, "static triton_aot_status tta_add_dispatch(");
  at(dispatch, "  switch (config) {\n  case 0: /* \"large\" */\n");
  at(dispatch, "  case 1: /* \"small\" */\n");
  at(dispatch, "  default:\n    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,\n"
               "                           \"mk_add: config %d is out of range; it has 2 "
               "configs\", config);\n");
  EXPECT_EQ(dispatch.find("sizeof"), std::string::npos);
  at(c, "const char *mk_add_config_name(int config) {\n"
        "  static const uint32_t names[] = {7, 13};\n"
        "  return config >= 0 && config < 2 ? tta_strings + names[config] : NULL;\n}\n");
  // Each name once, after the entry names of the tables.
  at(c, "#if defined(__GNUC__)\n__extension__\n#endif\nstatic const char tta_strings[] =\n  \"add_fn\\0\" /* 0 */\n  \"large\\0\" /* 7 */\n"
        "  \"small\\0\" /* 13 */\n  ;\n");
  at(c, "int mk_add_config_count(void) { return 2; }\n");
  at(c, "triton_aot_status mk_add(void *stream, const void *x_ptr, const void *y_ptr, const void "
        "*out_ptr,\n"
        "                         int32_t n_elements) {\n"
        "  return tta_add_dispatch(stream, 0, x_ptr, y_ptr, out_ptr, n_elements);\n}\n");
}

TEST(CodegenText, GridUsesTheConfigsConstexprsIn64Bits) {
  const std::string c = generate(edgeLibrary()).source;
  const std::string names = function(c, "static triton_aot_status tta_names_dispatch(");
  at(names, "  case 0: /* \"half\" */\n"
            "    grid_[0] = tta_max(tta_cdiv((int64_t)default_, INT64_C(4)) + (-INT64_C(3)), "
            "INT64_C(0));\n"
            "    grid_[1] = INT64_C(1) + INT64_C(1);\n"
            "    grid_[2] = tta_min((int64_t)grid, INT64_C(8));\n");
  at(names, "    grid_[1] = INT64_C(0) + INT64_C(1);\n"); // EVEN false
  // Locals renamed around the parameters; parameters renamed around C and generated names.
  at(names,
     "static triton_aot_status tta_names_dispatch(void *stream_, int config_, const void *int_,\n");
  at(names, "int32_t NULL_, int32_t int32_t_, int32_t tta_launch_,\n");
  at(names, "  return tta_launch(1, variant_, stream_, grid_, args_);\n");
  // A grid that does not use constexprs is computed once, before the switch.
  const std::string k0 = function(c, "static triton_aot_status tta_k0_dispatch(");
  EXPECT_LT(
      at(k0, "  grid[0] = tta_cdiv((int64_t)n, INT64_C(64));\n  grid[1] = 1;\n  grid[2] = 1;\n"),
      at(k0, "switch"));
  // Only the helpers a grid uses exist.
  EXPECT_EQ(generate(vectorAddLibrary()).source.find("tta_max"), std::string::npos);
}

TEST(CodegenText, ACallerGridIsTakenAfterTheStreamAndConfig) {
  const GeneratedSources sources = generate(edgeLibrary());
  // A parameter named grid_x keeps its name; the dispatcher's own takes the "_".
  at(sources.header, "TRITON_AOT_API triton_aot_status edge_rows(void *stream, uint32_t grid_x_, "
                     "uint32_t grid_y,\n");
  at(sources.header, "                                           uint32_t grid_z, const void *x, "
                     "int32_t grid_x,\n                                           int32_t n);\n");
  at(sources.header, "TRITON_AOT_API triton_aot_status edge_rows_config(void *stream, int config, "
                     "uint32_t grid_x_,\n");
  at(sources.header, " * Configs (edge_rows_config(stream, config, grid_x_, grid_y, grid_z, ...); "
                     "edge_rows() uses 0):\n");
  at(sources.header, " * Grid: the caller's, grid_x_ x grid_y x grid_z programs, passed after the "
                     "stream (and config); a\n");
  const std::string &c = sources.source;
  const std::string dispatch = function(c, "static triton_aot_status tta_rows_dispatch(");
  at(dispatch, "static triton_aot_status tta_rows_dispatch(void *stream, int config, uint32_t "
               "grid_x_,\n                                           uint32_t grid_y, uint32_t "
               "grid_z, const void *x,\n");
  // Copied once, before the switch: no config changes it.
  EXPECT_LT(at(dispatch, "  /* grid: the caller's */\n  grid[0] = grid_x_;\n  grid[1] = grid_y;\n"
                         "  grid[2] = grid_z;\n"),
            at(dispatch, "switch"));
  at(c, "  return tta_rows_dispatch(stream, 0, grid_x_, grid_y, grid_z, x, grid_x, n);\n}\n");
  at(c, "  return tta_rows_dispatch(stream, config, grid_x_, grid_y, grid_z, x, grid_x, n);\n}\n");
  // A kernel with grid expressions takes no grid.
  at(sources.header, "TRITON_AOT_API triton_aot_status edge_empty_grid(void *stream, int32_t n, "
                     "int32_t m);\n");
}

TEST(CodegenText, TablesFollowTheRuntimeAbi) {
  Library library = vectorAddLibrary();
  library.kernels[0].configs[1].variants[0].functions[0].launch.pdl = true;
  library.kernels[0].configs[1].variants[0].functions[0].launch.cooperative = true;
  library.kernels[0].configs[1].variants[0].functions[0].launch.numCtas = 2;
  library.kernels[0].configs[1].variants[0].functions[0].launch.clusterDims = {2, 1, 1};
  library.kernels[0].configs[1].variants[0].functions[0].launch.globalScratch = {256, 128};
  const std::string c = generate(library, PackOptions{true, 3}).source;
  at(c, "#include <triton_aot/runtime.h>\n#include \"mk.h\"\n");
  at(c, "TRITON_AOT_HIDDEN extern const unsigned char mk_tta_blob[];\n");
  at(c, "  {TRITON_AOT_BACKEND_CUDA, 80, 0, \"sm_80\", NULL, -1, -1},\n"
        "  {TRITON_AOT_BACKEND_HIP, 0, 0, \"gfx90a:xnack-\", \"gfx90a\", 0, -1},\n");
  // Compressed images say so, with both sizes and the hash of the raw bytes; 64-byte aligned
  // offsets.
  at(c, "  /* 0: add.sm80.c0v0.cubin */\n  {0, ");
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llxULL",
                static_cast<unsigned long long>(
                    imageHash(library.images[0].bytes.data(), library.images[0].bytes.size())));
  at(c, ", 1856, TRITON_AOT_IMAGE_CUBIN, TRITON_AOT_COMPRESSION_ZSTD, " + std::string(hash) +
            "},\n");
  at(c, "static const uint32_t tta_add_targets[] = {0, 1};\n");
  at(c, "  /* variant 2: config 1 \"small\", x_ptr:16 y_ptr:16 n_elements:16 */\n"
        "  {0, 6, 7, {128, 2048, {2, 1, 1}, 2, TRITON_AOT_LAUNCH_COOPERATIVE | "
        "TRITON_AOT_LAUNCH_PDL, "
        "256, 128, 0, 1}, 0}, /* sm_80 */\n"
        "  {0, 8, TRITON_AOT_NO_IMAGE, {256, 2048, {1, 1, 1}, 1, 0, 0, 1, 0, 1}, 0}, /* "
        "gfx90a:xnack- */\n");
  // No host tensor descriptors: no count, slots, names or tensor map table.
  at(c, "  {\"mk_add\", 2, tta_add_targets, 4, tta_add_functions, 0, 4,\n"
        "   TRITON_AOT_ARG_GLOBAL_SCRATCH | TRITON_AOT_ARG_PROFILE_SCRATCH, 0, NULL, NULL}, /* 0 */\n");
  at(c, "  .tensor_maps = NULL,\n");
  at(c, "static void *tta_state;");
  at(c, "  .prefix = \"mk\",\n  .blob = mk_tta_blob,\n  .strings = tta_strings,\n");
  // Offsets, not pointers, in the rows: a shared library applies no relocation per image.
  const std::size_t images = at(c, "tta_images[] = {");
  EXPECT_EQ(c.substr(images, at(c, "tta_add_targets[]") - images).find("mk_tta_blob"),
            std::string::npos);
  at(c, "  .kernel_count = 1,\n  .kernels = tta_kernels,\n  .slot_count = 4,\n  .state = "
        "&tta_state,\n");
  // Never the image bytes in C (an array of them would start "0x7f, 0x45"; the images'
  // hashes are single 64-bit constants).
  EXPECT_EQ(c.find("0x7f,"), std::string::npos);
}

// A host tensor descriptor X is X_base, X_shape<d>, X_stride<d> in C; the dispatcher hands the
// caller's values to triton_aot_launch_tensors with stack storage for the encoded maps, and the
// tables say where each descriptor's arguments go and what each function encodes.
TEST(CodegenText, TensorDescriptorsAreBaseShapesAndStridesAndTheirTables) {
  const GeneratedSources out = generate(tensorDescLibrary());
  const std::string &h = out.header, &c = out.source;
  at(h, "TRITON_AOT_API triton_aot_status td_tma(void *stream, int32_t s, const void *a_base,\n"
        "                                        int64_t a_shape0, int64_t a_shape1, int64_t "
        "a_stride0,\n"
        "                                        int64_t a_stride1, int32_t n, const void *b_base,\n"
        "                                        int64_t b_shape0, int64_t b_shape1, int64_t "
        "b_shape2,\n"
        "                                        int64_t b_stride0, int64_t b_stride1, int64_t "
        "b_stride2);\n");
  at(h, " *   a_base     tensordesc<fp16[64, 32]> a: base, 16-byte aligned\n"
        " *   a_shape0   i64 a.shape[0], elements\n");
  at(h, " *   b_stride2  i64 b.strides[2], elements (innermost: 1)\n");
  // The s:1 entry passes no s: its descriptors' slots are 0 and 6; the generic entry's 1 and 7.
  at(c, "static const uint32_t tta_tma_tensor_slots0[] = {0, 6};\n"
        "static const uint32_t tta_tma_tensor_slots1[] = {1, 7};\n"
        "static const uint32_t tta_tma_tensor_names[] = {");
  at(c, "   TRITON_AOT_ARG_GLOBAL_SCRATCH | TRITON_AOT_ARG_PROFILE_SCRATCH,\n"
        "   2, tta_tma_tensor_slots0, tta_tma_tensor_names}, /* 0 */\n");
  at(c, "static const triton_aot_tensor_map tta_tensor_maps[] = {\n"
        "  {2, 6, 2, 2, 0, {64, 32, 0, 0, 0}}, /* 0 */\n"
        "  {3, 9, 2, 3, TRITON_AOT_TENSOR_FP4_PADDED | TRITON_AOT_TENSOR_SHAPE_ARGS_PADDED, "
        "{2, 16, 64, 0, 0}}, /* 1 */\n"
        "  {2, 6, 2, 2, 0, {32, 32, 0, 0, 0}}, /* 2 */\n");
  at(c, "  .tensor_maps = tta_tensor_maps,\n");
  const std::string dispatch = function(c, "static triton_aot_status tta_tma_dispatch(");
  at(dispatch, "  /* compiled with s == 1 */\n"
               "  void *args0[13 + 2] = {NULL, NULL, NULL, NULL, NULL, &n, NULL, NULL, NULL, NULL, "
               "NULL, NULL,\n");
  at(dispatch, "  const triton_aot_tensor_arg tta_tensors[2] = {\n"
               "    {a_base, {a_shape0, a_shape1}, {a_stride0, a_stride1}},\n"
               "    {b_base, {b_shape0, b_shape1, b_shape2}, {b_stride0, b_stride1, b_stride2}},\n"
               "  };\n"
               "  triton_aot_tensor_storage tta_storage[2];\n");
  at(dispatch, "  return tta_launch_tensors(kernel, variant, stream, grid, args, tta_tensors, "
               "tta_storage);\n}");
  EXPECT_EQ(c.find("static triton_aot_status tta_launch("), std::string::npos)
      << "no kernel launches without descriptors, so no plain tta_launch";
  at(c, "  return triton_aot_launch_tensors(&tta_library, kernel, variant, stream, "
        "(const uint64_t *)grid,\n"
        "                                   args, tensors, storage);\n");
}

TEST(CodegenText, ManifestPointsIntoTheBlob) {
  const Library library = vectorAddLibrary();
  Expected<ImageBlob> blob = packImages(library, {});
  ASSERT_TRUE(blob);
  EXPECT_NE(generateSources(library, *blob, {"/x"})
                .source.find("const char *mk_manifest(void) { return \"\"; }\n"),
            std::string::npos);
  appendManifest(*blob, "{\"k\": 1}");
  const std::string c = generateSources(library, *blob, {"/x"}).source;
  at(c, "const char *mk_manifest(void) { return (const char *)(mk_tta_blob + " +
            std::to_string(blob->manifestOffset) + "); }\n");
}

TEST(CodegenText, InventoryPointsIntoTheBlobAfterTheManifest) {
  const Library library = vectorAddLibrary();
  Expected<ImageBlob> blob = packImages(library, {});
  ASSERT_TRUE(blob);
  appendManifest(*blob, "{\"k\": 1}");
  // No inventory appended (a bare blob): the empty string, as for the manifest.
  at(generateSources(library, *blob, {"/x"}).source,
     "const char *mk_inventory(void) { return \"\"; }\n");
  appendInventory(*blob, "library mk\n");
  const std::string c = generateSources(library, *blob, {"/x"}).source;
  at(c, "const char *mk_manifest(void) { return (const char *)(mk_tta_blob + " +
            std::to_string(blob->manifestOffset) + "); }\n");
  at(c, "const char *mk_inventory(void) { return (const char *)(mk_tta_blob + " +
            std::to_string(blob->inventoryOffset) + "); }\n");
}

TEST(CodegenText, AssemblyIncbinsTheBlobUnderOneHiddenSymbol) {
  const std::string s =
      generate(vectorAddLibrary("mk", "pfx"), {}, "/a dir/with \"quote\"/and\\back.images")
          .assembly;
  EXPECT_EQ(s.substr(s.find("*/\n") + 3),
            "\t.section .rodata.pfx_tta_blob,\"a\",@progbits\n"
            "\t.balign 64\n"
            "\t.globl pfx_tta_blob\n"
            "\t.hidden pfx_tta_blob\n"
            "\t.type pfx_tta_blob, @object\n"
            "pfx_tta_blob:\n"
            "\t.incbin \"/a dir/with \\\"quote\\\"/and\\\\back.images\"\n"
            "\t.size pfx_tta_blob, . - pfx_tta_blob\n"
            "\t.section .note.GNU-stack,\"\",@progbits\n");
}

TEST(CodegenText, PrefixNamesEverythingPublic) {
  const GeneratedSources sources = generate(vectorAddLibrary("My-Lib 2", "ml2"));
  at(sources.header, "#ifndef TRITON_AOT_LIB_MY_LIB_2_H\n");
  at(sources.header, "TRITON_AOT_API triton_aot_status ml2_add(");
  at(sources.header, "TRITON_AOT_API const char *ml2_manifest(void);\n");
  at(sources.source, "#include \"My-Lib 2.h\"\n");
  at(sources.source, "  .name = \"My-Lib 2\",\n  .prefix = \"ml2\",\n");
  at(sources.source, "TRITON_AOT_HIDDEN extern const unsigned char ml2_tta_blob[];\n");
}

TEST(CodegenText, SameInputSameOutput) {
  const GeneratedSources a = generate(edgeLibrary());
  const GeneratedSources b = generate(edgeLibrary());
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.assembly, b.assembly);
  for (const std::string *text : {&a.header, &a.source, &a.assembly}) {
    EXPECT_EQ(text->find("__DATE__"), std::string::npos);
    EXPECT_EQ(text->find("__TIME__"), std::string::npos);
  }
}

TEST(CodegenText, ParameterNamesAvoidEveryGeneratedName) {
  EXPECT_TRUE(clashesWithGeneratedNames("NULL"));
  EXPECT_TRUE(clashesWithGeneratedNames("int64_t"));
  EXPECT_TRUE(clashesWithGeneratedNames("uint_fast8_t"));
  EXPECT_TRUE(clashesWithGeneratedNames("INT64_C"));
  EXPECT_TRUE(clashesWithGeneratedNames("UINTPTR_MAX"));
  EXPECT_TRUE(clashesWithGeneratedNames("tta_launch"));
  EXPECT_TRUE(clashesWithGeneratedNames("triton_aot_fail"));
  EXPECT_TRUE(clashesWithGeneratedNames("TRITON_AOT_SUCCESS"));
  EXPECT_FALSE(clashesWithGeneratedNames("n"));
  EXPECT_FALSE(clashesWithGeneratedNames("stream")); // a local is renamed instead
  EXPECT_FALSE(clashesWithGeneratedNames("int_"));

  // "int" becomes int_ (a C keyword); a parameter already called int_ keeps its name, so the
  // escaped one moves on.
  Library library = makeLibrary("clash");
  KernelBuilder("k")
      .param("int_", "i32")
      .param("int", "i32")
      .param("NULL_", "i32")
      .param("NULL", "i32")
      .target("cuda:80")
      .config("c", nlohmann::json::object())
      .addTo(library);
  const CodegenPlan plan = planCodegen(library);
  EXPECT_EQ(plan.kernels[0].params, (std::vector<std::string>{"int_", "int__", "NULL_", "NULL__"}));
}

TEST(CodegenText, ApiNameClashesAreReported) {
  EXPECT_TRUE(checkApiNames(edgeLibrary()));
  Library library = makeLibrary("lib");
  KernelBuilder("add")
      .param("n", "i32")
      .target("cuda:80")
      .config("c", nlohmann::json::object())
      .addTo(library);
  KernelBuilder("add_config")
      .param("n", "i32")
      .target("cuda:80")
      .config("c", nlohmann::json::object())
      .addTo(library);
  Status clash = checkApiNames(library);
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().message,
            "kernel 'add_config' would define the C function 'lib_add_config', which kernel 'add' "
            "also defines");
  for (const char *name : {"preload", "last_error", "tta_blob"}) {
    Library one = makeLibrary("lib");
    KernelBuilder(name)
        .param("n", "i32")
        .target("cuda:80")
        .config("c", nlohmann::json::object())
        .addTo(one);
    Status status = checkApiNames(one);
    ASSERT_FALSE(status) << name;
    EXPECT_NE(status.error().message.find("which the library itself defines"), std::string::npos);
  }
}

} // namespace
} // namespace tta::link::testing

namespace tta::link::testing {
namespace {

// The tuned dispatch as text: tables per tuned target, tta_snap per key dimension, the runtime's
// target query in p_K, p_K_select_config over the target spellings.
TEST(CodegenText, ATunedKernelCarriesItsTablesAndSelectsByTarget) {
  const fs::path dir = fs::temp_directory_path() / ("tta-tuned-text-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Library library = tunedLibrary(dir);
  fs::remove_all(dir);
  const GeneratedSources sources = generate(library);
  const std::string &c = sources.source;
  at(c, "#include <string.h>\n#include <triton_aot/runtime.h>\n");
  at(c, "/* mm: tuned dispatch on (M, N), from tuned.tuning.json */\n"
        "static int tta_mm_tuned_config(int tta_target, int64_t tta_key0, int64_t tta_key1) {\n"
        "  /* cuda:90a: 4 shapes tuned on NVIDIA H100 80GB HBM3 */\n"
        "  static const double tta_t1_bounds0[1] = {1024.0};\n"
        "  static const double tta_t1_bounds1[1] = {724.07734393502471};\n"
        "  static const uint16_t tta_t1_grid[4] = {0, 2, 1, 3};\n");
  at(c, "    tta_cell = tta_cell * 2 + tta_snap((double)tta_key1, tta_t1_bounds1, 1);\n"
        "    return tta_t1_grid[tta_cell];\n"
        "  default: /* untuned here (or no image): the caller runs the first config */\n");
  at(c, "  triton_aot_place tta_place;\n"
        "  const int tta_target = triton_aot_kernel_target_at(&tta_library, 0, &tta_place);\n"
        "  const int tta_tuned = tta_mm_tuned_config(tta_target, (int64_t)M, (int64_t)N);\n"
        "  const int tta_config = tta_tuned < 0 ? 0 : tta_tuned; /* untuned: the first */\n"
        "  triton_aot_log_tuned(&tta_library, 0, tta_tuned < 0 ? -1 : tta_target, tta_config,\n");
  at(c, "  static const char *const tta_targets[2] = {\"cuda:80\", \"cuda:90a\"};\n");
  at(sources.header, "TRITON_AOT_API int tuned_mm_select_config(const char *target, const void *a, "
                     "int32_t M, int32_t N,\n");
  // A parameter named target keeps its name; select_config's own takes the "_".
  at(generate(targetParameterLibrary()).header,
     "TRITON_AOT_API int ce_loss_select_config(const char *target_, const void *logits,\n"
     "                                         const void *target, int32_t N);\n");
  // An untuned library has neither the helper nor <string.h>; select_config returns 0.
  const std::string plain = generate(untunedLibrary()).source;
  EXPECT_EQ(plain.find("tta_snap"), std::string::npos);
  EXPECT_EQ(plain.find("<string.h>"), std::string::npos);
  at(plain, "  (void)tta_target;\n  return 0; /* not tuned: the first config */\n");
}

} // namespace
} // namespace tta::link::testing
