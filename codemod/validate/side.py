"""What one worker does for one class (imports torch; runs in a worker only).

The original side builds the class (the first source that builds it: build.py), gathers
the evidence of that build, then builds it again while further builds add evidence
(_more_builds) and saves every build; the rewritten side rebuilds exactly those builds,
judges each against the original's (judge.py) and merges the verdicts."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import gc
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys
import sysconfig
import time
import traceback
import types
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

from codemod.validate import checks, compare, compat, cuda_standin, definitions, devices, own_folder, probe, reads, stubs, synth
from codemod.validate.build import (
    FORWARD_SEED,
    Context,
    ExamplesFile,
    NotBuildable,
    Source,
    build,
    fill_slots,
    forwarded_base,
    format_exception,
    make_inputs,
    resolve_source,
    seed_all,
    seed_every_device,
    variant_sources,
)
from codemod.validate.judge import build_failure, judge, merge
from codemod.validate.parents import Known, Parents, needs_parent
from codemod.validate.worker import phase, warm_import



# Builds of one class: the first, then variants while they add evidence (see _more_builds).
MAX_BUILDS = 4
MAX_VARIANTS_TRIED = 10
# Methods tried as a missing forward's stand-in (reads.stand_ins), the first included.
MAX_STAND_INS_TRIED = 3
# Builds that run another method in place of forward (reads.reader_methods): kept, and tried.
MAX_READER_BUILDS = 3
MAX_READERS_TRIED = 6
# Builds whose empty slots a method fills first (reads.setter_methods): kept, methods tried, and
# made-up inputs tried for each method.
MAX_SETTER_BUILDS = 2
MAX_SETTERS_TRIED = 3
MAX_SETTER_INPUTS = 8
MAX_SETTER_FILLS = 3  # inputs that fill the slots, tried in turn until a forward runs after them
# A class whose first build takes more than this share of --timeout in CPU time is built once:
# every kept build costs as much again, on both sides.
MORE_BUILDS_SHARE = 0.15
# Build sources whose arguments the repository never passes itself: made up from names and
# annotations.  (Defaults, a parent's arguments, the repository's calls, examples and records
# are the repository's own: a rewrite that refuses them fails.)
_MADE_UP = ("synth",)
# What Module.__setattr__ says when a registered buffer is given anything but a tensor or None.
_NOT_A_TENSOR_FOR_BUFFER = "(torch Tensor or None required)"


class Evidence:
    """What the builds of a class so far show about each rewrite (original side)."""

    def __init__(self, findings: list[list[Any]], forward_reads: dict[str, bool], handed_on: list[str]) -> None:
        self.attrs = [attr for attr, *_ in findings]
        self.forward_reads = forward_reads
        self.handed_on = set(handed_on)
        self.unrun: dict[str, set[int] | None] = {attr: None for attr in self.attrs}
        self.tensor = {attr: False for attr in self.attrs}
        self.forward = {attr: False for attr in self.attrs}
        # reads of each attribute that no forward with it has run yet (reads.read_sites)
        self.unread: dict[str, set[tuple[str, int]] | None] = {attr: None for attr in self.attrs}

    def add(self, data: dict[str, Any]) -> None:
        coverage = data.get("coverage")
        forward = data.get("has_inputs") and not data.get("forward_error")
        for attr in self.attrs:
            if coverage is not None:
                lines = set(coverage.get(attr) or [])
                known = self.unrun[attr]
                self.unrun[attr] = lines if known is None else known & lines
            holds = (data["attrs"].get(attr) or {}).get("tensor") is not None or (
                (data.get("attrs_after_forward") or {}).get(attr) or {}).get("tensor") is not None
            self.tensor[attr] |= holds
            read = data.get("plain_reads")
            with_forward = bool(holds and forward and (read is None or attr in read or attr in self.lazy(data)
                                                       or attr in self.handed_on))
            self.forward[attr] |= with_forward
            if with_forward and data.get("unread") is not None:
                sites = {(method, line) for method, line in data["unread"].get(attr, [])}
                known_sites = self.unread[attr]
                self.unread[attr] = sites if known_sites is None else known_sites & sites

    @staticmethod
    def lazy(data: dict[str, Any]) -> set[str]:
        """Attributes that held no tensor before the forward (a lazy slot it fills): not in
        ``__dict__`` as a tensor while it ran, so their reads are not seen."""
        return {a for a, state in (data.get("attrs") or {}).items() if (state or {}).get("tensor") is None}

    def added(self, data: dict[str, Any]) -> Evidence:
        self.add(data)
        return self

    def complete(self) -> bool:
        return all(not self.unrun[a] and self.tensor[a] and (self.forward[a] or not self.forward_reads.get(a, True))
                   and not self.unread[a] for a in self.attrs)

    def adds(self, unrun: dict[str, list[int]], attrs: dict[str, Any]) -> bool:
        """Whether a build runs a statement no build ran yet, or holds a tensor none held."""
        for attr in self.attrs:
            known = self.unrun[attr]
            if known and unrun and set(known) - set(unrun.get(attr) or []):
                return True
            if not self.tensor[attr] and (attrs.get(attr) or {}).get("tensor") is not None:
                return True
        return False

    def wants_forward(self, attrs: dict[str, Any]) -> bool:
        """Whether a forward of this build would be the first with an attribute forward reads, or
        could run a read of one that no forward ran yet."""
        return any((not self.forward[a] and self.forward_reads.get(a, True) or self.unread[a])
                   and (attrs.get(a) or {}).get("tensor") is not None for a in self.attrs)


def _runs(model: torch.nn.Module, source: Source) -> bool:
    try:
        seed_all(1)
        args, kwargs = source.make_inputs()  # type: ignore[misc]
        seed_all(FORWARD_SEED)
        with torch.no_grad():
            model(*args, **kwargs)
        return True
    except (Exception, SystemExit):  # a forward that calls sys.exit() on inputs it does not expect
        return False


class StageError(Exception):
    """User code raised in a stage the side cannot continue past."""

    def __init__(self, stage: str, exc: BaseException) -> None:
        super().__init__(f"{stage}: {format_exception(exc)}")
        self.stage = stage
        self.exc = exc
        self.text = format_exception(exc)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# The default dtype a module's top-level code set while it was imported
# (`torch.set_default_dtype(torch.float64)` after its imports): module name -> dtype.  Each
# request ends by restoring the worker's own default, so a class of a module an earlier
# request imported would be built in float32 where a fresh import builds it in float64; the
# two sides' workers import in different orders, and would disagree.
MODULE_DEFAULT_DTYPES: dict[str, torch.dtype] = {}


def record_default_dtype_setters() -> None:
    """Note which module's top-level code sets torch's default dtype (MODULE_DEFAULT_DTYPES)."""
    for name in ("set_default_dtype", "set_default_tensor_type"):
        setter = getattr(torch, name)
        if getattr(setter, "_records_default_dtype", False):
            continue

        def recording(*args: Any, _setter: Callable[..., Any] = setter, **kwargs: Any) -> Any:
            result = _setter(*args, **kwargs)
            frame = sys._getframe(1)
            if frame.f_code.co_name == "<module>":
                MODULE_DEFAULT_DTYPES[str(frame.f_globals.get("__name__", ""))] = torch.get_default_dtype()
            return result

        recording._records_default_dtype = True  # type: ignore[attr-defined]
        recording.__doc__ = setter.__doc__
        setattr(torch, name, recording)


def import_time_default_dtype(module_name: str, root: str) -> torch.dtype | None:
    """The default dtype importing ``module_name`` afresh would leave: the one its own top-level
    code set, else one a repository module it takes names from set (None: neither set any)."""
    if not MODULE_DEFAULT_DTYPES:
        return None
    seen: set[str] = set()
    queue = [module_name]
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        if name in MODULE_DEFAULT_DTYPES:
            return MODULE_DEFAULT_DTYPES[name]
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if module is None or name != module_name and not (isinstance(path, str) and stubs.in_repository(path, root)):
            continue  # only the repository's own modules are followed
        for value in list(vars(module).values()):
            referred = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
            if isinstance(referred, str) and referred not in seen:
                queue.append(referred)
    return None


def import_class(module_name: str, qualname: str, root: str | None = None, file: str | None = None) -> Any:
    """The class; missing third-party modules are stubbed when ``root`` is given (stubs.py).

    ``file``: the source file the class is in.  Where another file of the repository answers
    to the same module name first on ``sys.path`` (a ``networks.py`` at the root and one in
    ``feature_release/models/``, or a ``models`` package in two folders), the module and its
    packages are imported again from the file's own folder."""
    try:
        obj: Any = _import_module(module_name, root, qualname.split(".")[0])
    except ImportError as exc:
        # `from .layers import X` in a folder without __init__.py: importable only as part of the
        # namespace package its path from the root spells (`models.Seq2seq`, not `Seq2seq`)
        spelled = _path_module(file, root)
        if (file is not None and isinstance(exc, ModuleNotFoundError) and exc.name
                and (module_name == exc.name or module_name.startswith(exc.name + "."))):
            # `model.net` answered by another folder's `model` package, which has no `net`: the
            # file is imported from its own folder below
            obj = None
        elif "no known parent package" not in str(exc) or spelled is None or spelled == module_name:
            raise
        else:
            module_name = spelled
            obj = stubs.import_with_stubs(module_name, root)
    by_path_error = None
    if file is not None and not _same_file(getattr(obj, "__file__", None), file) and _hides_a_root_package(module_name, root):
        # `pkg/models/pkg.py` in a folder without __init__.py: its short name is the repository's
        # own package, which its imports (`from pkg.models.diffusion import ...`) need; the path
        # from the root names the file without hiding that package.  (A module of a package,
        # `model.MEFL` in one of two `model` folders, is imported again from its own folder
        # below, so that its imports find that folder's modules.)
        obj, module_name, by_path_error = _import_by_path(file, root, module_name, obj)
    if file is not None and not _same_file(getattr(obj, "__file__", None), file):
        folder = Path(file).resolve().parent
        for _ in range(module_name.count(".")):
            folder = folder.parent  # the import root of a package module
        # the module, what it holds, and the packages above it: `models.networks` is looked up
        # in the `models` package already imported, which may be the other folder's
        ancestors = {module_name.rsplit(".", depth)[0] for depth in range(1, module_name.count(".") + 1)}
        for name in [n for n in sys.modules if n == module_name or n.startswith(module_name + ".") or n in ancestors]:
            del sys.modules[name]
        sys.path.insert(0, str(folder))
        importlib.invalidate_caches()
        try:
            obj = stubs.import_with_stubs(module_name, root) if root else importlib.import_module(module_name)
        except Exception as exc:
            # the folder put first would hide the repository's packages from every later import
            # of this worker (`calodiffusion/models/` holding `calodiffusion.py`)
            if str(folder) in sys.path:
                sys.path.remove(str(folder))
            importlib.invalidate_caches()
            if by_path_error is not None and isinstance(exc, ImportError) and "is not a package" in str(exc):
                # the file, imported under its short name, hid its own package: what it raised
                # when found by its path is the real failure
                raise by_path_error from None
            raise
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


