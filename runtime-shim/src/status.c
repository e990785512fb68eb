/* Status names. */
#include "triton_aot/runtime.h"

const char *triton_aot_status_name(int status) {
  switch (status) {
  case TRITON_AOT_SUCCESS: return "TRITON_AOT_SUCCESS";
  case TRITON_AOT_ERROR_NO_DRIVER: return "TRITON_AOT_ERROR_NO_DRIVER";
  case TRITON_AOT_ERROR_NO_DEVICE: return "TRITON_AOT_ERROR_NO_DEVICE";
  case TRITON_AOT_ERROR_NO_IMAGE: return "TRITON_AOT_ERROR_NO_IMAGE";
  case TRITON_AOT_ERROR_LOAD_FAILED: return "TRITON_AOT_ERROR_LOAD_FAILED";
  case TRITON_AOT_ERROR_LAUNCH_FAILED: return "TRITON_AOT_ERROR_LAUNCH_FAILED";
  case TRITON_AOT_ERROR_INVALID_ARGUMENT: return "TRITON_AOT_ERROR_INVALID_ARGUMENT";
  case TRITON_AOT_ERROR_OUT_OF_MEMORY: return "TRITON_AOT_ERROR_OUT_OF_MEMORY";
  default: return "unknown status";
  }
}
