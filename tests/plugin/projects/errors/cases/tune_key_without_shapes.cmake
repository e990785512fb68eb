# expect: triton_add_kernel\(add\): tuning needs TUNE_KEY \(the integer parameters the dispatch
# expect: keys on\) and TUNE_SHAPES
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)"
  TUNE_KEY n_elements)
