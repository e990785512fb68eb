// Image choice of the runtime shim (runtime-shim/src/image_choice.c): which target and image
// kind of a kernel runs on a device, the NO_IMAGE message, HIP target-ID parsing.
#include "image_choice.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kNone = TRITON_AOT_NO_IMAGE;

/// Builds the tables of a one-kernel library the way triton-aot-ld lays them out.
class LibraryBuilder {
public:
  /// A CUDA target "sm_<capability>[a]"; `cubin`/`ptx`: which images every variant has.
  LibraryBuilder &cuda(uint32_t capability, bool archSpecific, bool cubin, bool ptx) {
    names_.push_back("sm_" + std::to_string(capability) + (archSpecific ? "a" : ""));
    triton_aot_target target{};
    target.backend = TRITON_AOT_BACKEND_CUDA;
    target.capability = capability;
    target.arch_specific = archSpecific ? 1u : 0u;
    target.xnack = target.sramecc = -1;
    targets_.push_back(target);
    kinds_.push_back({cubin, ptx, static_cast<uint32_t>(TRITON_AOT_IMAGE_CUBIN)});
    return *this;
  }

  /// A HIP target "gfxNNN[:sramecc±][:xnack±]".
  LibraryBuilder &hip(const char *processor, int8_t sramecc, int8_t xnack) {
    std::string name = processor;
    if (sramecc >= 0)
      name += sramecc ? ":sramecc+" : ":sramecc-";
    if (xnack >= 0)
      name += xnack ? ":xnack+" : ":xnack-";
    names_.push_back(name);
    processors_.push_back(processor);
    triton_aot_target target{};
    target.backend = TRITON_AOT_BACKEND_HIP;
    target.xnack = xnack;
    target.sramecc = sramecc;
    targets_.push_back(target);
    kinds_.push_back({true, false, static_cast<uint32_t>(TRITON_AOT_IMAGE_HSACO)});
    return *this;
  }

  LibraryBuilder &variants(uint32_t count) {
    variantCount_ = count;
    return *this;
  }

  /// Variant `variant` of target position `target` lacks its PTX (or its binary).
  LibraryBuilder &withoutPtx(uint32_t variant, uint32_t target) {
    missingPtx_.push_back({variant, target});
    return *this;
  }
  LibraryBuilder &withoutBinary(uint32_t variant, uint32_t target) {
    missingBinary_.push_back({variant, target});
    return *this;
  }

  /// Lays the tables out once; later calls return the same library.
  const triton_aot_library &build() {
    if (built_)
      return library_;
    built_ = true;
    size_t hipIndex = 0;
    for (size_t t = 0; t < targets_.size(); ++t) {
      targets_[t].name = names_[t].c_str();
      if (targets_[t].backend == TRITON_AOT_BACKEND_HIP)
        targets_[t].processor = processors_[hipIndex++].c_str();
      targetIndices_.push_back(static_cast<uint32_t>(t));
    }
    for (uint32_t v = 0; v < variantCount_; ++v) {
      for (size_t t = 0; t < targets_.size(); ++t) {
        triton_aot_function function{};
        function.entry = 0; // "kernel" in library_.strings
        function.binary = kinds_[t].binary ? addImage(kinds_[t].binaryKind) : kNone;
        function.ptx = kinds_[t].ptx ? addImage(TRITON_AOT_IMAGE_PTX) : kNone;
        for (const auto &m : missingPtx_)
          if (m.variant == v && m.target == t)
            function.ptx = kNone;
        for (const auto &m : missingBinary_)
          if (m.variant == v && m.target == t)
            function.binary = kNone;
        functions_.push_back(function);
      }
    }
    kernel_ = {};
    kernel_.name = "mylib_add";
    kernel_.target_count = static_cast<uint32_t>(targets_.size());
    kernel_.targets = targetIndices_.data();
    kernel_.variant_count = variantCount_;
    kernel_.functions = functions_.data();
    library_ = {};
    library_.name = "mylib";
    library_.prefix = "mylib";
    library_.strings = "kernel";
    library_.target_count = static_cast<uint32_t>(targets_.size());
    library_.targets = targets_.data();
    library_.image_count = static_cast<uint32_t>(images_.size());
    library_.images = images_.data();
    library_.kernel_count = 1;
    library_.kernels = &kernel_;
    library_.slot_count = variantCount_;
    library_.state = &state_;
    return library_;
  }

  const triton_aot_kernel &kernel() const { return kernel_; }

private:
  struct Kinds {
    bool binary, ptx;
    uint32_t binaryKind;
  };
  struct Missing {
    uint32_t variant, target;
  };

  uint32_t addImage(uint32_t kind) {
    triton_aot_image image{};
    image.kind = kind;
    images_.push_back(image);
    return static_cast<uint32_t>(images_.size() - 1);
  }

