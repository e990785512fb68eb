"""A @triton.heuristics value written as a function of several statements, as one expression.

Real projects write heuristics as `def`s with local variables, if/elif/else chains, calls to
other such functions and loops (FlagGems' tile sizes: a `while` doubling a tile until the grid
fills the GPU's SMs). The compiler translates single expressions (contract/heuristic_expr.h), so
the body is executed symbolically here, in the worker, into the expression it computes:

- a local variable stands for the expression last assigned to it (augmented assignments too);
- `if` on a condition known here takes its branch; otherwise both branches are followed to their
  returns and joined with `a if c else b` (the statements after the `if` are followed on both);
- `while` is unrolled: each iteration is an `if` on its condition, `break` and `continue` end it;
  a loop whose condition is still not known false after MAX_ITERATIONS is refused;
- a call of a module-level or closure function of one parameter with the same args (`helper(args)`)
  is inlined;
- what reads neither the arguments nor a local that does (module constants, `torch.cuda`'s
  device properties, which the worker answers for the target being built) is evaluated here,
  with Python, and becomes its value.

Anything else raises Untranslatable naming the construct and its line. The expression keeps
Python's meaning: it is evaluated by the same rules when it is turned into C.
"""
import ast
import copy

MAX_ITERATIONS = 64      # a loop unrolled further is refused
MAX_INLINE_DEPTH = 8     # helper(args) calls within helper calls
MAX_NODES = 20000        # the joined expression, before it is refused as too large


class Untranslatable(Exception):
    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line
        self.in_helper = False   # the message already names the helper it is in


class _LoopBack:
    """The end of a loop body: run the innermost loop's test again."""


def _is_const(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float))


def _upper_bound(node):
    """A number the expression never exceeds, where the expression says so itself (a constant,
    min() with a constant), or None."""
    if _is_const(node):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min":
        bounds = [b for b in map(_upper_bound, node.args) if b is not None]
        return min(bounds) if bounds else None
    return None


def _lower_bound(node):
    if _is_const(node):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "max":
        bounds = [b for b in map(_lower_bound, node.args) if b is not None]
        return max(bounds) if bounds else None
    return None


def _known_truth(node):
    """True or False where the condition is decided without the arguments, else None."""
    if _is_const(node):
        return bool(node.value)
    if isinstance(node, ast.BoolOp):
        truths = [_known_truth(v) for v in node.values]
        if isinstance(node.op, ast.And):
            if False in truths:
                return False
            return True if all(t is True for t in truths) else None
        if True in truths:
            return True
        return False if all(t is False for t in truths) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _known_truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right, op = node.left, node.comparators[0], node.ops[0]
        # c <= min(x, d) with c > d, c > min(...) with c >= its bound, and mirrored.
        if isinstance(op, (ast.LtE, ast.Lt)) and _is_const(left):
            bound = _upper_bound(right)
            if bound is not None and (left.value > bound or (isinstance(op, ast.Lt) and left.value >= bound)):
                return False
        if isinstance(op, (ast.GtE, ast.Gt)) and _is_const(right):
            bound = _upper_bound(left)
            if bound is not None and (right.value > bound or (isinstance(op, ast.Gt) and right.value >= bound)):
                return False
        if isinstance(op, (ast.Gt, ast.GtE)) and _is_const(left):
            bound = _lower_bound(right)
            if bound is not None and (left.value < bound or (isinstance(op, ast.Gt) and left.value <= bound)):
                return False
    return None


def namespace_of(fn):
    """The names `fn` reads: its module's globals and its closure's cells (an empty cell left
    out)."""
    names = dict(getattr(fn, "__globals__", {}))
    closure = getattr(fn, "__closure__", None) or ()
    for name, cell in zip(fn.__code__.co_freevars, closure):
        try:
            names[name] = cell.cell_contents
        except ValueError:
            pass
    return names


def _choose(test, body, orelse):
    """`body if test else orelse`, or the one of them when both are the same."""
    if ast.dump(body) == ast.dump(orelse):
        return body
    return ast.IfExp(test=test, body=body, orelse=orelse)


def _drop_satisfied_bounds(node):
    """c <= min(x, d) with d >= c is c <= x (and x >= ... mirrored): what a loop's test over a
    bounded variable becomes once unrolled, kept short."""
    if len(node.ops) != 1:
        return node
    op, left, right = node.ops[0], node.left, node.comparators[0]
    if isinstance(op, (ast.LtE, ast.Lt)) and _is_const(left):
        bounded, limit, strict = right, left.value, isinstance(op, ast.Lt)
    elif isinstance(op, (ast.GtE, ast.Gt)) and _is_const(right):
        bounded, limit, strict = left, right.value, isinstance(op, ast.Gt)
    else:
        return node
    if not (isinstance(bounded, ast.Call) and isinstance(bounded.func, ast.Name)
            and bounded.func.id == "min"):
        return node
    kept = [a for a in bounded.args
            if not (_is_const(a) and (a.value > limit or (not strict and a.value == limit)))]
    if not kept or len(kept) == len(bounded.args):
        return node
    bounded = kept[0] if len(kept) == 1 else ast.Call(func=bounded.func, args=kept, keywords=[])
    if isinstance(op, (ast.LtE, ast.Lt)):   # c <= min(...): the bound is on the right
        node.comparators = [bounded]
    else:
        node.left = bounded
    return node


