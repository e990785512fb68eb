# A misspelt keyword after a list keyword (KERNELS) must not pass as a kernel name.
# expect: triton_add_library\(lib\): unknown keyword 'ARCHITECTURE'
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURE 80)  # <- error