  std::deque<std::string> names_, processors_;
  std::vector<triton_aot_target> targets_;
  std::vector<Kinds> kinds_;
  std::vector<uint32_t> targetIndices_;
  std::vector<triton_aot_image> images_;
  std::vector<triton_aot_function> functions_;
  std::vector<Missing> missingPtx_, missingBinary_;
  uint32_t variantCount_ = 1;
  bool built_ = false;
  triton_aot_kernel kernel_{};
  triton_aot_library library_{};
  void *state_ = nullptr;
};

tta_device_arch cudaDevice(uint32_t capability) {
  tta_device_arch device{};
  device.backend = TRITON_AOT_BACKEND_CUDA;
  device.capability = capability;
  device.xnack = device.sramecc = -1;
  tta_cuda_arch_name(capability, device.arch, sizeof device.arch);
  return device;
}

tta_device_arch hipDevice(const char *targetId) {
  tta_device_arch device{};
  device.backend = TRITON_AOT_BACKEND_HIP;
  EXPECT_EQ(tta_parse_target_id(targetId, &device), 1) << targetId;
  return device;
}

/// "sm_90a cubin (exact)", "sm_80 ptx (ptx)", or "none".
std::string choose(LibraryBuilder &builder, const tta_device_arch &device) {
  const triton_aot_library &library = builder.build();
  tta_image_choice choice{};
  int found = tta_choose_image(&library, &builder.kernel(), &device, &choice);
  if (!found) {
    EXPECT_EQ(choice.reason, TTA_CHOICE_NONE);
    return "none";
  }
  const char *kind = choice.kind == TRITON_AOT_IMAGE_CUBIN   ? "cubin"
                     : choice.kind == TRITON_AOT_IMAGE_PTX   ? "ptx"
                     : choice.kind == TRITON_AOT_IMAGE_HSACO ? "hsaco"
                                                             : "?";
  const char *reason = choice.reason == TTA_CHOICE_EXACT        ? "exact"
                       : choice.reason == TTA_CHOICE_COMPATIBLE ? "compatible"
                       : choice.reason == TTA_CHOICE_PTX        ? "ptx"
                                                                : "?";
  return std::string(library.targets[builder.kernel().targets[choice.target]].name) + " " + kind +
         " (" + reason + ")";
}

// The common fat library: sm_80 and sm_90a cubins, each with its PTX.
LibraryBuilder sm80Sm90aWithPtx() {
  LibraryBuilder b;
  b.cuda(80, false, true, true).cuda(90, true, true, true);
  return b;
}

TEST(RuntimeImageChoiceTest, Sm80Sm90aWithPtxOnEachDevice) {
  struct Case {
    uint32_t capability;
    const char *expected;
  } cases[] = {
      {80, "sm_80 cubin (exact)"},
      {86, "sm_80 cubin (compatible)"},
      {89, "sm_80 cubin (compatible)"},
      {90, "sm_90a cubin (exact)"},
      // sm_90a PTX does not run on a later chip; sm_80 PTX does.
      {100, "sm_80 ptx (ptx)"},
      {75, "none"},
  };
  for (const Case &c : cases) {
    LibraryBuilder b = sm80Sm90aWithPtx();
    EXPECT_EQ(choose(b, cudaDevice(c.capability)), c.expected) << "sm_" << c.capability;
  }
}

TEST(RuntimeImageChoiceTest, CubinsOnlyNeedTheSameMajor) {
  struct Case {
    uint32_t capability;
    const char *expected;
  } cases[] = {
      {80, "sm_80 cubin (exact)"},
      {86, "sm_86 cubin (exact)"},
      {89, "sm_86 cubin (compatible)"},
      {90, "none"},
      {100, "none"},
      {87, "sm_86 cubin (compatible)"},
  };
  for (const Case &c : cases) {
    LibraryBuilder b;
    b.cuda(80, false, true, false).cuda(86, false, true, false);
    EXPECT_EQ(choose(b, cudaDevice(c.capability)), c.expected) << "sm_" << c.capability;
  }
}

TEST(RuntimeImageChoiceTest, ArchSpecificCubinBeatsPlainOnItsChipInEitherOrder) {
  LibraryBuilder plainFirst;
  plainFirst.cuda(90, false, true, true).cuda(90, true, true, false);
  EXPECT_EQ(choose(plainFirst, cudaDevice(90)), "sm_90a cubin (exact)");
  LibraryBuilder specificFirst;
  specificFirst.cuda(90, true, true, false).cuda(90, false, true, true);
  EXPECT_EQ(choose(specificFirst, cudaDevice(90)), "sm_90a cubin (exact)");
}

