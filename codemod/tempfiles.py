"""Temporary files of atomic writes, and removing the ones a killed run left behind.

A rewrite is written to `.<file>.codemod-tmp-<token>` next to its file, then renamed
over it; <token> is 32 random hexadecimal digits.  Before that file is created, the
run records the token in the project's cache directory (`write-<token>.json`: the
temporary file's path, the size and digest of what it will hold, the run's process
id), and forgets it once the rename is done.

A later writing run, about to write a file, removes a temporary file next to it only
when a record with its token names exactly that path, the process that recorded it is
gone, and the file is a regular file of the user's holding nothing (the run died
before writing) or exactly the recorded bytes.  Nothing else is removed: not another
program's file, not a look-alike without a record, not one whose bytes differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
from pathlib import Path

from codemod.cache import WRITE_RECORD as RECORD
from codemod.cache import _Directory, _ensure_project_directory, _is_ours, _process_alive

MARK = ".codemod-tmp-"
_MAX_RECORD_BYTES = 64 << 10


def temp_name(name: str, token: str) -> str:
    return f".{name}{MARK}{token}"


def new_token() -> str:
    return secrets.token_hex(16)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Journal:
    """The records of one project's temporary files (in its cache directory)."""

    def __init__(self, directory: Path | None):
        self.directory = directory  # None: nothing is recorded, nothing removed

    def record(self, token: str, path: str, data: bytes) -> bool:
        """Record the temporary file `path` about to hold `data`; False when it cannot be."""
        if self.directory is None:
            return False
        entry = {"path": path, "size": len(data), "digest": digest(data), "pid": os.getpid()}
        try:
            _ensure_project_directory(self.directory)
            with _Directory(self.directory) as handle:
                handle.write_new(f"write-{token}.json", json.dumps(entry).encode())
        except OSError:
            return False
        return True

    def forget(self, token: str) -> None:
        if self.directory is None:
            return
        try:
            with _Directory(self.directory) as handle:
                handle.remove_file(f"write-{token}.json")
        except OSError:
            pass

    def remove_leftovers(self, directory: str, name: str, dir_fd: int | None) -> list[str]:
        """Remove the temporary files of `name` in `directory` (opened as `dir_fd`) that
        records prove a dead run of this tool left; return their names."""
        if self.directory is None:
            return []
        removed = []
        try:
            with _Directory(self.directory) as handle:
                if not _is_ours(handle):
                    return []
                for record_name in handle.names():
                    match = RECORD.match(record_name)
                    if match is None:
                        continue
                    token = match.group(1)
                    entry = _entry(handle.read(record_name, _MAX_RECORD_BYTES))
                    temp = temp_name(name, token)
                    if entry is None or entry["path"] != os.path.join(directory, temp) or _process_alive(entry["pid"]):
                        continue
                    state = _ours(temp, directory, dir_fd, entry)
                    if state == "ours":
                        try:
                            os.unlink(temp if dir_fd is not None else os.path.join(directory, temp), dir_fd=dir_fd)
                            removed.append(temp)
                        except OSError:
                            continue
                    if state in ("ours", "gone"):
                        handle.remove_file(record_name)
        except OSError:
            pass
        return removed


def _entry(raw: bytes | None) -> dict | None:
    try:
        entry = json.loads(raw) if raw is not None else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or set(entry) != {"path", "size", "digest", "pid"}:
        return None
    if type(entry["path"]) is not str or type(entry["digest"]) is not str:
        return None
    if type(entry["size"]) is not int or type(entry["pid"]) is not int or entry["pid"] <= 0:
        return None
    return entry


def _ours(temp: str, directory: str, dir_fd: int | None, entry: dict) -> str:
    """"ours" when the file's content proves it the recorded one, "gone" when there is no
    such file, else "unknown"."""
    at = temp if dir_fd is not None else os.path.join(directory, temp)
    try:
        fd = os.open(at, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), dir_fd=dir_fd)
    except FileNotFoundError:
        return "gone"
    except OSError:
        return "unknown"
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            return "unknown"
        if info.st_size == 0:
            return "ours"  # created, and the run died before writing into it
        if info.st_size != entry["size"]:
            return "unknown"
        return "ours" if digest(handle.read(entry["size"] + 1)) == entry["digest"] else "unknown"
