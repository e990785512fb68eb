// The dispatchers' behaviour, independent of the runtime: each generated <lib>.c is compiled
// (by gcc and by clang) into a shared object together with fake_runtime.c, which records what
// triton_aot_launch() receives. Checked: config bounds, hint-variant order and fallback, ':1'
// variants and their argument lists, grid values, zero and negative grids, the exact bytes of
// every scalar, error messages, the library-wide functions, and the tables against the model.
#include "codegen_fixture.h"
#include "fake_runtime.h"
#include "test_libraries.h"
#include "linker/image_blob.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <climits>
#include <cstring>
#include <map>
#include <memory>

namespace tta::link::testing {
namespace {

struct Compiler {
  const char *name;
  const char *cc;
};

std::ostream &operator<<(std::ostream &out, const Compiler &compiler) {
  return out << compiler.name;
}

/// A generated library compiled with the fake runtime and loaded with dlopen.
class FakeLibrary {
public:
  FakeLibrary(const Library &library, const Compiler &compiler, const fs::path &dir)
      : model_(library) {
    const std::string manifest = "{\"manifest of\": \"" + library.name + "\"}";
    const std::string inventory = "inventory of " + library.name + "\n";
    writeLibrary(library, dir, manifest, inventory);
    const fs::path so = dir / ("lib" + library.name + "_fake.so");
    const std::string command =
        std::string(compiler.cc) +
        " -std=c11 -Wall -Wextra -Wpedantic -Werror -fvisibility=hidden -fPIC -shared"
        " -Wl,--no-undefined -I" +
        quote(runtimeIncludeDir()) + " -I" + quote(dir.string()) + " -I" +
        quote(TTA_CODEGEN_TEST_DIR) + " -o " + quote(so.string()) + " " +
        quote((dir / (library.name + ".c")).string()) + " " +
        quote((dir / (library.name + ".images.S")).string()) + " " +
        quote(std::string(TTA_CODEGEN_TEST_DIR) + "/fake_runtime.c");
    const CommandResult built = run(command);
    if (built.status != 0 || !built.output.empty()) {
      error_ = command + "\n" + built.output;
      return;
    }
    handle_ = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      error_ = ::dlerror();
      return;
    }
    state_ = symbol<fake_runtime_state_fn>("fake_runtime_state")();
    manifest_ = manifest;
    inventory_ = inventory;
  }
  ~FakeLibrary() {
    if (handle_)
      ::dlclose(handle_);
  }

  const std::string &error() const { return error_; }
  const Library &model() const { return model_; }
  /// Bytes of dynamic relocation records the loader applied when it opened the library.
  std::size_t relocationBytes() const {
    struct link_map *map = nullptr;
    if (!handle_ || ::dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || !map)
      return 0;
    std::size_t bytes = 0;
    for (const ElfW(Dyn) *dynamic = map->l_ld; dynamic->d_tag != DT_NULL; ++dynamic)
      if (dynamic->d_tag == DT_RELASZ || dynamic->d_tag == DT_RELSZ ||
          dynamic->d_tag == DT_PLTRELSZ
#ifdef DT_RELRSZ
          || dynamic->d_tag == DT_RELRSZ
#endif
      )
        bytes += dynamic->d_un.d_val;
    return bytes;
  }
  const std::string &manifest() const { return manifest_; }
  const std::string &inventory() const { return inventory_; }

  template <class F> F symbol(const std::string &name) const {
    void *address = ::dlsym(handle_, name.c_str());
    EXPECT_NE(address, nullptr) << name;
    return reinterpret_cast<F>(address);
  }

  /// Clears the record before a call; \p sizes are the argument bytes to capture.
  fake_runtime &reset(std::vector<std::size_t> sizes = {}) {
    std::memset(static_cast<void *>(state_), 0, sizeof *state_);
    for (std::size_t i = 0; i < sizes.size() && i < FAKE_MAX_ARGS; ++i)
      state_->arg_sizes[i] = sizes[i];
    return *state_;
  }
  const fake_runtime &state() const { return *state_; }
  /// The runtime kernel table entry of the last launch.
  const triton_aot_kernel &launched() const { return state_->library->kernels[state_->kernel]; }

private:
  Library model_;
  void *handle_ = nullptr;
  fake_runtime *state_ = nullptr;
  std::string error_;
  std::string manifest_;
  std::string inventory_;
};

template <class T> std::vector<unsigned char> bytesOf(T value) {
  std::vector<unsigned char> out(sizeof value);
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}

std::vector<unsigned char> recorded(const fake_runtime &state, std::size_t arg, std::size_t size) {
  return {state.arg_bytes[arg], state.arg_bytes[arg] + size};
}

std::vector<std::uint64_t> grid(const fake_runtime &state) {
  return {state.grid[0], state.grid[1], state.grid[2]};
}

/// Device pointers: any values; 0x1000 is 16-byte aligned, 0x1008 is not (8-byte aligned only).
const void *const kAligned = reinterpret_cast<const void *>(std::uintptr_t{0x1000});
const void *const kAligned2 = reinterpret_cast<const void *>(std::uintptr_t{0x2000});
const void *const kMisaligned = reinterpret_cast<const void *>(std::uintptr_t{0x1008});
void *const kStream = reinterpret_cast<void *>(std::uintptr_t{0x5eed});

class Dispatch : public ::testing::TestWithParam<Compiler> {
protected:
  /// Built once per compiler and library, kept for the whole run.
  static FakeLibrary &load(const std::string &which) {
    struct Cache {
      fs::path root;
      std::map<std::string, std::unique_ptr<FakeLibrary>> libraries;
      ~Cache() {
        libraries.clear();
        std::error_code ignored;
        fs::remove_all(root, ignored);
      }
    };
    static Cache cache;
    const Compiler compiler = GetParam();
    std::unique_ptr<FakeLibrary> &slot = cache.libraries[which + "." + compiler.name];
    if (!slot) {
      const char *base = std::getenv("TTA_TEST_TMPDIR");
      cache.root = fs::absolute(base ? fs::path(base) : fs::temp_directory_path()) /
                   ("tta-dispatch-" + std::to_string(::getpid()));
      const fs::path dir = cache.root / (which + "." + compiler.name);
      fs::remove_all(dir);
      fs::create_directories(dir);
      slot = std::make_unique<FakeLibrary>(which == "mk"      ? vectorAddLibrary()
                                           : which == "td"    ? tensorDescLibrary()
                                           : which == "tuned" ? tunedLibrary(dir)
                                           : which == "tdt"   ? tunedTensorDescLibrary(dir)
                                           : which == "heur"  ? heuristicFormsLibrary()
                                                              : edgeLibrary(),
                                           compiler, dir);
    }
    EXPECT_EQ(slot->error(), "");
    return *slot;
  }
  FakeLibrary &mk() { return load("mk"); }
  FakeLibrary &edge() { return load("edge"); }
};

using AddFn = triton_aot_status (*)(void *, const void *, const void *, const void *, std::int32_t);
using AddConfigFn = triton_aot_status (*)(void *, int, const void *, const void *, const void *,
                                          std::int32_t);

TEST_P(Dispatch, VectorAddPicksTheVariantAndConfigWithTheirGrid) {
  FakeLibrary &lib = mk();
  ASSERT_EQ(lib.error(), "");
  auto add = lib.symbol<AddFn>("mk_add");
  auto addConfig = lib.symbol<AddConfigFn>("mk_add_config");
  const std::vector<std::size_t> sizes = {8, 8, 8, 4};

  struct Case {
    int config; // -1: mk_add()
    const void *x, *y;
    std::int32_t n;
    std::uint32_t variant;
    std::uint64_t gridX;
  };
  const Case cases[] = {
      {-1, kAligned, kAligned2, 4096, 0, 4},    // every promise holds
      {-1, kMisaligned, kAligned2, 4096, 1, 4}, // x not aligned -> generic
      {-1, kAligned, kMisaligned, 4096, 1, 4},  // y not aligned -> generic
      {-1, kAligned, kAligned2, 4097, 1, 5},    // n not a multiple of 16 -> generic, cdiv
      {0, kAligned, kAligned2, 1024, 0, 1},
      {1, kAligned, kAligned2, 1024, 2, 8}, // config 1: BLOCK 128, variants 2 and 3
      {1, kAligned, kAligned2, 1025, 3, 9},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("config " + std::to_string(c.config) + " n " + std::to_string(c.n));
    fake_runtime &state = lib.reset(sizes);
    const triton_aot_status status = c.config < 0
                                         ? add(kStream, c.x, c.y, kAligned, c.n)
                                         : addConfig(kStream, c.config, c.x, c.y, kAligned, c.n);
    EXPECT_EQ(status, TRITON_AOT_SUCCESS);
    ASSERT_EQ(state.launches, 1);
    EXPECT_STREQ(state.library->name, "mk");
    EXPECT_STREQ(state.library->prefix, "mk");
    EXPECT_EQ(state.kernel, 0u);
    EXPECT_STREQ(lib.launched().name, "mk_add");
    EXPECT_EQ(state.variant, c.variant);
    EXPECT_EQ(state.stream, kStream);
    EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{c.gridX, 1, 1}));
    EXPECT_EQ(state.arg_count, 4u);
    EXPECT_EQ(recorded(state, 0, 8), bytesOf(c.x));
    EXPECT_EQ(recorded(state, 1, 8), bytesOf(c.y));
    EXPECT_EQ(recorded(state, 2, 8), bytesOf(kAligned));
    EXPECT_EQ(recorded(state, 3, 4), bytesOf(c.n));
    EXPECT_EQ(state.fails, 0);
  }
  EXPECT_EQ(lib.symbol<int (*)()>("mk_add_config_count")(), 2);
  auto name = lib.symbol<const char *(*)(int)>("mk_add_config_name");
  EXPECT_STREQ(name(0), "large");
  EXPECT_STREQ(name(1), "small");
  EXPECT_EQ(name(2), nullptr);
  EXPECT_EQ(name(-1), nullptr);
}

