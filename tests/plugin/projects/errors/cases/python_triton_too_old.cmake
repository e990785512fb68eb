# expect: triton-aot: [^ ]*/triton_3_4 \(TRITON_AOT_PYTHON\) has Triton 3\.4\.0; triton-aot needs
# expect: 3\.5 or newer
# expect: pip install 'triton==3\.9\.0'
set(TRITON_AOT_PYTHON "${CMAKE_CURRENT_SOURCE_DIR}/fake_python/triton_3_4")
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80)  # <- error
