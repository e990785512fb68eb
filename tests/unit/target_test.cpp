#include "contract/target.h"

#include "parse_expect.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

Target parsed(std::string_view text) { return expectParsed(parseTarget(text), text); }

std::string errorOf(std::string_view text) {
  return expectUsageError(parseTarget(text), text).message;
}

TEST(TargetTest, ParsesCudaArchitectures) {
  Target t = parsed("cuda:80");
  EXPECT_EQ(t.backend, Backend::Cuda);
  EXPECT_EQ(t.arch, "80");
  EXPECT_EQ(t.capability, 80);
  EXPECT_EQ(t.archSuffix, 0);
  EXPECT_EQ(t.processor, "");
  EXPECT_EQ(t.warpSize, 32);

  t = parsed("cuda:90a");
  EXPECT_EQ(t.arch, "90a");
  EXPECT_EQ(t.capability, 90);
  EXPECT_EQ(t.archSuffix, 'a');

  t = parsed("cuda:100f");
  EXPECT_EQ(t.arch, "100f");
  EXPECT_EQ(t.capability, 100);
  EXPECT_EQ(t.archSuffix, 'f');

  t = parsed("cuda:120a");
  EXPECT_EQ(t.capability, 120);
  EXPECT_EQ(t.archSuffix, 'a');

  EXPECT_EQ(parsed("cuda:75").capability, 75);
  EXPECT_EQ(parsed("cuda:103f").arch, "103f");
}

TEST(TargetTest, AcceptsUpstreamWarpSizeFieldForCuda) {
  EXPECT_EQ(parsed("cuda:80:32"), parsed("cuda:80"));
  EXPECT_EQ(parsed("cuda:90:32").spelling(), "cuda:90");
  EXPECT_EQ(parsed("cuda:90a:32"), parsed("cuda:90a"));
}

TEST(TargetTest, ToleratesWhitespace) {
  EXPECT_EQ(parsed("  cuda:90a\t"), parsed("cuda:90a"));
  EXPECT_EQ(parsed("cuda : 80 : 32"), parsed("cuda:80"));
  EXPECT_EQ(parsed(" hip:gfx90a: xnack- "), parsed("hip:gfx90a:xnack-"));
}

TEST(TargetTest, RejectsCudaWarpSizeOtherThan32) {
  EXPECT_EQ(errorOf("cuda:80:64"),
            "warp size 64 is not valid for CUDA targets; CUDA warps have 32 threads");
  EXPECT_EQ(errorOf("cuda:90a:16"),
            "warp size 16 is not valid for CUDA targets; CUDA warps have 32 threads");
  EXPECT_EQ(errorOf("cuda:80:abc"),
            "unexpected field 'abc' in target 'cuda:80:abc'; expected a warp size (32) or nothing");
  EXPECT_EQ(errorOf("cuda:80:32:1"),
            "target 'cuda:80:32:1' has too many fields; expected cuda:<arch> or cuda:<arch>:32");
}

TEST(TargetTest, RejectsBadCudaArchitectures) {
  for (std::string_view arch : {"8", "080", "1000", "90b", "sm_90a", "sm90", "90A", "9.0", "x"})
    EXPECT_EQ(errorOf("cuda:" + std::string(arch)),
              "CUDA architecture '" + std::string(arch) + "' in target 'cuda:" + std::string(arch) +
                  "' is not valid; expected a compute capability such as 80, 90a or 100f");
  EXPECT_EQ(errorOf("cuda:80a"),
            "CUDA architecture '80a' is not valid; arch-specific ('a') targets start at 90 "
            "(cuda:90a)");
  EXPECT_EQ(errorOf("cuda:90f"),
            "CUDA architecture '90f' is not valid; family ('f') targets start at 100 (cuda:100f)");
}

