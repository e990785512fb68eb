# expect: triton-aot: TRITON_AOT_PYTHON is '/nonexistent/bin/python3', which does not exist
set(TRITON_AOT_PYTHON /nonexistent/bin/python3)
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80)  # <- error
