# expect: triton_add_kernel\(add\): SOURCE \(a kernel file\) or MODULE \(a module of an installed package\) is missing
triton_add_kernel(add  # <- error
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024"
  GRID "cdiv(n_elements, 1024)")