TEST_P(Dispatch, ConfigOutOfRangeIsRefusedByCountWithoutLaunching) {
  FakeLibrary &lib = mk();
  ASSERT_EQ(lib.error(), "");
  auto addConfig = lib.symbol<AddConfigFn>("mk_add_config");
  for (int config : {2, 3, 16, -1, INT_MIN, INT_MAX}) {
    fake_runtime &state = lib.reset();
    EXPECT_EQ(addConfig(kStream, config, kAligned, kAligned, kAligned, 64),
              TRITON_AOT_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(state.launches, 0) << config;
    EXPECT_EQ(state.fail_status, TRITON_AOT_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(state.message),
              "mk_add: config " + std::to_string(config) + " is out of range; it has 2 configs");
    EXPECT_STREQ(lib.symbol<const char *(*)()>("mk_last_error")(), state.message);
  }
}

TEST_P(Dispatch, EmptyGridLaunchesNothingAndSucceedsNegativeGridIsAnError) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, std::int32_t, std::int32_t);
  auto emptyGrid = lib.symbol<Fn>("edge_empty_grid");
  struct Case {
    std::int32_t n, m;
    triton_aot_status status;
    int launches;
    const char *message;
  };
  const Case cases[] = {
      {3, 4, TRITON_AOT_SUCCESS, 1, ""},
      {0, 4, TRITON_AOT_SUCCESS, 0, ""},
      {3, 0, TRITON_AOT_SUCCESS, 0, ""},
      {-1, 4, TRITON_AOT_ERROR_INVALID_ARGUMENT, 0,
       "edge_empty_grid: grid x is -1; it must not be negative"},
      {0, -7, TRITON_AOT_ERROR_INVALID_ARGUMENT, 0,
       "edge_empty_grid: grid y is -7; it must not be negative"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.n) + " x " + std::to_string(c.m));
    fake_runtime &state = lib.reset();
    std::strcpy(state.message, "an earlier failure");
    EXPECT_EQ(emptyGrid(nullptr, c.n, c.m), c.status);
    EXPECT_EQ(state.launches, c.launches);
    EXPECT_STREQ(state.message, c.message);
    if (c.launches) {
      EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{3, 4, 1}));
    }
    // The success path without a launch clears the thread's last error itself.
    if (c.status == TRITON_AOT_SUCCESS && c.launches == 0) {
      EXPECT_EQ(state.clears, 1);
    }
  }
}

TEST_P(Dispatch, ACallerGridIsLaunchedAsGivenAndAZeroDimensionLaunchesNothing) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, std::uint32_t, std::uint32_t, std::uint32_t,
                                   const void *, std::int32_t, std::int32_t);
  using ConfigFn = triton_aot_status (*)(void *, int, std::uint32_t, std::uint32_t, std::uint32_t,
                                         const void *, std::int32_t, std::int32_t);
  auto rows = lib.symbol<Fn>("edge_rows");
  auto rowsConfig = lib.symbol<ConfigFn>("edge_rows_config");

  fake_runtime &state = lib.reset({8, 4, 4});
  ASSERT_EQ(rows(kStream, 300, 2, 5, kAligned, 77, 9), TRITON_AOT_SUCCESS);
  ASSERT_EQ(state.launches, 1);
  EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{300, 2, 5}));
  EXPECT_EQ(state.variant, 0u) << "the aligned variant of config 0";
  EXPECT_EQ(recorded(state, 1, 4), bytesOf(std::int32_t{77})) << "the kernel's grid_x argument";
  EXPECT_EQ(recorded(state, 2, 4), bytesOf(std::int32_t{9}));

  // The largest grid a uint32_t holds reaches the runtime, which checks the device's limit.
  fake_runtime &wide = lib.reset({8, 4, 4});
  ASSERT_EQ(rowsConfig(kStream, 1, 0xFFFFFFFFu, 1, 1, kMisaligned, 0, 0), TRITON_AOT_SUCCESS);
  ASSERT_EQ(wide.launches, 1);
  EXPECT_EQ(grid(wide), (std::vector<std::uint64_t>{0xFFFFFFFFu, 1, 1}));

  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    fake_runtime &cleared = lib.reset();
    std::strcpy(cleared.message, "an earlier failure");
    std::uint32_t dims[3] = {4, 4, 4};
    dims[axis] = 0;
    EXPECT_EQ(rows(kStream, dims[0], dims[1], dims[2], kAligned, 1, 1), TRITON_AOT_SUCCESS);
    EXPECT_EQ(cleared.launches, 0);
    EXPECT_EQ(cleared.clears, 1);
    EXPECT_STREQ(cleared.message, "");
  }
  // The config is still checked.
  EXPECT_EQ(rowsConfig(kStream, 2, 1, 1, 1, kAligned, 1, 1), TRITON_AOT_ERROR_INVALID_ARGUMENT);
}

