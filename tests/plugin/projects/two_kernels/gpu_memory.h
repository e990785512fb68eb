/* The few CUDA driver calls the program makes itself (device memory, copies, synchronisation),
 * reached through dlopen as the runtime reaches the driver: the program links no GPU library
 * and starts, and says why it cannot run, on machines without a GPU. */
#ifndef TWO_KERNELS_GPU_MEMORY_H
#define TWO_KERNELS_GPU_MEMORY_H

#include <stddef.h>

/* Makes device 0's primary context current. Returns "" and writes its name to `device`, or
 * returns why there is no usable CUDA GPU. */
const char *gpu_open(char *device, size_t device_size);

void *gpu_alloc(size_t bytes); /* NULL on failure */
void gpu_free(void *pointer);
int gpu_upload(void *device_pointer, const void *host, size_t bytes);   /* 0 on success */
int gpu_download(void *host, const void *device_pointer, size_t bytes); /* 0 on success */
int gpu_synchronize(void);                                              /* 0 on success */

#endif
