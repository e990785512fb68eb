// triton-aot-ld --inspect: the tables for a manifest, a metadata file and device images.
#include "link_fixture.h"
#include "linker/inspect.h"
#include "linker/manifest.h"

#include <gmock/gmock.h>

namespace tta::link::testing {
namespace {

using ::testing::HasSubstr;

class Inspect : public LinkFixture {};

TEST(FormatTable, AlignsColumnsAndTrimsTrailingBlanks) {
  std::string table = formatTable({"name", "size", "note"},
                                  {{"a", "1", ""}, {"longer", "12345", "x"}}, {false, true, false});
  EXPECT_EQ(table,
            "name     size  note\n"
            "a           1\n"
            "longer  12345  x\n");
}

TEST_F(Inspect, ManifestTablesEveryFunction) {
  std::vector<std::string> inputs;
  for (auto [xHint, nHint] : {std::pair{16, 16}, {0, 0}})
    inputs = concat(inputs, writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams(xHint, nHint)));
  KernelMetadata big = variant("big", "cuda:90a", defaultParams(), "large");
  big.launch.shared = 49664;
  inputs.push_back(write(big));
  auto lib = buildLibrary(options(inputs, "demo"));
  ASSERT_TRUE(lib) << formatDiagnostic(lib.error());
  auto blob = packImages(*lib, PackOptions{});
  ASSERT_TRUE(blob);
  writeFile(dir_ / "demo.json", manifestJson(*lib, *blob).dump(2));

  auto table = inspectFile(dir_ / "demo.json");
  ASSERT_TRUE(table) << table.error().message;
  const std::string cubin = std::to_string(readFile(dir_ / "sm80.cubin").size());
  const std::string cubin90 = std::to_string(readFile(dir_ / "sm90a.cubin").size());
  const std::string hsaco = std::to_string(readFile(dir_ / "gfx90a.hsaco").size());
  auto pad = [](std::string s, std::size_t width) { return std::string(width - s.size(), ' ') + s; };
  // Static shared memory from the images: 4 KiB (sm_80), 5 KiB (sm_90a adds 1 KiB), 1 KiB LDS.
  std::string expected =
      "library demo (prefix demo): 2 kernels, 2 configs, 5 functions, 3 targets; Triton 3.6.0\n"
      "kernel  config                 variant     target      regs  spills  shared  static  bytes\n"
      "scale   BLOCK=128,num_warps=4  x:16, n:16  cuda:80       10       0       0    4096  " + pad(cubin, 5) + "\n"
      "scale   BLOCK=128,num_warps=4  x:16, n:16  hip:gfx90a     4       0       0    1024  " + pad(hsaco, 5) + "\n"
      "scale   BLOCK=128,num_warps=4  no hints    cuda:80       10       0       0    4096  " + pad(cubin, 5) + "\n"
      "scale   BLOCK=128,num_warps=4  no hints    hip:gfx90a     4       0       0    1024  " + pad(hsaco, 5) + "\n"
      "big     large                  no hints    cuda:90a      10       0   49664    5120  " + pad(cubin90, 5) + "\n";
  EXPECT_EQ(*table, expected);

  // Compressed images add the stored size.
  auto packed = packImages(*lib, PackOptions{true, 19});
  ASSERT_TRUE(packed);
  writeFile(dir_ / "demo.json", manifestJson(*lib, *packed).dump(2));
  table = inspectFile(dir_ / "demo.json");
  ASSERT_TRUE(table);
  EXPECT_THAT(*table, HasSubstr("static  bytes  stored\n"));

  // The text the linker embeds as <prefix>_inventory(): the same table from the same JSON text.
  auto fromText = inspectManifestText(readFile(dir_ / "demo.json"));
  ASSERT_TRUE(fromText) << fromText.error().message;
  EXPECT_EQ(*fromText, *table);
}

TEST_F(Inspect, MetadataFile) {
  KernelMetadata m = variant("scale", "cuda:80", defaultParams(16, 0), "fast");
  m.launch.shared = 1024;
  auto table = inspectFile(write(m, "m.json"));
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_THAT(*table, HasSubstr("variant " + m.variant.id + " of kernel scale (Triton 3.6.0)\n"));
  EXPECT_THAT(*table, HasSubstr("kernel  config  signature           target   regs  spills  shared  static  bytes\n"));
  // A metadata file shows the figures the compiler recorded.
  EXPECT_THAT(*table, HasSubstr("scale   fast    *fp32:16, i32, 128  cuda:80    99       -    1024       -"));
}

TEST_F(Inspect, Images) {
  auto cubin = inspectFile(fs::path(TTA_TEST_DATA_DIR) / "images/kernels.sm_80.cubin");
  ASSERT_TRUE(cubin) << cubin.error().message;
  // Figures of tests/data/images/README.md (cuobjdump --dump-resource-usage).
  EXPECT_EQ(*cubin, "kernels.sm_80.cubin: cubin for sm_80, " +
                        std::to_string(fs::file_size(fs::path(TTA_TEST_DATA_DIR) / "images/kernels.sm_80.cubin")) +
                        " bytes, 2 kernels\n"
                        "kernel        arch   regs  sgprs  spills  static\n"
                        "local_array   sm_80    12      -    1024       0\n"
                        "scale_shared  sm_80    10      -       0    4096\n");
  auto hsaco = inspectFile(fs::path(TTA_TEST_DATA_DIR) / "images/kernels.gfx90a_sramecc-_xnack+.hsaco");
  ASSERT_TRUE(hsaco) << hsaco.error().message;
  EXPECT_THAT(*hsaco, HasSubstr("HSACO for gfx90a:sramecc-:xnack+"));
  EXPECT_THAT(*hsaco, HasSubstr("3 kernels"));
  EXPECT_THAT(*hsaco, ::testing::ContainsRegex("spill_vgprs +gfx90a:sramecc-:xnack\\+ +[0-9]+ +[0-9]+ +[0-9]+ +0\n"));
}

TEST_F(Inspect, Errors) {
  auto missing = inspectFile(dir_ / "none.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ExitCode::UsageError);
  EXPECT_THAT(missing.error().message, HasSubstr("cannot read"));
  auto host = inspectFile(fs::path(TTA_TEST_DATA_DIR) / "images/x86_64.o");
  ASSERT_FALSE(host);
  EXPECT_THAT(host.error().message, HasSubstr("neither EM_CUDA (190) nor EM_AMDGPU (224)"));
  EXPECT_THAT(host.error().message, HasSubstr("--inspect reads"));
  writeFile(dir_ / "bad.json", "{");
  EXPECT_THAT(inspectFile(dir_ / "bad.json").error().message, HasSubstr("not a JSON file"));
  writeFile(dir_ / "other.json", R"({"schema": "triton-aot-index", "schema_version": 1, "metadata": []})");
  EXPECT_THAT(inspectFile(dir_ / "other.json").error().message, HasSubstr("not a triton-aot library manifest"));
  // The same checks for manifest text (no file name to report).
  auto notJson = inspectManifestText("{");
  ASSERT_FALSE(notJson);
  EXPECT_EQ(notJson.error().code, ExitCode::UsageError);
  EXPECT_THAT(notJson.error().message, HasSubstr("not JSON"));
  auto notManifest = inspectManifestText(readFile(dir_ / "other.json"));
  ASSERT_FALSE(notManifest);
  EXPECT_THAT(notManifest.error().message, HasSubstr("not a triton-aot library manifest"));
}

} // namespace
} // namespace tta::link::testing
