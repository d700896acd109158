"""The command's entry point: isolate the tool's own imports from the scanned repository.

Run from a repository's root, `python -m codemod` (and a PYTHONPATH holding "" or ".")
puts that directory first on sys.path, so a repository file named like one of the
tool's dependencies (`click.py`, `pathspec.py`, `concurrent.py`) would be imported in its
place, and run.  The tool's process never needs the repository's modules (validation
imports them in separate worker processes, which set their own path), so the working
directory is dropped from sys.path before anything else is imported.

Nothing here can help when the repository has a `codemod.py` or `codemod/` of its own:
`python -m codemod` then runs that module, not this one.  The `codemod` command (whose
script does not put the working directory on sys.path) and `python -P -m codemod` are
the safe ways to start the tool.
"""

from __future__ import annotations

import os
import sys


def isolate_from_working_directory() -> None:
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:  # the working directory was deleted
        cwd = None
    kept = []
    for entry in sys.path:
        if entry in ("", "."):
            continue
        if cwd is not None and os.path.realpath(entry) == cwd:
            continue
        kept.append(entry)
    sys.path[:] = kept


def main() -> None:
    isolate_from_working_directory()
    from codemod import cli

    cli.OWNS_PROCESS = True
    cli.main()
