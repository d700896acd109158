"""Builds that open a file named relative to the module's own folder.

A worker runs from the repository's root, as `python -m` from the root would. Many
research repositories are run from a subfolder instead (`cd models && python yolo.py`),
and their constructors open files named relative to it: YOLOv5's
`Model(cfg="yolov5s.yaml")` opens `yolov5s.yaml`, which lies in `models/`. Such a build
raises FileNotFoundError from the root, though the file is there.

:func:`retried` builds again from the folder that holds the file: the folder of a
repository frame the error came through, or a folder above it inside the root. Both sides
of a validation build the same way, so the retry changes nothing they compare; the working
directory is the root again once the build returns.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import traceback
from collections.abc import Callable, Iterator
from typing import Any

# the working directory the worker started in (the repository's root), while a build runs
# from another folder
_root: list[str] = []

# each retry: (the folder built from, relative to the root; the file it holds)
_RETRIES: list[tuple[str, str]] = []

# `FileNotFoundError("No such file or directory: 'cfg.yaml'")` raised by hand keeps no filename
_NAMED = re.compile(r"No such file or directory: '([^']+)'")


def repository_root() -> str:
    """The repository's root, also while a build runs from a module's folder."""
    return _root[0] if _root else os.getcwd()


def retried(construct: Callable[[], Any], error: BaseException) -> tuple[Any, str] | None:
    """``(construct(), folder)`` run from the folder that holds the relative file ``error``
    names; None where ``error`` names none that such a folder holds (the caller re-raises).
    What the retry raises propagates."""
    folder = holding_folder(error)
    if folder is None:
        return None
    _RETRIES.append((os.path.relpath(folder, repository_root()), _missing_name(error) or ""))
    with _inside(folder):
        return construct(), folder


def used() -> int:
    """How many builds so far ran from a module's folder (a count to compare with later)."""
    return len(_RETRIES)


def note(since: int) -> str:
    """What the builds after the ``since``-th ran from, said in a verdict's details."""
    seen = list(dict.fromkeys(_RETRIES[since:]))
    places = ", ".join(f"{folder}{os.sep} (which holds {name})" for folder, name in seen)
    return (f"built from {places} as well as from the repository's root: the constructor opens a file named "
            "relative to its module's folder (on both sides alike)")


def holding_folder(error: BaseException) -> str | None:
    """The folder inside the root, other than the root, that holds the relative path a
    missing-file ``error`` names: searched from the innermost repository frame outwards,
    each frame's folder and then the folders above it."""
    name = _missing_name(error)
    if name is None:
        return None
    root = os.path.realpath(repository_root())
    for folder in _frame_folders(error, root):
        while folder != root and folder.startswith(root + os.sep):
            if os.path.exists(os.path.join(folder, name)):
                return folder
            folder = os.path.dirname(folder)
    return None


def _missing_name(error: BaseException) -> str | None:
    if not isinstance(error, OSError) or error.errno not in (errno.ENOENT, None):
        return None
    name = error.filename
    if not isinstance(name, (str, os.PathLike)):
        found = _NAMED.search(str(error))
        name = found.group(1) if found else None
    if name is None:
        return None
    name = os.fspath(name)
    if isinstance(name, bytes) or not name or os.path.isabs(name) or os.path.exists(name):
        return None
    return name


def _frame_folders(error: BaseException, root: str) -> list[str]:
    folders: list[str] = []
    for frame, _line in reversed(list(traceback.walk_tb(error.__traceback__))):
        filename = os.path.realpath(frame.f_code.co_filename)
        folder = os.path.dirname(filename)
        if filename.startswith(root + os.sep) and "site-packages" not in filename and folder not in folders:
            folders.append(folder)
    return folders


@contextlib.contextmanager
def _inside(folder: str) -> Iterator[None]:
    started = os.getcwd()
    _root.append(repository_root())
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(started)
        _root.pop()
