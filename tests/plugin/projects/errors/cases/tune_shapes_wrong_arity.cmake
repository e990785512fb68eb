# expect: triton_add_kernel\(add\): TUNE_SHAPES '1024,8': expected 1 positive integers separated
# expect: by commas, one per TUNE_KEY name \(n_elements\)
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)"
  TUNE_KEY n_elements TUNE_SHAPES 1024 1024,8)