TEST_P(Dispatch, ScalarsArePassedAtTheirExactWidthAndBits) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using Fn =
      triton_aot_status (*)(void *, const void *, bool, std::int8_t, std::int16_t, std::int32_t,
                            std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t,
                            std::uint16_t, std::uint16_t, float, double);
  auto scalars = lib.symbol<Fn>("edge_scalars");
  fake_runtime &state = lib.reset({8, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8});
  const std::uint16_t half = triton_aot_fp16(-2.5f);
  const std::uint16_t brain = triton_aot_bf16(3.0f);
  ASSERT_EQ(scalars(kStream, kMisaligned, true, -2, -300, 7, 0x1122334455667788LL, 200, 0xBEEF,
                    0xDEADBEEFu, 0xFEDCBA9876543210ULL, half, brain, 0.1f, 0.1),
            TRITON_AOT_SUCCESS);
  ASSERT_EQ(state.launches, 1);
  EXPECT_STREQ(lib.launched().name, "edge_scalars");
  EXPECT_EQ(state.arg_count, 14u);
  EXPECT_EQ(lib.launched().trailing_args,
            unsigned{TRITON_AOT_ARG_GLOBAL_SCRATCH | TRITON_AOT_ARG_PROFILE_SCRATCH});
  EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{7, 2, 3}));
  EXPECT_EQ(recorded(state, 0, 8), bytesOf(kMisaligned));
  EXPECT_EQ(recorded(state, 1, 1), std::vector<unsigned char>{1}); // i1: one byte, 1
  EXPECT_EQ(recorded(state, 2, 1), bytesOf(std::int8_t{-2}));
  EXPECT_EQ(recorded(state, 3, 2), bytesOf(std::int16_t{-300}));
  EXPECT_EQ(recorded(state, 4, 4), bytesOf(std::int32_t{7}));
  EXPECT_EQ(recorded(state, 5, 8), bytesOf(std::int64_t{0x1122334455667788LL}));
  EXPECT_EQ(recorded(state, 6, 1), bytesOf(std::uint8_t{200}));
  EXPECT_EQ(recorded(state, 7, 2), bytesOf(std::uint16_t{0xBEEF}));
  EXPECT_EQ(recorded(state, 8, 4), bytesOf(std::uint32_t{0xDEADBEEFu}));
  EXPECT_EQ(recorded(state, 9, 8), bytesOf(std::uint64_t{0xFEDCBA9876543210ULL}));
  EXPECT_EQ(recorded(state, 10, 2), bytesOf(std::uint16_t{0xC100})); // fp16 -2.5
  EXPECT_EQ(recorded(state, 11, 2), bytesOf(std::uint16_t{0x4040})); // bf16 3.0
  // fp32 is a float: 0x3dcccccd, not the low half of the double 0.1 (upstream's bug).
  EXPECT_EQ(recorded(state, 12, 4), bytesOf(0.1f));
  EXPECT_EQ(recorded(state, 12, 4), bytesOf(std::uint32_t{0x3dcccccd}));
  EXPECT_EQ(recorded(state, 13, 8), bytesOf(0.1));
  // false is 0.
  lib.reset({8, 1});
  ASSERT_EQ(scalars(kStream, kAligned, false, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0.f, 0.),
            TRITON_AOT_SUCCESS);
  EXPECT_EQ(recorded(lib.state(), 1, 1), std::vector<unsigned char>{0});
}

// <api>_config_argv: the same launch as <api>_config, each argument by address (the tuner calls
// kernels it knows only from the manifest this way).
TEST_P(Dispatch, TheArgvEntryPassesEachArgumentByAddressAsTheTypedOneDoes) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using ArgvFn = triton_aot_status (*)(void *, int, const std::uint32_t *, void *const *);
  auto scalarsArgv = lib.symbol<ArgvFn>("edge_scalars_config_argv");
  const void *pointer = kMisaligned;
  bool flag = true;
  std::int8_t i8 = -2;
  std::int16_t i16 = -300;
  std::int32_t i32 = 7;
  std::int64_t i64 = 0x1122334455667788LL;
  std::uint8_t u8 = 200;
  std::uint16_t u16 = 0xBEEF, half = triton_aot_fp16(-2.5f), brain = triton_aot_bf16(3.0f);
  std::uint32_t u32 = 0xDEADBEEFu;
  std::uint64_t u64 = 0xFEDCBA9876543210ULL;
  float f32 = 0.1f;
  double f64 = 0.1;
  void *const args[] = {&pointer, &flag, &i8,  &i16,  &i32,   &i64, &u8,
                        &u16,     &u32,  &u64, &half, &brain, &f32, &f64};
  fake_runtime &state = lib.reset({8, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8});
  ASSERT_EQ(scalarsArgv(kStream, 0, nullptr, args), TRITON_AOT_SUCCESS) << lib.error();
  ASSERT_EQ(state.launches, 1);
  EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{7, 2, 3})) << "its own grid; NULL is fine";
  EXPECT_EQ(recorded(state, 0, 8), bytesOf(kMisaligned));
  EXPECT_EQ(recorded(state, 1, 1), std::vector<unsigned char>{1});
  EXPECT_EQ(recorded(state, 5, 8), bytesOf(std::int64_t{0x1122334455667788LL}));
  EXPECT_EQ(recorded(state, 10, 2), bytesOf(std::uint16_t{0xC100}));
  EXPECT_EQ(recorded(state, 12, 4), bytesOf(0.1f));
  EXPECT_EQ(recorded(state, 13, 8), bytesOf(0.1));
  EXPECT_EQ(scalarsArgv(kStream, 5, nullptr, args), TRITON_AOT_ERROR_INVALID_ARGUMENT)
      << "the config is still checked";

  // A kernel without a grid takes the caller's three; without them, nothing launches.
  auto rowsArgv = lib.symbol<ArgvFn>("edge_rows_config_argv");
  const void *rowsPointer = kAligned;
  std::int32_t a = 77, b = 9;
  void *const rowsArgs[] = {&rowsPointer, &a, &b};
  const std::uint32_t dims[3] = {300, 2, 5};
  fake_runtime &rows = lib.reset({8, 4, 4});
  ASSERT_EQ(rowsArgv(kStream, 0, dims, rowsArgs), TRITON_AOT_SUCCESS);
  EXPECT_EQ(grid(rows), (std::vector<std::uint64_t>{300, 2, 5}));
  EXPECT_EQ(recorded(rows, 1, 4), bytesOf(std::int32_t{77}));
  fake_runtime &refused = lib.reset();
  EXPECT_EQ(rowsArgv(kStream, 0, nullptr, rowsArgs), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(refused.launches, 0);
  EXPECT_NE(std::string(refused.message).find("edge_rows_config_argv: the kernel takes its grid "
                                              "from the caller"),
            std::string::npos)
      << refused.message;
}

