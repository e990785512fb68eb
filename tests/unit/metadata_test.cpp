#include "contract/metadata.h"

#include "compiler/naming.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace tta {
namespace {

using nlohmann::json;

// Targets are filled in by hand (not through parseTarget) so that these examples say exactly
// what the metadata file holds.
Target cudaTarget() {
  Target target;
  target.backend = Backend::Cuda;
  target.arch = "90a";
  target.capability = 90;
  target.archSuffix = 'a';
  target.warpSize = 32;
  return target;
}

Target hipTarget() {
  Target target;
  target.backend = Backend::Hip;
  target.arch = "gfx90a:xnack-";
  target.processor = "gfx90a";
  target.xnack = '-';
  target.warpSize = 64;
  return target;
}

ParamInfo param(std::string name, ParamInfo::Kind kind, std::string type, std::size_t size,
                int hint = 0, json value = nullptr, std::string valueText = "") {
  ParamInfo info;
  info.name = std::move(name);
  info.kind = kind;
  info.type = std::move(type);
  info.size = size;
  info.hint = hint;
  info.value = std::move(value);
  info.valueText = std::move(valueText);
  return info;
}

/// Every field set, every parameter kind present.
KernelMetadata cudaExample() {
  using Kind = ParamInfo::Kind;
  KernelMetadata meta;
  meta.generator = "triton-aot-cc 0.1.0";
  meta.tritonVersion = "3.6.0";
  meta.name = "add_fp32";
  meta.function = "add_kernel";
  meta.source = "kernels/add.py";
  meta.sourceKind = "python";
  meta.target = cudaTarget();
  meta.imageArch = "sm_90a";
  meta.variant.id = "add_fp32.sm90a.3f2a9c1e07d4";
  meta.variant.config = "large";
  meta.variant.configIndex = 1;
  meta.variant.signature = "*fp32:16, *fp32:16, *fp32:16, i32, i32:1, 1024";
  meta.variant.constexprs = {{"BLOCK", 1024}, {"stride", 1}};
  meta.variant.numWarps = 4;
  meta.variant.numStages = 3;
  meta.variant.options = {{"enable_fp_fusion", false}, {"launch_pdl", true}, {"num_ctas", 2}};
  meta.params = {
      param("x_ptr", Kind::Pointer, "*fp32", 8, 16),
      param("y_ptr", Kind::Pointer, "*fp32", 8, 16),
      param("out_ptr", Kind::Pointer, "*fp32", 8, 16),
      param("n_elements", Kind::Scalar, "i32", 4),
      param("stride", Kind::SpecializedToOne, "i32", 0, 1, 1, "1"),
      param("BLOCK", Kind::Constexpr, "constexpr", 0, 0, 1024, "1024"),
      param("global_scratch", Kind::GlobalScratch, "*i8", 8),
      param("profile_scratch", Kind::ProfileScratch, "*i8", 8),
  };
  meta.params[0].written = false;   // the kernel reads x and y and stores to out
  meta.params[1].written = false;
  meta.params[2].written = true;
  LaunchInfo &launch = meta.launch;
  launch.entry = "add_kernel";
  launch.numWarps = 4;
  launch.warpSize = 32;
  launch.block = {128, 1, 1};
  launch.shared = 49664;
  launch.numCtas = 2;
  launch.clusterDims = {2, 1, 1};
  launch.globalScratch = {256, 8};
  launch.profileScratch = {0, 1};
  launch.cooperative = false;
  launch.pdl = true;
  launch.tmemSize = 0;
  meta.grid = {"cdiv(n_elements, BLOCK)", "1", "1"};
  meta.images = {
      {"cubin", "add_fp32.sm90a.3f2a9c1e07d4.cubin", 6184,
       "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
      {"ptx", "add_fp32.sm90a.3f2a9c1e07d4.ptx", 4021,
       "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"},
  };
  meta.resources.registers = 26;
  meta.resources.spills = 0;
  meta.resources.staticShared = 0;
  meta.tritonHash = "c6a3c0b4e0c5d1f3f0f1a7b8a1e04bd45ae07f4ed5d5ef3b4c4c5e2d0e1f2a3b";
  return meta;
}

/// A HIP target-ID with a feature, a 64-wide wavefront, no PTX; an IR source (no signature, no
/// constexprs). Like every Triton 3.6 kernel it takes both trailing scratch pointers, though HIP
/// records no global scratch size (0: the launcher passes NULL).
KernelMetadata hipExample() {
  using Kind = ParamInfo::Kind;
  KernelMetadata meta;
  meta.generator = "triton-aot-cc 0.1.0";
  meta.tritonVersion = "3.6.0";
  meta.name = "softmax";
  meta.function = "softmax_kernel";
  meta.source = "kernels/softmax.ttgir";
  meta.sourceKind = "ttgir";
  meta.target = hipTarget();
  meta.imageArch = "gfx90a";
  meta.variant.id = "softmax.gfx90a_xnack-.0b7d2e44c815";
  meta.variant.numWarps = 8;
  meta.variant.numStages = 2;
  meta.variant.options = {{"waves_per_eu", 2}, {"kpack", 1}};
  meta.params = {
      param("out", Kind::Pointer, "*fp16", 8),
      param("in", Kind::Pointer, "*fp16", 8),
      param("n_rows", Kind::Scalar, "i32", 4),
      param("n_cols", Kind::Scalar, "i32", 4),
      param("scale", Kind::Scalar, "fp32", 4),
      param("global_scratch", Kind::GlobalScratch, "*i8", 8),
      param("profile_scratch", Kind::ProfileScratch, "*i8", 8),
  };
  LaunchInfo &launch = meta.launch;
  launch.entry = "softmax_kernel";
  launch.numWarps = 8;
  launch.warpSize = 64;
  launch.block = {512, 1, 1};
  launch.shared = 16384;
  meta.grid = {"n_rows", "1", "1"};
  meta.images = {{"hsaco", "softmax.gfx90a_xnack-.0b7d2e44c815.hsaco", 12040,
                  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}};
  meta.resources.registers = 40;
  meta.resources.sgprs = 24;
  meta.tritonHash = "0b7d2e44e3a5c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a4938";
  return meta;
}

TEST(MetadataTest, RoundTripsCuda) {
  KernelMetadata meta = cudaExample();
  Expected<KernelMetadata> parsed = parseMetadata(json::parse(toJson(meta).dump()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, meta);
}

TEST(MetadataTest, RoundTripsHip) {
  KernelMetadata meta = hipExample();
  Expected<KernelMetadata> parsed = parseMetadata(json::parse(toJson(meta).dump()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, meta);
}

TEST(MetadataTest, ACallerGridIsAnAbsentGridAndRoundTrips) {
  KernelMetadata meta = hipExample();
  meta.grid.reset();
  json out = toJson(meta);
  EXPECT_FALSE(out.contains("grid"));
  Expected<KernelMetadata> parsed = parseMetadata(json::parse(out.dump()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->grid);
  EXPECT_EQ(*parsed, meta);
  out["grid"] = nullptr; // null reads as absent
  parsed = parseMetadata(out);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->grid);
}

/// \p meta with a rank-2 host tensor descriptor "a_desc" first: the CUtensorMap parameter with
/// its TMA facts, then its shape (i32) and stride (i64) entries, as Triton's launcher passes them.
KernelMetadata withTensorDescriptor(KernelMetadata meta) {
  ParamInfo desc;
  desc.name = "a_desc";
  desc.kind = ParamInfo::Kind::TensorDesc;
  desc.type = "tensordesc<fp16[128, 64]>";
  desc.size = 128;
  desc.tensordesc = TensorDescInfo{2, 6, 2, 3, {128, 64}, false, false};
  std::vector<ParamInfo> params = {desc};
  for (const char *part : {"shape", "stride"})
    for (int d = 0; d < 2; ++d) {
      ParamInfo extra;
      const bool shape = std::string(part) == "shape";
      extra.name = "a_desc." + std::string(part) + std::to_string(d);
      extra.kind = shape ? ParamInfo::Kind::TensorDescShape : ParamInfo::Kind::TensorDescStride;
      extra.type = shape ? "i32" : "i64";
      extra.size = shape ? 4 : 8;
      params.push_back(extra);
    }
  meta.params.insert(meta.params.begin(), params.begin(), params.end());
  return meta;
}

TEST(MetadataTest, AHostTensorDescriptorCarriesItsTmaFactsAndRoundTrips) {
  KernelMetadata meta = withTensorDescriptor(cudaExample());
  json out = toJson(meta);
  EXPECT_EQ(out["params"][0]["tensordesc"],
            json::parse(R"({"rank": 2, "data_type": 6, "elem_size": 2, "swizzle": 3,
                            "box": [128, 64], "fp4_padded": false, "shape_args_padded": false})"));
  Expected<KernelMetadata> parsed = parseMetadata(json::parse(out.dump()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, meta);
  out["params"][0]["tensordesc"]["box"] = json::array({128});
  parsed = parseMetadata(out);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message,
            "params[0].tensordesc.box: expected 2 entries (the rank), got [128]");
  out["params"][0]["size"] = 8;
  EXPECT_FALSE(parseMetadata(out));
}

// The launcher fills a descriptor's arguments by position: a tensordesc of rank r is followed
// by exactly r tensordesc_shape ("<name>.shape<d>", i32) then r tensordesc_stride
// ("<name>.stride<d>", i64) entries, and no such entry stands anywhere else.
TEST(MetadataTest, ATensorDescriptorIsFollowedByExactlyItsShapeAndStrideEntries) {
  KernelMetadata meta = withTensorDescriptor(cudaExample());
  const json good = toJson(meta);
  ASSERT_TRUE(parseMetadata(good));
  const std::string rule = "the tensordesc 'a_desc' has rank 2, so exactly 2 tensordesc_shape, "
                           "then 2 tensordesc_stride entries follow it";

  json missing = good;   // a_desc.stride1 left out: x_ptr comes in its place
  missing["params"].erase(missing["params"].begin() + 4);
  auto parsed = parseMetadata(missing);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "params[4]: expected 'a_desc.stride1' (tensordesc_stride, "
                                    "i64): " + rule + "; got 'x_ptr' (pointer, *fp32)");

  json swapped = good;   // strides before shapes
  std::swap(swapped["params"][1], swapped["params"][3]);
  parsed = parseMetadata(swapped);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "params[1]: expected 'a_desc.shape0' (tensordesc_shape, "
                                    "i32): " + rule + "; got 'a_desc.stride0' "
                                    "(tensordesc_stride, i64)");

  json stray = good;   // a shape entry after a plain parameter
  json extra = stray["params"][1];
  extra["name"] = "x_ptr.shape0";
  stray["params"].insert(stray["params"].begin() + 6, extra);
  parsed = parseMetadata(stray);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message,
            "params[6].kind: tensordesc_shape 'x_ptr.shape0' does not follow a tensordesc "
            "parameter and its other entries; a tensordesc of rank r is followed by exactly r "
            "tensordesc_shape, then r tensordesc_stride entries");

  json last = good;   // the list ends inside the descriptor's entries
  last["params"] = json::array({good["params"][0], good["params"][1]});
  parsed = parseMetadata(last);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "params[2]: expected 'a_desc.shape1' (tensordesc_shape, "
                                    "i32): " + rule + "; the list ends");
}

