// Every bad input gets its message and exit status, and leaves no output behind.
#include "cli_runner.h"
#include "compiler/compiler.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using tta::testing::freshDir;
using tta::testing::listFiles;
using tta::testing::readText;
using tta::testing::run;
using tta::testing::runCompiler;
using tta::testing::RunResult;
using tta::testing::testPython;

namespace tta {
namespace {

class Errors : public ::testing::Test {
protected:
  void SetUp() override {
    dir = freshDir("errors", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir / "out");
    for (const char *file : {"vector_add.py", "bad_kernel.py"})
      fs::copy_file(fs::path(TTA_KERNELS_DIR) / file, dir / file);
  }

  RunResult compile(std::vector<std::string> args, const std::vector<std::string> &env = {}) {
    return runCompiler(std::move(args), dir, env);
  }

  /// The output directory holds nothing but the cache (and no temporary files).
  void expectNoOutputs() {
    EXPECT_EQ(listFiles(dir / "out", ".triton-aot-cache"), std::vector<std::string>{});
  }

  std::vector<std::string> addArgs(const std::string &signature) {
    return {"vector_add.py", "-n",       "add_kernel",  "-s", signature, "-g", "cdiv(n_elements, 1024)",
            "-t",            "cuda:80",  "-o",          "out/"};
  }

