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

import abc
import importlib
import importlib.abc
import importlib.machinery
import inspect
import os
import re
import sys
import traceback
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


class _StubMeta(abc.ABCMeta):
    """Classes standing for any attribute of a missing module: subclassable, unusable.  An
    ABCMeta, so that a repository class deriving from a stand-in and declaring
    `metaclass=abc.ABCMeta` (an abstract LightningModule) has no metaclass conflict."""

    _stub_module = ""

    def __getattr__(cls, name: str) -> Any:
        if (name.startswith("__") and name.endswith("__")) or cls._stub_concrete:
            raise AttributeError(name)
        return _make(f"{cls.__qualname__}.{name}", cls._stub_module)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls._stub_concrete:  # a repository class deriving from a stub
            return super().__call__(*args, **kwargs)
        if len(args) == 1 and not kwargs and (inspect.isfunction(args[0]) or isinstance(args[0], type)):
            # `@overrides`, `@rank_zero_only` on a definition: the function kept as written, on
            # both sides alike (side.py says so in the notes)
            if cls.__qualname__ not in DECORATED:
                DECORATED.append(cls.__qualname__)
            return args[0]
        if _discarded_at_a_modules_top_level(sys._getframe(1)):
            # `sns.set()` at the top of a module: a setting of the missing module itself, whose
            # result nothing keeps; the import goes on, on both sides alike (side.py says so)
            if cls.__qualname__ not in DISCARDED_CALLS:
                DISCARDED_CALLS.append(cls.__qualname__)
            return None
        raise StubUsed(cls._stub_module, f"{cls.__qualname__}(...)")

    def _fail(cls, *args: Any, **kwargs: Any) -> Any:
        raise StubUsed(cls._stub_module, cls.__qualname__)

    __iter__ = __len__ = __bool__ = __getitem__ = __add__ = __mul__ = __or__ = __and__ = _fail
    __lt__ = __gt__ = __le__ = __ge__ = __contains__ = _fail


def _init_subclass(cls: type, **kwargs: Any) -> None:
    cls._stub_concrete = True  # type: ignore[attr-defined]


def _stub_init(qualname: str, module: str) -> Any:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # A repository class deriving from a stand-in (`class CfgNode(fvcore.common.config.CfgNode)`)
        # hands its arguments to the missing base: that base is used, not just imported.
        if args or kwargs:
            raise StubUsed(module, f"{qualname}.__init__(...)")

    return __init__


def _make(qualname: str, module: str) -> type:
    namespace = {"_stub_module": module, "_stub_concrete": False, "__module__": module, "__init_subclass__": classmethod(_init_subclass),
                 "__init__": _stub_init(qualname, module)}
    cls = _StubMeta(qualname.rsplit(".", 1)[-1], (), namespace)
    cls.__qualname__ = qualname
    return cls


class StubModule(types.ModuleType):
    """A module object whose every attribute is a stub class."""

    def __init__(self, name: str, missing: str | None = None) -> None:
        super().__init__(name)
        self.__file__ = None  # type: ignore[assignment]
        self.__path__ = []  # type: ignore[assignment]  # a package: submodules are stubbed too
        self.__codemod_stub__ = True
        # the missing module a use names: the module's own top level, or the dependency an
        # installed module stood in for needed (`tensorboard` for `torch.utils.tensorboard`)
        self.__codemod_missing__ = missing or name.split(".")[0]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise StubAttributeMissing(self.__codemod_missing__, name)
        value = _make(f"{self.__name__}.{name}", self.__codemod_missing__)
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


# Stand-ins applied as bare decorators, which returned what they decorate unchanged.
DECORATED: list[str] = []

# Stand-ins called at a module's top level in a statement that keeps nothing (`sns.set()`).
DISCARDED_CALLS: list[str] = []


def _discarded_at_a_modules_top_level(frame: types.FrameType) -> bool:
    """Whether ``frame`` runs the top level of a module being imported (not a function, not a
    class body, not a script or `-c` code, which have no import spec) and drops what the call
    it is making returns: the instruction after the call is POP_TOP."""
    import dis

    if frame.f_code.co_name != "<module>" or frame.f_globals.get("__spec__") is None:
        return False
    instructions = iter(dis.get_instructions(frame.f_code))
    for instruction in instructions:
        if instruction.offset == frame.f_lasti:
            following = next(instructions, None)
            return following is not None and following.opname == "POP_TOP"
    return False


# Installed modules stood in for because they refused a stand-in of a missing dependency:
# module name -> that dependency (`torch.utils.tensorboard` -> `tensorboard`).
_REFUSING: dict[str, str] = {}


def stubbed() -> list[str]:
    return list(_finder.names) + [name for name in _REFUSING if name not in _finder.names]


