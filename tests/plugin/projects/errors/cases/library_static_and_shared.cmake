# expect: triton_add_library\(lib\): STATIC or SHARED, not both
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib STATIC SHARED KERNELS add ARCHITECTURES 80)  # <- error
