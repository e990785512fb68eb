// Images are checked where they are loaded: a library whose embedded image was damaged after it
// was built (a flipped byte in the .so file, or in the image table in memory) fails its first
// launch with LOAD_FAILED naming the kernel, the target and the library, and the driver never
// sees the image. Uncompressed images by their XXH3-64 hash, compressed ones by zstd's frame
// checksum and the same hash (docs/security.md, "Images at load").
#include "image_hash.h"
#include "runtime_fixture.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

extern "C" const unsigned char rt_kernels_tta_blob[]; // hidden, but linked into this program

namespace tta::test {
namespace {

namespace fs = std::filesystem;

const void *kX = devicePointer(0x10000);
const void *kY = devicePointer(0x20000);
const void *kOut = devicePointer(0x30000);

std::string textOf(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A row of a generated library's tta_images table.
struct ImageRow {
  std::uint64_t offset = 0, size = 0, rawSize = 0, hash = 0;
  std::string kind;        ///< "CUBIN", "PTX", "HSACO"
  bool compressed = false;
};

/// The rows of tta_images in a generated <lib>.c, as the runtime reads them.
std::vector<ImageRow> imageRows(const fs::path &generatedC) {
  static const std::regex row(R"(\{(\d+), (\d+), (\d+), TRITON_AOT_IMAGE_(\w+), )"
                              R"(TRITON_AOT_COMPRESSION_(\w+), 0x([0-9a-f]{16})ULL\})");
  std::vector<ImageRow> rows;
  const std::string text = textOf(generatedC);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator();
       ++it) {
    const std::smatch &m = *it;
    ImageRow r;
    r.offset = std::stoull(m[1]);
    r.size = std::stoull(m[2]);
    r.rawSize = std::stoull(m[3]);
    r.kind = m[4];
    r.compressed = m[5] == "ZSTD";
    r.hash = std::stoull(m[6], nullptr, 16);
    rows.push_back(r);
  }
  return rows;
}

/// Where \p needle starts in \p haystack (npos if nowhere).
std::size_t find(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle);
}

TEST(ImageHash, IsXxh3AsTheLinkerRecordsIt) {
  // XXH3-64 (seed 0) of bytes (i * 31 + 7) mod 256, as xxHash's own library (libxxhash 0.8)
  // computes them; tests/codegen checks the linker's against the same values.
  const std::pair<std::size_t, std::uint64_t> known[] = {
      {0, 0x2d06800538d394c2ull},    {1, 0x4c5cca45d0f4811full},   {3, 0x15f7093b173d005cull},
      {16, 0x7e484c18d74895d0ull},   {17, 0x208bde5ee2bed407ull},  {128, 0xf92b70eaa21a6288ull},
      {129, 0xf8f76713f2bb60faull},  {240, 0xccc7375172c41f03ull}, {241, 0x0b3b630948ce4a00ull},
      {1000, 0x989765d0ea7a5ecdull}, {6504, 0xb3be3e0126504c23ull}, {100000, 0xccf90df7e7e37036ull}};
  for (const auto &[size, hash] : known) {
    std::vector<unsigned char> bytes(size);
    for (std::size_t i = 0; i < size; ++i)
      bytes[i] = static_cast<unsigned char>(i * 31 + 7);
    EXPECT_EQ(tta_image_hash(bytes.data(), bytes.size()), hash) << size << " bytes";
  }
}

class Images : public RuntimeTest {};

// rt_kernels is linked into this program: its blob is in this program's read-only data. One
// byte of the sm_90a cubin of vector_add is flipped there (the page made writable for it), as
// a damaged file or a stray write would leave it.
TEST_F(Images, AFlippedByteInAnEmbeddedImageIsAnErrorAndNeverALoad) {
  const fs::path dir = TTA_RUNTIME_KERNELS_DIR;
  const std::string blob = textOf(dir / "rt_kernels.images");
  const std::vector<unsigned char> cubinBytes = readFile(
      (dir / "cc" / kernelsFiles().variant("vector_add", "cuda:90a", "b1024", true).binary).string());
  const std::string cubin(cubinBytes.begin(), cubinBytes.end());
  ASSERT_FALSE(cubin.empty());
  ASSERT_EQ(std::memcmp(rt_kernels_tta_blob, blob.data(), blob.size()), 0)
      << "the program's blob is the linker's file";
  const std::size_t at = find(blob, cubin);
  ASSERT_NE(at, std::string::npos) << "the cubin is embedded as it is (no compression)";
  bool rowFound = false;
  for (const ImageRow &row : imageRows(dir / "rt_kernels.c"))
    if (row.offset == at) {
      rowFound = true;
      EXPECT_EQ(row.hash, tta_image_hash(cubin.data(), cubin.size())) << "the linker's hash";
    }
  EXPECT_TRUE(rowFound) << "the cubin has its row in tta_images";

  // Flip one byte in the middle of it, in memory.
  unsigned char *byte = const_cast<unsigned char *>(rt_kernels_tta_blob) + at + cubin.size() / 2;
  const long pageSize = ::sysconf(_SC_PAGESIZE);
  void *page = reinterpret_cast<void *>(reinterpret_cast<std::uintptr_t>(byte) &
                                        ~static_cast<std::uintptr_t>(pageSize - 1));
  ASSERT_EQ(::mprotect(page, static_cast<std::size_t>(pageSize), PROT_READ | PROT_WRITE), 0);
  *byte ^= 0x01;

  EXPECT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_LOAD_FAILED);
  std::string message = lastError();
  for (const char *part : {"rt_kernels_vector_add", "sm_90a cubin", "of library rt_kernels",
                           "is damaged", "rebuild or reinstall"})
    EXPECT_TRUE(contains(message, part)) << "'" << part << "' in: " << message;
  EXPECT_TRUE(loads().empty()) << "the driver never got the damaged image";
  EXPECT_TRUE(launches().empty());
  // Preloading says the same, and a failed check is not remembered as a pass.
  EXPECT_EQ(rt_kernels_preload(), TRITON_AOT_ERROR_LOAD_FAILED);
  EXPECT_TRUE(contains(rt_kernels_last_error(), "is damaged")) << rt_kernels_last_error();
  EXPECT_TRUE(loads().empty());