def refusing_module(exc: ImportError, root: str) -> tuple[str, str] | None:
    """``(module, dependency)`` where an installed module (outside the repository) raised ``exc``
    while checking a dependency stood in for: `torch.utils.tensorboard` raises "TensorBoard
    logging requires TensorBoard version 1.15 or above" when `tensorboard` is a stand-in, which
    has no version. The module is then stood in for as a whole, naming that dependency."""
    if isinstance(exc, ModuleNotFoundError) or not _finder.names:
        return None
    frames = list(traceback.walk_tb(exc.__traceback__))
    if not frames:
        return None
    frame = frames[-1][0]  # where it was raised
    if in_repository(frame.f_code.co_filename, root):
        return None  # the repository's own code: its error, not an installed package's check
    name = frame.f_globals.get("__name__")
    said = str(exc).lower()
    dependency = next((d for d in _finder.names if d.lower() in said and d in frame.f_globals), None)
    if not isinstance(name, str) or dependency is None or name in _REFUSING or name.split(".")[0] == dependency:
        return None
    return name, dependency


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


# Module names of the version files that setuptools-scm (`write_to`), hatch-vcs, versioneer and
# friends write when a package is built or installed, never committed.
_VERSION_FILES = frozenset({"_version", "version", "__version__"})
# What a stand-in for one holds: a version that says it is unknown.
UNKNOWN_VERSION = "0.0.0+unknown"


def generated_version_file(exc: BaseException, root: str) -> bool:
    """Whether ``exc`` is a repository package's version file missing from a source tree that
    was never installed (`from ._version import __version__` in `trackastra/__init__.py`)."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name or "." not in exc.name:
        return False
    parent, _, leaf = exc.name.rpartition(".")
    if leaf not in _VERSION_FILES:
        return False
    # the package's folder on the repository's part of sys.path (its __init__ failed on this
    # import, so the package itself is no longer in sys.modules)
    base = os.path.realpath(root).rstrip(os.sep) + os.sep
    for entry in sys.path:
        folder = os.path.join(os.path.realpath(entry or "."), *parent.split("."))
        if (folder + os.sep).startswith(base) and os.path.isfile(os.path.join(folder, "__init__.py")):
            return not os.path.exists(os.path.join(folder, leaf + ".py"))
    return False


def repository_package_metadata(exc: BaseException, root: str) -> str | None:
    """The name of a repository package that asks for its own installed version
    (`__version__ = importlib.metadata.version("supernnova")` in its `__init__.py`) from a
    source tree that was never installed; None for any other error."""
    import importlib.metadata

    if not isinstance(exc, importlib.metadata.PackageNotFoundError) or not exc.name:
        return None
    name = exc.name.replace("-", "_")
    base = os.path.realpath(root).rstrip(os.sep) + os.sep
    for entry in sys.path:
        folder = os.path.realpath(entry or ".")
        if (folder + os.sep).startswith(base) and (
                os.path.isfile(os.path.join(folder, name, "__init__.py")) or os.path.isfile(os.path.join(folder, name + ".py"))):
            return exc.name
    return None


def answer_own_version(name: str) -> None:
    """Make `importlib.metadata.version(name)` give UNKNOWN_VERSION for a repository package
    that is not installed: only version strings come of it, which no model computes with."""
    import importlib.metadata

    original = importlib.metadata.version
    answered = set(getattr(original, "_codemod_answered", ()))
    answered.add(name)
    real = getattr(original, "_codemod_real", original)

    def version(distribution_name: str) -> str:
        if distribution_name in answered:
            return UNKNOWN_VERSION
        return real(distribution_name)

    version._codemod_answered = answered  # type: ignore[attr-defined]
    version._codemod_real = real  # type: ignore[attr-defined]
    importlib.metadata.version = version  # type: ignore[assignment]


def _version_module(name: str) -> types.ModuleType:
    """A stand-in for a generated version file: only version strings live there, which no
    model computes with."""
    module = types.ModuleType(name)
    module.__version__ = module.version = UNKNOWN_VERSION  # type: ignore[attr-defined]
    module.__version_tuple__ = module.version_tuple = (0, 0, 0, "unknown")  # type: ignore[attr-defined]
    return module  # no file: kept when the retry forgets the repository's half-imported modules


def own_directory(exc: BaseException, top: str, root: str) -> str | None:
    """The repository directory that holds ``top`` as a module of its own, or None.

    Script-style code imports its siblings by their bare names (``from layers import MLP``
    in ``models.py``), as its author ran it from that directory. When the repository is
    imported as a package instead (an ``__init__.py`` at its root makes the tool import
    ``repo.models``), that directory is not on ``sys.path``: the missing module is the
    repository's own, not a dependency to stand in for. Looked for next to every
    repository file the import went through, then in the directories above it up to
    ``root`` (which is on ``sys.path`` already).
    """
    for directory in _import_directories(exc, root, with_root=False):
        if os.path.isfile(os.path.join(directory, top + ".py")) or os.path.isfile(
                os.path.join(directory, top, "__init__.py")):
            return directory
    return None


def _import_directories(exc: BaseException, root: str, with_root: bool) -> list[str]:
    """The repository directories of every file the failed import went through and those above
    each up to ``root`` (``root`` itself only ``with_root``), the innermost file's first."""
    base = os.path.realpath(root)
    prefix = base.rstrip(os.sep) + os.sep
    seen: list[str] = []
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        filename = frame.f_code.co_filename
        if not os.path.isabs(filename):
            continue
        directory = os.path.dirname(os.path.realpath(filename))
        while (directory.startswith(prefix) or (with_root and directory == base)) and directory not in seen:
            seen.append(directory)
            directory = os.path.dirname(directory)
    return seen[::-1]


