// A module of an installed package that reads the target while it is imported (as
// flash-linear-attention's utils do: IS_AMD, IS_NVIDIA_HOPPER, check_shared_mem(), through
// Triton's driver and torch) holds that target's answer for as long as it stays imported. Each
// target must get its own: in one run over several targets, over several runs served by warm
// workers, in any order; a failed import leaves nothing behind for the next compile; torch's
// device questions are answered per target, and one that cannot be answered names the line
// that asked, inside the installed package.
//
// torch itself is 3.5 GB and not on the test machines: tests/kernels/site-packages/torch is a
// stand-in with the API these modules use, answering as torch does on a machine without a GPU
// (is_available() False, get_device_capability() raising "Found no NVIDIA driver"). With
// TTA_TEST_TORCH_PYTHON set to an interpreter with Triton and the real torch, the same tests
// run against it instead.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using tta::testing::metadataIn;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::RunResult;
using tta::testing::testPython;
using tta::testing::testWorkDir;

namespace tta {
namespace {

/// Installed: fla/utils-style answers, read once at import (some through lru_caches).
constexpr const char *kDevinfoUtils = R"py(import functools
import os

import torch
import triton

with open(os.path.join(os.path.dirname(__file__), "imports.log"), "a") as log:
    log.write("devinfo.utils\n")


@functools.lru_cache(maxsize=None)
def get_available_device():
    try:
        return triton.runtime.driver.active.get_current_target().backend
    except BaseException:
        return "cpu"


@functools.cache
def check_shared_mem(arch="none", tensor_idx=0):
    needed = {"none": 102400, "ampere": 166912, "hopper": 232448}[arch]
    props = triton.runtime.driver.active.utils.get_device_properties(tensor_idx)
    return props["max_shared_mem"] >= needed


IS_AMD = get_available_device() == "hip"
IS_ROCM = torch.version.hip is not None
IS_NVIDIA_HOPPER = not IS_AMD and torch.cuda.get_device_capability()[0] >= 9
IS_TF32_SUPPORTED = torch.cuda.is_available() and torch.cuda.get_device_capability(0)[0] >= 8
NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count
NAME_IS_H100 = "H100" in torch.cuda.get_device_name(0)
)py";

/// The project's kernel, in a package, taking its defaults from the installed answers.
constexpr const char *kScaleKernel = R"py(import torch
import triton
import triton.language as tl
from devinfo.utils import (IS_AMD, IS_NVIDIA_HOPPER, IS_ROCM, IS_TF32_SUPPORTED, NAME_IS_H100,
                           NUM_SMS, check_shared_mem)

from .common import SCALE

HAS_HOPPER_SMEM = check_shared_mem("hopper")


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, AMD: tl.constexpr = IS_AMD,
                 ROCM: tl.constexpr = IS_ROCM, HOPPER: tl.constexpr = IS_NVIDIA_HOPPER,
                 TF32: tl.constexpr = IS_TF32_SUPPORTED, H100: tl.constexpr = NAME_IS_H100,
                 SMS: tl.constexpr = NUM_SMS, BIG_SMEM: tl.constexpr = HAS_HOPPER_SMEM):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * SCALE, mask=mask)
)py";

/// What each target's image must hold: AMD, ROCM, HOPPER, TF32, H100, SMS, BIG_SMEM.
const std::map<std::string, std::string> kExpected = {
    {"cuda:80", "AMD=false ROCM=false HOPPER=false TF32=true H100=false SMS=108 BIG_SMEM=false"},
    {"cuda:90a", "AMD=false ROCM=false HOPPER=true TF32=true H100=true SMS=132 BIG_SMEM=true"},
    {"hip:gfx942", "AMD=true ROCM=true HOPPER=false TF32=true H100=false SMS=304 BIG_SMEM=false"},
};

class ImportPerTarget : public ::testing::Test {
protected:
  fs::path dir, pools, packages;
  std::string python;
  bool realTorch = false;

