"""Results of earlier runs, reused for files whose content (and dependencies) did not change.

Where: outside the scanned tree, in `--cache-dir`, else `$CODEMOD_CACHE_DIR`, else the
platform's user cache directory (`$XDG_CACHE_HOME/codemod` or `~/.cache/codemod`,
`~/Library/Caches/codemod`, `%LOCALAPPDATA%\\codemod\\Cache`), with one directory per
project root.  Nothing a repository ships is ever read as a cache.

What: JSON data (see datacodec.py), one file per tool build and option set, with one
entry per source file with nothing to rewrite, so runs on a subset and on the whole
project share entries.  A file with a rewrite has no entry: it is analysed again on
every run, so what is written never comes from the cache.  An entry holds the file's
findings (skips and reports), the content hash it was computed from, the hashes of
the other files the analysis read (base classes, helper functions), the module names it
looked up and the files they named (a file added or removed changes how names resolve),
and, when the analysis searched every file (subclasses, call sites), a digest of all of
them.  Every entry is checked against that shape when used: anything malformed or
unexpected is treated as absent and rebuilt.

Safety: the tool reads and writes only regular files it names itself inside a project
directory it created (marked by a CACHEDIR.TAG); it never follows a symlink there, never
deletes a file it did not create, and replaces the cache file atomically, so concurrent
runs can only lose each other's additions, never corrupt the cache.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import codemod

CACHE_FORMAT = 3
ENVIRONMENT_VARIABLE = "CODEMOD_CACHE_DIR"
TAG_NAME = "CACHEDIR.TAG"
# The standard cache-directory tag (backup tools skip such directories), naming this tool.
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This directory holds the result cache of codemod; `codemod clean` removes it.\n"
)
_CACHE_FILE = re.compile(r"analysis-[0-9a-f]{24}\.json\Z")
_TEMP_FILE = re.compile(r"\.analysis-[0-9a-f]{24}\.json\.codemod-tmp-(\d+)\Z")
_PROJECT_DIR = re.compile(r"[A-Za-z0-9_.-]{0,40}-[0-9a-f]{16}\Z")
WRITE_RECORD = re.compile(r"write-([0-9a-f]{32})\.json\Z")  # a temporary file's record (tempfiles.py)
_MAX_CACHE_BYTES = 2 << 30  # a larger file is not one this tool wrote for a real project

# Filesystems with coarse timestamps (1 s, or 2 s on FAT) cannot tell two edits apart
# within one tick.
_RACY_NS = 2_000_000_000


@dataclass
class Entry:
    digest: str  # of the file's bytes
    dependencies: tuple[tuple[str, str], ...]  # (path, digest) of other files the analysis read
    lookups: tuple[tuple[str, tuple[str, ...]], ...]  # (module name, the files it named then)
    repository_digest: str | None  # set when the analysis depended on every file (subclass scan)
    analysis: Any  # api.FileAnalysis, or its encoded form when loaded from disk
    stat: tuple[int, int] = (-1, -1)  # (size, mtime_ns) when the digest was taken
    recorded_ns: int = 0  # when the digest was taken (time.time_ns())


def file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def repository_digest(digests: dict[str, str]) -> str:
    hasher = hashlib.blake2b(digest_size=16)
    for path in sorted(digests):
        hasher.update(path.encode("utf-8", "surrogateescape") + b"\0" + digests[path].encode() + b"\n")
    return hasher.hexdigest()


def tool_fingerprint(options_key: str) -> str:
    """Changes whenever the tool's code, its version or the analysis options change."""
    hasher = hashlib.blake2b(digest_size=12)
    hasher.update(f"{CACHE_FORMAT}|{codemod.__version__}|{options_key}".encode())
    package = Path(codemod.__file__).parent
    for path in sorted(package.rglob("*.py")):
        st = path.stat()
        hasher.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return hasher.hexdigest()


# -- where -----------------------------------------------------------------------------------------


