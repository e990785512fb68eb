"""The torch-free half of equality.py: a generated library opened with ctypes and described by
its own manifest (docs/generated-api.md, docs/linker.md "The manifest").

- Library: <prefix>_manifest(), <prefix>_<kernel>_config() bound with the exact C type of each
  parameter, <prefix>_last_error().
- eval_grid(): the manifest's grid expressions (a C subset, contract/grid.h) evaluated as the
  generated dispatcher does, in 64-bit integers with C division.
- chosen_variant(): the hint variant the dispatcher launches for given arguments.
- jit_hints() / specialization_difference(): what Triton's JIT specialized, against a variant.
- format_table(): the summary table of a run's rows.
"""
import ctypes
import json
import os
import re

# Triton scalar type -> ctypes type of the C API (fp16 / bf16 travel as their bit pattern).
_SCALAR_CTYPES = {
    "i1": ctypes.c_bool, "u1": ctypes.c_bool,
    "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
    "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
    "fp16": ctypes.c_uint16, "bf16": ctypes.c_uint16,
    "fp32": ctypes.c_float, "f32": ctypes.c_float, "fp64": ctypes.c_double,
}


def ctype_of(param):
    """The ctypes type a manifest parameter is passed as. A host tensor descriptor X is several
    parameters (kind tensordesc: X_base, a pointer; tensordesc_shape / tensordesc_stride: int64)."""
    t = param["type"]
    if t.startswith("*") or param.get("kind") == "tensordesc":
        return ctypes.c_void_p
    if t not in _SCALAR_CTYPES:
        raise ValueError(f"parameter {param['name']}: no C type for Triton type '{t}'")
    ct = _SCALAR_CTYPES[t]
    if ctypes.sizeof(ct) != param["size"]:
        raise ValueError(f"parameter {param['name']} ({t}): the manifest passes {param['size']} "
                         f"bytes, ctypes {ct.__name__} has {ctypes.sizeof(ct)}")
    return ct


def fp16_bits(value):
    """The IEEE half bit pattern of value, which must be exactly representable."""
    import struct
    bits = struct.unpack("<H", struct.pack("<e", value))[0]
    if struct.unpack("<e", struct.pack("<H", bits))[0] != value:
        raise ValueError(f"{value!r} is not exactly representable in fp16")
    return bits


def bf16_bits(value):
    """The bfloat16 bit pattern of value, which must be exactly representable."""
    import struct
    bits32 = struct.unpack("<I", struct.pack("<f", value))[0]
    if bits32 & 0xFFFF or struct.unpack("<f", struct.pack("<I", bits32))[0] != value:
        raise ValueError(f"{value!r} is not exactly representable in bf16")
    return bits32 >> 16


def c_value(param, value):
    """A Python argument as the C API takes it: pointers as integers (data_ptr()), fp16/bf16
    scalars as bit patterns, every other scalar as its ctypes type. A descriptor's base is an
    integer too; its shapes and strides (names "X.shape0", "X.stride0") are ints."""
    t = param["type"]
    if t.startswith("*") or param.get("kind") == "tensordesc":
        return ctypes.c_void_p(value)
    if t == "fp16":
        return ctypes.c_uint16(fp16_bits(value))
    if t == "bf16":
        return ctypes.c_uint16(bf16_bits(value))
    return ctype_of(param)(value)


# ---------------------------------------------------------------------------------------------
# Grid expressions: integer literals, names, unary - + ! ~, binary * / % + - << >> < <= > >= ==
# != & ^ | && ||, ?:, parentheses, cdiv/min/max. Evaluated in int64 with C semantics.

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&^|!~?:(),]))")
_BINARY = [  # lowest precedence first
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("<<", ">>"),
    ("+", "-"), ("*", "/", "%"),
]


def _wrap64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _c_div(a, b):
    if b == 0:
        raise ZeroDivisionError("division by zero in a grid expression")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_binary(op, a, b):
    if op == "/":
        return _c_div(a, b)
    if op == "%":
        return a - b * _c_div(a, b)
    return {
        "||": lambda: int(bool(a) or bool(b)), "&&": lambda: int(bool(a) and bool(b)),
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
        "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b),
        "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b, "-": lambda: a - b,
        "*": lambda: a * b,
    }[op]()


