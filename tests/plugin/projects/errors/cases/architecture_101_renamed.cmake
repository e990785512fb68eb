# expect: triton_add_library\(lib\): ARCHITECTURES: '101': Triton 3\.9\.0 \([^)]*\) cannot build
# expect: cuda:101a; set TRITON_AOT_PYTHON to an interpreter whose Triton builds it \(101: 3\.6 at
# expect: most;
# expect: Triton 3\.9\.0 builds: cuda:75 cuda:80 .* cuda:107a cuda:110a cuda:120a cuda:121a hip:gfx908
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80 101)  # <- error
