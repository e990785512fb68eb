#include "linker/image_blob.h"

#include <gtest/gtest.h>
#define ZSTD_STATIC_LINKING_ONLY   // ZSTD_getFrameHeader: whether a frame has its checksum
#include <zstd.h>

#include <random>
#include <string>

namespace tta::link {
namespace {

EmbeddedImage image(std::string kind, std::vector<std::uint8_t> bytes) {
  EmbeddedImage out;
  out.kind = std::move(kind);
  out.sourceFile = "/fake/" + out.kind;
  out.bytes = std::move(bytes);
  return out;
}

std::vector<std::uint8_t> repetitive(std::size_t size) {
  std::vector<std::uint8_t> out(size);
  for (std::size_t i = 0; i < size; ++i)
    out[i] = static_cast<std::uint8_t>("cubin text "[i % 11]);
  return out;
}

std::vector<std::uint8_t> noise(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::uint8_t> out(size);
  for (std::uint8_t &byte : out)
    byte = static_cast<std::uint8_t>(random());
  return out;
}

std::vector<std::uint8_t> stored(const ImageBlob &blob, std::size_t i) {
  const auto begin = blob.bytes.begin() + static_cast<std::ptrdiff_t>(blob.images[i].offset);
  return {begin, begin + static_cast<std::ptrdiff_t>(blob.images[i].storedSize)};
}

Library threeImages() {
  Library library;
  library.images.push_back(image("cubin", repetitive(1000)));
  library.images.push_back(image("ptx", repetitive(77)));
  library.images.push_back(image("hsaco", noise(333, 7)));
  return library;
}

TEST(ImageBlob, ImagesStartOn64ByteBoundariesInOrderWithZeroPadding) {
  const Library library = threeImages();
  Expected<ImageBlob> blob = packImages(library, {});
  ASSERT_TRUE(blob) << blob.error().message;
  ASSERT_EQ(blob->images.size(), 3u);
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const StoredImage &s = blob->images[i];
    EXPECT_EQ(s.offset % 64, 0u) << i;
    EXPECT_GE(s.offset, end) << i;
    EXPECT_LT(s.offset - end, 64u) << i;
    for (std::uint64_t pad = end; pad < s.offset; ++pad)
      EXPECT_EQ(blob->bytes[pad], 0) << "padding byte " << pad;
    EXPECT_FALSE(s.compressed);
    EXPECT_EQ(s.storedSize, library.images[i].bytes.size());
    EXPECT_EQ(s.rawSize, s.storedSize);
    EXPECT_EQ(stored(*blob, i), library.images[i].bytes);
    end = s.offset + s.storedSize;
  }
  EXPECT_EQ(blob->images[0].offset, 0u);
  EXPECT_EQ(blob->images[1].offset, 1024u);
  EXPECT_EQ(blob->images[2].offset, 1024u + 128u);
  EXPECT_EQ(blob->bytes.size(), end);
}

TEST(ImageBlob, CompressesWhatShrinksAndRoundTripsThroughZstd) {
  const Library library = threeImages();
  Expected<ImageBlob> blob = packImages(library, {true, 19});
  ASSERT_TRUE(blob) << blob.error().message;
  // Repetitive text shrinks; random bytes do not, so they stay as they are.
  EXPECT_TRUE(blob->images[0].compressed);
  EXPECT_LT(blob->images[0].storedSize, 1000u);
  EXPECT_FALSE(blob->images[2].compressed);
  EXPECT_EQ(stored(*blob, 2), library.images[2].bytes);
  for (std::size_t i = 0; i < 3; ++i) {
    const StoredImage &s = blob->images[i];
    EXPECT_EQ(s.offset % 64, 0u);
    EXPECT_EQ(s.rawSize, library.images[i].bytes.size());
    if (!s.compressed)
      continue;
    const std::vector<std::uint8_t> frame = stored(*blob, i);
    // One frame that records its content size, which the runtime can check against raw_size.
    EXPECT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), s.rawSize);
    EXPECT_EQ(ZSTD_findFrameCompressedSize(frame.data(), frame.size()), frame.size());
    std::vector<std::uint8_t> raw(s.rawSize);
    const std::size_t size = ZSTD_decompress(raw.data(), raw.size(), frame.data(), frame.size());
    ASSERT_FALSE(ZSTD_isError(size)) << ZSTD_getErrorName(size);
    EXPECT_EQ(size, s.rawSize);
    EXPECT_EQ(raw, library.images[i].bytes) << i;
  }
}

