// dlopen_bench: how long a generated shared library takes to open, by the number of kernel
// images it embeds. Each figure comes from a fresh process (the program re-executes itself):
// dlopen(RTLD_NOW | RTLD_LOCAL) plus the lookup of one entry point, no call, no GPU work. A
// library that loads nothing before it is used opens as fast with 1,000 images as with 10.
// See docs/benchmarks.md ("dlopen").
//
//   dlopen_bench [--runs N] [--csv FILE] [--lib PATH SYMBOL]...
//
// Without --lib: the two libraries CMake builds with TRITON_AOT_BENCH_LARGE_LIBRARY=ON, beside
// this program (libtta_dlopen_10.so and libtta_dlopen_1000.so). Runs rotate which library goes
// first; the ratio is last library / first. Exit status: 0 measured, 1 error.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_support.h"

namespace {

using namespace tta::bench;

using Clock = std::chrono::steady_clock;

struct Library {
  std::string path;
  std::string symbol;
  std::vector<double> us;  // one figure per run
};

// The child: one open and one lookup, timed; prints "us <value>".
int openOnce(const char *path, const char *symbol) {
  auto start = Clock::now();
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  void *address = handle ? dlsym(handle, symbol) : nullptr;
  auto stop = Clock::now();
  if (!handle) fail(std::string("dlopen: ") + dlerror());
  if (!address) fail(std::string(path) + ": no symbol " + symbol);
  std::printf("us %.3f\n", std::chrono::duration<double, std::micro>(stop - start).count());
  return 0;
}

double timeInFreshProcess(const std::string &self, const Library &library) {
  std::string command = shellQuote(self) + " --child " + shellQuote(library.path) + " " +
                        shellQuote(library.symbol);
  return childMicroseconds(command, "the child opening " + library.path);
}

std::string fileName(const std::string &path) { return path.substr(path.rfind('/') + 1); }

[[noreturn]] void usage(const char *message) {
  std::fprintf(stderr, "dlopen_bench: %s\nusage: dlopen_bench [--runs N] [--csv FILE] "
                       "[--lib PATH SYMBOL]...\n", message);
  std::exit(1);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0) return openOnce(argv[2], argv[3]);

  int runs = 30;
  std::string csv_path;
  std::vector<Library> libraries;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--lib" && i + 2 < argc) {
      libraries.push_back({argv[i + 1], argv[i + 2], {}});
      i += 2;
    } else if (flag == "--runs" && i + 1 < argc) {
      char *end = nullptr;
      runs = static_cast<int>(std::strtol(argv[++i], &end, 10));
      if (*end || runs <= 0 || runs > 100000) usage("bad number for --runs");
    } else if (flag == "--csv" && i + 1 < argc) {
      csv_path = argv[++i];
    } else {
      usage(("bad option " + flag).c_str());
    }
  }
  const std::string self = selfPath();
  if (libraries.empty()) {
    std::string dir = self.substr(0, self.rfind('/') + 1);
    for (const char *count : {"10", "1000"})
      libraries.push_back({dir + "libtta_dlopen_" + count + ".so",
                           std::string("dlopen_") + count + "_offset", {}});
  }
  for (const Library &library : libraries)
    if (access(library.path.c_str(), R_OK) != 0)
      fail(library.path + ": " + std::strerror(errno) +
           " (build with -DTRITON_AOT_BENCH_LARGE_LIBRARY=ON, or name libraries with --lib)");

  const size_t count = libraries.size();
  for (int r = 0; r < runs; ++r)
    for (size_t k = 0; k < count; ++k) {
      Library &library = libraries[(static_cast<size_t>(r) + k) % count];
      library.us.push_back(timeInFreshProcess(self, library));
    }

  std::printf("method: dlopen(RTLD_NOW) + dlsym of one entry point in a fresh process, "
              "median of %d runs\n", runs);
  for (const Library &library : libraries)
    std::printf("  %-40s %9.1f us  (min %.1f)\n", fileName(library.path).c_str(),
                median(library.us), *std::min_element(library.us.begin(), library.us.end()));
  if (count > 1)
    std::printf("ratio last / first: %.3f\n",
                median(libraries.back().us) / median(libraries[0].us));

  if (!csv_path.empty()) {
    FILE *csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) fail("cannot write " + csv_path + ": " + std::strerror(errno));
    std::fprintf(csv, "library,symbol,bytes,run,us\n");
    for (const Library &library : libraries) {
      FILE *file = std::fopen(library.path.c_str(), "rb");
      long bytes = -1;
      if (file && std::fseek(file, 0, SEEK_END) == 0) bytes = std::ftell(file);
      if (file) std::fclose(file);
      std::string name = fileName(library.path);
      for (size_t r = 0; r < library.us.size(); ++r)
        std::fprintf(csv, "%s,%s,%ld,%zu,%.3f\n", name.c_str(), library.symbol.c_str(), bytes, r,
                     library.us[r]);
    }
    if (std::fclose(csv) != 0) fail("cannot write " + csv_path);
    std::printf("raw figures: %s\n", csv_path.c_str());
  }
  return 0;
}