# Modules whose package's __init__ raised after the module itself had run to its end:
# module name -> what the package raised (said in the verdict's details).
PACKAGE_INIT_FAILURES: dict[str, str] = {}


# Modules imported without running the __init__ of a package above them, which raised before
# the module's own code ran (`models/__init__.py` importing every model, one of them needing
# a module that is missing): module name -> that package and what it raised.
PACKAGE_INIT_SKIPPED: dict[str, str] = {}


def _without_package_init(exc: BaseException, module_name: str, root: str | None) -> str | None:
    """Import ``module_name`` again with the package whose ``__init__`` raised ``exc`` (before
    the module itself ran) standing as an empty package over its folder, as a namespace
    package would: the module's own code and the modules it imports run as written, the
    package's other imports do not.  The package's name, or None where no package's
    ``__init__`` of the repository raised it or the module still fails."""
    failing = None
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_name != "<module>":
            continue
        name, init_file = frame.f_globals.get("__name__"), frame.f_globals.get("__file__") or ""
        if name and module_name.startswith(name + ".") and os.path.basename(init_file) == "__init__.py":
            failing = (name, init_file)
            break  # the outermost package whose __init__ the failure went through
    if failing is None or root is None or not stubs.in_repository(failing[1], root):
        return None
    name, init_file = failing
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [os.path.dirname(init_file)]
    package = importlib.util.module_from_spec(spec)
    package.__file__ = init_file
    for stale in [n for n in sys.modules if n == name or n.startswith(name + ".")]:
        del sys.modules[stale]
    sys.modules[name] = package
    parent, _, last = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], last, package)
    importlib.invalidate_caches()
    try:
        stubs.import_with_stubs(module_name, root)
    except Exception:
        sys.modules.pop(name, None)
        return None
    return name


# Modules whose own top-level code raised after the class was defined (a script's training
# code below its model, run on import): module name -> what it raised, without its line (the
# rewritten file's lines differ), and the exception itself.
MODULE_TAIL_FAILURES: dict[str, tuple[str, BaseException]] = {}

# Modules whose own top-level code raised before the class was defined, built from their
# definitions instead (definitions.py): module name -> (what the import raised, the
# statements skipped because they raised).
DEFINITIONS_ONLY: dict[str, tuple[str, list[list[Any]]]] = {}


def _import_module(module_name: str, root: str | None, needed: str | None = None) -> Any:
    """The module; where its own code ran to the end but its package's __init__ raised later
    (`from .ms_ssim import ssim`, then `from .alignnet import *` needing an unbuilt extension),
    the module as it ran, on every attempt alike (Python would hand it out on the next one:
    it stays in sys.modules), with what the package raised remembered.

    Where the module's own top-level code raised after it had defined ``needed`` (the class),
    the module as far as it ran, with what it raised remembered: both sides stop at the same
    statement, and the rewritten side checks that it raises the same (see _rewritten)."""
    try:
        return stubs.import_with_stubs(module_name, root) if root else importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:
        if isinstance(exc, SyntaxError):
            raise
        ran = sys.modules.get(module_name)
        if "." in module_name and ran is not None and getattr(ran, "__spec__", None) is not None:
            PACKAGE_INIT_FAILURES[module_name] = format_exception(exc)
            return ran
        # compared across the two sides: an object's address in the message differs between them
        said = re.sub(r"0x[0-9a-fA-F]+", "0x...", f"{type(exc).__name__}: {exc}")
        partial = _ran_until_it_raised(exc, module_name, needed)
        if partial is None and ran is None and (bypassed := _without_package_init(exc, module_name, root)) is not None:
            PACKAGE_INIT_SKIPPED[module_name] = f"{bypassed}: {said}"
            return sys.modules[module_name]
        if partial is None:
            # (a module that is not there, or lacks a name, has its own answers: stubs, how to build it)
            ran = None if isinstance(exc, ImportError) or _unbuilt_extension(exc, root) is not None else \
                _module_namespace(exc, module_name, own=True)
            built = definitions.definitions_only(module_name, ran, needed) if ran is not None and needed else None
            if built is None:
                raise
            # a script whose top-level code raised before defining the class: its definitions
            DEFINITIONS_ONLY[module_name] = (said, built[1])
            return built[0]
        MODULE_TAIL_FAILURES[module_name] = (said, exc)
        sys.modules[module_name] = partial  # later imports of the module (pickling the class) find it
        return partial


def _made_up(chosen: dict[str, Any]) -> bool:
    """Whether a build's arguments, or the one its variant changes, are made up by the tool
    (`x_mean=8` for a `None` default): a non-tensor among them proves nothing about a tensor."""
    if chosen.get("kind") in _MADE_UP:
        return True
    if chosen.get("kind") == "parent":
        # built inside a parent that was built from made-up arguments
        return (chosen.get("spec") or {}).get("kind") in _MADE_UP
    if chosen.get("kind") != "variant":
        return False
    spec = chosen.get("spec") or {}
    return (spec.get("base") or {}).get("kind") in _MADE_UP or any(
        isinstance(value, dict) and value.get("op") == "synth" for _, value in spec.get("set") or [])


def _what_raised(skipped: list[list[Any]] | None) -> list[str] | None:
    """The exceptions of the statements definitions_only skipped, in order, without their lines
    (a rewrite may move the lines below it)."""
    return None if skipped is None else [name for _, name in skipped]


def _skipped_text(skipped: list[list[Any]] | None) -> str:
    """``"line 7 (FileNotFoundError), line 9 (NameError)"``, or "nothing"."""
    return ", ".join(f"line {line} ({name})" for line, name in skipped or []) or "nothing"


def _module_namespace(exc: BaseException, module_name: str, own: bool = False) -> dict[str, Any] | None:
    """The globals of ``module_name``'s top-level code where ``exc`` went through it; None where
    it did not.  ``own``: only where no module it imports raised it (the innermost top-level
    code the traceback runs through is this module's)."""
    namespace = None
    innermost = None
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_name == "<module>":
            innermost = frame.f_globals.get("__name__")
            if innermost == module_name:
                namespace = frame.f_globals
    return None if own and innermost != module_name else namespace


def _ran_until_it_raised(exc: BaseException, module_name: str, needed: str | None) -> Any:
    """The module ``module_name`` as far as its top-level code ran before raising ``exc``, where
    that code is the module's own (not a module it imports) and had already defined ``needed``."""
    namespace = _module_namespace(exc, module_name)
    if namespace is None or needed is None:
        return None
    defined = namespace.get(needed)
    if not (isinstance(defined, type) and defined.__module__ == module_name):
        return None
    module = types.ModuleType(module_name)
    module.__dict__.update(namespace)
    return module


_CANNOT_IMPORT_NAME = re.compile(r"cannot import name '([\w.]+)' from '([\w.]+)'")


