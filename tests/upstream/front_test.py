"""The compatibility front (python -m triton_aot.compile / triton_aot.link) on real kernels,
against the installed Triton's own compile.py where they must agree (names, linker lines,
image bytes) and where they must not (float scalars at their width). No GPU: the C is compiled,
not run; upstream's test_aot.py on the GPU machine runs it (run_upstream_test_aot.py).

usage: front_test.py --bin-dir DIR [unittest options]
"""
import argparse
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "tests" / "kernels"
FRONT = ROOT / "python" / "triton_aot"
REFERENCE = Path(__file__).resolve().parent / "upstream_reference.py"
BIN_DIR = None

# tests/kernels/matmul_fp16.py as upstream's test_aot.py declares its matmul: stride_am and
# stride_bk hinted per variant, the inner strides specialized to 1
MATMUL_SIG = ("*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32{ha}, i32:1, i32{hb}, i32:1, i32:16, i32:1, "
              "{bm}, {bn}, {bk}")


def triton_include(backend):
    spec = importlib.util.find_spec("triton")
    base = Path(list(spec.submodule_search_locations)[0]) / "backends"
    return str(base / ("nvidia" if backend == "cuda" else "amd") / "include")


def image_bytes(c_file):
    text = Path(c_file).read_text()
    m = re.search(r"(?:CUBIN|HSACO)_NAME\[(\d+)\] = \{(.*?)\}", text, re.S)
    assert m, f"{c_file}: no embedded image"
    data = bytes(int(x, 16) for x in re.findall(r"0x([0-9a-f]{2})", m.group(2)))
    assert len(data) == int(m.group(1)), f"{c_file}: the array holds {len(data)} of {m.group(1)} bytes"
    return data


# A stand-in for libcuda: loads nothing, and hands each launch to the program's on_launch().
STAND_IN_CUDA = r"""
#include <cuda.h>
void on_launch(unsigned gx, unsigned bx, unsigned shared, void **params);
static int handle;
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  (void)image;
  *module = (CUmodule)&handle;
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  (void)module; (void)name;
  *function = (CUfunction)&handle;
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule module) { (void)module; return CUDA_SUCCESS; }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void **params, void **extra) {
  (void)f; (void)gy; (void)gz; (void)by; (void)bz; (void)stream; (void)extra;
  on_launch(gx, bx, shared, params);
  return CUDA_SUCCESS;
}
"""


def linker_line(h_file):
    return next(ln for ln in Path(h_file).read_text().splitlines() if ln.startswith("// tt-linker:"))


