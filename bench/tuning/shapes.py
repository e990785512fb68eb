"""The shapes the benchmark tunes and the held-out ones it checks the nearest rule on (none of
them tuned). Read by project/CMakeLists.txt (through `python3 shapes.py matmul|rms`) and proof.py."""
import sys

MATMUL_TUNED = [(m, n, k) for m in (256, 1024, 4096) for n, k in ((1024, 1024), (4096, 1024),
                                                                   (1024, 4096), (4096, 4096))]
MATMUL_HELD_OUT = [(384, 1024, 1024), (512, 2048, 1024), (768, 4096, 4096), (1536, 1024, 1024),
                   (2048, 2048, 2048), (3072, 4096, 1024), (2048, 1536, 4096), (6144, 1024, 4096),
                   (8192, 4096, 1024), (128, 4096, 4096), (4096, 3072, 3072), (1024, 6144, 2048)]
# --specialize: the matmul declared with a generic signature and SPECIALIZE AUTO, tuned at
# shapes where Triton's JIT specializes differently: M = 1 (decode), sizes no multiple of 16.
MATMUL_SPECIALIZE_TUNED = [(1, 4096, 4096), (1, 1024, 4096), (1, 4096, 1024), (16, 4096, 4096),
                           (1000, 1000, 1000), (3000, 3000, 3000), (1000, 4096, 4096),
                           (4096, 1000, 4096), (256, 1024, 1024), (1024, 4096, 4096),
                           (4096, 4096, 4096), (2048, 2048, 2048)]
MATMUL_SPECIALIZE_HELD_OUT = [(1, 2048, 2048), (1, 8192, 4096), (8, 4096, 4096), (2000, 2000, 2000),
                              (3000, 1000, 1000), (1000, 2048, 2048), (512, 4096, 4096),
                              (2048, 4096, 1024), (4000, 4000, 4000), (777, 777, 777)]
RMS_ROWS = 8192
RMS_TUNED = [(n,) for n in (128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 16384)]
RMS_HELD_OUT = [(n,) for n in (192, 384, 640, 896, 1280, 1792, 2560, 3584, 5120, 7168, 12288, 32768)]

if __name__ == "__main__":   # `shapes.py matmul|matmul-specialize|rms`: the tuned shapes as a CMake list
    tuned = {"matmul": MATMUL_TUNED, "matmul-specialize": MATMUL_SPECIALIZE_TUNED,
             "rms": RMS_TUNED}[sys.argv[1]]
    print(";".join(",".join(map(str, s)) for s in tuned))
