"""Stand-ins for third-party modules that are not installed (worker side).

A repository often imports an optional dependency at the top of a module
(``import wandb``, ``from apex import amp``) that the class being validated
never uses.  When importing a class fails with ``ModuleNotFoundError`` for a
module outside the repository, the worker installs a stub for that module
and imports again.  A stub imports fine and can be subclassed; using it (a
call, an instance, arithmetic, iteration) raises :class:`StubUsed`, naming
the missing module, so a class that really needs the dependency ends up
"not validated" with the reason, never passed on behaviour it did not run.

Stubs are only ever installed for a module whose absence broke an import;
a guarded ``try: import x / except ImportError`` keeps working as before
until some other import needed ``x``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import types
from typing import Any

MAX_STUBS = 12


class StubUsed(ImportError):
    """A stubbed (missing) module was used, not just imported."""

    def __init__(self, module: str, what: str) -> None:
        super().__init__(f"{what} needs the module {module!r}, which is not installed in the project's interpreter")
        self.module = module
        self.what = what


class StubAttributeMissing(AttributeError):
    """A special attribute (``__version__``) read from a stand-in: plain AttributeError semantics
    for ``hasattr``/``getattr(..., default)``, and a way for the verdict to name the module."""

    def __init__(self, module: str, name: str) -> None:
        super().__init__(name)
        self.module = module
        self.what = f"{module}.{name}"

    def __str__(self) -> str:
        return f"{self.what} needs the module {self.module!r}, which is not installed in the project's interpreter"


class _StubMeta(type):
    """Classes standing for any attribute of a missing module: subclassable, unusable."""

    _stub_module = ""

    def __getattr__(cls, name: str) -> Any:
        if (name.startswith("__") and name.endswith("__")) or cls._stub_concrete:
            raise AttributeError(name)
        return _make(f"{cls.__qualname__}.{name}", cls._stub_module)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls._stub_concrete:  # a repository class deriving from a stub
            return super().__call__(*args, **kwargs)
        raise StubUsed(cls._stub_module, f"{cls.__qualname__}(...)")

    def _fail(cls, *args: Any, **kwargs: Any) -> Any:
        raise StubUsed(cls._stub_module, cls.__qualname__)

    __iter__ = __len__ = __bool__ = __getitem__ = __add__ = __mul__ = __or__ = __and__ = _fail
    __lt__ = __gt__ = __le__ = __ge__ = __contains__ = _fail


def _init_subclass(cls: type, **kwargs: Any) -> None:
    cls._stub_concrete = True  # type: ignore[attr-defined]


def _make(qualname: str, module: str) -> type:
    namespace = {"_stub_module": module, "_stub_concrete": False, "__module__": module, "__init_subclass__": classmethod(_init_subclass)}
    cls = _StubMeta(qualname.rsplit(".", 1)[-1], (), namespace)
    cls.__qualname__ = qualname
    return cls


class StubModule(types.ModuleType):
    """A module object whose every attribute is a stub class."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__file__ = None  # type: ignore[assignment]
        self.__path__ = []  # type: ignore[assignment]  # a package: submodules are stubbed too
        self.__codemod_stub__ = True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise StubAttributeMissing(self.__name__.split(".")[0], name)
        value = _make(f"{self.__name__}.{name}", self.__name__.split(".")[0])
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):  # type: ignore[override]
        return StubModule(spec.name)

    def exec_module(self, module) -> None:  # type: ignore[override]
        pass


class StubFinder(importlib.abc.MetaPathFinder):
    """Answers for the stubbed top-level names and everything below them."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, fullname, path, target=None):  # type: ignore[override]
        top = fullname.split(".")[0]
        if top not in self.names:
            return None
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


_finder = StubFinder()


def stubbed() -> list[str]:
    return list(_finder.names)


def missing_module(exc: BaseException, root: str) -> str | None:
    """The top-level third-party module whose absence raised ``exc``, or None."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    top = exc.name.split(".")[0]
    if top in sys.builtin_module_names or top in _finder.names or top == "torch":
        return None
    # a module of the repository itself that is missing is a real error, not an optional dependency
    for entry in sys.path:
        if entry and os.path.realpath(entry).startswith(os.path.realpath(root)):
            base = os.path.join(entry, top)
            if os.path.isdir(base) or os.path.isfile(base + ".py"):
                return None
    if top in sys.modules and not getattr(sys.modules[top], "__codemod_stub__", False):
        return None  # installed; a submodule is missing, which a stub of the package cannot fix
    return top


def import_with_stubs(module_name: str, root: str) -> Any:
    """``importlib.import_module`` that stubs missing third-party modules and retries."""
    if _finder not in sys.meta_path:
        sys.meta_path.append(_finder)  # last: only what no real finder can import
    while True:
        before = set(sys.modules)
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            top = missing_module(exc, root)
            if top is None or len(_finder.names) >= MAX_STUBS:
                raise
            _finder.names.append(top)
            # forget the half-imported modules so that they run again with the stub in place
            for name in set(sys.modules) - before:
                sys.modules.pop(name, None)
            importlib.invalidate_caches()


def stub_used(exc: BaseException) -> StubUsed | StubAttributeMissing | None:
    """The use of a stand-in behind ``exc`` (raised directly or as its cause), if any."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, (StubUsed, StubAttributeMissing)):
            return exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return None