  // Repaired, the same library state loads and launches.
  *byte ^= 0x01;
  ASSERT_EQ(::mprotect(page, static_cast<std::size_t>(pageSize), PROT_READ), 0);
  ASSERT_EQ(rt_kernels_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << lastError();
  ASSERT_EQ(loads().size(), 1u);
  EXPECT_EQ(loads()[0].hash, tta_fake_hash(cubin.data(), cubin.size()));
  EXPECT_EQ(launches().size(), 1u);
}

/// A shared library built by the tests, copied and opened with dlopen as a program would.
struct OpenedCopy {
  void *handle = nullptr;
  decltype(&shr_vector_add) vectorAdd = nullptr;   // rt_plain's has the same signature
  const char *(*lastError)() = nullptr;
  triton_aot_status (*unload)() = nullptr;

  OpenedCopy(const fs::path &file, const std::string &prefix) {
    handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      ADD_FAILURE() << "dlopen " << file << ": " << ::dlerror();
      return;
    }
    take(vectorAdd, prefix + "_vector_add");
    take(lastError, prefix + "_last_error");
    take(unload, prefix + "_unload");
  }
  ~OpenedCopy() {
    if (unload != nullptr) {
      EXPECT_EQ(unload(), TRITON_AOT_SUCCESS) << lastError();
    }
    if (handle != nullptr)
      ::dlclose(handle);
  }
  bool ready() const { return vectorAdd != nullptr && lastError != nullptr && unload != nullptr; }

private:
  template <class F> void take(F &function, const std::string &name) {
    void *symbol = ::dlsym(handle, name.c_str());
    if (symbol == nullptr)
      ADD_FAILURE() << name << " is not exported";
    else
      std::memcpy(&function, &symbol, sizeof symbol);
  }
};