  fs::path dir;
};

/// A sitecustomize that makes triton.compile's metadata carry one more field, as a newer Triton
/// might (a launch attribute triton-aot would not know to honour).
void writeMetadataFieldPatch(const fs::path &dir, const std::string &field, const std::string &value) {
  fs::create_directories(dir);
  std::ofstream(dir / "sitecustomize.py")
      << "import collections, triton\n"
         "_compile = triton.compile\n"
         "def compile(*args, **kwargs):\n"
         "    kernel = _compile(*args, **kwargs)\n"
         "    fields = dict(kernel.metadata._asdict(), " << field << "=" << value << ")\n"
         "    kernel.metadata = collections.namedtuple('KernelMetadata', fields)(**fields)\n"
         "    return kernel\n"
         "triton.compile = compile\n";
}

TEST_F(Errors, UnknownLaunchFieldOfANewerTritonRefusesTheCompile) {
  writeMetadataFieldPatch(dir / "newer", "launch_preferred_cluster", "[2, 1, 1]");
  RunResult r = compile(addArgs("*fp32, *fp32, *fp32, i32, 1024"),
                        {"PYTHONPATH=" + (dir / "newer").string()});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("metadata field 'launch_preferred_cluster' = [2, 1, 1] is unknown to this "
                       "triton-aot, and it may change how the kernel must be launched"),
            std::string::npos)
      << r.err;
  expectNoOutputs();
}

TEST_F(Errors, UnknownFieldLeftUnsetIsHarmless) {
  writeMetadataFieldPatch(dir / "newer", "launch_preferred_cluster", "None");
  RunResult r = compile(addArgs("*fp32, *fp32, *fp32, i32, 1024"),
                        {"PYTHONPATH=" + (dir / "newer").string()});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(Errors, HostTensorDescriptorsForAHipTargetAreRefusedBeforeCompiling) {
  // Host descriptors compile for CUDA (tensordesc_test.cpp); on AMD GPUs Triton passes them in
  // forms the runtime does not launch.
  RunResult r = run(TTA_COMPILER,
                    {std::string(TTA_KERNELS_DIR) + "/matmul_tma.py", "-n", "matmul_tma_kernel",
                     "-s", "tensordesc<fp16[64, 64]>, tensordesc<fp16[64, 64]>, "
                           "tensordesc<fp16[64, 64]>, i32, i32, i32, 64, 64, 64",
                     "-g", "1, 1, 1", "-t", "hip:gfx942", "-o", (dir / "out/").string(),
                     "--python", testPython()},
                    dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("a_desc, b_desc, c_desc: host tensor descriptors (tensordesc parameters) "
                       "are launched on CUDA only"),
            std::string::npos)
      << r.err;
  expectNoOutputs();
}

TEST_F(Errors, FamilyTargetIsRefusedWithTheArchSpecificOne) {
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args[8] = "cuda:100f";
  RunResult r = compile(args);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("target cuda:100f: Triton cannot build family-portable ('f') cubins (no release "
                       "up to 3.9 does: it always compiles for sm_<cc>a); use cuda:100a"),
            std::string::npos)
      << r.err;
  expectNoOutputs();
}

TEST_F(Errors, SignatureSyntax) {
  RunResult r = compile(addArgs("*fp32:16, *fp33, *fp32, i32, 1024"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: signature entry 2 '*fp33'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fp32"), std::string::npos) << r.err;   // did you mean
  expectNoOutputs();
}

TEST_F(Errors, SignatureThatDoesNotFitTheFunction) {
  RunResult r = compile(addArgs("*fp32, *fp32, *fp32, i32"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("vector_add.py:7: error: signature has 4 entries but 'add_kernel' has 5 "
                       "parameters (x_ptr, y_ptr, out_ptr, n_elements, BLOCK)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("note: no entry for BLOCK"), std::string::npos) << r.err;
  expectNoOutputs();
}

TEST_F(Errors, TypeGivenForAConstexprParameter) {
  RunResult r = compile(addArgs("*fp32, *fp32, *fp32, i32, i32"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("signature entry 5 'i32' is a type, but 'BLOCK' is declared tl.constexpr"),
            std::string::npos)
      << r.err;
  expectNoOutputs();
}

TEST_F(Errors, UnknownKernelNameListsTheJitFunctions) {
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args[2] = "add_kernl";
  RunResult r = compile(args);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("add_kernl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("add_kernel"), std::string::npos) << r.err;
  expectNoOutputs();
}

TEST_F(Errors, KernelCompileErrorPointsAtTheLine) {
  RunResult r = compile({"bad_kernel.py", "-n", "undefined_name_kernel", "-s", "*fp32, i32, 128",
                         "-g", "1", "-t", "cuda:80", "-o", "out/"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("bad_kernel.py:14:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("undefined_scale"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("x * undefined_scale"), std::string::npos) << "source line: " << r.err;
  EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
  expectNoOutputs();

  std::vector<std::string> verbose = {"bad_kernel.py", "-n", "undefined_name_kernel", "-s",
                                      "*fp32, i32, 128", "-g", "1", "-t", "cuda:80", "-o",
                                      "out/", "--verbose"};
  RunResult v = compile(verbose);
  EXPECT_EQ(v.status, 1);
  EXPECT_NE(v.err.find("Traceback"), std::string::npos) << v.err;
}

TEST_F(Errors, ErrorsAroundNoinlineCallsPointAtTheRightLine) {
  // Triton reports a noinline callee's problem at the caller's node: the call site it is.
  RunResult call = compile({"bad_kernel.py", "-n", "noinline_tensor_arg_kernel", "-s",
                            "*fp32, 16", "-g", "1", "-t", "cuda:80", "-o", "out/"});
  EXPECT_EQ(call.status, 1);
  EXPECT_NE(call.err.find("bad_kernel.py:48:43: error: Function _scale_noinline is marked "
                          "noinline, but was called with non-scalar argument"),
            std::string::npos)
      << call.err;
  EXPECT_NE(call.err.find("note: _scale_noinline is defined at bad_kernel.py:41"),
            std::string::npos)
      << call.err;
  RunResult inside = compile({"bad_kernel.py", "-n", "noinline_undefined_name_kernel", "-s",
                              "*fp32, fp32", "-g", "1", "-t", "cuda:80", "-o", "out/"});
  EXPECT_EQ(inside.status, 1);
  EXPECT_NE(inside.err.find("bad_kernel.py:54:29: error: NameError: undefined_factor is not "
                            "defined"),
            std::string::npos)
      << inside.err;
  expectNoOutputs();
}

TEST_F(Errors, SourcesOutsideTheWorkingDirectoryAreNamedFromTheSourceRoot) {
  // As a CMake build runs: in the build tree, the kernel named by its absolute path.
  fs::create_directories(dir / "build");
  const std::string kernel = (dir / "bad_kernel.py").string();
  RunResult r = runCompiler({kernel, "-n", "noinline_tensor_arg_kernel", "-s", "*fp32, 16", "-g",
                             "1", "-t", "cuda:80", "-o", "out/", "--source-root", dir.string()},
                            dir / "build");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("bad_kernel.py:48:43: error: Function _scale_noinline is marked ", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("note: _scale_noinline is defined at bad_kernel.py:41"), std::string::npos)
      << r.err;
  RunResult missing = runCompiler({kernel, "-n", "no_such_kernel", "-s", "i32", "-g", "1", "-t",
                                   "cuda:80", "-o", "out/", "--source-root", dir.string()},
                                  dir / "build");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err.find(dir.string()), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("bad_kernel.py has no @triton.jit function named 'no_such_kernel'"),
            std::string::npos)
      << missing.err;
}

TEST_F(Errors, NotAKernelAndAutotunedKernel) {
  RunResult plain = compile({"bad_kernel.py", "-n", "not_a_kernel", "-s", "i32", "-g", "1", "-t",
                             "cuda:80", "-o", "out/"});
  EXPECT_EQ(plain.status, 2) << plain.err;
  RunResult tuned = compile({"bad_kernel.py", "-n", "tuned_kernel", "-s", "*fp32, i32, 128", "-g",
                             "1", "-t", "cuda:80", "-o", "out/"});
  EXPECT_EQ(tuned.status, 2) << tuned.err;
  EXPECT_NE(tuned.err.find("autotune"), std::string::npos) << tuned.err;
  expectNoOutputs();
}

TEST_F(Errors, TritonMissing) {
  // An interpreter without Triton: a venv-less Python with site packages switched off.
  fs::path fake = dir / "python-without-triton";
  std::ofstream(fake) << "#!/bin/sh\nexec " << testPython() << " -S \"$@\"\n";
  fs::permissions(fake, fs::perms::owner_all);
  RunResult r = run(TTA_COMPILER,
                    {"--python", fake.string(), "vector_add.py", "-n", "add_kernel", "-s",
                     "*fp32, *fp32, *fp32, i32, 1024", "-g", "1", "-t", "cuda:80", "-o", "out/"},
                    dir);
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("cannot import triton with " + fake.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::string("pip install triton==") + tta::kTestedTritonVersion), std::string::npos)
      << r.err;
  expectNoOutputs();
}

TEST_F(Errors, TritonTooOld) {
  fs::create_directories(dir / "old/triton");
  std::ofstream(dir / "old/triton/__init__.py") << "__version__ = '3.2.0'\n";
  RunResult r = compile(addArgs("*fp32, *fp32, *fp32, i32, 1024"),
                        {"PYTHONPATH=" + (dir / "old").string()});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("Triton 3.2.0 at " + testPython() +
                       " is older than 3.5.0, the oldest triton-aot-cc supports"),
            std::string::npos)
      << r.err;
  expectNoOutputs();
}

TEST_F(Errors, BadTargetAndGrid) {
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args[8] = "cuda:sm80";
  RunResult target = compile(args);
  EXPECT_EQ(target.status, 2);
  EXPECT_NE(target.err.find("cuda:sm80"), std::string::npos) << target.err;
  args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args[6] = "cdiv(n_elems, 1024)";
  RunResult grid = compile(args);
  EXPECT_EQ(grid.status, 2);
  EXPECT_NE(grid.err.find("n_elems"), std::string::npos) << grid.err;
  expectNoOutputs();
}

TEST_F(Errors, FailureRemovesEarlierOutputsOfTheSameVariant) {
  RunResult good = compile(addArgs("*fp32, *fp32, *fp32, i32, 1024"));
  ASSERT_EQ(good.status, 0) << good.err;
  EXPECT_EQ(listFiles(dir / "out", ".triton-aot-cache").size(), 3u);   // cubin, ptx, json
  std::ofstream(dir / "vector_add.py", std::ios::app) << "\n@triton.jit\ndef broken(:\n";
  RunResult bad = compile(addArgs("*fp32, *fp32, *fp32, i32, 1024"));
  EXPECT_EQ(bad.status, 1) << bad.err;
  EXPECT_NE(bad.err.find("vector_add.py:"), std::string::npos) << bad.err;
  expectNoOutputs();
}

TEST_F(Errors, UnwritableOutputDirectory) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root can write anywhere";
  fs::permissions(dir / "out", fs::perms::owner_read | fs::perms::owner_exec);
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args.push_back("--no-cache");
  RunResult r = compile(args);
  fs::permissions(dir / "out", fs::perms::owner_all);
  EXPECT_EQ(r.status, 4) << r.err;
}

TEST_F(Errors, OutputPathIsAFile) {
  std::ofstream(dir / "blocker") << "x";
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args[10] = "blocker/sub/";
  RunResult r = compile(args);
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_NE(r.err.find("blocker"), std::string::npos) << r.err;
}

TEST_F(Errors, InterruptLeavesNothingBehind) {
  std::vector<std::string> args = {"--python", testPython(), "vector_add.py", "-n", "add_kernel",
                                   "-s", "*fp32, *fp32, *fp32, i32, 1024", "-g", "1",
                                   "-t", "cuda:80", "-t", "cuda:90a", "-t", "hip:gfx942",
                                   "-o", "out/", "--no-cache"};
  // Interrupt once the frontend workers are being started (their scratch directory exists).
  auto compiling = [&] {
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir / "out", ec))
      if (entry.path().filename().string().rfind(".triton-aot-tmp.", 0) == 0)
        return true;
    return false;
  };
  RunResult r = tta::testing::runAndSignal(TTA_COMPILER, args, dir, SIGINT, compiling);
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_EQ(listFiles(dir / "out"), std::vector<std::string>{});
  for (const auto &entry : fs::directory_iterator(dir / "out"))
    ADD_FAILURE() << "left behind: " << entry.path();
}

TEST_F(Errors, EntryPointNameMustBeACIdentifier) {
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args.insert(args.end(), {"-on", "my.kern"});
  RunResult r = compile(args);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("entry point name 'my.kern' is not a C identifier"), std::string::npos)
      << r.err;
  expectNoOutputs();
}

TEST_F(Errors, BadCommandLineRemovesTheIndexAndDepfileOfAnEarlierRun) {
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args.insert(args.end(), {"--index", "out/k.index.json", "--depfile", "out/k.d"});
  ASSERT_EQ(compile(args).status, 0);
  ASSERT_TRUE(fs::exists(dir / "out/k.index.json"));
  // The depfile's target is spelled as the command line spelled it, so Make and Ninja match it.
  EXPECT_EQ(readText(dir / "out/k.d").rfind("out/k.index.json: ", 0), 0u) << readText(dir / "out/k.d");
  args[4] = "*fp33, *fp32, *fp32, i32, 1024";
  EXPECT_EQ(compile(args).status, 2);
  EXPECT_FALSE(fs::exists(dir / "out/k.index.json"));
  EXPECT_FALSE(fs::exists(dir / "out/k.d"));
}

TEST_F(Errors, UnwritableCacheOnlyCostsSpeed) {
  std::ofstream(dir / "not-a-dir") << "x";
  std::vector<std::string> args = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  args.insert(args.end(), {"--cache-dir", "not-a-dir/cache"});
  RunResult r = compile(args);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: cannot write the cache"), std::string::npos) << r.err;
  EXPECT_EQ(listFiles(dir / "out", ".triton-aot-cache").size(), 3u);
}

/// A stand-in frontend that says hello and then answers every request with \p answer.
fs::path fakeFrontend(const fs::path &dir, const std::string &answer) {
  fs::create_directories(dir);
  std::ofstream(dir / "triton_aot_worker.py")
      << "import json, sys\n"
         "print(json.dumps({'event': 'hello', 'protocol': 1, 'triton_version': '3.6.0',"
         " 'import_error': None, 'toolchain_files': []}), flush=True)\n"
         "for line in sys.stdin:\n"
         "    request = json.loads(line)\n"
      << answer;
  return dir;
}

TEST_F(Errors, MalformedFrontendAnswersAreInternalErrorsThatLeaveNothing) {
  // A describe answer whose params are not a list, then a compile answer of the wrong shape.
  for (const std::string &answer :
       {std::string("    print(json.dumps({'ok': True, 'params': 'x_ptr'}), flush=True)\n"),
        std::string("    print(json.dumps({'ok': True, 'params': [{'name': n} for n in "
                    "['x_ptr', 'y_ptr', 'out_ptr', 'n_elements', 'BLOCK']], 'metadata': 7}"
                    " if request['op'] == 'compile' else {'ok': True, 'params': [{'name': n} "
                    "for n in ['x_ptr', 'y_ptr', 'out_ptr', 'n_elements', 'BLOCK']]}),"
                    " flush=True)\n"),
        std::string("    print(json.dumps({'ok': 'yes', 'error': 'boom'}), flush=True)\n")}) {
    fs::path frontend = fakeFrontend(dir / "fake", answer);
    RunResult r = runCompiler({"vector_add.py", "-n", "add_kernel", "-s",
                       "*fp32, *fp32, *fp32, i32, 1024", "-g", "1", "-t", "cuda:80", "-o", "out/"},
                      dir, {"TRITON_AOT_FRONTEND_DIR=" + frontend.string()});
    EXPECT_TRUE(r.status == 5 || r.status == 1) << r.status << r.err;
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
    EXPECT_EQ(listFiles(dir / "out", ".triton-aot-cache"), std::vector<std::string>{}) << answer;
    for (const auto &entry : fs::directory_iterator(dir / "out"))
      if (entry.path().filename() != ".triton-aot-cache")
        ADD_FAILURE() << "left behind: " << entry.path();
  }
}

TEST_F(Errors, FrontendOutputErrorIsAnOutputErrorThatLeavesNothing) {
  // What the worker answers when it cannot write an image (its directory was removed).
  fs::path frontend = fakeFrontend(
      dir / "output", "    if request['op'] == 'compile':\n"
                      "        print(json.dumps({'ok': False, 'error': {'kind': 'output', 'message':"
                      " 'cannot write out/x.cubin: No such file or directory; check that out exists"
                      " and is writable'}}), flush=True)\n"
                      "        continue\n"
                      "    print(json.dumps({'ok': True, 'params': [{'name': n} for n in "
                      "['x_ptr', 'y_ptr', 'out_ptr', 'n_elements', 'BLOCK']]}), flush=True)\n");
  RunResult r = runCompiler({"vector_add.py", "-n", "add_kernel", "-s",
                     "*fp32, *fp32, *fp32, i32, 1024", "-g", "1", "-t", "cuda:80", "-o", "out/"},
                    dir, {"TRITON_AOT_FRONTEND_DIR=" + frontend.string()});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_NE(r.err.find("cannot write out/x.cubin"), std::string::npos) << r.err;
  expectNoOutputs();
}

TEST_F(Errors, CrashInsideTritonIsAKernelErrorWithItsCause) {
  fs::path frontend = fakeFrontend(
      dir / "crash", "    if request['op'] == 'compile':\n"
                     "        sys.stderr.write('LLVM ERROR: Cannot select: intrinsic\\n')\n"
                     "        sys.stderr.flush()\n"
                     "        import os; os.abort()\n"
                     "    print(json.dumps({'ok': True, 'params': [{'name': n} for n in "
                     "['x_ptr', 'y_ptr', 'out_ptr', 'n_elements', 'BLOCK']]}), flush=True)\n");
  RunResult r = runCompiler({"vector_add.py", "-n", "add_kernel", "-s",
                     "*fp32, *fp32, *fp32, i32, 1024", "-g", "1", "-t", "cuda:80", "-o", "out/"},
                    dir, {"TRITON_AOT_FRONTEND_DIR=" + frontend.string()});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("Triton crashed compiling this kernel"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("LLVM ERROR: Cannot select: intrinsic"), std::string::npos) << r.err;
  expectNoOutputs();
}

} // namespace
} // namespace tta

namespace tta {
namespace {

// An error found only when compiling names where the build declared the kernel: a signature
// whose type does not parse (a usage error, before anything runs) and one with a parameter
// too few (found against the kernel's own parameters).
TEST_F(Errors, ErrorsNameTheDeclarationTheBuildGave) {
  const std::string declared = "kernels/CMakeLists.txt:12 (triton_add_kernel(add))";
  std::vector<std::string> bad_type = addArgs("*fp32, *fp32, *fp32, fp33, 1024");
  bad_type.insert(bad_type.end(), {"--declared-at", declared});
  RunResult r = compile(bad_type);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("did you mean 'fp32'?"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("note: the kernel is declared at " + declared + "\n"), std::string::npos)
      << r.err;

  std::vector<std::string> too_few = addArgs("*fp32, *fp32, i32, 1024");
  too_few.insert(too_few.end(), {"--declared-at=" + declared});
  r = compile(too_few);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("note: the kernel is declared at " + declared + "\n"), std::string::npos)
      << r.err;
  expectNoOutputs();

  // Nothing is noted when nothing failed.
  std::vector<std::string> good = addArgs("*fp32, *fp32, *fp32, i32, 1024");
  good.insert(good.end(), {"--declared-at", declared});
  r = compile(good);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("declared at"), std::string::npos) << r.err;
}

} // namespace
} // namespace tta
