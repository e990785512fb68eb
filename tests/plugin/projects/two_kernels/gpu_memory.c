#include "gpu_memory.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static struct {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(int *, int);
  CUresult (*cuDeviceGetName)(char *, int, int);
  CUresult (*cuDevicePrimaryCtxRetain)(void **, int);
  CUresult (*cuCtxSetCurrent)(void *);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
} cu;

/* dlsym's object pointer into a function pointer, without the cast ISO C leaves undefined. */
static int bind_symbol(void *library, const char *name, void *function_pointer) {
  void *symbol = dlsym(library, name);
  if (symbol)
    memcpy(function_pointer, &symbol, sizeof symbol);
  return symbol != NULL;
}

const char *gpu_open(char *device, size_t device_size) {
  static char why[256];
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  int count = 0, ordinal = 0;
  void *context = NULL;
  CUresult result;
  if (!library)
    return "cannot load libcuda.so.1";
  if (!bind_symbol(library, "cuInit", &cu.cuInit) ||
      !bind_symbol(library, "cuDeviceGetCount", &cu.cuDeviceGetCount) ||
      !bind_symbol(library, "cuDeviceGet", &cu.cuDeviceGet) ||
      !bind_symbol(library, "cuDeviceGetName", &cu.cuDeviceGetName) ||
      !bind_symbol(library, "cuDevicePrimaryCtxRetain", &cu.cuDevicePrimaryCtxRetain) ||
      !bind_symbol(library, "cuCtxSetCurrent", &cu.cuCtxSetCurrent) ||
      !bind_symbol(library, "cuCtxSynchronize", &cu.cuCtxSynchronize) ||
      !bind_symbol(library, "cuMemAlloc_v2", &cu.cuMemAlloc) ||
      !bind_symbol(library, "cuMemFree_v2", &cu.cuMemFree) ||
      !bind_symbol(library, "cuMemcpyHtoD_v2", &cu.cuMemcpyHtoD) ||
      !bind_symbol(library, "cuMemcpyDtoH_v2", &cu.cuMemcpyDtoH))
    return "libcuda.so.1 lacks a driver entry point this program uses";
  if ((result = cu.cuInit(0)) != 0 || (result = cu.cuDeviceGetCount(&count)) != 0 || count == 0) {
    snprintf(why, sizeof why, "no CUDA device (CUresult %d, %d devices)", result, count);
    return why;
  }
  if ((result = cu.cuDeviceGet(&ordinal, 0)) != 0 ||
      (result = cu.cuDeviceGetName(device, (int)device_size, ordinal)) != 0 ||
      (result = cu.cuDevicePrimaryCtxRetain(&context, ordinal)) != 0 ||
      (result = cu.cuCtxSetCurrent(context)) != 0) {
    snprintf(why, sizeof why, "device 0 unusable (CUresult %d)", result);
    return why;
  }
  return "";
}

void *gpu_alloc(size_t bytes) {
  CUdeviceptr pointer = 0;
  return cu.cuMemAlloc(&pointer, bytes) == 0 ? (void *)(uintptr_t)pointer : NULL;
}

void gpu_free(void *pointer) { cu.cuMemFree((CUdeviceptr)(uintptr_t)pointer); }

int gpu_upload(void *device_pointer, const void *host, size_t bytes) {
  return cu.cuMemcpyHtoD((CUdeviceptr)(uintptr_t)device_pointer, host, bytes);
}

int gpu_download(void *host, const void *device_pointer, size_t bytes) {
  return cu.cuMemcpyDtoH(host, (CUdeviceptr)(uintptr_t)device_pointer, bytes);
}

int gpu_synchronize(void) { return cu.cuCtxSynchronize(); }
