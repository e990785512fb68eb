# expect: triton_add_kernel\(add\): SIGNATURE is missing
triton_add_kernel(add SOURCE ${KERNELS}/add.py FUNCTION add_kernel GRID 1)  # <- error