// A tuned kernel: p_K asks the runtime which of the kernel's targets the device runs, and the
// key's values pick the config from that target's table; an untuned target, or none, runs the
// first config. p_K_select_config computes the same without a driver.
TEST_P(Dispatch, ATunedKernelRunsTheConfigItsTableGivesTheShape) {
  FakeLibrary &lib = load("tuned");
  ASSERT_EQ(lib.error(), "");
  using MmFn = triton_aot_status (*)(void *, const void *, std::int32_t, std::int32_t, std::int64_t);
  using SelectFn = int (*)(const char *, const void *, std::int32_t, std::int32_t, std::int64_t);
  auto mm = lib.symbol<MmFn>("tuned_mm");
  auto select = lib.symbol<SelectFn>("tuned_mm_select_config");
  struct Case {
    std::int32_t m, n;
    int config;   // small 0, tall 1, wide 2, big 3
  };
  // Both sides of M's boundary (1024 = sqrt(256 * 4096)) and of N's (sqrt(64 * 8192) = 724.08).
  const Case cases[] = {{1023, 64, 0}, {1024, 64, 1},   {1, 1, 0},        {256, 724, 0},
                        {256, 725, 2}, {4096, 8192, 3}, {1 << 30, 725, 3}, {1023, 100000, 2}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + " x " + std::to_string(c.n));
    fake_runtime &state = lib.reset({8, 4, 4, 8});
    state.kernel_target = 1;   // cuda:90a
    ASSERT_EQ(mm(kStream, kAligned, c.m, c.n, 5), TRITON_AOT_SUCCESS) << lib.error();
    ASSERT_EQ(state.launches, 1);
    EXPECT_EQ(state.target_queries, 1);
    EXPECT_EQ(state.launch_place, FAKE_PLACE_KEY + 1u)
        << "the launch takes the place the target query found: the context is asked once";
    EXPECT_EQ(state.variant, static_cast<std::uint32_t>(c.config)) << "one variant per config";
    EXPECT_EQ(state.logged_config, c.config);
    EXPECT_EQ(state.logged_target, 1);
    const char *const names[] = {"small", "tall", "wide", "big"};
    EXPECT_STREQ(state.logged_name, names[c.config]);
    EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{std::uint64_t(c.m), std::uint64_t(c.n), 1}));
    EXPECT_EQ(select("cuda:90a", kAligned, c.m, c.n, 5), c.config);
    EXPECT_EQ(select("cuda:80", kAligned, c.m, c.n, 5), 0) << "untuned there";
  }
  EXPECT_EQ(select("cuda:75", kAligned, 4096, 8192, 5), 0) << "a target it has no image for";
  EXPECT_EQ(select(nullptr, kAligned, 4096, 8192, 5), 0);
  for (int target : {0, -1}) {   // sm_80 (untuned), or no image / no device
    fake_runtime &state = lib.reset({8, 4, 4, 8});
    state.kernel_target = target;
    ASSERT_EQ(mm(kStream, kAligned, 4096, 8192, 5), TRITON_AOT_SUCCESS);
    EXPECT_EQ(state.variant, 0u);
    EXPECT_EQ(state.logged_target, -1) << "logged as untuned";
  }
  // _config still runs the config it is given.
  using MmConfigFn = triton_aot_status (*)(void *, int, const void *, std::int32_t, std::int32_t,
                                           std::int64_t);
  fake_runtime &chosen = lib.reset({8, 4, 4, 8});
  chosen.kernel_target = 1;
  ASSERT_EQ(lib.symbol<MmConfigFn>("tuned_mm_config")(kStream, 2, kAligned, 1, 1, 5), TRITON_AOT_SUCCESS);
  EXPECT_EQ(chosen.variant, 2u);
  EXPECT_EQ(chosen.target_queries, 0);
  EXPECT_EQ(chosen.launch_place, 0u) << "no target query, so no place: the runtime asks";
}

using NamesFn = triton_aot_status (*)(void *, int, const void *, std::int32_t, std::int32_t,
                                      std::int32_t, std::int32_t, const void *, std::int64_t,
                                      std::int32_t, std::int32_t, std::int32_t, std::int32_t);

TEST_P(Dispatch, KeywordAndClashingNamesFloatNegativeAndBoolConstexprs) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  auto names = lib.symbol<NamesFn>("edge_names_config");
  EXPECT_EQ(lib.symbol<int (*)()>("edge_names_config_count")(), 3);
  EXPECT_STREQ(lib.symbol<const char *(*)(int)>("edge_names_config_name")(2), "odd */ name \"q\" ?"
                                                                              "?= 100%");
  // Grid: (max(cdiv(default, 4) + OFFSET, 0), EVEN + 1, min(grid, 8)).
  struct Case {
    int config;
    const void *int_;
    std::int32_t default_;
    std::uint32_t variant;
    std::vector<std::uint64_t> grid;
  };
  const Case cases[] = {
      {0, kAligned, 32, 0, {5, 2, 5}}, // OFFSET -3, EVEN true
      {0, kAligned, 40, 1, {7, 2, 5}}, // 40 % 16 != 0: generic
      {0, kMisaligned, 32, 1, {5, 2, 5}},
      {0, kAligned, 4, 0, {0, 2, 5}},   // max(1 - 3, 0) = 0: nothing launched
      {1, kAligned, 48, 2, {11, 1, 5}}, // OFFSET -1, EVEN false
      {1, kAligned, 41, 3, {10, 1, 5}},
      {2, kAligned, 48, 4, {12, 1, 5}}, // only a generic variant
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("config " + std::to_string(c.config) + " default " + std::to_string(c.default_));
    fake_runtime &state = lib.reset({8, 4, 4, 4, 4, 8, 8, 4, 4, 4, 4});
    EXPECT_EQ(names(kStream, c.config, c.int_, c.default_, 111, 222, 5, kAligned2, -333, 444, 555,
                    666, 777),
              TRITON_AOT_SUCCESS);
    if (c.grid[0] == 0) {
      EXPECT_EQ(state.launches, 0);
      continue;
    }
    ASSERT_EQ(state.launches, 1);
    EXPECT_STREQ(lib.launched().name, "edge_names");
    EXPECT_EQ(state.variant, c.variant);
    EXPECT_EQ(state.stream, kStream); // the stream, not the parameter called stream
    EXPECT_EQ(grid(state), c.grid);
    EXPECT_EQ(state.arg_count, 11u);
    EXPECT_EQ(recorded(state, 0, 8), bytesOf(c.int_));
    EXPECT_EQ(recorded(state, 1, 4), bytesOf(c.default_));
    EXPECT_EQ(recorded(state, 2, 4), bytesOf(std::int32_t{111}));  // stream
    EXPECT_EQ(recorded(state, 3, 4), bytesOf(std::int32_t{222}));  // config
    EXPECT_EQ(recorded(state, 4, 4), bytesOf(std::int32_t{5}));    // grid
    EXPECT_EQ(recorded(state, 5, 8), bytesOf(kAligned2));          // args
    EXPECT_EQ(recorded(state, 6, 8), bytesOf(std::int64_t{-333})); // variant
    EXPECT_EQ(recorded(state, 7, 4), bytesOf(std::int32_t{444}));  // NULL
    EXPECT_EQ(recorded(state, 8, 4), bytesOf(std::int32_t{555}));  // int32_t
    EXPECT_EQ(recorded(state, 9, 4), bytesOf(std::int32_t{666}));  // tta_launch
    EXPECT_EQ(recorded(state, 10, 4), bytesOf(std::int32_t{777})); // triton_aot_fail
  }
}

