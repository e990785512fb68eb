"""triton-aot frontend worker: turns Triton kernels into IR and binaries for triton-aot-cc.

Started by the C++ driver, or kept warm across its runs by worker_pool.py; answers JSON-line
requests on stdin with one JSON line each on stdout, as docs/frontend-protocol.md specifies.
Imports torch only when a kernel's module does, and never needs a GPU: everything goes through
triton.compile(src, target=GPUTarget(...)).
Triton-version differences live in triton_adapter.py.
"""

import ast
import atexit
import contextlib
import difflib
import errno
import functools
import hashlib
import itertools
import importlib.util
import json
import linecache
import os
import platform
import re
import site
import sys
import tempfile
import threading
import time
import traceback
import types

import heuristic_flatten
import launch
import param_writes

PROTOCOL = 1
WORKER_DIR = os.path.dirname(os.path.abspath(__file__))
A = None  # triton_adapter, once Triton imported
config_hooks = None  # config_hooks, imported with it


# ---------------------------------------------------------------------------------------------
# Standard streams. fd 1 carries protocol lines only, but user code, Triton and C++ (MLIR
# diagnostics, printf) write to fds 1 and 2 directly. So the protocol gets private copies of
# fds 0/1; fds 1/2 feed a pipe whose reader forwards everything to the real stderr and keeps
# the text written during a compile (MLIR errors exist only there); fd 0 reads /dev/null.


class StderrTap:
    SYNC = b"\x00tta-sync\x00"

    def __init__(self, proto_in_fd, proto_out_fd, stderr_fd):
        sys.stdout.flush()
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        read_fd, write_fd = os.pipe()
        os.dup2(write_fd, 1)
        os.dup2(write_fd, 2)
        os.close(write_fd)
        sys.stdout = sys.stderr
        self._read_fd = read_fd
        self._cond = threading.Condition()
        self._pending = b""
        self._syncs = 0
        self._record = None
        self._real_stderr = -1
        self.attach(proto_in_fd, proto_out_fd, stderr_fd)
        threading.Thread(target=self._pump, name="stderr-tap", daemon=True).start()

    def attach(self, proto_in_fd, proto_out_fd, stderr_fd):
        """Serve the protocol on these fds (taken over) and forward the output to stderr_fd."""
        self.proto_in = os.fdopen(proto_in_fd, "r", encoding="utf-8", errors="replace")
        self.proto_out = os.fdopen(proto_out_fd, "w", encoding="utf-8", buffering=1)
        with self._cond:
            old, self._real_stderr = self._real_stderr, stderr_fd
        if old >= 0:
            os.close(old)  # the quiet fd between two leases

    @property
    def stderr_fd(self):
        return self._real_stderr

    def detach(self, quiet_fd):
        """End a pool lease: close its fds; output goes to quiet_fd until the next attach."""
        self.sync()
        for stream in (self.proto_in, self.proto_out):
            try:
                stream.close()
            except OSError:
                pass
        with self._cond:
            old, self._real_stderr = self._real_stderr, quiet_fd
        os.close(old)

    def _pump(self):
        while True:
            data = os.read(self._read_fd, 65536)
            if not data:
                return
            with self._cond:
                buf, out = self._pending + data, bytearray()
                while (index := buf.find(self.SYNC)) >= 0:
                    out += buf[:index]
                    buf = buf[index + len(self.SYNC):]
                    self._syncs += 1
                keep = next((k for k in range(min(len(self.SYNC) - 1, len(buf)), 0, -1)
                             if buf.endswith(self.SYNC[:k])), 0)
                out += buf[:len(buf) - keep]
                self._pending = buf[len(buf) - keep:]
                if self._record is not None:
                    self._record += out
                view = memoryview(out)
                try:
                    while view:
                        view = view[os.write(self._real_stderr, view):]
                except OSError:
                    pass  # the run that leased this worker is gone: its output has no reader
                self._cond.notify_all()

    def sync(self):
        """Wait until everything written so far has been forwarded."""
        sys.stderr.flush()
        with self._cond:
            target = self._syncs + 1
        os.write(2, self.SYNC)
        with self._cond:
            self._cond.wait_for(lambda: self._syncs >= target, timeout=5)

    def start_recording(self):
        self.sync()
        with self._cond:
            self._record = bytearray()

    def stop_recording(self):
        self.sync()
        with self._cond:
            text, self._record = bytes(self._record or b""), None
        return text.decode("utf-8", errors="replace")

    def send(self, obj):
        self.proto_out.write(json.dumps(obj) + "\n")
        self.proto_out.flush()


# ---------------------------------------------------------------------------------------------
# Errors


class RequestError(Exception):
    """One failed request, already worded for the protocol."""

    def __init__(self, kind, message, file="", line=0, column=0, source_line=None, notes=(), tb=""):
        super().__init__(message)
        if source_line is None:
            source_line = line_text(file, line)
        self.fields = {"kind": kind, "file": file, "line": line, "column": column, "message": message,
                       "source_line": source_line, "notes": list(notes), "traceback": tb}


class FreshProcess(BaseException):
    """This request must be served by a fresh worker process (Process.check_serves)."""


class Process:
    """What this worker process is bound to, and how it starts afresh.

    A module of an installed package stays imported for the process's life (only project
    modules are imported again per kernel file), so one that asked about the device at import
    keeps the answer of the target it was imported for. From then on the process serves that
    target only: a request for another is served by the same process started afresh (exec, the
    same pipes, the request handed over), which imports everything for the new target. So
    does the first request after an import that failed half-way through installed modules."""

    def __init__(self):
        self.target = None         # _target_key() of the target installed modules answered for
        self.served = None         # that target as requests spell it (sent back: worker_target)
        self.why = ""
        self.request_target = None  # the target of the request being served, as it spells it
        self.fresh_start_after_reply = None
        self.python = sys.executable
        self.control_fd = None     # a pool worker's socket to its pool

    def bind(self, target, why):
        if self.target is None:
            self.target, self.served, self.why = _target_key(target), self.request_target, why

    def check_serves(self, target):
        if self.target is not None and self.target != _target_key(target):
            raise FreshProcess(f"imported for {self.target[0]}:{self.target[1]} ({self.why})")

    def exec_fresh(self, fds, greet, pending=None):
        """Replaces this process by a fresh worker serving `fds` (stdin, stdout, stderr of the
        run): it says hello if `greet`, then serves `pending` (a request line) first."""
        argv = launch.command(self.python, os.path.abspath(__file__))
        keep = list(fds)
        if self.control_fd is not None:
            argv += ["--pool-worker", str(self.control_fd)]
            keep.append(self.control_fd)
        argv += ["--python", self.python, "--lease" if greet else "--resume", ",".join(map(str, fds))]
        if pending:
            fd = os.memfd_create("triton-aot-request", 0)
            os.write(fd, pending.encode("utf-8"))
            os.lseek(fd, 0, os.SEEK_SET)
            argv += ["--pending", str(fd)]
            keep.append(fd)
        for fd in keep:
            os.set_inheritable(fd, True)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        os.execv(self.python, argv)


PROCESS = Process()


def _pending_request(fd):
    """The request line a process handed over when it started this one afresh."""
    with os.fdopen(fd, "rb") as f:
        return f.read().decode("utf-8", errors="replace")


def display(path):
    """The path as the user would write it: relative to the working directory when inside it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def line_text(file, line):
    return linecache.getline(file, line).rstrip("\n") if file and line > 0 else ""


def format_exc(exc, extra=""):
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return text + (f"\n{extra}" if extra else "")


def exception_chain(exc):
    """exc, then its causes/contexts, innermost last."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    return chain


def innermost_user_frame(exc):
    """(file, line, column) of the innermost traceback frame in a project file, else None."""
    for exc in reversed(exception_chain(exc)):
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_project_file(f.filename)]
        if frames:
            frame = frames[-1]
            return frame.filename, frame.lineno or 0, (getattr(frame, "colno", None) or -1) + 1
    return None


def load_error(exc, path):
    """A Python error while importing the kernel file (or a project file it imports)."""
    tb = format_exc(exc)
    if isinstance(exc, SyntaxError):
        file = exc.filename or path
        return RequestError("kernel", f"{type(exc).__name__}: {exc.msg}", file, exc.lineno or 0,
                            exc.offset or 0, (exc.text or "").rstrip("\n"), tb=tb)
    file, line, column = innermost_user_frame(exc) or (path, 0, 0)
    notes = _device_query_notes(exc)
    return RequestError("kernel", f"{type(exc).__name__}: {exc}", file, line, column, notes=notes, tb=tb)


# What torch says when asked for a GPU that is not there (CUDA and ROCm builds, or CPU-only).
_TORCH_NO_GPU = ("Found no NVIDIA driver", "No CUDA GPUs are available", "Torch not compiled with CUDA",
                 "no HIP GPUs", "CUDA driver initialization failed", "No HIP GPUs are available")


