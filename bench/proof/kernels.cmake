# The proof set's own kernels (docs/benchmarks.md, "Equality with Triton"), beside the
# examples' vector_add, softmax and fp16 matmul. Declarations only, so that other projects
# (bench/build_set) can include() them. Every kernel here builds for any architecture; the
# Gluon kernels, whose layouts name the warp size, are in gluon_kernels.cmake.
#
# Configs are what a user would pick for an H100. Hints: pointers are 16-byte aligned (any
# torch or cudaMalloc allocation), strides are multiples of 16 elements; sizes carry no hint,
# so shapes need not be multiples of anything.

triton_add_kernel(layer_norm
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/layer_norm.py"
  FUNCTION layer_norm_fwd_kernel
  # x, y, w, b fp16; mean, rstd fp32; row_stride:16 (rows padded to 16 elements), n_rows, N, eps.
  SIGNATURE "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32, i32, fp32, BLOCK"
  GRID "n_rows"
  # As Triton's tutorial picks them: BLOCK the next power of two of N (up to 64 KiB of row),
  # a warp per 256 elements, at most 8.
  CONFIG "name=block1024 BLOCK=1024 num_warps=4"
  CONFIG "name=block4096 BLOCK=4096 num_warps=8")

triton_add_kernel(matmul_bf16
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/matmul.py"
  FUNCTION matmul_kernel
  SIGNATURE "*bf16:16, *bf16:16, *bf16:16, i32, i32:16, i32, i32:16, i32:16, i32:16, BLOCK_M, BLOCK_N, BLOCK_K, 8"
  GRID "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)"
  # Triton's tutorial configs for Hopper. 128x256x64 in 3 stages needs 112 KiB of shared memory
  # on sm_90a, 128x128x64 in 4 stages 80 KiB: both beyond the 48 KiB a launch gets without
  # opting in. 64x128x32 in 4 stages needs 36 KiB.
  CONFIG "name=128x256x64 BLOCK_M=128 BLOCK_N=256 BLOCK_K=64 num_warps=8 num_stages=3"
  CONFIG "name=128x128x64 BLOCK_M=128 BLOCK_N=128 BLOCK_K=64 num_warps=8 num_stages=4"
  CONFIG "name=64x128x32 BLOCK_M=64 BLOCK_N=128 BLOCK_K=32 num_warps=4 num_stages=4")

# Flash attention, head dim 64, fp16: the causal and the non-causal kernel are two entry points
# of one source (IS_CAUSAL is a constexpr), with the same configs (the tutorial's for head dim 64).
triton_add_kernel(attention_fwd
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/attention.py"
  FUNCTION attention_fwd_kernel
  SIGNATURE "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, i32, 64, BLOCK_M, BLOCK_N, False"
  GRID "cdiv(N_CTX, BLOCK_M)" "heads"
  CONFIG "name=128x64 BLOCK_M=128 BLOCK_N=64 num_warps=4 num_stages=3"
  CONFIG "name=128x128 BLOCK_M=128 BLOCK_N=128 num_warps=8 num_stages=3")
triton_add_kernel(attention_fwd_causal
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/attention.py"
  FUNCTION attention_fwd_kernel
  SIGNATURE "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, i32, 64, BLOCK_M, BLOCK_N, True"
  GRID "cdiv(N_CTX, BLOCK_M)" "heads"
  CONFIG "name=128x64 BLOCK_M=128 BLOCK_N=64 num_warps=4 num_stages=3"
  CONFIG "name=128x128 BLOCK_M=128 BLOCK_N=128 num_warps=8 num_stages=3")

triton_add_kernel(scale_shift
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/scalar_args.py"
  FUNCTION scale_shift_kernel
  # alpha fp32, beta fp16, n_elements i64, use_beta i1: each passed at its own width.
  SIGNATURE "*fp32:16, *fp32:16, fp32, fp16, i64, i1, BLOCK"
  GRID "cdiv(n_elements, BLOCK)"
  CONFIG "name=block1024 BLOCK=1024 num_warps=4"
  CONFIG "name=block4096 BLOCK=4096 num_warps=8")
