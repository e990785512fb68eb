#include "tuner/kernel_library.h"

#include <dlfcn.h>

#include <filesystem>

namespace tta::tune {

ExprNames integerConstexprs(const ManifestConfig &config) {
  ExprNames names;
  for (const auto &[name, value] : config.constexprs) {
    if (value.is_number_integer())
      names[name] = value.get<std::int64_t>();
    else if (value.is_boolean())
      names[name] = value.get<bool>() ? 1 : 0;
  }
  return names;
}

std::string tritonVersionsOf(const LibraryManifest &manifest) {
  std::string out;
  for (const std::string &version : manifest.tritonVersions)
    out += (out.empty() ? "" : ", ") + version;
  return out;
}

std::string prefixFromLibraryPath(const std::string &path) {
  std::string stem = std::filesystem::path(path).filename().string();
  stem = stem.substr(0, stem.find('.'));   // libmm.so.1 -> libmm
  if (stem.rfind("lib", 0) == 0 && stem.size() > 3)
    stem = stem.substr(3);
  return stem;
}

Expected<std::unique_ptr<KernelLibrary>> KernelLibrary::open(const std::string &path,
                                                             std::string prefix) {
  if (prefix.empty())
    prefix = prefixFromLibraryPath(path);
  // A path without a slash would make dlopen search the library path: name the file itself.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  std::unique_ptr<KernelLibrary> library(new KernelLibrary());
  library->path_ = path;
  library->prefix_ = prefix;
  library->handle_ = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle_) {
    const char *why = ::dlerror();
    Diagnostic diag = makeError(ExitCode::UsageError,
                                "cannot open the library: " + std::string(why ? why : "dlopen failed"));
    diag.file = path;
    diag.notes.push_back("--library takes a shared library built by triton-aot "
                         "(triton_add_library(<name> SHARED ...))");
    return diag;
  }
  using ManifestFn = const char *(*)();
  auto manifestFn = reinterpret_cast<ManifestFn>(::dlsym(library->handle_,
                                                         (prefix + "_manifest").c_str()));
  library->lastError_ = reinterpret_cast<ManifestFn>(::dlsym(library->handle_,
                                                             (prefix + "_last_error").c_str()));
  library->unload_ = reinterpret_cast<int (*)()>(::dlsym(library->handle_,
                                                         (prefix + "_unload").c_str()));
  if (!manifestFn || !library->lastError_) {
    Diagnostic diag = makeError(ExitCode::UsageError,
                                "the library exports no " + prefix + "_manifest() and " + prefix +
                                    "_last_error(): not a triton-aot library of prefix '" +
                                    prefix + "'");
    diag.file = path;
    diag.notes.push_back("give the library's C prefix with --prefix (its default is the file "
                         "name without lib and the extension)");
    return diag;
  }
  const char *text = manifestFn();
  library->manifestText_ = text ? text : "";
  auto manifest = parseLibraryManifest(std::string_view(library->manifestText_), path);
  if (!manifest)
    return manifest.takeError();
  library->manifest_ = std::move(*manifest);
  return library;
}

KernelLibrary::~KernelLibrary() {
  // Never dlclose: the runtime inside may have loaded images and started nothing we can stop;
  // the process ends soon after tuning.
}

Expected<ConfigArgvLauncher> KernelLibrary::launcher(const std::string &kernel) const {
  std::string symbol = prefix_ + "_" + kernel + "_config_argv";
  void *entry = ::dlsym(handle_, symbol.c_str());
  if (!entry) {
    Diagnostic diag = makeError(ExitCode::UsageError,
                                "the library exports no " + symbol +
                                    "(): it was linked by a triton-aot-ld older than the tuner");
    diag.file = path_;
    diag.notes.push_back("relink the library with this triton-aot's triton-aot-ld");
    return diag;
  }
  return reinterpret_cast<ConfigArgvLauncher>(entry);
}

void KernelLibrary::unload() const {
  if (unload_)
    unload_();
}

std::string KernelLibrary::lastError() const {
  const char *text = lastError_ ? lastError_() : nullptr;
  return text ? text : "";
}

} // namespace tta::tune
