# expect: triton_add_library\(lib\): TRITON_AOT_REMOTE_CACHE carries credentials \(user
# expect: information before '@'\), which CMake would write into CMakeCache\.txt and build\.ninja;
# expect: it was removed from the cache\. Give CMake the URL without them
# absent: hunter/2
set(TRITON_AOT_REMOTE_CACHE "redis://:hunter/2@cache.example:6379/1" CACHE STRING "" FORCE)
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES 80)  # <- error
