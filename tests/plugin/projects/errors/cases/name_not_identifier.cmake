# expect: triton_add_kernel\(vector-add\): the kernel's name must be a C identifier
triton_add_kernel(vector-add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
