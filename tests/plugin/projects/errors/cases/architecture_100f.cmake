# expect: triton_add_library\(lib\): ARCHITECTURES: '100f': Triton cannot build family-specific
# expect: \(f\) cubins \(no release up to 3\.9 does\); use '100a'
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80 100f)  # <- error