TEST_P(Dispatch, OneVariantsFallBackAndPassTheirOwnArgumentList) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, const void *, std::int32_t, std::int64_t);
  auto oneFallback = lib.symbol<Fn>("edge_one_fallback");
  // Variants in order: x:16 stride:1, stride:1, x:16, generic. The stride:1 ones do not take
  // stride, so they live in their own kernel entry with 2 arguments.
  struct Case {
    const void *x;
    std::int64_t stride;
    std::uint32_t argCount, variant;
  };
  const Case cases[] = {{kAligned, 1, 2, 0},    {kMisaligned, 1, 2, 1}, {kAligned, 2, 3, 0},
                        {kMisaligned, 2, 3, 1}, {kAligned, -1, 3, 0},   {kAligned, 0, 3, 0}};
  for (const Case &c : cases) {
    SCOPED_TRACE("stride " + std::to_string(c.stride));
    fake_runtime &state = lib.reset({8, 4, 8});
    ASSERT_EQ(oneFallback(kStream, c.x, 640, c.stride), TRITON_AOT_SUCCESS);
    ASSERT_EQ(state.launches, 1);
    EXPECT_STREQ(lib.launched().name, "edge_one_fallback");
    EXPECT_EQ(state.arg_count, c.argCount);
    EXPECT_EQ(state.variant, c.variant);
    EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{10, 1, 1}));
    EXPECT_EQ(recorded(state, 0, 8), bytesOf(c.x));
    EXPECT_EQ(recorded(state, 1, 4), bytesOf(std::int32_t{640}));
    if (c.argCount == 3) {
      EXPECT_EQ(recorded(state, 2, 8), bytesOf(c.stride));
    }
  }
}

TEST_P(Dispatch, OneVariantsWithoutFallbackRefuseAndNameThePromise) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, int, const void *, std::int32_t);
  auto oneOnly = lib.symbol<Fn>("edge_one_only_config");
  fake_runtime &state = lib.reset({8, 4});
  ASSERT_EQ(oneOnly(kStream, 0, kAligned, 1), TRITON_AOT_SUCCESS);
  EXPECT_EQ(state.arg_count, 1u); // n == 1 is compiled in
  EXPECT_EQ(state.variant, 0u);
  lib.reset({8, 4});
  ASSERT_EQ(oneOnly(kStream, 0, kMisaligned, 1), TRITON_AOT_SUCCESS);
  EXPECT_EQ(lib.state().variant, 1u);
  const std::uint32_t onesKernel = lib.state().kernel;

  for (std::int32_t n : {0, 2, -1}) {
    fake_runtime &refused = lib.reset();
    EXPECT_EQ(oneOnly(kStream, 0, kAligned, n), TRITON_AOT_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused.launches, 0);
    EXPECT_STREQ(refused.message,
                 "edge_one_only: no variant accepts these arguments: n is not 1 and config 0 has "
                 "no generic variant; declare a signature without :1 hints");
  }
  // Config "any" has the generic variant: it takes n, so another kernel entry.
  fake_runtime &any = lib.reset({8, 4});
  ASSERT_EQ(oneOnly(kStream, 1, kMisaligned, 2), TRITON_AOT_SUCCESS);
  EXPECT_EQ(any.arg_count, 2u);
  EXPECT_NE(any.kernel, onesKernel);
  EXPECT_EQ(any.variant, 0u);
  EXPECT_EQ(grid(any), (std::vector<std::uint64_t>{2, 1, 1}));
  EXPECT_EQ(recorded(any, 1, 4), bytesOf(std::int32_t{2}));
}

TEST_P(Dispatch, NoGenericVariantNamesTheFirstBrokenPromise) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, int, const void *, const void *, std::int32_t);
  auto strict = lib.symbol<Fn>("edge_strict_config");
  // Config a: x:16 y:16 n:16, then x:16 y:16; grid cdiv(n, 256) * unit (unit is :1).
  fake_runtime &state = lib.reset();
  ASSERT_EQ(strict(kStream, 0, kAligned, kAligned2, 512), TRITON_AOT_SUCCESS);
  EXPECT_EQ(state.variant, 0u);
  EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{2, 1, 1}));
  lib.reset();
  ASSERT_EQ(strict(kStream, 0, kAligned, kAligned2, 513), TRITON_AOT_SUCCESS);
  EXPECT_EQ(lib.state().variant, 1u);
  EXPECT_EQ(grid(lib.state()), (std::vector<std::uint64_t>{3, 1, 1}));
  lib.reset();
  ASSERT_EQ(strict(kStream, 1, kAligned, kAligned2, 513), TRITON_AOT_SUCCESS);
  EXPECT_EQ(lib.state().variant, 2u);
  EXPECT_EQ(grid(lib.state()), (std::vector<std::uint64_t>{2, 1, 1}));

  struct Case {
    int config;
    const void *x, *y;
    const char *message;
  };
  const Case cases[] = {
      {0, kMisaligned, kAligned,
       "edge_strict: no variant accepts these arguments: x is not 16-byte "
       "aligned and config 0 has no generic variant; declare a signature "
       "without :16 hints"},
      {0, kAligned, kMisaligned,
       "edge_strict: no variant accepts these arguments: y is not 16-byte "
       "aligned and config 0 has no generic variant; declare a signature "
       "without :16 hints"},
      {1, kMisaligned, kMisaligned,
       "edge_strict: no variant accepts these arguments: x is not "
       "16-byte aligned and config 1 has no generic variant; declare a "
       "signature without :16 hints"},
  };
  for (const Case &c : cases) {
    fake_runtime &refused = lib.reset();
    EXPECT_EQ(strict(kStream, c.config, c.x, c.y, 512), TRITON_AOT_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(refused.launches, 0);
    EXPECT_STREQ(refused.message, c.message);
    EXPECT_STREQ(lib.symbol<const char *(*)()>("edge_last_error")(), c.message);
  }
}