def _asking_line(exc):
    """"file:line: source" of the innermost frame of exc's traceback outside torch, Triton and
    this worker: the line that asked, inside an installed package too; "" if none."""
    from target_driver import machinery_roots
    roots = machinery_roots()
    for cause in exception_chain(exc):
        frames = [f for f in traceback.extract_tb(cause.__traceback__)
                  if os.path.isabs(f.filename) and not os.path.normpath(f.filename).startswith(roots)]
        if frames:
            frame = frames[-1]
            text = (frame.line or "").strip()
            return f"{display(frame.filename)}:{frame.lineno}" + (f": {text}" if text else "")
    return ""


def _device_query_notes(exc):
    """Notes for an import that failed asking for a GPU: which question, where, how to build it."""
    from target_driver import NoDeviceError
    for cause in exception_chain(exc):
        asked = _asking_line(cause)
        where = [f"asked at {asked}"] if asked else []
        if isinstance(cause, NoDeviceError):
            return where + [
                f"the module asked something only a live GPU answers ({cause}); while importing "
                "for a target, triton-aot answers Triton's driver (get_current_target(), "
                "get_active_torch_device(), utils.get_device_properties()) and torch.cuda's device "
                "questions (is_available(), get_device_capability(), get_device_properties(), ...) "
                "with that target (docs/compiler.md#device-questions-at-import)",
                "move the question out of import time, or build on a machine with that GPU"]
        frames = traceback.extract_tb(cause.__traceback__)
        asked_torch = any(f"{os.sep}torch{os.sep}cuda{os.sep}" in f.filename for f in frames)
        if asked_torch or any(text in str(cause) for text in _TORCH_NO_GPU):
            return where + [
                "the module asks torch for a GPU while it is imported, with a question triton-aot "
                "does not answer for a target (a tensor or stream on the GPU, its memory, ...); it "
                "answers torch.cuda's device questions (is_available(), get_device_capability(), "
                "get_device_properties(), ...) and torch.version.cuda/hip "
                "(docs/compiler.md#device-questions-at-import)",
                "building this module needs a machine with that GPU (or move the question out of "
                "import time)"]
    return []


def is_tritons(module_name):
    """A module of Triton itself (its files are the toolchain's fingerprint, never user code)."""
    return str(module_name).split(".")[0] == "triton"


def jit_sources(root):
    """src text -> @jit function, for every @jit function reachable from `root`'s globals."""
    found, stack, seen = {}, [root], set()
    while stack:
        fn = stack.pop()
        found.setdefault(fn.src, fn)
        scope = getattr(fn, "__globals__", None) or {}
        if id(scope) in seen:
            continue
        seen.add(id(scope))
        if is_tritons(scope.get("__name__", "")):
            continue  # Triton's functions: part of the toolchain's fingerprint, not a package's
        values = list(scope.values())
        values += [v for m in values if isinstance(m, types.ModuleType)
                   and not is_tritons(m.__name__) for v in vars(m).values()]
        stack += [v for v in values if A.is_jit_callable(v) and v.src not in found]
    return found


_distributions_of = {}  # top-level package name -> the normalized names of its distributions


def installed_packages(fn):
    """What installed code `fn` reaches (its own module or a @jit function it calls): the
    normalized names of the distributions holding it (cache keys take their versions), and
    the files of modules no distribution holds (cache keys take their contents). Triton's own
    files are part of the toolchain's fingerprint instead (compiler/installation.h)."""
    import importlib.metadata
    modules = {getattr(f, "__module__", None) for f in jit_sources(fn).values()}
    names, loose = set(), set()
    for name in filter(None, modules):
        module = sys.modules.get(name)
        path = _module_file(module) if module is not None else None
        top = name.split(".")[0]
        if not path or is_project_file(path) or is_tritons(name):
            continue
        if top not in _distributions_of:
            _distributions_of[top] = sorted({distribution_key(d) for d in
                                             importlib.metadata.packages_distributions().get(top, [])})
        if _distributions_of[top]:
            names.update(_distributions_of[top])
        else:
            loose.add(os.path.abspath(path))
    return sorted(names), sorted(loose)


def _node_position(node):
    return (getattr(node, "lineno", None), getattr(node, "col_offset", None),
            getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))


class _SourceIndex:
    """Which @jit function's source an AST node comes from.

    Triton pairs a node with the source of the function being compiled, but not always with the
    right one: a call of a `noinline` function with a tensor argument is reported with the
    callee's source and the caller's Call node (code_generator._check_fn_args). Lines computed
    from that pair point into the wrong function, possibly past its end. So a node is checked
    against the sources' own parses. Triton also visits nodes it made itself, with the position
    of the node they replace (an AugAssign becomes an Assign of a BinOp), so a match is graded.
    """

    def __init__(self):
        self._trees = {}  # id(fn) -> {position: [nodes]}

    def _positions(self, fn):
        key = id(fn)
        if key not in self._trees:
            table = {}
            try:
                tree = ast.parse(fn.src)
            except SyntaxError:
                tree = ast.Module(body=[], type_ignores=[])
            for node in ast.walk(tree):
                if getattr(node, "lineno", None):
                    table.setdefault(_node_position(node), []).append(node)
            self._trees[key] = table
        return self._trees[key]

    def score(self, fn, node):
        """How surely `node` comes from `fn`'s source: 3, an identical node at that position;
        2, a node of the same type there; 1, a node of another type there; 0, none."""
        found = self._positions(fn).get(_node_position(node))
        if not found:
            return 0
        if not any(type(n) is type(node) for n in found):
            return 1
        dump = ast.dump(node, include_attributes=True)
        return 3 if any(ast.dump(n, include_attributes=True) == dump for n in found) else 2


def _clamp_column(file, line, column):
    """A 1-based column inside the source line (its first non-blank character otherwise)."""
    text = line_text(file, line)
    if 1 <= column <= len(text):
        return column
    stripped = text.lstrip()
    return len(text) - len(stripped) + 1 if stripped else 1


def _locate(owner, node):
    """(file, line, column) of `node` in @jit function `owner`: absolute, 1-based, inside it."""
    file, def_line, indent = A.function_start(owner)
    lineno = getattr(node, "lineno", None)
    span = len(owner.src.splitlines()) or 1
    if not lineno or not 1 <= lineno <= span:
        return file, def_line, indent + 1
    line = def_line + lineno - 1
    return file, line, _clamp_column(file, line, (getattr(node, "col_offset", 0) or 0) + indent + 1)


def compilation_error(exc, fn):
    """A Triton CompilationError, located in the innermost user @jit function involved."""
    chain = exception_chain(exc)
    errors = [e for e in chain if isinstance(e, A.CompilationError)]
    sources = jit_sources(fn)
    index = _SourceIndex()
    # The function each error claims (by its source), outermost first.
    claimed = [sources.get(err.src) for err in errors]
    located = []  # innermost first: (owner, file, line, column)
    moved = []  # notes on errors Triton paired with another function's source
    for position in reversed(range(len(errors))):
        err, owner = errors[position], claimed[position]
        if owner is None:
            continue
        node = getattr(err, "node", None)
        if getattr(node, "lineno", None):
            # The caller: the function of the next outer error, else the kernel itself.
            callers = [c for c in reversed(claimed[:position]) if c is not None][:1] + [fn]
            candidates = [owner] + callers + [s for s in sources.values() if s is not owner]
            scores = [index.score(c, node) for c in candidates]
            best = max(range(len(candidates)), key=lambda i: (scores[i], -i))
            # No evidence either way: trust Triton (_locate keeps the line inside `owner`).
            if scores[best] > 0 and candidates[best] is not owner:
                callee, owner = owner, candidates[best]
                file, def_line, _ = A.function_start(callee)
                moved.append(f"{callee.__name__} is defined at {display(file)}:{def_line}")
        located.append((owner, *_locate(owner, node)))

    message = None
    for err in reversed(errors):
        if err.error_message:
            message = str(err.error_message)
            cause = err.__cause__ or err.__context__
            # Triton wraps Python errors as repr(e): show "NameError: x is not defined" instead.
            if cause is not None and not isinstance(cause, A.CompilationError) and message == repr(cause):
                message = f"{type(cause).__name__}: {cause}"
            break
    if message is None:
        inner = chain[-1]
        message = f"{type(inner).__name__}: {inner}" if inner is not exc else "compilation failed"

    # Point at the user's code, not at a Triton library function the user called wrongly.
    in_user = [not os.path.realpath(loc[1]).startswith(A.TRITON_DIR + os.sep) for loc in located]
    primary = in_user.index(True) if True in in_user else 0
    notes = []
    for index, (owner, file, line, _) in enumerate(located):
        if index < primary:
            notes.append(f"raised inside {owner.__name__} at {display(file)}:{line}")
        elif index > primary:
            callee = located[index - 1][0].__name__
            notes.append(f"{display(file)}:{line}: {callee} called from {owner.__name__}: "
                         f"{line_text(file, line).strip()}")
    notes += moved
    if not located:
        return RequestError("kernel", message, A.function_start(fn)[0], 0, 0, "", notes, format_exc(exc))
    _, file, line, column = located[primary]
    return RequestError("kernel", message, file, line, column, None, notes, format_exc(exc))


_MLIR_ERROR = re.compile(r'^(?:loc\()?"?(?P<file>[^":\n]+)"?:(?P<line>\d+):(?P<col>\d+)\)?: error: (?P<msg>.*)$',
                         re.MULTILINE)


