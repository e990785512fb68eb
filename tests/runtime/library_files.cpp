#include "library_files.h"

#include "fake_driver.h"
#include "fake_driver_handle.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tta::test {

LibraryFiles::LibraryFiles(const std::string &indexPath) {
  std::filesystem::path directory = std::filesystem::path(indexPath).parent_path();
  std::ifstream in(indexPath);
  nlohmann::json index = nlohmann::json::parse(in, nullptr, false);
  if (index.is_discarded() || !index.contains("metadata")) {
    ADD_FAILURE() << "cannot read " << indexPath;
    return;
  }
  for (const auto &entry : index["metadata"]) {
    std::ifstream metadataIn(directory / entry.get<std::string>());
    CompiledVariant variant;
    variant.metadata = nlohmann::json::parse(metadataIn);
    variant.kernel = variant.metadata["kernel"]["name"];
    variant.target = variant.metadata["target"]["spelling"];
    variant.config = variant.metadata["variant"]["config"];
    variant.signature = variant.metadata["variant"]["signature"];
    variant.hinted = variant.signature.find(':') != std::string::npos;
    for (const auto &image : variant.metadata["images"]) {
      std::string file = image["file"];
      (image["kind"] == "ptx" ? variant.ptx : variant.binary) = file;
      auto bytes = readFile((directory / file).string());
      std::uint64_t hash = tta_fake_hash(bytes.data(), bytes.size());
      files_[hash] = file;
      hashes_[file] = hash;
    }
    variants_.push_back(std::move(variant));
  }
}

const CompiledVariant &LibraryFiles::variant(const std::string &kernel, const std::string &target,
                                             const std::string &config, bool hinted) const {
  static const CompiledVariant none;
  const CompiledVariant *found = nullptr;
  for (const auto &candidate : variants_) {
    if (candidate.kernel != kernel || candidate.target != target || candidate.config != config ||
        candidate.hinted != hinted)
      continue;
    if (found != nullptr) {
      ADD_FAILURE() << "two variants of " << kernel << " " << target << " " << config;
      return none;
    }
    found = &candidate;
  }
  if (found == nullptr) {
    ADD_FAILURE() << "no variant of " << kernel << " for " << target << " config '" << config
                  << "' " << (hinted ? "hinted" : "generic");
    return none;
  }
  return *found;
}

std::string LibraryFiles::fileOf(std::uint64_t hash) const {
  auto it = files_.find(hash);
  return it == files_.end() ? "unknown image" : it->second;
}

std::uint64_t LibraryFiles::hashOf(const std::string &file) const {
  auto it = hashes_.find(file);
  return it == hashes_.end() ? 0 : it->second;
}

const LibraryFiles &kernelsFiles() {
  static const LibraryFiles files(TTA_RUNTIME_KERNELS_CC_INDEX);
  return files;
}

const LibraryFiles &hopperFiles() {
  static const LibraryFiles files(TTA_RUNTIME_HOPPER_CC_INDEX);
  return files;
}

const LibraryFiles &sharedFiles() {
  static const LibraryFiles files(TTA_RUNTIME_SHARED_CC_INDEX);
  return files;
}

} // namespace tta::test
