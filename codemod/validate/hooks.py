"""Learn how a parent builds and calls its submodules (worker side).

While a model is built (from an example, a record, its defaults or made-up
arguments) and run once, :class:`Capture` wraps the constructors of the
repository's module classes and ``nn.Module.__call__``: for every repository
class built inside it, it keeps a copy of the constructor arguments (taken
before ``__init__`` runs, since constructors may change their config) and the
first forward inputs of that same instance.  A class nobody wrote an example
for is then built with the arguments its parent really passes.

The wrappers live only inside the ``with`` block; the classes are restored
afterwards.
"""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn


@dataclass
class Captured:
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    inputs: tuple[tuple[Any, ...], dict[str, Any]] | None = None
    instance: int = 0  # id() of the instance these arguments built


@dataclass
class CaptureResult:
    classes: dict[str, Captured] = field(default_factory=dict)  # "module.QualName" -> what it was built with


def class_key(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


_REAL_PATHS: dict[str, str] = {}  # a module file -> its real path, once per worker


def repository_classes(roots: list[str]) -> list[type]:
    """Every loaded nn.Module subclass defined in a file under one of ``roots``."""
    import sys

    prefixes = tuple(os.path.realpath(r) + os.sep for r in roots)
    out = []
    seen = set()
    stack = list(nn.Module.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(cls.__subclasses__())
        module = sys.modules.get(cls.__module__)
        filename = getattr(module, "__file__", None)
        if not filename or "<locals>" in cls.__qualname__:
            continue
        path = _REAL_PATHS.get(filename)
        if path is None:
            path = _REAL_PATHS[filename] = os.path.realpath(filename)
        if path.startswith(prefixes) and "site-packages" not in path:
            out.append(cls)
    out.sort(key=class_key)
    return out


def _copy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


class Capture:
    """``with Capture(roots) as result:`` build and run a model; read ``result.classes``."""

    def __init__(self, roots: list[str], skip: type | None = None) -> None:
        self.roots = roots
        self.skip = skip  # the outermost class itself is not its own submodule
        self.result = CaptureResult()
        self._patched: list[tuple[type, Any]] = []
        self._instances: dict[int, tuple[str, tuple, dict]] = {}
        self._active = threading.local()
        self._call: Any = None

    def __enter__(self) -> CaptureResult:
        for cls in repository_classes(self.roots):
            original = cls.__dict__.get("__init__")
            if original is None:
                continue  # built through a base's wrapper, which sees type(self)
            self._patched.append((cls, original))
            cls.__init__ = self._wrap_init(original)  # type: ignore[misc]
        self._call = nn.Module.__call__
        capture = self
        original_call = self._call

        def __call__(module: nn.Module, *args: Any, **kwargs: Any) -> Any:
            capture._on_call(module, args, kwargs)
            return original_call(module, *args, **kwargs)

        nn.Module.__call__ = __call__  # type: ignore[method-assign]
        return self.result

    def __exit__(self, *exc: Any) -> None:
        nn.Module.__call__ = self._call  # type: ignore[method-assign]
        for cls, original in reversed(self._patched):
            cls.__init__ = original  # type: ignore[misc]
        self._patched.clear()
        self._instances.clear()

    def _wrap_init(self, original: Any) -> Any:
        capture = self

        def __init__(module: nn.Module, *args: Any, **kwargs: Any) -> None:
            active = getattr(capture._active, "ids", None)
            if active is None:
                active = capture._active.ids = set()
            outermost = id(module) not in active
            if outermost:
                active.add(id(module))
                capture._on_init(module, args, kwargs)
            try:
                original(module, *args, **kwargs)
            finally:
                if outermost:
                    active.discard(id(module))

        __init__.__wrapped__ = original  # type: ignore[attr-defined]
        return __init__

    def _on_init(self, module: nn.Module, args: tuple, kwargs: dict) -> None:
        cls = type(module)
        if cls is self.skip:
            return
        key = class_key(cls)
        args, kwargs = _copy(args), _copy(kwargs)
        self._instances[id(module)] = (key, args, kwargs)
        if key not in self.result.classes:
            self.result.classes[key] = Captured(args, kwargs, None, id(module))

    def _on_call(self, module: nn.Module, args: tuple, kwargs: dict) -> None:
        entry = self._instances.get(id(module))
        if entry is None:
            return
        key, init_args, init_kwargs = entry
        captured = self.result.classes.get(key)
        if captured is None or captured.inputs is not None:
            return
        inputs = (_copy(tuple(args)), _copy(dict(kwargs)))
        # the arguments of the instance that ran: inputs fit the sizes it was built with
        self.result.classes[key] = Captured(init_args, init_kwargs, inputs, id(module))


def detach_all(value: Any) -> Any:
    """Captured inputs are leaves: no graph of the parent's forward is kept alive."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(detach_all(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(detach_all(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, detach_all(v)) for k, v in value.items())
    return value
