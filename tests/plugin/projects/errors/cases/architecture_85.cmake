# expect: triton_add_library\(lib\): ARCHITECTURES: unknown architecture '85': Triton builds the
# expect: CUDA compute capabilities 75 80
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80 85)  # <- error