struct SharedCase {
  const char *name;      ///< the library (prefix in its symbols below)
  const char *prefix;
  const char *file;      ///< the built .so
  const char *dir;       ///< its generated sources
  bool compressed;
};

class DamagedLibraryFile : public RuntimeTest, public ::testing::WithParamInterface<SharedCase> {
protected:
  void SetUp() override { useCudaDevices("sm_80"); }
  void TearDown() override {
    RuntimeTest::TearDown();
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }

  /// A copy of the library file, with the sm_80 cubin damaged when \p damage: one byte flipped
  /// in the middle of its stored bytes (a zstd frame when compressed).
  fs::path copy(bool damage) {
    const SharedCase &c = GetParam();
    std::string bytes = textOf(c.file);
    const std::string blob = textOf(fs::path(c.dir) / (std::string(c.name) + ".images"));
    const std::size_t blobAt = find(bytes, blob.substr(0, std::min<std::size_t>(blob.size(), 512)));
    EXPECT_NE(blobAt, std::string::npos) << "the blob is in " << c.file;
    std::size_t cubins = 0;
    for (const ImageRow &row : imageRows(fs::path(c.dir) / (std::string(c.name) + ".c"))) {
      EXPECT_EQ(row.compressed, c.compressed) << c.name;
      if (row.kind != "CUBIN" || blobAt == std::string::npos)
        continue;
      ++cubins;
      if (damage)
        bytes[blobAt + row.offset + row.size / 2] ^= 0x40;
    }
    EXPECT_EQ(cubins, 1u) << "rt_shared's kernel has one cubin (sm_80, no PTX)";
    fs::create_directories(scratch_);
    fs::path out = scratch_ / (std::string(damage ? "damaged_" : "intact_") + c.name + ".so");
    std::ofstream(out, std::ios::binary) << bytes;
    return out;
  }

  fs::path scratch_ = fs::temp_directory_path() /
                      ("tta_images_test." + std::to_string(::getpid()));
};

TEST_P(DamagedLibraryFile, FailsItsFirstLaunchNamingTheImageAndLoadsNothing) {
  const SharedCase &c = GetParam();
  {
    OpenedCopy damaged(copy(true), c.prefix);
    ASSERT_TRUE(damaged.ready());
    EXPECT_EQ(damaged.vectorAdd(nullptr, kX, kY, kOut, 4096), TRITON_AOT_ERROR_LOAD_FAILED);
    std::string message = damaged.lastError();
    for (std::string part : {std::string(c.prefix) + "_vector_add", std::string("sm_80 cubin"),
                             "of library " + std::string(c.name), std::string("is damaged")})
      EXPECT_TRUE(contains(message, part)) << "'" << part << "' in: " << message;
    EXPECT_TRUE(contains(message, c.compressed ? "decompressing it failed" : "XXH3-64"))
        << message;
    EXPECT_TRUE(loads().empty()) << "the driver never got the damaged image";
    EXPECT_TRUE(launches().empty());
  }
  {
    // The same file undamaged, copied the same way, loads and launches.
    OpenedCopy intact(copy(false), c.prefix);
    ASSERT_TRUE(intact.ready());
    EXPECT_EQ(intact.vectorAdd(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << intact.lastError();
    EXPECT_EQ(loads().size(), 1u);
    EXPECT_EQ(launches().size(), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Images, DamagedLibraryFile,
    ::testing::Values(SharedCase{"rt_plain", "pln", TTA_RUNTIME_PLAIN_FILE,
                                 TTA_RUNTIME_PLAIN_DIR, false},
                      SharedCase{"rt_shared", "shr", TTA_RUNTIME_SHARED_FILE,
                                 TTA_RUNTIME_SHARED_DIR, true}),
    [](const ::testing::TestParamInfo<SharedCase> &param) {
      return std::string(param.param.compressed ? "Compressed" : "Uncompressed");
    });

} // namespace
} // namespace tta::test