TEST(RuntimeImageChoiceTest, ArchSpecificCubinOnlyOnItsExactChip) {
  LibraryBuilder b;
  b.cuda(100, true, true, false);
  EXPECT_EQ(choose(b, cudaDevice(103)), "none");
  LibraryBuilder plain;
  plain.cuda(100, false, true, false);
  EXPECT_EQ(choose(plain, cudaDevice(103)), "sm_100 cubin (compatible)");
}

TEST(RuntimeImageChoiceTest, ExactAndCompatibleCubinsBeatPtx) {
  LibraryBuilder b;
  b.cuda(80, false, true, false).cuda(89, false, false, true);
  // A compatible cubin wins over PTX of the device's own capability, as with the driver's
  // default CU_PREFER_BINARY.
  EXPECT_EQ(choose(b, cudaDevice(89)), "sm_80 cubin (compatible)");
  EXPECT_EQ(choose(b, cudaDevice(90)), "sm_89 ptx (ptx)");
}

TEST(RuntimeImageChoiceTest, NewestCompatiblePtxWins) {
  LibraryBuilder b;
  b.cuda(80, false, false, true).cuda(90, false, false, true).cuda(86, false, false, true);
  EXPECT_EQ(choose(b, cudaDevice(80)), "sm_80 ptx (ptx)");
  EXPECT_EQ(choose(b, cudaDevice(89)), "sm_86 ptx (ptx)");
  EXPECT_EQ(choose(b, cudaDevice(90)), "sm_90 ptx (ptx)");
  EXPECT_EQ(choose(b, cudaDevice(100)), "sm_90 ptx (ptx)");
  EXPECT_EQ(choose(b, cudaDevice(75)), "none");
}

TEST(RuntimeImageChoiceTest, ArchSpecificPtxOnlyOnItsExactChip) {
  LibraryBuilder b;
  b.cuda(80, false, false, true).cuda(90, true, false, true);
  EXPECT_EQ(choose(b, cudaDevice(90)), "sm_90a ptx (ptx)");
  EXPECT_EQ(choose(b, cudaDevice(100)), "sm_80 ptx (ptx)");
  LibraryBuilder both;
  both.cuda(90, false, false, true).cuda(90, true, false, true);
  EXPECT_EQ(choose(both, cudaDevice(90)), "sm_90a ptx (ptx)");
}

TEST(RuntimeImageChoiceTest, AKindCountsOnlyWhenEveryVariantHasIt) {
  // Variant 1 of sm_80 has no PTX: sm_80 PTX cannot serve the kernel on sm_100.
  LibraryBuilder noPtx = sm80Sm90aWithPtx();
  noPtx.variants(3).withoutPtx(1, 0);
  EXPECT_EQ(choose(noPtx, cudaDevice(100)), "none");
  EXPECT_EQ(choose(noPtx, cudaDevice(86)), "sm_80 cubin (compatible)");

  // Variant 2 of sm_90a has no cubin: on sm_90 only its PTX is left.
  LibraryBuilder noCubin = sm80Sm90aWithPtx();
  noCubin.variants(3).withoutBinary(2, 1);
  EXPECT_EQ(choose(noCubin, cudaDevice(90)), "sm_90a ptx (ptx)");
}

TEST(RuntimeImageChoiceTest, OtherBackendsTargetsNeverFit) {
  LibraryBuilder hipOnly;
  hipOnly.hip("gfx942", -1, -1);
  EXPECT_EQ(choose(hipOnly, cudaDevice(90)), "none");
  LibraryBuilder cudaOnly = sm80Sm90aWithPtx();
  EXPECT_EQ(choose(cudaOnly, hipDevice("gfx942:sramecc+:xnack-")), "none");
  LibraryBuilder mixed;
  mixed.hip("gfx942", -1, -1).cuda(90, true, true, true);
  EXPECT_EQ(choose(mixed, cudaDevice(90)), "sm_90a cubin (exact)");
  EXPECT_EQ(choose(mixed, hipDevice("gfx942:sramecc+:xnack-")), "gfx942 hsaco (exact)");
}

TEST(RuntimeImageChoiceTest, HipProcessorAndFeatures) {
  auto library = [] {
    LibraryBuilder b;
    b.hip("gfx942", -1, -1).hip("gfx90a", -1, 0).hip("gfx90a", -1, 1);
    return b;
  };
  LibraryBuilder b1 = library(), b2 = library(), b3 = library(), b4 = library();
  EXPECT_EQ(choose(b1, hipDevice("gfx942:sramecc+:xnack-")), "gfx942 hsaco (exact)");
  EXPECT_EQ(choose(b2, hipDevice("gfx90a:sramecc+:xnack-")), "gfx90a:xnack- hsaco (exact)");
  EXPECT_EQ(choose(b3, hipDevice("gfx90a:sramecc+:xnack+")), "gfx90a:xnack+ hsaco (exact)");
  EXPECT_EQ(choose(b4, hipDevice("gfx908:sramecc+:xnack-")), "none");
}

