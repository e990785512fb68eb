// inspectImage / checkImageMatchesTarget on small real images (tests/data/images/README.md
// says how each was made), plus damaged and foreign files.

#include "contract/image_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace tta {
namespace {

using ::testing::HasSubstr;

std::string imagePath(const std::string &name) {
  return std::string(TTA_TEST_DATA_DIR) + "/images/" + name;
}

std::vector<std::uint8_t> readImage(const std::string &name) {
  std::ifstream in(imagePath(name), std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << imagePath(name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ImageInfo inspectFile(const std::string &name) {
  auto bytes = readImage(name);
  auto info = inspectImage(bytes);
  EXPECT_TRUE(info) << name << ": " << (info ? "" : info.error().message);
  return info ? *info : ImageInfo{};
}

std::string inspectError(std::span<const std::uint8_t> bytes) {
  auto info = inspectImage(bytes);
  if (info)
    return "(no error)";
  EXPECT_EQ(info.error().code, ExitCode::UsageError);
  return info.error().message;
}

// Targets are built by hand, not with parseTarget(), so these tests exercise image_info alone.
Target cudaTarget(int capability, char suffix = 0) {
  Target t;
  t.backend = Backend::Cuda;
  t.capability = capability;
  t.archSuffix = suffix;
  t.arch = std::to_string(capability) + (suffix ? std::string(1, suffix) : "");
  return t;
}

Target hipTarget(const std::string &processor, char xnack = 0, char sramecc = 0) {
  Target t;
  t.backend = Backend::Hip;
  t.processor = processor;
  t.xnack = xnack;
  t.sramecc = sramecc;
  t.arch = processor;
  if (sramecc)
    t.arch += std::string(":sramecc") + sramecc;
  if (xnack)
    t.arch += std::string(":xnack") + xnack;
  t.warpSize = processor.starts_with("gfx9") ? 64 : 32;
  return t;
}

/// A gtest parameter name from a file name: "kernels_sm_90a_cubin".
std::string testName(std::string file) {
  for (char &ch : file)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return file;
}

std::string matchError(const ImageInfo &info, const Target &target) {
  Status st = checkImageMatchesTarget(info, target);
  if (st)
    return "(no error)";
  EXPECT_EQ(st.error().code, ExitCode::UsageError);
  return st.error().message;
}

// --- cubins ----------------------------------------------------------------------------------

struct CubinCase {
  const char *file;
  int sm;
  bool archSpecific;
  const char *arch;
  std::uint64_t sharedOfScaleShared;   // sm_90+ adds 1 KiB reserved by the toolchain
};

// Names the case in test listings (CTest shows the parameter).
void PrintTo(const CubinCase &c, std::ostream *os) { *os << c.file; }

class ImageInfoCubin : public ::testing::TestWithParam<CubinCase> {};

TEST_P(ImageInfoCubin, ArchAndResources) {
  const CubinCase &c = GetParam();
  ImageInfo info = inspectFile(c.file);
  EXPECT_EQ(info.backend, Backend::Cuda);
  EXPECT_EQ(info.machine, 190);
  EXPECT_EQ(info.smVersion, c.sm);
  EXPECT_EQ(info.archSpecific, c.archSpecific);
  EXPECT_EQ(info.arch, c.arch);
  EXPECT_EQ(info.xnack, 0);

  ASSERT_EQ(info.kernels.size(), 2u);   // the device-side entry points only
  const ResourceInfo &local = info.kernels.at("local_array");
  EXPECT_EQ(local.registers, 12);
  EXPECT_EQ(local.spills, 1024);       // int buf[256] in local memory
  EXPECT_EQ(local.staticShared, 0u);
  EXPECT_FALSE(local.sgprs);
  const ResourceInfo &shared = info.kernels.at("scale_shared");
  EXPECT_EQ(shared.registers, 10);
  EXPECT_EQ(shared.spills, 0);
  EXPECT_EQ(shared.staticShared, c.sharedOfScaleShared);
}

INSTANTIATE_TEST_SUITE_P(
    ImageInfo, ImageInfoCubin,
    ::testing::Values(
        // CUDA 13 ptxas: ABI V2 layout for every SM; "a" only in .nv.compat.
        CubinCase{"kernels.sm_75.cubin", 75, false, "sm_75", 4096},
        CubinCase{"kernels.sm_80.cubin", 80, false, "sm_80", 4096},
        CubinCase{"kernels.sm_90.cubin", 90, false, "sm_90", 5120},
        CubinCase{"kernels.sm_90a.cubin", 90, true, "sm_90a", 5120},
        // CUDA 12.8 ptxas (Triton's): old layout, "a" as EF_CUDA_ACCELERATORS (0x800).
        CubinCase{"kernels.sm_90a.ptxas12.8.cubin", 90, true, "sm_90a", 5120},
        // CUDA 12.9 ptxas-blackwell (Triton's): ABI V2, "a" as e_flags bit 0x8.
        CubinCase{"kernels.sm_100a.ptxas12.9.cubin", 100, true, "sm_100a", 5120}),
    [](const auto &param) { return testName(param.param.file); });

std::string findCuobjdump() {
  if (const char *env = std::getenv("TTA_CUOBJDUMP"); env && *env)
    return env;
#ifdef TTA_CUOBJDUMP_FOUND
  if (std::filesystem::exists(TTA_CUOBJDUMP_FOUND))
    return TTA_CUOBJDUMP_FOUND;   // the one CMake found (the toolkit's or Triton's)
#endif
  if (std::filesystem::exists("/usr/local/cuda/bin/cuobjdump"))
    return "/usr/local/cuda/bin/cuobjdump";
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && std::filesystem::exists(dir + "/cuobjdump"))
        return dir + "/cuobjdump";
  }
  return {};
}

/// cuobjdump --dump-resource-usage: kernel -> {"REG": n, "STACK": n, "SHARED": n, ...}.
std::map<std::string, std::map<std::string, std::uint64_t>> cuobjdumpUsage(
    const std::string &tool, const std::string &file) {
  std::map<std::string, std::map<std::string, std::uint64_t>> usage;
  const std::string command = "'" + tool + "' --dump-resource-usage '" + file + "' 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return usage;
  std::string output;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    output.append(buffer, n);
  pclose(pipe);

  std::stringstream lines(output);
  std::string kernel;
  for (std::string line; std::getline(lines, line);) {
    if (auto at = line.find("Function "); at != std::string::npos && line.ends_with(":")) {
      kernel = line.substr(at + 9, line.size() - at - 10);
      continue;
    }
    if (kernel.empty() || line.find("REG:") == std::string::npos)
      continue;
    std::stringstream fields(line);
    for (std::string field; fields >> field;)
      if (auto colon = field.find(':'); colon != std::string::npos)
        usage[kernel][field.substr(0, colon)] = std::stoull(field.substr(colon + 1));
    kernel.clear();
  }
  return usage;
}

TEST_P(ImageInfoCubin, MatchesCuobjdump) {
  const std::string tool = findCuobjdump();
  if (tool.empty())
    GTEST_SKIP() << "no cuobjdump (set TTA_CUOBJDUMP to cross-check)";
  const CubinCase &c = GetParam();
  ImageInfo info = inspectFile(c.file);
  auto usage = cuobjdumpUsage(tool, imagePath(c.file));
  ASSERT_EQ(usage.size(), info.kernels.size()) << tool << " on " << c.file;
  for (const auto &[kernel, res] : info.kernels) {
    ASSERT_TRUE(usage.count(kernel)) << kernel;
    auto &figures = usage.at(kernel);
    EXPECT_EQ(res.registers, static_cast<int>(figures["REG"])) << kernel;
    EXPECT_EQ(res.spills, static_cast<int>(figures["STACK"])) << kernel;
    EXPECT_EQ(res.staticShared, figures["SHARED"]) << kernel;
  }
}

// --- HSACOs ----------------------------------------------------------------------------------

struct HsacoCase {
  const char *file;
  const char *arch;
  char xnack;
  char sramecc;
};

void PrintTo(const HsacoCase &c, std::ostream *os) { *os << c.file; }

class ImageInfoHsaco : public ::testing::TestWithParam<HsacoCase> {};

TEST_P(ImageInfoHsaco, ArchAndFeatures) {
  const HsacoCase &c = GetParam();
  ImageInfo info = inspectFile(c.file);
  EXPECT_EQ(info.backend, Backend::Hip);
  EXPECT_EQ(info.machine, 224);
  EXPECT_EQ(info.smVersion, 0);
  EXPECT_EQ(info.arch, c.arch);
  EXPECT_EQ(info.xnack, c.xnack);
  EXPECT_EQ(info.sramecc, c.sramecc);
  EXPECT_EQ(info.kernels.size(), 3u);
  EXPECT_EQ(info.kernels["scale_lds"].staticShared, 1024u);
  EXPECT_EQ(info.kernels["scale_lds"].spills, 0);
  EXPECT_GT(info.kernels["spill_vgprs"].spills.value_or(0), 0);
}

INSTANTIATE_TEST_SUITE_P(
    ImageInfo, ImageInfoHsaco,
    ::testing::Values(HsacoCase{"kernels.gfx90a.hsaco", "gfx90a", 0, 0},
                      HsacoCase{"kernels.gfx90a_sramecc-_xnack+.hsaco", "gfx90a", '+', '-'},
                      HsacoCase{"kernels.gfx942_xnack-.hsaco", "gfx942", '-', 0},
                      HsacoCase{"kernels.gfx1100.hsaco", "gfx1100", 0, 0},
                      HsacoCase{"kernels.gfx908_xnack-.v4.hsaco", "gfx908", '-', 0}),
    [](const auto &param) { return testName(param.param.file); });

TEST(ImageInfo, HsacoResourcesComeFromTheMetadataNote) {
  // Figures as llvm-readelf --notes prints them for this file.
  ImageInfo info = inspectFile("kernels.gfx90a.hsaco");
  const ResourceInfo &lds = info.kernels.at("scale_lds");
  EXPECT_EQ(lds.registers, 4);
  EXPECT_EQ(lds.sgprs, 12);
  EXPECT_EQ(lds.spills, 0);
  EXPECT_EQ(lds.staticShared, 1024u);
  const ResourceInfo &priv = info.kernels.at("private_array");
  EXPECT_EQ(priv.registers, 5);
  EXPECT_EQ(priv.sgprs, 20);
  EXPECT_EQ(priv.spills, 0);   // scratch for an array is not a spill
  EXPECT_EQ(priv.staticShared, 0u);
  const ResourceInfo &spill = info.kernels.at("spill_vgprs");
  EXPECT_EQ(spill.registers, 32);
  EXPECT_EQ(spill.sgprs, 24);
  EXPECT_EQ(spill.spills, 44);   // .vgpr_spill_count 44 + .sgpr_spill_count 0
}

/// A copy of \p name with EI_ABIVERSION and e_flags replaced.
std::vector<std::uint8_t> patchedHeader(const std::string &name, std::uint8_t abi,
                                        std::uint32_t flags) {
  auto bytes = readImage(name);
  bytes[8] = abi;   // EI_ABIVERSION
  for (int i = 0; i < 4; ++i)   // e_flags at 0x30, little-endian
    bytes[0x30 + i] = static_cast<std::uint8_t>(flags >> (8 * i));
  return bytes;
}

TEST(ImageInfo, HsacoCodeObjectV3FeatureBits) {
  // V3 (EI_ABIVERSION 1) has single "on" bits: xnack 0x100, sramecc 0x200.
  auto bytes = patchedHeader("kernels.gfx90a.hsaco", 1, 0x13f);
  auto info = inspectImage(bytes);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->arch, "gfx90a");
  EXPECT_EQ(info->xnack, '+');
  EXPECT_EQ(info->sramecc, 0);
}

TEST(ImageInfo, HsacoProcessorsNewerThanLlvm19) {
  // LLVM 19 has no name for 0x4f; the table here does.
  auto gfx950 = inspectImage(patchedHeader("kernels.gfx942_xnack-.hsaco", 3, 0x64f));
  ASSERT_TRUE(gfx950) << gfx950.error().message;
  EXPECT_EQ(gfx950->arch, "gfx950");
  EXPECT_EQ(gfx950->xnack, '-');
  // A value no table knows: the metadata's amdhsa.target names the processor.
  auto unknown = inspectImage(patchedHeader("kernels.gfx942_xnack-.hsaco", 3, 0x6ff));
  ASSERT_TRUE(unknown) << unknown.error().message;
  EXPECT_EQ(unknown->arch, "gfx942");
}

// --- damaged and foreign files ---------------------------------------------------------------

TEST(ImageInfo, RejectsNonElfInput) {
  EXPECT_EQ(inspectError({}), "not an ELF file");
  const std::string text = "// PTX, not a cubin\n.version 8.7\n";
  std::vector<std::uint8_t> bytes(text.begin(), text.end());
  EXPECT_EQ(inspectError(bytes), "not an ELF file");
  EXPECT_EQ(inspectError(std::vector<std::uint8_t>{0x7f, 'E', 'L'}), "not an ELF file");
}

TEST(ImageInfo, RejectsTruncatedImages) {
  for (const char *file : {"kernels.sm_80.cubin", "kernels.gfx90a.hsaco"}) {
    auto bytes = readImage(file);
    for (std::size_t keep : {std::size_t{4}, std::size_t{40}, std::size_t{64}, bytes.size() / 2,
                             bytes.size() - 1}) {
      std::span<const std::uint8_t> cut(bytes.data(), keep);
      EXPECT_THAT(inspectError(cut), HasSubstr("malformed ELF image"))
          << file << " cut at " << keep;
    }
  }
}

TEST(ImageInfo, RejectsHostObjects) {
  auto bytes = readImage("x86_64.o");
  EXPECT_EQ(inspectError(bytes), "ELF machine 62 is neither EM_CUDA (190) nor EM_AMDGPU (224)");
}

TEST(ImageInfo, RejectsAnNvInfoRecordThatOverrunsItsSection) {
  // The first record of .nv.info: SVAL (4), EIATTR_REGCOUNT (0x2f), 8 bytes. Claim 0xfff0.
  auto bytes = readImage("kernels.sm_80.cubin");
  const std::uint8_t record[] = {0x04, 0x2f, 0x08, 0x00};
  auto at = std::search(bytes.begin(), bytes.end(), std::begin(record), std::end(record));
  ASSERT_NE(at, bytes.end());
  at[2] = 0xf0;
  at[3] = 0xff;
  EXPECT_THAT(inspectError(bytes), HasSubstr("malformed .nv.info section"));
}

TEST(ImageInfo, RejectsMalformedAmdgpuMetadata) {
  // Turn the first ".name" key (fixstr 0xa5) into a one-entry map (0x81): a map where a key
  // belongs, which crashes LLVM 19's msgpack::Document unless caught first.
  auto bytes = readImage("kernels.gfx90a.hsaco");
  const std::uint8_t key[] = {0xa5, '.', 'n', 'a', 'm', 'e'};
  auto at = std::search(bytes.begin(), bytes.end(), std::begin(key), std::end(key));
  ASSERT_NE(at, bytes.end());
  *at = 0x81;
  EXPECT_THAT(inspectError(bytes), HasSubstr("malformed AMDGPU metadata note"));
}

TEST(ImageInfo, AcceptsUnalignedBuffers) {
  auto bytes = readImage("kernels.sm_90a.cubin");
  std::vector<std::uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  auto info = inspectImage(std::span<const std::uint8_t>(shifted).subspan(1));
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->arch, "sm_90a");
}

