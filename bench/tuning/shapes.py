"""The shapes the benchmark tunes and the held-out ones it checks the nearest rule on (none of
them tuned). Read by project/CMakeLists.txt (through `python3 shapes.py matmul|rms`) and proof.py."""
import sys

MATMUL_TUNED = [(m, n, k) for m in (256, 1024, 4096) for n, k in ((1024, 1024), (4096, 1024),
                                                                   (1024, 4096), (4096, 4096))]
MATMUL_HELD_OUT = [(384, 1024, 1024), (512, 2048, 1024), (768, 4096, 4096), (1536, 1024, 1024),
                   (2048, 2048, 2048), (3072, 4096, 1024), (2048, 1536, 4096), (6144, 1024, 4096),
                   (8192, 4096, 1024), (128, 4096, 4096), (4096, 3072, 3072), (1024, 6144, 2048)]
RMS_ROWS = 8192
RMS_TUNED = [(n,) for n in (128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 16384)]
RMS_HELD_OUT = [(n,) for n in (192, 384, 640, 896, 1280, 1792, 2560, 3584, 5120, 7168, 12288, 32768)]

if __name__ == "__main__":   # `shapes.py matmul|rms`: the tuned shapes as a CMake list
    tuned = {"matmul": MATMUL_TUNED, "rms": RMS_TUNED}[sys.argv[1]]
    print(";".join(",".join(map(str, s)) for s in tuned))
