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
  /// XXH3-64 of the raw bytes (what the driver gets): the runtime checks it before the first
  /// load (docs/security.md, "Images at load").
  std::uint64_t hash = 0;
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

/// XXH3-64 (seed 0) of \p size bytes: the hash triton_aot_image.hash records.
std::uint64_t imageHash(const std::uint8_t *data, std::size_t size);

/// Lays out Library::images and hashes each; compresses each with zstd (one frame with its
/// content size and checksum) when asked and when it helps.
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