class Flattener:
    """flatten(fn, node) -> the ast expression a function of one parameter returns."""

    def __init__(self, fn, node, find_source, depth=0):
        self.fn, self.node, self.depth, self.find_source = fn, node, depth, find_source
        self.arg = node.args.args[0].arg
        self.globals = namespace_of(fn)

    # -- expressions ------------------------------------------------------------------------
    def _reads_arguments(self, node):
        return any(isinstance(n, ast.Name) and n.id == self.arg for n in ast.walk(node))

    def _evaluate_here(self, node):
        """The value of an expression that reads no argument, as an ast constant, or None."""
        try:
            value = eval(compile(ast.fix_missing_locations(ast.Expression(copy.deepcopy(node))),
                                 "<heuristic>", "eval"), dict(self.globals))
        except Exception:  # noqa: BLE001 - anything Python cannot evaluate stays symbolic
            return None
        if isinstance(value, (bool, int, float)):
            return ast.Constant(value)
        return None

    def expr(self, node, env):
        """`node` with locals replaced by their expressions, helper calls inlined and whatever
        reads no argument evaluated."""
        node = ArgsGet(self.arg).visit(copy.deepcopy(node))
        node = _Substitute(self, env).visit(node)
        return self.fold(node)

    def fold(self, node):
        if not self._reads_arguments(node):
            value = self._evaluate_here(node)
            if value is not None:
                return ast.copy_location(value, node)
        if isinstance(node, ast.BinOp):
            node.left, node.right = self.fold(node.left), self.fold(node.right)
        elif isinstance(node, ast.BoolOp):
            node.values = [self.fold(v) for v in node.values]
            truth = _known_truth(node)
            if truth is not None:
                return ast.Constant(truth)
        elif isinstance(node, ast.Compare):
            node.left = self.fold(node.left)
            node.comparators = [self.fold(c) for c in node.comparators]
            truth = _known_truth(node)
            if truth is not None:
                return ast.Constant(truth)
            return _drop_satisfied_bounds(node)
        elif isinstance(node, ast.IfExp):
            node.test = self.fold(node.test)
            truth = _known_truth(node.test)
            if truth is not None:
                return self.fold(node.body if truth else node.orelse)
            node.body, node.orelse = self.fold(node.body), self.fold(node.orelse)
            if ast.dump(node.body) == ast.dump(node.orelse):   # the same either way
                return node.body
        elif isinstance(node, ast.Call):
            node.args = [self.fold(a) for a in node.args]
        elif isinstance(node, ast.UnaryOp):
            node.operand = self.fold(node.operand)
        return node

    def inline_call(self, call):
        """helper(args): the expression the helper returns, or None when `call` is not one."""
        if not (isinstance(call.func, ast.Name) and len(call.args) == 1 and not call.keywords
                and isinstance(call.args[0], ast.Name) and call.args[0].id == self.arg):
            return None
        helper = self.globals.get(call.func.id)
        code = getattr(helper, "__code__", None)
        if code is None or code.co_argcount != 1 or helper is self.fn:
            return None
        if self.depth >= MAX_INLINE_DEPTH:
            raise Untranslatable(f"calls nest deeper than {MAX_INLINE_DEPTH} functions",
                                 call.lineno)
        node = self.find_source(helper)
        if node is None or not isinstance(node, (ast.FunctionDef, ast.Lambda)):
            raise Untranslatable(f"the source of '{call.func.id}' cannot be found", call.lineno)
        inner = Flattener(helper, node, self.find_source, self.depth + 1)
        try:
            result = inner.flatten()
        except Untranslatable as exc:
            # Named where it is (the innermost helper and its line), located at this call.
            message = str(exc) if exc.in_helper else \
                f"{exc} in '{call.func.id}'" + (f" (line {exc.line})" if exc.line else "")
            raised = Untranslatable(message, call.lineno)
            raised.in_helper = True
            raise raised from None
        # The helper's parameter is this function's: rename it.
        return _Rename(inner.arg, self.arg).visit(result)

    # -- statements -------------------------------------------------------------------------
    def flatten(self):
        if isinstance(self.node, ast.Lambda):
            return self.expr(self.node.body, {})
        body = [s for s in self.node.body
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        result = self.run(body, {}, [])
        if sum(1 for _ in ast.walk(result)) > MAX_NODES:
            raise Untranslatable("the expression it computes is too large to translate",
                                 self.node.lineno)
        return result

    def run(self, statements, env, loops):
        """The expression returned from `statements` on, with `env` the locals' expressions and
        `loops` the enclosing loops' (loop, statements after it, iteration) innermost last."""
        env = dict(env)
        for index, st in enumerate(statements):
            rest = statements[index + 1:]
            if isinstance(st, _LoopBack):   # the body ran to its end: the loop's test again
                loop, after, iteration = loops[-1]
                return self.loop(loop, after, env, loops[:-1], iteration + 1)
            if isinstance(st, ast.Pass):
                continue
            if isinstance(st, ast.Return):
                if st.value is None:
                    raise Untranslatable("a 'return' without a value", st.lineno)
                return self.expr(st.value, env)
            if isinstance(st, ast.Assign):
                if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
                    raise Untranslatable("an assignment to something other than one name", st.lineno)
                env[st.targets[0].id] = self.expr(st.value, env)
                continue
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value:
                env[st.target.id] = self.expr(st.value, env)
                continue
            if isinstance(st, ast.AugAssign):
                if not isinstance(st.target, ast.Name) or st.target.id not in env:
                    raise Untranslatable("an augmented assignment to an unassigned name", st.lineno)
                value = ast.BinOp(left=ast.Name(st.target.id, ast.Load()), op=st.op, right=st.value)
                env[st.target.id] = self.expr(ast.copy_location(value, st), env)
                continue
            if isinstance(st, ast.If):
                test = self.expr(st.test, env)
                truth = _known_truth(test)
                if truth is not None:
                    return self.run((st.body if truth else st.orelse) + rest, env, loops)
                return _choose(test, self.run(st.body + rest, env, loops),
                               self.run(st.orelse + rest, env, loops))
            if isinstance(st, ast.While):
                if st.orelse:
                    raise Untranslatable("a 'while' with an 'else'", st.lineno)
                return self.loop(st, rest, env, loops, 0)
            if isinstance(st, ast.Break):
                if not loops:
                    raise Untranslatable("'break' outside a loop", st.lineno)
                _, after, _ = loops[-1]
                return self.run(after, env, loops[:-1])
            if isinstance(st, ast.Continue):
                if not loops:
                    raise Untranslatable("'continue' outside a loop", st.lineno)
                loop, after, iteration = loops[-1]
                return self.loop(loop, after, env, loops[:-1], iteration + 1)
            raise Untranslatable(f"the statement '{type(st).__name__}'"
                                 f" ({ast.unparse(st).splitlines()[0][:60]})", st.lineno)
        raise Untranslatable("a path through it ends without a 'return'", self.node.lineno)

    def loop(self, loop, after, env, loops, iteration):
        if iteration > MAX_ITERATIONS:
            raise Untranslatable(f"its loop is not known to end within {MAX_ITERATIONS} "
                                 "iterations", loop.lineno)
        test = self.expr(loop.test, env)
        truth = _known_truth(test)
        if truth is False:
            return self.run(after, env, loops)
        body = loop.body + [_LoopBack()]
        taken = self.run(body, env, loops + [(loop, after, iteration)])
        if truth is True:
            return taken
        return _choose(test, taken, self.run(after, env, loops))


class _Substitute(ast.NodeTransformer):
    def __init__(self, flattener, env):
        self.flattener, self.env = flattener, env

    def visit_Name(self, node):
        if node.id in self.env:
            return copy.deepcopy(self.env[node.id])
        return node

    def visit_Call(self, node):
        inlined = self.flattener.inline_call(node)
        if inlined is not None:
            return inlined
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        # The translator cannot read an argument's attribute or method (args["x"].dtype,
        # args.get(...), K.bit_length() with K a local over args): refused here, where the
        # statement's line is known, rather than in the joined expression, which has none.
        written = ast.unparse(node)
        self.generic_visit(node)
        if self.flattener._reads_arguments(node.value):
            raise Untranslatable(f"attribute access on an argument ('{written}')", node.lineno)
        return node


class _Rename(ast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old:
            node.id = self.new
        return node


class ArgsGet(ast.NodeTransformer):
    """args.get("NAME") and args.get("NAME", default) read as args["NAME"]: Triton's args hold
    every parameter of the kernel, so the default is never taken for one (and a name that is no
    parameter is then refused by the compiler, naming it)."""

    def __init__(self, arg):
        self.arg = arg

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Name)
                and func.value.id == self.arg and 1 <= len(node.args) <= 2 and not node.keywords
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            return ast.copy_location(ast.Subscript(value=func.value, slice=node.args[0], ctx=ast.Load()), node)
        return node


def flatten(fn, node, find_source):
    """The expression (ast) the heuristic function `fn` (its source `node`) returns;
    `find_source(f)` is the ast node of another function's source, for the helpers it calls."""
    return ast.fix_missing_locations(Flattener(fn, node, find_source).flatten())
