# expect: triton_add_kernel\(add\): SOURCE '[^']*/kernels/no_such_file\.py' is not a file
triton_add_kernel(add  # <- error
  SOURCE kernels/no_such_file.py
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024"
  GRID "cdiv(n_elements, 1024)")
