/* Calls the caller-grid entry point as a row-wise kernel is called: the grid first, then the
 * kernel's arguments. Without a GPU only what needs none is checked: an empty grid launches
 * nothing and succeeds, a config out of range is refused. */
#include <rows.h>
#include <stdio.h>

int main(void) {
  static float rows_buffer[4 * 1024] __attribute__((aligned(16)));
  const uint32_t n_rows = 0;
  triton_aot_status empty = rows_rms_norm(NULL, n_rows, 1, 1, rows_buffer, 1024, rows_buffer,
                                          1024, rows_buffer, 1000, 1e-6f);
  triton_aot_status config = rows_rms_norm_config(NULL, 3, 4, 1, 1, rows_buffer, 1024,
                                                  rows_buffer, 1024, rows_buffer, 1000, 1e-6f);
  triton_aot_status add = rows_add(NULL, rows_buffer, rows_buffer, rows_buffer, 0);
  printf("empty %d config %d add %d\n", (int)empty, (int)config, (int)add);
  return empty == TRITON_AOT_SUCCESS && config == TRITON_AOT_ERROR_INVALID_ARGUMENT &&
                 add == TRITON_AOT_SUCCESS
             ? 0
             : 1;
}
