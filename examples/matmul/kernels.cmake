# The kernels of the matmul example (also included by bench/: keep it to declarations).
triton_add_kernel(matmul
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/matmul.py"
  FUNCTION matmul_kernel
  # N and the row strides (K for A, N for B and C) are multiples of 16 elements: the kernel
  # wraps columns past N in 16-element-aligned steps (see kernels/matmul.py).
  SIGNATURE "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32, i32:16, i32:16, i32:16, BLOCK_M, BLOCK_N, BLOCK_K"
  GRID "cdiv(M, BLOCK_M)" "cdiv(N, BLOCK_N)" 1
  CONFIG "name=64x64x32 BLOCK_M=64 BLOCK_N=64 BLOCK_K=32 num_warps=4 num_stages=3"
  CONFIG "name=128x64x32 BLOCK_M=128 BLOCK_N=64 BLOCK_K=32 num_warps=4 num_stages=4"
  # Pipelined 128x64 and 64x128 fp16 tiles: 80 KiB of shared memory on sm_90a (64 KiB on sm_80
  # and gfx942), beyond the 48 KiB a CUDA launch gets without opting in (the runtime opts in).
  CONFIG "name=128x128x64 BLOCK_M=128 BLOCK_N=128 BLOCK_K=64 num_warps=8 num_stages=4")