def _removed_name(exc: BaseException, root: str | None) -> str | None:
    """What to say when the repository imports a name that an installed package no longer has
    (`from PIL import PILLOW_VERSION`, removed in Pillow 7; `from scipy.misc import imread`):
    the repository needs the older version it was written for, which says nothing about the
    rewrite."""
    if type(exc) is not ImportError or not exc.name:
        return None
    found = _CANNOT_IMPORT_NAME.search(str(exc))
    path = getattr(exc, "path", None)
    if found is None or path is None:
        return None
    if root is not None and Path(path).resolve().is_relative_to(Path(root).resolve()):
        return None  # the repository's own module lacks it: the repository's own defect
    top = exc.name.split(".")[0]
    return (f"the repository imports {found.group(1)} from {exc.name}, which the installed {top} no longer has: it "
            f"needs the older {top} it was written for (its own requirements) before validating")


def _unbuilt_extension(exc: BaseException, root: str | None) -> str | None:
    """What to say when a module of the repository's own packages is missing and the folder
    that should hold it holds C++ or CUDA sources: an extension to build first
    (`pointpillars.ops.voxel_op` next to `voxelization/*.cu`)."""
    library = _unbuilt_library(exc, root)
    if library is not None:
        return library
    submodule = _missing_submodule(exc, root)
    if submodule is not None:
        return submodule
    if not isinstance(exc, ModuleNotFoundError) or not exc.name or root is None or "." not in exc.name:
        return None
    folder = Path(root, *exc.name.split(".")[:-1])
    if not folder.is_dir():
        return None
    if not any(p.suffix in (".cpp", ".cu", ".cc", ".c", ".pyx") for p in folder.rglob("*") if p.is_file()):
        return None
    return (f"the repository's module {exc.name} is not there to import: its folder holds C++/CUDA sources, an "
            "extension to build (python setup.py build_ext --inplace, or the repository's own instructions) before "
            "validating")


# ctypes.CDLL("src/libalign.so") where the library was never built.
_MISSING_LIBRARY = re.compile(r"([\w./-]+\.(?:so|dylib|dll))\b[^\n]*(?:cannot open shared object file|image not found|no such file)",
                              re.IGNORECASE)


def _missing_submodule(exc: BaseException, root: str | None) -> str | None:
    """A module of a git submodule of the repository that is not checked out (an empty
    folder that `.gitmodules` names): `from HGCalShowers.HGCalGeo import HGCalGeo`, or one
    deeper in the tree (`utils.pytorch_prototyping.pytorch_prototyping`, the submodule at
    `utils/pytorch_prototyping`)."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name or root is None:
        return None
    try:
        listed = Path(root, ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    parts = exc.name.split(".")
    for depth in range(1, len(parts) + 1):
        path = "/".join(parts[:depth])
        folder = Path(root, *parts[:depth])
        try:
            empty = folder.is_dir() and not any(folder.iterdir())
        except OSError:
            return None
        if empty and re.search(rf"^\s*path\s*=\s*{re.escape(path)}/?\s*$", listed, re.MULTILINE):
            return (f"the repository's module {exc.name} is in the git submodule {path}, which is not checked out "
                    "(git submodule update --init) before validating")
    return None


def _unbuilt_library(exc: BaseException, root: str | None) -> str | None:
    """A shared library the repository loads itself (`cdll.LoadLibrary("src/libalign.so")`)
    that is not there, beside C or C++ sources to build it from."""
    if not isinstance(exc, OSError) or root is None:
        return None
    match = _MISSING_LIBRARY.search(str(exc))
    if match is None:
        return None
    library = Path(root, match.group(1))
    folder = library.parent
    if library.exists() or not folder.is_dir() or not any(
            p.suffix in (".c", ".cc", ".cpp", ".cu") for p in folder.iterdir() if p.is_file()):
        return None
    return (f"the shared library {match.group(1)} that the repository loads is not built: its folder holds the C/C++ "
            "sources; build it (make, or the repository's own instructions) before validating")


def _has_defaults(cls: type) -> bool:
    """Whether the constructor takes a parameter with a default value (one the class's own
    defaults build it with, and an example may set otherwise)."""
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.default is not p.empty for p in parameters)


def _hides_a_root_package(module_name: str, root: str | None) -> bool:
    """A top-level module name that is also a package (or module) at the repository root."""
    if root is None or "." in module_name:
        return False
    return Path(root, module_name, "__init__.py").is_file() or Path(root, module_name + ".py").is_file()


def _import_by_path(file: str, root: str | None, module_name: str, obj: Any) -> tuple[Any, str, Exception | None]:
    """(module, name, None) imported under the dotted name of the file's path from the root
    when that is another name than ``module_name`` and answers with the file itself; else
    (``obj``, ``module_name``, what that import raised, if it did)."""
    spelled = _path_module(file, root)
    if spelled is None or spelled == module_name:
        return obj, module_name, None
    try:
        found = stubs.import_with_stubs(spelled, root)
    except Exception as exc:
        return obj, module_name, exc
    if not _same_file(getattr(found, "__file__", None), file):
        return obj, module_name, None
    return found, spelled, None


def _path_module(file: str | None, root: str | None) -> str | None:
    """The dotted name a file's path from the root spells (`models/Seq2seq.py`: models.Seq2seq).
    A folder name need not be an identifier: `python -m MetaQA-KB.train`, as a README says to
    run it, imports `MetaQA-KB` as a namespace package (the import system takes any name that
    holds no dot)."""
    if file is None or root is None:
        return None
    try:
        relative = Path(file).resolve().relative_to(Path(root).resolve())
    except ValueError:
        return None
    parts = relative.with_suffix("").parts
    return ".".join(parts) if parts and parts[-1].isidentifier() and all(p and "." not in p for p in parts) else None


def _raised_in_rewritten_code(exc: BaseException) -> bool:
    """Whether an import failure comes from a file the rewrite changed (the overlaid ones): a
    syntax error in one, or one raising itself (its innermost frame).  A rewritten module that
    imports a module which raises (`logging.basicConfig(filename="./logs/...")`) is not blamed."""
    from codemod.validate import overlay

    rewritten = overlay.overlaid_files()
    if isinstance(exc, SyntaxError) and exc.filename:
        return overlay.normalize(exc.filename) in rewritten
    innermost = None
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        if not frame.f_code.co_filename.startswith("<"):  # importlib's frozen frames
            innermost = frame.f_code.co_filename
    return innermost is None or overlay.normalize(innermost) in rewritten


def _same_file(a: str | None, b: str) -> bool:
    return a is not None and os.path.realpath(a) == os.path.realpath(b)


def import_dotted(target: str, root: str) -> Any:
    """``"pkg.mod.Class"`` (or ``"pkg.mod.Outer.Inner"``): the longest importable module prefix."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        try:
            found = module in sys.modules or importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            return import_class(module, ".".join(parts[cut:]), root)
    raise ImportError(f"cannot import {target}")


_SOURCE_OF: dict[str, str | None] = {}  # module name -> its file when it counts, decided once per worker
_SKIP_PREFIXES: tuple[str, ...] | None = None


def imported_files(roots: list[str]) -> list[str]:
    """Source files of the loaded modules that are not part of the interpreter's installation.

    Installed packages are covered by the listing of the site directories (see
    hello); these are the repository's files and anything else on the path.
    Each module is looked at once per worker: a worker reports after every class.
    """
    global _SKIP_PREFIXES
    if _SKIP_PREFIXES is None:
        _SKIP_PREFIXES = tuple({os.path.realpath(p) + os.sep for p in _installation_dirs()})
    out = set()
    for name, module in list(sys.modules.items()):
        if name not in _SOURCE_OF:
            _SOURCE_OF[name] = _counted_file(module, _SKIP_PREFIXES)
        path = _SOURCE_OF[name]
        if path is not None:
            out.add(path)
    return sorted(out)


def _counted_file(module: Any, skip: tuple[str, ...]) -> str | None:
    filename = getattr(module, "__file__", None)
    if not isinstance(filename, str) or not filename.endswith(".py") or not os.path.isabs(filename):
        return None  # some extension modules name a relative, made-up file
    if filename.startswith(skip):
        return None  # the cheap test first: most modules are installed ones
    path = os.path.realpath(filename)
    if path.startswith(skip) or not os.path.isfile(path):
        return None
    return path


def _installation_dirs() -> list[str]:
    paths = sysconfig.get_paths()
    return [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths] + site_dirs()


def site_dirs() -> list[str]:
    import site

    dirs = list(getattr(site, "getsitepackages", lambda: [])())
    user = getattr(site, "getusersitepackages", lambda: None)()
    if user:
        dirs.append(user)
    paths = sysconfig.get_paths()
    dirs += [paths[k] for k in ("purelib", "platlib") if k in paths]
    return sorted({os.path.realpath(d) for d in dirs if os.path.isdir(d)})


