#include "contract/read_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tta {

std::optional<std::string> readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Expected<std::string> readToolFile(const std::filesystem::path &path, std::uint64_t maxBytes,
                                   const std::string &blame) {
  auto error = [&](const std::string &what) {
    Diagnostic diag = makeError(ExitCode::UsageError, "cannot read '" + path.string() + "': " + what);
    diag.file = blame.empty() ? path.string() : blame;
    return diag;
  };
  // Opened without blocking (a FIFO would wait for a writer), then checked on the descriptor,
  // so what is checked is what is read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return error(std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0)
    return error(std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return error("not a regular file");
  if (static_cast<std::uint64_t>(info.st_size) > maxBytes)
    return error(std::to_string(info.st_size) + " bytes, more than such a file has (at most " +
                 std::to_string(maxBytes) + ")");
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return error(std::strerror(errno));
    if (n == 0)
      break;
    bytes.append(buffer, static_cast<std::size_t>(n));
    if (bytes.size() > maxBytes)   // grew while being read
      return error("more than " + std::to_string(maxBytes) + " bytes");
  }
  return bytes;
}

} // namespace tta
