// The bytes behind <lib>.images: every embedded image (64-byte aligned, optionally one zstd
// frame each), then the manifest text and the inventory text (each NUL-terminated).
// <lib>.images.S .incbin's the file.
#pragma once

#include "contract/diagnostic.h"
#include "linker/link_model.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace tta::link {

struct StoredImage {
  std::uint64_t offset = 0;       ///< in ImageBlob::bytes, a multiple of 64
  std::uint64_t storedSize = 0;   ///< bytes in the blob
  std::uint64_t rawSize = 0;      ///< bytes after decompression (== storedSize when not compressed)
  bool compressed = false;        ///< zstd; only when it makes the image smaller
};

struct ImageBlob {
  std::vector<std::uint8_t> bytes;
  std::vector<StoredImage> images;      ///< parallel to Library::images
  std::uint64_t manifestOffset = 0;     ///< set by appendManifest()
  std::uint64_t manifestSize = 0;       ///< without the NUL
  std::uint64_t inventoryOffset = 0;    ///< set by appendInventory()
  std::uint64_t inventorySize = 0;      ///< without the NUL
};

struct PackOptions {
  bool compress = false;
  int level = 19;                       ///< zstd level
};

/// Lays out Library::images; compresses each with zstd when asked and when it helps.
Expected<ImageBlob> packImages(const Library &library, const PackOptions &options);
/// Appends the manifest text (64-byte aligned, NUL-terminated) and records where it is.
void appendManifest(ImageBlob &blob, std::string_view manifestText);
/// Appends the inventory text (what triton-aot-ld --inspect prints for the library), the same
/// way, and records where it is.
void appendInventory(ImageBlob &blob, std::string_view inventoryText);

/// Whether the blob holds a NUL-terminated text of \p size bytes at \p offset (what
/// appendManifest() / appendInventory() wrote).
bool holdsText(const ImageBlob &blob, std::uint64_t offset, std::uint64_t size);

} // namespace tta::link
