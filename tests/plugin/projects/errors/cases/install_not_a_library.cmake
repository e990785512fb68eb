# triton_install_library() of a target triton_add_library() did not make.
# expect: triton_install_library\(plain\): 'plain' is not a triton_add_library\(\) target
add_custom_target(plain)
triton_install_library(plain)  # <- error
