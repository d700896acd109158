"""Verdicts of earlier validations, reused while nothing they depended on changed.

A verdict is stored under a key made of the class, its planned rewrites, the
validation options, the interpreter and the tool's own build; with it go the
content digests of every source file the two workers had imported (the
repository's files and anything else outside the interpreter's installation),
of the examples file and of the class's record, and a digest of the listing
of the interpreter's site directories (installing, removing or upgrading a
package, torch included, changes a ``name-version.dist-info`` entry there).
A stored verdict is used only when all of them still match.

Only verdicts that say something about the code are kept (passed, failed,
not validated); an error or a timeout is tried again next time.

Data only: JSON, never pickle.  It lives in the user's cache directory, in a
folder of its own (``verdicts``), one file per repository, outside the
scanned tree.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable

from codemod.ftypes import Validation, Verdict

FORMAT = 1
DIRECTORY_NAME = "verdicts"
CACHED_VERDICTS = {Verdict.PASSED, Verdict.FAILED, Verdict.NOT_VALIDATED}


def user_cache_root() -> Path:
    """``$CODEMOD_CACHE_DIR``, else the platform's user cache folder, ``/codemod``."""
    explicit = os.environ.get("CODEMOD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "codemod"


def directory() -> Path:
    """Where verdicts are kept (what a cache cleaner removes)."""
    return user_cache_root() / DIRECTORY_NAME


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

    def __init__(self, root: Path, location: Path | None = None) -> None:
        name = digest_bytes(str(Path(root).resolve()).encode("utf-8", "surrogateescape"))
        self.path = (location or directory()) / f"{name}.json"
        self.entries: dict[str, dict[str, Any]] = {}
        self.digests = Digests()
        self.dirty = False

    def load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
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
            self.path.parent.mkdir(parents=True, exist_ok=True)
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