_NOT_A_PACKAGE = re.compile(r"No module named '([\w.]+)'; '([\w.]+)' is not a package")


def shadowed_package(exc: ModuleNotFoundError, root: str) -> str | None:
    """The repository directory to put first on ``sys.path`` where a module of the repository
    answered for a package that a file beside (or below) it imports from: `No module named
    'utils.dct'; 'utils' is not a package`, raised in `src/model.py` whose folder holds
    `utils/dct.py`, found next to every repository file the import went through, then in the
    directories above it up to ``root``; None where no such folder holds it."""
    found = _NOT_A_PACKAGE.search(str(exc))
    if found is None:
        return None
    parts = found.group(1).split(".")
    for directory in _import_directories(exc, root, with_root=True):
        package = os.path.join(directory, *parts[:-1])
        if os.path.isdir(package) and (os.path.isfile(os.path.join(package, parts[-1] + ".py"))
                                       or os.path.isdir(os.path.join(package, parts[-1]))):
            return directory
    return None


def _forgettable(name: str, module: Any, root: str) -> bool:
    """Whether a module imported during a failed attempt may be dropped and run again.

    Only the repository's own pure-Python modules: an installed package (numpy, scipy,
    torch) holds compiled extension modules, which cannot be loaded twice in one process
    (``ImportError: cannot load module more than once per process``), and it does not
    depend on the stand-ins anyway.
    """
    if getattr(module, "__codemod_stub__", False):
        return True
    filename = getattr(module, "__file__", None)
    if not isinstance(filename, str):
        try:
            paths = list(getattr(module, "__path__", None) or [])
        except KeyError:
            # a namespace package (a folder with no __init__.py) recomputes its path from its
            # parent's entry in sys.modules, which the failed import removed: nothing compiled
            # lives in it, and leaving it would break the parent's next import
            return True
        filename = paths[0] if paths and isinstance(paths[0], str) else None
    if not filename or not (filename.endswith(".py") or os.path.isdir(filename)):
        return False  # a built-in or an extension module
    path = os.path.realpath(filename)
    base = os.path.realpath(root).rstrip(os.sep) + os.sep
    if not path.startswith(base) or any(part in ("site-packages", "dist-packages") for part in path.split(os.sep)):
        return False
    return True


def in_repository(path: str, root: str) -> bool:
    """Whether ``path`` lies inside the repository ``root`` (both resolved through links)."""
    return os.path.realpath(path).startswith(os.path.realpath(root).rstrip(os.sep) + os.sep)