// --- checkImageMatchesTarget -----------------------------------------------------------------

TEST(ImageInfo, CudaImagesMatchTheirTarget) {
  EXPECT_TRUE(checkImageMatchesTarget(inspectFile("kernels.sm_80.cubin"), cudaTarget(80)));
  EXPECT_TRUE(checkImageMatchesTarget(inspectFile("kernels.sm_90.cubin"), cudaTarget(90)));
  EXPECT_TRUE(checkImageMatchesTarget(inspectFile("kernels.sm_90a.cubin"), cudaTarget(90, 'a')));
  EXPECT_TRUE(checkImageMatchesTarget(inspectFile("kernels.sm_100a.ptxas12.9.cubin"),
                                      cudaTarget(100, 'a')));
}

TEST(ImageInfo, CudaMismatchesNameBoth) {
  ImageInfo sm80 = inspectFile("kernels.sm_80.cubin");
  EXPECT_EQ(matchError(sm80, cudaTarget(90, 'a')),
            "image is built for sm_80 but the target is cuda:90a");
  EXPECT_EQ(matchError(sm80, cudaTarget(86)), "image is built for sm_80 but the target is cuda:86");
  // "a" must agree both ways: an sm_90a image runs only on sm_90 itself, an sm_90 one lacks
  // the arch-specific features the target promised.
  EXPECT_EQ(matchError(inspectFile("kernels.sm_90.cubin"), cudaTarget(90, 'a')),
            "image is built for sm_90 but the target is cuda:90a");
  EXPECT_EQ(matchError(inspectFile("kernels.sm_90a.cubin"), cudaTarget(90)),
            "image is built for sm_90a but the target is cuda:90");
  // "f" leaves no trace in a cubin: a plain image is what a family target gets.
  ImageInfo sm100;
  sm100.smVersion = 100;
  sm100.arch = "sm_100";
  EXPECT_TRUE(checkImageMatchesTarget(sm100, cudaTarget(100, 'f')));
}

