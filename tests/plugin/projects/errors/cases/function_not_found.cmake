# expect: triton_add_kernel\(add\): no function 'add_kernels' in [^ ]*/kernels/add\.py \(its @jit
# expect: functions: add_kernel\)
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernels  # <- error
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
