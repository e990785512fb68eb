#include "contract/diagnostic.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

TEST(Diagnostic, FileLineColumnSourceAndCaret) {
  Diagnostic diag = makeError(ExitCode::KernelError, "'offs' is not defined");
  diag.file = "kernels/add.py";
  diag.line = 12;
  diag.column = 9;
  diag.sourceLine = "    x = tl.load(offs)";
  diag.notes = {"in add_kernel"};
  EXPECT_EQ(formatDiagnostic(diag),
            "kernels/add.py:12:9: error: 'offs' is not defined\n"
            "      x = tl.load(offs)\n"
            "          ^\n"
            "note: in add_kernel\n");
}

TEST(Diagnostic, NoLocationAndDetailOnlyWhenVerbose) {
  Diagnostic diag = makeError(ExitCode::UsageError, "missing -g/--grid");
  diag.detail = "Traceback ...";
  EXPECT_EQ(formatDiagnostic(diag), "error: missing -g/--grid\n");
  EXPECT_EQ(formatDiagnostic(diag, true), "error: missing -g/--grid\nTraceback ...\n");
}

TEST(Diagnostic, FileWithoutLine) {
  Diagnostic diag = makeError(ExitCode::KernelError, "ptxas failed");
  diag.file = "k.py";
  EXPECT_EQ(formatDiagnostic(diag), "k.py: error: ptxas failed\n");
}

TEST(Diagnostic, CaretKeepsTabs) {
  Diagnostic diag = makeError(ExitCode::KernelError, "bad");
  diag.file = "k.py";
  diag.line = 1;
  diag.column = 3;
  diag.sourceLine = "\t\tx";
  EXPECT_EQ(formatDiagnostic(diag), "k.py:1:3: error: bad\n  \t\tx\n  \t\t^\n");
}

TEST(Expected, HoldsValueOrError) {
  Expected<int> value = 3;
  ASSERT_TRUE(value);
  EXPECT_EQ(*value, 3);
  Expected<int> error = makeError(ExitCode::OutputError, "no");
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error().code, ExitCode::OutputError);
  EXPECT_EQ(error.takeError().message, "no");
}

} // namespace
} // namespace tta
