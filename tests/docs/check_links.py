"""Every relative link of the repository's Markdown leads somewhere: the file or directory exists,
and an anchor (`file.md#section`, `#section`) is a heading of that file as GitHub names it.

    python3 tests/docs/check_links.py [ROOT]

Prints one line per broken link (file:line: the link and what is wrong) and exits 1 when there
is one. External links (http:, https:, mailto:) are not followed: the test machines have no
network.
"""
import os
import re
import subprocess
import sys
import unicodedata

# [text](target) and ![alt](target), not inside inline code; a target ends at the first space
# (a title may follow) or the closing parenthesis.
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def slug(heading):
    """GitHub's anchor of a heading: lower case, markup dropped, punctuation other than '-' and
    '_' removed, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("*", "").strip().lower()
    kept = []
    for ch in text:
        if ch in "-_ " or ch.isalnum() or unicodedata.category(ch).startswith("M"):
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def without_inline_code(line):
    """The line without its code spans (a link in code is an example, not a link)."""
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def outside_fences(text):
    """The file's lines with fenced code blocks blanked."""
    lines, fence = [], None
    for line in text.splitlines():
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and marker:
            fence = marker.group(1)[0] * len(marker.group(1))
            lines.append("")
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            lines.append("")
            continue
        lines.append(line)
    return lines


_anchors = {}


def anchors_of(path):
    """Every anchor a Markdown file defines: its headings' slugs (GitHub numbers repeats: -1,
    -2...) and explicit <a name>/<a id>."""
    if path not in _anchors:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            for line in outside_fences(f.read()):
                heading = HEADING.match(line)
                if heading:
                    base = slug(heading.group(2))
                    count = seen.get(base, 0)
                    seen[base] = count + 1
                    found.add(base if count == 0 else f"{base}-{count}")
                found.update(HTML_ANCHOR.findall(line))
        _anchors[path] = found
    return _anchors[path]


def markdown_files(root):
    """The tracked Markdown files (untracked notes and build trees are not the repository's)."""
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True,
                                text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        listed = [os.path.relpath(os.path.join(d, f), root) for d, _, files in os.walk(root)
                  for f in files if f.endswith(".md") and "/build" not in d and "/." not in d]
    return sorted(listed)


def check_link(root, source, target):
    """What is wrong with `target` written in `source` (a path relative to root), or ""."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):   # http:, https:, mailto:...
        return ""
    path, _, anchor = target.partition("#")
    path = path.split("?")[0]
    here = os.path.dirname(os.path.join(root, source))
    resolved = os.path.normpath(os.path.join(here, path)) if path else os.path.join(root, source)
    if not os.path.realpath(resolved).startswith(os.path.realpath(root)):
        return "leads outside the repository"
    if not os.path.exists(resolved):
        return "no such file or directory"
    if anchor:
        if not resolved.endswith(".md"):
            return ""   # a line anchor of a source file (#L10) is GitHub's, not checked
        if anchor not in anchors_of(resolved):
            return f"no heading gives the anchor #{anchor} in {os.path.relpath(resolved, root)}"
    return ""


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    broken = checked = 0
    for source in markdown_files(root):
        with open(os.path.join(root, source), encoding="utf-8") as f:
            lines = outside_fences(f.read())
        for number, line in enumerate(lines, 1):
            line = without_inline_code(line)
            targets = LINK.findall(line)
            reference = REFERENCE.match(line)
            if reference:
                targets.append(reference.group(1))
            for target in targets:
                checked += 1
                why = check_link(root, source, target)
                if why:
                    broken += 1
                    print(f"{source}:{number}: ({target}) {why}")
    print(f"{checked} relative and external links in {len(markdown_files(root))} files; "
          f"{broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