def attribute_state(model: torch.nn.Module, attr: str) -> dict[str, Any]:
    """Where ``attr`` lives on the model: plain attribute, buffer, parameter."""
    owner_path, _, name = attr.rpartition(".")
    try:
        owner = model.get_submodule(owner_path) if owner_path else model
    except AttributeError:
        return {"where": "missing"}
    name = checks.stored_name(owner, name)  # `self.__x` of class C is stored as `_C__x`
    state: dict[str, Any] = {"in_dict": name in vars(owner), "persistent": None}
    if name in owner._parameters:
        state["where"], value = "parameter", owner._parameters[name]
    elif name in owner._buffers:
        state["where"], value = "buffer", owner._buffers[name]
        state["persistent"] = name not in owner._non_persistent_buffers_set
    elif state["in_dict"]:
        value = vars(owner)[name]
        state["where"] = "dict" if isinstance(value, torch.Tensor) else "other"
    else:
        try:
            value = getattr(owner, name)
        except AttributeError:
            return {"where": "missing"}
        state["where"] = "other"
    state["type"] = type(value).__name__
    if isinstance(value, torch.Tensor):
        state["requires_grad"] = bool(value.requires_grad)
        state["tensor"] = value.detach().clone()
    return state


def snapshot(model: torch.nn.Module, findings: list[list[Any]]) -> dict[str, Any]:
    buffers = []
    for path, module in model.named_modules():
        for name in list(module._buffers.keys()):  # a ScriptModule's wrapper has keys() but no __iter__
            buffers.append((_join(path, name), name not in module._non_persistent_buffers_set))
    state_dict = []
    saved = model.state_dict()
    for key, value in saved.items():
        # extra state may be any object; only tensors survive a weights_only load
        state_dict.append((key, value.detach().clone() if isinstance(value, torch.Tensor) else repr(value)))
    return {
        "state_metadata": _plain_metadata(getattr(saved, "_metadata", None)),
        "attrs": {attr: attribute_state(model, attr) for attr, *_ in findings},
        "raw": devices.raw_tensors(model),
        "state_dict": state_dict,
        "params": [(n, bool(p.requires_grad)) for n, p in model.named_parameters()],
        "param_names_all": [n for n, _ in model.named_parameters(remove_duplicate=False)],
        "buffers": buffers,
        "modules": [
            (path, type(m).__module__, type(m).__qualname__) for path, m in model.named_modules(remove_duplicate=False)
        ],
    }


def _plain_metadata(metadata: Any) -> dict[str, dict[str, Any]]:
    """A state_dict's ``_metadata`` (module versions, which load hooks read), as plain data."""
    def plain_value(value: Any) -> bool:
        if value is None or isinstance(value, (bool, int, float, str)):
            return True
        return isinstance(value, dict) and all(isinstance(k, str) and plain_value(v) for k, v in value.items())

    plain: dict[str, dict[str, Any]] = {}
    for prefix, entry in (metadata or {}).items():
        if isinstance(prefix, str) and isinstance(entry, dict):
            plain[prefix] = {k: v for k, v in entry.items() if isinstance(k, str) and plain_value(v)}
    return plain


