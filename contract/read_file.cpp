#include "contract/read_file.h"

#include <fstream>
#include <sstream>

namespace tta {

std::optional<std::string> readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

} // namespace tta
