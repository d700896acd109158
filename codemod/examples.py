"""Tell ``codemod run`` how to build your modules, so it can prove its rewrites.

The validator builds every rewritten class twice, once from the original
source and once from the rewritten source, and compares the two.  A class
whose constructor takes no arguments is built automatically; for the others,
write a ``codemod_examples.py`` at the repository root::

    from codemod.examples import Inputs, example, example_factory
    import torch
    from pkg.config import Config

    # constructor arguments, then the forward inputs
    example("pkg.model.TypeCls", Config(type_num=4, hidden_size=8),
            inputs=lambda: (torch.randn(2, 5, 8), torch.ones(2, 5)))

    # keyword arguments work too; inputs may be a dict of forward kwargs
    example("pkg.model.Encoder", vocab=100, dim=16,
            inputs=lambda: {"tokens": torch.randint(0, 100, (2, 7))})

    # anything else: a zero-argument factory that returns the module
    example_factory("pkg.model.Big", lambda: Big.from_config(Config.tiny()),
                    inputs=lambda: Inputs(torch.randn(1, 8), mask=None))

Rules:

* ``target`` is the class's dotted name (``module.QualName``) or the class.
* ``inputs`` is optional.  Without it only the attributes, the state_dict,
  the parameters and the device movement are compared, not ``forward``.
  It can be a tuple (positional arguments), a dict (keyword arguments),
  :class:`Inputs` (both), any other object (the single positional argument),
  or a zero-argument callable returning one of those.  Prefer a callable:
  it runs after ``torch.manual_seed(1)``, on both sides, so random inputs
  are identical.
* The file is imported once in each validation worker, after
  ``torch.manual_seed(0)``; the original side sees the original classes and
  the rewritten side the rewritten ones.  Constructor arguments are deep-copied
  for every build, so a constructor that mutates its config is fine.
* A later ``example`` for the same target replaces the earlier one.

This module never imports torch.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Example", "Inputs", "example", "example_factory", "registered", "clear", "target_name"]


class Inputs:
    """Positional and keyword arguments for ``forward``: ``Inputs(x, mask=m)``."""

    __slots__ = ("args", "kwargs")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"Inputs({', '.join(parts)})"


@dataclass
class Example:
    """How to build one class, and optionally what to feed its ``forward``."""

    target: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    factory: Callable[[], Any] | None = None
    inputs: Any = None
    location: str = ""  # "file:line" of the call, for messages

    @property
    def has_inputs(self) -> bool:
        return self.inputs is not None

    def make_inputs(self) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        """The forward arguments as ``(args, kwargs)``, or None when unknown."""
        if self.inputs is None:
            return None
        value = self.inputs() if callable(self.inputs) else self.inputs
        return normalize_inputs(value)


def normalize_inputs(value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Map the accepted ``inputs`` shapes onto ``(args, kwargs)``."""
    if isinstance(value, Inputs):
        return tuple(value.args), dict(value.kwargs)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return value, {}
    if isinstance(value, dict):
        return (), dict(value)
    return (value,), {}


_REGISTRY: dict[str, Example] = {}


def target_name(target: Any) -> str:
    """``"pkg.mod.Class"`` for a class or a dotted string."""
    if isinstance(target, str):
        name = target.strip()
        if "." not in name:
            raise ValueError(f"example target {target!r} must be a dotted name such as 'pkg.model.{name}'")
        return name
    if isinstance(target, type):
        return f"{target.__module__}.{target.__qualname__}"
    raise TypeError(f"example target must be a class or a dotted name, not {type(target).__name__}")


def _caller_location() -> str:
    frame = inspect.currentframe()
    try:
        caller = frame.f_back.f_back if frame and frame.f_back else None
        if caller is None:
            return ""
        return f"{caller.f_code.co_filename}:{caller.f_lineno}"
    finally:
        del frame


def example(target: Any, /, *args: Any, inputs: Any = None, **kwargs: Any) -> Example:
    """Build ``target`` as ``target(*args, **kwargs)``; feed ``inputs`` to forward.

    ``inputs`` is the only reserved keyword; a constructor that itself takes a
    parameter named ``inputs`` needs :func:`example_factory`.
    """
    entry = Example(
        target=target_name(target), args=tuple(args), kwargs=dict(kwargs), inputs=inputs, location=_caller_location()
    )
    _REGISTRY[entry.target] = entry
    return entry


def example_factory(target: Any, factory: Callable[[], Any], /, *, inputs: Any = None) -> Example:
    """Build ``target`` by calling ``factory()``, which must return an instance of it."""
    if not callable(factory):
        raise TypeError("example_factory needs a zero-argument callable that returns the module")
    entry = Example(target=target_name(target), factory=factory, inputs=inputs, location=_caller_location())
    _REGISTRY[entry.target] = entry
    return entry


def registered() -> dict[str, Example]:
    """Every example registered so far, by target name."""
    return dict(_REGISTRY)


def clear() -> None:
    """Forget all examples (the validator calls this before loading a file)."""
    _REGISTRY.clear()
