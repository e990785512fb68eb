#include "compiler/depfile.h"

#include <algorithm>

namespace tta {

std::string escapeDepfilePath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  std::size_t slashes = 0; // backslashes directly before the current character
  for (char c : path) {
    switch (c) {
    case '\\':
      ++slashes;
      out += c;
      continue;
    case ' ':
    case '\t':
      // Make reads 2N backslashes before a space as the end of the name: double them.
      out.append(slashes, '\\');
      out += '\\';
      break;
    case '#':
      out += '\\'; // the backslashes before it stay as they are (GCC; Ninja strips one)
      break;
    case '$':
      out += '$';
      break;
    default:
      break;
    }
    slashes = 0;
    out += c;
  }
  return out;
}

bool depfileCanRepresent(std::string_view path) {
  if (path.empty() || path.back() == ':' || path.back() == '\\')
    return false;
  for (std::size_t i = 0; i < path.size(); ++i) {
    auto c = static_cast<unsigned char>(path[i]);
    if (c < 0x20 || c == 0x7f)
      return false;
    if (std::string_view("*;<>|`^").find(static_cast<char>(c)) != std::string_view::npos)
      return false;
    if (c == ':' && i > 0 && path[i - 1] == '\\') // Ninja reads "\:" as ':'
      return false;
  }
  return true;
}

namespace {

// The non-empty paths of \p paths in order, each once.
std::vector<std::string_view> uniquePaths(const std::vector<std::string> &paths) {
  std::vector<std::string_view> unique;
  for (const std::string &path : paths)
    if (!path.empty() && std::find(unique.begin(), unique.end(), path) == unique.end())
      unique.push_back(path);
  return unique;
}

} // namespace

std::string formatDepfile(const std::vector<std::string> &targets,
                          const std::vector<std::string> &prerequisites) {
  std::vector<std::string_view> outs = uniquePaths(targets);
  if (outs.empty())
    return {};
  std::string text;
  for (std::size_t i = 0; i < outs.size(); ++i)
    text += (i ? " " : "") + escapeDepfilePath(outs[i]);
  text += ':';
  std::vector<std::string_view> ins = uniquePaths(prerequisites);
  for (std::size_t i = 0; i < ins.size(); ++i)
    text += (i ? " \\\n  " : " ") + escapeDepfilePath(ins[i]);
  text += '\n';
  return text;
}

} // namespace tta