class FrontTest(unittest.TestCase):

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="tta-front-"))
        self.env = dict(os.environ, TRITON_AOT_BIN_DIR=BIN_DIR,
                        TRITON_AOT_CACHE_DIR=str(self.dir / "cache"),
                        # upstream compile.py's Triton cache is keyed without the source's path: a
                        # kernel compiled from another directory would come back naming that one
                        TRITON_CACHE_DIR=str(self.dir / "triton-cache"))
        self.env.pop("TRITON_AOT_TARGET", None)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_tool(self, args, check=True, cwd=None, tool="compile", env=None):
        done = subprocess.run([sys.executable, str(FRONT / f"{tool}.py")] + args, cwd=cwd or self.dir,
                              env=env or self.env, capture_output=True, text=True)
        if check and done.returncode != 0:
            self.fail(f"{tool}.py {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
        return done

    def run_upstream(self, args, cwd):
        done = subprocess.run([sys.executable, str(REFERENCE), "compile"] + args, cwd=cwd, env=self.env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            self.fail(f"upstream compile.py {' '.join(args)} failed:\n{done.stderr}")

    def copy_kernels(self, *names):
        for name in names:
            shutil.copy(KERNELS / name, self.dir / name)

    def write_matmul(self):
        (self.dir / "kernel.py").write_text(Path(KERNELS / "matmul_fp16.py").read_text())

    def compile_c(self, files, backend, compiler="gcc"):
        if not shutil.which(compiler):
            return
        done = subprocess.run([compiler, "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", "-fPIC",
                               "-I", triton_include(backend), "-I", str(self.dir)] + [str(f) for f in files],
                              cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, f"{compiler} on {files}:\n{done.stderr}")

    def test_names_lines_and_images_equal_upstream(self):
        """Upstream compile.py and the front, on the same kernel file: the same file names, the
        same // tt-linker: line (what link.py reads), byte-identical images; CUDA and HIP."""
        self.copy_kernels("matmul_fp16.py")
        cases = [("cuda:80:32", MATMUL_SIG.format(ha=":16", hb="", bm=32, bn=32, bk=32), "4"),
                 ("hip:gfx942:64", MATMUL_SIG.format(ha="", hb=":1", bm=32, bn=32, bk=32), "4")]
        for target, sig, warps in cases:
            for who, out in (("upstream", "up"), ("front", "front")):
                (self.dir / out).mkdir(exist_ok=True)
                args = ["-n", "matmul_kernel", "-s", sig, "-on", "mm", "-o", f"{out}/mm", "-w", warps,
                        "-g", "M/32, N/32, 1", "-t", target, "matmul_fp16.py"]
                self.run_upstream(args, self.dir) if who == "upstream" else self.run_tool(args)
            up = sorted(p.name for p in (self.dir / "up").iterdir())
            front = sorted(p.name for p in (self.dir / "front").iterdir())
            self.assertEqual(up, front, target)
            for name in front:
                if name.endswith(".h"):
                    self.assertEqual(linker_line(self.dir / "up" / name), linker_line(self.dir / "front" / name))
                else:
                    self.assertEqual(image_bytes(self.dir / "up" / name), image_bytes(self.dir / "front" / name),
                                     f"{target}: the images differ")
            shutil.rmtree(self.dir / "up")
            shutil.rmtree(self.dir / "front")

    def test_scalars_at_their_width(self):
        """fp32 is a float, fp16 its 2-byte bits (upstream passes a double for both)."""
        self.copy_kernels("scalar_args.py")
        self.run_tool(["-n", "scale_shift_kernel", "-s", "*fp32:16, *fp32:16, fp32, fp16, i64, i1, 1024",
                       "-o", "scale", "-w", "4", "-g", "(n_elements + 1023) / 1024, 1, 1", "-t", "cuda:80",
                       "scalar_args.py"])
        (h,) = glob.glob(str(self.dir / "scale.*.h"))
        decl = Path(h).read_text()
        self.assertIn("CUdeviceptr x_ptr, CUdeviceptr out_ptr, float alpha, uint16_t beta, int64_t n_elements, "
                      "int8_t use_beta);", decl)
        (c,) = glob.glob(str(self.dir / "scale.*.c"))
        self.assertIn("&alpha, &beta, &n_elements, &use_beta", Path(c).read_text())
        self.compile_c([c], "cuda")

    def test_linked_library_compiles_warning_free(self):
        """Hint variants of two configs, linked: the C of both backends compiles with -Wall -Wextra
        -Werror under gcc and clang, and the header has upstream's API."""
        self.copy_kernels("matmul_fp16.py")
        for target, backend in (("cuda:80:32", "cuda"), ("hip:gfx942:64", "hip")):
            work = self.dir / backend
            work.mkdir()
            shutil.copy(self.dir / "matmul_fp16.py", work)
            for bm, bk in ((32, 32), (64, 32)):
                for ha, hb in ((":16", ":16"), (":16", ""), ("", ":1")):
                    self.run_tool(["-n", "matmul_kernel", "-s", MATMUL_SIG.format(ha=ha, hb=hb, bm=bm, bn=bm, bk=bk),
                                   "-on", "mm", "-o", "mm", "-w", "4", "-g", f"M/{bm}, N/{bm}, 1", "-t", target,
                                   "matmul_fp16.py"], cwd=work)
            headers = sorted(glob.glob(str(work / "mm.*.h")))
            self.assertEqual(len(headers), 6)
            self.run_tool(headers + ["-o", str(work / "kernel")], tool="link", cwd=work)
            api = (work / "kernel.h").read_text()
            for decl in ["int mm_get_num_algos(void);", "TT_ResultTy mm_default(TT_StreamTy stream, ",
                         "int32_t stride_cn, int algo_id);", "void load_mm(void);", "void unload_mm(void);",
                         "TT_ResultTy mm_32x32x32x1x1x1_warps4xstages3(",
                         "TT_ResultTy mm_64x64x32x1x1x1_warps4xstages3("]:
                self.assertIn(decl, api)
            source = (work / "kernel.c").read_text()
            # :1 arguments are kept in the API and checked before a variant specialized to 1 runs
            self.assertIn("(stride_cn == 1)", source)
            self.assertIn("((uintptr_t)a_ptr % 16 == 0)", source)
            files = sorted(glob.glob(str(work / "*.c")))
            self.compile_c(files, backend, "gcc")
            self.compile_c(files, backend, "clang")
            if backend == "cuda":  # the headers from C++ too (extern "C")
                includes = "".join(f'#include "{Path(h).name}"\n' for h in headers + [str(work / "kernel.h")])
                (work / "use.cpp").write_text(includes + "int main() { return mm_get_num_algos() == 2 ? 0 : 1; }\n")
                done = subprocess.run(["g++", "-Wall", "-Wextra", "-Werror", "-c", "-I", triton_include("cuda"),
                                       "use.cpp"], cwd=work, capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)

    def build_on_stand_in_driver(self, sources, main_c):
        """Links the front's C with a main program against a stand-in for libcuda that loads
        nothing and, at each launch, hands the grid, block, shared memory and parameter
        addresses to the program's on_launch(): the launch as the driver would see it."""
        (self.dir / "stand_in_cuda.c").write_text(STAND_IN_CUDA)
        (self.dir / "main.c").write_text(main_c)
        exe = self.dir / "prog"
        done = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", triton_include("cuda"),
                               "-o", str(exe), "stand_in_cuda.c", "main.c"] + [str(s) for s in sources],
                              cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout

    def test_launch_packs_scalars_at_their_width(self):
        """The launch hands the driver a 4-byte float for fp32, the 2-byte bits for fp16, and the
        grid from the -g expressions; upstream's hands it an 8-byte double for both."""
        self.copy_kernels("scalar_args.py")
        self.run_tool(["-n", "scale_shift_kernel", "-s", "*fp32:16, *fp32:16, fp32, fp16, i64, i1, 1024",
                       "-o", "scale", "-on", "scale", "-w", "4", "-g", "(n_elements + 1023) / 1024, 1, 1",
                       "-t", "cuda:80", "scalar_args.py"])
        (c,) = glob.glob(str(self.dir / "scale.*.c"))
        (h,) = glob.glob(str(self.dir / "scale.*.h"))
        func = re.search(r"CUresult (scale_\w+)\(", Path(h).read_text()).group(1)
        out = self.build_on_stand_in_driver([c], f"""
#include <stdio.h>
#include "{Path(h).name}"
void on_launch(unsigned gx, unsigned bx, unsigned shared, void **params) {{
  printf("grid %u block %u shared %u alpha %.2f beta %04x n %lld use %d\\n", gx, bx, shared,
         *(float *)params[2], *(uint16_t *)params[3], (long long)*(int64_t *)params[4], *(int8_t *)params[5]);
}}
int main(void) {{
  return (int){func}(NULL, 16, 32, 1.5f, 0x3c00, 5000, 1);
}}
""")
        self.assertRegex(out, r"^grid 5 block 128 shared \d+ alpha 1.50 beta 3c00 n 5000 use 1\n$")

    def test_dispatch_checks_hints_and_algo_ids(self):
        """link.py's dispatcher: a variant runs only when its hints hold (:1 arguments checked),
        none holding and an algo id out of range return CUDA_ERROR_INVALID_VALUE, launching nothing."""
        self.copy_kernels("vector_add.py")
        for sig in ("*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", "*fp32:16, *fp32:16, *fp32:16, i32:1, 256"):
            self.run_tool(["-n", "add_kernel", "-s", sig, "-on", "add", "-o", "add", "-w", "4",
                           "-g", "n_elements, 1, 1", "-t", "cuda:80", "vector_add.py"])
        self.run_tool(sorted(glob.glob(str(self.dir / "add.*.h"))) + ["-o", "kernel"], tool="link")
        out = self.build_on_stand_in_driver(sorted(glob.glob(str(self.dir / "*.c"))), """
#include <stdio.h>
#include "kernel.h"
void on_launch(unsigned gx, unsigned bx, unsigned shared, void **params) {
  (void)shared;
  (void)params;
  printf("launch grid %u block %u\\n", gx, bx);
}
int main(void) {
  printf("%d algos\\n", add_get_num_algos());
  for (int algo = 0; algo < 3; ++algo) {
    const int32_t sizes[] = {32, 1, 7};
    for (int i = 0; i < 3; ++i) {
      CUresult r = add(NULL, 16, 32, 48, sizes[i], algo);
      printf("algo %d n %d -> %d\\n", algo, sizes[i], (int)r);
    }
  }
  printf("default -> %d\\n", (int)add_default(NULL, 16, 32, 48, 64));
  printf("misaligned -> %d\\n", (int)add_default(NULL, 17, 32, 48, 64));
  return 0;
}
""")
        invalid = 1  # CUDA_ERROR_INVALID_VALUE
        expected = ["2 algos",
                    # algo 0 (BLOCK 1024): n % 16 == 0 only; algo 1 (BLOCK 256): n == 1 only, its
                    # grid (n_elements) naming the argument specialized to 1
                    "launch grid 32 block 128", "algo 0 n 32 -> 0", f"algo 0 n 1 -> {invalid}",
                    f"algo 0 n 7 -> {invalid}",
                    f"algo 1 n 32 -> {invalid}", "launch grid 1 block 128", "algo 1 n 1 -> 0",
                    f"algo 1 n 7 -> {invalid}",
                    f"algo 2 n 32 -> {invalid}", f"algo 2 n 1 -> {invalid}", f"algo 2 n 7 -> {invalid}",
                    "launch grid 64 block 128", "default -> 0", f"misaligned -> {invalid}"]
        self.assertEqual(out.splitlines(), expected)

    def test_link_reads_upstream_headers(self):
        """A library linked by the front from upstream compile.py's own headers compiles."""
        self.write_matmul()
        for ha in (":16", ""):
            self.run_upstream(["-n", "matmul_kernel", "-s", MATMUL_SIG.format(ha=ha, hb="", bm=32, bn=32, bk=32),
                               "-on", "mm", "-o", "mm", "-w", "4", "-g", "M/32, N/32, 1", "-t", "cuda:80:32",
                               "kernel.py"], self.dir)
        self.run_tool(sorted(glob.glob(str(self.dir / "mm.*.h"))) + ["-o", "kernel"], tool="link")
        self.compile_c([self.dir / "kernel.c"], "cuda")
        self.assertEqual(len(re.findall(r"return mm_[0-9a-f]{8}_", (self.dir / "kernel.c").read_text())), 2)

    def test_errors_name_the_problem(self):
        self.copy_kernels("vector_add.py", "bad_kernel.py")
        base = ["-s", "*fp32:16, *fp32:16, *fp32:16, i32:8, 1024", "-g", "1, 1, 1", "vector_add.py"]
        done = self.run_tool(["-n", "add_kernel", "-t", "cuda:80"] + base, check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("only 1 and 16 are valid hints, got 8", done.stderr)
        # no target and no GPU: upstream asks the GPU; here the message says what to give instead
        base[1] = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
        done = self.run_tool(["-n", "add_kernel"] + base, check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("no --target given and no GPU found", done.stderr)
        self.assertIn("TRITON_AOT_TARGET", done.stderr)
        # TRITON_AOT_TARGET stands in for the GPU
        done = self.run_tool(["-n", "add_kernel"] + base, env=dict(self.env, TRITON_AOT_TARGET="cuda:80:32"))
        self.assertEqual(len(glob.glob(str(self.dir / "add_kernel.*.c"))), 1)
        # a kernel that does not compile: triton-aot-cc's file:line diagnostic, no traceback
        done = self.run_tool(["-n", "undefined_name_kernel", "-s", "*fp32, i32, 64", "-g", "1, 1, 1", "-t", "cuda:80",
                              "bad_kernel.py"], check=False)
        self.assertNotEqual(done.returncode, 0)
        self.assertRegex(done.stderr, r"bad_kernel\.py:\d+:\d+: error: ")
        self.assertNotIn("Traceback", done.stderr)
        # link: a header compile.py did not write, and configs whose C parameters differ
        (self.dir / "other.h").write_text("int f(void);\n")
        done = self.run_tool([str(self.dir / "other.h"), "-o", "k"], tool="link", check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("other.h: no '// tt-linker:' line", done.stderr)
        (self.dir / "a.h").write_text("// tt-linker: k_0123abcd_:int32_t n:1_warps1xstages3\n")
        (self.dir / "b.h").write_text("// tt-linker: k_4567abcd_:int64_t n:2_warps1xstages3\n")
        done = self.run_tool(["a.h", "b.h", "-o", "k"], tool="link", check=False)
        self.assertEqual(done.returncode, 1)
        self.assertIn("b.h:1: k_4567abcd_(int64_t n) does not match k_0123abcd_(int32_t n)", done.stderr)

    def test_triton_36_names_and_files(self):
        """With Triton 3.6 the front writes what 3.6's compile.py writes: its names (the suffix
        names every parameter's index), HIP launchers as .cpp, byte-identical images; and the
        front's link.py reads 3.6's headers."""
        python36 = ROOT / ".venv-triton-3.6.0" / "bin" / "python"
        if not python36.exists():
            self.skipTest("no .venv-triton-3.6.0")
        self.copy_kernels("vector_add.py")
        sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"
        for target in ("cuda:80:32", "hip:gfx942:64"):
            for out, script in (("up", [str(REFERENCE), "compile"]), ("front", [str(FRONT / "compile.py")])):
                (self.dir / out).mkdir(exist_ok=True)
                subprocess.run([str(python36)] + script + ["-n", "add_kernel", "-s", sig, "-g", "n_elements / 1024, 1, 1",
                                                            "-t", target, "-o", f"{out}/add", "vector_add.py"],
                               cwd=self.dir, env=self.env, check=True, capture_output=True)
            up = sorted(p.name for p in (self.dir / "up").iterdir())
            self.assertEqual(up, sorted(p.name for p in (self.dir / "front").iterdir()))
            source = next(n for n in up if not n.endswith(".h"))
            self.assertTrue(source.endswith("_0d1d2d3d4.c" if target.startswith("cuda") else "_0d1d2d3d4.cpp"), up)
            self.assertEqual(image_bytes(self.dir / "up" / source), image_bytes(self.dir / "front" / source))
            if target.startswith("cuda"):
                header = next(n for n in up if n.endswith(".h"))
                self.assertEqual(linker_line(self.dir / "up" / header), linker_line(self.dir / "front" / header))
                done = subprocess.run([str(python36), str(FRONT / "link.py"), f"up/{header}", "-o", "lib"],
                                      cwd=self.dir, env=self.env, capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn("(n_elements % 16 == 0)", (self.dir / "lib.c").read_text())
            shutil.rmtree(self.dir / "up")
            shutil.rmtree(self.dir / "front")
        # 3.6 names the constexprs' indices too, after the C parameters, and un-hinted ones run
        # together ("0d1d2d3456d7c...10d11c121314"): link.py must read them as 3.6's does.
        self.write_matmul()
        for ha, hb in (("", ":16"), (":16", "")):
            subprocess.run([str(python36), str(REFERENCE), "compile", "-n", "matmul_kernel", "-s",
                            MATMUL_SIG.format(ha=ha, hb=hb, bm=16, bn=16, bk=16), "-g",
                            "M / 16, N / 16, 1", "-w", "1", "-t", "cuda:80:32", "-o", "matmul",
                            "kernel.py"],
                           cwd=self.dir, env=self.env, check=True, capture_output=True)
        headers = sorted(str(p.name) for p in self.dir.glob("matmul*.h"))
        self.assertEqual(len(headers), 2, headers)
        self.assertTrue(any("3456d7c" in h for h in headers), headers)
        done = subprocess.run([str(python36), str(FRONT / "link.py")] + headers + ["-o", "lib"],
                              cwd=self.dir, env=self.env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        dispatch = (self.dir / "lib.c").read_text()
        self.assertIn("(stride_am % 16 == 0)", dispatch)
        self.assertIn("(stride_bk % 16 == 0)", dispatch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    known, rest = parser.parse_known_args()
    BIN_DIR = known.bin_dir
    unittest.main(argv=[sys.argv[0]] + rest)
