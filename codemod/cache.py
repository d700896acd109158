"""Results of earlier runs, reused for files whose content (and dependencies) did not change.

One file per tool build and option set under `<root>/.codemod/cache/`.  An entry
holds a file's analysis, the content hash it was computed from and the hashes of
the other files the analysis read (base classes, helper functions).  A run that
also scanned the repository for subclasses depends on every file, and records a
digest of all of them.  The file is replaced atomically, so concurrent runs can
only lose each other's additions, never corrupt the cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path

import codemod

CACHE_FORMAT = 1


@dataclass
class Entry:
    digest: str  # of the file's bytes
    dependencies: tuple[tuple[str, str], ...]  # (path, digest) of other files the analysis read
    repository_digest: str | None  # set when the analysis depended on every file (subclass scan)
    analysis: object  # api.FileAnalysis
    stat: tuple[int, int] = (-1, -1)  # (size, mtime_ns) when the digest was taken
    recorded_ns: int = 0  # when the digest was taken (time.time_ns())


# Filesystems with coarse timestamps (1 s, or 2 s on FAT) cannot tell two edits apart
# within one tick.
_RACY_NS = 2_000_000_000


def _well_formed(entry: object) -> bool:
    if not isinstance(entry, Entry):
        return False
    try:
        return (
            isinstance(entry.digest, str)
            and isinstance(entry.dependencies, tuple)
            and all(isinstance(d, tuple) and len(d) == 2 for d in entry.dependencies)
            and (entry.repository_digest is None or isinstance(entry.repository_digest, str))
            and isinstance(entry.stat, tuple)
            and len(entry.stat) == 2
            and isinstance(entry.recorded_ns, int)
        )
    except AttributeError:
        return False


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
        stat = path.stat()
        hasher.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return hasher.hexdigest()


class ResultCache:
    def __init__(self, root: Path, options_key: str, file_list: list[str]):
        self.directory = root / ".codemod" / "cache"
        # The set of files is part of the key: a new file can change how names resolve.
        listing = hashlib.blake2b("\n".join(file_list).encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
        self.path = self.directory / f"{tool_fingerprint(options_key)}-{listing}.pickle"
        self.entries: dict[str, Entry] = {}
        self.dirty = False

    def load(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                data = pickle.load(handle)
        except Exception:  # noqa: BLE001 - a missing or damaged cache is an empty one, whatever the damage
            return
        if isinstance(data, dict):
            self.entries = {k: v for k, v in data.items() if isinstance(k, str) and _well_formed(v)}

    def known_digest(self, path: str, stat: tuple[int, int]) -> str | None:
        """The digest recorded for a file whose size and modification time are unchanged
        (the way git's index avoids re-reading files): content stays the key.

        A file modified within `_RACY_NS` of the moment its digest was taken may have
        changed again in the same timestamp tick: it is read again.
        """
        entry = self.entries.get(path)
        if entry is None or entry.stat != stat or stat[1] <= 0:
            return None
        if stat[1] >= entry.recorded_ns - _RACY_NS:
            return None
        return entry.digest

    def get(self, path: str, digests: dict[str, str], repo_digest: str) -> object | None:
        entry = self.entries.get(path)
        if entry is None or entry.digest != digests.get(path):
            return None
        if any(digests.get(dep) != digest for dep, digest in entry.dependencies):
            return None
        if entry.repository_digest is not None and entry.repository_digest != repo_digest:
            return None
        return entry.analysis

    def put(self, path: str, entry: Entry) -> None:
        self.entries[path] = entry
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by codemod: its cache is not part of the repository\n*\n")
            for stale in self.directory.glob("*.pickle"):
                if stale != self.path:
                    stale.unlink(missing_ok=True)  # older tool builds or options
            fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".pickle")
            try:
                with os.fdopen(fd, "wb") as handle:
                    pickle.dump(self.entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temp, self.path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # a read-only checkout simply runs without a cache
