"""Which files a run covers.

Directories are walked for ``*.py`` files, skipping tool and environment
directories, whatever ``.gitignore`` files (and ``.git/info/exclude``) say,
and the user's ``--exclude`` patterns.  Files named explicitly are taken as
asked, unless an ``--exclude`` pattern matches them.

As in git, ignore files say which *untracked* files to leave out: a file that git tracks
is never ignored (`models/` in `.gitignore` while `models/*.py` are committed), so a walk
takes the tracked Python files of an ignored directory, read from the repository's index.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import pathspec


__all__ = [
    "DEFAULT_EXCLUDED_DIRS",
    "Discovery",
    "discover",
    "display_path",
    "is_default_excluded_dir",
    "module_name_for",
]

DEFAULT_EXCLUDED_DIRS: frozenset[str] = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "node_modules",
        "build",
        "dist",
        ".eggs",
        ".codemod",
        "site-packages",
        # Jupyter's autosaved copies of the files open in it: a second, stale copy of each
        ".ipynb_checkpoints",
    }
)
_EXCLUDED_DIR_GLOBS = ("*.egg-info",)


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (display path, one-line message)


def is_default_excluded_dir(path: Path | str) -> bool:
    """True for directories no run should descend into (tool caches, virtual environments, ...)."""
    name = os.path.basename(os.fspath(path))
    if name in DEFAULT_EXCLUDED_DIRS or any(fnmatch.fnmatchcase(name, g) for g in _EXCLUDED_DIR_GLOBS):
        return True
    # A virtual environment can have any name; pyvenv.cfg gives it away.
    return os.path.isfile(os.path.join(os.fspath(path), "pyvenv.cfg"))


def display_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` relative to ``cwd`` when inside it, else absolute; always with forward slashes."""
    # String operations: this runs for every file of large repositories.
    base = os.path.abspath(cwd if cwd is not None else os.getcwd())
    absolute = os.path.abspath(path)
    if absolute == base:
        return "."
    prefix = base if base.endswith(os.sep) else base + os.sep
    text = absolute[len(prefix) :] if absolute.startswith(prefix) else absolute
    return text.replace(os.sep, "/") if os.sep != "/" else text


@functools.lru_cache(maxsize=None)
def _package_of(directory: str) -> tuple[str, tuple[str, ...]]:
    """(import root, package parts) for a module file living in ``directory``.

    A folder without ``__init__.py`` inside a package is a namespace portion of it: Python
    imports ``pkg/nn/scalar/flow.py`` as ``pkg.nn.scalar.flow`` (where ``pkg/nn`` is a
    package), and that module's ``from .._core import Base`` names ``pkg.nn._core``."""
    parent = os.path.dirname(directory)
    if parent == directory:
        return directory, ()
    name = os.path.basename(directory)
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        if not name.isidentifier() or not os.path.isfile(os.path.join(parent, "__init__.py")):
            return directory, ()
        root, parts = _package_of(parent)
        return (root, parts + (name,)) if parts else (directory, ())
    root, parts = _package_of(parent)
    return root, parts + (name,)


def module_name_for(path: Path) -> tuple[Path, str]:
    """The import root and dotted module name of a source file.

    /r/src/pkg/sub/m.py with ``__init__.py`` in pkg and sub -> (/r/src, "pkg.sub.m");
    /r/src/pkg/__init__.py -> (/r/src, "pkg").
    """
    absolute = os.path.abspath(path)
    directory, filename = os.path.split(absolute)
    root, parts = _package_of(directory)
    stem = filename[:-3] if filename.endswith(".py") else os.path.splitext(filename)[0]
    if stem != "__init__" or not parts:
        parts = parts + (stem,)
    return Path(root), ".".join(parts)


module_name_for.cache_clear = _package_of.cache_clear  # type: ignore[attr-defined]


