# expect: triton_add_library\(lib\): COMPRESS_LEVEL '30' is out of range: 1 \(fastest\) to 22
# expect: \(smallest\)
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80 COMPRESS COMPRESS_LEVEL 30)  # <- error