  void SetUp() override {
    const char *torchPython = std::getenv("TTA_TEST_TORCH_PYTHON");
    realTorch = torchPython && *torchPython;
    python = realTorch ? torchPython : testPython();
    dir = testWorkDir() / ("import_per_target_" +
                           std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    // A directory named site-packages on the path counts as installed, not as the project's.
    packages = dir / "site-packages";
    fs::create_directories(packages / "devinfo");
    pools = dir / "pools";
    fs::create_directory(pools);
    fs::permissions(pools, fs::perms::owner_all, fs::perm_options::replace);
    std::ofstream(packages / "devinfo" / "__init__.py") << "";
    std::ofstream(packages / "devinfo" / "utils.py") << kDevinfoUtils;
    fs::create_directories(dir / "ops");
    std::ofstream(dir / "ops" / "__init__.py") << "";
    std::ofstream(dir / "ops" / "common.py")
        << "import triton.language as tl\n\nSCALE = tl.constexpr(2.0)\n";
    std::ofstream(dir / "ops" / "scale.py") << kScaleKernel;
  }

  std::vector<std::string> environment(bool pool) const {
    std::string path = packages.string();
    if (!realTorch)
      path += ":" + tta::testing::kernel("site-packages");
    std::vector<std::string> env = {"PYTHONPATH=" + path,
                                    "TRITON_AOT_WORKER_POOL_DIR=" + pools.string(),
                                    "TRITON_AOT_WORKER_IDLE=120"};
    if (!pool)
      env.push_back("TRITON_AOT_WORKER_POOL=0");
    return env;
  }

  /// One run over \p targets with one worker, a BLOCK no other run compiled (never a cache hit).
  RunResult compile(const std::vector<std::string> &targets, int block, bool pool,
                    const std::string &out, const std::vector<std::string> &extraEnv = {}) {
    std::vector<std::string> args = {"--python", python, "ops/scale.py", "-n", "scale_kernel", "-s",
                                     "*fp32:16, *fp32:16, i32, " + std::to_string(block), "-g",
                                     "cdiv(n, BLOCK)", "-o", out + "/", "-j", "1", "-v"};
    for (const std::string &target : targets)
      args.insert(args.end(), {"-t", target});
    std::vector<std::string> env = environment(pool);
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    return run(TTA_COMPILER, args, dir, env);
  }

  /// "AMD=... SMS=..." per target of the images under \p out.
  std::map<std::string, std::string> answers(const std::string &out) {
    std::map<std::string, std::string> found;
    for (const KernelMetadata &meta : metadataIn(dir / out)) {
      std::string text;
      for (const char *name : {"AMD", "ROCM", "HOPPER", "TF32", "H100", "SMS", "BIG_SMEM"})
        for (const ParamInfo &p : meta.params)
          if (p.name == name)
            text += (text.empty() ? "" : " ") + p.name + "=" + p.value.dump();
      found[meta.target.spelling()] = text;
    }
    return found;
  }

  void expectEachTargetsOwn(const std::string &out, const std::vector<std::string> &targets) {
    std::map<std::string, std::string> expected;
    for (const std::string &target : targets)
      expected[target] = kExpected.at(target);
    EXPECT_EQ(answers(out), expected);
  }

  int lines(const fs::path &log) {
    std::ifstream in(log);
    int count = 0;
    for (std::string line; std::getline(in, line);)
      ++count;
    return count;
  }
};

TEST_F(ImportPerTarget, OneRunOneWorkerGivesEachTargetItsOwnAnswers) {
  for (bool pool : {false, true}) {
    SCOPED_TRACE(pool ? "leased from the pool" : "started by the run");
    std::string out = pool ? "pooled" : "direct";
    RunResult r = compile({"hip:gfx942", "cuda:80", "cuda:90a"}, pool ? 512 : 1024, pool, out);
    ASSERT_EQ(r.status, 0) << r.err;
    expectEachTargetsOwn(out, {"hip:gfx942", "cuda:80", "cuda:90a"});
  }
}

TEST_F(ImportPerTarget, RunsInAnyOrderServedByWarmWorkersGiveEachTargetItsOwnAnswers) {
  const std::vector<std::vector<std::string>> orders = {
      {"hip:gfx942", "cuda:80", "cuda:90a"}, {"cuda:90a", "hip:gfx942", "cuda:80"},
      {"cuda:80", "cuda:90a", "hip:gfx942"}};
  int block = 16;
  for (const auto &order : orders)
    for (const std::string &target : order) {
      SCOPED_TRACE(target);
      block *= 2;   // every run compiles something new
      std::string out = "run" + std::to_string(block);
      RunResult r = compile({target}, block, true, out);
      ASSERT_EQ(r.status, 0) << r.err;
      expectEachTargetsOwn(out, {target});
    }
  // The pool keeps a worker per target: each target's imports happened once, not once per run
  // (a loaded machine may start one more worker where a run came before the pool heard "idle").
  const int imports = lines(packages / "devinfo" / "imports.log");
  EXPECT_GE(imports, 3);
  EXPECT_LT(imports, 9);
}

TEST_F(ImportPerTarget, OneWarmWorkerServingRunsForEveryTargetGivesEachItsOwnAnswers) {
  // A pool of one worker: every run gets the same worker, bound to the last run's target.
  std::vector<std::string> order = {"hip:gfx942", "cuda:80", "cuda:80", "cuda:90a", "hip:gfx942"};
  int block = 16;
  for (const std::string &target : order) {
    SCOPED_TRACE(target);
    block *= 2;
    std::string out = "run" + std::to_string(block);
    RunResult r = compile({target}, block, true, out, {"TRITON_AOT_WORKER_POOL_MAX=1"});
    ASSERT_EQ(r.status, 0) << r.err;
    expectEachTargetsOwn(out, {target});
  }
  // Imported afresh at each change of target (four), not for the run that kept its target.
  const int imports = lines(packages / "devinfo" / "imports.log");
  EXPECT_GE(imports, 4);
  EXPECT_LE(imports, 5);
}

TEST_F(ImportPerTarget, APackageThatAsksNothingStaysWarmAcrossTargets) {
  fs::create_directories(packages / "plainpkg");
  std::ofstream(packages / "plainpkg" / "__init__.py")
      << "import os\nwith open(os.path.join(os.path.dirname(__file__), 'imports.log'), 'a') as log:\n"
         "    log.write('plainpkg\\n')\nSCALE = 3.0\n";  // a plain float: the kernel takes it as a default
  std::ofstream(dir / "ops" / "plain.py")
      << "import triton\nimport triton.language as tl\nfrom plainpkg import SCALE\n\n\n"
         "@triton.jit\ndef plain_kernel(x_ptr, n, BLOCK: tl.constexpr, S: tl.constexpr = SCALE):\n"
         "    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
         "    tl.store(x_ptr + offsets, S, mask=offsets < n)\n";
  RunResult r = run(TTA_COMPILER,
                    {"--python", python, "ops/plain.py", "-n", "plain_kernel", "-s",
                     "*fp32:16, i32, 256", "-g", "cdiv(n, BLOCK)", "-o", "plain/", "-j", "1", "-t",
                     "hip:gfx942", "-t", "cuda:80", "-t", "cuda:90a"},
                    dir, environment(false));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(metadataIn(dir / "plain").size(), 3u);
  EXPECT_EQ(lines(packages / "plainpkg" / "imports.log"), 1);
}

TEST_F(ImportPerTarget, AFailedImportLeavesNothingHalfInitialised) {
  // An installed package that registers something in a submodule, then fails (while the file
  // fail-now exists): the submodule would stay imported, and the next import count twice.
  fs::create_directories(packages / "halfinit");
  std::ofstream(packages / "halfinit" / "registry.py") << "INITS = 0\n";
  std::ofstream(packages / "halfinit" / "__init__.py")
      << "import os\nfrom . import registry\nregistry.INITS += 1\n"
         "if os.path.exists(os.path.join(os.path.dirname(__file__), 'fail-now')):\n"
         "    raise ImportError('halfinit cannot start now')\n";
  std::ofstream(packages / "halfinit" / "fail-now") << "";
  std::ofstream(dir / "ops" / "counted.py")
      << "import triton\nimport triton.language as tl\nimport halfinit\n\n"
         "INITS = halfinit.registry.INITS\n\n\n"
         "@triton.jit\ndef counted_kernel(x_ptr, INIT_COUNT: tl.constexpr = INITS):\n"
         "    tl.store(x_ptr, INIT_COUNT)\n";
  auto compileCounted = [&](const std::string &out) {
    return run(TTA_COMPILER,
               {"--python", python, "ops/counted.py", "-n", "counted_kernel", "-s", "*i32", "-g",
                "1", "-o", out + "/", "-j", "1", "-t", "cuda:80", "--no-cache"},
               dir, environment(true));
  };
  RunResult failed = compileCounted("first");
  EXPECT_NE(failed.status, 0);
  EXPECT_NE(failed.err.find("halfinit cannot start now"), std::string::npos) << failed.err;
  fs::remove(packages / "halfinit" / "fail-now");
  RunResult second = compileCounted("second");
  ASSERT_EQ(second.status, 0) << second.err;
  auto metas = metadataIn(dir / "second");
  ASSERT_EQ(metas.size(), 1u);
  for (const ParamInfo &p : metas[0].params) {
    if (p.name == "INIT_COUNT") {
      EXPECT_EQ(p.value, 1);
    }
  }
}

TEST_F(ImportPerTarget, ATorchQuestionWithoutAnAnswerNamesTheLineInTheInstalledPackage) {
  std::ofstream(packages / "devinfo" / "memory.py")
      << "import torch\n\n\nFREE, TOTAL = torch.cuda.mem_get_info()\n";
  std::ofstream(dir / "ops" / "memory_kernel.py")
      << "import triton\nimport triton.language as tl\nfrom devinfo.memory import TOTAL\n\n\n"
         "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
  RunResult r = run(TTA_COMPILER,
                    {"--python", python, "ops/memory_kernel.py", "-n", "k", "-s", "*fp32", "-g",
                     "1", "-o", "out/", "-t", "cuda:90a"},
                    dir, environment(false));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("memory_kernel.py:3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("asked at site-packages/devinfo/memory.py:4: FREE, TOTAL = "
                       "torch.cuda.mem_get_info()"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("building this module needs a machine with that GPU"), std::string::npos)
      << r.err;
}

} // namespace
} // namespace tta
