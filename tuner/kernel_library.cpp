#include "tuner/kernel_library.h"

#include "contract/json_access.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <filesystem>

namespace tta::tune {

namespace {

using nlohmann::json;

Diagnostic manifestError(const std::string &where, std::string message) {
  Diagnostic diag = makeError(ExitCode::UsageError, std::move(message));
  diag.file = where;
  return diag;
}

ManifestKernel readKernel(const json &entry) {
  ManifestKernel kernel;
  kernel.name = stringOr(entry, "name");
  for (const json &param : arrayOf(entry, "params")) {
    if (!member(param, "c_name"))   // the manifest lists C parameters only; be safe
      continue;
    kernel.params.push_back({stringOr(param, "name"), stringOr(param, "c_name"),
                             stringOr(param, "kind"), stringOr(param, "type"),
                             stringOr(param, "c_type"),
                             static_cast<int>(integerOf(param, "size").value_or(0))});
  }
  const json *grid = member(entry, "grid");
  kernel.callerGrid = !grid || grid->is_null();
  for (const json &config : arrayOf(entry, "configs")) {
    ManifestConfig out;
    out.index = static_cast<int>(integerOf(config, "index").value_or(0));
    out.name = stringOr(config, "name");
    for (const auto &[name, value] : objectOf(config, "constexprs").items()) {
      if (value.is_number_integer())
        out.constexprs[name] = value.get<std::int64_t>();
      else if (value.is_boolean())
        out.constexprs[name] = value.get<bool>() ? 1 : 0;
    }
    kernel.configs.push_back(std::move(out));
  }
  for (const json &target : arrayOf(entry, "targets"))
    if (target.is_string())
      kernel.targets.push_back(target.get<std::string>());
  return kernel;
}

} // namespace

Expected<LibraryManifest> parseLibraryManifest(std::string_view text, const std::string &where) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object())
    return manifestError(where, "the library's manifest is not a JSON object");
  if (stringOr(parsed, "schema") != "triton-aot-library")
    return manifestError(where, "the manifest's schema is not \"triton-aot-library\"");
  if (integerOf(parsed, "schema_version").value_or(0) != 1)
    return manifestError(where, "the manifest's schema_version is not 1: this triton-aot-tune "
                                "reads version 1 (rebuild the library with the same triton-aot)");
  LibraryManifest manifest;
  manifest.name = stringOr(parsed, "name");
  manifest.prefix = stringOr(parsed, "prefix");
  for (const json &version : arrayOf(parsed, "triton_versions"))
    if (version.is_string())
      manifest.tritonVersion += (manifest.tritonVersion.empty() ? "" : ", ") +
                                version.get<std::string>();
  for (const json &kernel : arrayOf(parsed, "kernels"))
    manifest.kernels.push_back(readKernel(kernel));
  manifest.text = std::string(text);
  return manifest;
}

const ManifestKernel *findKernel(const LibraryManifest &manifest, std::string_view name) {
  for (const ManifestKernel &kernel : manifest.kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
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
  auto manifest = parseLibraryManifest(manifestFn(), path);
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
