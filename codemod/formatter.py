"""Running the project's own formatter (black or ruff) over the files a run changes.

The rewritten text goes to the formatter on its standard input, with the file's
name (so that the project's settings for that file apply), and what comes back is
what is written, or shown in the diff.  Files the run does not change are never
formatted.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

from codemod.fileio import SourceFile, encode_check

FORMATTERS = ("black", "ruff")
TIMEOUT_S = 60


class FormatterError(Exception):
    """The formatter is missing, or failed on a file; the message says which and why."""


def formatter_command(name: str) -> list[str]:
    """How to run `name`: its executable on PATH, else its module in this interpreter."""
    found = shutil.which(name)
    if found:
        return [found]
    if importlib.util.find_spec(name) is not None:
        return [sys.executable, "-m", name]
    raise FormatterError(f"formatter {name!r} is not installed (pip install {name}), or use --formatter none")


def format_text(command: list[str], name: str, source: SourceFile, text: str, root: Path) -> str:
    """`text` (the new content of `source`'s file) as the formatter writes it."""
    if name == "black":
        arguments = [*command, "--quiet", "--stdin-filename", str(source.path), "-"]
    else:
        arguments = [*command, "format", "--quiet", "--stdin-filename", str(source.path), "-"]
    data = encode_check(source, text)
    try:
        completed = subprocess.run(arguments, input=data, capture_output=True, cwd=str(root), timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise FormatterError(f"{name} took more than {TIMEOUT_S} s") from None
    except OSError as exc:
        raise FormatterError(f"{name} could not be run: {exc.strerror or exc}") from None
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = message[-1] if message else f"exit status {completed.returncode}"
        raise FormatterError(f"{name} failed: {reason}")
    try:
        formatted = completed.stdout.decode(source.encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise FormatterError(f"{name} wrote what cannot be decoded as {source.encoding}: {exc}") from None
    return formatted[1:] if formatted.startswith("\ufeff") else formatted
