# expect: triton_add_kernel\(add\): TUNE_ARGS 'x_ptr': expected <parameter>=<expression>
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)"
  TUNE_KEY n_elements TUNE_SHAPES 1024 TUNE_ARGS x_ptr)