TEST_P(Dispatch, ManyKernelsEachLaunchTheirOwnEntry) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, const void *, std::int32_t);
  for (int k = 0; k < 8; ++k) {
    const std::string name = "edge_k" + std::to_string(k);
    fake_runtime &state = lib.reset();
    ASSERT_EQ(lib.symbol<Fn>(name)(kStream, kMisaligned, 1 << 20), TRITON_AOT_SUCCESS);
    EXPECT_STREQ(lib.launched().name, name.c_str());
    EXPECT_EQ(state.variant, 1u);
    EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{std::uint64_t{1} << (20 - 6 - k), 1, 1}));
  }
}

TEST_P(Dispatch, KernelWithoutRuntimeParameters) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  auto noargs = lib.symbol<triton_aot_status (*)(void *, int)>("edge_noargs_config");
  for (int config : {0, 1}) {
    fake_runtime &state = lib.reset();
    ASSERT_EQ(noargs(nullptr, config), TRITON_AOT_SUCCESS);
    EXPECT_EQ(state.arg_count, 0u);
    EXPECT_EQ(state.variant, static_cast<std::uint32_t>(config));
    EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{config == 0 ? 4u : 2u, 1, 1}));
  }
}

TEST_P(Dispatch, LaunchFailureIsReturnedAsIs) {
  FakeLibrary &lib = mk();
  ASSERT_EQ(lib.error(), "");
  fake_runtime &state = lib.reset();
  state.launch_result = TRITON_AOT_ERROR_LAUNCH_FAILED;
  EXPECT_EQ(lib.symbol<AddFn>("mk_add")(kStream, kAligned, kAligned, kAligned, 16),
            TRITON_AOT_ERROR_LAUNCH_FAILED);
  EXPECT_STREQ(lib.symbol<const char *(*)()>("mk_last_error")(), "fake launch failure");
}

TEST_P(Dispatch, LibraryWideFunctionsForwardToTheRuntime) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  fake_runtime &state = lib.reset();
  EXPECT_EQ(lib.symbol<triton_aot_status (*)()>("edge_preload")(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(state.preloads, 1);
  ASSERT_NE(state.library, nullptr);
  EXPECT_STREQ(state.library->name, "edge");
  const triton_aot_library *library = state.library;
  EXPECT_EQ(lib.symbol<triton_aot_status (*)()>("edge_unload")(), TRITON_AOT_SUCCESS);
  EXPECT_EQ(state.unloads, 1);
  EXPECT_EQ(state.library, library);
  EXPECT_STREQ(lib.symbol<const char *(*)()>("edge_version")(), "0.1.0");
  EXPECT_EQ(std::string(lib.symbol<const char *(*)()>("edge_manifest")()), lib.manifest());
  EXPECT_EQ(std::string(lib.symbol<const char *(*)()>("edge_inventory")()), lib.inventory());
  std::strcpy(state.message, "from the runtime");
  EXPECT_STREQ(lib.symbol<const char *(*)()>("edge_last_error")(), "from the runtime");
  triton_aot_allocator allocator{};
  lib.symbol<void (*)(const triton_aot_allocator *)>("edge_set_allocator")(&allocator);
  EXPECT_EQ(state.allocator, &allocator);
  lib.symbol<void (*)(const triton_aot_allocator *)>("edge_set_allocator")(nullptr);
  EXPECT_EQ(state.allocator, nullptr);
  EXPECT_EQ(state.allocator_calls, 2);
}

using FormsFn = triton_aot_status (*)(void *, const void *, std::int64_t, std::int32_t, float,
                                      std::int32_t);

TEST_P(Dispatch, HeuristicsComputedAtLaunchPickTheVariantOfTheirValues) {
  FakeLibrary &lib = load("heur");
  ASSERT_EQ(lib.error(), "");
  auto forms = lib.symbol<FormsFn>("heur_forms");
  struct Case {
    const char *what;
    std::int64_t n;
    std::int32_t k;
    float s;
    std::int32_t flag;
    bool wide, odd, shaped;
  };
  const Case cases[] = {
      // n ** 2 reaches 2 ** 20; int(3.0) is odd but n * k is 0; next_power_of_2(1024) != 64
      {"wide", 1024, 0, 0.75f, 1, true, false, false},
      // 2 ** 3 is not below 0.75; int(3.0) odd and n * k != 0; next_power_of_2(64) == 64
      {"odd shaped", 64, 3, 0.75f, 0, false, true, true},
      // 2 ** -2 (0.25, a float) is below 0.5; int(2.0) even; any non-zero FLAG is True
      {"negative exponent", 50, -2, 0.5f, 7, true, false, true},
      // int(1.6) is 1 (toward zero), odd, but n * k is 0
      {"none", 2, 0, 0.4f, 0, false, false, false},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    fake_runtime &state = lib.reset({8, 8, 4, 4});
    EXPECT_EQ(forms(kStream, kAligned, c.n, c.k, c.s, c.flag), TRITON_AOT_SUCCESS);
    ASSERT_EQ(state.launches, 1);
    // True before False, FLAG outermost (heuristicFormsLibrary).
    const std::uint32_t variant = (c.flag ? 0u : 8u) + (c.wide ? 0u : 4u) + (c.odd ? 0u : 2u) +
                                  (c.shaped ? 0u : 1u);
    EXPECT_EQ(state.variant, variant);
    // FLAG picks the variant; the kernel gets its value compiled in, not the argument.
    EXPECT_EQ(state.arg_count, 4u);
    EXPECT_EQ(recorded(state, 1, 8), bytesOf(c.n));
    EXPECT_EQ(recorded(state, 3, 4), bytesOf(c.s));
  }
}

TEST_P(Dispatch, TablesDescribeTheModelAndPointIntoTheBlob) {
  FakeLibrary &lib = edge();
  ASSERT_EQ(lib.error(), "");
  lib.symbol<triton_aot_status (*)()>("edge_preload")();
  const triton_aot_library &table = *lib.state().library;
  const Library &model = lib.model();
  EXPECT_STREQ(table.prefix, "edge");

  // Every image, byte for byte, 64-byte aligned (the .incbin and the offsets agree).
  ASSERT_EQ(table.image_count, model.images.size());
  for (std::size_t i = 0; i < model.images.size(); ++i) {
    const triton_aot_image &image = table.images[i];
    const unsigned char *data = table.blob + image.offset;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % 64, 0u) << i;
    ASSERT_EQ(image.size, model.images[i].bytes.size()) << i;
    EXPECT_EQ(image.raw_size, image.size);
    EXPECT_EQ(image.compression, unsigned{TRITON_AOT_COMPRESSION_NONE});
    EXPECT_EQ(std::memcmp(data, model.images[i].bytes.data(), image.size), 0) << i;
    // The hash the runtime checks before loading it.
    EXPECT_EQ(image.hash, imageHash(model.images[i].bytes.data(), model.images[i].bytes.size()))
        << i;
    const std::string &kind = model.images[i].kind;
    EXPECT_EQ(image.kind, kind == "cubin" ? 1u : kind == "ptx" ? 2u : 3u) << i;
  }

  // Targets: sm_80, sm_90a, gfx942, gfx90a in order of first appearance.
  ASSERT_EQ(table.target_count, 4u);
  EXPECT_STREQ(table.targets[3].name, "gfx90a");
  EXPECT_STREQ(table.targets[0].name, "sm_80");
  EXPECT_EQ(table.targets[0].capability, 80u);
  EXPECT_EQ(table.targets[0].arch_specific, 0u);
  EXPECT_STREQ(table.targets[1].name, "sm_90a");
  EXPECT_EQ(table.targets[1].arch_specific, 1u);
  EXPECT_EQ(table.targets[1].backend, unsigned{TRITON_AOT_BACKEND_CUDA});
  EXPECT_STREQ(table.targets[2].name, "gfx942");
  EXPECT_STREQ(table.targets[2].processor, "gfx942");
  EXPECT_EQ(table.targets[2].backend, unsigned{TRITON_AOT_BACKEND_HIP});
  EXPECT_EQ(table.targets[2].xnack, -1);
  EXPECT_EQ(table.targets[1].processor, nullptr);

  // Kernel entries: slots are consecutive; each function matches the model's.
  std::uint32_t slot = 0;
  std::size_t functionsSeen = 0;
  for (std::uint32_t e = 0; e < table.kernel_count; ++e) {
    const triton_aot_kernel &kernel = table.kernels[e];
    EXPECT_EQ(kernel.first_slot, slot) << kernel.name;
    slot += kernel.variant_count;
    for (std::uint32_t v = 0; v < kernel.variant_count; ++v)
      for (std::uint32_t t = 0; t < kernel.target_count; ++t) {
        const triton_aot_function &f = kernel.functions[v * kernel.target_count + t];
        ASSERT_LT(f.binary, table.image_count);
        const EmbeddedImage &binary = model.images[f.binary];
        // The fake images name the kernel; the binary belongs to this kernel and target.
        EXPECT_NE(binary.sourceFile.find(std::string(kernel.name).substr(5) + "."),
                  std::string::npos)
            << kernel.name << " -> " << binary.sourceFile;
        const triton_aot_target &target = table.targets[kernel.targets[t]];
        EXPECT_EQ(f.ptx == TRITON_AOT_NO_IMAGE, target.backend == TRITON_AOT_BACKEND_HIP);
        EXPECT_EQ(f.launch.block_x, target.backend == TRITON_AOT_BACKEND_HIP ? 256u : 128u);
        EXPECT_EQ(f.launch.num_ctas, 1u);
        EXPECT_STREQ(table.strings + f.entry, (std::string(kernel.name).substr(5) + "_fn").c_str());
        ++functionsSeen;
      }
  }
  EXPECT_EQ(table.slot_count, slot);
  std::size_t modelFunctions = 0;
  for (const Kernel &kernel : model.kernels)
    for (const KernelConfig &config : kernel.configs)
      for (const HintVariant &variant : config.variants)
        modelFunctions += variant.functions.size();
  EXPECT_EQ(functionsSeen, modelFunctions);
}

