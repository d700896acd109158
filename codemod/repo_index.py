"""Cross-file knowledge: which module a name comes from, which classes are nn.Modules.

Files are parsed lazily, only when a name leads to them, so a run that looks
at one file pays only for the files that file's classes depend on.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections import OrderedDict
from contextlib import contextmanager
from collections.abc import Iterable, Iterator
from pathlib import Path

from codemod import torch_names
from codemod.budget import check_tokens
from codemod.discovery import module_name_for, module_spellings
from codemod.fileio import SourceError, read_source
from codemod.segments import line_start_matches
from codemod.symbols import ModuleSymbols, build_symbols, resolve_relative
from codemod.torch_version import too_old_torch

# `Block(`, `nn.Linear(`: a capitalised name called (a class, by convention).
_CAPITAL_CALL = re.compile(r"([A-Z]\w*)\(")
# A module-level dict literal (`MODELS = {"cnn": CNN, ...}`): the registries such calls look up.
_DICT_BINDING = re.compile(r"^(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*\{", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_]\w*")
# A call of what a constant key looks up: `MODEL_MAP['Benadjila'](1, n, mean, std)`,
# `MODELS.get("cnn")(...)` (call_sites follows it to the class the dict holds there).
_REGISTRY_CALL = re.compile(r"""\b(\w+)(\[|\.get\()\s*(?:'[^'\n]*'|"[^"\n]*"|\d+)\s*[\])]\s*\(""")

# `class Name(bases):` headers; the bases may span lines.
# Both are matched at line starts only (see segments.line_start_matches).
_CLASS_HEADER = re.compile(r"class[ \t]+(\w+)[ \t]*\(([^)]*)\)")
_MAX_DEPTH = 50
# How many packages deep a star import of a package is followed to bind its names (each level
# may parse the modules a package re-exports).
_STAR_PACKAGE_DEPTH = 2
_STAR_IMPORT = re.compile(r"from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\*")
# Parsed modules kept in memory; the rest are parsed again if needed.  A module's
# tree costs ~100x its text in memory, so large repositories cannot keep them all.
# On transformers, 128 instead of 256 costs 5% more CPU and saves 70 MB per worker.
_CACHED_MODULES = 128
# Marks a module-name lookup among the dependencies an analysis notes (the rest are Paths).
MODULE_LOOKUP = "module"


class Resolved:
    """What a qualified name refers to.  The defining module is loaded only when asked for:
    most questions (is it a class? a module class?) are answered from memos."""

    def __init__(
        self,
        kind: str,  # "class" | "function" | "module" | "external" | "unknown"
        qualname: str,
        module: ModuleSymbols | None = None,
        name: str | None = None,  # the class or function name inside the module
        *,
        path: Path | None = None,
        index: RepoIndex | None = None,
    ):
        self.kind = kind
        self.qualname = qualname
        self.name = name
        self.path = module.path if module is not None else path
        self._module = module
        self._index = index

    @property
    def module(self) -> ModuleSymbols | None:
        if self._module is None and self.path is not None and self._index is not None:
            self._module = self._index.symbols_for_path(self.path)
        return self._module

    @property
    def node(self):
        """The full definition (parsed on first use)."""
        module = self.module
        assert module is not None and self.name is not None
        definitions = module.classes if self.kind == "class" else module.functions
        return definitions[self.name]

    @property
    def header(self) -> ast.ClassDef:
        """A class's header only (name, bases, keywords): enough to know what it inherits."""
        module = self.module
        assert module is not None and self.name is not None and self.kind == "class"
        return module.classes.header(self.name)


class RepoIndex:
    """The Python files of one run, addressable by module name."""

    def __init__(
        self,
        files: Iterable[Path] = (),
        *,
        root: Path | None = None,
        texts: dict[Path, str] | None = None,
        lazy: bool = True,
    ):
        self.lazy = lazy  # parse classes and functions only when needed (see segments.py)
        self.root = root
        self._texts: dict[Path, str] = dict(texts or {})
        self._paths_by_module: dict[str, list[Path]] = {}
        self._module_of_path: dict[Path, str] = {}
        self._symbols: OrderedDict[Path, ModuleSymbols | None] = OrderedDict()
        self._module_class_memo: dict[tuple[str, str], tuple[bool, frozenset[Path]]] = {}
        self._resolve_memo: dict[tuple[str, Path | None], tuple] = {}
        self._star_memo: dict[Path, list[str]] = {}
        self._headers: dict[str, list[Path]] | None = None
        # files_calling's index: capitalised name -> numbers (in `files`) of the files calling it
        self._callers: dict[str, list[int]] | None = None
        # and, from the same pass: file number -> the lookups it calls with a constant key, and
        # the names module-level dict literals are bound to -> the words their literals hold
        self._registry_calls: dict[int, tuple[str, ...]] = {}
        self._dict_words: dict[str, set[str]] = {}
        self._scripted_call: str | None = None  # scripted_module_call's answer ("" for none), once per run
        self.memo: dict = {}  # results other modules compute once per run (call_sites)
        self.files: list[Path] = []
        # Files an analysis depended on (for the result cache): one set per open `tracking()`.
        self._dependency_sets: list[set[Path]] = []
        self.scanned_repository = False  # an analysis read every file (subclass search)
        for path in files:
            self.add_file(path, root=root)

    # -- registration -------------------------------------------------------------------------

    def add_file(self, path: Path, *, root: Path | None = None, text: str | None = None, name: str | None = None) -> str:
        if text is not None:
            self._texts[path] = text
        self._callers = None  # built again with this file
        self._scripted_call = None
        if name is None:
            name = module_name_for(path)[1] if path.suffix == ".py" else path.stem
        self.files.append(path)
        self._module_of_path[path] = name
        for spelling in module_spellings(path, name, root):
            self._paths_by_module.setdefault(spelling, []).append(path)
        return name

    # -- dependencies -------------------------------------------------------------------------

    def begin_tracking(self) -> None:
        if not self._dependency_sets:  # a nested tracking (a helper's value) keeps the file's flag
            self.scanned_repository = False
        self._dependency_sets.append(set())

    def end_tracking(self) -> set[Path]:
        dependencies = self._dependency_sets.pop()
        for outer in self._dependency_sets:
            outer |= dependencies
        return dependencies

    def note(self, paths) -> None:
        for dependencies in self._dependency_sets:
            dependencies.update(paths)

    def _candidates(self, name: str) -> list[Path]:
        """The files a module name denotes in this run.  Noted as a dependency: which files
        a run covers (a subset, the whole project, a file added) changes the answer."""
        paths = self._paths_by_module.get(name, [])
        if self._dependency_sets:
            self.note(((MODULE_LOOKUP, name, tuple(str(p) for p in paths)),))
        return paths

    def module_paths(self, name: str) -> tuple[str, ...]:
        """What `_candidates` notes for `name`, for checking a cached analysis against this run."""
        return tuple(str(p) for p in self._paths_by_module.get(name, ()))

    def is_repository_name(self, qualname: str) -> bool:
        """Whether a qualified name lives in one of this run's files (a module or a name in one)."""
        parts = qualname.split(".")
        return any(self._candidates(".".join(parts[:i])) for i in range(len(parts), 0, -1))

    def is_module(self, qualname: str) -> bool:
        """Whether a qualified name is one of this run's modules (whatever the case of its name)."""
        return qualname in self._paths_by_module

    def has_file(self, path: Path) -> bool:
        return path in self._module_of_path

    def module_name(self, path: Path) -> str:
        return self._module_of_path.get(path) or self.add_file(path)

    @functools.cached_property
    def too_old_torch(self) -> str | None:
        """`torch==1.0.1 (requirements.txt)` where the repository declares only a torch older than
        1.6 (rules/old_torch.py); read when a class first has a buffer to decide, and part of the
        result cache's key (runner.py)."""
        return too_old_torch(self.root)

    @property
    def scripted_module_call(self) -> str | None:
        """`export.py:12` where a file of the run hands a module (not a function) to
        `torch.jit.script` (rules/scripted_models.py); None where none does.  Keyed by every
        file of the run, as parsed_files_mentioning says."""
        self.scanned_repository = True
        if self._scripted_call is None:
            self._scripted_call = ""
            for path, tree in self.parsed_files_mentioning("script(", any_of=("jit",)):
                line = _scripting_call(tree) if tree is not None else None
                if line is not None:
                    self._scripted_call = f"{path.as_posix()}:{line}"
                    break
        return self._scripted_call or None

    # -- parsing -------------------------------------------------------------------------------

    def text(self, path: Path) -> str | None:
        """A file's text: given ones, the parsed module's, or read from disk (not kept:
        the text of a large repository would not fit the memory budget)."""
        if path in self._texts:
            return self._texts[path]
        symbols = self._symbols.get(path)
        if symbols is not None:
            return symbols.text
        try:
            return read_source(path).text
        except SourceError:
            return None

    def parsed_files_mentioning(self, needle: str, any_of: tuple[str, ...] = ()) -> Iterator[tuple[Path, ast.Module | None]]:
        """(path, tree) for each file of the run whose text holds `needle` (and one of `any_of`,
        when given), in the order of `files`; the tree is None where the text does not parse.
        The answer depends on every file of the run, so the analysis that asks is keyed by all
        of them (`scanned_repository`), as a search of the callers of a class is."""
        self.scanned_repository = True
        for path in list(self.files):
            text = self.text(path)
            if not text or needle not in text or (any_of and not any(word in text for word in any_of)):
                continue
            try:
                check_tokens(text, str(path))  # a file over the parse budget is never parsed (budget.py)
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                tree = None
            yield path, tree

    def files_calling(self, names: Iterable[str]) -> list[Path]:
        """The files whose text has `Name(` for one of `names` (a call of the class, as a
        whole word), in the order of `files`.  Capitalised names are looked up in an index
        of who calls which, built once per run from every file (a few names per file); other
        names are looked for in the texts themselves."""
        wanted = frozenset(names)
        if not all(name[:1].isupper() for name in wanted):
            needles = tuple(name + "(" for name in wanted)
            return [p for p in list(self.files) if (t := self.text(p)) and any(n in t for n in needles)]
        callers = self._calls_index()
        numbers = sorted({n for name in wanted for n in callers.get(name, ())})
        return [self.files[n] for n in numbers]

    def registry_call_files(self, class_names: Iterable[str]) -> dict[Path, tuple[str, ...]]:
        """path -> the lookups (`MODELS[`, `MODELS.get(`) its text calls with a constant key, of
        the dicts whose literal names one of `class_names` (`ACT2FN["gelu"](x)`, a lookup in
        a mapping of functions, is not searched for a class's calls)."""
        self._calls_index()
        names = set(class_names)
        holding = {name for name, words in self._dict_words.items() if words & names}
        found = {}
        for number, lookups in self._registry_calls.items():
            kept = tuple(lookup for lookup in lookups if lookup.removesuffix("[").removesuffix(".get(") in holding)
            if kept:
                found[self.files[number]] = kept
        return found

    def _calls_index(self) -> dict[str, list[int]]:
        """Who calls which capitalised name, and which files call a constant-key lookup: one
        pass over every file, once per run (again after a file is added)."""
        if self._callers is None:
            self._callers, self._registry_calls, self._dict_words = {}, {}, {}
            for number, path in enumerate(self.files):
                text = self.text(path)
                if not text:
                    continue
                for name in set(_CAPITAL_CALL.findall(text)):
                    self._callers.setdefault(name, []).append(number)
                if "](" in text or ")(" in text:
                    lookups = sorted({m.group(1) + m.group(2) for m in _REGISTRY_CALL.finditer(text)})
                    if lookups:
                        self._registry_calls[number] = tuple(lookups)
                for binding in _DICT_BINDING.finditer(text):
                    # the literal up to its closing brace at the start of a line, or its first
                    # closing brace (a flat one-line dict), within a bounded window
                    body = text[binding.end():binding.end() + 8000]
                    end = body.find("\n}")
                    end = end if end >= 0 else body.find("}")
                    words = self._dict_words.setdefault(binding.group(1), set())
                    words.update(_WORD.findall(body[:end] if end >= 0 else body))
        return self._callers

    def load(self, path: Path, text: str | None = None, segments: list | None = None) -> ModuleSymbols:
        """The symbols of one file; raises SyntaxError (or ValueError) when it does not parse."""
        if text is not None:
            self._symbols.pop(path, None)
        elif path in self._symbols and self._symbols[path] is not None:
            self._symbols.move_to_end(path)
            return self._symbols[path]  # type: ignore[return-value]
        source = text if text is not None else self.text(path)
        if source is None:
            raise ValueError("cannot be read")
        symbols = build_symbols(
            source, self.module_name(path), path, path.name == "__init__.py", lazy=self.lazy, segments=segments
        )
        self._remember(path, symbols)
        if symbols.star_imports and not symbols.is_package:
            # Packages re-export with `import *` by the hundred (resolution searches those
            # lazily); a plain module importing `*` uses the names, so bind them now.
            self._bind_star_imports(symbols)
        return symbols

    def _bind_star_imports(self, symbols: ModuleSymbols) -> None:
        """`from models.layers import *` of a repository module binds its names here too
        (`nn`, `torch`, its classes), so that `nn.Module` still resolves in the importer."""
        self._bind_names_starred_by(symbols, symbols, 0)

    def _bind_names_starred_by(self, symbols: ModuleSymbols, source: ModuleSymbols, depth: int) -> None:
        """Bind in `symbols` the names that `source`'s star imports bring: its own (depth 0), or
        those of a package it star-imports, which itself star-imports its submodules
        (`from layers import *` where layers/__init__.py holds `from .functions import *`)."""
        for star in source.star_imports:
            if not self._candidates(star):
                continue
            target = self.symbols_for_module(star, source.path)
            if target is None or target is symbols or target is source:
                continue
            for name, qualname in target.imports.items():
                if depth == 0 or name not in symbols.local_names:
                    symbols.imports.setdefault(name, qualname)
            for name in list(target.classes) + list(target.functions):
                if name not in symbols.local_names:
                    symbols.imports.setdefault(name, f"{target.name}.{name}")
            if target.is_package and target.star_imports and depth < _STAR_PACKAGE_DEPTH:
                self._bind_names_starred_by(symbols, target, depth + 1)

    def symbols_for_path(self, path: Path) -> ModuleSymbols | None:
        if path in self._symbols:
            self._symbols.move_to_end(path)
            return self._symbols[path]
        try:
            return self.load(path)
        except (SyntaxError, ValueError, RecursionError):
            self._remember(path, None)
            return None

    def forget_unparsed(self, path: Path) -> None:
        """A file whose code does not parse (met when a part of it was parsed on demand): from
        now on it is a file the index cannot read, as one whose header does not parse is.

        Everything derived so far is dropped too.  The error unwound the analysis in the middle
        of its memoised searches, leaving their recursion guards in place (a class's argument
        types read as "nothing typed", a constructor as binding nothing), and what was
        memoised before read the file that is now forgotten; the analysis run again must see
        the repository without it, as a run that never met it would."""
        unparsed = [known for known, symbols in self._symbols.items() if symbols is None]
        unparsed += [known for known in self._symbols if os.path.abspath(known) == os.path.abspath(path)]
        if not any(os.path.abspath(known) == os.path.abspath(path) for known in unparsed):
            unparsed.append(path)
        self._symbols = OrderedDict((known, None) for known in unparsed)
        self._module_class_memo.clear()
        self._resolve_memo.clear()
        self._star_memo.clear()
        self._headers = None
        self.memo.clear()

    @contextmanager
    def reading_as(self, path: Path, text: str) -> Iterator[None]:
        """Within: the file `path`, which does not parse, reads as `text` (its tolerant reading,
        tolerant.py).  Before and after, everything derived is dropped, so that no analysis
        sees the reading but the one made within, and that one sees no memo made without it."""
        given = self._texts.get(path)
        self.forget_unparsed(path)
        self._symbols = OrderedDict((known, None) for known in self._symbols
                                    if os.path.abspath(known) != os.path.abspath(path))
        self._texts[path] = text
        try:
            yield
        finally:
            if given is None:
                self._texts.pop(path, None)
            else:
                self._texts[path] = given
            self.forget_unparsed(path)

    def _remember(self, path: Path, symbols: ModuleSymbols | None) -> None:
        self._symbols[path] = symbols
        if len(self._symbols) > _CACHED_MODULES:
            self._symbols.popitem(last=False)

    def symbols_for_module(self, name: str, near: Path | None = None) -> ModuleSymbols | None:
        paths = self._candidates(name)
        if not paths:
            return None
        path = paths[0]
        if near is not None and len(paths) > 1:
            # Prefer the candidate nearest to the importing file.
            path = min(paths, key=lambda p: _distance(p, near))
        self.note((path,))
        return self.symbols_for_path(path)

    # -- resolution -----------------------------------------------------------------------------

    def resolve(self, qualname: str, near: Path | None = None, _depth: int = 0) -> Resolved:
        """What a qualified name refers to, following imports and re-exports across files."""
        # The importing file matters only where a module name has several candidates.
        key = (qualname, near.parent if near is not None and self._ambiguous(qualname) else None)
        memo = self._resolve_memo.get(key)
        if memo is not None:
            kind, name_or_qualname, path, name, dependencies = memo
            self.note(dependencies)
            return Resolved(kind, name_or_qualname, None, name, path=path, index=self)
        if _depth > _MAX_DEPTH:
            return Resolved("unknown", qualname)
        # Memoised: a large package resolves the same re-exports from hundreds of files.
        self._resolve_memo[key] = ("unknown", qualname, None, None, frozenset())  # cycle guard
        self.begin_tracking()
        try:
            resolved = self._resolve(qualname, near, _depth)
        finally:
            dependencies = frozenset(self.end_tracking())
        self._resolve_memo[key] = (resolved.kind, resolved.qualname, resolved.path, resolved.name, dependencies)
        return resolved

    def _ambiguous(self, qualname: str) -> bool:
        parts = qualname.split(".")
        return any(len(self._candidates(".".join(parts[:i]))) > 1 for i in range(1, len(parts) + 1))

    def _resolve(self, qualname: str, near: Path | None, _depth: int) -> Resolved:
        parts = qualname.split(".")
        for i in range(len(parts), 0, -1):
            symbols = self.symbols_for_module(".".join(parts[:i]), near)
            if symbols is None:
                continue
            rest = parts[i:]
            if not rest:
                return Resolved("module", qualname, symbols)
            return self._resolve_in(symbols, rest, _depth)
        return Resolved("external", qualname)

    def _resolve_in(self, symbols: ModuleSymbols, rest: list[str], depth: int) -> Resolved:
        head, tail = rest[0], rest[1:]
        qualname = ".".join([symbols.name, *rest])
        if head in symbols.classes:
            return Resolved("class", qualname, symbols, head) if not tail else Resolved("unknown", qualname)
        if head in symbols.functions:
            return Resolved("function", qualname, symbols, head) if not tail else Resolved("unknown", qualname)
        if head in symbols.imports:
            return self.resolve(".".join([symbols.imports[head], *tail]), symbols.path, depth + 1)
        submodule = f"{symbols.name}.{head}"
        if self._candidates(submodule):
            return self.resolve(".".join([submodule, *tail]), symbols.path, depth + 1)
        for star in symbols.star_imports:
            if not self._candidates(star):
                # `from torch.nn import *` and friends: the name lives outside the repository.
                return Resolved("external", ".".join([star, *rest]))
            if not self._may_export(star, head, symbols.path):
                continue  # cheap: most star-imported modules do not have the name at all
            target = self.symbols_for_module(star, symbols.path)
            if target is not None:
                found = self._resolve_in(target, rest, depth + 1)
                if found.kind != "unknown":
                    return found
        return Resolved("unknown", qualname)

    def _may_export(self, module: str, name: str, near: Path | None, _depth: int = 0,
                    _seen: set[Path] | None = None) -> bool:
        """Whether `module` (or what it star-imports) can bind `name`: a text search, no parsing.

        A package that re-exports hundreds of modules with `from .x import *` would
        otherwise have every one of them parsed to look up a single name.  Each file is
        searched once: star imports that reach a module by many paths (or in a cycle)
        would otherwise be searched once per path.
        """
        path = self._path_for(module, near)
        seen = set() if _seen is None else _seen
        if path is None or _depth > _MAX_DEPTH or path in seen:
            return False
        seen.add(path)
        self.note((path,))  # the answer depends on this file's text
        text = self.text(path) or ""
        if name in text:
            return True
        return any(self._may_export(star, name, path, _depth + 1, seen) for star in self._star_targets(module, path, text))

    def _star_targets(self, module: str, path: Path, text: str) -> list[str]:
        if path not in self._star_memo:
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            targets = []
            for match in line_start_matches(_STAR_IMPORT, text):
                target = resolve_relative(package, match.group(2) or None, len(match.group(1)))
                if target is not None:
                    targets.append(target)
            self._star_memo[path] = targets
        return [t for t in self._star_memo[path] if self._candidates(t)]

    def _path_for(self, module: str, near: Path | None) -> Path | None:
        paths = self._candidates(module)
        if not paths:
            return None
        if near is not None and len(paths) > 1:
            return min(paths, key=lambda p: _distance(p, near))
        return paths[0]

    def resolve_expr(self, symbols: ModuleSymbols, node: ast.expr) -> Resolved | None:
        qualname = symbols.qualify(node)
        if qualname is None:
            return None
        return self.resolve(qualname, symbols.path)

    def from_another_library(self, symbols: ModuleSymbols, node: ast.expr) -> bool:
        """Whether `node` names something of a package outside the repository other than
        torch and the builtins (`pickle.load`, `OmegaConf.merge`)."""
        resolved = self.resolve_expr(symbols, node)
        return resolved is not None and resolved.kind == "external" \
            and not resolved.qualname.startswith(("torch.", "builtins."))

    # -- nn.Module detection ------------------------------------------------------------------

    def is_resolved_module_class(self, resolved: Resolved) -> bool:
        """`is_module_class` for a resolved class, without loading its module when known."""
        memo = self._module_class_memo.get((str(resolved.path), resolved.name or ""))
        if memo is not None:
            self.note(memo[1])
            return memo[0]
        module = resolved.module
        if module is None:
            return False
        return self.is_module_class(module, resolved.header)

    def is_module_class(self, symbols: ModuleSymbols, cls: ast.ClassDef) -> bool:
        key = (str(symbols.path), cls.name)
        if key in self._module_class_memo:
            result, dependencies = self._module_class_memo[key]
            self.note(dependencies)  # the files that answer depended on, for whoever asks again
            return result
        self._module_class_memo[key] = (False, frozenset())  # guards against inheritance cycles
        self.begin_tracking()
        try:
            result = any(self._base_is_module(symbols, base) for base in cls.bases)
        finally:
            dependencies = frozenset(self.end_tracking())
        self._module_class_memo[key] = (result, dependencies)
        return result

    def _base_is_module(self, symbols: ModuleSymbols, base: ast.expr) -> bool:
        if isinstance(base, ast.Subscript):  # Generic[...] style bases
            base = base.value
        alternatives = symbols.base_alternatives(base)
        if alternatives != [base]:
            # `class Net(Base)` with `Base = torch.jit.ScriptModule if jit else nn.Module`: a
            # module whichever binding import time takes
            return bool(alternatives) and all(self._base_is_module(symbols, a) for a in alternatives)
        qualname = symbols.qualify(base)
        if qualname is None:
            return False
        if torch_names.is_torch_module_class(qualname) or torch_names.is_known_module_base(qualname):
            return True
        resolved = self.resolve(qualname, symbols.path)
        if resolved.kind == "class" and resolved.path is not None:
            return self.is_resolved_module_class(resolved)
        if resolved.kind == "external":
            return torch_names.is_torch_module_class(resolved.qualname) or torch_names.is_known_module_base(
                resolved.qualname
            )
        return False

    def torch_base_buffers(self, symbols: ModuleSymbols, cls: ast.ClassDef) -> set[str]:
        """The buffers that the torch.nn classes the class inherits from (directly or through
        repository bases) register in their constructors: `class Loss(_WeightedLoss)` holds a
        `weight` buffer, and assigning a tensor to it fills that buffer."""
        return {b for name in self._external_base_names(symbols, cls) for b in torch_names.registered_buffers(name)}

    def torch_base_constructor_calls(self, symbols: ModuleSymbols, cls: ast.ClassDef) -> set[str]:
        """The methods that the constructors of the torch.nn classes the class inherits from call
        on the instance: `class CayleyLinear(nn.Linear)` defining `reset_parameters` runs it
        inside `super().__init__()`."""
        return {m for name in self._external_base_names(symbols, cls) for m in torch_names.constructor_called_methods(name)}

    def _external_base_names(self, symbols: ModuleSymbols, cls: ast.ClassDef) -> set[str]:
        """The dotted names of the bases, direct or through repository bases, as written and as resolved."""
        found: set[str] = set()
        for sym, node in [(symbols, cls), *self.base_classes(symbols, cls)]:
            for base in node.bases:
                qualname = sym.qualify(base.value if isinstance(base, ast.Subscript) else base)
                if qualname is None:
                    continue
                resolved = self.resolve(qualname, sym.path)
                found.add(qualname)
                if resolved.kind == "external":
                    found.add(resolved.qualname)
        return found

    def base_classes(self, symbols: ModuleSymbols, cls: ast.ClassDef) -> list[tuple[ModuleSymbols, ast.ClassDef]]:
        """Repository classes this class inherits from, nearest first (depth-first, no duplicates)."""
        seen: set[tuple[str, str]] = set()
        out: list[tuple[ModuleSymbols, ast.ClassDef]] = []
        pending: list[tuple[ModuleSymbols, ast.ClassDef, int]] = [(symbols, cls, 0)]
        while pending:
            sym, node, depth = pending.pop()
            if depth > _MAX_DEPTH:
                continue
            found = []
            for base in node.bases:
                resolved = self.resolve_expr(sym, _unsubscript(base))
                if resolved and resolved.kind == "class" and resolved.module is not None:
                    key = (resolved.module.name, resolved.name or "")
                    if key not in seen:
                        seen.add(key)
                        out.append((resolved.module, resolved.node))
                        found.append((resolved.module, resolved.header, depth + 1))
            pending.extend(reversed(found))
        return out

    # -- subclasses ----------------------------------------------------------------------------

    def class_headers(self) -> dict[str, list[Path]]:
        """Word -> files with a class header whose bases mention that word (a cheap textual index)."""
        self.scanned_repository = True
        if self._headers is None:
            headers: dict[str, list[Path]] = {}
            for path in self.files:
                text = self.text(path)
                if not text or "class" not in text:
                    continue
                for match in line_start_matches(_CLASS_HEADER, text):
                    for word in set(re.findall(r"\w+", match.group(2))):
                        files = headers.setdefault(word, [])
                        if not files or files[-1] != path:
                            files.append(path)
            self._headers = headers
        return self._headers

    def subclasses_of(self, symbols: ModuleSymbols, cls: ast.ClassDef) -> list[tuple[ModuleSymbols, ast.ClassDef]]:
        """Repository classes that inherit (directly or not) from `cls`."""
        found: list[tuple[ModuleSymbols, ast.ClassDef]] = []
        pending = [(symbols, cls)]
        seen = {(symbols.name, cls.name)}
        while pending:
            sym, node = pending.pop()
            for path in self.class_headers().get(node.name, []):
                other = self.symbols_for_path(path)
                if other is None:
                    continue
                for candidate in _classes_mentioning(other, node.name):
                    key = (other.name, candidate.name)
                    if key in seen:
                        continue
                    target = (sym.path, node.name, node.lineno)
                    if any(
                        r is not None and r.kind == "class" and r.path is not None
                        and (r.path, r.name) == target[:2] and r.header.lineno == target[2]
                        for r in (self.resolve_expr(other, _unsubscript(b)) for b in candidate.bases)
                    ):
                        seen.add(key)
                        self.note((path,))
                        found.append((other, other.classes[candidate.name]))  # methods are read: the whole class
                        pending.append((other, candidate))
        return found


def _unsubscript(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Subscript) else node


def _classes_mentioning(symbols: ModuleSymbols, name: str) -> list[ast.ClassDef]:
    """The headers of the module's classes that mention `name` (parsing only those)."""
    found: list[ast.ClassDef] = []
    for class_name in list(symbols.classes):
        segment = symbols.classes.segment(class_name)
        if segment is not None and name not in segment.text:
            continue
        try:
            found.append(symbols.classes.header(class_name))
        except SyntaxError:
            continue
    return found


def _distance(candidate: Path, near: Path) -> int:
    a, b = candidate.parent.parts, near.parent.parts
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    return (len(a) - common) + (len(b) - common)


def _scripting_call(tree: ast.Module) -> int | None:
    """The line of the first `torch.jit.script(x)` / `jit.script(x)` whose argument is no function
    the module defines (nor a lambda): a module handed to the script compiler."""
    functions = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute)
                and node.func.attr == "script"):
            continue
        owner = node.func.value
        if not ((isinstance(owner, ast.Attribute) and owner.attr == "jit") or (isinstance(owner, ast.Name) and owner.id == "jit")):
            continue
        argument = node.args[0]
        if isinstance(argument, ast.Lambda) or (isinstance(argument, ast.Name) and argument.id in functions):
            continue
        return node.lineno
    return None
