"""Verdicts of earlier validations, reused while nothing they depended on changed.

A verdict is stored under a key made of the class, its planned rewrites, the
validation options, the interpreter and the tool's own build; with it go the
content digests of every source file the two workers had imported (the
repository's files and anything else outside the interpreter's installation),
of the examples file and of the class's record, and a digest of the listing
of the interpreter's site directories (installing, removing or upgrading a
package, torch included, changes a ``name-version.dist-info`` entry there).
A stored verdict is used only when all of them still match, and only for the
exact content it was validated on: the entry repeats the whole request (the
digests of the class's file and of its rewritten text among it), which must
equal this run's, and names the class's own file among its digests.  Every
entry is checked against the exact shape this module writes; anything else
is a miss.  A verdict only decides whether the tool's own rewrite of the
current file is written: nothing in it is code, or becomes the text written.

Only verdicts that say something about the code are kept (passed, failed,
not validated); an error or a timeout is tried again next time.

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
CACHED_VERDICTS = {Verdict.PASSED, Verdict.FAILED, Verdict.NOT_VALIDATED}


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
    """The lookup key: a digest of the request (kept in the entry too, and compared whole)."""
    return hashlib.blake2b(_request_text(parts).encode("utf-8"), digest_size=16).hexdigest()


def _request_text(parts: dict[str, Any]) -> str:
    return json.dumps([FORMAT, parts], sort_keys=True, default=str)


_OPTIONAL_TEXT = ("device", "original_failure", "snippet")
_TEXTS = ("compared", "left_behind", "missing_keys", "details", "failures", "notes")


def validation_from_json(data: Any) -> Validation:
    """The Validation `Validation.to_json` wrote; ValueError for anything else."""
    names = {f.name for f in dataclasses.fields(Validation)}
    if type(data) is not dict or set(data) != names:
        raise ValueError("unexpected record")
    verdict = Verdict(data["verdict"])
    if verdict not in CACHED_VERDICTS or type(data["message"]) is not str:
        raise ValueError("unexpected verdict")
    if any(not (data[k] is None or type(data[k]) is str) for k in _OPTIONAL_TEXT):
        raise ValueError("expected text")
    if any(type(data[k]) is not list or any(type(v) is not str for v in data[k]) for k in _TEXTS):
        raise ValueError("expected a list of text")
    if not (data["max_abs_diff"] is None or type(data["max_abs_diff"]) in (int, float)):
        raise ValueError("expected a number")
    if not (data["checkpoint_compatible"] is None or type(data["checkpoint_compatible"]) is bool):
        raise ValueError("expected a boolean")
    if type(data["parameter_order_changed"]) is not bool or type(data["rewrites"]) is not dict:
        raise ValueError("unexpected record")
    for attr, own in data["rewrites"].items():
        if not attr.isidentifier() or type(own) is not dict or set(own) != {"verdict", "checks", "message"}:
            raise ValueError("unexpected rewrite verdict")
        Verdict(own["verdict"])
        if type(own["message"]) is not str or type(own["checks"]) is not list or any(type(c) is not str for c in own["checks"]):
            raise ValueError("unexpected rewrite verdict")
    return Validation(**{**data, "verdict": verdict})


_ENTRY_KEYS = {"request", "validation", "files", "site_dirs", "site"}


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

    def get(self, parts: dict[str, Any], own_file: str) -> Validation | None:
        """The verdict stored for exactly this request, while every file it read is unchanged."""
        entry = self.entries.get(class_key(parts))
        if entry is None:
            return None
        try:
            if set(entry) != _ENTRY_KEYS or entry["request"] != _request_text(parts):
                return None  # stored under this key for another request (or content)
            files, site_dirs = entry["files"], entry["site_dirs"]
            if type(files) is not dict or own_file not in files or type(site_dirs) is not list:
                return None
            for path, digest in files.items():
                if type(digest) is not str or self.digests.of(path) != digest:
                    return None
            if any(type(d) is not str for d in site_dirs) or self.digests.listing(site_dirs) != entry["site"]:
                return None
            return validation_from_json(entry["validation"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def put(self, parts: dict[str, Any], validation: Validation, files: Iterable[str], site_dirs: list[str]) -> None:
        key = class_key(parts)
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
            "request": _request_text(parts),
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