TEST(MetadataTest, WritesTheDocumentedLayout) {
  json out = toJson(cudaExample());
  EXPECT_EQ(out["schema"], "triton-aot-kernel");
  EXPECT_EQ(out["schema_version"], 1);
  EXPECT_EQ(out["kernel"], json::parse(R"({"name": "add_fp32", "function": "add_kernel",
      "source": "kernels/add.py", "source_kind": "python"})"));
  EXPECT_EQ(out["target"], json::parse(R"({"backend": "cuda", "arch": "90a",
      "spelling": "cuda:90a", "warp_size": 32, "image_arch": "sm_90a"})"));
  EXPECT_EQ(out["params"][0], json::parse(R"({"name": "x_ptr", "kind": "pointer",
      "type": "*fp32", "size": 8, "hint": 16, "written": false})"));
  EXPECT_EQ(out["params"][4], json::parse(R"({"name": "stride", "kind": "specialized_to_one",
      "type": "i32", "size": 0, "hint": 1, "value": 1, "value_text": "1"})"));
  EXPECT_EQ(out["launch"]["block"], json::parse("[128, 1, 1]"));
  EXPECT_EQ(out["launch"]["global_scratch"], json::parse(R"({"size": 256, "align": 8})"));
  EXPECT_EQ(out["grid"], json::parse(R"j(["cdiv(n_elements, BLOCK)", "1", "1"])j"));
  // Unknown resource figures are left out rather than written as 0 or null.
  EXPECT_EQ(toJson(hipExample())["resources"], json::parse(R"({"registers": 40, "sgprs": 24})"));
}