def checkpoint_check(model: torch.nn.Module, original_state: list[tuple[str, Any]],
                     metadata: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Does the original's state_dict load into the rewritten model with strict=True?  (With the
    ``_metadata`` a saved state_dict carries: version-aware load hooks need it.)"""
    state = OrderedDict((k, v) for k, v in original_state if isinstance(v, torch.Tensor))
    if metadata:
        state._metadata = metadata  # type: ignore[attr-defined]
    skipped = {k for k, v in original_state if not isinstance(v, torch.Tensor)}
    try:
        model.load_state_dict(state, strict=True)
        return {"compatible": True, "missing": [], "error": None}
    except Exception as exc:
        error = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    only_missing = False  # the sole problem is keys the original never had
    try:
        result = model.load_state_dict(state, strict=False)
        missing = [k for k in result.missing_keys if k not in skipped]
        only_missing = bool(missing) and not result.unexpected_keys
    except Exception:
        missing = []
    return {"compatible": False, "missing": missing, "error": error, "only_missing": only_missing}


class WorkerState:
    def __init__(self, config: dict[str, Any]) -> None:
        self.side = config["side"]
        self.root = config["root"]
        self.roots = list(config.get("roots") or [self.root])
        self.examples = ExamplesFile(config.get("examples"))
        self.context = Context(lambda target: import_dotted(target, self.root), self.roots)
        self.zero_setup = bool(config.get("zero_setup", True))
        self.context.synthesize = self.zero_setup
        self.parent_budget_s = float(config.get("parent_budget_s", 20.0))
        self.timeout = float(config.get("timeout") or 60.0)
        self.index: dict[str, dict[str, tuple[str, bool | None]]] = {}
        for item in config.get("rewrites", []):
            entry = self.index.setdefault(f"{item['module']}.{item['class_name']}", {})
            for attr, action, persistent, *_ in item["findings"]:
                entry[attr] = (action, persistent)
        # Uninitialised memory (torch.empty, torch.Tensor(n)) holds whatever was there before, a
        # different value in every build and run: filled with NaN (the largest integer) instead,
        # it is the same on both sides, and every verdict is the same on every run.
        # (torch.use_deterministic_algorithms would also set an option of torch._inductor, whose
        # import costs seconds; nothing here compiles)
        torch._C._set_deterministic_algorithms(True, warn_only=True)
        torch.utils.deterministic.fill_uninitialized_memory = True  # type: ignore[attr-defined]
        self.default_dtype = torch.get_default_dtype()
        record_default_dtype_setters()
        self.device: torch.device | None = None
        self.device_label = "cpu"
        self.device_error: str | None = None
        # while the original's forwards run (on the CPU; after the device move): which statements
        # that read a rewritten attribute ran
        self._read_trace: checks.LineCoverage | None = None
        self._device_read_trace: checks.LineCoverage | None = None
        self._resolve_device(config.get("device", "auto"))

    def _resolve_device(self, spec: str) -> None:
        if spec == "auto":
            spec = "cuda" if torch.cuda.is_available() else "meta"
        if spec == "cpu":
            return
        if spec == "meta":
            self.device, self.device_label = torch.device("meta"), "cpu+meta"
            return
        if spec.startswith("cuda"):
            if not torch.cuda.is_available():
                self.device_error = f"device {spec!r} was requested but torch.cuda.is_available() is False"
                return
            try:
                device = torch.device(spec)
                if device.index is not None and device.index >= torch.cuda.device_count():
                    raise ValueError(f"only {torch.cuda.device_count()} CUDA devices are visible")
                self.device = devices.target_device(spec)
            except Exception as exc:
                self.device_error = f"device {spec!r}: {exc}"
                return
            self.device_label = str(self.device)
            seed_every_device(True)
            return
        self.device_error = f"unknown device {spec!r}: use auto, cpu, meta, cuda or cuda:N"

    # -- one class -------------------------------------------------------------------------

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "harvest":
            return self._harvest(request)
        if self.zero_setup:
            self.context.parents = Known(request.get("parents"))
        # Imported by torch on first use (sympy, by meta kernels), which the checks of every
        # class reach: imported first, its time is not the class's.  torch._dynamo is not
        # needed at all (worker.skip_dynamo_disable).
        warm_import("torch.fx.experimental.symbolic_shapes")
        try:
            result = self._original(request) if self.side == "original" else self._rewritten(request)
        finally:
            self._reset()
        result["imported"] = imported_files(self.roots)
        if stubs.stubbed():
            result["stubbed"] = stubs.stubbed()
        if self.device is not None and self.device.type == "cuda" and not _cuda_usable():
            result["restart"] = True
        return result

    def _import_time_default_dtype(self, cls: Any) -> None:
        """Build the class under the default dtype its module's import set, imported by this
        request or an earlier one (MODULE_DEFAULT_DTYPES); _reset restores the worker's own."""
        dtype = import_time_default_dtype(str(getattr(cls, "__module__", "")), self.root)
        if dtype is not None and dtype != torch.get_default_dtype():
            torch.set_default_dtype(dtype)

    def _reset(self) -> None:
        torch.set_grad_enabled(True)
        if torch.get_default_dtype() != self.default_dtype:
            torch.set_default_dtype(self.default_dtype)
        gc.collect()
        if self.device is not None and self.device.type == "cuda":
            torch.cuda.empty_cache()

    def _harvest(self, request: dict[str, Any]) -> dict[str, Any]:
        """Which parent builds each class that nothing else builds (parents.py)."""
        phase("harvest")
        targets = []
        for item in request["classes"]:
            target = f"{item['module']}.{item['class_name']}"
            try:
                cls = import_class(item["module"], item["class_name"], self.root)
            except BaseException:
                continue  # reported by the class's own request
            if needs_parent(cls, target, self.examples, bool(item.get("record"))):
                targets.append(target)
        if not targets:
            return {"status": "ok", "parents": {}}
        parents = Parents(self.examples, self.context, self.parent_budget_s)
        try:
            found = parents.harvest(targets)
        finally:
            self._reset()
        return {"status": "ok", "parents": found}

    def _original(self, request: dict[str, Any]) -> dict[str, Any]:
        target = f"{request['module']}.{request['class_name']}"
        cuda_calls, folder_builds = cuda_standin.used(), own_folder.used()
        self.context.usages = list(request.get("usages") or [])
        self.context.rewritten = [attr for attr, *_ in request["findings"]]
        phase("import")
        try:
            cls = import_class(request["module"], request["class_name"], self.root, request.get("file"))
        except BaseException as exc:
            used = stubs.stub_used(exc)
            if used is not None:
                return {"status": "not_validated", "message": f"importing {request['module']}: {used}"}
            unbuilt = _unbuilt_extension(exc, self.root) or _removed_name(exc, self.root)
            if unbuilt is not None:
                return {"status": "not_validated", "message": f"importing {request['module']}: {unbuilt}"}
            return {"status": "error", "message": f"importing {request['module']} raised {format_exception(exc)}"}
        self._import_time_default_dtype(cls)
        if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
            missing = stubs.stub_base(cls)
            if missing is not None:  # an nn.Module only through a package the interpreter lacks
                return {"status": "not_validated", "message": f"building {target}: {missing}"}
            return {"status": "not_validated", "message": f"{target} is not an nn.Module subclass"}
        stand_ins = reads.stand_ins(cls, [attr for attr, *_ in request["findings"]])
        stood_in = stand_ins[0] if stand_ins else None
        if stood_in is not None:
            reads.apply_stand_in(cls, stood_in)
        phase("examples")
        try:
            source = resolve_source(cls, target, self.examples, request.get("record"), context=self.context)
        except NotBuildable as exc:
            return {"status": "not_validated", "message": exc.message, "snippet": exc.snippet}
        except BaseException as exc:
            used = stubs.stub_used(exc)
            if used is None:
                raise
            return {"status": "not_validated", "message": f"building {target}: {used}"}
        findings = request["findings"]
        cpu_started = time.process_time()
        try:
            try:
                data = self._gather(cls, source, findings, coverage_file=request.get("file"))
            except StageError as exc:
                if not (exc.stage == "build" and source.kind == "default" and forwarded_base(cls) is None
                        and stubs.stub_used(exc.exc) is None
                        and (synth.none_default_parameters(cls) or synth.keyword_reads(cls)
                             or synth.forwards_keywords(cls))):
                    raise
                # Its own defaults do not build it and some are None (`width=None`, whose length
                # the constructor takes): a sentinel for "must be given", so the repository's
                # calls and made-up values are tried, as for a class that requires its arguments;
                # so are they for keys a `**model_params` constructor reads (`model_params["dim"]`)
                # and for a base's required parameters that `**args` hands on.
                # A constructor that raises with nothing left to give it stays an error.
                source = resolve_source(cls, target, self.examples, request.get("record"), context=self.context,
                                        defaults_raised=exc.text)
                data = self._gather(cls, source, findings, coverage_file=request.get("file"))
            if stood_in is not None and not data["has_inputs"]:
                stood_in, data = self._other_stand_ins(cls, source, findings, request, stand_ins, data)
        except NotBuildable as exc:
            return {"status": "not_validated", "message": exc.message, "snippet": exc.snippet}
        except StageError as exc:
            used = stubs.stub_used(exc.exc)
            if used is not None:
                return {"status": "not_validated", "message": f"building {target}: {used}"}
            if exc.stage == "build" and (source.kind in ("synth", "parent", "usage")
                                         or (source.kind == "default" and forwarded_base(cls) is not None)):
                # made-up or borrowed arguments that do not build prove nothing either way
                return {"status": "not_validated", "message": f"{source.detail}: the constructor raised {exc.text}",
                        "snippet": None}
            where = "the constructor" if exc.stage == "build" else "the example inputs"
            if exc.stage == "build" and source.kind == "default" and _has_defaults(cls):
                # the repository's own defaults do not build it (a default that only its configs override)
                return {"status": "error", "message": f"the constructor, called with the class's own defaults, raised "
                        f"{exc.text}: add an example with arguments that build it"}
            return {"status": "error", "message": f"{where} raised {exc.text}"}
        builds = [self._portable(data, source)]
        names = [attr for attr, *_ in findings]
        forward_reads = reads.forward_reads(cls, names)
        handed_on = reads.handed_on(cls, names)
        unrun_readers = reads.unrun_readers(cls, names)
        tried = [0]
        first_cpu = time.process_time() - cpu_started
        if self.zero_setup and not data["forward_error"]:
            if first_cpu <= self.timeout * MORE_BUILDS_SHARE:
                builds += self._more_builds(cls, target, source, request, data, forward_reads, handed_on, tried)
            elif not Evidence(findings, forward_reads, handed_on).added(data).complete():
                # CPU time, not the clock: a busy machine decides as an idle one
                builds[0]["notes"].append(f"no further builds: the first took {first_cpu:.0f} s of CPU time, more than "
                                          f"{MORE_BUILDS_SHARE:.0%} of the {self.timeout:g} s a class may take")
        if first_cpu <= self.timeout * MORE_BUILDS_SHARE:
            builds += self._reader_builds(cls, source, request, names)
            builds += self._setter_builds(cls, source, request, builds)
        phase("save")
        if stood_in is not None:
            builds[0]["notes"].append(f"{request['class_name']} has no forward: {stood_in}(), which reads the rewritten "
                                      "attributes, stood in for it (run and compared as its forward, on both sides)")
        if cuda_standin.used() > cuda_calls:
            builds[0]["notes"].append(cuda_standin.note())
        if own_folder.used() > folder_builds:
            builds[0]["notes"].append(own_folder.note(folder_builds))
        tail = MODULE_TAIL_FAILURES.get(request["module"])
        if tail is not None:
            builds[0]["notes"].append(f"{request['module']} was imported as far as its top-level code ran: after "
                                      f"defining {request['class_name']}, it raised {format_exception(tail[1])} "
                                      "(on both sides alike)")
        only = DEFINITIONS_ONLY.get(request["module"])
        if only is not None:
            skipped = f"; the definitions that raised were skipped ({_skipped_text(only[1])})" if only[1] else ""
            builds[0]["notes"].append(
                f"{request['module']}'s top-level code raised {only[0]} before defining {request['class_name']}: "
                "the module was built from its imports, functions, classes and plain assignments, without the "
                f"code that does the script's work (on both sides alike){skipped}")
        if request["module"] in PACKAGE_INIT_SKIPPED:
            builds[0]["notes"].append(
                f"imported without running the __init__ of package {PACKAGE_INIT_SKIPPED[request['module']]} (it raised "
                "before the module ran; the package stood empty over its folder, on both sides alike)")
        if PACKAGE_INIT_FAILURES:
            builds[0]["notes"].append("imported although its package's __init__ raised after the module had run: "
                                      + "; ".join(f"{m}: {e}" for m, e in sorted(PACKAGE_INIT_FAILURES.items())))
        if compat.used_names():
            builds[0]["notes"].append("ran with names numpy or Python have removed, given back as older releases bound "
                                      "them: " + ", ".join(compat.used_names()))
        if stubs.stubbed():
            used = (f"; used only as decorators, which left what they decorate unchanged: {', '.join(stubs.DECORATED)}"
                    if stubs.DECORATED else "")
            if stubs.DISCARDED_CALLS:
                used += ("; called at a module's top level in statements that keep nothing, let pass: "
                         + ", ".join(f"{name}(...)" for name in stubs.DISCARDED_CALLS))
            builds[0]["notes"].append("imported with stand-ins for modules that are not installed: "
                                      + ", ".join(stubs.stubbed()) + f" (not otherwise used while building and running{used})")
        torch.save({"builds": builds, "forward_reads": forward_reads, "handed_on": handed_on,
                    "unrun_readers": unrun_readers, "stand_in": stood_in,
                    "definitions_only": list(DEFINITIONS_ONLY[request["module"]][1])
                    if request["module"] in DEFINITIONS_ONLY else None,
                    "tried": tried[0] - (len(builds) - 1), "module_tail": tail[0] if tail else None},
                   request["data"])
        return {"status": "ok", "source": source.kind}

    def _portable(self, data: dict[str, Any], source: Source) -> dict[str, Any]:
        data["source_spec"] = {"kind": source.kind, "spec": source.spec, "inputs": source.inputs_spec,
                               "no_inputs": source.make_inputs is None, "method": source.method,
                               "prepare": source.prepare, "dtype": source.dtype}
        data["outputs"] = compare.portable(data["outputs"]) if data["outputs"] is not None else None
        if data.get("device"):
            # a GPU forward of the original is the reference of the rewritten one there (the same
            # kernels and random streams); meta outputs hold no values
            outputs = data["device"].pop("outputs", None)
            if outputs is not None and self.device is not None and self.device.type != "meta":
                data["device"]["outputs"] = compare.portable(outputs)
        return data

    def _more_builds(self, cls: type, target: str, primary: Source, request: dict[str, Any], first: dict[str, Any],
                     forward_reads: dict[str, bool], handed_on: list[str], tried: list[int]) -> list[dict[str, Any]]:
        """Further builds of the class while they add evidence the builds so far lack: a
        rewritten statement that has not run yet (the other arm of an ``if``), an attribute that
        held no tensor, or a forward for an attribute some forward reads.  Variants of the first
        build's arguments come first (each boolean flipped, each None default given a value),
        then the other sources (the record, the repository's calls, made-up arguments)."""
        findings = request["findings"]
        evidence = Evidence(findings, forward_reads, handed_on)
        evidence.add(first)
        out: list[dict[str, Any]] = []
        if evidence.complete():
            return out
        phase("builds")
        for source in variant_sources(cls, target, primary, self.examples, request.get("record"), self.context):
            if tried[0] >= MAX_VARIANTS_TRIED or len(out) + 1 >= MAX_BUILDS or evidence.complete():
                break
            tried[0] += 1
            probe = self._probe_build(cls, source, findings, request.get("file"))
            if probe is None:
                continue
            model, unrun, attrs = probe
            adds = evidence.adds(unrun, attrs)
            if not adds and not evidence.wants_forward(attrs):
                continue
            if source.make_inputs is not None and not _runs(model, source):
                source.make_inputs = None  # the inputs of the build it varies do not fit this one
            if source.make_inputs is None:
                self._probe_inputs(cls, model, source, {"notes": source.notes})  # the build's details say which
            del model
            if not adds and source.make_inputs is None:
                continue
            data = self._gathered_with_forward(cls, source, request)
            if data is None:
                continue  # it did not build, or the inputs the first build's source gave do not fit this one
            evidence.add(data)
            out.append(self._portable(data, source))
        if not evidence.complete() and primary.make_inputs is not None and len(out) + 1 < MAX_BUILDS:
            out += self._input_variants(cls, primary, request, evidence, MAX_BUILDS - 1 - len(out), tried)
        return out

    def _other_stand_ins(self, cls: type, source: Source, findings: list[list[Any]], request: dict[str, Any],
                         stand_ins: list[str], data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The next methods that could stand in for the missing forward (``stand_ins``, the
        first applied), while none has run: the first whose made-up inputs run it, with its
        build; else the first stand-in's."""
        first = stand_ins[0]
        for name in stand_ins[1:MAX_STAND_INS_TRIED]:
            reads.apply_stand_in(cls, name)
            try:
                other = self._gather(cls, source, findings, coverage_file=request.get("file"))
            except (NotBuildable, StageError):
                continue
            if other["has_inputs"]:
                other["notes"].append(f"{first}() did not run with made-up inputs ({_inputs_failure(data)})")
                return name, other
        reads.apply_stand_in(cls, first)
        return first, data

    def _reader_builds(self, cls: type, primary: Source, request: dict[str, Any], names: list[str]
                       ) -> list[dict[str, Any]]:
        """Builds that run, in place of forward, a method that reads rewritten attributes no
        forward reads (`q_sample()` of a diffusion module whose forward is the training loss):
        the primary build's arguments, inputs made up for that method, and every check of a
        forward (float32, casts, meta) on both sides.  Kept only where the method ran and read
        one of them."""
        out: list[dict[str, Any]] = []
        proven: set[str] = set()
        tried = 0
        for method, read in reads.reader_methods(cls, names):
            if len(out) >= MAX_READER_BUILDS or tried >= MAX_READERS_TRIED:
                break
            if not set(read) - proven:
                continue
            tried += 1
            phase(f"builds:{method}")
            source = dataclasses.replace(primary, notes=[], inputs_spec=None, make_inputs=None, known_inputs=[],
                                         method=method, detail=f"{primary.detail}, running {method}() as its forward")
            with reads.method_as_forward(cls, method):
                data = self._gathered_with_forward(cls, source, request)
            if data is None or not data["has_inputs"] or not set(read) & set(data.get("plain_reads") or []):
                continue
            proven |= set(read) & set(data["plain_reads"])
            data["notes"].append(f"no forward reads {', '.join(read)}: {method}() does, and ran in place of forward "
                                 "(on both sides)")
            out.append(self._portable(data, source))
        return out

    def _setter_builds(self, cls: type, primary: Source, request: dict[str, Any], builds: list[dict[str, Any]]
                       ) -> list[dict[str, Any]]:
        """Builds for rewritten slots that hold None after construction and after every forward
        compared (`self.source_idx = None`, filled by `set_condition(source, target)`, which the
        repository calls before integrating): the primary build's arguments, then a method that
        binds them called with made-up inputs (build.fill_slots), then every check of a
        forward. A cast or a move after the slot is filled is what separates the rewritten
        buffer from the original's plain tensor. Kept only where the slots then hold tensors
        and a forward ran."""
        empty = [attr for attr, *_ in request["findings"] if all(_empty_slot(b, attr) for b in builds)]
        out: list[dict[str, Any]] = []
        filled: set[str] = set()
        for number, (method, binds) in enumerate(reads.setter_methods(cls, empty) if empty else []):
            if len(out) >= MAX_SETTER_BUILDS or number >= MAX_SETTERS_TRIED:
                break
            if not set(binds) - filled:
                continue
            phase(f"builds:{method}:fill")
            for spec, tensors in self._setter_inputs(cls, primary, method, binds):
                source = dataclasses.replace(
                    primary, notes=[], prepare={"method": method, "inputs": spec},
                    inputs_spec=primary.inputs_spec if primary.make_inputs is not None else None,
                    detail=f"{primary.detail}, then {method}({synth.describe(spec)}) called")
                data = self._gathered_with_forward(cls, source, request)
                # (inputs that fill the slots at a shape no forward input fits: the next ones)
                if data is not None and data["has_inputs"]:
                    break
            else:
                continue
            got = [attr for attr in tensors if (data["attrs"].get(attr) or {}).get("where") == "dict"]
            if not got:
                continue
            filled |= set(got)
            data["notes"].append(f"{', '.join(got)} {'holds' if len(got) == 1 else 'hold'} None after construction: "
                                 f"{method}() fills {'it' if len(got) == 1 else 'them'}, called with made-up inputs "
                                 "right after each build of this one, before its checks (on both sides alike)")
            out.append(self._portable(data, source))
        return out

    def _setter_inputs(self, cls: type, primary: Source, method: str, binds: list[str]
                       ) -> Iterator[tuple[dict[str, Any], list[str]]]:
        """Made-up inputs for ``method`` with which it runs and leaves some of ``binds`` holding
        tensors, each with those, at most MAX_SETTER_FILLS of them."""
        try:
            model = build(cls, primary)
        except BaseException:
            return
        with reads.method_as_forward(cls, method):
            try:
                candidates = synth.input_candidates(model)
            except Exception:
                return
        found = 0
        tried = 0
        for candidate in candidates:  # grows: a failure's error may ask for other inputs (indices)
            if tried >= MAX_SETTER_INPUTS:
                break
            tried += 1
            try:
                trial = copy.deepcopy(model)
                fill_slots(trial, {"method": method, "inputs": candidate})
            except (Exception, SystemExit) as exc:
                candidates += [again for again in synth.repaired_candidates(candidate, str(exc)) if again not in candidates]
                continue
            tensors = [attr for attr in binds if isinstance(trial.__dict__.get(attr), torch.Tensor)]
            if tensors:
                yield candidate, tensors
                found += 1
                if found >= MAX_SETTER_FILLS:
                    return

    def _gathered_with_forward(self, cls: type, source: Source, request: dict[str, Any]) -> dict[str, Any] | None:
        """A further build's data, or None where it does not build or its forward raises."""
        try:
            data = self._gather(cls, source, request["findings"], coverage_file=request.get("file"))
        except (NotBuildable, StageError):
            return None
        return None if data["forward_error"] else data

    def _input_variants(self, cls: type, primary: Source, request: dict[str, Any], evidence: Evidence, room: int,
                        tried: list[int]) -> list[dict[str, Any]]:
        """The first build again with other inputs that run it, while a forward still has to
        read an attribute (the other value of a flag: a GAN loss's fake label, set only when
        `target_is_real` is False; an invertible layer's `inverse=True`, a flag forward takes
        with a default, tried first)."""
        findings = request["findings"]
        probe = self._probe_build(cls, primary, findings, request.get("file"))
        if probe is None:
            return []
        model = probe[0]
        known = list(primary.known_inputs)
        used = primary.inputs_spec
        out: list[dict[str, Any]] = []
        for candidate in synth.flag_variants(model, used) + synth.input_candidates(model, known):
            if len(out) >= room or tried[0] >= MAX_VARIANTS_TRIED or evidence.complete():
                break
            if candidate == used:
                continue
            tried[0] += 1
            source = dataclasses.replace(primary, notes=list(primary.notes), inputs_spec=None, make_inputs=None,
                                         detail=f"{primary.detail}, with other forward inputs: {synth.describe(candidate)}")
            self.use_inputs(source, candidate)
            if not _runs(model, source):
                continue
            data = self._gathered_with_forward(cls, source, request)
            if data is None:
                continue
            before = dict(evidence.forward), dict(evidence.tensor), dict(evidence.unread)
            evidence.add(data)
            if (dict(evidence.forward), dict(evidence.tensor), dict(evidence.unread)) != before:
                out.append(self._portable(data, source))
        del model
        return out

    def _probe_build(self, cls: type, source: Source, findings: list[list[Any]], coverage_file: str | None
                     ) -> tuple[torch.nn.Module, dict[str, list[int]], dict[str, Any]] | None:
        """Build once (under coverage): the statements that did not run and the attributes."""
        coverage = checks.LineCoverage(coverage_file) if coverage_file else None
        try:
            if coverage is not None:
                coverage.__enter__()
            try:
                model = build(cls, source)
            finally:
                if coverage is not None:
                    coverage.__exit__(None, None, None)
        except BaseException:
            return None
        unrun = {}
        if coverage is not None:
            unrun = {attr: checks.not_run(coverage.lines, rest[1] if len(rest) > 1 else [])
                     for attr, _action, _persistent, *rest in findings}
        attrs = {attr: attribute_state(model, attr) for attr, *_ in findings}
        return model, unrun, attrs

    def _rewritten(self, request: dict[str, Any]) -> dict[str, Any]:
        target = f"{request['module']}.{request['class_name']}"
        self.context.usages = list(request.get("usages") or [])
        original = torch.load(request["data"], weights_only=True)
        phase("import")
        try:
            cls = import_class(request["module"], request["class_name"], self.root, request.get("file"))
        except BaseException as exc:
            used = stubs.stub_used(exc)
            if used is not None or isinstance(exc, ModuleNotFoundError):
                # a module that is not installed, which the rewrite does not touch: nothing
                # learnt about the rewrite either way
                return {"status": "not_validated", "message": f"importing the rewritten {request['module']}: "
                        f"{used if used is not None else format_exception(exc)}"}
            if not _raised_in_rewritten_code(exc):
                # the rewrite changes statements of constructors (and class-level annotations) in
                # the overlaid files only; a failure raised elsewhere is an import-time side
                # effect of the environment (a log file opened in a folder that does not exist)
                return {"status": "error", "message": f"importing the rewritten {request['module']} raised "
                        f"{format_exception(exc)}, in code the rewrite does not change"}
            return {"status": "failed", "message": f"the rewritten {request['module']} fails to import: "
                    f"{format_exception(exc)}"}
        self._import_time_default_dtype(cls)
        tail = MODULE_TAIL_FAILURES.get(request["module"])
        if (tail[0] if tail else None) != original.get("module_tail"):
            # the module's own top-level code stops elsewhere, or otherwise, than the original's
            said = format_exception(tail[1]) if tail else "nothing"
            blamed = tail is None or _raised_in_rewritten_code(tail[1])
            return {"status": "failed" if blamed else "error",
                    "message": f"the rewritten {request['module']}'s top-level code raised {said}, where the "
                    f"original's raised {original.get('module_tail') or 'nothing'}"}
        only = DEFINITIONS_ONLY.get(request["module"])
        if _what_raised(only[1] if only else None) != _what_raised(original.get("definitions_only")):
            # built from its definitions on one side only, or skipping other statements
            said = f"skipped {_skipped_text(only[1])}" if only else "imported whole"
            return {"status": "error", "message": f"the rewritten {request['module']} was {said} where the "
                    f"original's definitions skipped {_skipped_text(original.get('definitions_only'))}"}
        if original.get("stand_in"):
            reads.apply_stand_in(cls, original["stand_in"])  # the method that stood in for forward there
        results = []
        for number, build_data in enumerate(original["builds"]):
            phase(f"examples:{number + 1}")
            chosen = build_data.get("source_spec") or {"kind": build_data["source"], "spec": {}, "inputs": None}

            def failed(message: str, number: int = number, build_data: dict = build_data) -> dict[str, Any] | None:
                """The first build failing fails the class; a later one is one more result."""
                if number == 0:
                    return {"status": "failed", "message": message}
                results.append(build_failure(build_data, self.device_label, message, request["findings"]))
                return None

            try:
                source = resolve_source(cls, target, self.examples, request.get("record"), kind=chosen["kind"],
                                        spec=chosen.get("spec"), context=self.context)
            except NotBuildable as exc:
                if (outcome := failed(exc.message)) is not None:
                    return outcome
                continue
            if chosen.get("no_inputs"):
                source.make_inputs = None
            if chosen.get("inputs") is not None:
                self.use_inputs(source, chosen["inputs"])

            def after_cpu(model: torch.nn.Module, data: dict[str, Any], state=build_data["state_dict"],
                          metadata=build_data.get("state_metadata")) -> None:
                phase("checkpoint")
                data["checkpoint"] = checkpoint_check(model, state, metadata)

            source.method = chosen.get("method")
            source.prepare = chosen.get("prepare")
            try:
                with reads.method_as_forward(cls, source.method) if source.method else contextlib.nullcontext():
                    data = self._gather(cls, source, request["findings"], after_cpu)
            except NotBuildable as exc:
                if (outcome := failed(exc.message)) is not None:
                    return outcome
                continue
            except StageError as exc:
                if exc.stage == "build" and _made_up(chosen) and _NOT_A_TENSOR_FOR_BUFFER in exc.text:
                    # Made-up arguments handed the attribute a non-tensor: the
                    # rewritten class rightly refuses it, and nothing is learnt about a tensor.
                    message = (f"the arguments of build {number + 1} ({source.detail}) hand a rewritten buffer a "
                               f"non-tensor, which register_buffer refuses ({exc.text}); not proven with them")
                    if number == 0:
                        return {"status": "not_validated", "message": message, "snippet": None}
                    continue
                where = "constructor" if exc.stage == "build" else "example inputs"
                if (outcome := failed(f"the rewritten {where} raised {exc.text} (the original did not)")) is not None:
                    return outcome
                continue
            phase("judge")
            results.append(judge(build_data, data, request["findings"], self.index, self.device, self.device_label))
            del data
        validation = merge(results, request["findings"], original.get("forward_reads") or {},
                           int(original.get("tried") or 0), original.get("handed_on") or [],
                           original.get("unrun_readers") or {})
        return {"status": "judged", "validation": validation}

    # -- evidence shared by both sides -----------------------------------------------------

    def _gather(
        self,
        cls: type,
        source: Source,
        findings: list[list[Any]],
        after_cpu: Callable[[torch.nn.Module, dict[str, Any]], None] | None = None,
        coverage_file: str | None = None,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {"source": source.kind, "source_detail": source.detail, "notes": list(source.notes)}
        sites = reads.read_sites(cls, [attr for attr, *_ in findings]) if self.side == "original" else {}
        files = sorted({site[0] for found in sites.values() for site in found})
        self._read_trace = checks.LineCoverage(*files) if files else None
        self._device_read_trace = checks.LineCoverage(*files) if files else None
        try:
            return self._gathered(cls, source, findings, data, sites, after_cpu, coverage_file)
        finally:
            self._read_trace = self._device_read_trace = None

    def _gathered(self, cls: type, source: Source, findings: list[list[Any]], data: dict[str, Any],
                  sites: dict[str, list[reads.Site]],
                  after_cpu: Callable[[torch.nn.Module, dict[str, Any]], None] | None,
                  coverage_file: str | None) -> dict[str, Any]:
        phase("build")
        # Which edited statements run while the model is built and first called.  The original
        # runs the same statements as the rewritten text (same arguments, same control flow),
        # and its lines are those the findings and edits name.
        coverage = checks.LineCoverage(coverage_file) if coverage_file else None
        if coverage is not None:
            coverage.__enter__()
        try:
            model = self._build_and_call(cls, source, findings, data)
        finally:
            if coverage is not None:
                coverage.__exit__(None, None, None)
        if coverage is not None:
            data["coverage"] = {
                attr: checks.not_run(coverage.lines, rest[1] if len(rest) > 1 else [])
                for attr, _action, _persistent, *rest in findings
            }
        data["checks"] = self._checks(cls, source, model, findings, data)
        if after_cpu is not None:
            after_cpu(model, data)
        elif self.side == "original":
            # the baseline of the rewritten side's checkpoint check: does the original's own
            # state_dict load back into it? (custom state_dict hooks may refuse even that)
            data["checkpoint_self"] = checkpoint_check(model, data["state_dict"], data.get("state_metadata"))
        if self.device is not None and self.device.type == "meta":
            with self._device_read_trace or contextlib.nullcontext():
                data["device"] = self._device_stage(model, source, data["forward_error"] is None)
        del model
        if self.device is not None and self.device.type != "meta":
            # A GPU: a fresh build, compared with the first forward of the fresh build above (a
            # forward that updates a hidden state or a history gives other outputs at its second
            # call), with the constructor's own .cuda() calls reaching the GPU.
            with cuda_standin.suspended(), self._device_read_trace or contextlib.nullcontext():
                data["device"] = self._device_stage(None, source, data["forward_error"] is None, cls)
        if self._read_trace is not None and self._device_read_trace is not None:
            # the reads of a rewritten attribute that no forward ran (another branch); one that
            # only a test of devices opens counts as run where the forward after the move ran it
            data["unread"] = checks.unread_sites(self._read_trace, self._device_read_trace, sites)
        return data

    def _build_and_call(self, cls: type, source: Source, findings: list[list[Any]], data: dict[str, Any]) -> Any:
        try:
            model = build(cls, source)
        except NotBuildable:
            raise
        except BaseException as exc:
            raise StageError("build", exc) from None
        data.update(snapshot(model, findings))
        if source.make_inputs is None and self.side == "original":
            self._probe_inputs(cls, model, source, data)
        data["outputs"] = None
        data["forward_error"] = None
        data["has_inputs"] = source.make_inputs is not None
        if source.make_inputs is not None:
            phase("inputs")
            try:
                args, kwargs = make_inputs(source)  # type: ignore[misc]
            except BaseException as exc:
                raise StageError("inputs", exc) from None
            phase("forward:cpu")
            try:
                seed_all(FORWARD_SEED)
                if self.side == "rewritten":
                    read: set[str] = set(data.setdefault("forward_reads", []))
                    with checks.ForwardReads(model, [attr for attr, *_ in findings], read):
                        output = model(*args, **kwargs)
                    data["forward_reads"] = sorted(read)
                else:
                    # which raw attributes this forward reads: a build whose forward takes
                    # another path proves nothing about them (Evidence asks for more builds)
                    seen: set[str] = set()
                    with checks.PlainReads(model, [attr for attr, *_ in findings], seen), \
                            self._read_trace or contextlib.nullcontext():
                        output = model(*args, **kwargs)
                    data["plain_reads"] = sorted(seen)
                data["outputs"] = compare.flatten(output)
                del output
            except BaseException as exc:
                data["forward_error"] = format_exception(exc)
            del args, kwargs
            if not data["forward_error"]:
                # A lazy slot (None after construction, a tensor once forward ran): compared as
                # the first forward left it.
                lazy = [f for f in findings if data["attrs"].get(f[0], {}).get("type") == "NoneType"]
                if lazy:
                    data["attrs_after_forward"] = {attr: attribute_state(model, attr) for attr, *_ in lazy}
        return model

    def _checks(
        self, cls: type, source: Source, model: torch.nn.Module, findings: list[list[Any]], data: dict[str, Any]
    ) -> dict[str, Any]:
        """Evidence for the checks of what breaks in real use (see checks.py)."""
        attrs = [attr for attr, *_ in findings]
        make = (lambda: make_inputs(source)) if source.make_inputs is not None and not data["forward_error"] else None
        evidence: dict[str, Any] = {}

        def guarded(name: str, run: Callable[[], dict[str, Any]]) -> None:
            phase(f"check:{name}")
            try:
                evidence[name] = run()
            except BaseException as exc:  # the validator's own failure must not cost the other checks
                evidence[name] = {"status": "unchecked", "error": f"validator error: {format_exception(exc)}"}

        guarded("round_trip", lambda: checks.round_trip(model, lambda: build(cls, source), make))
        if data.get("has_inputs") and data["forward_error"] and isinstance(evidence.get("round_trip"), dict) \
                and "saved" in evidence["round_trip"]:
            evidence["round_trip"]["saved"] = "after a forward that raised"
        try:
            fresh: torch.nn.Module | None = build(cls, source)
        except BaseException as exc:
            fresh = None
            error = f"building a second model raised {format_exception(exc)}"
            evidence["casts"] = {"error": error}
            evidence["training"] = {"status": "unchecked", "error": error}
        if fresh is not None:
            with self._read_trace or contextlib.nullcontext():
                guarded("casts", lambda: checks.casts(fresh, attrs, make, lambda: build(cls, source)))
            if data.get("attrs_after_forward") and make is not None:
                # a lazy slot filled by a first forward, then the model cast: the rewritten
                # buffer is cast with it, the original's plain tensor is not
                def build_warmed() -> torch.nn.Module:
                    warmed = build(cls, source)
                    checks.forward_leaves(warmed, make, None)
                    return warmed

                def warmed_casts() -> dict[str, Any]:
                    # built again the same way for each cast where the warmed model cannot be copied
                    return checks.casts(build_warmed(), attrs, make, build_warmed)

                with self._read_trace or contextlib.nullcontext():
                    guarded("casts_after_forward", warmed_casts)
            if self.side == "rewritten":
                # a forward in train() mode may read what eval() mode does not (noise, dropout masks)
                read: set[str] = set()
                with checks.ForwardReads(fresh, attrs, read):
                    guarded("training", lambda: checks.training(fresh, attrs, make))
                data["forward_reads"] = sorted(set(data.get("forward_reads") or []) | read)
            else:
                with self._read_trace or contextlib.nullcontext():
                    guarded("training", lambda: checks.training(fresh, attrs, make))
            del fresh
        reference = {attr: state.get("tensor") for attr, state in data["attrs"].items()}
        checkpoint = {k: v for k, v in data["state_dict"] if isinstance(v, torch.Tensor)}
        guarded("meta", lambda: checks.meta_init(lambda: build(cls, source), attrs, reference, checkpoint))
        if checks.is_pretrained_model(cls):
            guarded("pretrained", lambda: checks.pretrained_round_trip(build(cls, source), attrs, reference, make))
        return evidence

    def _probe_inputs(self, cls: type, model: torch.nn.Module, source: Source, data: dict[str, Any]) -> None:
        """Forward inputs: the first candidate a copy of the model runs (the repository's own
        calls first, then inputs made up from the model)."""
        # the repository's calls of the module pass forward's inputs, not another method's
        known = list(source.known_inputs) + [u["inputs"] for u in self.context.usages
                                              if u.get("inputs") and u["inputs"] not in source.known_inputs
                                              and source.method is None]
        phase("inputs:probe")
        try:
            trial_model = copy.deepcopy(model)
        except Exception:
            try:
                trial_model = build(cls, source)
            except BaseException:
                return
        found = probe.first_inputs(trial_model, known, self.context.importer, source.made_up_inputs)
        del trial_model
        if found.inputs is not None:
            self.use_inputs(source, found.inputs)
            where = "the repository's own call" if found.known else "made up from the model's layers"
            data["notes"].append(f"forward inputs {where}: {synth.describe(found.inputs)}")
        elif found.failures:
            data["notes"].append(_NO_INPUTS_NOTE + found.why_none_ran())

    def use_inputs(self, source: Source, spec: dict[str, Any]) -> None:
        importer = self.context.importer
        source.inputs_spec = spec
        source.make_inputs = lambda: synth.make_inputs(spec, importer)

    def _device_stage(
        self, model: torch.nn.Module | None, source: Source, forward_ok: bool, cls: type | None = None
    ) -> dict[str, Any]:
        """Move the model (built again from ``cls`` where none is given) and run its forward there."""
        device = self.device
        assert device is not None
        result: dict[str, Any] = {"left": [], "status": None, "error": None, "outputs": None}
        if model is None:
            assert cls is not None
            phase(f"build:{device}")
            try:
                model = build(cls, source)
            except BaseException as exc:
                result["status"] = "unchecked"
                result["error"] = f"building the model again for {device} raised {format_exception(exc)}"
                return result
        phase(f"move:{device}")
        try:
            model.to(device)
        except BaseException as exc:
            result["status"], result["error"] = "unchecked", f"model.to({str(device)!r}) raised {format_exception(exc)}"
            return result
        result["left"] = devices.left_behind(model, device)
        if source.make_inputs is None or not forward_ok:
            return result
        phase(f"forward:{device}")
        try:
            args, kwargs = devices.move(make_inputs(source), device)
            seed_all(FORWARD_SEED)
            if device.type == "meta":
                with devices.raw_tensor_checker(model):
                    output = model(*args, **kwargs)
            else:
                stream = _random_stream(device)
                output = model(*args, **kwargs)
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
                # a forward that draws from the device's generator gives other values than the
                # same draws on the CPU: a CPU reference then matches its shapes, not its values
                result["draws_random"] = not torch.equal(stream, _random_stream(device))
            result["status"] = "ok"
            result["outputs"] = compare.flatten(output)
        except BaseException as exc:
            if device.type == "meta":
                result["status"] = devices.classify_meta_error(exc)
            else:
                result["status"] = devices.classify_device_error(exc)
            result["error"] = _first_line(exc)
        return result


def _empty_slot(build_data: dict[str, Any], attr: str) -> bool:
    """Whether ``attr`` held None after the build and was not a tensor after its forward."""
    after = (build_data.get("attrs_after_forward") or {}).get(attr) or {}
    return (build_data.get("attrs") or {}).get(attr, {}).get("type") == "NoneType" and after.get("where") != "dict"


def _random_stream(device: torch.device) -> torch.Tensor:
    """The state of ``device``'s default random generator (it advances with every draw there)."""
    if device.type == "cuda":
        return torch.cuda.get_rng_state(device)
    return torch.get_rng_state()


def _cuda_usable() -> bool:
    """False after a sticky CUDA error (a device-side assert poisons the whole context)."""
    try:
        torch.cuda.synchronize()
        torch.zeros(1, device="cuda").add_(1).item()
        return True
    except Exception:
        return False


def _inputs_failure(data: dict[str, Any]) -> str:
    """What the build's notes say its made-up inputs raised."""
    note = next((n for n in data.get("notes") or [] if n.startswith(_NO_INPUTS_NOTE)), "")
    return note.removeprefix(_NO_INPUTS_NOTE) or "no inputs were made up"


# How a build's notes say that no made-up input ran its forward (_probe_inputs).
_NO_INPUTS_NOTE = "forward not compared: made-up inputs did not run: "


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= 300 else line[:297] + "..."
