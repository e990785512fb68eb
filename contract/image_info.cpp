// Reads cubins and HSACOs through LLVM's Object library: the ELF header, the CUDA .nv.info /
// .nv.compat records and .nv.shared.<kernel> sections, and the AMDGPU metadata note.
//
// The arch is decoded here, not with ELFObjectFileBase::tryGetCPUName(): LLVM 19 reads the SM
// from the low byte of e_flags, but CUDA ABI V2 cubins (EI_ABIVERSION 8: CUDA 13's ptxas for
// every SM, 12.9's for sm_100a) keep it in bits 8-15, and there LLVM 19 reaches
// llvm_unreachable (observed: a crash). It also misnames EF_AMDGPU_MACH values newer than
// itself (gfx950 = 0x4f came out as "r600").

#include "contract/image_info.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/BinaryFormat/MsgPackReader.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

namespace tta {
namespace {

using Elf = llvm::object::ELFFile<llvm::object::ELF64LE>;
using Shdr = Elf::Elf_Shdr;

// CUDA constants LLVM 19's ELF.h lacks (newer LLVM: ELFABIVERSION_CUDA_V2, EF_CUDA_SM_MASK,
// EF_CUDA_ACCELERATORS for V2), and NVIDIA's section types and record ids
// (conventions.md section 4.1).
constexpr unsigned kCudaAbiV2 = 8;
constexpr unsigned kCudaV2SmShift = 8;
constexpr unsigned kCudaV2Accelerators = 0x8;
constexpr unsigned kCudaV1Accelerators = llvm::ELF::EF_CUDA_ACCELERATORS;   // 0x800
constexpr unsigned kStoCudaEntry = 0x10;                          // st_other of a kernel symbol
constexpr unsigned kShtCudaInfo = llvm::ELF::SHT_LOPROC;          // .nv.info, .nv.info.<kernel>
constexpr unsigned kShtCudaCompat = llvm::ELF::SHT_LOPROC + 0x86; // .nv.compat

// .nv.info / .nv.compat records: {u8 format, u8 attribute, u16 value-or-size}.
constexpr std::uint8_t kFormatSval = 4; // the u16 is a byte count; that many bytes follow
constexpr std::uint8_t kAttrFrameSize = 0x11;
constexpr std::uint8_t kAttrMinStackSize = 0x12;
constexpr std::uint8_t kAttrRegCount = 0x2f;
constexpr std::uint8_t kCompatAcceleratorTarget = 0x09; // CUDA 13 marks "a" archs here

Diagnostic imageError(std::string message) {
  return makeError(ExitCode::UsageError, std::move(message));
}

Diagnostic malformed(llvm::Error err) {
  return imageError("malformed ELF image: " + llvm::toString(std::move(err)));
}

std::string hex(unsigned value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

std::optional<int> toInt(std::optional<std::uint64_t> value) {
  if (!value || *value > static_cast<std::uint64_t>(INT_MAX))
    return std::nullopt;
  return static_cast<int>(*value);
}

/// Every section and segment must lie inside the file. LLVM checks only what is read, and a
/// truncated image must not pass for a good one.
Status checkExtents(const Elf &elf) {
  const std::uint64_t size = elf.getBufSize();
  const auto outside = [size](std::uint64_t offset, std::uint64_t length) {
    return offset > size || length > size - offset;
  };
  auto sections = elf.sections();
  if (!sections)
    return malformed(sections.takeError());
  for (std::size_t i = 0; i < sections->size(); ++i) {
    const Shdr &sec = (*sections)[i];
    if (sec.sh_type != llvm::ELF::SHT_NOBITS && outside(sec.sh_offset, sec.sh_size))
      return imageError("malformed ELF image: section " + std::to_string(i) +
                        " extends past the end of the file");
  }
  auto segments = elf.program_headers();
  if (!segments)
    return malformed(segments.takeError());
  for (const auto &seg : *segments)
    if (outside(seg.p_offset, seg.p_filesz))
      return imageError("malformed ELF image: a segment extends past the end of the file");
  return ok();
}

// --- CUDA ----------------------------------------------------------------------------------

struct Record {
  std::uint8_t format = 0;
  std::uint8_t attribute = 0;
  std::uint16_t value = 0;            ///< inline value, or the size of data
  llvm::ArrayRef<std::uint8_t> data;  ///< only for kFormatSval
};

Expected<std::vector<Record>> readRecords(llvm::ArrayRef<std::uint8_t> bytes,
                                          llvm::StringRef section) {
  std::vector<Record> records;
  std::size_t pos = 0;
  while (pos + 4 <= bytes.size()) {
    Record rec;
    rec.format = bytes[pos];
    rec.attribute = bytes[pos + 1];
    rec.value = llvm::support::endian::read16le(bytes.data() + pos + 2);
    pos += 4;
    if (rec.format == kFormatSval) {
      if (rec.value > bytes.size() - pos)
        return imageError("malformed " + section.str() + " section: a record at offset " +
                          std::to_string(pos - 4) + " overruns it");
      rec.data = bytes.slice(pos, rec.value);
      pos += rec.value;
    }
    records.push_back(rec);
  }
  return records;
}

/// Figures .nv.info records give for one symbol.
struct FunctionFigures {
  std::optional<std::uint64_t> registers, frameSize, minStackSize;
};

Status readCubin(const Elf &elf, ImageInfo &info) {
  const auto &header = elf.getHeader();
  const unsigned flags = header.e_flags;
  const bool abiV2 = header.e_ident[llvm::ELF::EI_ABIVERSION] == kCudaAbiV2;
  info.smVersion = static_cast<int>(abiV2 ? (flags >> kCudaV2SmShift) & 0xff
                                          : flags & llvm::ELF::EF_CUDA_SM);
  // "a": an e_flags bit up to CUDA 12.9; CUDA 13 records it only in .nv.compat (read below).
  info.archSpecific = (flags & (abiV2 ? kCudaV2Accelerators : kCudaV1Accelerators)) != 0;
  if (info.smVersion == 0)
    return imageError("cubin e_flags " + hex(flags) + " name no SM version");

  auto sections = elf.sections();
  if (!sections)
    return malformed(sections.takeError());

  // Symbol index -> name of every function (.nv.info refers to symbols by index); kernels are
  // the functions marked as entries.
  std::map<std::uint32_t, std::string> functions;
  for (const Shdr &sec : *sections) {
    if (sec.sh_type != llvm::ELF::SHT_SYMTAB)
      continue;
    auto symbols = elf.symbols(&sec);
    if (!symbols)
      return malformed(symbols.takeError());
    auto strtab = elf.getStringTableForSymtab(sec, *sections);
    if (!strtab)
      return malformed(strtab.takeError());
    std::uint32_t index = 0;
    for (const auto &sym : *symbols) {
      if (sym.getType() == llvm::ELF::STT_FUNC) {
        auto name = sym.getName(*strtab);
        if (!name)
          return malformed(name.takeError());
        functions[index] = name->str();
        if (sym.st_other & kStoCudaEntry)
          info.kernels[name->str()];
      }
      ++index;
    }
  }

  auto shstrtab = elf.getSectionStringTable(*sections);
  if (!shstrtab)
    return malformed(shstrtab.takeError());
  std::map<std::uint32_t, FunctionFigures> figures;
  for (const Shdr &sec : *sections) {
    auto name = elf.getSectionName(sec, *shstrtab);
    if (!name)
      return malformed(name.takeError());
    if (llvm::StringRef kernelName = *name; kernelName.consume_front(".nv.shared.")) {
      auto kernel = info.kernels.find(kernelName.str());
      if (kernel != info.kernels.end())
        kernel->second.staticShared = sec.sh_size;   // NOBITS: the size is all there is
      continue;
    }
    const bool compat = sec.sh_type == kShtCudaCompat;
    if (!compat && !(sec.sh_type == kShtCudaInfo && name->starts_with(".nv.info")))
      continue;
    auto bytes = elf.getSectionContents(sec);
    if (!bytes)
      return malformed(bytes.takeError());
    auto records = readRecords(*bytes, *name);
    if (!records)
      return records.takeError();
    for (const Record &rec : *records) {
      if (compat) {
        if (rec.attribute == kCompatAcceleratorTarget && rec.format != kFormatSval && rec.value)
          info.archSpecific = true;
        continue;
      }
      // The per-symbol attributes carry {u32 symbol index, u32 value}.
      if (rec.format != kFormatSval || rec.data.size() < 8)
        continue;
      const std::uint32_t symbol = llvm::support::endian::read32le(rec.data.data());
      const std::uint32_t value = llvm::support::endian::read32le(rec.data.data() + 4);
      if (rec.attribute == kAttrRegCount)
        figures[symbol].registers = value;
      else if (rec.attribute == kAttrFrameSize)
        figures[symbol].frameSize = value;
      else if (rec.attribute == kAttrMinStackSize)
        figures[symbol].minStackSize = value;
    }
  }

  for (const auto &[symbol, fig] : figures) {
    auto function = functions.find(symbol);
    if (function == functions.end())
      continue;
    auto kernel = info.kernels.find(function->second);
    if (kernel == info.kernels.end())
      continue;   // a device function's frame, already part of its caller's stack figure
    kernel->second.registers = toInt(fig.registers);
    // The minimum stack covers the frame and non-recursive callees (ptxas's "cumulative stack
    // size", cuobjdump's STACK); older images may record only the frame.
    kernel->second.spills = toInt(fig.minStackSize ? fig.minStackSize : fig.frameSize);
  }
  for (auto &entry : info.kernels)
    if (!entry.second.staticShared)
      entry.second.staticShared = 0;   // no .nv.shared.<kernel>: no static shared memory
  info.arch = "sm_" + std::to_string(info.smVersion) + (info.archSpecific ? "a" : "");
  return ok();
}

// --- AMDGPU --------------------------------------------------------------------------------

/// EF_AMDGPU_MACH values from LLVM's ELF.h and AMDGPUUsage (LLVM 19 stops before gfx950).
const char *amdgpuProcessor(unsigned mach) {
  static constexpr std::pair<unsigned, const char *> kProcessors[] = {
      {0x20, "gfx600"},  {0x21, "gfx601"},  {0x22, "gfx700"},  {0x23, "gfx701"},
      {0x24, "gfx702"},  {0x25, "gfx703"},  {0x26, "gfx704"},  {0x28, "gfx801"},
      {0x29, "gfx802"},  {0x2a, "gfx803"},  {0x2b, "gfx810"},  {0x2c, "gfx900"},
      {0x2d, "gfx902"},  {0x2e, "gfx904"},  {0x2f, "gfx906"},  {0x30, "gfx908"},
      {0x31, "gfx909"},  {0x32, "gfx90c"},  {0x33, "gfx1010"}, {0x34, "gfx1011"},
      {0x35, "gfx1012"}, {0x36, "gfx1030"}, {0x37, "gfx1031"}, {0x38, "gfx1032"},
      {0x39, "gfx1033"}, {0x3a, "gfx602"},  {0x3b, "gfx705"},  {0x3c, "gfx805"},
      {0x3d, "gfx1035"}, {0x3e, "gfx1034"}, {0x3f, "gfx90a"},  {0x40, "gfx940"},
      {0x41, "gfx1100"}, {0x42, "gfx1013"}, {0x43, "gfx1150"}, {0x44, "gfx1103"},
      {0x45, "gfx1036"}, {0x46, "gfx1101"}, {0x47, "gfx1102"}, {0x48, "gfx1200"},
      {0x49, "gfx1250"}, {0x4a, "gfx1151"}, {0x4b, "gfx941"},  {0x4c, "gfx942"},
      {0x4e, "gfx1201"}, {0x4f, "gfx950"},  {0x50, "gfx1310"}, {0x51, "gfx9-generic"},
      {0x52, "gfx10-1-generic"}, {0x53, "gfx10-3-generic"}, {0x54, "gfx11-generic"},
      {0x55, "gfx1152"}, {0x57, "gfx1154"}, {0x58, "gfx1153"}, {0x59, "gfx12-generic"},
      {0x5a, "gfx1251"}, {0x5b, "gfx12-5-generic"}, {0x5c, "gfx1172"}, {0x5d, "gfx1170"},
      {0x5e, "gfx1171"}, {0x5f, "gfx9-4-generic"}, {0x62, "gfx11-7-generic"},
      {0x63, "gfx13-generic"},
  };
  for (const auto &[value, name] : kProcessors)
    if (value == mach)
      return name;
  return nullptr;
}

/// Code object V4+ feature field: '+', '-', or 0 for any / unsupported.
char featureV4(unsigned field, unsigned on, unsigned off) {
  return field == on ? '+' : field == off ? '-' : 0;
}

std::optional<std::uint64_t> uintField(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return std::nullopt;
  const llvm::msgpack::DocNode &node = it->second;
  if (node.getKind() == llvm::msgpack::Type::UInt)
    return node.getUInt();
  if (node.getKind() == llvm::msgpack::Type::Int && node.getInt() >= 0)
    return static_cast<std::uint64_t>(node.getInt());
  return std::nullopt;
}

/// True when \p blob is one complete msgpack value whose map keys are all strings, as AMDGPU
/// metadata is. Checked with the plain Reader first because LLVM 19's Document::readFromBlob
/// crashes on some malformed input (observed: a map where a key should be).
bool plainMsgpack(llvm::StringRef blob) {
  namespace mp = llvm::msgpack;
  struct Open {
    std::uint64_t left;   ///< items still to come; a map of N entries has 2N
    bool map;
  };
  std::vector<Open> open;
  bool haveRoot = false;
  mp::Reader reader(blob);
  for (;;) {
    mp::Object obj;
    auto more = reader.read(obj);
    if (!more) {
      llvm::consumeError(more.takeError());
      return false;
    }
    if (!*more)
      break;
    if (obj.Kind == mp::Type::Extension)
      return false;
    if (open.empty()) {
      if (haveRoot)
        return false;
      haveRoot = true;
    } else {
      if (open.back().map && open.back().left % 2 == 0 && obj.Kind != mp::Type::String)
        return false;
      --open.back().left;
    }
    if (obj.Kind == mp::Type::Map || obj.Kind == mp::Type::Array)
      open.push_back({obj.Kind == mp::Type::Map ? 2 * std::uint64_t{obj.Length} : obj.Length,
                      obj.Kind == mp::Type::Map});
    while (!open.empty() && open.back().left == 0)
      open.pop_back();
  }
  return haveRoot && open.empty();
}

/// Reads amdhsa.kernels (and amdhsa.target into \p targetId) from the NT_AMDGPU_METADATA blob.
Status readAmdgpuMetadata(llvm::StringRef blob, ImageInfo &info, std::string &targetId) {
  const auto bad = [](const std::string &what) {
    return imageError("malformed AMDGPU metadata note: " + what);
  };
  llvm::msgpack::Document doc;
  if (!plainMsgpack(blob) || !doc.readFromBlob(blob, /*Multi=*/false) || !doc.getRoot().isMap())
    return bad("not a well-formed msgpack map");
  auto &root = doc.getRoot().getMap();
  if (auto target = root.find(llvm::StringRef("amdhsa.target"));
      target != root.end() && target->second.isString())
    targetId = target->second.getString().str();
  auto list = root.find(llvm::StringRef("amdhsa.kernels"));
  if (list == root.end())
    return ok();
  if (!list->second.isArray())
    return bad("amdhsa.kernels is not an array");
  for (auto &entry : list->second.getArray()) {
    if (!entry.isMap())
      return bad("an amdhsa.kernels entry is not a map");
    auto &kernel = entry.getMap();
    auto name = kernel.find(llvm::StringRef(".name"));
    if (name == kernel.end() || !name->second.isString())
      return bad("an amdhsa.kernels entry has no .name");
    ResourceInfo &res = info.kernels[name->second.getString().str()];
    res.registers = toInt(uintField(kernel, ".vgpr_count"));
    res.sgprs = toInt(uintField(kernel, ".sgpr_count"));
    // Spilled registers of both kinds (SGPRs spill to VGPR lanes or scratch, VGPRs to scratch).
    auto vgprSpills = uintField(kernel, ".vgpr_spill_count");
    auto sgprSpills = uintField(kernel, ".sgpr_spill_count");
    if (vgprSpills || sgprSpills)
      res.spills = toInt(vgprSpills.value_or(0) + sgprSpills.value_or(0));
    res.staticShared = uintField(kernel, ".group_segment_fixed_size");
  }
  return ok();
}

Status readHsaco(const Elf &elf, ImageInfo &info) {
  namespace E = llvm::ELF;
  const auto &header = elf.getHeader();
  const unsigned flags = header.e_flags;
  const unsigned abi = header.e_ident[E::EI_ABIVERSION];
  if (abi == E::ELFABIVERSION_AMDGPU_HSA_V3) {
    // V3 has single "on" bits; a clear bit cannot tell off from any.
    info.xnack = (flags & E::EF_AMDGPU_FEATURE_XNACK_V3) ? '+' : 0;
    info.sramecc = (flags & E::EF_AMDGPU_FEATURE_SRAMECC_V3) ? '+' : 0;
  } else if (abi >= E::ELFABIVERSION_AMDGPU_HSA_V4) {
    info.xnack = featureV4(flags & E::EF_AMDGPU_FEATURE_XNACK_V4, E::EF_AMDGPU_FEATURE_XNACK_ON_V4,
                           E::EF_AMDGPU_FEATURE_XNACK_OFF_V4);
    info.sramecc = featureV4(flags & E::EF_AMDGPU_FEATURE_SRAMECC_V4,
                             E::EF_AMDGPU_FEATURE_SRAMECC_ON_V4,
                             E::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4);
  }

  auto sections = elf.sections();
  if (!sections)
    return malformed(sections.takeError());
  std::string targetId;
  for (const Shdr &sec : *sections) {
    if (sec.sh_type != E::SHT_NOTE)
      continue;
    llvm::Error err = llvm::Error::success();
    for (const auto &note : elf.notes(sec, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != E::NT_AMDGPU_METADATA)
        continue;
      auto desc = note.getDescAsStringRef(std::max<std::size_t>(sec.sh_addralign, 4));
      if (Status st = readAmdgpuMetadata(desc, info, targetId); !st) {
        llvm::consumeError(std::move(err));
        return st;
      }
    }
    if (err)
      return malformed(std::move(err));
  }

  const unsigned mach = flags & E::EF_AMDGPU_MACH;
  if (const char *processor = amdgpuProcessor(mach)) {
    info.arch = processor;
  } else {
    // A processor newer than the table: the metadata names it ("amdgcn-amd-amdhsa--gfx950:...").
    auto dashes = targetId.find("--");
    if (dashes != std::string::npos)
      info.arch = targetId.substr(dashes + 2, targetId.find(':', dashes) - (dashes + 2));
    if (info.arch.empty())
      return imageError("unknown AMDGPU processor (EF_AMDGPU_MACH " + hex(mach) + ")");
  }
  return ok();
}

std::string spellingOf(const Target &target) {
  // Target::spelling()'s form, built here so this file links on its own.
  return (target.backend == Backend::Cuda ? "cuda:" : "hip:") + target.arch;
}

std::string imageKind(Backend backend) {
  return backend == Backend::Cuda ? "a CUDA (EM_CUDA)" : "an AMDGPU (EM_AMDGPU)";
}

} // namespace

Expected<ImageInfo> inspectImage(std::span<const std::uint8_t> bytes) {
  static constexpr std::uint8_t kMagic[] = {0x7f, 'E', 'L', 'F'};
  if (bytes.size() < sizeof kMagic || !std::equal(kMagic, kMagic + 4, bytes.begin()))
    return imageError("not an ELF file");

  // LLVM reads the headers in place, so it wants the buffer aligned; copy when it is not.
  llvm::StringRef data(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  std::unique_ptr<llvm::MemoryBuffer> copy;
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 8 != 0) {
    copy = llvm::MemoryBuffer::getMemBufferCopy(data);
    data = copy->getBuffer();
  }
  auto object = llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(data, "image"));
  if (!object)
    return malformed(object.takeError());

