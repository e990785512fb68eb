# expect: triton_add_library\(my-kernels\): the C prefix 'my-kernels' is not a C identifier
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(my-kernels KERNELS add ARCHITECTURES 80)  # <- error