TEST(RuntimeImageChoiceTest, HipUnspecifiedFeatureFitsEitherModeAndSpecificWins) {
  LibraryBuilder any;
  any.hip("gfx90a", -1, -1);
  EXPECT_EQ(choose(any, hipDevice("gfx90a:sramecc-:xnack+")), "gfx90a hsaco (exact)");
  LibraryBuilder anyFirst;
  anyFirst.hip("gfx90a", -1, -1).hip("gfx90a", 1, 0);
  EXPECT_EQ(choose(anyFirst, hipDevice("gfx90a:sramecc+:xnack-")),
            "gfx90a:sramecc+:xnack- hsaco (exact)");
  LibraryBuilder wrongSramecc;
  wrongSramecc.hip("gfx90a", 0, -1);
  EXPECT_EQ(choose(wrongSramecc, hipDevice("gfx90a:sramecc+:xnack-")), "none");
  // A device that reports no xnack mode cannot run code built for one.
  LibraryBuilder wantsXnack;
  wantsXnack.hip("gfx1100", -1, 0);
  EXPECT_EQ(choose(wantsXnack, hipDevice("gfx1100")), "none");
  LibraryBuilder plain;
  plain.hip("gfx1100", -1, -1);
  EXPECT_EQ(choose(plain, hipDevice("gfx1100")), "gfx1100 hsaco (exact)");
}

TEST(RuntimeImageChoiceTest, ParsesTargetIds) {
  tta_device_arch device{};
  ASSERT_EQ(tta_parse_target_id("gfx90a:sramecc+:xnack-", &device), 1);
  EXPECT_STREQ(device.processor, "gfx90a");
  EXPECT_EQ(device.sramecc, 1);
  EXPECT_EQ(device.xnack, 0);
  EXPECT_STREQ(device.arch, "gfx90a:sramecc+:xnack-");
  ASSERT_EQ(tta_parse_target_id("gfx942:xnack+", &device), 1);
  EXPECT_STREQ(device.processor, "gfx942");
  EXPECT_EQ(device.sramecc, -1);
  EXPECT_EQ(device.xnack, 1);
  ASSERT_EQ(tta_parse_target_id("gfx1100", &device), 1);
  EXPECT_STREQ(device.processor, "gfx1100");
  EXPECT_EQ(device.sramecc, -1);
  EXPECT_EQ(device.xnack, -1);
  EXPECT_EQ(tta_parse_target_id("", &device), 0);
  EXPECT_EQ(tta_parse_target_id(":xnack+", &device), 0);
  EXPECT_EQ(tta_parse_target_id("gfx0123456789012345678901234567890123", &device), 0);
}

TEST(RuntimeImageChoiceTest, NoImageMessageNamesTheDeviceAndListsTheTargets) {
  LibraryBuilder b;
  b.cuda(80, false, true, false).cuda(100, true, true, true).hip("gfx942", -1, -1);
  const triton_aot_library &library = b.build();
  tta_device_arch device = cudaDevice(90);
  char message[512];
  size_t length = tta_format_no_image(message, sizeof message, &library, &b.kernel(), 0,
                                      "NVIDIA H100 80GB HBM3", &device);
  EXPECT_STREQ(message, "device 0 (NVIDIA H100 80GB HBM3, sm_90) has no image in mylib for kernel "
                        "mylib_add: it has sm_80 (cubin), sm_100a (cubin, ptx), gfx942 (hsaco); "
                        "rebuild it with \"90\" or \"90a\" in TRITON_ARCHITECTURES");
  EXPECT_EQ(length, std::strlen(message));

  tta_device_arch hip = hipDevice("gfx90a:sramecc+:xnack-");
  tta_format_no_image(message, sizeof message, &library, &b.kernel(), 1, "AMD Instinct MI210",
                      &hip);
  EXPECT_STREQ(message, "device 1 (AMD Instinct MI210, gfx90a:sramecc+:xnack-) has no image in "
                        "mylib for kernel mylib_add: it has sm_80 (cubin), sm_100a (cubin, ptx), "
                        "gfx942 (hsaco); rebuild it with \"gfx90a\" in TRITON_ARCHITECTURES");
}

TEST(RuntimeImageChoiceTest, NoImageMessageIsCutToTheBuffer) {
  LibraryBuilder b;
  for (uint32_t c = 50; c < 90; ++c)
    b.cuda(c, false, true, true);
  const triton_aot_library &library = b.build();
  tta_device_arch device = cudaDevice(100);
  char message[64];
  std::memset(message, 'x', sizeof message);
  size_t length =
      tta_format_no_image(message, sizeof message, &library, &b.kernel(), 0, "GPU", &device);
  EXPECT_EQ(length, sizeof message - 1);
  EXPECT_EQ(std::strlen(message), sizeof message - 1);
}

} // namespace