// The examples in tests/data/metadata/ are the ones docs/metadata.md shows: any change to what
// toJson() writes shows up here, and must be a deliberate (and documented) one.
TEST(MetadataTest, MatchesTheGoldenFiles) {
  for (auto [file, meta] : {std::pair{"cuda_sm90a.json", cudaExample()},
                            std::pair{"hip_gfx90a.json", hipExample()}}) {
    std::ifstream in(std::string(TTA_TEST_DATA_DIR) + "/metadata/" + file);
    ASSERT_TRUE(in) << file;
    json golden = json::parse(in);
    EXPECT_EQ(toJson(meta), golden) << file << ":\n" << toJson(meta).dump(2);
  }
}

// The examples are named as the compiler names its outputs: id "<name>.<target tag>.<digest>"
// with a 12-digit digest, and (the default stem being the name) files "<id>.<ext>".
TEST(MetadataTest, ExamplesFollowTheNaming) {
  for (const KernelMetadata &meta : {cudaExample(), hipExample()}) {
    const std::string &id = meta.variant.id;
    std::string digest = id.substr(id.rfind('.') + 1);
    EXPECT_TRUE(std::regex_match(digest, std::regex("[0-9a-f]{12}"))) << id;
    EXPECT_EQ(variantId(meta.name, meta.target, digest), id);
    OutputPaths paths = outputPaths(meta.name, meta.target, digest);
    EXPECT_EQ(meta.images[0].file, paths.image.string());
    if (meta.images.size() > 1) {
      EXPECT_EQ(meta.images[1].file, paths.ptx.string());
    }
  }
}

// Triton 3.5 to 3.8 append both scratch pointers on both backends.
TEST(MetadataTest, ExamplesEndWithBothScratchPointers) {
  for (const KernelMetadata &meta : {cudaExample(), hipExample()}) {
    ASSERT_GE(meta.params.size(), 2u);
    EXPECT_EQ(meta.params[meta.params.size() - 2].kind, ParamInfo::Kind::GlobalScratch)
        << meta.target.arch;
    EXPECT_EQ(meta.params.back().kind, ParamInfo::Kind::ProfileScratch) << meta.target.arch;
  }
}

TEST(MetadataTest, AllowsUnknownFields) {
  json doc = toJson(cudaExample());
  doc["added_in_a_later_minor_release"] = {1, 2, 3};
  doc["launch"]["future_attribute"] = true;
  doc["params"][0]["future"] = "x";
  Expected<KernelMetadata> parsed = parseMetadata(doc);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, cudaExample());
}

TEST(MetadataTest, NullResourcesAreUnknown) {
  json doc = toJson(cudaExample());
  doc["resources"]["registers"] = nullptr;
  Expected<KernelMetadata> parsed = parseMetadata(doc);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->resources.registers);
}

TEST(MetadataTest, ParamKindNames) {
  EXPECT_STREQ(paramKindName(ParamInfo::Kind::Pointer), "pointer");
  EXPECT_STREQ(paramKindName(ParamInfo::Kind::Scalar), "scalar");
  EXPECT_STREQ(paramKindName(ParamInfo::Kind::Constexpr), "constexpr");
  EXPECT_STREQ(paramKindName(ParamInfo::Kind::SpecializedToOne), "specialized_to_one");
  EXPECT_STREQ(paramKindName(ParamInfo::Kind::HeuristicInput), "heuristic_input");
  EXPECT_STREQ(paramKindName(ParamInfo::Kind::GlobalScratch), "global_scratch");
  EXPECT_STREQ(paramKindName(ParamInfo::Kind::ProfileScratch), "profile_scratch");
}

/// \p meta whose BLOCK is computed at launch by a @triton.heuristics value from the caller's
/// BLOCK (an i32 the C API takes): unsloth's "BLOCK": lambda args: ..., args["BLOCK"].
KernelMetadata withHeuristicInput(KernelMetadata meta) {
  for (ParamInfo &p : meta.params)
    if (p.name == "BLOCK") {
      p.kind = ParamInfo::Kind::HeuristicInput;
      p.type = "i32";
    }
  meta.variant.heuristics.push_back(
      {"BLOCK", "min(next_power_of_2(BLOCK), 1024)",
       "min(triton.next_power_of_2(args['BLOCK']), 1024)", true, 1024});
  return meta;
}

