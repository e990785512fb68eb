"""Runs the shell examples of the READMEs and docs/ as written, and fails when one fails.

    python3 tests/docs/run_doc_examples.py --build-dir build/default [FILE.md ...]

A fenced block runs when the line before its opening fence is a marker:

    <!-- docs-test -->            run it (bash, -e -u -o pipefail)
    <!-- docs-test: gpu -->       run it where nvidia-smi lists a GPU; otherwise reported skipped
    <!-- docs-test: file=P -->    write it (any language: a CMakeLists.txt, a kernel, a main.c)
                                  to the path P, for the blocks after it
    <!-- docs-test: by-hand: WHY --> not run here, and WHY says why (a benchmark recipe for the
                                  GPU machine that takes minutes, a step of a longer session);
                                  listed in the output

Every shell or CMake block (```sh, bash, shell, console, cmake) carries one of these markers:
an unmarked one fails the run, so that no example is left out of the test by forgetting.

The marked blocks of one file run in order in one scratch directory, so that a later block uses
what an earlier one wrote (a compile, then its link). The scratch directory holds links to the
repository's top-level entries and `build/default` -> the build tree given, so that commands run
exactly as a reader at the top of a clone would type them, and nothing is written into the
clone; the tools are on PATH (`triton-aot-cc ...`), as after an install, and so is --python's
directory (an example's `python` is the reader's active environment). Exit status: 0 all passed (or skipped), 1 a block failed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MARKER = re.compile(r"^\s*<!--\s*docs-test(?::\s*(.*?))?\s*-->\s*$")
BY_HAND = re.compile(r"^by-hand\s*:\s*(\S.*)$")
COMMAND_LANGUAGES = ("sh", "bash", "shell", "console", "cmake")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([A-Za-z0-9_+-]*)")


def marked_blocks(path):
    """[(line of the fence, language, options, text)] of the file's marked blocks, and the lines
    of its unmarked shell and CMake blocks."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    blocks, unmarked, index = [], [], 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if fence:   # a block without a marker line before it
            end = index + 1
            while end < len(lines) and not lines[end].strip().startswith(fence.group(2)):
                end += 1
            if (fence.group(3) or "") in COMMAND_LANGUAGES:
                unmarked.append(index + 1)
            index = end + 1
            continue
        marker = MARKER.match(lines[index])
        fence = FENCE.match(lines[index + 1]) if marker and index + 1 < len(lines) else None
        if not fence:
            index += 1
            continue
        text = (marker.group(1) or "").strip()
        by_hand = BY_HAND.match(text)
        if by_hand:
            options = {"by-hand", "why=" + by_hand.group(1)}
        elif text.startswith("by-hand"):
            raise SystemExit(f"{path}:{index + 1}: a by-hand marker says why: <!-- docs-test: by-hand: WHY -->")
        else:
            options = {o.strip() for o in text.replace(",", " ").split() if o.strip()}
        start, body = index + 2, []
        end = start
        while end < len(lines) and not lines[end].strip().startswith(fence.group(2)):
            body.append(lines[end][len(fence.group(1)):] if lines[end].startswith(fence.group(1)) else lines[end])
            end += 1
        if end == len(lines):
            raise SystemExit(f"{path}:{index + 2}: a marked block has no closing fence")
        blocks.append((index + 2, fence.group(3) or "sh", options, "\n".join(body) + "\n"))
        index = end + 1
    return blocks, unmarked


def scratch_for(build_dir):
    """A directory that looks like the top of a clone whose build tree is build/default."""
    scratch = tempfile.mkdtemp(prefix="tta-docs-")
    for entry in os.listdir(ROOT):
        if entry in (".git", "build"):
            continue
        os.symlink(os.path.join(ROOT, entry), os.path.join(scratch, entry))
    os.makedirs(os.path.join(scratch, "build"))
    os.symlink(os.path.abspath(build_dir), os.path.join(scratch, "build", "default"))
    return scratch


def has_gpu():
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return listed.returncode == 0 and "GPU" in listed.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True, help="the configured and built build tree")
    parser.add_argument("--python", help="TRITON_AOT_PYTHON for the examples' compiles")
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md, examples/README.md and docs/*.md)")
    args = parser.parse_args()
    files = args.files or ["README.md", "examples/README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    env = dict(os.environ)
    if args.python:
        env["TRITON_AOT_PYTHON"] = args.python
    gpu = None
    failed = ran = skipped = by_hand = 0
    for name in files:
        blocks, unmarked = marked_blocks(os.path.join(ROOT, name))
        for line in unmarked:
            print(f"{name}:{line}: a shell or CMake block without a docs-test marker: mark it "
                  "<!-- docs-test -->, <!-- docs-test: gpu -->, <!-- docs-test: file=P --> or "
                  "<!-- docs-test: by-hand: WHY -->")
            failed += 1
        if not blocks:
            continue
        scratch = scratch_for(args.build_dir)
        try:
            for line, language, options, text in blocks:
                where = f"{name}:{line}"
                if "by-hand" in options:
                    why = next(o[len("why="):] for o in options if o.startswith("why="))
                    print(f"{where}: by hand ({why})")
                    by_hand += 1
                    continue
                files = [o[len("file="):] for o in options if o.startswith("file=")]
                if files:
                    target = os.path.normpath(os.path.join(scratch, files[0]))
                    if not target.startswith(scratch + os.sep) or os.path.islink(os.path.dirname(target)):
                        print(f"{where}: file={files[0]} must be a new path under the scratch directory")
                        failed += 1
                        continue
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    with open(target, "w", encoding="utf-8") as f:
                        f.write(text)
                    continue
                if language not in ("sh", "bash", "shell", "console"):
                    print(f"{where}: a marked block must be shell, not {language!r}")
                    failed += 1
                    continue
                if "gpu" in options:
                    gpu = has_gpu() if gpu is None else gpu
                    if not gpu:
                        print(f"{where}: skipped (needs a GPU)")
                        skipped += 1
                        continue
                print(f"{where}: running\n{text}", flush=True)
                # The tools on PATH, and the interpreter given first (`python` in an example is
                # the reader's environment's, as when it is active).
                front = [os.path.join(scratch, "build", "default", "bin")]
                if args.python:
                    front.append(os.path.dirname(os.path.abspath(args.python)))
                block_env = dict(env, PATH=os.pathsep.join(front + [env.get("PATH", "")]))
                done = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=scratch,
                                      env=block_env, capture_output=True, text=True)
                ran += 1
                if done.returncode != 0:
                    failed += 1
                    print(f"{where}: FAILED (exit status {done.returncode})\n"
                          f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{ran} example(s) run, {failed} failed, {skipped} skipped, {by_hand} by hand")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