def cache_base(explicit: Path | str | None = None, environ: dict[str, str] | None = None) -> Path:
    """The directory holding every project's cache: --cache-dir, $CODEMOD_CACHE_DIR, or the user's."""
    environ = os.environ if environ is None else environ
    if explicit:
        return Path(explicit).expanduser().absolute()
    if environ.get(ENVIRONMENT_VARIABLE):
        return Path(environ[ENVIRONMENT_VARIABLE]).expanduser().absolute()
    if sys.platform == "win32":
        local = environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
        return Path(local) / "codemod" / "Cache"
    if sys.platform == "darwin":
        return Path(os.path.expanduser("~")) / "Library" / "Caches" / "codemod"
    xdg = environ.get("XDG_CACHE_HOME", "")
    # The XDG specification ignores a relative value.
    base = Path(xdg) if os.path.isabs(xdg) else Path(os.path.expanduser("~")) / ".cache"
    return base / "codemod"


def project_directory(base: Path, root: Path) -> Path:
    """The cache directory of one project root: its name for people, its path's hash for uniqueness."""
    resolved = os.path.realpath(root)
    key = hashlib.blake2b(resolved.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(resolved))[:40].lstrip(".")
    return base / f"{name}-{key}"


# -- safe file operations inside a directory we created --------------------------------------------

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FD = os.open in os.supports_dir_fd and os.unlink in os.supports_dir_fd


class _Directory:
    """A directory opened once, without following a symlink; names inside are resolved
    relative to it, so swapping a component for a symlink later cannot redirect anything."""

    def __init__(self, path: Path):
        self.path = path
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            raise OSError(errno.ENOTDIR, "not a directory (or a symlink)", str(path))
        self.fd = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW) if _DIR_FD else None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> _Directory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _name(self, name: str) -> str:
        return name if self.fd is not None else str(self.path / name)

    def names(self) -> list[str]:
        return os.listdir(self.fd if self.fd is not None else self.path)

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(self._name(name), dir_fd=self.fd, follow_symlinks=False)

    def read(self, name: str, limit: int) -> bytes | None:
        """A regular file's bytes; None when it is missing, not a regular file, or too large."""
        try:
            fd = os.open(self._name(name), os.O_RDONLY | _NOFOLLOW, dir_fd=self.fd)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            return handle.read(limit + 1)

    def write_new(self, name: str, data: bytes) -> None:
        """Create `name` (which must not exist) with `data`."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
        fd = os.open(self._name(name), flags, 0o600, dir_fd=self.fd)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)

    def replace(self, source: str, target: str) -> None:
        os.replace(self._name(source), self._name(target), src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def remove_file(self, name: str) -> bool:
        """Unlink `name` if it is a regular file (never a directory; a symlink is only its own link)."""
        try:
            info = self.lstat(name)
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                return False
            os.unlink(self._name(name), dir_fd=self.fd)
            return True
        except OSError:
            return False


def ensure_own_directory(directory: Path) -> None:
    """Create `directory` (and its parents) tagged as this tool's; raise OSError when it
    exists and is not one this tool made (a symlink, a file, a directory without our tag)."""
    _ensure_project_directory(directory)


def is_own_directory(directory: Path) -> bool:
    """Whether `directory` is a real directory (not a symlink) carrying this tool's tag."""
    try:
        with _Directory(directory) as handle:
            return _is_ours(handle)
    except OSError:
        return False


def remove_own_files(directory: Path, owned: Callable[[str], bool]) -> bool:
    """In a directory this tool made (tagged), remove the regular files whose names `owned`
    accepts, then the directory itself when nothing else is left.  A symlink is never
    followed.  Returns whether the directory was removed."""
    try:
        with _Directory(directory) as handle:
            if not _is_ours(handle):
                return False
            for name in handle.names():
                if name != TAG_NAME and owned(name):
                    handle.remove_file(name)
            if set(handle.names()) != {TAG_NAME}:
                return False  # something this tool did not put there: the directory stays
            handle.remove_file(TAG_NAME)
        os.rmdir(directory)
    except OSError:
        return False
    return True