def backend_error(exc, path, captured):
    """Anything else Triton raised while compiling: MLIR/LLVM failures, ptxas, resources."""
    tb = format_exc(exc, captured)
    diag = _MLIR_ERROR.search(captured or "")
    if diag:
        file, line = diag["file"], int(diag["line"])
        if os.path.isfile(file):
            return RequestError("kernel", diag["msg"].strip(), file, line, int(diag["col"]), tb=tb)
        return RequestError("kernel", diag["msg"].strip(), path, 0, 0, tb=tb)
    text = getattr(exc, "error_message", None) or str(exc) or type(exc).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # ptxas: the first line only says "`ptxas` failed with error code 255"; its stderr says why.
    detail = [line for line in lines[1:] if re.search(r"\b(error|fatal)\b", line, re.IGNORECASE)]
    message = detail[0] if detail else lines[0] if lines else type(exc).__name__
    if not isinstance(exc, A.BACKEND_ERRORS) and type(exc).__name__ not in message:
        message = f"{type(exc).__name__}: {message}"
    return RequestError("kernel", message, path, 0, 0, tb=tb)


# ---------------------------------------------------------------------------------------------
# Source names: the files Triton writes into the images, as the outputs name them


def source_namer(spec):
    """name(path) for a compile request's "source_names" ({"map": [[OLD, NEW], ...], "root"}),
    as compiler/source_names.h names files: the NEW of the longest OLD (whole components) and
    the rest; else relative to "root" (lexically), or unchanged when "root" is null (and any
    name that is not an absolute path, such as "<string>"). None
    without "source_names" (an older triton-aot-cc)."""
    if not isinstance(spec, dict):
        return None
    key = json.dumps(spec, sort_keys=True)
    if key not in _namers:
        _namers.clear()  # one run's names at a time
        _namers[key] = _make_source_namer(spec)
    return _namers[key]


# A run's requests share their source names: one namer per run, remembering each path's name
# (a realpath per function per compile was a tenth of a build's overhead).
_namers = {}


def _make_source_namer(spec):
    mappings = sorted(((os.path.normpath(old), new) for old, new in spec.get("map") or []),
                      key=lambda mapping: -len(mapping[0].rstrip(os.sep).split(os.sep)))
    root = spec.get("root")
    named = {}

    def name(path):
        if path not in named:
            named[path] = name_of(path)
        return named[path]

    def name_of(path):
        if not os.path.isabs(path):  # "<string>": code made by exec(), named by whoever made it
            return path
        normal = os.path.normpath(path)
        for candidate in dict.fromkeys((normal, os.path.realpath(normal))):  # venvs are often links
            for old, new in mappings:
                if candidate == old or candidate.startswith(old.rstrip(os.sep) + os.sep):
                    rest = candidate[len(old):].lstrip(os.sep)
                    return os.path.join(new, rest) if new and rest else (new or rest)
        return os.path.relpath(normal, root) if root else normal
    return name


def site_dirs():
    """The interpreter's directories of installed packages (the hello's "site_dirs"): their
    files are named from them by default (triton/language/standard.py), as given and resolved."""
    dirs = list(getattr(site, "getsitepackages", lambda: [])())
    dirs.append(getattr(site, "getusersitepackages", lambda: "")() or "")
    dirs += [p for p in sys.path if p.rstrip(os.sep).endswith(("site-packages", "dist-packages"))]
    dirs += [p for p in sys.path if p and _holds_distributions(p)]
    if A is not None:
        dirs.append(os.path.dirname(A.TRITON_DIR))
    found = [variant for d in dirs if d and os.path.isdir(d)
             for variant in (os.path.abspath(d), os.path.realpath(d))]
    return list(dict.fromkeys(found))


_tritons_own = {"modules": None, "found": {}, "scopes": {}}


