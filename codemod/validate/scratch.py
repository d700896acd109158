"""The folder validation works in: the workers' configuration, the rewritten sources
they import, the tensors they save.

It is made in the system's temporary directory as `codemod-validate-<pid>-<token>-...`
(private to the user), with a marker file repeating the process id and the token.  It
is removed when validation ends, however it ends: normally, on an error, on Ctrl-C and
on SIGTERM (turned into an exit while validation runs, so that the workers are stopped
and the folder removed first).  A run killed outright (SIGKILL) cannot remove it: the
next run that validates, or `codemod clean`, removes every such folder of the user's
whose process is gone and whose marker matches its name.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

PREFIX = "codemod-validate-"
MARKER = ".codemod-validate"
_NAME = re.compile(r"codemod-validate-(\d+)-([0-9a-f]{16})-[a-z0-9_]+\Z")


@contextlib.contextmanager
def folder() -> Iterator[Path]:
    """A new working folder for this run's validation, removed when the block ends."""
    remove_leftovers()
    token = secrets.token_hex(8)
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-{token}-"))
    try:
        (path / MARKER).write_text(f"{os.getpid()} {token}\n", encoding="ascii")
        with _sigterm_exits():
            yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def remove_leftovers(base: str | None = None) -> list[Path]:
    """Remove the folders of runs that were killed; return them."""
    base = base or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        match = _NAME.match(name)
        if match is None or int(match.group(1)) == os.getpid() or _alive(int(match.group(1))):
            continue
        path = os.path.join(base, name)
        if _marked(path, f"{match.group(1)} {match.group(2)}\n"):
            shutil.rmtree(path, ignore_errors=True)  # never follows a symlink inside (Linux: by descriptor)
            removed.append(Path(path))
    return removed


def _marked(path: str, expected: str) -> bool:
    """A directory of the user's (not a symlink) holding our marker with `expected`."""
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            return False
        fd = os.open(os.path.join(path, MARKER), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        return handle.read(len(expected) + 1) == expected.encode("ascii")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


@contextlib.contextmanager
def _sigterm_exits() -> Iterator[None]:
    """SIGTERM raises SystemExit(143) in the main thread while validation runs (unless the
    program using the tool set a handler of its own), so that `finally` blocks run."""
    if (
        not hasattr(signal, "SIGTERM")
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def terminate(signum, frame) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
        sys.stderr.write("codemod: terminated: stopping validation and removing its temporary files\n")
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
