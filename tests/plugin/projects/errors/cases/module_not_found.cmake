# expect: triton_add_kernel\(add\): MODULE triton\.language\.nope: no module 'nope' in triton\.language \(core, 
triton_add_kernel(add  # <- error
  MODULE triton.language.nope
  FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024"
  GRID "cdiv(n_elements, 1024)")
