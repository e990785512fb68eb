# expect: triton_add_library\(lib\): ARCHITECTURES: '80a': arch-specific \('a'\) targets start at 90
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80 80a)  # <- error
