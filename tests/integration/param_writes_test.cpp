// Which pointer parameters a kernel writes, as the metadata records it (params[].written): found
// in the compiled IR, for every target, through helpers, loops, if/while, atomics and TMA stores.
// A PyTorch op schema marks a tensor mutated from it, so it must never call a written one read.
#include "cli_runner.h"
#include "contract/metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace fs = std::filesystem;
using tta::testing::freshDir;
using tta::testing::kernel;
using tta::testing::metadataIn;
using tta::testing::runCompiler;
using tta::testing::RunResult;

namespace tta {
namespace {

/// name -> written, for the pointer and tensordesc params of each variant compiled into \p dir
/// (all variants must agree).
std::map<std::string, bool> writtenParams(const fs::path &dir, std::size_t expectedVariants) {
  std::map<std::string, bool> out;
  std::vector<KernelMetadata> all = metadataIn(dir);
  EXPECT_EQ(all.size(), expectedVariants);
  for (const KernelMetadata &meta : all) {
    SCOPED_TRACE(meta.target.spelling());
    std::map<std::string, bool> these;
    for (const ParamInfo &p : meta.params) {
      if (p.kind == ParamInfo::Kind::Pointer || p.kind == ParamInfo::Kind::TensorDesc) {
        EXPECT_TRUE(p.written.has_value()) << p.name;
        these[p.name] = p.written.value_or(true);
      } else {
        EXPECT_FALSE(p.written.has_value()) << p.name;
      }
    }
    if (out.empty())
      out = these;
    EXPECT_EQ(these, out);
  }
  return out;
}

struct Case {
  const char *function;
  const char *signature;
  std::map<std::string, bool> written;
};

TEST(ParamWrites, EveryWayOfWritingIsFoundForEveryTarget) {
  const Case cases[] = {
      {"copy_through_helper", "*fp32, *fp32, i32, 128", {{"src", false}, {"dst", true}}},
      {"strided_loop", "*fp32, *fp32, *fp32, i32, i32, 128",
       {{"src", false}, {"dst", true}, {"scale", false}}},
      {"histogram", "*i32, *i32, *i32, i32, 128",
       {{"values", false}, {"counts", true}, {"total", true}}},
      {"pick_output", "*fp32, *fp32, *fp32, i32, 128",
       {{"x", false}, {"out_a", true}, {"out_b", true}}},
      {"while_scan", "*fp32, *fp32, i32, 128", {{"x", false}, {"out", true}}},
      {"read_only", "*fp32, *fp32, *fp32, i32, 128",
       {{"x", false}, {"y", false}, {"out_sum", true}}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.function);
    fs::path dir = freshDir("param_writes", c.function);
    RunResult r = runCompiler({kernel("param_writes.py"), "-n", c.function, "-s", c.signature,
                               "-t", "cuda:80", "-t", "hip:gfx942", "-o", dir.string() + "/",
                               "--no-ptx"},
                              dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(writtenParams(dir, 2), c.written);
  }
}

TEST(ParamWrites, ATmaStoreWritesItsDescriptorOnly) {
  fs::path dir = freshDir("param_writes", "tma");
  RunResult r = runCompiler(
      {kernel("matmul_tma.py"), "-n", "matmul_tma_kernel", "-s",
       "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, i32, "
       "i32, i32, 128, 128, 64",
       "-w", "8", "-t", "cuda:90a", "-o", dir.string() + "/", "--no-ptx"},
      dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, bool> expected = {{"a_desc", false}, {"b_desc", false}, {"c_desc", true}};
  EXPECT_EQ(writtenParams(dir, 1), expected);
}

} // namespace
} // namespace tta