/// One kernel with \p configs configs for sm_80 and gfx90a, each config an x:16 and a generic
/// variant: 6 images per config (a cubin and a PTX per CUDA function, an hsaco per HIP one).
/// Its config names are as long as real ones: 200 of them are more than ISO C's 4,095 bytes.
Library offsetLibrary(const std::string &name, int configs) {
  Library library = makeLibrary(name);
  KernelBuilder kernel("offset");
  kernel.param("x", "*fp32").param("n", "i32").constexprParam("OFFSET").grid("n");
  kernel.target("cuda:80").target("hip:gfx90a");
  for (int c = 0; c < configs; ++c)
    kernel.config("OFFSET=" + std::to_string(c) + ",BLOCK=256,num_warps=2", {{"OFFSET", c}},
                  {{"x:16"}, {}});
  kernel.addTo(library);
  return library;
}

// A table row holding a pointer is a relocation the loader applies (and a page it copies) at
// dlopen: what made a 1,000-image library open 2.3 times slower than a 10-image one.
TEST_P(Dispatch, OpeningAppliesNoRelocationPerImageOrConfig) {
  TestDirectory dir;
  fs::create_directories(dir.path() / "few");
  fs::create_directories(dir.path() / "many");
  FakeLibrary few(offsetLibrary("few", 2), GetParam(), dir.path() / "few");
  FakeLibrary many(offsetLibrary("many", 200), GetParam(), dir.path() / "many");
  ASSERT_EQ(few.error(), "");
  ASSERT_EQ(many.error(), "");
  EXPECT_EQ(many.model().images.size(), 1200u);
  EXPECT_GT(few.relocationBytes(), 0u); // the library's own few pointers, and the runtime's
  EXPECT_EQ(many.relocationBytes(), few.relocationBytes());
  // The tables are still right: the last config's name and entry, and its image's bytes.
  EXPECT_STREQ(many.symbol<const char *(*)(int)>("many_offset_config_name")(199),
               "OFFSET=199,BLOCK=256,num_warps=2"); // past ISO C's 4,095-byte literals
  many.symbol<triton_aot_status (*)()>("many_preload")();
  const triton_aot_library &table = *many.state().library;
  const triton_aot_function &last =
      table.kernels[table.kernel_count - 1].functions[table.kernels[table.kernel_count - 1]
                                                          .variant_count * 2 - 1];
  EXPECT_STREQ(table.strings + last.entry, many.model().kernels[0].configs[199]
                                               .variants[1].functions[1].entry.c_str());
  const triton_aot_image &image = table.images[last.binary];
  EXPECT_EQ(std::memcmp(table.blob + image.offset, many.model().images[last.binary].bytes.data(),
                        image.size), 0);
}

// td_tma(stream, config, s, a_base, a_shape0, a_shape1, a_stride0, a_stride1, n, b_base,
//        b_shape0..2, b_stride0..2): the descriptors go to triton_aot_launch_tensors as the
// caller gave them, their argument slots left NULL for the runtime, at the positions the
// entry's argument list has them (s:1 drops s, so every slot moves by one).
// A tuned kernel with tensor descriptors: the table picks the config, and the launch (with the
// descriptors) takes the place the target query found.
TEST_P(Dispatch, ATunedKernelWithTensorDescriptorsHandsItsPlaceToTheLaunch) {
  FakeLibrary &lib = load("tdt");
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, std::int32_t, const void *, std::int64_t, std::int64_t,
                                   std::int64_t, std::int64_t, std::int32_t, const void *,
                                   std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                   std::int64_t, std::int64_t);
  auto tma = lib.symbol<Fn>("tdt_tma");
  const void *a = reinterpret_cast<const void *>(std::uintptr_t{0x7f0000010000});
  const void *b = reinterpret_cast<const void *>(std::uintptr_t{0x7f0000020000});
  for (auto [n, variant] : {std::pair{400, 1u}, std::pair{4000, 0u}}) {   // half, big (s:1)
    SCOPED_TRACE("n " + std::to_string(n));
    fake_runtime &state = lib.reset();
    state.kernel_target = 0;   // cuda:90a
    ASSERT_EQ(tma(kStream, 1, a, 100, 40, 48, 1, n, b, 3, 20, 70, 20 * 80, 80, 1),
              TRITON_AOT_SUCCESS)
        << state.message;
    ASSERT_EQ(state.tensor_launches, 1);
    EXPECT_EQ(state.target_queries, 1);
    EXPECT_EQ(state.variant, variant);
    EXPECT_EQ(state.launch_place, FAKE_PLACE_KEY + 1u);
  }
}

