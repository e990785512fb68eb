"""Which pointer and tensor-descriptor parameters a compiled kernel writes through.

Read from the kernel's TTIR text (every @triton.jit helper is inlined there): a value that is
computed from a parameter carries the parameter; an op that stores, updates atomically or calls
out through a value carrying it writes it. The answer may say "written" where the kernel never
writes (a pointer carried around a loop beside one it stores through), never the other way
round: a PyTorch op schema built from it must not call a written tensor read-only. When the
text cannot be read, the answer is empty (unknown, which readers take as written).
"""

import re

_VALUE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
_DEFS = re.compile(r"^\s*((?:%[\w$.\-]+(?::\d+)?)(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*)\s*=\s*(\S+)")
_LOC = re.compile(r"\s*loc\((?:[^()\"]|\"[^\"]*\"|\((?:[^()]|\([^()]*\))*\))*\)")
_BLOCK_ARGS = re.compile(r"^\s*\^bb\d+\((.*)\)\s*:\s*$")

# Ops that write through their first operand (the destination) and nothing else.
_WRITE_FIRST = {"tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_store",
                "tt.descriptor_reduce", "tt.descriptor_scatter", "tt.experimental_descriptor_store"}
# Ops whose results are read from memory: a pointer loaded from memory may point anywhere.
_READS = {"tt.load", "tt.descriptor_load", "tt.descriptor_gather", "tt.experimental_descriptor_load"}
# Ops without results that write nothing.
_NO_WRITE = {"tt.return", "scf.yield", "scf.condition", "tt.assert", "tt.print",
             "tt.reduce.return", "tt.scan.return", "gpu.barrier", "llvm.intr.assume",
             "ttg.barrier", "tt.map_elementwise.return"}


def _base(value):
    return value.split("#")[0].split(":")[0]


