# expect: triton_add_library\(lib\): .*no architectures
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
set(CMAKE_TRITON_ARCHITECTURES "")
triton_add_library(lib KERNELS add)  # <- error