TEST_P(Dispatch, TensorDescriptorsReachTheRuntimeWithTheirSlotsAndTmaFacts) {
  FakeLibrary &lib = load("td");
  ASSERT_EQ(lib.error(), "");
  using Fn = triton_aot_status (*)(void *, int, std::int32_t, const void *, std::int64_t,
                                   std::int64_t, std::int64_t, std::int64_t, std::int32_t,
                                   const void *, std::int64_t, std::int64_t, std::int64_t,
                                   std::int64_t, std::int64_t, std::int64_t);
  auto tma = lib.symbol<Fn>("td_tma_config");
  const void *a = reinterpret_cast<const void *>(std::uintptr_t{0x7f0000010000});
  const void *b = reinterpret_cast<const void *>(std::uintptr_t{0x7f0000020000});
  struct Case {
    std::int32_t s;
    int config;
    std::uint32_t argCount, variant, slots[2], nAt;
    std::uint64_t gridX;
  };
  // Rows per entry are config-major: the s:1 entry's are (big, s:1), (half, s:1).
  const Case cases[] = {{1, 0, 13, 0, {0, 6}, 5, 7}, {3, 0, 14, 0, {1, 7}, 6, 7},
                        {1, 1, 13, 1, {0, 6}, 5, 13}, {2, 1, 14, 1, {1, 7}, 6, 13}};
  for (const Case &c : cases) {
    SCOPED_TRACE("s " + std::to_string(c.s) + ", config " + std::to_string(c.config));
    std::vector<std::size_t> sizes(FAKE_MAX_ARGS, 0);
    sizes[c.nAt] = 4;
    if (c.argCount == 14)
      sizes[0] = 4;
    fake_runtime &state = lib.reset(sizes);
    ASSERT_EQ(tma(kStream, c.config, c.s, a, 100, 40, 48, 1, 400, b, 3, 20, 70, 20 * 80, 80, 1),
              TRITON_AOT_SUCCESS)
        << state.message;
    ASSERT_EQ(state.tensor_launches, 1);
    ASSERT_EQ(state.launches, 1);
    EXPECT_STREQ(lib.launched().name, "td_tma");
    EXPECT_EQ(state.arg_count, c.argCount);
    EXPECT_EQ(state.variant, c.variant);
    EXPECT_EQ(grid(state), (std::vector<std::uint64_t>{c.gridX, std::uint64_t(c.s), 1}));
    EXPECT_EQ(recorded(state, c.nAt, 4), bytesOf(std::int32_t{400}));
    if (c.argCount == 14) {
      EXPECT_EQ(recorded(state, 0, 4), bytesOf(c.s));
    }
    ASSERT_EQ(state.tensor_count, 2u);
    EXPECT_EQ(state.tensors[0].base, a);
    EXPECT_EQ(state.tensors[0].shape[0], 100);
    EXPECT_EQ(state.tensors[0].shape[1], 40);
    EXPECT_EQ(state.tensors[0].strides[0], 48);
    EXPECT_EQ(state.tensors[0].strides[1], 1);
    EXPECT_EQ(state.tensors[1].base, b);
    EXPECT_EQ((std::vector<std::int64_t>(state.tensors[1].shape, state.tensors[1].shape + 3)),
              (std::vector<std::int64_t>{3, 20, 70}));
    EXPECT_EQ(
        (std::vector<std::int64_t>(state.tensors[1].strides, state.tensors[1].strides + 3)),
        (std::vector<std::int64_t>{1600, 80, 1}));
    EXPECT_EQ(state.storage_aligned, 1);
    EXPECT_EQ(state.tensor_slots_null, 1) << "the runtime fills the descriptors' slots";
    const triton_aot_kernel &kernel = lib.launched();
    ASSERT_EQ(kernel.tensor_count, 2u);
    EXPECT_EQ(kernel.tensor_slots[0], c.slots[0]);
    EXPECT_EQ(kernel.tensor_slots[1], c.slots[1]);
    EXPECT_STREQ(state.library->strings + kernel.tensor_names[0], "a");
    EXPECT_STREQ(state.library->strings + kernel.tensor_names[1], "b");
    // The function's TMA facts: config "half" encodes a box with half the outer rows.
    const triton_aot_function &f = kernel.functions[c.variant * kernel.target_count];
    const triton_aot_tensor_map &ma = state.library->tensor_maps[f.tensor_maps];
    const triton_aot_tensor_map &mb = state.library->tensor_maps[f.tensor_maps + 1];
    EXPECT_EQ(ma.rank, 2u);
    EXPECT_EQ(ma.data_type, 6u);
    EXPECT_EQ(ma.elem_size, 2u);
    EXPECT_EQ(ma.swizzle, 2u);
    EXPECT_EQ(ma.flags, 0u);
    EXPECT_EQ(ma.box[0], c.config == 0 ? 64u : 32u);
    EXPECT_EQ(ma.box[1], 32u);
    EXPECT_EQ(mb.rank, 3u);
    EXPECT_EQ(mb.data_type, 9u);
    EXPECT_EQ(mb.swizzle, 3u);
    EXPECT_EQ(mb.flags, TRITON_AOT_TENSOR_FP4_PADDED | TRITON_AOT_TENSOR_SHAPE_ARGS_PADDED);
    EXPECT_EQ(mb.box[0], c.config == 0 ? 2u : 1u);
    EXPECT_EQ(mb.box[1], 16u);
    EXPECT_EQ(mb.box[2], 64u);
  }
}

TEST_P(Dispatch, AKernelWithoutTensorDescriptorsHasNoTensorTables) {
  FakeLibrary &lib = mk();
  ASSERT_EQ(lib.error(), "");
  auto add = lib.symbol<AddFn>("mk_add");
  fake_runtime &state = lib.reset();
  ASSERT_EQ(add(kStream, kAligned, kAligned2, kAligned, 4096), TRITON_AOT_SUCCESS);
  EXPECT_EQ(state.tensor_launches, 0) << "triton_aot_launch, not _tensors";
  EXPECT_EQ(lib.launched().tensor_count, 0u);
  EXPECT_EQ(lib.launched().tensor_slots, nullptr);
  EXPECT_EQ(state.library->tensor_maps, nullptr);
}

std::string compilerName(const ::testing::TestParamInfo<Compiler> &param) {
  return param.param.name;
}

INSTANTIATE_TEST_SUITE_P(Compilers, Dispatch,
                         ::testing::Values(Compiler{"gcc", TTA_GCC}, Compiler{"clang", TTA_CLANG}),
                         compilerName);

} // namespace
} // namespace tta::link::testing
