"""A @triton.autotune config's pre_hook, run at build time when all it does is set the block
shape of host tensor descriptors.

Triton runs a config's pre_hook in Python before every launch of that config. A C library cannot
run Python, but one kind of hook is common and needs none at launch: the one the persistent
matmul tutorial and Liger-Kernel's TMA kernels use, which sets `nargs["a_desc"].block_shape`
from the config's constexprs, so that the descriptor's box matches the config's tiles. Its
effect depends only on values a build has (constexprs, options), and the library encodes every
descriptor with the block shape its variant was compiled with. So the hook runs here, once per
compile, on stand-ins: descriptors that accept only `block_shape = [...]`, and arguments whose
any use (a tensor's `zero_()`, a size in a condition) stops the build with what the hook did.
"""


class HookNeedsLaunch(Exception):
    """The hook did something only a launch can: `what` says what."""

    def __init__(self, what):
        super().__init__(what)
        self.what = what


class DescriptorStandIn:
    """A host TensorDescriptor parameter, as a build-time hook sees it."""

    def __init__(self, name, block_shape):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "block_shape", list(block_shape))

    def __setattr__(self, attr, value):
        if attr != "block_shape":
            raise HookNeedsLaunch(f"sets {self._name}.{attr}")
        try:
            shape = [int(v) for v in value]
        except (TypeError, ValueError):
            raise HookNeedsLaunch(f"sets {self._name}.block_shape to {value!r}, not a list of "
                                  "integers") from None
        object.__setattr__(self, "block_shape", shape)

    def __getattr__(self, attr):  # only called for what the instance does not have
        raise HookNeedsLaunch(f"reads {self._name}.{attr}")


class _ArgumentStandIn:
    """A runtime argument (tensor, size, scalar): the hook may pass it around, nothing more."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        raise HookNeedsLaunch(f"uses argument '{self._name}' ({self._name}.{attr})")

    def __setattr__(self, attr, value):
        raise HookNeedsLaunch(f"sets {self._name}.{attr}")


def _refuse_use(method):
    def refuse(self, *args, **kwargs):
        raise HookNeedsLaunch(f"uses the value of argument '{object.__getattribute__(self, '_name')}'")
    refuse.__name__ = method
    return refuse


# Python looks special methods up on the type: each use of a value goes through one of these.
for _method in ("__bool__", "__int__", "__index__", "__float__", "__len__", "__iter__",
                "__getitem__", "__setitem__", "__call__", "__eq__", "__ne__", "__lt__", "__le__",
                "__gt__", "__ge__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
                "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
                "__mod__", "__rmod__", "__pow__", "__neg__", "__abs__", "__and__", "__or__",
                "__lshift__", "__rshift__", "__hash__", "__format__", "__str__", "__repr__"):
    setattr(_ArgumentStandIn, _method, _refuse_use(_method))


def run_config_hook(hook, params, options, constexpr_value):
    """Runs `hook` as Triton would before a launch of this variant (the compile request's
    params, their constexpr values through `constexpr_value`), on stand-ins; returns
    {descriptor parameter: block shape} for the descriptors it gave a block shape. Raises
    HookNeedsLaunch when it did anything else a build cannot do."""
    nargs = {}
    descriptors = {}
    for param in params:
        name = param["name"]
        if param.get("kind") == "tensordesc":
            descriptors[name] = DescriptorStandIn(name, block_shape_of(param.get("type") or ""))
            nargs[name] = descriptors[name]
        elif param.get("kind") == "constexpr":
            nargs[name] = constexpr_value(param.get("value") or {"type": "none"})
        elif param.get("hint") == 1:
            nargs[name] = 1
        else:
            nargs[name] = _ArgumentStandIn(name)
    nargs.update(options)
    try:
        hook(nargs)
    except HookNeedsLaunch:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of user code is reported with it
        raise HookNeedsLaunch(f"raised {type(exc).__name__}: {exc}") from None
    return {name: d.block_shape for name, d in descriptors.items()}


def block_shape_of(type_text):
    """[1, 64, 64] of 'tensordesc<bf16[1, 64, 64]>'."""
    inside = type_text[type_text.index("[") + 1:type_text.rindex("]")]
    return [int(v) for v in inside.split(",") if v.strip()]


def with_block_shape(type_text, shape):
    """'tensordesc<bf16[1, 64, 128]>' of 'tensordesc<bf16[1, 64, 64]>' and [1, 64, 128]."""
    return type_text[:type_text.index("[")] + "[" + ", ".join(map(str, shape)) + "]>"