// XXH3-64 (seed 0) of bytes (i * 31 + 7) mod 256, as xxHash's own library (libxxhash 0.8)
// computes them: the runtime's test checks its copy against the same values.
TEST(ImageBlob, TheImageHashIsXxh3) {
  const std::pair<std::size_t, std::uint64_t> known[] = {
      {0, 0x2d06800538d394c2ull},    {1, 0x4c5cca45d0f4811full},   {3, 0x15f7093b173d005cull},
      {16, 0x7e484c18d74895d0ull},   {17, 0x208bde5ee2bed407ull},  {128, 0xf92b70eaa21a6288ull},
      {129, 0xf8f76713f2bb60faull},  {240, 0xccc7375172c41f03ull}, {241, 0x0b3b630948ce4a00ull},
      {1000, 0x989765d0ea7a5ecdull}, {6504, 0xb3be3e0126504c23ull}, {100000, 0xccf90df7e7e37036ull}};
  for (const auto &[size, hash] : known) {
    std::vector<std::uint8_t> bytes(size);
    for (std::size_t i = 0; i < size; ++i)
      bytes[i] = static_cast<std::uint8_t>(i * 31 + 7);
    EXPECT_EQ(imageHash(bytes.data(), bytes.size()), hash) << size << " bytes";
  }
}

TEST(ImageBlob, EveryImageRecordsTheHashOfItsRawBytes) {
  const Library library = threeImages();
  for (bool compress : {false, true}) {
    Expected<ImageBlob> blob = packImages(library, {compress, 19});
    ASSERT_TRUE(blob) << blob.error().message;
    for (std::size_t i = 0; i < 3; ++i)
      EXPECT_EQ(blob->images[i].hash,
                imageHash(library.images[i].bytes.data(), library.images[i].bytes.size()))
          << "image " << i << (compress ? " (compressed: the bytes after decompression)" : "");
  }
}

TEST(ImageBlob, CompressedFramesCarryTheirChecksum) {
  const Library library = threeImages();
  Expected<ImageBlob> blob = packImages(library, {true, 19});
  ASSERT_TRUE(blob) << blob.error().message;
  ASSERT_TRUE(blob->images[0].compressed);
  std::vector<std::uint8_t> frame = stored(*blob, 0);
  ZSTD_frameHeader header{};
  ASSERT_EQ(ZSTD_getFrameHeader(&header, frame.data(), frame.size()), 0u);
  EXPECT_EQ(header.checksumFlag, 1u) << "decompression checks the content against it";
  // So a flipped byte in the frame fails decompression, whichever byte it is.
  std::vector<std::uint8_t> raw(blob->images[0].rawSize);
  for (std::size_t at : {frame.size() / 2, frame.size() - 1}) {
    std::vector<std::uint8_t> damaged = frame;
    damaged[at] ^= 0x10;
    const std::size_t size = ZSTD_decompress(raw.data(), raw.size(), damaged.data(), damaged.size());
    EXPECT_TRUE(ZSTD_isError(size)) << "byte " << at << " of " << frame.size();
  }
}

TEST(ImageBlob, SameInputSameBytes) {
  const Library library = threeImages();
  Expected<ImageBlob> a = packImages(library, {true, 3});
  Expected<ImageBlob> b = packImages(library, {true, 3});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->bytes, b->bytes);
}

