/* XXH3-64 from xxHash's header, every function static (XXH_INLINE_ALL): nothing is exported and
 * no libxxhash is needed where the library runs. */
#include "image_hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t tta_image_hash(const void *data, size_t size) { return (uint64_t)XXH3_64bits(data, size); }
