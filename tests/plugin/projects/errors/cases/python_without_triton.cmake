# expect: triton-aot: [^ ]*/no_triton \(TRITON_AOT_PYTHON\) cannot import triton
# expect: \(ModuleNotFoundError: No module named 'triton'\)
# expect: pip install 'triton==3\.9\.0'
set(TRITON_AOT_PYTHON "${CMAKE_CURRENT_SOURCE_DIR}/fake_python/no_triton")
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80)  # <- error
