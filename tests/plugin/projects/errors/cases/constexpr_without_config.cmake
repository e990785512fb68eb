# expect: triton_add_kernel\(add\): the signature names the constexpr 'BLOCK' but there is no CONFIG
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK" GRID "cdiv(n_elements, BLOCK)")