def module_spellings(path: Path, name: str, root: Path | None) -> list[str]:
    """The module names a file answers to: its package name and, relative to `root`, its path.

    Script-style repositories import by path from their root ("from models.layers import X")
    even without __init__.py files: that spelling is registered too, and so is the path from
    each folder between the root and the file, where a script run from that folder imports
    it (`from config.classes import K` in task/src/main.py reads task/src/config/classes.py).
    """
    spellings = [name]
    if root is not None:
        # String work: this runs for every file of the project on every run.
        base = str(root)
        prefix = base if base.endswith(os.sep) else base + os.sep
        text = str(path)
        if not text.startswith(prefix):
            return spellings
        parts = os.path.splitext(text[len(prefix) :])[0].split(os.sep)
        if parts and parts[-1] == "__init__":
            parts.pop()
        alt = ".".join(parts)
        if alt and alt != name:
            spellings.append(alt)
        # the shorter spellings, as far up as every folder name is an identifier
        for start in range(len(parts) - 1, 0, -1):
            if not parts[start].isidentifier():
                break
            spelling = ".".join(parts[start:])
            if spelling not in spellings:
                spellings.append(spelling)
    return spellings


def module_map(files: Sequence[Path], root: Path | None) -> dict[str, tuple[str, ...]]:
    """Module name -> the files it denotes, as the analysis's index registers them."""
    paths: dict[str, list[str]] = {}
    for path in files:
        name = module_name_for(path)[1] if path.suffix == ".py" else path.stem
        for spelling in module_spellings(path, name, root):
            paths.setdefault(spelling, []).append(str(path))
    return {name: tuple(found) for name, found in paths.items()}


# --- ignore rules -----------------------------------------------------------


class _IgnoreLayer:
    """The patterns of one ignore file, matched relative to the directory it applies to."""

    __slots__ = ("base", "spec")

    def __init__(self, base: str, spec: pathspec.GitIgnoreSpec) -> None:
        self.base = base
        self.spec = spec


# Ignore files are patterns, a few KB; a larger one is not read (and cannot exhaust memory).
_MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024


def _load_ignore_file(file: str, base: str) -> _IgnoreLayer | None:
    # As git does, a symlinked ignore file is not followed (it could name a file outside the
    # repository, or a FIFO that would block the run); only a regular file is read.
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_IGNORE_FILE_BYTES:
                return None
            data = handle.read(_MAX_IGNORE_FILE_BYTES + 1)
        except OSError:
            return None
    if len(data) > _MAX_IGNORE_FILE_BYTES:
        return None
    lines = data.decode("utf-8", "surrogateescape").splitlines()
    spec = _gitignore_spec(lines)
    return _IgnoreLayer(base, spec) if len(spec) else None


def _gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    # Imported when a pattern is first read: importing pathspec costs as much as a warm
    # run of a small repository without any ignore file.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _relative_to(path: str, base: str) -> str | None:
    """``path`` relative to ``base`` with forward slashes ("" for base itself), None when outside.

    Both are absolute and resolved, so plain string work is enough, and much
    cheaper than os.path.relpath on every file of a large tree.
    """
    if path == base:
        return ""
    prefix = base if base.endswith(os.sep) else base + os.sep
    if not path.startswith(prefix):
        return None
    return path[len(prefix) :].replace(os.sep, "/")


def _ignored(layers: Sequence[_IgnoreLayer], path: str, is_dir: bool) -> bool:
    """Git's verdict for ``path``: the deepest ignore file with a matching pattern decides."""
    for layer in reversed(layers):
        relative = _relative_to(path, layer.base)
        if not relative:
            continue
        result = layer.spec.check_file(relative + "/" if is_dir else relative)
        if result.include is not None:
            return bool(result.include)
    return False


# --- what git tracks -----------------------------------------------------------------------

# An index over this size is not read (its ignore rules then apply to every file, as written).
_MAX_INDEX_BYTES = 256 * 1024 * 1024