def _reach_jit_functions(stack, found, scopes):
    """Adds to `found` (id -> function) every @jit function reachable from `stack` through
    globals and closures, and the modules they hold, one level down; `scopes` (id -> globals)
    are the globals already looked through."""
    while stack:
        fn = stack.pop()
        if id(fn) in found:
            continue
        found[id(fn)] = fn
        values = []
        for cell in getattr(getattr(fn, "fn", None), "__closure__", None) or ():
            try:
                values.append(cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        scope = getattr(fn, "__globals__", None) or {}
        if id(scope) not in scopes:
            scopes[id(scope)] = scope
            values += list(scope.values())
        values += [v for m in values if isinstance(m, types.ModuleType) for v in vars(m).values()]
        stack += [v for v in values if A.is_jit_callable(v) and id(v) not in found]


def _tritons_own_reach():
    """What Triton's own @jit functions reach (Triton's modules hold no user code): walked once,
    and again only when Triton has imported another module. Walking it on every compile was a
    tenth of a build's time outside Triton's compiles."""
    modules = [(name, module) for name, module in list(sys.modules.items())
               if module is not None and is_tritons(name)]
    names = tuple(name for name, _ in modules)
    if names != _tritons_own["modules"]:
        found, scopes = {}, {}
        _reach_jit_functions([value for _, module in modules for value in list(vars(module).values())
                              if A.is_jit_callable(value)], found, scopes)
        _tritons_own.update(modules=names, found=found, scopes=scopes)
    return dict(_tritons_own["found"]), dict(_tritons_own["scopes"])


def compiled_jit_functions(root):
    """Every @jit function a compile of `root` may generate code from: those reachable through
    globals and closures (and the modules they hold, one level down), and Triton's own."""
    found, scopes = _tritons_own_reach()
    _reach_jit_functions([root], found, scopes)
    return [fn for fn in found.values() if A.classify(fn) == "jit"]  # Python runs the others


_triton_cache = {"base": None, "set": None}


def _triton_cache_for(names):
    """Triton's cache directory for a compile with these source names: its key covers each
    function's source and lines but not its file, so compiles that name files differently get
    their own subdirectory (the key itself, recorded as triton_hash, stays the same everywhere).
    The base is the run's TRITON_CACHE_DIR (each pool lease sets it anew)."""
    current = os.environ.get("TRITON_CACHE_DIR")
    if not current:
        return
    if current != _triton_cache["set"]:
        _triton_cache["base"] = current
    base = _triton_cache["base"]
    if names:
        digest = hashlib.sha256(json.dumps(names, sort_keys=True).encode()).hexdigest()[:16]
        base = os.path.join(base, f"names-{digest}")
    os.environ["TRITON_CACHE_DIR"] = _triton_cache["set"] = base


# ---------------------------------------------------------------------------------------------
# Project files, module loading and dependencies


def _holds_distributions(path):
    """A sys.path entry that pip installed into (`pip install --target DIR` on PYTHONPATH, as
    a package carried to a GPU machine is): it holds `*.dist-info` directories."""
    try:
        return any(entry.endswith(".dist-info") for entry in os.listdir(path))
    except OSError:
        return False


def distribution_key(name):
    """A distribution's name as PEP 503 normalizes it: "Liger_Kernel" -> "liger-kernel"."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installation():
    """What the compiler's portable cache keys need of this interpreter (compiler/installation.h):
    the site directories, every installed distribution's version, and Triton's triton_key()
    (recorded, so that later runs' workers need not hash Triton's files again).
    Asked only when the compiler's record of the installation is stale, so a listing of every
    distribution (tens of milliseconds) is not paid by every run."""
    import importlib.metadata
    distributions = {}
    for dist in importlib.metadata.distributions():
        name = distribution_key(dist.metadata["Name"] or "")
        if name and name not in distributions:  # sys.path order: the first one is imported
            distributions[name] = dist.version
    return {"python_version": platform.python_version(), "triton_version": A.VERSION_TEXT,
            "site_dirs": site_dirs(), "distributions": distributions,
            "triton_key": A.triton_key()}


def _excluded_roots():
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, WORKER_DIR}
    roots.update(getattr(site, "getsitepackages", lambda: [])())
    roots.add(getattr(site, "getusersitepackages", lambda: "")() or "")
    roots.update(p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages")))
    roots.update(p for p in sys.path if p and _holds_distributions(p))
    return sorted({os.path.realpath(r) for r in roots if r and r != "/"})


_EXCLUDED = None
_project_file = {}  # path -> bool; realpath() on every module of every purge is not free


def is_project_file(path):
    """A Python source file of the user's project (not the interpreter, packages or Triton)."""
    if not path or not path.endswith(".py") or not os.path.isabs(path):
        return False
    known = _project_file.get(path)
    if known is None:
        real = os.path.realpath(path)
        known = not any(real == root or real.startswith(root + os.sep) for root in _EXCLUDED)
        _project_file[path] = known
    return known


def _module_file(module):
    """The module's source file, or None: torch registers `torch.ops` and `torch.classes` with a
    bare "_ops.py" as __file__, which names no file (and would make every build dirty)."""
    file = getattr(module, "__file__", None)
    if not isinstance(file, str) or not os.path.isabs(file):
        return None
    return file


def purge_project_modules():
    """Drop project modules from sys.modules, so each kernel file imports its own copies.

    Kernel files from different directories may import different `common.py`s; and a module
    already in sys.modules would be missed as a dependency of the next kernel file.
    """
    for name, module in list(sys.modules.items()):
        if is_project_file(_module_file(module)):
            del sys.modules[name]


def _stamp(path):
    try:
        st = os.stat(path)
        return (st.st_mtime_ns, st.st_size)
    except OSError:
        return None


class KernelFile:
    """A loaded kernel file, its module and the project files it depends on (with stamps)."""

    def __init__(self, path, module):
        self.path = path
        self.module = module
        self.target = None  # (backend, arch, warp size) its import asked about, if it did
        self.stamps = {path: _stamp(path)}

    def add_deps(self, files):
        for file in files:
            if file not in self.stamps:
                self.stamps[file] = _stamp(file)

    @property
    def deps(self):
        return list(self.stamps)

    def fresh(self):
        return all(_stamp(path) == stamp for path, stamp in self.stamps.items())


class ImportWatch:
    """Context: `root` (the kernel's directory, or the root of its package) first on sys.path;
    records project modules imported."""

    def __init__(self, path, root=None):
        self.dir = root or os.path.dirname(path)
        self.files = []

    def __enter__(self):
        self._before = set(sys.modules)
        sys.path.insert(0, self.dir)
        return self

    def __exit__(self, *exc):
        if self.dir in sys.path:
            sys.path.remove(self.dir)
        new = (sys.modules[name] for name in set(sys.modules) - self._before)
        self.files = sorted({f for f in map(_module_file, new) if is_project_file(f)})
        purge_project_modules()
        return False


_kernel_files = {}


def package_of(path):
    """(root, "pkg.sub.mod") for a file inside a package (an __init__.py beside it and in each
    directory up to the top package), else None: such a file is imported as that module, so its
    relative and package imports work as they do for its users."""
    directory = os.path.dirname(path)
    parts = [os.path.splitext(os.path.basename(path))[0]]
    if parts == ["__init__"]:  # the package itself
        parts, directory = [os.path.basename(directory)], os.path.dirname(directory)
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parts.insert(0, os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    if len(parts) == 1 or not all(part.isidentifier() for part in parts):
        return None
    top = sys.modules.get(parts[0])
    top_file = _module_file(top) if top is not None else None
    if top_file and os.path.realpath(os.path.dirname(top_file)) != os.path.realpath(os.path.join(directory, parts[0])):
        return None  # another package of that name is already imported: do not shadow it
    return directory, ".".join(parts)


def _exec_kernel_module(path, target):
    """Runs the kernel file as a module: as its package's module, or on its own; Triton's and
    torch's device questions answered for `target` (target_driver.py, torch_answers.py).
    Returns (module, files, asked): asked is whether the import asked anything. Binds this
    process to `target` when a module that stays imported (not the project's) asked, and marks
    it for a fresh start when a failed import left such modules behind."""
    from target_driver import answering_for
    before, driver = set(sys.modules), None
    try:
        with answering_for(target) as driver:
            module, files = _exec_module(path)
    except RequestError:
        if any(not is_project_file(_module_file(sys.modules.get(name))) for name in set(sys.modules) - before):
            PROCESS.fresh_start_after_reply = "a failed import left installed modules half-initialised"
        if driver is not None:
            _bind_if_installed_code_asked(driver, target)
        raise
    _bind_if_installed_code_asked(driver, target)
    return module, files, driver.queried


def _bind_if_installed_code_asked(driver, target):
    """Modules of installed packages stay imported for the worker's life: one that asked holds
    this target's answer in its globals (or an lru_cache), so the process serves this target only."""
    for file, line, question in driver.askers:
        if not is_project_file(file):
            PROCESS.bind(target, f"{display(file)}:{line} asked {question}")
            return


def _exec_module(path):
    package = package_of(path)
    if package is not None:
        root, dotted = package
        with ImportWatch(path, root) as watch:
            try:
                module = importlib.import_module(dotted)
            except (Exception, SystemExit) as exc:
                raise load_error(exc, path) from None
        return module, watch.files
    stem = os.path.splitext(os.path.basename(path))[0]
    # Like a normal import (dataclasses and pickle look modules up), but never shadow a module
    # that is not the user's (a kernel file named "math.py").
    name = stem if stem not in sys.modules else f"_tta_kernel_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    with ImportWatch(path) as watch:
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except (Exception, SystemExit) as exc:
            raise load_error(exc, path) from None
        finally:
            if sys.modules.get(name) is module:
                del sys.modules[name]
    return module, watch.files


def _target_key(target):
    return (target.backend, str(target.arch), target.warp_size)


def load_kernel_file(path, target):
    """The kernel file imported for `target`: imported once per worker, and once per target
    when importing it asked about the device (its module-level answers differ per target).
    A process whose installed modules answered for another target cannot import it: the
    request is served by a fresh process (FreshProcess)."""
    PROCESS.check_serves(target)
    entry = _kernel_files.get(path)
    if entry is not None and entry.fresh() and entry.target in (None, _target_key(target)):
        return entry
    _kernel_files.pop(path, None)
    purge_project_modules()
    importlib.invalidate_caches()
    for stale in ([path] + (entry.deps if entry else [])):
        linecache.cache.pop(stale, None)  # inspect reads sources through linecache
    module, files, asked = _exec_kernel_module(path, target)
    entry = KernelFile(path, module)
    entry.target = _target_key(target) if asked else None
    entry.add_deps(files)
    # @jit functions the kernel can reach that live in other project files.
    for value in vars(module).values():
        jit = value if A.is_jit_callable(value) else unwrap_kernel(value)[0]  # wrapped too
        if jit is not None:
            file = os.path.abspath(A.source_file(jit))
            if is_project_file(file):
                entry.add_deps([file])
    _kernel_files[path] = entry
    return entry


def unwrap_kernel(obj):
    """(the @jit function, [(kind, layer), ...] outermost first) of a kernel object: through
    autotune, heuristics and wrapper layers (Triton's, subclasses of them, and objects projects
    write that hold the kernel in `fn`: A.kernel_chain), however they were applied (decorators or
    assignments such as `k = triton.autotune(...)(triton.jit(f))`: the object counts, not the
    syntax). The function is None when the chain does not end in a @jit function."""
    chain = A.kernel_chain(obj)
    return chain.jit, chain.layers


def heuristics_layers(layers):
    """The @triton.heuristics objects among unwrap_kernel()'s layers, outermost first."""
    return [layer for kind, layer in layers if kind == "heuristics"]


def find_function(entry, name):
    """The @jit function `name` of a loaded file (through its autotune, heuristics and wrapper
    layers), or a usage error saying what is there."""
    module = entry.module
    jit_names = [key for key, value in vars(module).items() if unwrap_kernel(value)[0] is not None]
    where = display(entry.path)
    obj = getattr(module, name, None) if name else None
    chain = A.kernel_chain(obj)
    if chain.jit is not None:
        return chain.jit, jit_names
    listing = f"@jit functions in {where}: {', '.join(jit_names)}" if jit_names else f"{where} defines no @jit functions"
    if obj is None:
        notes = [f"did you mean '{match}'?" for match in difflib.get_close_matches(name, jit_names, n=1)]
        message = f"{where} has no @triton.jit function named '{name}'" if name else "no function name given"
        raise RequestError("usage", message, entry.path, notes=notes + [listing])
    kind = A.classify(obj)
    notes = []
    if kind in ("autotune", "heuristics", "wrapper"):
        message = f"'{name}' in {where} wraps no @triton.jit function: it is {chain.text()}"
        notes = ["triton-aot follows each layer's 'fn' to a @triton.jit function (through Triton's "
                 "autotune and heuristics, subclasses of them, and wrappers such as KernelInterfaces)"]
        if A.classify(chain.end) == "function":
            notes.append(f"decorate {chain.end.__name__} with @triton.jit (or @gluon.jit)")
    elif kind == "constexpr_function":
        message = f"'{name}' in {where} is a @triton.constexpr_function, not a kernel"
    elif kind == "function":
        message = f"'{name}' in {where} is a plain Python function, not a @triton.jit kernel"
        notes = ["decorate it with @triton.jit (or @gluon.jit)"]
    else:
        message = f"'{name}' in {where} is not a function (it is a {type(obj).__name__})"
        notes = [f"it holds {held.text()} in '{attribute}', but triton-aot looks through wrappers that hold "
                 "their kernel in 'fn' (as Triton's do); name that kernel itself if the module has it"
                 for attribute, held in A.kernels_held(obj)]
    # At the function the kernel object ends in, where there is one.
    end = obj if kind in ("constexpr_function", "function") else chain.end
    end = end.fn if A.is_jit_callable(end) else end
    if kind == "other" or not isinstance(end, types.FunctionType):
        raise RequestError("usage", message, entry.path, notes=notes + [listing])
    raise RequestError("usage", message, A.source_file(end), end.__code__.co_firstlineno, notes=notes + [listing])


class _NeedsArguments(Exception):
    """An early_config_prune asked for an argument value, which a build does not have."""


class _NoArgumentValues(dict):
    """named_args at build time: there are no argument values, so any look-up says so."""

    def _refuse(self, *args, **kwargs):
        raise _NeedsArguments(args[0] if args else "")

    __getitem__ = get = __contains__ = __iter__ = keys = items = values = _refuse


def _callable_facts(fn):
    """name (module.qualname), file, line and that line's text of a Python callable."""
    code = getattr(fn, "__code__", None) or getattr(getattr(fn, "__call__", None), "__code__", None)
    name = f"{getattr(fn, '__module__', None) or '?'}.{getattr(fn, '__qualname__', None) or type(fn).__name__}"
    file = (A.source_file(fn) or code.co_filename) if code else ""
    line = code.co_firstlineno if code else 0
    return {"name": name, "file": file, "line": line, "source_line": line_text(file, line).strip()}


def _declared_index(declared, config):
    """The place of `config` in the decorator's list: itself, or (a prune may return copies) the
    first with the same values and hook; -1 when none."""
    for i, candidate in enumerate(declared):
        if candidate is config:
            return i
    facts = A.config_facts(config)
    return next((i for i, candidate in enumerate(declared) if A.config_facts(candidate) == facts), -1)


def _config_text_value(value):
    """A config value in the config grammar of triton-aot-cc (compiler/config.h)."""
    spec = _value_spec(value)
    kind = spec["type"]
    if kind == "none":
        return "None"
    if kind == "bool":
        return "True" if spec["value"] else "False"
    if kind in ("int", "float"):
        return repr(spec["value"])
    if kind == "str":
        return "'" + spec["value"].replace("\\", "\\\\").replace("'", "\\'") + "'"
    if kind == "dtype":
        return "tl." + spec["value"]
    return None


def autotune_facts(fn, layers, path, name):
    """The facts of the kernel's @triton.autotune layer (the outermost), or None: its configs
    (after a build-time early_config_prune), key, what is recorded for tuning, and notes."""
    autotuner = next((layer for kind, layer in layers if kind == "autotune"), None)
    if autotuner is None:
        return None
    facts = A.autotune_layer_facts(autotuner)
    configs, notes = facts["configs"], []
    prune_info = None
    if facts["early_config_prune"] is not None:
        prune_info = {**_callable_facts(facts["early_config_prune"]), "applied": False, "declared": len(configs)}
        try:
            kept = A.prune_configs(facts["early_config_prune"], configs, _NoArgumentValues())
        except Exception as exc:  # it needs argument values (or the device): keep every config
            # A prune that copies named_args first (dict(named_args)) sees an empty dict: its
            # KeyError names the argument too.
            asked = exc.args[0] if isinstance(exc, (_NeedsArguments, KeyError)) and exc.args else ""
            what = (f"argument '{asked}'" if isinstance(asked, str) and asked
                    else "argument values" if isinstance(exc, _NeedsArguments) else f"{type(exc).__name__}: {exc}")
            notes.append(f"early_config_prune {prune_info['name']} needs {what} at launch time, so it cannot "
                         f"run at build time: all {len(configs)} configs of {name} are built")
        else:
            kept = list(kept or [])
            if not kept:
                raise RequestError("usage", f"early_config_prune {prune_info['name']} of {fn.__name__} keeps no "
                                   "config at build time (Triton requires at least one)",
                                   prune_info["file"], prune_info["line"])
            configs, prune_info["applied"] = kept, True
        prune_info["kept"] = len(configs)
    if facts["perf_model"] is not None:
        notes.append(f"perf_model {_callable_facts(facts['perf_model'])['name']} (top_k={facts['top_k']}) ranks "
                     f"configs with argument values at launch time; it is ignored and every config is built")
    described = []
    declared = facts["configs"]
    for index, config in enumerate(configs):
        kwargs, options, pre_hook = A.config_facts(config)
        parts = []
        for key, value in list(kwargs.items()) + list(options.items()):
            text = _config_text_value(value)
            if text is None:
                raise RequestError("usage", f"config {index + 1} of the @triton.autotune of {fn.__name__} sets "
                                   f"{key}={value!r}, which cannot be compiled in", path,
                                   A.function_start(fn)[1])
            parts.append([key, text])
        hook = None
        if pre_hook is not None:  # with its config's place in the decorator's list, for the compile
            hook = {**_callable_facts(pre_hook), "config": _declared_index(declared, config)}
        described.append({"values": parts, "kwargs": list(kwargs), "pre_hook": hook})
    tuning_hooks = [_callable_facts(h)["name"] for h in (facts["pre_hook"], facts["post_hook"]) if h is not None]
    return {"configs": described, "key": [str(k) for k in facts["key"]],
            "reset_to_zero": [str(k) for k in facts["reset_to_zero"]],
            "restore_value": [str(k) for k in facts["restore_value"]],
            "prune": prune_info, "tuning_hooks": tuning_hooks, "notes": notes}


# ---------------------------------------------------------------------------------------------
# @triton.heuristics: each value's expression, as text the compiler translates to C


def _code_matches(node, code, file):
    """Whether compiling `node` (a lambda or def) gives the code object `code`."""
    try:
        tree = ast.Expression(node) if isinstance(node, ast.Lambda) else ast.Module([node], [])
        compiled = compile(ast.fix_missing_locations(tree), file, "eval" if isinstance(node, ast.Lambda) else "exec")
    except (SyntaxError, ValueError, TypeError):
        return False
    for const in compiled.co_consts:
        if hasattr(const, "co_code") and const.co_code == code.co_code and const.co_consts == code.co_consts \
                and const.co_names == code.co_names:
            return True
    return False


def _function_node(fn):
    """The ast node (Lambda or FunctionDef) of a Python function, found in its file by line and
    by compiled code (several lambdas may share a line, as in a dict literal), or None."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    file = A.source_file(fn)
    try:
        tree = ast.parse("".join(linecache.getlines(file)) or open(file, encoding="utf-8").read(), file)
    except (OSError, SyntaxError, ValueError):
        return None
    candidates = [node for node in ast.walk(tree)
                  if (isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno)
                  or (isinstance(node, ast.FunctionDef) and node.name == fn.__name__
                      and code.co_firstlineno in [node.lineno] + [d.lineno for d in node.decorator_list])]
    if len(candidates) > 1:
        candidates = [node for node in candidates if _code_matches(node, code, file)] or candidates[:1]
    return candidates[0] if candidates else None


class _InlineConstants(ast.NodeTransformer):
    """Module-level or closure constants (ints, floats, bools) a heuristic reads become literals."""

    def __init__(self, fn, arg):
        self.arg = arg
        self.env = heuristic_flatten.namespace_of(fn)

    def visit_Name(self, node):
        value = self.env.get(node.id)
        if node.id != self.arg and isinstance(value, (bool, int, float)):
            return ast.copy_location(ast.Constant(value), node)
        return node


def heuristic_entries(layers):
    """One entry per heuristic in the order Triton evaluates them (outer layer first, then its
    dict order): name, the expression text, the lambda's parameter, where it is written."""
    entries = []
    for layer in layers:
        for name, fn in layer.values.items():
            code = getattr(fn, "__code__", None)
            file = A.source_file(fn) if code else ""
            line = code.co_firstlineno if code else 0
            item = {"name": name, "file": file, "line": line, "source": line_text(file, line) if line else ""}
            node = _function_node(fn)
            params = node.args.args if node is not None else []
            if node is None:
                item["error"] = "its source cannot be found"
            elif len(params) != 1 or node.args.vararg or node.args.kwarg or node.args.kwonlyargs:
                item["error"] = "it must take exactly one parameter (the arguments)"
            elif isinstance(node, ast.Lambda):
                body = node.body
            else:
                statements = [st for st in node.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
                if len(statements) == 1 and isinstance(statements[0], ast.Return) and statements[0].value is not None:
                    body = statements[0].value
                else:  # several statements: executed symbolically into the expression they return
                    try:
                        body = heuristic_flatten.flatten(fn, node, _function_node)
                    except heuristic_flatten.Untranslatable as exc:
                        item["error"] = f"{exc} (def {node.name}"
                        item["error"] += f", line {exc.line})" if exc.line else ")"
                        if exc.line:   # in the def's own file (a helper's is named in the message)
                            item["line"], item["source"] = exc.line, line_text(file, exc.line)
            if "error" not in item:
                arg = params[0].arg
                item["arg"] = arg
                body = heuristic_flatten.ArgsGet(arg).visit(body)
                item["expression"] = ast.unparse(_InlineConstants(fn, arg).visit(body))
            entries.append(item)
    return entries


# ---------------------------------------------------------------------------------------------
# Requests


def _source(req):
    path = req.get("source")
    if not isinstance(path, str) or not path:
        raise RequestError("usage", "request has no source")
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise RequestError("usage", f"{display(path)}: no such file", path)
    kind = req.get("source_kind") or "python"
    if kind not in ("python", "ttir", "ttgir"):
        raise RequestError("usage", f"unknown source_kind {kind!r}")
    if kind != "python" and not path.endswith("." + kind):
        raise RequestError("usage", f"{display(path)}: a {kind} source must be named *.{kind}", path)
    return path, kind


def _value_spec(value):
    """A default value in the protocol's constexpr-value form."""
    import triton.language as tl
    value = getattr(value, "value", value) if isinstance(value, tl.constexpr) else value
    if value is None:
        return {"type": "none"}
    for kind, types_ in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if isinstance(value, types_):
            return {"type": kind, "value": value}
    if isinstance(value, tl.dtype):
        names = [k for k, v in vars(tl).items() if isinstance(v, tl.dtype) and v == value and not k.startswith("_")]
        return {"type": "dtype", "value": names[0] if names else str(value)}
    return {"type": "unsupported", "repr": repr(value)}


def _read_ir(path):
    try:
        with open(path, encoding="utf-8") as f:
            return A.parse_ir(f.read())
    except (OSError, ValueError) as exc:
        raise RequestError("kernel", f"cannot read the kernel from {display(path)}: {exc}", path) from None


def describe(req):
    path, kind = _source(req)
    if kind != "python":
        info = _read_ir(path)
        ttgir = kind == "ttgir"
        return {"function": info["function"], "dialect": "triton", "params": info["params"],
                "jit_functions": [info["function"]], "target": info["target"] if ttgir else None,
                "num_warps": info["num_warps"] if ttgir else None, "num_ctas": info["num_ctas"] if ttgir else None}
    try:
        target = A.make_target(req.get("target") or {"backend": "cuda", "arch": 90})
    except A.UsageError as exc:
        raise RequestError("usage", str(exc)) from None
    entry = load_kernel_file(path, target)
    fn, jit_names = find_function(entry, req.get("function") or "")
    name = req.get("function") or ""
    autotune = autotune_facts(fn, unwrap_kernel(getattr(entry.module, name))[1], path, name)
    tree = fn.parse().body[0].args
    annotations = {a.arg: a.annotation for a in tree.posonlyargs + tree.args + tree.kwonlyargs}
    params = []
    for param in fn.params:
        note = annotations.get(param.name)
        item = {"name": param.name, "constexpr": bool(param.is_constexpr),
                "annotation": ast.unparse(note) if note is not None else None}
        if param.has_default:
            item["default"] = _value_spec(param.default)
        params.append(item)
    file, def_line, _ = A.function_start(fn)
    heuristic_layers = heuristics_layers(unwrap_kernel(getattr(entry.module, name))[1])
    # A heuristic of several statements may ask torch or Triton about the device (FlagGems: the
    # SM count): what it asks is evaluated now, answered for this target.
    from target_driver import answering_for
    with answering_for(target):
        heuristics = heuristic_entries(heuristic_layers)
    answer = {"function": fn.__name__, "dialect": "gluon" if A.is_gluon(fn) else "triton", "params": params,
              "jit_functions": jit_names, "file": file, "line": def_line,
              "heuristics": heuristics, "deps": entry.deps,
              "do_not_specialize": [p.name for p in fn.params if p.do_not_specialize],
              "do_not_specialize_on_alignment": [p.name for p in fn.params if p.do_not_specialize_on_alignment]}
    if autotune is not None:
        answer["autotune"] = autotune
    return answer


def _check_params(fn, params):
    names = [p.get("name") for p in params]
    if names != list(fn.arg_names):
        raise RequestError("usage", f"the signature does not fit {fn.__name__}: expected parameters "
                           f"({', '.join(fn.arg_names)}), got ({', '.join(map(str, names))})",
                           *A.function_start(fn)[:2])
    for param, given in zip(fn.params, params):
        if param.is_constexpr and given.get("kind") != "constexpr" and given.get("hint") != 1:
            raise RequestError("usage", f"parameter '{param.name}' of {fn.__name__} is tl.constexpr: "
                               "the signature must give it a value", *A.function_start(fn)[:2])


def _target_and_options(req):
    target = None
    try:
        target = A.make_target(req.get("target") or {})
        A.check_target(target)
        backend = A.make_backend(target)
        options = dict(req.get("options") or {})
        A.check_options(backend, options)
        backend.parse_options(dict(options))  # raises on illegal values (num_warps=3, ...)
    except A.UsageError as exc:
        raise RequestError("usage", str(exc), notes=exc.notes) from None
    except Exception as exc:
        where = A.target_name(target) if target else req.get("target")
        if target is not None and A.target_cannot_build(exc, str(exc)):
            raise RequestError("target", str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                               tb=format_exc(exc)) from None
        raise RequestError("usage", f"invalid options for {where}: {exc}", tb=format_exc(exc)) from None
    return target, options


def _write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        with open(path, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
    except OSError as exc:  # e.g. the output directory was removed while compiling
        raise RequestError("output", f"cannot write {display(path)}: {exc.strerror}; check that "
                           f"{display(os.path.dirname(path) or '.')} exists and is writable")
    return path


def _write_outputs(compiled, target, outputs):
    written = {}
    if outputs.get("image"):
        written["image"] = _write(outputs["image"], compiled.kernel)
    if outputs.get("ptx") and target.backend == "cuda":
        written["ptx"] = _write(outputs["ptx"], compiled.asm["ptx"])
    ir_dir = outputs.get("ir_dir")
    if ir_dir:
        stem = os.path.splitext(os.path.basename(outputs.get("image") or "kernel"))[0]
        written["ir"] = {}
        for ext in A.ir_stages(target):
            if ext in compiled.asm:
                written["ir"][ext] = _write(os.path.join(ir_dir, f"{stem}.{ext}"), compiled.asm[ext])
    return written


def compile_request(req, tap):
    path, kind = _source(req)
    target, options = _target_and_options(req)
    function = req.get("function") or ""
    import triton
    if kind == "python":
        entry = load_kernel_file(path, target)
        fn, _ = find_function(entry, function)
        params = req.get("params") or []
        _check_params(fn, params)
        if req.get("pre_hook") is not None:
            params = _params_after_config_hook(entry, function, params, options, req["pre_hook"], path)
        try:
            src = A.build_ast_source(fn, params)
        except A.UsageError as exc:
            raise RequestError("usage", str(exc), path, notes=exc.notes) from None
        watch = ImportWatch(path)
    else:
        info = _read_ir(path)
        if function and function != info["function"]:
            raise RequestError("usage", f"{display(path)} holds kernel '{info['function']}', not '{function}'", path)
        wanted = A.target_name(target)
        if kind == "ttgir" and info["target"] and info["target"] != wanted:
            raise RequestError("usage", f"{display(path)} was generated for target {info['target']}, "
                               f"but the requested target is {wanted}", path,
                               notes=["regenerate the .ttgir for this target or request its target"])
        for option in ("num_warps", "num_ctas"):  # a .ttgir fixes these; Triton would ignore the request
            fixed = info[option] if kind == "ttgir" else None
            if fixed is not None and options.get(option) not in (None, fixed):
                raise RequestError("usage", f"{option}={options[option]} was requested, but {display(path)} "
                                   f"was generated with {option}={fixed}", path)
        fn, entry, src, watch = None, None, path, None

    descriptors = [p["name"] for p in (req.get("params") or []) if p.get("kind") == "tensordesc"]
    if descriptors and target.backend != "cuda":
        raise RequestError("usage", A.hip_tensor_descriptor_refusal(descriptors), path)

    if _WARM_UP.ident is not None:
        _WARM_UP.join()
    namer = source_namer(req.get("source_names"))
    if namer and fn is not None:
        A.rename_sources(compiled_jit_functions(fn), namer)
    _triton_cache_for(req.get("source_names") if namer and fn is not None else None)
    failure = None
    unwritable = None
    tap.start_recording()
    started = time.monotonic()   # the compile's own time: what a build's floor is made of
    try:
        if watch is not None:
            with watch, empty_working_directory():
                compiled, unwritable = _compile_despite_cache(triton, src, target, options)
            entry.add_deps(watch.files)
        else:
            with empty_working_directory():
                compiled, unwritable = _compile_despite_cache(triton, src, target, options)
    except (Exception, SystemExit) as exc:
        failure = exc
    captured = tap.stop_recording()
    compile_ms = int((time.monotonic() - started) * 1000)
    if failure is not None:
        error = compilation_error(failure, fn) if isinstance(failure, A.CompilationError) else \
            backend_error(failure, path, captured)
        if A.target_cannot_build(failure, error.fields["message"]):
            error.fields["kind"] = "target"  # the config is left out for this target
            error.fields["compile_ms"] = compile_ms  # Triton's work all the same: the build's floor
        raise error from None

    try:
        A.check_launch_fields(compiled.metadata._asdict())
        meta = A.metadata_dict(compiled)
        trailing = A.trailing_params(meta)
        tensordescs = A.tensor_descriptors(descriptors, compiled.metadata._asdict())
        types = {p["name"]: p.get("type") or "" for p in (params if kind == "python" else [])}
        for desc in tensordescs:  # the block shape compiled, after any config hook
            if desc["name"] in types:
                desc["block_shape"] = config_hooks.block_shape_of(types[desc["name"]])
    except A.UsageError as exc:
        kind = "environment" if isinstance(exc, A.UnsupportedTriton) else "usage"
        raise RequestError(kind, str(exc), path, notes=exc.notes) from None
    deps = entry.deps if entry else [path]
    packages, loose = installed_packages(fn) if fn is not None else ([], [])
    deps += [file for file in loose if file not in deps]
    override = options.get("ir_override")  # an IR file that replaces one of the stages
    if isinstance(override, str) and os.path.isfile(override) and os.path.abspath(override) not in deps:
        deps.append(os.path.abspath(override))
    answer = {"triton_version": A.VERSION_TEXT, "metadata": meta, "entry": meta.get("name"),
              "compile_ms": compile_ms,
              "image_arch": A.image_arch(target, meta, compiled.asm), "trailing_params": trailing,
              "tensordescs": tensordescs, "deps": deps, "packages": packages,
              "written": _write_outputs(compiled, target, req.get("outputs") or {})}
    try:
        writes = param_writes.param_writes(compiled.asm["ttir"]) if "ttir" in compiled.asm else None
    except Exception:  # IR text it cannot follow: unknown, which readers take as written
        writes = None
    if writes is not None:
        answer["pointer_writes"] = writes
    if unwritable:
        answer["cache_unwritable"] = unwritable
    return answer


# Why a cache directory cannot take a file: full, over a quota, read-only, not ours.
_UNWRITABLE = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def _compile_despite_cache(triton, src, target, options):
    """triton.compile, and once more with a cache directory of the run's own (the compiler's
    TRITON_AOT_TRITON_CACHE_FALLBACK, in its scratch directory) when Triton cannot write its
    cache: a cache that cannot be written costs speed, never the build. Returns the compiled
    kernel and why the cache was given up (None when it was not)."""
    try:
        return triton.compile(src, target=target, options=options), None
    except OSError as exc:
        cache = os.environ.get("TRITON_CACHE_DIR") or ""
        fallback = os.environ.get("TRITON_AOT_TRITON_CACHE_FALLBACK") or ""

        def under(path, directory):
            return os.path.abspath(path).startswith(os.path.abspath(directory) + os.sep)
        # Raised by Triton's cache (a full disk shows when a file is closed: no file name).
        in_cache = (isinstance(exc.filename, str) and under(exc.filename, cache)) or any(
            frame.f_code.co_filename.endswith(os.path.join("triton", "runtime", "cache.py"))
            for frame, _ in traceback.walk_tb(exc.__traceback__))
        if (exc.errno not in _UNWRITABLE or not in_cache or not cache or not fallback
                or cache == fallback or under(cache, fallback)):
            raise
        why = os.strerror(exc.errno)
    os.environ["TRITON_CACHE_DIR"] = fallback  # for this worker's later compiles of the run too
    return triton.compile(src, target=target, options=options), why


def _params_after_config_hook(entry, function, params, options, request, path):
    """The compile's params with the block shapes the config's pre_hook gives its tensor
    descriptors, the hook run at build time (config_hooks.py); a usage error naming what the
    hook did when it needs a launch."""
    _, layers = unwrap_kernel(getattr(entry.module, function, None))
    autotuner = next((layer for kind, layer in layers if kind == "autotune"), None)
    configs = A.autotune_layer_facts(autotuner)["configs"] if autotuner is not None else []
    index = request.get("index", -1)
    hook = A.config_facts(configs[index])[2] if 0 <= index < len(configs) else None
    if hook is None:
        raise RequestError("usage", f"the @triton.autotune of '{function}' has no config {index + 1} "
                           "with a pre_hook (was the file changed during the build?)", path)
    facts = _callable_facts(hook)
    try:
        shapes = config_hooks.run_config_hook(hook, params, options, A.constexpr_value)
    except config_hooks.HookNeedsLaunch as exc:
        raise RequestError(
            "usage", f"config {request.get('number', index + 1)} ({request.get('name', '?')}) of the "
            f"@triton.autotune of '{function}' has the pre_hook {facts['name']}, which Triton runs in "
            f"Python before every launch of that config; a C library cannot run it: it {exc.what}",
            facts["file"], facts["line"], source_line=facts["source_line"],
            notes=["a hook that only sets the block_shape of tensor descriptor parameters from the "
                   "config's values runs at build time; any other needs Python at each launch",
                   "if the kernel is correct without it (the caller does what the hook did), drop it: "
                   "triton-aot-cc --drop-pre-hooks, or DROP_PRE_HOOKS in triton_add_kernel()",
                   "or give the configs with --config (CONFIG in CMake): they replace the "
                   "decorator's, hooks and all"]) from None
    return [dict(p, type=config_hooks.with_block_shape(p.get("type") or "", shapes[p["name"]]))
            if p["name"] in shapes else p for p in params]


_EMPTY_DIR = None


@contextlib.contextmanager
def empty_working_directory():
    """Compiles run in an empty directory: Triton 3.6's ptxas writes the modification time and
    size of every source file it can open from its working directory into the cubin's line table,
    and once sources are named relative to the project root (docs/reproducible.md) they would
    open from the project's directory, so another checkout, or a touched file, gave other bytes."""
    global _EMPTY_DIR
    if _EMPTY_DIR is None:
        _EMPTY_DIR = tempfile.mkdtemp(prefix="triton-aot-compile-")
        atexit.register(os.rmdir, _EMPTY_DIR)
    previous = os.getcwd()
    os.chdir(_EMPTY_DIR)
    try:
        yield
    finally:
        os.chdir(previous)


def _warm_up():
    try:
        A.warm_up()
    except Exception:
        pass  # the first compile will do it again and report what fails


# Runs between hello and the first compile, overlapping the driver's first requests.
_WARM_UP = threading.Thread(target=_warm_up, name="warm-up", daemon=True)


def handle(line, tap, import_error):
    try:
        req = json.loads(line)
        if not isinstance(req, dict):
            raise ValueError("a request must be a JSON object")
    except ValueError as exc:
        return {"id": None, "ok": False, "error": RequestError("usage", f"malformed request: {exc}").fields}
    rid = req.get("id")
    PROCESS.request_target = req.get("target")
    try:
        if import_error:
            raise RequestError("environment", f"Triton cannot be imported: {import_error}")
        op = req.get("op")
        if op == "describe":
            body = describe(req)
        elif op == "compile":
            body = compile_request(req, tap)
        elif op == "installation":
            body = installation()
        else:
            raise RequestError("usage", f"unknown op {op!r}")
        return _with_binding({"id": rid, "ok": True, **body})
    except RequestError as exc:
        return _with_binding({"id": rid, "ok": False, "error": exc.fields})
    except (Exception, SystemExit) as exc:
        return {"id": rid, "ok": False,
                "error": RequestError("internal", f"{type(exc).__name__}: {exc}", tb=format_exc(exc)).fields}


def _with_binding(response):
    """Tells the run which target this process serves from now on, if it is bound: the run
    gives it that target's requests first (docs/frontend-protocol.md)."""
    if PROCESS.served is not None:
        response["worker_target"] = PROCESS.served
    return response


def _import_triton(warm_up_now=False):
    """The hello: imports Triton and the adapter (once per process). Warms up in a thread,
    or now with `warm_up_now` (a zygote: no thread may run when it forks)."""
    global A, config_hooks, _EXCLUDED
    hello = {"event": "hello", "protocol": PROTOCOL, "pid": os.getpid(), "python": sys.executable,
             "python_version": platform.python_version(), "triton_version": None, "triton_dir": None,
             "toolchain_files": [], "import_error": None}
    try:
        import triton
        hello["triton_version"] = getattr(triton, "__version__", None)
        hello["triton_dir"] = os.path.dirname(os.path.abspath(triton.__file__))
        sys.path.insert(0, WORKER_DIR)
        import triton_adapter
        import target_driver
        import torch_answers
        import config_hooks as hooks
        A, config_hooks = triton_adapter, hooks
        hello["toolchain_files"] = A.toolchain_files([os.path.abspath(__file__),
                                                      os.path.abspath(target_driver.__file__),
                                                      os.path.abspath(torch_answers.__file__),
                                                      os.path.abspath(hooks.__file__)])
        if warm_up_now:
            _warm_up()
        else:
            _WARM_UP.start()
    except Exception as exc:
        hello["import_error"] = f"{exc}" if isinstance(exc, ImportError) else f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
    # Kernel files must not import from here (Python put the script's directory first).
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != os.path.realpath(WORKER_DIR)]
    _EXCLUDED = _excluded_roots() + ([os.path.realpath(hello["triton_dir"])] if hello["triton_dir"] else [])
    hello["site_dirs"] = site_dirs()
    if WARMED_UP:
        hello["warmed_up"] = WARMED_UP
    return hello


def _report_ends(tap):
    """Makes os._exit() in this process say where it was called before it ends the process, on
    the run's stderr (not through the tap's thread, which would not get to forward it): the run
    then names a kernel module that ended its worker as such, not as a crash of Triton
    (compiler/worker.cpp, crashFailure). Forked children (multiprocessing) exit quietly.
    And SIGUSR1 prints every thread's Python stack: the run sends it to a worker stuck past
    --compile-timeout before killing it, to say where it was stuck."""
    import faulthandler
    import signal
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # on fd 2: the tap
    real_exit, worker_pid = os._exit, os.getpid()

    def _exit(status):
        if os.getpid() == worker_pid:
            caller = sys._getframe(1)
            try:
                tap.sync()
                os.write(tap.stderr_fd, (f"triton-aot: os._exit({status}) at "
                                         f"{caller.f_code.co_filename}:{caller.f_lineno}\n").encode())
            except Exception:
                pass
        real_exit(status)

    os._exit = _exit


def serve(tap, hello, greet=True, pending=None):
    """Answers requests until EOF (or until the run that sent them is gone); `pending`, a
    request handed over by the process this one replaced, first."""
    fds = (tap.proto_in.fileno(), tap.proto_out.fileno(), tap.stderr_fd)
    try:
        if greet:
            tap.send(hello)
        for line in itertools.chain([pending] if pending else [], tap.proto_in):
            if not line.strip():
                continue
            try:
                response = handle(line, tap, hello["import_error"])
            except FreshProcess:
                tap.sync()
                PROCESS.exec_fresh(fds, greet=False, pending=line)
            try:
                tap.send(response)
            except (TypeError, ValueError) as exc:  # not JSON-serialisable: a worker bug
                tap.send({"id": response.get("id"), "ok": False,
                          "error": RequestError("internal", f"unserialisable response: {exc}").fields})
            if PROCESS.fresh_start_after_reply:
                tap.sync()
                PROCESS.exec_fresh(fds, greet=False)
    except OSError:
        pass  # a pool lease whose run was interrupted


def main(resume=None, pending=None):
    tap = StderrTap(*(resume or (os.dup(0), os.dup(1), os.dup(2))))
    _report_ends(tap)
    serve(tap, _import_triton(), greet=resume is None, pending=pending)
    tap.sync()
    return 0


# ---------------------------------------------------------------------------------------------
# Pool workers (worker_pool.py): the same requests, served lease after lease with the imports
# kept. A lease is the three fds a worker spawned by the run would have had as stdin, stdout
# and stderr; EOF on the first ends it.


def _installed_module_stamps():
    """(mtime, size) of every imported file that is not the project's (Triton, torch, packages)."""
    stamps = {}
    for module in list(sys.modules.values()):
        path = _module_file(module)
        if path and not is_project_file(path):
            try:
                st = os.stat(path)
                stamps[path] = (st.st_mtime_ns, st.st_size)
            except OSError:
                stamps[path] = None
    return stamps


def _stale(stamps):
    """A package was upgraded or edited since it was imported: its old code is still loaded."""
    for path, stamp in stamps.items():
        try:
            st = os.stat(path)
            if (st.st_mtime_ns, st.st_size) != stamp:
                return True
        except OSError:
            if stamp is not None:
                return True
    return False


def _next_lease(control):
    """The next lease's fds, after taking its run's working directory and environment."""
    import socket
    message, fds, _, _ = socket.recv_fds(control, 1 << 16, 3)
    try:
        if not message.startswith(b"lease 1 ") or len(fds) != 3:
            raise ValueError("not a lease")
        settings = json.loads(message[len(b"lease 1 "):])
        os.chdir(settings["cwd"])
        os.environ.update({str(k): str(v) for k, v in settings["environment"].items()})
        _namers.clear()  # another run: its files may resolve differently
    except (ValueError, KeyError, TypeError, OSError):
        for fd in fds:
            os.close(fd)
        return None
    return fds


def pool_worker(control_fd, lease, greet=True, pending=None, imported_stamps=None):
    """Serves leases until retired. `imported_stamps`: those of the modules a zygote imported
    before forking this worker (they were loaded then, not now)."""
    import socket
    control = socket.socket(fileno=control_fd)
    PROCESS.control_fd = control_fd
    quiet = os.open(os.devnull, os.O_WRONLY)
    if lease is None:
        lease = _next_lease(control)
        if lease is None:
            return 0
    if imported_stamps is not None and _stale(imported_stamps):
        PROCESS.exec_fresh(lease, greet=True)  # Triton upgraded since the zygote imported it
    tap = StderrTap(*lease)
    _report_ends(tap)
    hello = _import_triton()
    stamps = {**_installed_module_stamps(), **(imported_stamps or {})}
    while True:
        serve(tap, hello, greet, pending)
        greet, pending = True, None
        stamps.update(_installed_module_stamps())
        # Idle before the lease's fds close: the run waits for that EOF before it exits, so the
        # pool knows this worker is free before the build's next run can ask for one. A bound
        # worker says for which target, so the pool gives it runs for that target first.
        bound = json.dumps(PROCESS.served, separators=(",", ":")) if PROCESS.served else ""
        try:
            control.sendall(f"idle {bound}\n".encode())
        except OSError:
            return 0
        tap.detach(os.dup(quiet))
        try:
            lease = _next_lease(control)
        except OSError:
            lease = None
        if lease is None:
            return 0  # the pool retired us, or is gone
        if _stale(stamps):
            PROCESS.exec_fresh(lease, greet=True)
        tap.attach(*lease)


# ---------------------------------------------------------------------------------------------
# The zygote (docs/frontend-protocol.md, "Workers forked from a zygote"): one process imports
# Triton, and workers are forked from it, warm, instead of each interpreter importing Triton
# (sixteen side by side took 0.5 s where one takes 0.3). A run sends "fork 1\n" with the three
# fds a spawned worker would have had; the worker pool sends "pool 1\n" with a pool worker's
# control socket, and is told "forked <pid>\n". Each worker is forked twice over, so that it is
# orphaned at once and becomes the child of whoever started the zygote (a child subreaper),
# which waits for it, kills it and reads how it ended as for a worker it started itself. EOF on
# the socket ends the zygote.

FORK = b"fork 1\n"
WARMED_UP = []  # the targets this process's zygote compiled for before forking it (its hello says)
FORK_POOL_WORKER = b"pool 1\n"
READY = b"ready\n"  # a zygote that warmed up says so when it has (worker_pool.py, prepare)
_REAL_EXIT = os._exit  # a forked worker's end is no os._exit() of a kernel's (_report_ends)


def zygote(control_fd, warm_up_targets=None):
    """`warm_up_targets` (a prepared pool's, which nothing waits for): a compile for each
    first (warm_up.py). A run's zygote leaves Triton's first-compile setup to its workers:
    done here before the first fork (0.2 s on the GPU host) it delayed every worker more than
    it saved the first compiles."""
    global WARMED_UP
    import socket
    control = socket.socket(fileno=control_fd)
    hello = _import_triton(warm_up_now=True)
    if warm_up_targets:
        if not hello["import_error"]:
            WARMED_UP = _warm_up_for(warm_up_targets, control)
        try:
            control.sendall(READY)  # the pool forks its prepared workers now
        except OSError:
            return 0
    imported_stamps = _installed_module_stamps()
    import gc
    gc.collect()
    gc.freeze()  # the collector of a worker then never touches (and copies) what it inherited
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 256, 3)
        except OSError:
            return 0
        if not message and not fds:
            return 0  # the run (or the pool) is done
        if message == FORK and len(fds) == 3:
            become = functools.partial(forked_worker, fds, hello)
        elif message == FORK_POOL_WORKER and len(fds) == 1:
            become = functools.partial(forked_pool_worker, fds[0], imported_stamps)
        else:
            for fd in fds:
                os.close(fd)
            continue
        middle = os.fork()
        if middle == 0:
            try:
                worker = os.fork()
                if worker == 0:
                    control.close()
                    become()
                if message == FORK_POOL_WORKER:
                    control.sendall(f"forked {worker}\n".encode())
            finally:
                _REAL_EXIT(0)
        for fd in fds:
            os.close(fd)
        os.waitpid(middle, 0)  # once it is gone, the worker is the run's (the pool's) child


def _warm_up_for(targets, control):
    """warm_up.compile_for(targets), stopped by a fork asked for meanwhile (a build's: it
    waits for one compile at most); the targets warmed up for, [] when it fails."""
    import select
    sys.path.insert(0, WORKER_DIR)
    try:
        import warm_up
        return warm_up.compile_for(targets, lambda: bool(select.select([control], [], [], 0)[0]))
    except Exception:
        return []  # the workers' first compiles set up what it did not
    finally:
        sys.path.remove(WORKER_DIR)


def forked_worker(fds, hello):
    """A worker forked by the zygote: serves the run on `fds` as a spawned worker serves its
    stdin, stdout and stderr."""
    try:
        tap = StderrTap(*fds)
        _report_ends(tap)
        serve(tap, dict(hello, pid=os.getpid()))
        tap.sync()
    finally:
        _REAL_EXIT(0)


def forked_pool_worker(control_fd, imported_stamps):
    """A pool worker forked by the pool's zygote: as one the pool started as an interpreter."""
    try:
        pool_worker(control_fd, None, imported_stamps=imported_stamps)
    finally:
        _REAL_EXIT(0)


def _fds(text):
    return [int(fd) for fd in text.split(",")] if text else None


if __name__ == "__main__":
    def option(name):
        return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None
    PROCESS.python = option("--python") or sys.executable
    handed_over = _pending_request(int(option("--pending"))) if option("--pending") else None
    if option("--zygote"):
        warm_up_targets = json.loads(option("--warm-up")) if option("--warm-up") else None
        sys.exit(zygote(int(option("--zygote")), warm_up_targets))
    if option("--pool-worker"):
        resume = _fds(option("--resume"))
        sys.exit(pool_worker(int(option("--pool-worker")), resume or _fds(option("--lease")),
                             greet=resume is None, pending=handed_over))
    sys.exit(main(_fds(option("--resume")), handed_over))
