// Generated sources through real compilers: warning-free C11 under gcc and clang, the header
// from C and C++, a shared library that exports exactly the API, two libraries in one program,
// and a library of 300 images.
#include "codegen_fixture.h"
#include "test_libraries.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <sstream>

namespace tta::link::testing {
namespace {

struct Compiler {
  const char *name;
  const char *cc;
  const char *cxx;
};

const Compiler kCompilers[] = {{"gcc", TTA_GCC, TTA_GXX}, {"clang", TTA_CLANG, TTA_CLANGXX}};
const std::string kCFlags = "-std=c11 -Wall -Wextra -Wpedantic -Werror -fvisibility=hidden -fPIC";

std::string includes(const fs::path &dir) {
  return " -I" + quote(runtimeIncludeDir()) + " -I" + quote(dir.string());
}

/// Compiles <name>.c and assembles <name>.images.S in \p dir; returns "" or the compiler's output.
std::string compileLibrary(const std::string &cc, const fs::path &dir, const std::string &name,
                           const std::string &tag) {
  const std::string base = (dir / name).string();
  CommandResult c = run(cc + " " + kCFlags + includes(dir) + " -c " + quote(base + ".c") + " -o " +
                        quote(base + "." + tag + ".o"));
  if (c.status != 0)
    return "compiling " + name + ".c with " + cc + ":\n" + c.output;
  CommandResult s =
      run(cc + " -c " + quote(base + ".images.S") + " -o " + quote(base + ".images." + tag + ".o"));
  if (s.status != 0)
    return "assembling " + name + ".images.S with " + cc + ":\n" + s.output;
  return c.output + s.output; // warnings are errors; anything printed is suspicious
}

/// Objects of a library compiled by the build's C compiler (the one the runtime is built with).
std::string libraryObjects(const fs::path &dir, const std::string &name) {
  return quote((dir / (name + ".build.o")).string()) + " " +
         quote((dir / (name + ".images.build.o")).string());
}

std::set<std::string> exportedSymbols(const fs::path &sharedLibrary) {
  CommandResult nm =
      run(std::string(TTA_NM) + " -D --defined-only " + quote(sharedLibrary.string()));
  EXPECT_EQ(nm.status, 0) << nm.output;
  std::set<std::string> names;
  std::istringstream lines(nm.output);
  std::string line;
  while (std::getline(lines, line)) {
    // "0000000000001139 T mk_add"
    const std::size_t space = line.rfind(' ');
    if (space != std::string::npos)
      names.insert(line.substr(space + 1));
  }
  // Entry points the linker itself defines in every shared object.
  names.erase("_init");
  names.erase("_fini");
  return names;
}

/// The test library called \p name (test_libraries.h); any other name: an empty one.
Library libraryNamed(const std::string &name) {
  return name == "mk"     ? vectorAddLibrary()
         : name == "edge" ? edgeLibrary()
         : name == "td"   ? tensorDescLibrary()
         : name == "heur" ? heuristicFormsLibrary()
         : name == "ce"   ? targetParameterLibrary()
                          : makeLibrary(name);
}

class GeneratedC : public ::testing::TestWithParam<const char *> {};

TEST_P(GeneratedC, CompilesWithoutWarningsUnderGccAndClang) {
  const TestDirectory scratch;
  const fs::path &dir = scratch.path();
  const std::string name = GetParam();
  const Library library = libraryNamed(name);
  writeLibrary(library, dir);
  for (const Compiler &compiler : kCompilers) {
    SCOPED_TRACE(compiler.name);
    EXPECT_EQ(compileLibrary(compiler.cc, dir, name, compiler.name), "");

    // The header alone (self-contained), before and after the runtime's, in C and in C++.
    writeText(dir / "alone.c", "#include \"" + name + ".h\"\nint main(void) { return 0; }\n");
    writeText(dir / "both.c", "#include \"" + name +
                                  ".h\"\n#include <triton_aot/runtime.h>\n"
                                  "#include \"" +
                                  name + ".h\"\nint main(void) { return 0; }\n");
    writeText(dir / "reverse.c", "#include <triton_aot/runtime.h>\n#include \"" + name +
                                     ".h\"\nint main(void) { return 0; }\n");
    std::string cxx = "#include \"" + name +
                      ".h\"\n#include <triton_aot/runtime.h>\n"
                      "int main() {\n  const void *api[] = {\n";
    for (const std::string &symbol : apiSymbols(library))
      cxx += "    reinterpret_cast<const void *>(&" + symbol + "),\n";
    cxx += "  };\n  triton_aot_status status = TRITON_AOT_SUCCESS;\n"
           "  triton_aot_allocator allocator{};\n"
           "  return static_cast<int>(status) + (api[0] == nullptr) + (allocator.user != "
           "nullptr);\n}\n";
    writeText(dir / "header.cpp", cxx);
    for (const char *tu : {"alone.c", "both.c", "reverse.c"}) {
      CommandResult c = run(std::string(compiler.cc) + " " + kCFlags + includes(dir) + " -c " +
                            quote((dir / tu).string()) + " -o /dev/null");
      EXPECT_EQ(c.status, 0) << tu << ":\n" << c.output;
      EXPECT_EQ(c.output, "") << tu;
    }
    CommandResult cpp =
        run(std::string(compiler.cxx) + " -std=c++17 -Wall -Wextra -Wpedantic -Werror" +
            includes(dir) + " -c " + quote((dir / "header.cpp").string()) + " -o /dev/null");
    EXPECT_EQ(cpp.status, 0) << cpp.output;
    EXPECT_EQ(cpp.output, "");
  }
}

TEST_P(GeneratedC, SharedLibraryExportsExactlyTheDocumentedApi) {
  const TestDirectory scratch;
  const fs::path &dir = scratch.path();
  const std::string name = GetParam();
  const Library library = libraryNamed(name);
  writeLibrary(library, dir);
  ASSERT_EQ(compileLibrary(TTA_RUNTIME_C_COMPILER, dir, name, "build"), "");
  const fs::path so = dir / ("lib" + name + ".so");
  CommandResult link = run(std::string(TTA_RUNTIME_C_COMPILER) + " -shared -Wl,--no-undefined -o " +
                           quote(so.string()) + " " + libraryObjects(dir, name) + " " +
                           quote(runtimeLibrary()) + " " + TTA_RUNTIME_LINK_FLAGS);
  ASSERT_EQ(link.status, 0) << link.output;
  const std::vector<std::string> api = apiSymbols(library);
  EXPECT_EQ(exportedSymbols(so), std::set<std::string>(api.begin(), api.end()));
}

// "empty" has no kernels: no empty arrays (invalid C), only the library-wide API.
INSTANTIATE_TEST_SUITE_P(Libraries, GeneratedC,
                         ::testing::Values("mk", "edge", "td", "heur", "ce", "empty"));

/// main.c using both "mk" (prefix mk) and "other" (prefix oth): the same kernel, twice.
constexpr const char *kTwoLibrariesMain = R"C(#include "mk.h"
#include "other.h"
#include <stdio.h>
#include <string.h>

int main(void) {
  triton_aot_status empty, bad;
  printf("%s %s\n", mk_version(), oth_version());
  printf("%d %d %s %s\n", mk_add_config_count(), oth_add_config_count(), mk_add_config_name(1),
         oth_add_config_name(0) ? oth_add_config_name(0) : "(null)");
  printf("%s|%s\n", mk_manifest(), oth_manifest());
  printf("%s|%s", mk_inventory(), oth_inventory());
  /* No driver is needed for these: an empty grid launches nothing; a bad config is refused. */
  empty = mk_add(NULL, NULL, NULL, NULL, 0);
  bad = oth_add_config(NULL, 7, NULL, NULL, NULL, 100);
  printf("%d %d %s\n", (int)empty, (int)bad, oth_last_error());
  return 0;
}
)C";

constexpr const char *kTwoLibrariesOutput =
    "0.1.0 0.1.0\n"
    "2 2 small large\n"
    "{\"library\": \"mk\"}|{\"library\": \"other\"}\n"
    "library mk\n|library other\n"
    "0 6 oth_add: config 7 is out of range; it has 2 configs\n";

void writeTwoLibraries(const fs::path &dir) {
  writeLibrary(vectorAddLibrary("mk"), dir, "{\"library\": \"mk\"}", "library mk\n");
  writeLibrary(vectorAddLibrary("other", "oth"), dir, "{\"library\": \"other\"}",
               "library other\n");
  writeText(dir / "main.c", kTwoLibrariesMain);
  ASSERT_EQ(compileLibrary(TTA_RUNTIME_C_COMPILER, dir, "mk", "build"), "");
  ASSERT_EQ(compileLibrary(TTA_RUNTIME_C_COMPILER, dir, "other", "build"), "");
}

TEST(GeneratedCLinking, TwoStaticLibrariesShareOneRuntimeInOneProgram) {
  const TestDirectory scratch;
  const fs::path &dir = scratch.path();
  writeTwoLibraries(dir);
  const std::string cc = TTA_RUNTIME_C_COMPILER;
  const fs::path program = dir / "two";
  CommandResult link = run(cc + " " + kCFlags + includes(dir) + " -o " + quote(program.string()) +
                           " " + quote((dir / "main.c").string()) + " " +
                           libraryObjects(dir, "mk") + " " + libraryObjects(dir, "other") + " " +
                           quote(runtimeLibrary()) + " " + TTA_RUNTIME_LINK_FLAGS);
  ASSERT_EQ(link.status, 0) << link.output;
  CommandResult ran = run(quote(program.string()));
  EXPECT_EQ(ran.status, 0) << ran.output;
  EXPECT_EQ(ran.output, kTwoLibrariesOutput);

  // The same prefix twice is what clashes (so the check above means something).
  writeLibrary(vectorAddLibrary("same", "mk"), dir);
  ASSERT_EQ(compileLibrary(cc, dir, "same", "build"), "");
  CommandResult clash = run(
      cc + " -o " + quote((dir / "clash").string()) + " " + quote((dir / "main.c").string()) +
      includes(dir) + " " + libraryObjects(dir, "mk") + " " + libraryObjects(dir, "same") + " " +
      libraryObjects(dir, "other") + " " + quote(runtimeLibrary()) + " " + TTA_RUNTIME_LINK_FLAGS);
  EXPECT_NE(clash.status, 0);
  EXPECT_NE(clash.output.find("multiple definition of `mk_add'"), std::string::npos)
      << clash.output;
}

TEST(GeneratedCLinking, TwoSharedLibrariesEachWithItsRuntimeInOneProgram) {
  const TestDirectory scratch;
  const fs::path &dir = scratch.path();
  writeTwoLibraries(dir);
  const std::string cc = TTA_RUNTIME_C_COMPILER;
  for (const char *name : {"mk", "other"}) {
    CommandResult link = run(cc + " -shared -Wl,--no-undefined -o " +
                             quote((dir / ("lib" + std::string(name) + ".so")).string()) + " " +
                             libraryObjects(dir, name) + " " + quote(runtimeLibrary()) + " " +
                             TTA_RUNTIME_LINK_FLAGS);
    ASSERT_EQ(link.status, 0) << link.output;
  }
  const fs::path program = dir / "two";
  CommandResult link =
      run(cc + " " + kCFlags + includes(dir) + " -o " + quote(program.string()) + " " +
          quote((dir / "main.c").string()) + " -L" + quote(dir.string()) +
          " -lmk -lother -Wl,-rpath," + quote(dir.string()) + " " + TTA_RUNTIME_LINK_FLAGS);
  ASSERT_EQ(link.status, 0) << link.output;
  CommandResult ran = run(quote(program.string()));
  EXPECT_EQ(ran.status, 0) << ran.output;
  EXPECT_EQ(ran.output, kTwoLibrariesOutput);
}

TEST(GeneratedCScale, ThreeHundredImagesCompileInSeconds) {
  const TestDirectory scratch;
  const fs::path &dir = scratch.path();
  Library library = makeLibrary("big");
  // 30 kernels x 2 configs x 2 variants x (sm_80, sm_90a: cubin + PTX) = 480 images... keep
  // it at 300: 25 kernels x 3 configs x 2 variants x 2 targets.
  for (int k = 0; k < 25; ++k) {
    KernelBuilder kernel("kernel" + std::to_string(k));
    kernel.param("x", "*fp16").param("y", "*fp16").param("n", "i32").constexprParam("BLOCK");
    kernel.grid("cdiv(n, BLOCK)").target("cuda:80").target("hip:gfx942");
    for (int c = 0; c < 3; ++c)
      kernel.config("c" + std::to_string(c), {{"BLOCK", 128 << c}}, {{"x:16", "y:16"}, {}});
    kernel.addTo(library);
  }
  // Realistic sizes: 64 KiB to 192 KiB per binary (random bytes), PTX left small.
  std::mt19937 random(42);
  std::size_t binaries = 0, total = 0;
  for (EmbeddedImage &image : library.images) {
    if (image.kind == "ptx")
      continue;
    image.bytes.resize(64 * 1024 + (random() % (128 * 1024)));
    for (std::uint8_t &byte : image.bytes)
      byte = static_cast<std::uint8_t>(random());
    ++binaries;
  }
  for (const EmbeddedImage &image : library.images)
    total += image.bytes.size();
  ASSERT_EQ(binaries, 300u);
  writeLibrary(library, dir);
  for (const Compiler &compiler : kCompilers) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(compileLibrary(compiler.cc, dir, "big", compiler.name), "");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ timing   ] %s: big.c + big.images.S (%zu images, %.1f MiB) compiled in %.2f s\n",
                compiler.name, library.images.size(), static_cast<double>(total) / (1 << 20),
                seconds);
  }
}

} // namespace
} // namespace tta::link::testing