TEST(TargetTest, RejectsMissingOrUnknownParts) {
  const std::string expected =
      "expected cuda:<arch> (such as cuda:90a) or hip:<processor> (such as hip:gfx942)";
  EXPECT_EQ(errorOf(""), "empty target; " + expected);
  EXPECT_EQ(errorOf("   "), "empty target; " + expected);
  EXPECT_EQ(errorOf("cuda"), "target 'cuda' has no architecture; " + expected);
  EXPECT_EQ(errorOf("cuda:"), "target 'cuda:' has no architecture; " + expected);
  EXPECT_EQ(errorOf("hip"), "target 'hip' has no architecture; " + expected);
  EXPECT_EQ(errorOf("hip:gfx942::64"), "target 'hip:gfx942::64' has an empty field; " + expected);
  EXPECT_EQ(errorOf("rocm:gfx942"),
            "unknown backend 'rocm' in target 'rocm:gfx942'; expected cuda or hip");
  EXPECT_EQ(errorOf("CUDA:80"),
            "unknown backend 'CUDA' in target 'CUDA:80'; expected cuda or hip (did you mean "
            "'cuda'?)");
  EXPECT_EQ(errorOf("gfx942"), "unknown backend 'gfx942' in target 'gfx942'; expected cuda or hip");
}

TEST(TargetTest, ParsesHipProcessorsAndDerivesWarpSize) {
  Target t = parsed("hip:gfx942");
  EXPECT_EQ(t.backend, Backend::Hip);
  EXPECT_EQ(t.arch, "gfx942");
  EXPECT_EQ(t.processor, "gfx942");
  EXPECT_EQ(t.capability, 0);
  EXPECT_EQ(t.xnack, 0);
  EXPECT_EQ(t.sramecc, 0);
  EXPECT_EQ(t.warpSize, 64);

  EXPECT_EQ(parsed("hip:gfx90a").warpSize, 64);
  EXPECT_EQ(parsed("hip:gfx950").warpSize, 64);
  EXPECT_EQ(parsed("hip:gfx908").warpSize, 64);
  EXPECT_EQ(parsed("hip:gfx1030").warpSize, 32);
  EXPECT_EQ(parsed("hip:gfx1100").warpSize, 32);
  EXPECT_EQ(parsed("hip:gfx1201").warpSize, 32);
}

TEST(TargetTest, AcceptsUpstreamWarpSizeFieldForHip) {
  EXPECT_EQ(parsed("hip:gfx942:64"), parsed("hip:gfx942"));
  EXPECT_EQ(parsed("hip:gfx1100:32"), parsed("hip:gfx1100"));
  EXPECT_EQ(parsed("hip:gfx90a:64:xnack-"), parsed("hip:gfx90a:xnack-"));
}

TEST(TargetTest, RejectsHipWarpSizeThatDiffersFromTheProcessor) {
  EXPECT_EQ(errorOf("hip:gfx942:32"),
            "warp size 32 is not valid for gfx942; Triton compiles gfx942 with 64-thread "
            "wavefronts");
  EXPECT_EQ(errorOf("hip:gfx1100:64"),
            "warp size 64 is not valid for gfx1100; Triton compiles gfx1100 with 32-thread "
            "wavefronts");
  EXPECT_EQ(errorOf("hip:gfx942:64:64"),
            "target 'hip:gfx942:64:64' gives a warp size twice; expected at most one");
  EXPECT_EQ(errorOf("hip:gfx942:6x"), "warp size '6x' in target 'hip:gfx942:6x' is not a number");
}

TEST(TargetTest, ParsesHipFeaturesInCanonicalOrder) {
  Target t = parsed("hip:gfx90a:xnack-");
  EXPECT_EQ(t.arch, "gfx90a:xnack-");
  EXPECT_EQ(t.processor, "gfx90a");
  EXPECT_EQ(t.xnack, '-');
  EXPECT_EQ(t.sramecc, 0);

  t = parsed("hip:gfx90a:xnack+:sramecc-");
  EXPECT_EQ(t.arch, "gfx90a:sramecc-:xnack+"); // LLVM's target-ID order: alphabetical
  EXPECT_EQ(t.xnack, '+');
  EXPECT_EQ(t.sramecc, '-');
  EXPECT_EQ(t, parsed("hip:gfx90a:sramecc-:xnack+"));

  EXPECT_EQ(parsed("hip:gfx942:sramecc+").arch, "gfx942:sramecc+");
}

