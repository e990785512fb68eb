# expect: triton_add_kernel\(add\): SPECIALIZE AUTO specializes for the tuned shapes, and there is no TUNE_SHAPES
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)"
  SPECIALIZE AUTO)