TEST(MetadataTest, AHeuristicInputRoundTripsWithTheHeuristicThatReadsIt) {
  KernelMetadata meta = withHeuristicInput(cudaExample());
  json out = toJson(meta);
  EXPECT_EQ(out["params"][5]["kind"], "heuristic_input");
  EXPECT_EQ(out["params"][5]["size"], 0);
  EXPECT_EQ(out["params"][5]["value"], 1024);
  Expected<KernelMetadata> parsed = parseMetadata(json::parse(out.dump()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, meta);

  // Its value means something only to a heuristic computing the parameter at launch.
  json orphan = out;
  orphan["variant"]["heuristics"][0]["runtime"] = false;
  Expected<KernelMetadata> refused = parseMetadata(orphan);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "params[5].kind: heuristic_input 'BLOCK' has no runtime "
                                     "heuristic setting it in variant.heuristics");
  // A type the generated C computes with.
  for (const char *type : {"fp16", "*fp32", "constexpr", "fp8e4nv"}) {
    json bad = out;
    bad["params"][5]["type"] = type;
    Expected<KernelMetadata> typed = parseMetadata(bad);
    ASSERT_FALSE(typed) << type;
    EXPECT_NE(typed.error().message.find("params[5].type: a heuristic_input parameter takes a "
                                         "scalar type C computes with"),
              std::string::npos)
        << typed.error().message;
  }
  json sized = out;
  sized["params"][5]["size"] = 4;
  ASSERT_FALSE(parseMetadata(sized));
  EXPECT_EQ(parseMetadata(sized).error().message,
            "params[5].size: 4 is not a valid size for a heuristic_input parameter; expected 0 "
            "(it is not passed)");
}

struct BadCase {
  const char *pointer; ///< where to change the CUDA example ("" = the whole document)
  json value;          ///< the new value; discarded() = remove the field
  std::string message;
};

json removed() { return json(json::value_t::discarded); }

TEST(MetadataTest, RejectsBadFiles) {
  const BadCase cases[] = {
      {"", json::array(), "expected a JSON object at the top level, got []"},
      {"/schema", removed(),
       "schema: missing required field; this is not a triton-aot-kernel metadata file"},
      {"/schema", "triton-aot-library", R"(schema: expected "triton-aot-kernel", got "triton-aot-library")"},
      {"/schema_version", 2,
       "schema_version 2 is newer than this tool supports (1); update triton-aot"},
      {"/schema_version", 0, "schema_version: expected an integer >= 1, got 0"},
      {"/generator", "", "generator: expected a non-empty string"},
      {"/kernel/name", 7, "kernel.name: expected a string, got 7"},
      {"/kernel/source_kind", "cuda",
       R"(kernel.source_kind: expected one of python, ttir, ttgir; got "cuda")"},
      {"/target/backend", "hip", R"(target.backend: "hip" does not match spelling "cuda:90a")"},
      {"/target/arch", "90", R"(target.arch: "90" does not match spelling "cuda:90a" (expected "90a"))"},
      {"/target/warp_size", 64,
       "target.warp_size: 64 does not match cuda:90a, whose warps have 32 threads"},
      {"/variant/num_warps", 0, "variant.num_warps: expected an integer >= 1, got 0"},
      {"/variant/config_index", -1, "variant.config_index: expected an integer >= 0, got -1"},
      {"/variant/config_index", "1", R"(variant.config_index: expected an integer, got "1")"},
      {"/variant/constexprs", json::array(), "variant.constexprs: expected an object, got []"},
      {"/params", removed(), "params: missing required field"},
      {"/params/0/kind", "tensor",
       "params[0].kind: expected one of pointer, scalar, constexpr, specialized_to_one, "
       "heuristic_input, tensordesc, tensordesc_shape, tensordesc_stride, global_scratch, "
       R"(profile_scratch; got "tensor")"},
      {"/params/0/hint", 8, "params[0].hint: expected 0, 1 or 16, got 8"},
      {"/params/0/size", 4,
       "params[0].size: 4 is not a valid size for a pointer parameter; expected 8"},
      {"/params/3/size", 3,
       "params[3].size: 3 is not a valid size for a scalar parameter; expected 1, 2, 4 or 8"},
      {"/params/5/size", 4,
       "params[5].size: 4 is not a valid size for a constexpr parameter; expected 0 (it is not "
       "passed)"},
      {"/params/5/value", removed(), "params[5].value: missing required field"},
      {"/params/4/value", 2, "params[4].value: a specialized_to_one parameter has the value 1, got 2"},
      {"/params/1/name", "x_ptr", "params[1].name: duplicate parameter name 'x_ptr'"},
      {"/params/7/kind", "global_scratch",
       "params[7].kind: global_scratch after global_scratch; expected the kernel's parameters, "
       "then global_scratch, then profile_scratch, each at most once"},
      {"/params/7/kind", "pointer",
       "params[7].kind: pointer after global_scratch; expected the kernel's parameters, then "
       "global_scratch, then profile_scratch, each at most once"},
      {"/launch/shared", removed(), "launch.shared: missing required field"},
      {"/launch/shared", -1, "launch.shared: expected an unsigned integer, got -1"},
      {"/launch/shared", "big", R"(launch.shared: expected an unsigned integer, got "big")"},
      {"/launch/num_warps", 4.0, "launch.num_warps: expected an integer, got 4.0"},
      {"/launch/num_warps", 5000000000LL, "launch.num_warps: 5000000000 is too large (at most 2147483647)"},
      {"/launch/warp_size", 64, "launch.warp_size: 64 does not match target.warp_size 32"},
      {"/launch/block", {64, 1, 1},
       "launch.block: expected [128, 1, 1] (num_warps * warp_size), got [64,1,1]"},
      {"/launch/cluster_dims", {2, 1}, "launch.cluster_dims: expected an array of 3 integers, got [2,1]"},
      {"/launch/cluster_dims/1", 0, "launch.cluster_dims[1]: expected an integer >= 1, got 0"},
      {"/launch/global_scratch/align", 3, "launch.global_scratch.align: expected a power of two, got 3"},
      {"/launch/pdl", 1, "launch.pdl: expected true or false, got 1"},
      {"/grid", json::array({"a", "b"}), R"(grid: expected an array of 3 strings, got ["a","b"])"},
      {"/grid/2", "", "grid[2]: expected a non-empty string"},
      {"/images", json::array(), "images: expected at least one image"},
      {"/images/0/kind", "ptx", R"(images[0].kind: the first image must be the cubin, got "ptx")"},
      {"/images/1/kind", "hsaco", R"(images[1].kind: expected one of cubin, ptx; got "hsaco")"},
      {"/images/1/kind", "cubin", "images[1].kind: a second cubin image"},
      {"/images/0/file", "../add.cubin",
       R"(images[0].file: expected a file name without a directory, got "../add.cubin")"},
      {"/images/0/sha256", "abc", R"(images[0].sha256: expected 64 lower-case hex digits, got "abc")"},
      {"/images/0/sha256", std::string(64, 'A'),
       "images[0].sha256: expected 64 lower-case hex digits, got \"" + std::string(56, 'A') +
           "..."},
      {"/resources/registers", -2, "resources.registers: expected an integer >= 0, got -2"},
      {"/triton_hash", removed(), "triton_hash: missing required field"},
  };
  for (const BadCase &bad : cases) {
    json doc = toJson(cudaExample());
    json::json_pointer pointer(bad.pointer);
    if (bad.value.is_discarded())
      doc[pointer.parent_pointer()].erase(pointer.back());
    else
      doc[pointer] = bad.value;
    Expected<KernelMetadata> parsed = parseMetadata(doc);
    if (parsed) {
      ADD_FAILURE() << bad.pointer << ": accepted";
      continue;
    }
    EXPECT_EQ(parsed.error().message, bad.message) << bad.pointer;
    EXPECT_EQ(parsed.error().code, ExitCode::UsageError) << bad.pointer;
  }
}