def _split_top(text):
    """Splits at the commas outside brackets and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _function_args(header):
    """[(ssa name, type)] of a `tt.func public @f(...)` line."""
    open_at = header.index("(")
    depth, end = 0, None
    for i in range(open_at, len(header)):
        if header[i] == "(":
            depth += 1
        elif header[i] == ")":
            depth -= 1
            if depth == 0:
                end = i
                break
    if end is None:
        return None
    args = []
    for part in _split_top(header[open_at + 1:end]):
        m = re.match(r"(%[\w$.\-]+)\s*:\s*(.*)", part)
        if not m:
            return None
        args.append((m.group(1), m.group(2)))
    return args


class _Region:
    """An op with regions, open while its body is read."""

    def __init__(self, op, results, carried, inits):
        self.op = op               # "scf.for", "scf.if", "scf.while", or another op's name
        self.results = results     # its result values, in order (base names)
        self.carried = carried     # scf.for / scf.while: the block arguments the inits feed
        self.inits = inits
        self.passed = []           # scf.while: what its scf.condition passes to `do`
        self.in_after = False
        self.inits_taint = frozenset()   # another op's regions: what all its operands carry


def _first_operand(rest):
    m = _VALUE.search(rest)
    return _base(m.group(0)) if m else None


def param_writes(ttir):
    """[written?] for the public kernel's pointer and tensordesc arguments of `ttir` (TTIR
    text), in argument order; None when it cannot be read. (By position: a value's location
    name is the Python variable it was last bound to, not always the parameter's name.)"""
    lines = ttir.splitlines()
    start = next((i for i, line in enumerate(lines) if re.search(r"\btt\.func\s+public\b", line)), None)
    if start is None:
        return None
    args = _function_args(lines[start])
    if args is None:
        return None
    params = [ssa for ssa, type_ in args if type_.startswith(("!tt.ptr", "!tt.tensordesc"))]
    everything = frozenset(params)
    taint = {ssa: frozenset([ssa]) for ssa in params}
    body = []
    depth = 0
    for line in lines[start + 1:]:
        depth += line.count("{") - line.count("}")
        if depth < 0:
            break
        body.append(line)

    written = set()
    # Loops feed values back to their start: read until nothing new is learnt.
    for _ in range(64):
        before = (dict(taint), set(written))
        _pass(body, taint, written, everything)
        if (taint, written) == before:
            break
    else:
        return None
    return [ssa in written for ssa in params]


def _of(taint, values):
    out = frozenset()
    for v in values:
        out |= taint.get(_base(v), frozenset())
    return out


def _result_at(results, k):
    """The k-th result: `%r:2 = ...` names all of them `%r` (used as %r#0, %r#1)."""
    if not results:
        return None
    return results[k] if len(results) > 1 else results[0]


def _add(taint, name, more):
    if more and name is not None:
        taint[name] = taint.get(name, frozenset()) | more


def _pass(body, taint, written, everything):
    stack = []
    for line in body:
        code = _LOC.sub("", line).rstrip()
        stripped = code.strip()
        if stripped.startswith("}"):
            if stack and (stripped.startswith("} do {") and stack[-1].op == "scf.while"):
                stack[-1].in_after = True
                continue
            if stripped.startswith("} else {"):
                continue
            if stack:
                stack.pop()
            continue
        block = _BLOCK_ARGS.match(code)
        if block:
            names = [_base(p.split(":")[0].strip()) for p in _split_top(block.group(1))]
            region = stack[-1] if stack else None
            if region is not None and region.op == "scf.while" and region.in_after:
                for v, a in zip(region.passed, names):   # what scf.condition passed on
                    _add(taint, a, _of(taint, [v]))
            elif region is not None and region.op not in ("scf.for", "scf.if", "scf.while"):
                for n in names:   # another op's region: its block args carry all its operands
                    _add(taint, n, region.inits_taint)
            continue
        defs_match = _DEFS.match(code)
        if defs_match:
            results = _results(defs_match.group(1))
            op = defs_match.group(2)
            rest = code[defs_match.end():]
        else:
            results = []
            parts = stripped.split(None, 1)
            if not parts:
                continue
            op = parts[0]
            rest = parts[1] if len(parts) > 1 else ""
        op = op.split("(")[0]
        opens = code.endswith("{")
        if op == "scf.for":
            pairs = _iter_args(rest)
            carried = [c for c, _ in pairs]
            inits = [i for _, i in pairs]
            for k, (c, i) in enumerate(pairs):
                _add(taint, c, _of(taint, [i]))
                _add(taint, _result_at(results, k), _of(taint, [i]))
            region = _Region(op, results, carried, inits)
        elif op == "scf.while":
            pairs = _iter_args("iter_args" + rest[rest.index("("):]) if "(" in rest else []
            carried = [c for c, _ in pairs]
            for c, i in pairs:
                _add(taint, c, _of(taint, [i]))
            region = _Region(op, results, carried, [i for _, i in pairs])
        elif op == "scf.if":
            region = _Region(op, results, [], [])
        elif op in ("scf.yield", "scf.condition"):
            values = _VALUE.findall(rest)
            region = stack[-1] if stack else None
            if region is None:
                continue
            if op == "scf.condition":   # scf.condition(%cond) %passed, ... : types
                passed = re.match(r"scf\.condition\s*\([^)]*\)(.*)", stripped)
                values = _VALUE.findall(passed.group(1)) if passed else []
                for k, v in enumerate(values):
                    _add(taint, _result_at(region.results, k), _of(taint, [v]))
                region.passed = values
            elif region.op == "scf.for":
                for k, (v, c) in enumerate(zip(values, region.carried)):
                    _add(taint, c, _of(taint, [v]))
                    _add(taint, _result_at(region.results, k), _of(taint, [v]))
            elif region.op == "scf.if":
                for k, v in enumerate(values):
                    _add(taint, _result_at(region.results, k), _of(taint, [v]))
            elif region.op == "scf.while":
                for v, c in zip(values, region.carried):
                    _add(taint, c, _of(taint, [v]))
            else:
                for r in region.results:
                    _add(taint, r, _of(taint, values))
            continue
        else:
            operands = _VALUE.findall(rest)
            carried = _of(taint, operands)
            if op in _WRITE_FIRST:
                dest = _first_operand(rest)
                written.update(taint.get(dest, frozenset()) if dest else everything)
            elif op in _READS or op == "tt.int_to_ptr":
                # What memory holds may point anywhere, a parameter's memory included.
                # (A load prints its pointer's type: pointers to pointers load pointers.)
                loads_pointers = "!tt.ptr<!tt.ptr" in rest or "!tt.ptr<tensor<" in rest
                carried = everything if loads_pointers or op == "tt.int_to_ptr" else frozenset()
            elif op.startswith("tt.atomic") or "store" in op or op == "tt.call" or \
                    op == "tt.elementwise_inline_asm" or (not results and op not in _NO_WRITE and not opens):
                written.update(carried)   # an op we do not know that may write: all it is given
            for r in results:
                _add(taint, r, carried)
            region = _Region(op, results, [], operands)
            region.inits_taint = carried
        if opens:
            stack.append(region)


def _results(lhs):
    out = []
    for part in lhs.split(","):
        out.append(_base(part.strip()))
    return out


def _iter_args(rest):
    """[(block argument, initial value)] of `iter_args(%a = %x, %b = %y)` (or a while's `(...)`)."""
    at = rest.find("iter_args(")
    if at < 0:
        return []
    inner = rest[at + len("iter_args("):]
    depth, end = 1, len(inner)
    for i, ch in enumerate(inner):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                end = i
                break
    pairs = []
    for part in _split_top(inner[:end]):
        m = re.match(r"(%[\w$.\-]+)\s*=\s*(%[\w$.\-]+(?:#\d+)?)", part)
        if m:
            pairs.append((_base(m.group(1)), m.group(2)))
    return pairs
