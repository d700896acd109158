"""Verdicts of earlier validations, reused while nothing they depended on changed.

A verdict is stored under a key made of the class, its planned rewrites, the
validation options, the interpreter and the tool's own build; with it go the
content digests of every source file the two workers had imported (the
repository's files and anything else outside the interpreter's installation),
of the examples file and of the class's record, and a digest of the listing
of the interpreter's site directories (installing, removing or upgrading a
package, torch included, changes a ``name-version.dist-info`` entry there).
A stored verdict is used only when all of them still match.

Only verdicts that say something about the code are kept (passed, checked without
forward, changes the checkpoint format, failed, not validated); an error or a timeout is
tried again next time.

Data only: JSON, never pickle, read with a size limit and checked entry by
entry.  It lives in the same cache directory as the analysis cache (see
cache.py: ``--cache-dir``, ``$CODEMOD_CACHE_DIR`` or the user's cache
directory), in a folder of its own, ``verdicts/``, one file per project named
like the project's analysis directory, outside the scanned tree.  ``codemod
clean`` removes it (:func:`clean`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

from codemod.ftypes import Validation, Verdict

FORMAT = 2
DIRECTORY_NAME = "verdicts"
CACHED_VERDICTS = {Verdict.PASSED, Verdict.CHECKED_WITHOUT_FORWARD, Verdict.CHANGES_CHECKPOINT, Verdict.FAILED,
                   Verdict.NOT_VALIDATED}


MAX_BYTES = 64 << 20  # a larger file is not one this tool wrote
_FILE = re.compile(r"[A-Za-z0-9_.-]{0,40}-[0-9a-f]{16}\.json\Z")
_TEMP = re.compile(r"\.tmp-[A-Za-z0-9_]+\.json\Z")


def directory(base: Path | None = None) -> Path:
    """Where verdicts are kept: ``verdicts/`` in the cache directory."""
    from codemod.cache import cache_base

    return (base if base is not None else cache_base()) / DIRECTORY_NAME


def verdict_file(base: Path | None, root: Path) -> Path:
    from codemod.cache import project_directory

    folder = directory(base)
    return folder / (project_directory(folder, root).name + ".json")


def clean(base: Path, root: Path | None) -> Iterator[Path]:
    """Remove the stored verdicts of project ``root`` (of every project when None); yield what
    was removed.  Only files named as this module names them; a symlink is never followed."""
    folder = directory(base)
    if folder.is_symlink() or not folder.is_dir():
        return
    names = [verdict_file(base, root).name] if root is not None else sorted(os.listdir(folder))
    for name in names:
        path = folder / name
        if (_FILE.match(name) or _TEMP.match(name)) and path.is_file() and not path.is_symlink():
            try:
                path.unlink()
            except OSError:
                continue
            yield path
    try:
        folder.rmdir()  # only when nothing else is left
    except OSError:
        pass


def digest_bytes(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Digests:
    """Content digests of files, each file read at most once per run."""

    def __init__(self) -> None:
        self._known: dict[str, str | None] = {}

    def of(self, path: str) -> str | None:
        if path not in self._known:
            try:
                with open(path, "rb") as handle:
                    self._known[path] = digest_bytes(handle.read())
            except OSError:
                self._known[path] = None
        return self._known[path]

    def of_text(self, text: str) -> str:
        return digest_bytes(text.encode("utf-8", "surrogateescape"))

    def listing(self, directories: Iterable[str]) -> str:
        """The names in each site directory: packages and their versions."""
        hasher = hashlib.blake2b(digest_size=16)
        for directory in sorted(directories):
            key = "dir:" + directory
            if key not in self._known:
                try:
                    names = sorted(os.listdir(directory))
                except OSError:
                    names = ["<missing>"]
                self._known[key] = digest_bytes("\n".join(names).encode("utf-8", "surrogateescape"))
            hasher.update(f"{directory}\0{self._known[key]}\n".encode("utf-8", "surrogateescape"))
        return hasher.hexdigest()


def class_key(parts: dict[str, Any]) -> str:
    """The lookup key: everything about the request that is not a file's content."""
    text = json.dumps([FORMAT, parts], sort_keys=True, default=str)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def validation_from_json(data: dict[str, Any]) -> Validation:
    names = {f.name for f in dataclasses.fields(Validation)}
    values = {k: v for k, v in data.items() if k in names}
    values["verdict"] = Verdict(data["verdict"])
    return Validation(**values)


class VerdictCache:
    """One repository's stored verdicts; ``load``, ``get``/``put``, then ``save``."""

    def __init__(self, root: Path, base: Path | None = None) -> None:
        self.path = verdict_file(base, Path(root))
        self.entries: dict[str, dict[str, Any]] = {}
        self.digests = Digests()
        self.dirty = False

    def load(self) -> None:
        try:
            if self.path.is_symlink() or self.path.stat().st_size > MAX_BYTES:
                return
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return
        if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("entries"), dict):
            self.entries = {k: v for k, v in data["entries"].items() if isinstance(v, dict)}

    def get(self, key: str) -> Validation | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            for path, digest in entry["files"].items():
                if self.digests.of(path) != digest:
                    return None
            if self.digests.listing(entry["site_dirs"]) != entry["site"]:
                return None
            return validation_from_json(entry["validation"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def put(self, key: str, validation: Validation, files: Iterable[str], site_dirs: list[str]) -> None:
        if validation.verdict not in CACHED_VERDICTS:
            self.entries.pop(key, None)
            return
        digests = {}
        for path in sorted(set(files)):
            digest = self.digests.of(path)
            if digest is None:
                return  # a file that cannot be read back cannot vouch for the verdict
            digests[path] = digest
        self.entries[key] = {
            "validation": validation.to_json(),
            "files": digests,
            "site_dirs": list(site_dirs),
            "site": self.digests.listing(site_dirs),
        }
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self.path.parent.is_symlink():
                return
            fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump({"format": FORMAT, "entries": self.entries}, handle)
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass  # a read-only cache directory: validate again next time
