#!/usr/bin/env python3
"""Host time per launch of Triton's own Python launch, `add_kernel[grid](...)`, of the
@triton.jit function bench/launch_overhead times through the generated library (vector add,
BLOCK=1024, num_warps=4, fp32 torch tensors), timed as launch_overhead times its methods:
1000 warm-up launches and a check of x + y, then --repetitions batches of --launches launches,
each batch timed on the host and the stream synchronised after it, never inside it.

    launch_triton.py [--elements 4096] [--repetitions 30] [--launches 500] [--csv FILE]
                     [--expect-sha256 HEX]

The CSV has launch_overhead's columns (device,image,elements,launches,repetition,first) and
one method, triton_python_us_per_launch; bench/launch_all.sh joins the two. --expect-sha256
(the cubin launch_overhead embeds) checks that Triton's JIT built the very same image.
Exit status: 0 measured, 1 error, 77 skipped (no torch, no CUDA GPU).
"""
import argparse
import hashlib
import os
import statistics
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(os.path.dirname(BENCH), "tests", "kernels")
SKIPPED = 77


def write_csv(path, device, image, args, us):
    with open(path, "w") as f:
        f.write("device,image,elements,launches,repetition,first,triton_python_us_per_launch\n")
        for r, value in enumerate(us):
            f.write(f'"{device}",{image},{args.elements},{args.launches},{r},triton_python,'
                    f'{value:.4f}\n')


def time_batches(launch, synchronize, repetitions, launches):
    """Host microseconds per launch, one figure per batch."""
    us = []
    for _ in range(repetitions):
        start = time.perf_counter()
        for _ in range(launches):
            launch()
        stop = time.perf_counter()
        synchronize()
        us.append((stop - start) * 1e6 / launches)
    return us


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--launches", type=int, default=500)
    parser.add_argument("--csv")
    parser.add_argument("--expect-sha256", help="the cubin the library embeds for this GPU")
    args = parser.parse_args()
    if args.elements <= 0 or args.elements % 16 or args.repetitions <= 0 or args.launches <= 0:
        sys.exit("launch_triton: --elements must be a positive multiple of 16, counts positive")

    try:
        import torch
    except ImportError:
        print("launch_triton: skipped: no torch")
        return SKIPPED
    if not torch.cuda.is_available():
        print("launch_triton: skipped: torch sees no CUDA GPU")
        return SKIPPED
    import triton
    sys.path.insert(0, KERNELS)
    from vector_add import add_kernel  # the function launch_overhead.json compiles

    block, n = 1024, args.elements
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    y = 0.5 * x
    out = torch.zeros_like(x)
    grid = (triton.cdiv(n, block),)   # a tuple: cheaper for Triton than a lambda
    stream = torch.cuda.Stream()      # a stream of its own, as launch_overhead's

    def launch():
        return add_kernel[grid](x, y, out, n, BLOCK=block, num_warps=4)

    with torch.cuda.stream(stream):
        compiled = launch()   # compiles (or loads from Triton's cache) and loads
        for _ in range(999):
            launch()
        stream.synchronize()
        if not torch.equal(out, x + y):
            sys.exit("launch_triton: add_kernel computed a wrong sum")
        us = time_batches(launch, stream.synchronize, args.repetitions, args.launches)

    device = torch.cuda.get_device_name()
    major, minor = torch.cuda.get_device_capability()
    image = f"sm_{major}{minor}" + ("a" if major >= 9 else "")   # as Triton builds it
    sha256 = hashlib.sha256(compiled.asm["cubin"]).hexdigest()
    print(f"device: {device}; Triton {triton.__version__}, torch {torch.__version__}")
    print(f"cubin sha256: {sha256}")
    if args.expect_sha256 and args.expect_sha256 != sha256:
        print(f"launch_triton: WARNING: Triton's cubin is not the library's ({args.expect_sha256})")
    print(f"method: host time per launch, median of {args.repetitions} repetitions x "
          f"{args.launches} launches")
    print(f"  add_kernel[grid](...) (Triton {triton.__version__}) {statistics.median(us):7.3f} us  "
          f"(min {min(us):.3f})")
    if args.csv:
        write_csv(args.csv, device, image, args, us)
        print(f"raw figures: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
