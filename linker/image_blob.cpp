#include "linker/image_blob.h"

#include <zstd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <memory>
#include <string>

namespace tta::link {

namespace {

// The runtime hands images to the driver in place; 64 bytes satisfies every loader's alignment
// (cuModuleLoadData, hipModuleLoadData) and keeps each image on its own cache lines.
constexpr std::uint64_t kImageAlignment = 64;

void padTo(std::vector<std::uint8_t> &bytes, std::uint64_t alignment) {
  bytes.resize((bytes.size() + alignment - 1) / alignment * alignment, 0);
}

/// One zstd frame of \p raw, or an error. The frame records its content size, so the runtime
/// can check raw_size against it before decompressing, and its checksum (XXH64 of the content),
/// which decompression checks.
Expected<std::vector<std::uint8_t>> compress(const std::vector<std::uint8_t> &raw, int level,
                                             const std::string &what) {
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!context)
    return makeError(ExitCode::InternalError, "zstd could not compress " + what + ": out of memory");
  std::vector<std::uint8_t> out(ZSTD_compressBound(raw.size()));
  std::size_t size = ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, level);
  if (!ZSTD_isError(size))
    size = ZSTD_CCtx_setParameter(context.get(), ZSTD_c_checksumFlag, 1);
  if (!ZSTD_isError(size))
    size = ZSTD_compress2(context.get(), out.data(), out.size(), raw.data(), raw.size());
  if (ZSTD_isError(size))
    return makeError(ExitCode::InternalError,
                     "zstd could not compress " + what + ": " + ZSTD_getErrorName(size));
  out.resize(size);
  return out;
}

} // namespace

Expected<ImageBlob> packImages(const Library &library, const PackOptions &options) {
  if (options.compress && (options.level < ZSTD_minCLevel() || options.level > ZSTD_maxCLevel()))
    return makeError(ExitCode::UsageError, "zstd level " + std::to_string(options.level) +
                                               " is out of range; expected " +
                                               std::to_string(ZSTD_minCLevel()) + " to " +
                                               std::to_string(ZSTD_maxCLevel()));
  ImageBlob blob;
  blob.images.reserve(library.images.size());
  for (const EmbeddedImage &image : library.images) {
    padTo(blob.bytes, kImageAlignment);
    StoredImage stored;
    stored.offset = blob.bytes.size();
    stored.rawSize = image.bytes.size();
    stored.hash = imageHash(image.bytes.data(), image.bytes.size());
    const std::vector<std::uint8_t> *bytes = &image.bytes;
    std::vector<std::uint8_t> compressed;
    if (options.compress && !image.bytes.empty()) {
      Expected<std::vector<std::uint8_t>> frame =
          compress(image.bytes, options.level, image.sourceFile);
      if (!frame)
        return frame.takeError();
      // Only when it pays: a frame no smaller than the image just costs a decompression.
      if (frame->size() < image.bytes.size()) {
        compressed = std::move(*frame);
        bytes = &compressed;
        stored.compressed = true;
      }
    }
    stored.storedSize = bytes->size();
    blob.bytes.insert(blob.bytes.end(), bytes->begin(), bytes->end());
    blob.images.push_back(stored);
  }
  return blob;
}

namespace {

/// Appends \p text, 64-byte aligned and NUL-terminated; returns its offset.
std::uint64_t appendText(ImageBlob &blob, std::string_view text) {
  padTo(blob.bytes, kImageAlignment);
  const std::uint64_t offset = blob.bytes.size();
  blob.bytes.insert(blob.bytes.end(), text.begin(), text.end());
  blob.bytes.push_back(0);
  return offset;
}

} // namespace

void appendManifest(ImageBlob &blob, std::string_view manifestText) {
  blob.manifestOffset = appendText(blob, manifestText);
  blob.manifestSize = manifestText.size();
}

void appendInventory(ImageBlob &blob, std::string_view inventoryText) {
  blob.inventoryOffset = appendText(blob, inventoryText);
  blob.inventorySize = inventoryText.size();
}

std::uint64_t imageHash(const std::uint8_t *data, std::size_t size) {
  return XXH3_64bits(data, size);
}

bool holdsText(const ImageBlob &blob, std::uint64_t offset, std::uint64_t size) {
  return offset + size < blob.bytes.size() && blob.bytes[offset + size] == 0;
}

} // namespace tta::link