def _regular_file(path: str, limit: int) -> bool:
    """A regular file (not a symlink, a FIFO or a device) of at most `limit` bytes."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= limit


def _index_file(root: str) -> str | None:
    """The index of the repository whose work tree is `root`: `.git/index`, or, where `.git`
    is a file (a worktree, a submodule), the index of the directory its `gitdir:` line names."""
    dot_git = os.path.join(root, ".git")
    try:
        info = os.lstat(dot_git)
    except OSError:
        return None
    if stat.S_ISDIR(info.st_mode):
        git_dir = dot_git
    elif stat.S_ISREG(info.st_mode) and info.st_size <= 4096:
        with open(dot_git, "rb") as handle:
            line = handle.read(4096).decode("utf-8", "surrogateescape").strip()
        if not line.startswith("gitdir:"):
            return None
        git_dir = os.path.join(root, line[len("gitdir:") :].strip())
    else:
        return None
    index = os.path.join(git_dir, "index")
    return index if _regular_file(index, _MAX_INDEX_BYTES) else None


class _Tracked:
    """The Python files git tracks in one work tree, and the directories holding them: read
    from the index (never by running git, whose configuration could run a program) the first
    time an ignore rule hides something a walk would take."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._files: frozenset[str] | None = None
        self._dirs: frozenset[str] = frozenset()

    def _load(self) -> tuple[frozenset[str], frozenset[str]]:
        if self._files is None:
            self._files = frozenset()
            index = _index_file(self.root)
            if index is not None:
                try:
                    from dulwich.index import Index  # imported only where an ignore rule hides Python files

                    paths = [path.decode("utf-8", "surrogateescape") for path in Index(index).paths()]
                except Exception:  # noqa: BLE001 - a corrupt or unsupported index: the ignore rules apply as written
                    paths = []
                files = {path for path in paths if path.endswith(".py")}
                dirs: set[str] = set()
                for path in files:
                    parent = path.rpartition("/")[0]
                    while parent and parent not in dirs:
                        dirs.add(parent)
                        parent = parent.rpartition("/")[0]
                self._files, self._dirs = frozenset(files), frozenset(dirs)
        return self._files, self._dirs

    def holds(self, path: str, is_dir: bool) -> bool:
        """Whether git tracks the file, or a Python file inside the directory."""
        relative = _relative_to(path, self.root)
        if not relative:
            return False
        files, dirs = self._load()
        return relative in (dirs if is_dir else files)


def _find_repo_root(directory: str) -> str | None:
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _enclosing_layers(directory: str, repo: str | None) -> list[_IgnoreLayer]:
    """Ignore rules that apply at ``directory`` in the work tree ``repo`` (_find_repo_root):
    info/exclude, then .gitignore files from the repository root down."""
    if repo is None:
        return []
    layers: list[_IgnoreLayer] = []
    info_exclude = os.path.join(repo, ".git", "info", "exclude")
    if os.path.isfile(info_exclude):
        layer = _load_ignore_file(info_exclude, repo)
        if layer is not None:
            layers.append(layer)
    chain = []
    current = directory
    while True:
        chain.append(current)
        if current == repo:
            break
        current = os.path.dirname(current)
    chain.reverse()
    # The directory's own .gitignore is loaded by the walk; here only its ancestors'.
    for ancestor, child in zip(chain, chain[1:]):
        layer = _load_ignore_file(os.path.join(ancestor, ".gitignore"), ancestor)
        if layer is not None:
            layers.append(layer)
        if _ignored(layers, child, True):
            # The user named a directory that git ignores (a vendored tree, an
            # installed package): take it as asked rather than finding nothing.
            return []
    return layers


class _Excluder:
    """The user's --exclude patterns, relative to the root."""

    def __init__(self, patterns: Sequence[str], root: str) -> None:
        self.root = root
        self.spec = _gitignore_spec(list(patterns)) if patterns else None

    def __call__(self, path: str, is_dir: bool) -> bool:
        if self.spec is None:
            return False
        relative = _relative_to(path, self.root)
        if relative is None:
            # Outside the root only unanchored patterns can sensibly match.
            relative = path.lstrip(os.sep).replace(os.sep, "/")
        if not relative:
            return False
        # Gitignore patterns also match everything below a matching directory,
        # so an explicitly named file inside an excluded directory is excluded.
        return self.spec.match_file(relative + "/" if is_dir else relative)


# --- the walk -------------------------------------------------------------------