TEST(ImageBlob, EmptyImageAndEmptyLibrary) {
  Library library;
  Expected<ImageBlob> empty = packImages(library, {true, 19});
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->bytes.empty());
  library.images.push_back(image("cubin", {}));
  library.images.push_back(image("cubin", repetitive(10)));
  Expected<ImageBlob> blob = packImages(library, {true, 19});
  ASSERT_TRUE(blob);
  EXPECT_EQ(blob->images[0].storedSize, 0u);
  EXPECT_FALSE(blob->images[0].compressed);
  EXPECT_EQ(blob->images[1].offset, 0u);
}

TEST(ImageBlob, RejectsAnOutOfRangeLevel) {
  const Library library = threeImages();
  Expected<ImageBlob> blob = packImages(library, {true, 99});
  ASSERT_FALSE(blob);
  EXPECT_EQ(blob.error().code, ExitCode::UsageError);
  EXPECT_NE(blob.error().message.find("zstd level 99"), std::string::npos) << blob.error().message;
  // The level does not matter when nothing is compressed.
  EXPECT_TRUE(packImages(library, {false, 99}));
}

TEST(ImageBlob, ManifestFollowsTheImagesAlignedAndNulTerminated) {
  const Library library = threeImages();
  Expected<ImageBlob> blob = packImages(library, {});
  ASSERT_TRUE(blob);
  const std::uint64_t imagesEnd = blob->bytes.size();
  const std::string manifest = "{\"schema\": \"triton-aot-library\"}";
  appendManifest(*blob, manifest);
  EXPECT_EQ(blob->manifestOffset % 64, 0u);
  EXPECT_GE(blob->manifestOffset, imagesEnd);
  EXPECT_LT(blob->manifestOffset - imagesEnd, 64u);
  EXPECT_EQ(blob->manifestSize, manifest.size());
  ASSERT_EQ(blob->bytes.size(), blob->manifestOffset + manifest.size() + 1);
  EXPECT_EQ(blob->bytes.back(), 0);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(blob->bytes.data() + blob->manifestOffset)),
            manifest);
  // Images are untouched.
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(stored(*blob, i), library.images[i].bytes);
}

TEST(ImageBlob, InventoryFollowsTheManifestAlignedAndNulTerminated) {
  Expected<ImageBlob> blob = packImages(threeImages(), {});
  ASSERT_TRUE(blob);
  const std::string manifest = "{\"schema\": \"triton-aot-library\"}";
  const std::string inventory = "library lib (prefix lib): 1 kernel\nkernel  config\n";
  appendManifest(*blob, manifest);
  const std::uint64_t manifestEnd = blob->bytes.size();
  appendInventory(*blob, inventory);
  EXPECT_EQ(blob->inventoryOffset % 64, 0u);
  EXPECT_GE(blob->inventoryOffset, manifestEnd);
  EXPECT_LT(blob->inventoryOffset - manifestEnd, 64u);
  EXPECT_EQ(blob->inventorySize, inventory.size());
  ASSERT_EQ(blob->bytes.size(), blob->inventoryOffset + inventory.size() + 1);
  EXPECT_EQ(blob->bytes.back(), 0);
  const char *bytes = reinterpret_cast<const char *>(blob->bytes.data());
  EXPECT_EQ(std::string(bytes + blob->inventoryOffset), inventory);
  EXPECT_EQ(std::string(bytes + blob->manifestOffset), manifest); // untouched
  EXPECT_TRUE(holdsText(*blob, blob->manifestOffset, blob->manifestSize));
  EXPECT_TRUE(holdsText(*blob, blob->inventoryOffset, blob->inventorySize));
  EXPECT_FALSE(holdsText(*blob, blob->inventoryOffset, blob->inventorySize + 1));
}

TEST(ImageBlob, ManifestOfAnEmptyBlobStartsAtZero) {
  ImageBlob blob;
  appendManifest(blob, "{}");
  EXPECT_EQ(blob.manifestOffset, 0u);
  EXPECT_EQ(blob.manifestSize, 2u);
  EXPECT_EQ(blob.bytes, (std::vector<std::uint8_t>{'{', '}', 0}));
}

} // namespace
} // namespace tta::link