class _GridParser:
    def __init__(self, text, names):
        self.tokens = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise ValueError(f"grid expression '{text}': cannot read '{text[pos:]}'")
            self.tokens.append(m.group(1) or m.group(2) or m.group(3))
            pos = m.end()
        self.pos = 0
        self.text = text
        self.names = names

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected=None):
        tok = self.peek()
        if tok is None or (expected and tok != expected):
            raise ValueError(f"grid expression '{self.text}': expected {expected or 'more'}, "
                             f"got {tok!r}")
        self.pos += 1
        return tok

    def parse(self):
        value = self.conditional()
        if self.peek() is not None:
            raise ValueError(f"grid expression '{self.text}': unexpected {self.peek()!r}")
        return value

    def conditional(self):
        cond = self.binary(0)
        if self.peek() != "?":
            return cond
        self.take("?")
        yes = self.conditional()
        self.take(":")
        no = self.conditional()
        return yes if cond else no

    def binary(self, level):
        if level == len(_BINARY):
            return self.unary()
        value = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            op = self.take()
            value = _wrap64(_c_binary(op, value, self.binary(level + 1)))
        return value

    def unary(self):
        tok = self.peek()
        if tok in ("-", "+", "!", "~"):
            self.take()
            v = self.unary()
            return _wrap64({"-": -v, "+": v, "!": int(not v), "~": ~v}[tok])
        return self.primary()

    def primary(self):
        tok = self.take()
        if tok == "(":
            v = self.conditional()
            self.take(")")
            return v
        if tok.isdigit():
            return _wrap64(int(tok))
        if re.match(r"[A-Za-z_]", tok):
            if self.peek() == "(":
                if tok not in ("cdiv", "min", "max"):
                    raise ValueError(f"grid expression '{self.text}': unknown function {tok}")
                self.take("(")
                a = self.conditional()
                self.take(",")
                b = self.conditional()
                self.take(")")
                if tok == "cdiv":
                    return _c_div(_wrap64(a + b - 1), b)
                return min(a, b) if tok == "min" else max(a, b)
            if tok not in self.names:
                raise ValueError(f"grid expression '{self.text}': unknown name {tok}")
            return _wrap64(int(self.names[tok]))
        raise ValueError(f"grid expression '{self.text}': unexpected {tok!r}")


def eval_grid(exprs, names):
    """(x, y, z) of the grid expressions given the values of parameters and constexprs."""
    return tuple(_GridParser(e, names).parse() for e in exprs)


# ---------------------------------------------------------------------------------------------
def _satisfies(hint, value):
    return value % 16 == 0 if hint == 16 else value == 1


def chosen_variant(config, args):
    """The variant of a manifest config the dispatcher launches: the first (most specialised)
    whose hints the arguments keep. args: parameter name -> int (pointers as addresses)."""
    for variant in config["variants"]:
        if all(_satisfies(h, int(args[name])) for name, h in variant["hints"].items()):
            return variant
    return None


def hints_text(hints):
    return ", ".join(f"{n}:{h}" for n, h in sorted(hints.items())) or "none"


def jit_hints(compiled_kernel, param_names):
    """The hints Triton's JIT compiled a kernel with: {name: 16} from its divisibility attributes,
    {name: 1} for arguments it made constants (an integer 1), and the types it gave."""
    src = compiled_kernel.src
    names = list(src.fn.arg_names)
    hints, types = {}, {}
    for path, attrs in src.attrs.items():
        if len(path) == 1 and any(a[0] == "tt.divisibility" and a[1] == 16 for a in attrs):
            hints[names[path[0]]] = 16
    for name, ty in src.signature.items():
        if name in param_names:
            if ty == "constexpr":
                hints[name] = 1
            else:
                types[name] = ty
    return hints, types