def _ensure_project_directory(directory: Path) -> None:
    """Create the base and project directories; raise OSError when the project directory
    is not one this tool made (a symlink, a file, a directory without our tag)."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(directory, 0o700)
        created = True
    except FileExistsError:
        created = False
    with _Directory(directory) as handle:
        if created:
            handle.write_new(TAG_NAME, TAG_TEXT.encode())
        elif handle.read(TAG_NAME, 4096) != TAG_TEXT.encode():
            raise OSError(errno.EEXIST, "not a codemod cache directory", str(directory))


def _is_ours(handle: _Directory) -> bool:
    return handle.read(TAG_NAME, 4096) == TAG_TEXT.encode()


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


# -- the cache -------------------------------------------------------------------------------------


class ResultCache:
    def __init__(self, root: Path, options_key: str, base: Path | None = None):
        self.root = root
        self.directory = project_directory(base if base is not None else cache_base(), root)
        self.fingerprint = tool_fingerprint(options_key)
        self.name = f"analysis-{self.fingerprint}.json"
        self.entries: dict[str, Entry | dict] = {}  # dicts: loaded, not yet checked
        self.dirty = False

    def load(self) -> None:
        try:
            with _Directory(self.directory) as handle:
                if not _is_ours(handle):
                    return
                raw = handle.read(self.name, _MAX_CACHE_BYTES)
        except OSError:
            return
        if raw is None:
            return
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return  # damaged: an empty cache, rebuilt by this run
        if (
            isinstance(data, dict)
            and data.get("format") == CACHE_FORMAT
            and data.get("tool") == self.fingerprint
            and isinstance(data.get("entries"), dict)
        ):
            self.entries = {k: v for k, v in data["entries"].items() if isinstance(k, str) and isinstance(v, dict)}

    def _entry(self, path: str) -> Entry | None:
        entry = self.entries.get(path)
        if isinstance(entry, dict):
            entry = _check_entry(entry)
            if entry is None:
                del self.entries[path]  # malformed: forgotten, and rebuilt by this run
                self.dirty = True
            else:
                self.entries[path] = entry
        return entry

    def known_digest(self, path: str, stat_key: tuple[int, int]) -> str | None:
        """The digest recorded for a file whose size and modification time are unchanged
        (the way git's index avoids re-reading files): content stays the key.

        A file modified within `_RACY_NS` of the moment its digest was taken may have
        changed again in the same timestamp tick: it is read again.
        """
        entry = self._entry(path)
        if entry is None or entry.stat != stat_key or stat_key[1] <= 0:
            return None
        if stat_key[1] >= entry.recorded_ns - _RACY_NS:
            return None
        return entry.digest

    def get(
        self,
        path: str,
        digests: dict[str, str],
        repo_digest: str,
        module_paths: Callable[[str], tuple[str, ...]],
        display_path: str,
    ):
        """The cached analysis of `path` when still valid, decoded for this run; else None."""
        entry = self._entry(path)
        if entry is None or entry.digest != digests.get(path):
            return None
        if any(digests.get(dep) != digest for dep, digest in entry.dependencies):
            return None
        if entry.repository_digest is not None and entry.repository_digest != repo_digest:
            return None
        if any(module_paths(name) != paths for name, paths in entry.lookups):
            return None
        from codemod.datacodec import Malformed, decode_analysis

        try:
            return decode_analysis(entry.analysis, Path(path), display_path)
        except (Malformed, RecursionError):
            del self.entries[path]
            self.dirty = True
            return None

    def put(self, path: str, entry: Entry) -> None:
        """Store the analysis of `path` when it has nothing to write (else forget the file)."""
        from codemod.datacodec import cacheable, encode_analysis

        if not cacheable(entry.analysis):
            if self.entries.pop(path, None) is not None:
                self.dirty = True
            return
        entry.analysis = encode_analysis(entry.analysis)
        self.entries[path] = entry
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        entries = {}
        for path, entry in self.entries.items():
            if not os.path.exists(path):
                continue  # a deleted file's entry would only grow the cache
            entries[path] = _entry_json(entry) if isinstance(entry, Entry) else entry
        data = json.dumps(
            {"format": CACHE_FORMAT, "tool": self.fingerprint, "root": str(self.root), "entries": entries},
            separators=(",", ":"),
        ).encode()
        temporary = f".{self.name}.codemod-tmp-{os.getpid()}"
        try:
            _ensure_project_directory(self.directory)
            with _Directory(self.directory) as handle:
                _remove_stale(handle, keep=self.name)
                handle.remove_file(temporary)
                handle.write_new(temporary, data)
                try:
                    handle.replace(temporary, self.name)
                except OSError:
                    handle.remove_file(temporary)
                    raise
        except OSError:
            pass  # no writable cache directory: the run simply goes without


def _remove_stale(handle: _Directory, keep: str) -> None:
    """Older tool builds' cache files and temporary files of runs that died."""
    for name in handle.names():
        temp = _TEMP_FILE.match(name)
        if (_CACHE_FILE.match(name) and name != keep) or (temp and not _process_alive(int(temp.group(1)))):
            handle.remove_file(name)


def _entry_json(entry: Entry) -> dict[str, Any]:
    return {
        "digest": entry.digest,
        "dependencies": [list(d) for d in entry.dependencies],
        "lookups": [[name, list(paths)] for name, paths in entry.lookups],
        "repository_digest": entry.repository_digest,
        "stat": list(entry.stat),
        "recorded_ns": entry.recorded_ns,
        "analysis": entry.analysis,
    }


_ENTRY_KEYS = {"digest", "dependencies", "lookups", "repository_digest", "stat", "recorded_ns", "analysis"}


def _check_entry(d: dict) -> Entry | None:
    """An entry as `_entry_json` writes it, or None (its analysis is checked when decoded)."""

    def strings(value: Any) -> bool:
        return type(value) is list and all(type(s) is str for s in value)

    def ints(value: Any) -> bool:
        return type(value) is list and len(value) == 2 and all(type(n) is int for n in value)

    try:
        if set(d) != _ENTRY_KEYS or type(d["digest"]) is not str or type(d["recorded_ns"]) is not int:
            return None
        if not (d["repository_digest"] is None or type(d["repository_digest"]) is str) or not ints(d["stat"]):
            return None
        if not (type(d["dependencies"]) is list and all(strings(x) and len(x) == 2 for x in d["dependencies"])):
            return None
        lookups = d["lookups"]
        if not (type(lookups) is list and all(type(x) is list and len(x) == 2 and type(x[0]) is str and strings(x[1]) for x in lookups)):
            return None
        if type(d["analysis"]) is not dict:
            return None
    except TypeError:
        return None
    return Entry(
        digest=d["digest"],
        dependencies=tuple((a, b) for a, b in d["dependencies"]),
        lookups=tuple((name, tuple(paths)) for name, paths in lookups),
        repository_digest=d["repository_digest"],
        analysis=d["analysis"],
        stat=(d["stat"][0], d["stat"][1]),
        recorded_ns=d["recorded_ns"],
    )


# -- codemod clean ---------------------------------------------------------------------------------


def clean(base: Path, root: Path | None) -> Iterator[Path]:
    """Remove the cache of project `root` (every project's when None) under `base`; yield
    each directory removed.  Only files this tool names are removed, only from directories
    carrying its tag; a symlink is never followed."""
    if root is not None:
        candidates = [project_directory(base, root)]
    else:
        try:
            candidates = [base / name for name in sorted(os.listdir(base)) if _PROJECT_DIR.match(name)]
        except OSError:
            return
    for directory in candidates:
        try:
            with _Directory(directory) as handle:
                if not _is_ours(handle):
                    continue
                for name in handle.names():
                    if _CACHE_FILE.match(name) or _TEMP_FILE.match(name) or WRITE_RECORD.match(name):
                        handle.remove_file(name)
                if set(handle.names()) != {TAG_NAME}:
                    continue  # something this tool did not put there: the directory stays
                handle.remove_file(TAG_NAME)
            os.rmdir(directory)  # fails, and keeps it, when anything else is left inside
        except OSError:
            continue
        yield directory
