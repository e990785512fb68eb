#include "compiler/naming.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

Signature sig(const char *text) { return *parseSignature(text); }
Config cfg(const char *text) { return *parseConfig(text); }
Target tgt(const char *text) { return *parseTarget(text); }

TEST(Naming, DigestIsStableAndCoversEveryVariantField) {
  std::string base = variantDigest("add", "python", sig("*fp32:16, i32, 1024"), cfg("num_warps=4"));
  EXPECT_EQ(base.size(), 12u);
  EXPECT_EQ(base, variantDigest("add", "python", sig("*fp32:16,i32,1024"), cfg("num_warps=4")));
  EXPECT_NE(base, variantDigest("add2", "python", sig("*fp32:16, i32, 1024"), cfg("num_warps=4")));
  EXPECT_NE(base, variantDigest("add", "python", sig("*fp32, i32, 1024"), cfg("num_warps=4")));
  EXPECT_NE(base, variantDigest("add", "python", sig("*fp32:16, i32:1, 1024"), cfg("num_warps=4")));
  EXPECT_NE(base, variantDigest("add", "python", sig("*fp32:16, i32, 512"), cfg("num_warps=4")));
  EXPECT_NE(base, variantDigest("add", "python", sig("*fp32:16, i32, 1024"), cfg("num_warps=8")));
}

TEST(Naming, TargetsNeverCollide) {
  std::string digest = "0123456789ab";
  auto sm80 = outputPaths("out/add", tgt("cuda:80"), digest);
  auto sm90a = outputPaths("out/add", tgt("cuda:90a"), digest);
  auto gfx = outputPaths("out/add", tgt("hip:gfx942"), digest);
  EXPECT_EQ(sm80.image, "out/add.sm80.0123456789ab.cubin");
  EXPECT_EQ(sm80.ptx, "out/add.sm80.0123456789ab.ptx");
  EXPECT_EQ(sm80.metadata, "out/add.sm80.0123456789ab.json");
  EXPECT_EQ(sm90a.image, "out/add.sm90a.0123456789ab.cubin");
  EXPECT_EQ(gfx.image, "out/add.gfx942.0123456789ab.hsaco");
  EXPECT_TRUE(gfx.ptx.empty());
  EXPECT_EQ(variantId("add", tgt("hip:gfx942"), digest), "add.gfx942.0123456789ab");
}

TEST(Naming, FloatAndNegativeConstexprsGiveSafeNames) {
  // Upstream pastes constexpr values into C identifiers ("0.5" breaks gcc); ours are digests.
  std::string a = variantDigest("k", "python", sig("*fp32, 0.5, -1"), cfg(""));
  for (char c : a)
    EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(c)));
  EXPECT_NE(a, variantDigest("k", "python", sig("*fp32, 0.5, 1"), cfg("")));
}

} // namespace
} // namespace tta