def specialization_difference(variant, manifest_params, jit_hint_map, jit_types):
    """Why Triton's JIT image differs from a library variant, as far as the specialisation goes:
    hints and types that differ ("" when they are the same)."""
    reasons = []
    lib = variant["hints"]
    for p in manifest_params:
        n = p["name"]
        if lib.get(n) != jit_hint_map.get(n):
            reasons.append(f"{n}: library {':' + str(lib[n]) if n in lib else 'no hint'}, "
                           f"JIT {':' + str(jit_hint_map[n]) if n in jit_hint_map else 'no hint'}")
        ty = jit_types.get(n)
        want = p["type"]
        if ty is not None and ty != want and not ({ty, want} <= {"i1", "u1"}):
            reasons.append(f"{n}: library {want}, JIT {ty}")
    return "; ".join(reasons)


class Library:
    """A generated shared library and its manifest."""

    def __init__(self, path, prefix=None):
        self.path = os.path.abspath(path)
        if prefix is None:
            base = os.path.basename(path).split(".")[0]
            prefix = base[3:] if base.startswith("lib") else base
        self.prefix = prefix
        self.dll = ctypes.CDLL(self.path)
        manifest_fn = self._fn("manifest", ctypes.c_char_p, [])
        self.manifest = json.loads(manifest_fn().decode())
        if self.manifest.get("schema") != "triton-aot-library":
            raise ValueError(f"{path}: {prefix}_manifest() is not a triton-aot library manifest")
        if self.manifest.get("schema_version", 0) > 1:
            raise ValueError(f"{path}: manifest schema_version {self.manifest['schema_version']} "
                             "is newer than this script reads (1)")
        self._last_error = self._fn("last_error", ctypes.c_char_p, [])
        self._entries = {}

    def _fn(self, name, restype, argtypes):
        symbol = f"{self.prefix}_{name}"
        try:
            fn = getattr(self.dll, symbol)
        except AttributeError:
            raise ValueError(f"{self.path} has no {symbol}() (wrong --prefix?)") from None
        fn.restype = restype
        fn.argtypes = argtypes
        return fn

    @property
    def kernels(self):
        return self.manifest["kernels"]

    def entry(self, kernel):
        """<prefix>_<kernel>_config(stream, config, [grid_x, grid_y, grid_z,] params...) with
        exact argument types (the grid when the caller passes it: the manifest's grid is null)."""
        name = kernel["name"]
        if name not in self._entries:
            grid = [ctypes.c_uint32] * 3 if kernel.get("grid") is None else []
            self._entries[name] = self._fn(
                f"{name}_config", ctypes.c_int,
                [ctypes.c_void_p, ctypes.c_int] + grid + [ctype_of(p) for p in kernel["params"]])
        return self._entries[name]

    def last_error(self):
        return (self._last_error() or b"").decode(errors="replace")

    def call(self, kernel, config_index, stream, args, grid=None):
        """Launches config config_index of kernel with args (name -> value) and, for a kernel
        whose caller passes the grid, grid (x, y, z); returns the status."""
        values = [c_value(p, args[p["name"]]) for p in kernel["params"]]
        if kernel.get("grid") is None:
            if grid is None:
                raise ValueError(f"kernel {kernel['name']} takes its grid from the caller")
            values = [ctypes.c_uint32(g) for g in grid] + values
        return self.entry(kernel)(ctypes.c_void_p(stream), config_index, *values)


def format_table(rows, columns):
    """Lines of a plain-text table of `rows` (dicts): `columns` is [(title, key)]; a missing
    value prints as "", columns are as wide as their widest cell, text left, numbers right."""
    def is_number(text):
        try:
            float(text)
            return True
        except ValueError:
            return False
    cells = [[title for title, _ in columns]]
    cells += [[str(row.get(key, "")) for _, key in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    numeric = [all(is_number(line[i]) or line[i] in ("", "n/a") for line in cells[1:])
               for i in range(len(columns))]
    out = []
    for n, line in enumerate(cells):
        out.append("  ".join(c.rjust(w) if num else c.ljust(w)
                             for c, w, num in zip(line, widths, numeric)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return out
