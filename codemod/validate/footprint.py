"""What validation's run of the repository's code left in the project.

The workers run from the project root (so that the repository finds its own relative
paths), and the repository's code may write there: a constructor that saves a first
checkpoint into `./model`, a logger that opens `./logs/run.txt`.  The tool writes nothing
into the project during a dry run, so the files the models changed are listed for the user
(runner.py turns them into a warning).  Only sizes and modification times are compared:
nothing is read or restored.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from codemod.discovery import is_default_excluded_dir

# A tree larger than this is not watched (the walk would cost more than it tells).
MAX_FILES = 200_000

Snapshot = dict[str, tuple[int, int]]


def snapshot(root: Path) -> Snapshot | None:
    """Every regular file under `root` (relative path -> (size, mtime in ns)), walking no
    symlink and no tool or environment directory; None for a tree over MAX_FILES."""
    found: Snapshot = {}
    prefix = len(os.path.join(str(root), ""))  # every path walked starts with the root and a separator
    pending = [str(root)]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.name != ".git" and not is_default_excluded_dir(entry.path):
                    pending.append(entry.path)
            elif stat.S_ISREG(info.st_mode):
                found[entry.path[prefix:]] = (info.st_size, info.st_mtime_ns)
                if len(found) > MAX_FILES:
                    return None
    return found


def changes(before: Snapshot | None, after: Snapshot | None) -> list[str]:
    """The files created, changed or removed between two snapshots, sorted (forward slashes)."""
    if before is None or after is None:
        return []
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    return sorted(path.replace(os.sep, "/") for path in changed)


def warning(changed: list[str], shown: int = 5) -> str:
    """One line naming what changed."""
    names = ", ".join(changed[:shown]) + (f" and {len(changed) - shown} more" if len(changed) > shown else "")
    return (f"validation ran the repository's code, which changed {len(changed)} file(s) in the project: {names} "
            "(the repository's own doing, not the tool's: a constructor saving a checkpoint, a log file; "
            "check them before committing)")