def _walk(
    top: str,
    layers: list[_IgnoreLayer],
    excluded: _Excluder,
    respect_gitignore: bool,
    cwd: Path,
    out: list[str],
    errors: list[tuple[str, str]],
    tracked: _Tracked | None = None,
) -> None:
    # Iterative so deep trees cannot hit the recursion limit.
    stack: list[tuple[str, list[_IgnoreLayer]]] = [(top, layers)]
    while stack:
        directory, inherited = stack.pop()
        current = inherited
        if respect_gitignore:
            layer = _load_ignore_file(os.path.join(directory, ".gitignore"), directory)
            if layer is not None:
                current = inherited + [layer]
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError as exc:
            message = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
            errors.append((display_path(Path(directory), cwd), f"cannot read directory: {message}"))
            continue
        for entry in entries:
            try:
                # Symlinks are never followed: no loops, no files outside the tree.
                if entry.is_symlink():
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if is_default_excluded_dir(entry.path):
                    continue
            elif not (is_file and entry.name.endswith(".py")):
                continue
            if excluded(entry.path, is_dir):
                continue
            if respect_gitignore and _ignored(current, entry.path, is_dir):
                if tracked is None or not tracked.holds(entry.path, is_dir):
                    continue
            if is_dir:
                stack.append((entry.path, current))
            else:
                out.append(entry.path)


def symlink_problem(given: Path | str, root: Path | str) -> str | None:
    """Why the path argument `given` is refused unless symlinks are followed: it is a
    symlink, passes through one on the way from the project root `root` (the root
    included), or resolves outside that root.  None when it is none of these."""
    absolute, top = os.path.abspath(given), os.path.abspath(root)
    if _relative_to(absolute, top) is None:
        return f"is outside the project root {top}"
    current = top
    parts = [p for p in (_relative_to(absolute, top) or "").split("/") if p]
    for part in [None, *parts]:
        current = os.path.join(current, part) if part else current
        if os.path.islink(current):
            if current == absolute:
                return "is a symlink"
            return f"passes through the symlink {display_path(Path(current))}"
    if _relative_to(os.path.realpath(absolute), os.path.realpath(top)) is None:
        return f"resolves outside the project root {top}"
    return None


def discover(
    paths: Sequence[Path | str],
    *,
    excludes: Sequence[str] = (),
    respect_gitignore: bool = True,
    root: Path | None = None,
    follow_symlinks: bool = False,
) -> Discovery:
    """Collect the files a run covers from files and directories given by the user.

    A path that is or passes through a symlink, or resolves outside the project root, is
    an error unless `follow_symlinks` (walks never follow one: see _walk)."""
    cwd = Path.cwd()
    root_dir = os.path.realpath(root if root is not None else cwd)
    excluded = _Excluder(excludes, root_dir)
    result = Discovery()
    found: list[str] = []

    for given in paths:
        shown = display_path(Path(given), cwd)
        try:
            st = os.stat(given)
        except FileNotFoundError:
            result.errors.append((shown, "no such file or directory"))
            continue
        except OSError as exc:
            result.errors.append((shown, (exc.strerror or str(exc)).lower()))
            continue
        problem = None if follow_symlinks else symlink_problem(given, root if root is not None else cwd)
        if problem is not None:
            result.errors.append((shown, f"{problem}: not followed (--follow-symlinks takes it)"))
            continue
        resolved = os.path.realpath(given)
        if stat.S_ISREG(st.st_mode):
            # Named by the user: taken even without a .py suffix, or inside an ignored directory.
            if not excluded(resolved, False):
                found.append(resolved)
        elif stat.S_ISDIR(st.st_mode):
            if excluded(resolved, True):
                continue
            repo = _find_repo_root(resolved) if respect_gitignore else None
            layers = _enclosing_layers(resolved, repo) if respect_gitignore else []
            _walk(resolved, layers, excluded, respect_gitignore, cwd, found, result.errors,
                  _Tracked(repo) if repo is not None else None)
        else:
            result.errors.append((shown, "not a regular file or directory"))

    result.files = sorted({Path(p) for p in found})
    return result
