// cmake/TritonAOTSignature.cmake checks a SIGNATURE's types at configure time with its own copy
// of the grammar's type names and aliases; these must be the compiler's, or configure would
// refuse what the compiler builds (or let through what it refuses).
#include "compiler/signature.h"
#include "contract/types.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace tta {
namespace {

/// The words of `set(<name> ...)` in the CMake file.
std::set<std::string> cmakeList(const std::string &text, const std::string &name) {
  std::smatch found;
  EXPECT_TRUE(std::regex_search(text, found, std::regex("set\\(" + name + "([^)]*)\\)")))
      << "no set(" << name << " ...) in cmake/TritonAOTSignature.cmake";
  std::istringstream words(found[1].str());
  std::set<std::string> out;
  for (std::string word; words >> word;)
    out.insert(word);
  return out;
}

TEST(CMakeSignatureTypes, AreTheCompilers) {
  std::ifstream in(std::string(TTA_TEST_DATA_DIR) + "/../../cmake/TritonAOTSignature.cmake");
  ASSERT_TRUE(in) << "cannot read cmake/TritonAOTSignature.cmake";
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  std::set<std::string> types = {"f32"};   // upstream's alias, read as a type by parseScalarType
  for (int t = 0; t <= static_cast<int>(ScalarType::FP8E5B16); ++t)
    types.insert(std::string(typeInfo(static_cast<ScalarType>(t)).name));
  EXPECT_EQ(cmakeList(text, "types"), types);

  std::set<std::string> aliases;
  for (const auto &[alias, type] : typeSpellingAliases())
    aliases.insert(alias + "=" + type);
  EXPECT_EQ(cmakeList(text, "aliases"), aliases);
}

} // namespace
} // namespace tta
