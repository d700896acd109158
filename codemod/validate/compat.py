"""Names numpy and the standard library removed, given back in the validation workers.

Research code written for numpy before 1.24 uses `np.float`, `np.int`, `np.object` (the
builtins they were aliases of), and code written before 2.0 `np.float_`, `np.NaN`,
`np.product`. On a current numpy those raise AttributeError when the model is built or run,
so a class that runs in its authors' environment could not be validated in the user's. Both
sides of a validation get the same names, so nothing compared depends on them. They are
answered by numpy's module `__getattr__`, which only runs for names numpy lacks, with exactly
what older numpy releases bound them to; every name answered is remembered, so a verdict can
say which ones the class used.
"""

from __future__ import annotations

from typing import Any

_used: list[str] = []


def _removed_names(numpy: Any) -> dict[str, Any]:
    return {
        # removed in 1.24: aliases of the builtins
        "bool": bool, "int": int, "float": float, "complex": complex, "object": object, "str": str,
        # removed in 2.0: renamed scalar types, constants and functions
        "float_": numpy.float64, "complex_": numpy.complex128, "unicode_": numpy.str_, "string_": numpy.bytes_,
        "NaN": numpy.nan, "NAN": numpy.nan, "Inf": numpy.inf, "Infinity": numpy.inf, "infty": numpy.inf,
        "PINF": numpy.inf, "NINF": -numpy.inf,
        "product": numpy.prod, "cumproduct": numpy.cumprod, "sometrue": numpy.any, "alltrue": numpy.all,
        "round_": numpy.round,
    }


def restore_removed_numpy_names() -> bool:
    """Let numpy answer the names it removed; False when numpy is not installed."""
    try:
        import numpy
    except Exception:  # numpy is optional for the workers
        return False
    _answer_removed(numpy, _removed_names(numpy), "np")
    return True


def _answer_removed(module: Any, removed: dict[str, Any], shown_as: str) -> None:
    """Give ``module`` a module ``__getattr__`` (which runs only for names it lacks) answering
    ``removed``, each answer remembered as ``shown_as.name``; once per module."""
    if getattr(module, "_codemod_restored", False):
        return
    original = vars(module).get("__getattr__")

    def __getattr__(name: str) -> Any:
        if name in removed:
            if f"{shown_as}.{name}" not in _used:
                _used.append(f"{shown_as}.{name}")
            return removed[name]
        if original is None:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        return original(name)

    module.__getattr__ = __getattr__
    module._codemod_restored = True


# Names Python's standard library removed that research code still imports: the ABC aliases
# of `collections` (removed in 3.10: `from collections import Iterable`) and `fractions.gcd`
# (removed in 3.9), each given back as the Python the code was written for bound it.
_COLLECTIONS_ABCS = ("Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator", "AsyncGenerator", "Hashable",
                     "Iterable", "Iterator", "Generator", "Reversible", "Sized", "Container", "Callable", "Collection",
                     "Set", "MutableSet", "Mapping", "MutableMapping", "MappingView", "KeysView", "ItemsView",
                     "ValuesView", "Sequence", "MutableSequence", "ByteString")


def restore_removed_stdlib_names() -> None:
    """Let `collections` and `fractions` answer the names they removed (module __getattr__,
    which runs only for names a module lacks); each name answered is remembered."""
    import collections
    import collections.abc
    import fractions
    import math

    _answer_removed(collections, {name: getattr(collections.abc, name) for name in _COLLECTIONS_ABCS
                                  if hasattr(collections.abc, name)}, "collections")
    _answer_removed(fractions, {"gcd": math.gcd}, "fractions")


def used_names() -> list[str]:
    """The removed names user code asked numpy (`np.float`) or the standard library
    (`collections.Iterable`) for in this process, first use first."""
    return list(_used)


def forget_uses() -> None:
    del _used[:]