TEST(MetadataTest, RejectsPtxForHip) {
  json doc = toJson(hipExample());
  doc["images"].push_back(doc["images"][0]);
  doc["images"][1]["kind"] = "ptx";
  Expected<KernelMetadata> parsed = parseMetadata(doc);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, R"(images[1].kind: expected one of hsaco; got "ptx")");
}

/// The CUDA example with \p pointer set to \p value (removed()): the reader's message, or
/// "accepted".
std::string readWith(const char *pointer, const json &value, KernelMetadata meta = cudaExample()) {
  json doc = toJson(meta);
  json::json_pointer at(pointer);
  if (value.is_discarded())
    doc[at.parent_pointer()].erase(at.back());
  else
    doc[at] = value;
  Expected<KernelMetadata> parsed = parseMetadata(doc);
  if (parsed)
    return "accepted";
  EXPECT_EQ(parsed.error().code, ExitCode::UsageError) << pointer;
  return parsed.error().message;
}

const std::string kNotAName =
    " is not a C identifier (ASCII letters, digits and '_', not starting with a digit), so it "
    "cannot be a name in generated C";

// A name in a metadata file is written into the generated header and C; one holding a line
// break and a preprocessor line would become code there.
TEST(MetadataTest, NamesThatReachGeneratedCAreCIdentifiers) {
  const std::string injected = "x_ptr\n#error X";
  EXPECT_EQ(readWith("/params/0/name", injected), R"(params[0].name: "x_ptr\n#error X")" + kNotAName);
  EXPECT_EQ(readWith("/kernel/name", "add(); int x"), R"(kernel.name: "add(); int x")" + kNotAName);
  EXPECT_EQ(readWith("/params/5/name", "BLOCK */"), R"(params[5].name: "BLOCK */")" + kNotAName);
  EXPECT_EQ(readWith("/params/3/name", "n\u00e9"), R"(params[3].name: "né")" + kNotAName);
  EXPECT_EQ(readWith("/params/0/name", "1x"), R"(params[0].name: "1x")" + kNotAName);
  EXPECT_EQ(readWith("/launch/entry", "add\"); abort(); (\""),
            R"(launch.entry: "add\"); abort(); (\"")" + kNotAName);
  EXPECT_EQ(readWith("/variant/constexprs", {{"BLOCK", 1024}, {"stride\n#x", 1}}),
            R"(variant.constexprs: "stride\n#x")" + kNotAName);
  EXPECT_EQ(readWith("/variant/options", {{"num-ctas", 2}}),
            R"(variant.options: "num-ctas")" + kNotAName);
  EXPECT_EQ(readWith("/variant/autotune",
                     {{"key", {"n_elements\n"}}, {"reset_to_zero", json::array()},
                      {"restore_value", json::array()}, {"configs", "decorator"},
                      {"dropped_pre_hooks", json::array()}}),
            R"(variant.autotune.key[0]: "n_elements\n")" + kNotAName);
  // The trailing pointers have their fixed names.
  EXPECT_EQ(readWith("/params/6/name", "scratch"),
            R"(params[6].name: a global_scratch parameter is named "global_scratch", got "scratch")");
}

TEST(MetadataTest, HeuristicsAreCIdentifiersAndExpressionsOfTheCDialect) {
  KernelMetadata meta = cudaExample();
  meta.variant.heuristics = {{"BLOCK", "n_elements % 16 == 0", "args['n'] % 16 == 0", true, true}};
  const std::string accepted = readWith("/variant/heuristics/0/runtime", true, meta);
  EXPECT_EQ(accepted, "accepted");
  EXPECT_EQ(readWith("/variant/heuristics/0/name", "EVEN\n#define x", meta),
            R"(variant.heuristics[0].name: "EVEN\n#define x")" + kNotAName);
  const std::string expression = readWith("/variant/heuristics/0/expression", "n_elements #x", meta);
  EXPECT_EQ(expression.rfind("variant.heuristics[0].expression: ", 0), 0u) << expression;
  EXPECT_EQ(readWith("/variant/heuristics/0/written", "a\nb", meta),
            R"(variant.heuristics[0].written: "a\nb" holds a line break or another control character)");
}

// "written" says whether a kernel stores through a pointer; only pointers and tensordescs have it.
TEST(MetadataTest, OnlyPointersAreWritten) {
  EXPECT_EQ(readWith("/params/2/written", false), "accepted");
  EXPECT_EQ(readWith("/params/2/written", "yes"), "params[2].written: expected true or false, got \"yes\"");
  EXPECT_EQ(readWith("/params/3/written", true),
            "params[3].written: only a pointer or tensordesc parameter is written; a scalar "
            "parameter has no 'written'");
  // Absent: not known.
  KernelMetadata meta = cudaExample();
  meta.params[2].written.reset();
  auto read = parseMetadata(toJson(meta));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->params[2].written.has_value());
}

// A heuristic may set a launch option instead of a parameter (FlagGems' "num_warps": lambda
// args: 8); its value must be the one the variant was built with.
TEST(MetadataTest, AHeuristicSettingALaunchOptionMatchesTheLaunch) {
  KernelMetadata meta = cudaExample();
  const int warps = meta.launch.numWarps;
  meta.variant.heuristics = {{"num_warps", std::to_string(warps), "8", false, warps},
                             {"num_stages", std::to_string(meta.variant.numStages), "2", false,
                              meta.variant.numStages}};
  EXPECT_EQ(readWith("/variant/heuristics/0/runtime", false, meta), "accepted");
  EXPECT_EQ(readWith("/variant/heuristics/0/value", warps * 2, meta),
            "variant.heuristics[0].value: heuristic 'num_warps' gives " + std::to_string(warps * 2) +
                ", but the variant was built with num_warps " + std::to_string(warps));
  const std::string stages = readWith("/variant/heuristics/1/value", true, meta);
  EXPECT_EQ(stages.rfind("variant.heuristics[1].value: heuristic 'num_stages' gives true", 0), 0u)
      << stages;
  EXPECT_EQ(readWith("/variant/heuristics/0/name", "num_threads", meta),
            "variant.heuristics[0].name: 'num_threads' is neither a parameter of the kernel nor a "
            "launch option (num_warps, num_stages, num_ctas, maxnreg)");
}

TEST(MetadataTest, TextIsOneLineAndNamesHaveTheirForm) {
  EXPECT_EQ(readWith("/kernel/source", "kernels/add.py\n#error X"),
            R"(kernel.source: "kernels/add.py\n#error X" holds a line break or another control character)");
  EXPECT_EQ(readWith("/params/0/type", "*fp32 */"),
            R"(params[0].type: expected '*' and a type name ("*fp32") for a pointer parameter, got "*fp32 */")");
  EXPECT_EQ(readWith("/params/5/value_text", "1024\r"),
            R"(params[5].value_text: "1024\r" holds a line break or another control character)");
  EXPECT_EQ(readWith("/variant/config", "large config"),
            R"(variant.config: "large config" is not a config name (letters, digits and '_'))");
  EXPECT_EQ(readWith("/variant/id", "add_fp32.sm90a/../x"),
            R"(variant.id: "add_fp32.sm90a/../x" is not a variant id (letters, digits, '_', '.', '+' and '-', as in "add.sm90a.3f2a9c1e07d4"))");
  EXPECT_EQ(readWith("/variant/constexprs/BLOCK", json::array({1})),
            "variant.constexprs.BLOCK: expected a number, a bool, a string or null, got [1]");
  EXPECT_EQ(readWith("/target/spelling", "cuda:090a"),
            "target.spelling: CUDA architecture '090a' in target 'cuda:090a' is not valid; "
            "expected a compute capability such as 80, 90a or 100f");
  EXPECT_EQ(readWith("/triton_hash", "c6a3 */"),
            R"(triton_hash: expected lower-case hex digits, got "c6a3 */")");
  EXPECT_EQ(readWith("/images/0/file", "add.cubin\n"),
            R"(images[0].file: "add.cubin\n" holds a line break or another control character)");
}

TEST(MetadataTest, GridsParseAndNameOnlyParameters) {
  EXPECT_EQ(readWith("/grid/0", "cdiv(n_elements, BLOCK)"), "accepted");
  const std::string code = readWith("/grid/0", "n_elements\n#error X");
  EXPECT_EQ(code, R"(grid[0]: "n_elements\n#error X" holds a line break or another control character)");
  const std::string unknown = readWith("/grid/1", "cdiv(m, BLOCK)");
  EXPECT_EQ(unknown.rfind("grid: ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("'m'"), std::string::npos) << unknown;
  const std::string syntax = readWith("/grid/2", "n_elements; abort()");
  EXPECT_EQ(syntax.rfind("grid: ", 0), 0u) << syntax;
}

// Launch facts no device of the target could launch are refused where they are read.
TEST(MetadataTest, LaunchFactsWithinTheTarget) {
  EXPECT_EQ(readWith("/launch/shared", 10737418240ULL),
            "launch.shared: 10737418240 bytes are more shared memory than a device of cuda:90a "
            "gives a block (232448)");
  EXPECT_EQ(readWith("/launch/shared", 232448), "accepted");   // 227 KiB: the most sm_90 has
  EXPECT_EQ(readWith("/launch/global_scratch/size", 1ULL << 62),
            "launch.global_scratch.size: 4611686018427387904 bytes per program is more than any "
            "device of cuda:90a has (at most 1099511627776)");
  EXPECT_EQ(readWith("/launch/profile_scratch/align", 1ULL << 63),
            "launch.profile_scratch.align: 9223372036854775808 is more than any scratch needs (at "
            "most 4096)");
  KernelMetadata wide = cudaExample();
  wide.launch.numWarps = 64;
  wide.launch.block = {2048, 1, 1};
  EXPECT_EQ(readWith("/launch/pdl", true, wide),
            "launch.num_warps: 64 warps of 32 threads are more than a device of cuda:90a runs in "
            "a block (1024 threads)");
  EXPECT_EQ(readWith("/launch/num_ctas", 32),
            "launch.num_ctas: 32 CTAs per cluster are more than a device of cuda:90a launches (16)");
  EXPECT_EQ(readWith("/launch/cluster_dims", {4, 4, 2}),
            "launch.cluster_dims: 32 CTAs per cluster are more than a device of cuda:90a launches "
            "(16)");
  EXPECT_EQ(readWith("/launch/tmem_size", 128),
            "launch.tmem_size: 128 columns of tensor memory: cuda:90a has none (sm_100 and its "
            "family have 512)");
  EXPECT_EQ(readWith("/resources/static_shared", 200000),
            "resources.static_shared: with launch.shared, it needs 249664 bytes of shared memory, "
            "more than the 227 KiB a block has on sm_90a");

  // The same facts against another target: sm_80 has no clusters, no PDL, 163 KiB.
  KernelMetadata ampere = cudaExample();
  ampere.target = *parseTarget("cuda:80");
  ampere.imageArch = "sm_80";
  ampere.variant.id = "add_fp32.sm80.3f2a9c1e07d4";
  ampere.launch.numCtas = 1;
  ampere.launch.clusterDims = {1, 1, 1};
  ampere.launch.pdl = false;
  EXPECT_EQ(readWith("/launch/shared", 163 * 1024, ampere), "accepted");
  EXPECT_EQ(readWith("/launch/shared", 163 * 1024 + 1, ampere),
            "launch.shared: 166913 bytes are more shared memory than a device of cuda:80 gives a "
            "block (166912)");
  EXPECT_EQ(readWith("/launch/num_ctas", 2, ampere),
            "launch.num_ctas: 2 CTAs per cluster: cuda:80 has no thread block clusters (sm_90 or "
            "newer)");
  EXPECT_EQ(readWith("/launch/pdl", true, ampere),
            "launch.pdl: programmatic dependent launch needs sm_90 or newer, not cuda:80");
  // Tensor memory on Blackwell.
  KernelMetadata blackwell = cudaExample();
  blackwell.target = *parseTarget("cuda:100a");
  blackwell.imageArch = "sm_100a";
  blackwell.variant.id = "add_fp32.sm100a.3f2a9c1e07d4";
  EXPECT_EQ(readWith("/launch/tmem_size", 512, blackwell), "accepted");
  EXPECT_EQ(readWith("/launch/tmem_size", 513, blackwell),
            "launch.tmem_size: 513 columns of tensor memory: a device of cuda:100a has 512");
  // HIP: 64 KiB of LDS on gfx90a, 1024 threads a workgroup.
  EXPECT_EQ(readWith("/launch/shared", 65537, hipExample()),
            "launch.shared: 65537 bytes are more shared memory than a device of "
            "hip:gfx90a:xnack- gives a block (65536)");
}

TEST(RefusalRecordTest, RoundTripsAndChecksItsFields) {
  RefusalRecord record;
  record.generator = "triton-aot-cc 0.1.0";
  record.kernel = "matmul";
  record.function = "matmul_kernel";
  record.source = "kernels/matmul.py";
  record.sourceKind = "python";
  record.target = *parseTarget("cuda:80");
  record.variantId = "matmul.sm80.0123456789ab";
  record.config = "big";
  record.signature = "*fp16, *fp16, *fp16, i32";
  record.numWarps = 8;
  record.numStages = 4;
  record.options = {{"num_ctas", 1}};
  record.constexprs = {{"BLOCK_M", 256}};
  record.reason = "it needs 200000 bytes of shared memory, more than the 163 KiB a block has on sm_80";
  Expected<RefusalRecord> parsed = parseRefusal(toJson(record));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, record);

  auto message = [&](const char *pointer, const json &value) {
    json doc = toJson(record);
    doc[json::json_pointer(pointer)] = value;
    Expected<RefusalRecord> bad = parseRefusal(doc);
    return bad ? std::string("accepted") : bad.error().message;
  };
  EXPECT_EQ(message("/kernel/name", "matmul\n#error X"), R"(kernel.name: "matmul\n#error X")" + kNotAName);
  EXPECT_EQ(message("/variant/constexprs", {{"BLOCK M", 1}}),
            R"(variant.constexprs: "BLOCK M")" + kNotAName);
  EXPECT_EQ(message("/reason", "no\n#error X"),
            R"(reason: "no\n#error X" holds a line break or another control character)");
  EXPECT_EQ(message("/target/spelling", "cuda:sm_80").rfind("target.spelling: ", 0), 0u);
  EXPECT_EQ(message("/schema_version", 2),
            "schema_version 2 is newer than this tool supports (1); update triton-aot");
}

// --- The JSON Schema -----------------------------------------------------------------------

json readJsonFile(const std::string &path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

const std::string kDocsDir = std::string(TTA_TEST_DATA_DIR) + "/../../docs";

/// Checks \p value against the part of JSON Schema that says which fields exist and what
/// they hold (type, const, enum, pattern, required, properties, items, $ref), and reports
/// fields the schema does not describe. Enough to keep the schema and toJson() in step; the
/// integration tests validate with the full Python jsonschema.
void checkSchema(const json &root, const json &schemaIn, const json &value,
                 const std::string &path, std::vector<std::string> &problems) {
  const json *schema = &schemaIn;
  if (schema->contains("$ref"))
    schema = &root.at(json::json_pointer((*schema)["$ref"].get<std::string>().substr(1)));
  if (schema->contains("type")) {
    json types = (*schema)["type"].is_array() ? (*schema)["type"] : json::array({(*schema)["type"]});
    bool matches = false;
    for (const json &type : types) {
      matches |= (type == "object" && value.is_object()) || (type == "array" && value.is_array()) ||
                 (type == "string" && value.is_string()) || (type == "boolean" && value.is_boolean()) ||
                 (type == "integer" && value.is_number_integer()) ||
                 (type == "number" && value.is_number()) || (type == "null" && value.is_null());
    }
    if (!matches)
      problems.push_back(path + ": not of type " + types.dump());
  }
  if (schema->contains("const") && (*schema)["const"] != value)
    problems.push_back(path + ": not " + (*schema)["const"].dump());
  if (schema->contains("enum") && std::find((*schema)["enum"].begin(), (*schema)["enum"].end(),
                                            value) == (*schema)["enum"].end())
    problems.push_back(path + ": " + value.dump() + " not in " + (*schema)["enum"].dump());
  if (schema->contains("pattern") && value.is_string() &&
      !std::regex_search(value.get<std::string>(), std::regex((*schema)["pattern"].get<std::string>())))
    problems.push_back(path + ": " + value.dump() + " does not match " + (*schema)["pattern"].dump());
  if (value.is_object()) {
    for (const json &name : schema->value("required", json::array()))
      if (!value.contains(name.get<std::string>()))
        problems.push_back(path + ": required field " + name.dump() + " is not written");
    if (schema->contains("properties")) {
      for (const auto &[name, member] : value.items()) {
        if ((*schema)["properties"].contains(name))
          checkSchema(root, (*schema)["properties"][name], member, path + "/" + name, problems);
        else
          problems.push_back(path + "/" + name + ": written but not in the schema");
      }
    }
  }
  if (value.is_array() && schema->contains("items"))
    for (std::size_t i = 0; i < value.size(); ++i)
      checkSchema(root, (*schema)["items"], value[i], path + "/" + std::to_string(i), problems);
}

TEST(MetadataSchemaTest, IsValidJson) {
  json schema = readJsonFile(kDocsDir + "/metadata.schema.json");
  ASSERT_FALSE(schema.is_discarded()) << "docs/metadata.schema.json is not valid JSON";
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema["properties"]["schema"]["const"], kMetadataSchema);
  EXPECT_EQ(schema["properties"]["schema_version"]["const"], kMetadataSchemaVersion);
}

TEST(MetadataSchemaTest, DescribesWhatToJsonWrites) {
  json schema = readJsonFile(kDocsDir + "/metadata.schema.json");
  ASSERT_FALSE(schema.is_discarded());
  for (const KernelMetadata &meta :
       {cudaExample(), hipExample(), withHeuristicInput(cudaExample())}) {
    std::vector<std::string> problems;
    checkSchema(schema, schema, toJson(meta), "", problems);
    std::ostringstream all;
    for (const std::string &problem : problems)
      all << problem << '\n';
    EXPECT_TRUE(problems.empty()) << meta.target.arch << ":\n" << all.str();
  }
}

/// Collects the names of every property the schema declares.
void propertyNames(const json &schema, std::set<std::string> &names) {
  if (schema.is_object()) {
    if (schema.contains("properties") && schema["properties"].is_object())
      for (const auto &[name, member] : schema["properties"].items())
        names.insert(name);
    for (const auto &[key, member] : schema.items())
      propertyNames(member, names);
  } else if (schema.is_array()) {
    for (const json &member : schema)
      propertyNames(member, names);
  }
}

// docs/metadata.md shows tests/data/metadata/cuda_sm90a.json as its example.
TEST(MetadataSchemaTest, DocumentedExampleIsTheGoldenFile) {
  std::ifstream in(kDocsDir + "/metadata.md");
  ASSERT_TRUE(in);
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  begin += 8;
  std::size_t end = doc.find("```", begin);
  ASSERT_NE(end, std::string::npos);
  json shown = json::parse(doc.substr(begin, end - begin), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(shown.is_discarded()) << "the example in docs/metadata.md is not valid JSON";
  EXPECT_EQ(shown, readJsonFile(std::string(TTA_TEST_DATA_DIR) + "/metadata/cuda_sm90a.json"));
}

TEST(MetadataSchemaTest, EveryFieldIsDocumented) {
  json schema = readJsonFile(kDocsDir + "/metadata.schema.json");
  ASSERT_FALSE(schema.is_discarded());
  std::ifstream in(kDocsDir + "/metadata.md");
  ASSERT_TRUE(in);
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::set<std::string> names;
  propertyNames(schema, names);
  EXPECT_GT(names.size(), 40u);
  for (const std::string &name : names)
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name << " is not in docs/metadata.md";
}

} // namespace
} // namespace tta