def import_with_stubs(module_name: str, root: str) -> Any:
    """``importlib.import_module`` that stubs missing third-party modules and retries.

    A missing module that is the repository's own (see :func:`own_directory`) is not
    stubbed: its directory is put on ``sys.path`` (last, so that it shadows nothing that
    imports today) and the import runs again.
    """
    if _finder not in sys.meta_path:
        sys.meta_path.append(_finder)  # last: only what no real finder can import
    added = 0
    cycles = 0
    siblings: dict[str, str] = {}  # a bare name -> the repository directory put on sys.path for it
    while True:
        before = set(sys.modules)
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            own = repository_package_metadata(exc, root) if added < MAX_STUBS else None
            if own is not None:
                answer_own_version(own)
                added += 1
                _forget_half_imported(before, root)
                importlib.invalidate_caches()
                continue
            top = exc.name.split(".")[0] if exc.name else None
            shadowing = shadowed_package(exc, root) if added < MAX_STUBS else None
            if shadowing is not None:
                # `from utils.dct import f` in src/model.py, where a `utils.py` of another folder
                # of the repository answered first for the `src/utils/` package beside it
                for name in [n for n in sys.modules if n == top or n.startswith(f"{top}.")]:
                    sys.modules.pop(name, None)
                if shadowing in sys.path:
                    sys.path.remove(shadowing)
                sys.path.insert(0, shadowing)
                added += 1
                _forget_half_imported(before, root)
                importlib.invalidate_caches()
                continue
            directory = own_directory(exc, top, root) if top and added < MAX_STUBS else None
            if top in siblings and exc.name != top and len(_finder.names) < MAX_STUBS:
                # `import hydra` found the repository's `hydra.py` beside the importer, and the
                # code then imports `hydra.core`: it meant the installed package, which is missing
                sys.path.remove(siblings.pop(top))
                sys.modules.pop(top, None)
                _finder.names.append(top)
            elif directory is not None and directory not in sys.path:
                sys.path.append(directory)
                siblings[top] = directory
                added += 1
            elif generated_version_file(exc, root) and added < MAX_STUBS:
                sys.modules[exc.name] = _version_module(exc.name)
                added += 1
            else:
                top = missing_module(exc, root)
                if top is None or len(_finder.names) >= MAX_STUBS:
                    raise
                _finder.names.append(top)
            # the repository's half-imported modules run again with the stub (or the directory) in place
            _forget_half_imported(before, root)
            importlib.invalidate_caches()
        except ImportError as exc:
            refusing = refusing_module(exc, root) if added < MAX_STUBS else None
            if refusing is not None:
                _REFUSING[refusing[0]] = refusing[1]
                added += 1
                _forget_half_imported(before, root)
                # (after forgetting: stand-ins made during the failed attempt are forgotten too)
                sys.modules[refusing[0]] = StubModule(refusing[0], missing=refusing[1])
                importlib.invalidate_caches()
                continue
            # `from utils.sampling import resample_torch` in utils/utils.py, which utils/sampling.py
            # imports first: a cycle the repository's own entry point enters from the other side
            entry = _cycle_entry(exc, root, module_name) if cycles < MAX_CYCLES else None
            if entry is None:
                raise
            cycles += 1
            _forget_half_imported(before, root)
            try:
                import_with_stubs(entry, root)
            except Exception:
                raise exc from None


def _forget_half_imported(before: set[str], root: str) -> None:
    """Forget the repository's modules a failed import left behind (not ``before`` it), so that
    the retry runs them again; installed packages stay, loaded once."""
    for name in set(sys.modules) - before:
        if _forgettable(name, sys.modules.get(name), root):
            sys.modules.pop(name, None)


# Circular imports entered from another module first, at most, per import.
MAX_CYCLES = 2


def _cycle_entry(exc: ImportError, root: str, module_name: str) -> str | None:
    """The repository module whose `from X import name` met X half-initialised (`cannot import
    name 'f' from partially initialized module 'X' (most likely due to a circular import)`),
    when importing it first breaks the cycle as the repository's entry point does; None
    for any other ImportError."""
    if "partially initialized module" not in str(exc):
        return None
    base = os.path.realpath(root).rstrip(os.sep) + os.sep
    importer = None
    for frame, _ in traceback.walk_tb(exc.__traceback__):  # the repository's last: the `from X import name`
        filename = os.path.realpath(frame.f_code.co_filename)
        if filename.startswith(base) and filename.endswith(".py"):
            importer = filename
    name = _module_name_of(importer) if importer is not None else None
    return name if name not in (None, module_name, exc.name) else None


def _module_name_of(path: str) -> str | None:
    """The dotted name ``path`` imports as from the nearest ``sys.path`` entry holding it."""
    from pathlib import Path

    from codemod.validate.calls import module_name_under

    name = module_name_under(Path(path), [Path(entry or ".") for entry in sys.path])
    return name if name and all(part.isidentifier() for part in name.split(".")) else None


def is_stub(value: Any) -> bool:
    """Whether ``value`` is a stand-in class for something of a missing module."""
    return isinstance(value, _StubMeta) and not value._stub_concrete


def stub_base(cls: Any) -> StubUsed | None:
    """Why a class whose bases include a stand-in for a missing module
    (`class InteractionNetwork(MessagePassing)` without torch_geometric) is no nn.Module here."""
    for base in getattr(cls, "__mro__", ())[1:]:
        if isinstance(base, _StubMeta) and not base._stub_concrete:
            return StubUsed(base._stub_module, f"its base class {base.__qualname__}")
    return None


def stub_used(exc: BaseException) -> StubUsed | StubAttributeMissing | None:
    """The use of a stand-in behind ``exc`` (raised directly or as its cause), if any."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, (StubUsed, StubAttributeMissing)):
            return exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return None
