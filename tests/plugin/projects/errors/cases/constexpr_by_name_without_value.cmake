# expect: triton_add_kernel\(add\): CONFIG 1 \("num_warps=4"\) gives no value for the constexpr
# expect: 'TILE'
triton_add_kernel(add  # <- error
  SOURCE ${KERNELS}/add.py
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, BLOCK=TILE"
  GRID "cdiv(n_elements, TILE)"
  CONFIG "num_warps=4")
