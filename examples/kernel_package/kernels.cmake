# The kernels of the kernel_package example (keep it to declarations). Both files are modules
# of the package kernels/rownorm/ and are compiled as rownorm.l2_normalize and rownorm.rms_norm,
# so their relative imports of rownorm.common work as they do for the package's users.

# @triton.autotune'd, declared without CONFIG: the library's configs are the decorator's three
# (BLOCK_R1_w4, BLOCK_R4_w4, BLOCK_R8_w8), which set BLOCK_R; the grid reads it. BLOCK_N is
# the widest row (1024 values); `scale=1.0` is left off the signature, so its default is
# compiled in and it is no parameter of the C entry point.
triton_add_kernel(l2_normalize
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/rownorm/l2_normalize.py"
  FUNCTION l2_normalize_kernel
  SIGNATURE "*fp32:16, *fp32:16, i32, i32, i32:16, 1024"
            "*fp32, *fp32, i32, i32, i32, 1024"
  GRID "cdiv(n_rows, BLOCK_R)")

# @triton.heuristics EVEN_N (n_cols % BLOCK_N == 0): both values are compiled and the entry
# point picks one from n_cols. No GRID: the caller passes the grid (one program per row), as
# the entry point's grid_x, grid_y, grid_z. `eps=1e-6` and `HAS_WEIGHT=True` keep their
# defaults.
triton_add_kernel(rms_norm
  SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernels/rownorm/rms_norm.py"
  FUNCTION rms_norm_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, i32, BLOCK_N"
  CONFIG "name=cols1024 BLOCK_N=1024 num_warps=4"
  CONFIG "name=cols4096 BLOCK_N=4096 num_warps=8")
