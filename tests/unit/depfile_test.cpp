#include "compiler/depfile.h"

#include <gtest/gtest.h>

#include <cctype>

namespace tta {
namespace {

struct EscapeCase {
  std::string path;
  std::string escaped;
};

// Modelled on Ninja's depfile_parser_test.cc (Spaces, MultipleBackslashes, Escapes,
// SpecialChars, EscapedColons); the expected text is what GCC's mkdeps.cc writes.
TEST(DepfileTest, EscapesLikeGcc) {
  const EscapeCase cases[] = {
      {"kernels/add.py", "kernels/add.py"},
      {"a b", "a\\ b"},
      {"My Kernels/add kernel.py", "My\\ Kernels/add\\ kernel.py"},
      {"a#b", "a\\#b"},
      {"$HOME/x$$", "$$HOME/x$$$$"},
      {"a\\b", "a\\b"},                 // a backslash elsewhere is left alone
      {"a\\ b", "a\\\\\\ b"},           // N backslashes before a space: 2N+1
      {"a\\\\ b", "a\\\\\\\\\\ b"},
      {"a\\#b", "a\\\\#b"},             // before '#': one more backslash, not doubled
      {"C:/Program Files (x86)/crtdefs.h", "C:/Program\\ Files\\ (x86)/crtdefs.h"},
      {"a:b", "a:b"},                   // ':' as GCC leaves it; Ninja reads it back
      {"en@quot.header~", "en@quot.header~"},
      {"t+t-x!=1", "t+t-x!=1"},
      {"cn={0}core.ldif", "cn={0}core.ldif"},
      {"Fu\303\244ball.py", "Fu\303\244ball.py"},
      {"it's \"q\" & [x]%.py", "it's\\ \"q\"\\ &\\ [x]%.py"},
      {"", ""},
  };
  for (const EscapeCase &c : cases)
    EXPECT_EQ(escapeDepfilePath(c.path), c.escaped) << c.path;
}

// A reading of one depfile rule by Ninja's lexer rules (depfile_parser.in.cc), to show that
// what we write comes back unchanged. Returns targets, then "|", then prerequisites.
std::vector<std::string> ninjaRead(std::string_view text) {
  auto plain = [](unsigned char c) {
    return std::isalnum(c) || c >= 0x80 || std::string_view("+?\"'&,/_:.~()}{%=@[]!-").find(
                                                static_cast<char>(c)) != std::string_view::npos;
  };
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::string name;
    for (;;) {
      if (i >= text.size())
        break;
      std::size_t slashes = 0;
      while (i + slashes < text.size() && text[i + slashes] == '\\')
        ++slashes;
      char next = i + slashes < text.size() ? text[i + slashes] : '\0';
      if (slashes > 0 && next == ' ') {
        i += slashes + 1;
        if (slashes % 2 == 1) { // 2N+1 backslashes and a space: N backslashes and a space
          name.append(slashes / 2, '\\');
          name += ' ';
          continue;
        }
        name.append(slashes, '\\'); // 2N backslashes: the name ends
        break;
      }
      if (slashes > 0 && next == '#') {
        name.append(slashes - 1, '\\');
        name += '#';
        i += slashes + 1;
        continue;
      }
      if (slashes > 0 && next == ':') {
        char after = i + slashes + 1 < text.size() ? text[i + slashes + 1] : '\0';
        i += slashes + 1;
        if (after == '\0' || after == ' ' || after == '\n' || after == '\t') {
          name.append(slashes, '\\');
          name += ':';
          break;
        }
        name.append(slashes - 1, '\\');
        name += ':';
        continue;
      }
      if (slashes == 1 && next == '\n') { // line continuation
        i += 2;
        break;
      }
      if (slashes > 0 && next != '\0' && next != '\n') {
        name.append(slashes, '\\');
        name += next;
        i += slashes + 1;
        continue;
      }
      if (text.substr(i, 2) == "$$") {
        name += '$';
        i += 2;
        continue;
      }
      if (plain(static_cast<unsigned char>(text[i]))) {
        name += text[i++];
        continue;
      }
      ++i; // anything else (a space, a newline, '*', ...) ends the name
      break;
    }
    if (!name.empty() && name.back() == ':') {
      name.pop_back();
      if (!name.empty())
        out.push_back(name);
      out.push_back("|");
      continue;
    }
    if (!name.empty())
      out.push_back(name);
  }
  return out;
}

// The reader above, on inputs from Ninja's own tests (MultipleBackslashes, SpecialChars).
TEST(DepfileTest, ReaderAgreesWithNinjasTests) {
  std::vector<std::string> expected = {"a b#c.h", "|", "\\\\ ", "\\\\\\\\",
                                       "\\\\share\\info\\#1"};
  EXPECT_EQ(ninjaRead("a\\ b\\#c.h: \\\\\\\\\\  \\\\\\\\ \\\\share\\info\\\\#1"), expected);
  expected = {"C:/Program Files (x86)/Microsoft crtdefs.h", "|", "en@quot.header~", "t+t-x!=1"};
  EXPECT_EQ(ninjaRead("C:/Program\\ Files\\ (x86)/Microsoft\\ crtdefs.h: \\\n"
                      " en@quot.header~ t+t-x!=1\n"),
            expected);
}

TEST(DepfileTest, NinjaReadsEveryRepresentablePathBack) {
  const std::vector<std::string> paths = {
      "plain.py",      "a b",      "a\\ b",          "a\\\\ b",     "a#b",     "a\\#b",
      "$x$",           "a:b",      "a\\b",           "  lead",      "trail  ", "é ü.py",
      "q'uo\"te&.py",  "{x}=@%!~", "C:/Program Files (x86)/crtdefs.h",
  };
  for (const std::string &path : paths) {
    ASSERT_TRUE(depfileCanRepresent(path)) << path;
    std::string text = formatDepfile({"out/k.json"}, {"first.py", path, "last.py"});
    std::vector<std::string> expected = {"out/k.json", "|", "first.py", path, "last.py"};
    EXPECT_EQ(ninjaRead(text), expected) << text;
    text = formatDepfile({path}, {"in.py"});
    expected = {path, "|", "in.py"};
    EXPECT_EQ(ninjaRead(text), expected) << text;
  }
}

TEST(DepfileTest, KnowsWhatNinjaCannotRead) {
  for (const char *path : {"", "a:", "a\\", "a\\:b", "a\nb", "a\tb", "a*b", "a;b", "a<b",
                           "a>b", "a|b", "a`b", "a^b", "a\x7f"})
    EXPECT_FALSE(depfileCanRepresent(path)) << path;
}

TEST(DepfileTest, FormatsOneRule) {
  EXPECT_EQ(formatDepfile({"out/k.json", "out/k.cubin"}, {"k.py", "lib/util.py"}),
            "out/k.json out/k.cubin: k.py \\\n  lib/util.py\n");
  EXPECT_EQ(formatDepfile({"out/my k.json"}, {"my kernels/k.py"}),
            "out/my\\ k.json: my\\ kernels/k.py\n");
}

TEST(DepfileTest, EmptyPrerequisites) {
  EXPECT_EQ(formatDepfile({"k.json"}, {}), "k.json:\n");
  EXPECT_EQ(formatDepfile({"k.json"}, {""}), "k.json:\n");
  EXPECT_EQ(formatDepfile({}, {"k.py"}), "");
}

TEST(DepfileTest, DuplicatesRemovedKeepingOrder) {
  EXPECT_EQ(formatDepfile({"t", "t"}, {"b.py", "a.py", "b.py", "c.py", "a.py"}),
            "t: b.py \\\n  a.py \\\n  c.py\n");
}

} // namespace
} // namespace tta
