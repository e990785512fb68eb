# Skipped (77) by the driver on a machine with a GPU, where `native` works.
# expect: triton_add_library\(lib\): ARCHITECTURES: 'native': no GPU found on this machine
# expect: \(.*\); name the architectures instead
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel
  SIGNATURE "*fp32, *fp32, *fp32, i32, 1024" GRID "cdiv(n_elements, 1024)")
triton_add_library(lib KERNELS add ARCHITECTURES native)  # <- error