TEST(ImageInfo, BackendMismatchesNameTheMachine) {
  EXPECT_EQ(matchError(inspectFile("kernels.gfx90a.hsaco"), cudaTarget(80)),
            "image is an AMDGPU (EM_AMDGPU) image but the target is cuda:80");
  EXPECT_EQ(matchError(inspectFile("kernels.sm_80.cubin"), hipTarget("gfx942")),
            "image is a CUDA (EM_CUDA) image but the target is hip:gfx942");
}

TEST(ImageInfo, HipProcessorMustMatch) {
  EXPECT_EQ(matchError(inspectFile("kernels.gfx90a.hsaco"), hipTarget("gfx942")),
            "image is built for gfx90a but the target is hip:gfx942");
  EXPECT_TRUE(checkImageMatchesTarget(inspectFile("kernels.gfx1100.hsaco"), hipTarget("gfx1100")));
}

TEST(ImageInfo, HipFeaturesFollowTargetIdRules) {
  // An image for "any" satisfies every setting.
  ImageInfo any = inspectFile("kernels.gfx90a.hsaco");
  EXPECT_TRUE(checkImageMatchesTarget(any, hipTarget("gfx90a")));
  EXPECT_TRUE(checkImageMatchesTarget(any, hipTarget("gfx90a", '+', '-')));
  EXPECT_TRUE(checkImageMatchesTarget(any, hipTarget("gfx90a", '-')));

  // An image with a setting satisfies only that setting.
  ImageInfo on = inspectFile("kernels.gfx90a_sramecc-_xnack+.hsaco");
  EXPECT_TRUE(checkImageMatchesTarget(on, hipTarget("gfx90a", '+', '-')));
  EXPECT_EQ(matchError(on, hipTarget("gfx90a", '-', '-')),
            "image for gfx90a has xnack+ but the target asks for xnack-");
  EXPECT_EQ(matchError(on, hipTarget("gfx90a", '+', '+')),
            "image for gfx90a has sramecc- but the target asks for sramecc+");
  EXPECT_EQ(matchError(on, hipTarget("gfx90a", 0, '-')),
            "image for gfx90a has xnack+ but the target hip:gfx90a:sramecc- leaves xnack unset "
            "(any)");

  ImageInfo off = inspectFile("kernels.gfx942_xnack-.hsaco");
  EXPECT_TRUE(checkImageMatchesTarget(off, hipTarget("gfx942", '-')));
  EXPECT_TRUE(checkImageMatchesTarget(off, hipTarget("gfx942", '-', '+')));
}

} // namespace
} // namespace tta