  auto *base = llvm::cast<llvm::object::ELFObjectFileBase>(object->get());
  ImageInfo info;
  info.machine = base->getEMachine();
  if (info.machine == llvm::ELF::EM_CUDA)
    info.backend = Backend::Cuda;
  else if (info.machine == llvm::ELF::EM_AMDGPU)
    info.backend = Backend::Hip;
  else
    return imageError("ELF machine " + std::to_string(info.machine) +
                      " is neither EM_CUDA (190) nor EM_AMDGPU (224)");
  auto *elf64 = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(object->get());
  if (!elf64)
    return imageError("image is " + imageKind(info.backend) +
                      " ELF file but not 64-bit little-endian");

  const Elf &elf = elf64->getELFFile();
  Status st = checkExtents(elf);
  if (st)
    st = info.backend == Backend::Cuda ? readCubin(elf, info) : readHsaco(elf, info);
  if (!st)
    return st.takeError();
  return info;
}

Status checkImageMatchesTarget(const ImageInfo &info, const Target &target) {
  const std::string wanted = spellingOf(target);
  if (info.backend != target.backend)
    return imageError("image is " + imageKind(info.backend) + " image but the target is " + wanted);

  if (info.backend == Backend::Cuda) {
    if (info.smVersion != target.capability || info.archSpecific != (target.archSuffix == 'a'))
      return imageError("image is built for " + info.arch + " but the target is " + wanted);
    return ok();
  }

  if (info.arch != target.processor)
    return imageError("image is built for " + info.arch + " but the target is " + wanted);
  const auto checkFeature = [&](const char *feature, char image, char asked) -> Status {
    if (image == 0 || image == asked)
      return ok();   // an image for "any" runs in either mode
    const std::string has = "image for " + info.arch + " has " + feature + image;
    if (asked == 0)
      return imageError(has + " but the target " + wanted + " leaves " + feature + " unset (any)");
    return imageError(has + " but the target asks for " + feature + asked);
  };
  if (Status st = checkFeature("xnack", info.xnack, target.xnack); !st)
    return st;
  return checkFeature("sramecc", info.sramecc, target.sramecc);
}

} // namespace tta
