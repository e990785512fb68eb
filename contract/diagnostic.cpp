#include "contract/diagnostic.h"

namespace tta {

Diagnostic makeError(ExitCode code, std::string message) {
  Diagnostic diag;
  diag.code = code;
  diag.message = std::move(message);
  return diag;
}

std::string formatDiagnostic(const Diagnostic &diag, bool verbose) {
  std::string out;
  if (!diag.file.empty()) {
    out += diag.file;
    if (diag.line > 0) {
      out += ':' + std::to_string(diag.line);
      if (diag.column > 0)
        out += ':' + std::to_string(diag.column);
    }
    out += ": ";
  }
  out += "error: " + diag.message + '\n';
  if (!diag.sourceLine.empty()) {
    out += "  " + diag.sourceLine + '\n';
    if (diag.column > 0) {
      // Keep tabs so the caret lines up under the column in a terminal.
      std::string pad;
      for (int i = 0; i + 1 < diag.column && i < static_cast<int>(diag.sourceLine.size()); ++i)
        pad += diag.sourceLine[i] == '\t' ? '\t' : ' ';
      out += "  " + pad + "^\n";
    }
  }
  for (const std::string &note : diag.notes)
    out += "note: " + note + '\n';
  if (verbose && !diag.detail.empty()) {
    out += diag.detail;
    if (out.back() != '\n')
      out += '\n';
  }
  return out;
}

} // namespace tta
