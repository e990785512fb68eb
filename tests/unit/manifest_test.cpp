// The library manifest: what manifestJson() writes for a linked library, and that its one
// reader, parseLibraryManifest() (contract/library_manifest.h), reads the same figures back and
// refuses what no linker writes.
#include "link_fixture.h"
#include "linker/manifest.h"

#include <gmock/gmock.h>

namespace tta::link::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using nlohmann::json;

class ManifestTest : public LinkFixture {
protected:
  /// scale: two configs (one named), hint variants x:16/n:16, n:1 and generic, three targets.
  Library library() {
    std::vector<std::string> inputs;
    for (auto [xHint, nHint] : {std::pair{0, 0}, {16, 16}, {0, 1}}) {
      auto params = defaultParams(xHint, nHint);
      params.push_back(constant("SCALE", 0.5));
      params.push_back(scalar("stride"));
      inputs = concat(inputs, writeAll("scale", {"cuda:80", "cuda:90a", "hip:gfx90a"}, params, "fast"));
      params[2] = constant("BLOCK", 64);
      params[3] = constant("SCALE", -0.25);
      params[4] = one("stride");
      inputs = concat(inputs, writeAll("scale", {"cuda:80", "cuda:90a", "hip:gfx90a"}, params));
    }
    // "stride" is ":1" in the second config only, so it stays a C parameter.
    LinkOptions o = options(inputs, "demo");
    o.prefix = "dm";
    auto lib = buildLibrary(o);
    EXPECT_TRUE(lib) << (lib ? "" : formatDiagnostic(lib.error()));
    return lib ? std::move(*lib) : Library{};
  }
};

TEST_F(ManifestTest, DescribesEveryKernelConfigVariantAndTarget) {
  std::vector<std::string> inputs;
  for (auto [xHint, nHint] : {std::pair{0, 0}, {16, 16}, {0, 1}})
    inputs = concat(inputs, writeAll("scale", {"cuda:80", "cuda:90a", "hip:gfx90a"},
                                     defaultParams(xHint, nHint), "fast"));
  LinkOptions o = options(inputs, "demo");
  o.prefix = "dm";
  auto lib = buildLibrary(o);
  ASSERT_TRUE(lib) << formatDiagnostic(lib.error());
  auto blob = packImages(*lib, PackOptions{true, 3});
  ASSERT_TRUE(blob);
  json m = manifestJson(*lib, *blob);

  EXPECT_EQ(m["schema"], "triton-aot-library");
  EXPECT_EQ(m["schema_version"], 1);
  EXPECT_EQ(m["generator"], "triton-aot-ld 0.1.0");
  EXPECT_EQ(m["name"], "demo");
  EXPECT_EQ(m["prefix"], "dm");
  EXPECT_EQ(m["triton_versions"], json({"3.6.0"}));
  ASSERT_EQ(m["kernels"].size(), 1u);
  const json &k = m["kernels"][0];
  EXPECT_EQ(k["name"], "scale");
  EXPECT_EQ(k["function"], "scale_fn");
  EXPECT_EQ(k["source"], "kernels/scale.py");
  EXPECT_EQ(k["params"], json::parse(R"([
    {"name": "x", "kind": "pointer", "type": "*fp32", "c_type": "const void *", "c_name": "x",
     "size": 8},
    {"name": "n", "kind": "scalar", "type": "i32", "c_type": "int32_t", "c_name": "n",
     "size": 4}])"));
  EXPECT_EQ(k["constexpr_params"], json({"BLOCK"}));
  EXPECT_EQ(k["specialized_to_one_params"], json::array());
  EXPECT_EQ(k["grid"], json({"cdiv(n, BLOCK)", "1", "1"}));
  EXPECT_EQ(k["targets"], json({"cuda:80", "cuda:90a", "hip:gfx90a"}));
  ASSERT_EQ(k["configs"].size(), 1u);
  const json &c = k["configs"][0];
  EXPECT_EQ(c["index"], 0);
  EXPECT_EQ(c["name"], "fast");
  EXPECT_EQ(c["named"], true);
  EXPECT_EQ(c["constexprs"], json({{"BLOCK", 128}}));
  EXPECT_EQ(c["num_warps"], 4);
  ASSERT_EQ(c["variants"].size(), 3u);
  EXPECT_EQ(c["variants"][0]["hints"], json({{"x", 16}, {"n", 16}}));
  EXPECT_EQ(c["variants"][0]["condition"], "((uintptr_t)x % 16 == 0) && (n % 16 == 0)");
  EXPECT_EQ(c["variants"][1]["hints"], json({{"n", 1}}));
  EXPECT_EQ(c["variants"][1]["condition"], "(n == 1)");
  EXPECT_EQ(c["variants"][2]["hints"], json::object());
  EXPECT_EQ(c["variants"][2]["condition"], "1");

  const json &f = c["variants"][0]["functions"][0];
  EXPECT_EQ(f["target"], "cuda:80");
  EXPECT_EQ(f["entry"], "scale_shared");
  EXPECT_EQ(f["triton_version"], "3.6.0");
  EXPECT_EQ(f["variant_id"], lib->kernels[0].configs[0].variants[0].functions[0].variantId);
  EXPECT_EQ(f["launch"]["block"], json({128, 1, 1}));
  EXPECT_EQ(f["launch"]["cluster_dims"], json({1, 1, 1}));
  EXPECT_EQ(f["launch"]["global_scratch"], json({{"size", 0}, {"align", 1}}));
  EXPECT_EQ(f["launch"]["pdl"], false);
  EXPECT_EQ(f["resources"]["registers"], 10);
  EXPECT_EQ(f["resources"]["static_shared"], 4096);
  EXPECT_EQ(f["resources"]["sgprs"], nullptr);
  EXPECT_EQ(f["image"]["kind"], "cubin");
  EXPECT_EQ(f["image"]["raw_size"], readFile(dir_ / "sm80.cubin").size());
  EXPECT_EQ(f["image"]["compressed"], true);   // a cubin compresses well
  EXPECT_LT(f["image"]["stored_size"].get<std::uint64_t>(), f["image"]["raw_size"].get<std::uint64_t>());
  EXPECT_EQ(f["image"]["sha256"], sha256Hex(readFile(dir_ / "sm80.cubin")));
  EXPECT_EQ(f["ptx"]["kind"], "ptx");
  EXPECT_EQ(f["ptx"]["raw_size"], readFile(dir_ / "kernels.ptx").size() + 1);   // with its NUL
  const json &hip = c["variants"][0]["functions"][2];
  EXPECT_EQ(hip["target"], "hip:gfx90a");
  EXPECT_EQ(hip["ptx"], nullptr);
  EXPECT_EQ(hip["launch"]["block"], json({256, 1, 1}));   // 4 warps of 64
  EXPECT_EQ(hip["resources"]["sgprs"], 12);
}

