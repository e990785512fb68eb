/* Which config the tuned library runs for each size on an sm_80 device, without a GPU: the
 * boundary between the tuned sizes 1024 and 1048576 is their geometric mean, 32768. */
#include <adds.h>
#include <stdio.h>

int main(void) {
  static const int32_t sizes[] = {1, 1024, 32767, 32768, 1048576, 1 << 30};
  size_t i;
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
    printf("%d:%s ", (int)sizes[i],
           adds_add_config_name(adds_add_select_config("cuda:80", NULL, NULL, NULL, sizes[i])));
  printf("other:%s\n", adds_add_config_name(adds_add_select_config("cuda:90a", NULL, NULL, NULL, 1 << 30)));
  return 0;
}
