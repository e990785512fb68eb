/* Image inspection for the fake drivers: just enough of ELF (cubin .nv.info, HSACO notes with
 * msgpack kernel metadata) and PTX text to behave like a driver that checks what it loads. */
#include "fake_image.h"

#include <stdio.h>
#include <string.h>

enum { EM_CUDA_ = 190, EM_AMDGPU_ = 224, SHT_SYMTAB_ = 2, SHT_NOTE_ = 7, SHT_NOBITS_ = 8,
       SHT_DYNSYM_ = 11, PT_NOTE_ = 4, NT_AMDGPU_METADATA_ = 32 };
enum { CUDA_ERROR_NO_BINARY_FOR_GPU_ = 209, CUDA_ERROR_INVALID_PTX_ = 218,
       CUDA_ERROR_UNSUPPORTED_PTX_VERSION_ = 222, hipErrorNoBinaryForGpu_ = 209 };

/* ---------------------------------------------------------------------------------------- */
/* ELF64 little-endian, read within the extent its headers describe.                          */

static uint64_t rd(const unsigned char *p, int bytes) {
  uint64_t value = 0;
  int i;
  for (i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

typedef struct elf_section {
  uint32_t name, type;
  uint64_t offset, size;
  uint32_t link;
  uint64_t entsize;
} elf_section;

static int elf_sections(const fake_image *image, uint32_t *count) {
  *count = (uint32_t)rd(image->data + 0x3c, 2);
  return 0;
}

static elf_section elf_section_at(const fake_image *image, uint32_t index) {
  const unsigned char *header = image->data + rd(image->data + 0x28, 8) + (uint64_t)index * rd(image->data + 0x3a, 2);
  elf_section section;
  section.name = (uint32_t)rd(header, 4);
  section.type = (uint32_t)rd(header + 4, 4);
  section.offset = rd(header + 0x18, 8);
  section.size = rd(header + 0x20, 8);
  section.link = (uint32_t)rd(header + 0x28, 4);
  section.entsize = rd(header + 0x38, 8);
  if (section.type != SHT_NOBITS_ && section.offset + section.size > image->size) section.size = 0;
  return section;
}

static const char *elf_section_name(const fake_image *image, const elf_section *section) {
  elf_section names = elf_section_at(image, (uint32_t)rd(image->data + 0x3e, 2));
  if (section->name >= names.size) return "";
  return (const char *)image->data + names.offset + section->name;
}

static int elf_find_section(const fake_image *image, const char *name, elf_section *out) {
  uint32_t count, i;
  elf_sections(image, &count);
  for (i = 0; i < count; ++i) {
    *out = elf_section_at(image, i);
    if (strcmp(elf_section_name(image, out), name) == 0) return 1;
  }
  return 0;
}

static uint64_t elf_extent(const unsigned char *data) {
  uint64_t phoff = rd(data + 0x20, 8), shoff = rd(data + 0x28, 8);
  uint64_t phentsize = rd(data + 0x36, 2), phnum = rd(data + 0x38, 2);
  uint64_t shentsize = rd(data + 0x3a, 2), shnum = rd(data + 0x3c, 2);
  uint64_t extent = shoff + shnum * shentsize, i;
  if (phoff + phnum * phentsize > extent) extent = phoff + phnum * phentsize;
  for (i = 0; i < shnum; ++i) {
    const unsigned char *s = data + shoff + i * shentsize;
    if (rd(s + 4, 4) != SHT_NOBITS_ && rd(s + 0x18, 8) + rd(s + 0x20, 8) > extent)
      extent = rd(s + 0x18, 8) + rd(s + 0x20, 8);
  }
  for (i = 0; i < phnum; ++i) {
    const unsigned char *p = data + phoff + i * phentsize;
    if (rd(p + 8, 8) + rd(p + 0x20, 8) > extent) extent = rd(p + 8, 8) + rd(p + 0x20, 8);
  }
  return extent;
}

/* Whether the image defines symbol `name` (in .symtab or .dynsym). */
static int elf_has_symbol(const fake_image *image, const char *name) {
  uint32_t count, i;
  elf_sections(image, &count);
  for (i = 0; i < count; ++i) {
    elf_section symbols = elf_section_at(image, i), strings;
    uint64_t s;
    if ((symbols.type != SHT_SYMTAB_ && symbols.type != SHT_DYNSYM_) || symbols.entsize < 24) continue;
    strings = elf_section_at(image, symbols.link);
    for (s = 0; s + 24 <= symbols.size; s += symbols.entsize) {
      uint32_t at = (uint32_t)rd(image->data + symbols.offset + s, 4);
      uint16_t section_index = (uint16_t)rd(image->data + symbols.offset + s + 6, 2);
      if (at < strings.size && section_index != 0 &&
          strcmp((const char *)image->data + strings.offset + at, name) == 0)
        return 1;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* AMDGPU e_flags                                                                              */

static const struct { unsigned mach; const char *name; } amdgpu_machs[] = {
  {0x02c, "gfx900"}, {0x02f, "gfx906"}, {0x030, "gfx908"}, {0x036, "gfx1030"},
  {0x03f, "gfx90a"}, {0x040, "gfx940"}, {0x041, "gfx1100"}, {0x046, "gfx1101"},
  {0x047, "gfx1102"}, {0x048, "gfx1200"}, {0x04b, "gfx941"}, {0x04c, "gfx942"},
  {0x04e, "gfx1201"}, {0x04f, "gfx950"}, {0x051, "gfx9-generic"}, {0x054, "gfx11-generic"},
  {0x059, "gfx12-generic"}, {0x05f, "gfx9-4-generic"},
};

static void read_hsaco_arch(fake_image *image) {
  uint32_t flags = (uint32_t)rd(image->data + 0x30, 4);
  unsigned abi = image->data[8];
  size_t i;
  snprintf(image->processor, sizeof image->processor, "gfx?%#x", flags & 0xffu);
  for (i = 0; i < sizeof amdgpu_machs / sizeof amdgpu_machs[0]; ++i)
    if (amdgpu_machs[i].mach == (flags & 0xffu))
      snprintf(image->processor, sizeof image->processor, "%s", amdgpu_machs[i].name);
  if (abi >= 2) { /* code object V4+: two-bit fields (unsupported, any, off, on) */
    static const int modes[4] = {-2, -1, 0, 1};
    image->xnack = modes[(flags >> 8) & 3u];
    image->sramecc = modes[(flags >> 10) & 3u];
  } else { /* V3: single bits, set = on */
    image->xnack = (flags & 0x100u) ? 1 : 0;
    image->sramecc = (flags & 0x200u) ? 1 : 0;
  }
  snprintf(image->arch, sizeof image->arch, "%s%s%s", image->processor,
           image->sramecc >= 0 ? (image->sramecc ? ":sramecc+" : ":sramecc-") : "",
           image->xnack >= 0 ? (image->xnack ? ":xnack+" : ":xnack-") : "");
}

/* ---------------------------------------------------------------------------------------- */
/* PTX text                                                                                    */

static const char *skip_space(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
  return p;
}

static int read_ptx(const char *text, fake_image *image) {
  const char *version = strstr(text, ".version"), *target = strstr(text, ".target");
  const char *start = skip_space(text);
  int major = 0, minor = 0, sm = 0;
  char suffix = 0;
  if ((start[0] != '/' && start[0] != '.') || version == NULL || target == NULL) return -1;
  if (sscanf(version, ".version %d.%d", &major, &minor) != 2) return -1;
  if (sscanf(target, ".target sm_%d%c", &sm, &suffix) < 1) return -1;
  image->kind = TTA_FAKE_IMAGE_PTX;
  image->size = strlen(text);
  image->ptx_version = major * 10 + minor;
  image->sm = sm;
  image->arch_specific = suffix == 'a';
  snprintf(image->arch, sizeof image->arch, "sm_%d%s", sm, suffix == 'a' ? "a" : "");
  return 0;
}

static unsigned ptx_type_size(const char *type) {
  if (type[2] == '8' && (type[3] == ' ' || type[3] == '\t' || type[3] == '\n' || type[3] == '\0')) return 1;
  if (strncmp(type + 2, "16", 2) == 0) return 2;
  if (strncmp(type + 2, "32", 2) == 0) return 4;
  if (strncmp(type + 2, "64", 2) == 0) return 8;
  return 0;
}

static void read_dims(const char *p, unsigned dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  sscanf(p, "%u , %u , %u", &dims[0], &dims[1], &dims[2]);
}

static void ptx_entry(const fake_image *image, const char *name, fake_entry *entry) {
  const char *text = (const char *)image->data, *p = text;
  size_t length = strlen(name);
  while ((p = strstr(p, ".entry")) != NULL) {
    const char *at = skip_space(p + 6), *end, *body;
    p += 6;
    if (strncmp(at, name, length) != 0) continue;
    at = skip_space(at + length);
    if (*at != '(') continue;
    entry->found = 1;
    end = strchr(at, ')');
    body = end ? strchr(end, '{') : NULL;
    if (end == NULL || body == NULL) return;
    /* ".param <type> [.ptr .global .align N] name[N]" separated by commas */
    for (p = at; (p = strstr(p, ".param")) != NULL && p < end; ++p) {
      const char *type = skip_space(p + 6), *comma, *bracket;
      unsigned size = 0, count = 1;
      while (*type == '.' && ptx_type_size(type) == 0) { /* .align N before the type */
        type = strpbrk(type, " \t");
        if (type == NULL) return;
        type = skip_space(type);
        if (*type >= '0' && *type <= '9') type = skip_space(strpbrk(type, " \t"));
      }
      size = ptx_type_size(type);
      comma = strchr(type, ',');
      if (comma == NULL || comma > end) comma = end;
      bracket = strchr(type, '[');
      if (bracket != NULL && bracket < comma) sscanf(bracket + 1, "%u", &count);
      if (entry->param_count < TTA_FAKE_MAX_PARAMS) entry->param_size[entry->param_count] = size * count;
      entry->param_count++;
    }
    for (p = end; p < body; ++p) {
      if (strncmp(p, ".reqntid", 8) == 0) read_dims(p + 8, entry->reqntid);
      if (strncmp(p, ".reqnctapercluster", 18) == 0) read_dims(p + 18, entry->cluster);
    }
    return;
  }
}

/* ---------------------------------------------------------------------------------------- */
/* cubin: .nv.info.<entry> attributes                                                         */

enum { EIATTR_PARAM_INFO = 0x17, EIATTR_REQNTID = 0x10, EIATTR_CTA_PER_CLUSTER = 0x3d };

static void cubin_entry(const fake_image *image, const char *name, fake_entry *entry) {
  char section_name[256];
  elf_section info;
  uint64_t at;
  entry->found = elf_has_symbol(image, name);
  if (!entry->found) return;
  snprintf(section_name, sizeof section_name, ".nv.shared.%s", name);
  if (elf_find_section(image, section_name, &info)) entry->static_shared = (unsigned)info.size;
  snprintf(section_name, sizeof section_name, ".nv.info.%s", name);
  if (!elf_find_section(image, section_name, &info)) return;
  for (at = 0; at + 4 <= info.size;) {
    const unsigned char *record = image->data + info.offset + at;
    unsigned format = record[0], attribute = record[1], value = (unsigned)rd(record + 2, 2);
    const unsigned char *data = record + 4;
    at += 4;
    if (format != 4) continue; /* only EIFMT_SVAL records carry data */
    if (at + value > info.size) break;
    at += value;
    if (attribute == EIATTR_PARAM_INFO && value >= 12) {
      unsigned ordinal = (unsigned)rd(data + 4, 2), size = (unsigned)(rd(data + 8, 4) >> 18);
      if (ordinal < TTA_FAKE_MAX_PARAMS) {
        entry->param_size[ordinal] = size;
        if (ordinal + 1 > entry->param_count) entry->param_count = ordinal + 1;
      }
    } else if ((attribute == EIATTR_REQNTID || attribute == EIATTR_CTA_PER_CLUSTER) && value >= 12) {
      unsigned *dims = attribute == EIATTR_REQNTID ? entry->reqntid : entry->cluster;
      dims[0] = (unsigned)rd(data, 4);
      dims[1] = (unsigned)rd(data + 4, 4);
      dims[2] = (unsigned)rd(data + 8, 4);
    }
  }
}

/* ---------------------------------------------------------------------------------------- */
/* HSACO: the NT_AMDGPU_METADATA note, msgpack: {"amdhsa.kernels": [{".name", ".args": [...]}]} */

typedef struct mp_reader {
  const unsigned char *p, *end;
  int bad;
} mp_reader;

typedef struct mp_item {
  char type;                 /* 'm' map, 'a' array, 's' string, 'i' integer, 'o' other */
  uint64_t count;            /* map pairs, array items, string bytes */
  const unsigned char *text;
  uint64_t value;
} mp_item;

static uint64_t mp_take(mp_reader *r, unsigned bytes) {
  uint64_t value = 0;
  unsigned i;
  if ((uint64_t)(r->end - r->p) < bytes) {
    r->bad = 1;
    r->p = r->end;
    return 0;
  }
  for (i = 0; i < bytes; ++i) value = (value << 8) | *r->p++;
  return value;
}

static void mp_payload(mp_reader *r, mp_item *item, uint64_t bytes) {
  item->text = r->p;
  item->count = bytes;
  if ((uint64_t)(r->end - r->p) < bytes) {
    r->bad = 1;
    r->p = r->end;
  } else {
    r->p += bytes;
  }
}

static mp_item mp_next(mp_reader *r) {
  mp_item item = {'o', 0, NULL, 0};
  unsigned byte = (unsigned)mp_take(r, 1);
  if (r->bad) return item;
  if (byte <= 0x7f) { item.type = 'i'; item.value = byte; }
  else if (byte >= 0xe0) { item.type = 'i'; item.value = (uint64_t)(int64_t)(int8_t)byte; }
  else if (byte >= 0x80 && byte <= 0x8f) { item.type = 'm'; item.count = byte & 0xf; }
  else if (byte >= 0x90 && byte <= 0x9f) { item.type = 'a'; item.count = byte & 0xf; }
  else if (byte >= 0xa0 && byte <= 0xbf) { item.type = 's'; mp_payload(r, &item, byte & 0x1f); }
  else switch (byte) {
    case 0xc0: case 0xc2: case 0xc3: break;
    case 0xc4: case 0xd9: item.type = byte == 0xd9 ? 's' : 'o'; mp_payload(r, &item, mp_take(r, 1)); break;
    case 0xc5: case 0xda: item.type = byte == 0xda ? 's' : 'o'; mp_payload(r, &item, mp_take(r, 2)); break;
    case 0xc6: case 0xdb: item.type = byte == 0xdb ? 's' : 'o'; mp_payload(r, &item, mp_take(r, 4)); break;
    case 0xca: mp_take(r, 4); break;
    case 0xcb: mp_take(r, 8); break;
    case 0xcc: case 0xd0: item.type = 'i'; item.value = mp_take(r, 1); break;
    case 0xcd: case 0xd1: item.type = 'i'; item.value = mp_take(r, 2); break;
    case 0xce: case 0xd2: item.type = 'i'; item.value = mp_take(r, 4); break;
    case 0xcf: case 0xd3: item.type = 'i'; item.value = mp_take(r, 8); break;
    case 0xdc: item.type = 'a'; item.count = mp_take(r, 2); break;
    case 0xdd: item.type = 'a'; item.count = mp_take(r, 4); break;
    case 0xde: item.type = 'm'; item.count = mp_take(r, 2); break;
    case 0xdf: item.type = 'm'; item.count = mp_take(r, 4); break;
    default: r->bad = 1; break; /* ext types: Triton's metadata has none */
  }
  return item;
}

static void mp_skip(mp_reader *r, int depth) {
  mp_item item = mp_next(r);
  uint64_t i, n = item.type == 'm' ? item.count * 2 : item.type == 'a' ? item.count : 0;
  if (depth > 32) { r->bad = 1; return; }
  for (i = 0; i < n && !r->bad; ++i) mp_skip(r, depth + 1);
}

static int mp_is(const mp_item *item, const char *text) {
  return item->type == 's' && item->count == strlen(text) &&
         memcmp(item->text, text, item->count) == 0;
}

/* Explicit (non-hidden) arguments of one kernel's ".args" array, in order. */
static void hsaco_args(mp_reader r, fake_entry *entry) {
  mp_item args = mp_next(&r);
  uint64_t i, k;
  for (i = 0; i < args.count && !r.bad; ++i) {
    mp_item arg = mp_next(&r);
    unsigned size = 0;
    int hidden = 0;
    for (k = 0; k < arg.count && !r.bad; ++k) {
      mp_item key = mp_next(&r);
      if (mp_is(&key, ".size")) {
        size = (unsigned)mp_next(&r).value;
      } else if (mp_is(&key, ".value_kind")) {
        mp_item kind = mp_next(&r);
        hidden = kind.type == 's' && kind.count >= 7 && memcmp(kind.text, "hidden_", 7) == 0;
      } else {
        mp_skip(&r, 0);
      }
    }
    if (!hidden) {
      if (entry->param_count < TTA_FAKE_MAX_PARAMS) entry->param_size[entry->param_count] = size;
      entry->param_count++;
    }
  }
}

static void hsaco_metadata(const unsigned char *data, uint64_t size, const char *name,
                           fake_entry *entry) {
  mp_reader r = {data, data + size, 0};
  mp_item top = mp_next(&r);
  uint64_t i, k, j;
  for (i = 0; i < top.count && !r.bad; ++i) {
    mp_item key = mp_next(&r), kernels;
    if (!mp_is(&key, "amdhsa.kernels")) { mp_skip(&r, 0); continue; }
    kernels = mp_next(&r);
    for (k = 0; k < kernels.count && !r.bad; ++k) {
      mp_item kernel = mp_next(&r);
      mp_reader args = {NULL, NULL, 1};
      int matches = 0;
      unsigned max_threads = 0;
      for (j = 0; j < kernel.count && !r.bad; ++j) {
        mp_item field = mp_next(&r);
        if (mp_is(&field, ".name")) {
          mp_item value = mp_next(&r);
          matches = mp_is(&value, name);
        } else if (mp_is(&field, ".max_flat_workgroup_size")) {
          max_threads = (unsigned)mp_next(&r).value;
        } else if (mp_is(&field, ".args")) {
          args = r;
          mp_skip(&r, 0);
        } else {
          mp_skip(&r, 0);
        }
      }
      if (matches && !args.bad) hsaco_args(args, entry);
      if (matches) entry->max_threads = max_threads;
    }
  }
}

static void hsaco_entry(const fake_image *image, const char *name, fake_entry *entry) {
  char descriptor[256];
  uint32_t count, i;
  snprintf(descriptor, sizeof descriptor, "%s.kd", name);
  entry->found = elf_has_symbol(image, descriptor);
  if (!entry->found) return;
  elf_sections(image, &count);
  for (i = 0; i < count; ++i) {
    elf_section notes = elf_section_at(image, i);
    uint64_t at = 0;
    if (notes.type != SHT_NOTE_) continue;
    while (at + 12 <= notes.size) {
      const unsigned char *note = image->data + notes.offset + at;
      uint64_t name_size = rd(note, 4), desc_size = rd(note + 4, 4), type = rd(note + 8, 4);
      uint64_t desc = 12 + ((name_size + 3) & ~3ull);
      if (at + desc + desc_size > notes.size) break;
      if (type == NT_AMDGPU_METADATA_ && name_size == 7 && memcmp(note + 12, "AMDGPU", 7) == 0)
        hsaco_metadata(note + desc, desc_size, name, entry);
      at += desc + ((desc_size + 3) & ~3ull);
    }
  }
}

/* CUDA 13's ptxas (Triton 3.7 on, sm_90a and later) marks an "a" cubin only in .nv.compat:
 * a record {format != EIFMT_SVAL, attribute 0x09 (accelerator target), value != 0}. */
static int cubin_compat_accelerator(const fake_image *image) {
  elf_section compat;
  uint64_t at;
  if (!elf_find_section(image, ".nv.compat", &compat)) return 0;
  for (at = 0; at + 4 <= compat.size;) {
    const unsigned char *record = image->data + compat.offset + at;
    unsigned format = record[0], attribute = record[1], value = (unsigned)rd(record + 2, 2);
    at += 4;
    if (format == 4) { at += value; continue; } /* EIFMT_SVAL: `value` bytes follow */
    if (attribute == 0x09 && value != 0) return 1;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------- */

int fake_image_read(const void *data, fake_image *image) {
  const unsigned char *bytes = (const unsigned char *)data;
  memset(image, 0, sizeof *image);
  image->data = bytes;
  image->xnack = image->sramecc = -2;
  if (bytes == NULL) return -1;
  if (memcmp(bytes, "\x7f" "ELF", 4) == 0 && bytes[4] == 2 && bytes[5] == 1) {
    unsigned machine = (unsigned)rd(bytes + 0x12, 2);
    image->size = elf_extent(bytes);
    image->hash = tta_fake_hash(bytes, image->size);
    if (machine == EM_CUDA_) {
      uint32_t flags = (uint32_t)rd(bytes + 0x30, 4);
      int v2 = bytes[8] >= 8; /* EI_ABIVERSION 8: SM in bits 8-15, "a" = 0x8 */
      image->kind = TTA_FAKE_IMAGE_CUBIN;
      image->sm = v2 ? (int)((flags >> 8) & 0xffu) : (int)(flags & 0xffu);
      image->arch_specific = v2 ? (flags & 0x8u) != 0 || cubin_compat_accelerator(image)
                                : (flags & 0x800u) != 0;
      snprintf(image->arch, sizeof image->arch, "sm_%d%s", image->sm, image->arch_specific ? "a" : "");
      return 0;
    }
    if (machine == EM_AMDGPU_) {
      image->kind = TTA_FAKE_IMAGE_HSACO;
      read_hsaco_arch(image);
      return 0;
    }
    return -1;
  }
  if (read_ptx((const char *)bytes, image) == 0) {
    image->hash = tta_fake_hash(bytes, image->size);
    return 0;
  }
  memset(image, 0, sizeof *image);
  image->data = bytes;
  return -1;
}

void fake_image_entry(const fake_image *image, const char *name, fake_entry *entry) {
  memset(entry, 0, sizeof *entry);
  if (name == NULL) return;
  switch (image->kind) {
  case TTA_FAKE_IMAGE_CUBIN: cubin_entry(image, name, entry); break;
  case TTA_FAKE_IMAGE_PTX: ptx_entry(image, name, entry); break;
  case TTA_FAKE_IMAGE_HSACO: hsaco_entry(image, name, entry); break;
  default: break;
  }
}

int fake_image_cuda_check(const fake_image *image, int sm, int max_ptx_version, char *log,
                          size_t log_size) {
  if (log_size) log[0] = '\0';
  if (image->kind == TTA_FAKE_IMAGE_CUBIN) {
    int runs = image->arch_specific ? image->sm == sm
                                    : image->sm / 10 == sm / 10 && image->sm % 10 <= sm % 10;
    return runs ? 0 : CUDA_ERROR_NO_BINARY_FOR_GPU_;
  }
  if (image->kind == TTA_FAKE_IMAGE_PTX) {
    if (image->ptx_version > max_ptx_version) {
      snprintf(log, log_size, "fake ptxas: PTX ISA version %d.%d is newer than this driver's %d.%d",
               image->ptx_version / 10, image->ptx_version % 10, max_ptx_version / 10,
               max_ptx_version % 10);
      return CUDA_ERROR_UNSUPPORTED_PTX_VERSION_;
    }
    if (image->arch_specific ? image->sm != sm : image->sm > sm) {
      snprintf(log, log_size, "fake ptxas fatal: PTX .target %s cannot be compiled for sm_%d",
               image->arch, sm);
      return CUDA_ERROR_INVALID_PTX_;
    }
    return 0;
  }
  return CUDA_ERROR_NO_BINARY_FOR_GPU_;
}

/* "gfx942:sramecc+:xnack-" → processor and feature modes (-1 when not given). */
static void parse_gcn_arch(const char *arch, char *processor, size_t size, int *sramecc, int *xnack) {
  const char *colon = strchr(arch, ':');
  size_t length = colon ? (size_t)(colon - arch) : strlen(arch);
  if (length >= size) length = size - 1;
  memcpy(processor, arch, length);
  processor[length] = '\0';
  *sramecc = strstr(arch, ":sramecc+") ? 1 : strstr(arch, ":sramecc-") ? 0 : -1;
  *xnack = strstr(arch, ":xnack+") ? 1 : strstr(arch, ":xnack-") ? 0 : -1;
}

int fake_image_hip_check(const fake_image *image, const char *device_arch) {
  char processor[32];
  int sramecc, xnack;
  if (image->kind != TTA_FAKE_IMAGE_HSACO) return hipErrorNoBinaryForGpu_;
  parse_gcn_arch(device_arch, processor, sizeof processor, &sramecc, &xnack);
  if (strcmp(processor, image->processor) != 0) return hipErrorNoBinaryForGpu_;
  if (image->xnack >= 0 && image->xnack != xnack) return hipErrorNoBinaryForGpu_;
  if (image->sramecc >= 0 && image->sramecc != sramecc) return hipErrorNoBinaryForGpu_;
  return 0;
}