TEST_F(ManifestTest, ReadsBackWhatItWrote) {
  Library lib = library();
  ASSERT_EQ(lib.kernels.size(), 1u);
  auto blob = packImages(lib, PackOptions{});
  ASSERT_TRUE(blob);
  auto parsed = parseLibraryManifest(json::parse(manifestJson(lib, *blob).dump()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->name, "demo");
  EXPECT_EQ(parsed->prefix, "dm");
  EXPECT_EQ(parsed->generator, "triton-aot-ld 0.1.0");
  EXPECT_THAT(parsed->tritonVersions, ElementsAre("3.6.0"));
  const Kernel &k = lib.kernels[0];
  const ManifestKernel &mk = parsed->kernels.at(0);
  EXPECT_EQ(mk.name, "scale");
  std::vector<std::string> params;
  for (const ManifestParam &p : mk.params)
    params.push_back(p.name);
  EXPECT_THAT(params, ElementsAre("x", "n", "stride"));
  EXPECT_EQ(mk.params[0].cName, "x");
  EXPECT_EQ(mk.params[0].cType, "const void *");
  EXPECT_EQ(mk.grid, (std::array<std::string, 3>{"cdiv(n, BLOCK)", "1", "1"}));
  EXPECT_THAT(mk.targets, ElementsAre("cuda:80", "cuda:90a", "hip:gfx90a"));
  ASSERT_EQ(mk.configs.size(), k.configs.size());
  EXPECT_EQ(mk.configs[0].name, "fast");
  EXPECT_EQ(mk.configs[1].name, "BLOCK=64,SCALE=-0.25,num_warps=4");   // no '-' or '.' trouble
  EXPECT_FALSE(mk.configs[1].named);
  for (std::size_t c = 0; c < k.configs.size(); ++c)
    for (std::size_t v = 0; v < k.configs[c].variants.size(); ++v) {
      const HintVariant &hv = k.configs[c].variants[v];
      const ManifestVariant &mv = mk.configs[c].variants.at(v);
      EXPECT_EQ(mv.condition, hintCondition(k, hv));
      for (std::size_t t = 0; t < k.targets.size(); ++t) {
        const Function &f = hv.functions[t];
        const ManifestFunction &mf = mv.functions.at(t);
        EXPECT_EQ(mf.target, k.targets[t].spelling());
        EXPECT_EQ(mf.variantId, f.variantId);
        EXPECT_EQ(mf.entry, f.entry);
        EXPECT_EQ(mf.launch, f.launch);
        EXPECT_EQ(mf.resources, f.resources);
        EXPECT_EQ(mf.image.rawSize, lib.images[f.binary].bytes.size());
        EXPECT_EQ(mf.image.storedSize, mf.image.rawSize);
        EXPECT_FALSE(mf.image.compressed);
        EXPECT_EQ(mf.image.sha256, lib.images[f.binary].sha256);
        EXPECT_EQ(mf.ptx.has_value(), f.ptx.has_value());
      }
    }
  using Hints = std::vector<std::pair<std::string, int>>;
  EXPECT_EQ(mk.configs[1].variants[0].hints, (Hints{{"x", 16}, {"n", 16}, {"stride", 1}}));
  EXPECT_EQ(mk.configs[1].variants.back().hints, (Hints{{"stride", 1}}));
  EXPECT_EQ(mk.configs[0].variants.back().hints, Hints{});
}

TEST_F(ManifestTest, ConditionsUseCNamesAndPointerCasts) {
  Kernel k;
  k.cParams = {{"ptr", "ptr", "*fp16", "const void *", 8, 0},
               {"default", "default_", "i64", "int64_t", 8, 1},
               {"m", "m", "i32", "int32_t", 4, 2}};
  HintVariant v;
  v.hints = {16, 16, 1};
  EXPECT_EQ(hintCondition(k, v), "((uintptr_t)ptr % 16 == 0) && (default_ % 16 == 0) && (m == 1)");
  v.hints = {0, 0, 0};
  EXPECT_EQ(hintCondition(k, v), "1");
}

TEST_F(ManifestTest, RejectsWhatItCannotRead) {
  EXPECT_THAT(parseLibraryManifest(json{{"schema", "triton-aot-kernel"}}).error().message,
              HasSubstr("not a triton-aot library manifest"));
  EXPECT_THAT(parseLibraryManifest(json{{"schema", "triton-aot-library"}, {"schema_version", 2}})
                  .error()
                  .message,
              HasSubstr("schema_version 2 is newer than this tool supports (1); update triton-aot"));
  Library lib = library();
  const json written = manifestJson(lib, ImageBlob{});
  auto message = [&](const char *pointer, const json &value) {
    json m = written;
    json::json_pointer at(pointer);
    if (value.is_discarded())
      m[at.parent_pointer()].erase(at.back());
    else
      m[at] = value;
    auto parsed = parseLibraryManifest(m);
    return parsed ? std::string("accepted") : parsed.error().message;
  };
  const json removed(json::value_t::discarded);
  EXPECT_EQ(message("/kernels/0/configs/1/name", 5),
            "kernels[0].configs[1].name: expected a string, got 5");
  EXPECT_EQ(message("/kernels/0/configs/0/variants/0/functions/1/launch/shared", removed),
            "kernels[0].configs[0].variants[0].functions[1].launch.shared: missing required field");
  EXPECT_EQ(message("/kernels/0/configs/0/variants/0/functions/0/resources/spills", -1),
            "kernels[0].configs[0].variants[0].functions[0].resources.spills: expected an integer "
            ">= 0, got -1");
  // Names that the tools put into C or match against C names are C identifiers.
  EXPECT_EQ(message("/kernels/0/name", "scale\n#error X"),
            R"(kernels[0].name: "scale\n#error X" is not a C identifier (ASCII letters, digits and '_', not starting with a digit), so it cannot be a name in generated C)");
  EXPECT_EQ(message("/kernels/0/params/1/c_name", "n; x"),
            R"(kernels[0].params[1].c_name: "n; x" is not a C identifier (ASCII letters, digits and '_', not starting with a digit), so it cannot be a name in generated C)");
  EXPECT_EQ(message("/prefix", "dm-"),
            R"(prefix: "dm-" is not a C identifier (ASCII letters, digits and '_', not starting with a digit), so it cannot be a name in generated C)");
  // What a kernel writes: a pointer's or descriptor's fact only (the torch ops' mutation marks).
  EXPECT_EQ(message("/kernels/0/params/0/written", true), "accepted");
  EXPECT_EQ(message("/kernels/0/params/1/written", true),
            "kernels[0].params[1].written: only a pointer or tensordesc parameter is written; a "
            "scalar parameter has no 'written'");
  // Launch facts within the function's target; targets in order.
  EXPECT_EQ(message("/kernels/0/configs/0/variants/0/functions/0/launch/shared", 10737418240ULL),
            "kernels[0].configs[0].variants[0].functions[0].launch.shared: 10737418240 bytes are "
            "more shared memory than a device of cuda:80 gives a block (166912)");
  EXPECT_EQ(message("/kernels/0/configs/0/variants/0/functions/0/target", "cuda:90a"),
            "kernels[0].configs[0].variants[0].functions[0].target: expected \"cuda:80\" (the "
            "kernel's targets, in order), got \"cuda:90a\"");
  EXPECT_EQ(message("/kernels/0/configs/1/index", 0),
            "kernels[0].configs[1].index: expected 1 (its place in the list)");
  EXPECT_EQ(message("/kernels/0/configs/0/variants/0/hints", {{"y", 16}}),
            "kernels[0].configs[0].variants[0].hints: \"y\" is not a C parameter of kernel 'scale'");
}

} // namespace
} // namespace tta::link::testing