TEST(TargetTest, RejectsBadHipFields) {
  EXPECT_EQ(errorOf("hip:gfx90a:xnack-:xnack+"),
            "feature xnack is given twice in target 'hip:gfx90a:xnack-:xnack+'; expected it at "
            "most once");
  EXPECT_EQ(errorOf("hip:gfx90a:xnack"),
            "feature 'xnack' in target 'hip:gfx90a:xnack' needs a setting; expected xnack+ or "
            "xnack-");
  EXPECT_EQ(errorOf("hip:gfx90a:sramecc"),
            "feature 'sramecc' in target 'hip:gfx90a:sramecc' needs a setting; expected sramecc+ "
            "or sramecc-");
  EXPECT_EQ(errorOf("hip:gfx90a:foo"),
            "unexpected field 'foo' in target 'hip:gfx90a:foo'; expected xnack+, xnack-, "
            "sramecc+, sramecc- or a warp size");
  EXPECT_EQ(errorOf("hip:gfx90a:xnack*"),
            "unexpected field 'xnack*' in target 'hip:gfx90a:xnack*'; expected xnack+, xnack-, "
            "sramecc+, sramecc- or a warp size");
  for (std::string_view processor : {"gfx94", "gfx9-generic", "sm_90", "GFX942", "gfx94g", "942"})
    EXPECT_EQ(errorOf("hip:" + std::string(processor)),
              "HIP processor '" + std::string(processor) +
                  "' in target 'hip:" + std::string(processor) +
                  "' is not valid; expected gfx<version> such as gfx90a, gfx942 or gfx1100");
}

TEST(TargetTest, SpellingRoundTrips) {
  for (std::string_view text :
       {"cuda:80", "cuda:90a", "cuda:100f", "cuda:120a", "cuda:80:32", "hip:gfx942",
        "hip:gfx90a:xnack-", "hip:gfx90a:xnack+:sramecc-", "hip:gfx1100:32", "hip:gfx942:64"}) {
    Target t = parsed(text);
    EXPECT_EQ(parsed(t.spelling()), t) << text;
    EXPECT_EQ(parsed(t.spelling()).spelling(), t.spelling()) << text;
  }
  EXPECT_EQ(parsed("cuda:90a").spelling(), "cuda:90a");
  EXPECT_EQ(parsed("hip:gfx90a:xnack+:sramecc-").spelling(), "hip:gfx90a:sramecc-:xnack+");
}

TEST(TargetTest, FileTagsAreFileNameSafeAndDistinct) {
  EXPECT_EQ(parsed("cuda:80").fileTag(), "sm80");
  EXPECT_EQ(parsed("cuda:90a").fileTag(), "sm90a");
  EXPECT_EQ(parsed("cuda:100f").fileTag(), "sm100f");
  EXPECT_EQ(parsed("hip:gfx942").fileTag(), "gfx942");
  EXPECT_EQ(parsed("hip:gfx90a:xnack-").fileTag(), "gfx90a_xnack-");
  EXPECT_EQ(parsed("hip:gfx90a:xnack-:sramecc-").fileTag(), "gfx90a_sramecc-_xnack-");
  EXPECT_NE(parsed("hip:gfx90a:xnack-").fileTag(), parsed("hip:gfx90a:xnack+").fileTag());
  for (std::string_view text : {"cuda:100f", "hip:gfx90a:sramecc+:xnack-"})
    for (char c : parsed(text).fileTag())
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-')
          << text;
}

TEST(TargetTest, BackendNames) {
  EXPECT_STREQ(backendName(Backend::Cuda), "cuda");
  EXPECT_STREQ(backendName(Backend::Hip), "hip");
}

} // namespace
} // namespace tta
