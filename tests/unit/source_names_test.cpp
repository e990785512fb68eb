#include "compiler/source_names.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

PrefixMapping mapping(const char *spec) { return *parsePrefixMapping(spec); }

TEST(SourceNames, DefaultIsRelativeToTheRootAndTheSiteDirectories) {
  SourceNames names("/src/proj/", {}, {"/venv/lib/python3.11/site-packages"});
  EXPECT_EQ(names.name("/src/proj/kernels/add.py"), "kernels/add.py");
  EXPECT_EQ(names.name("/src/proj/kernels/../kernels/add.py"), "kernels/add.py");
  EXPECT_EQ(names.name("/src/shared/x.py"), "../shared/x.py");
  EXPECT_EQ(names.name("/venv/lib/python3.11/site-packages/triton/language/standard.py"),
            "triton/language/standard.py");
  // Whole components only: /src/projx is not under /src/proj.
  EXPECT_EQ(names.name("/src/projx/a.py"), "../projx/a.py");
  // Python code made by exec() is named by whoever made it, wherever the root is.
  EXPECT_EQ(names.name("<string>"), "<string>");
}

TEST(SourceNames, TheLongestPrefixWins) {
  // A virtual environment inside the project: its files are named from the site directory.
  SourceNames names("/src", {}, {"/src/.venv/lib/python3.11/site-packages"});
  EXPECT_EQ(names.name("/src/.venv/lib/python3.11/site-packages/liger_kernel/ops/swiglu.py"),
            "liger_kernel/ops/swiglu.py");
  SourceNames user("/src", {mapping("/src/vendor=third_party"), mapping("/src=mylib")});
  EXPECT_EQ(user.name("/src/vendor/k.py"), "third_party/k.py");
  EXPECT_EQ(user.name("/src/k.py"), "mylib/k.py");
}

TEST(SourceNames, AUserMapOfTheRootReplacesItsDefault) {
  SourceNames names("/src", {mapping("/src/=/opt/mylib")}, {"/venv/site-packages"});
  EXPECT_EQ(names.name("/src/kernels/add.py"), "/opt/mylib/kernels/add.py");
  EXPECT_EQ(names.name("/venv/site-packages/triton/language/core.py"), "triton/language/core.py");
  // Outside every prefix: left as it is, as GCC leaves it.
  EXPECT_EQ(names.name("/elsewhere/x.py"), "/elsewhere/x.py");
  EXPECT_TRUE(names.request()["root"].is_null());
  EXPECT_EQ(names.request()["map"], nlohmann::json::parse(R"([["/src", "/opt/mylib"],
                                                              ["/venv/site-packages", ""]])"));
}

TEST(SourceNames, TheKeyLeavesOutSiteDirectories) {
  EXPECT_EQ(SourceNames("/src", {}, {"/venv/a"}).key(), SourceNames("/src", {}, {"/venv/b"}).key());
  EXPECT_NE(SourceNames("/src", {}).key(), SourceNames("/src", {mapping("/src=x")}).key());
}

TEST(SourceNames, PrefixMapSyntax) {
  EXPECT_EQ(mapping("/a/b=").to, "");
  EXPECT_EQ(mapping("/a/b=x=y").to, "x=y");
  EXPECT_EQ(mapping("/a/b/=x").from, "/a/b");
  auto missing = parsePrefixMapping("/a/b");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "--file-prefix-map '/a/b' is not OLD=NEW (e.g. --file-prefix-map /src/mylib=mylib)");
  EXPECT_FALSE(parsePrefixMapping("=x"));
}

} // namespace
} // namespace tta
