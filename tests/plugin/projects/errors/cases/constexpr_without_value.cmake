# expect: triton_add_kernel\(add\): CONFIG 2 \("name=small num_warps=2"\) gives no value for the
# expect: constexpr 'BLOCK'
triton_add_kernel(add  # <- error
  SOURCE ${KERNELS}/add.py
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, BLOCK"
  GRID "cdiv(n_elements, BLOCK)"
  CONFIG "name=big BLOCK=1024 num_warps=4"
  CONFIG "name=small num_warps=2")
