"""Running the project's own formatter (black or ruff) over the files a run changes.

The rewritten text goes to the formatter on its standard input, with the file's
name (so that the project's settings for that file apply), and what comes back is
what is written, or shown in the diff.  Files the run does not change are never
formatted.

The formatter is a program the user installed, never code the repository ships: it
is run only as an executable found on PATH (absolute entries only) or next to this
tool's interpreter, never as `python -m`, which would import a repository's
`black.py` from the working directory.  It starts in a neutral working directory
with an environment that puts nothing of the project on sys.path.  Its output is
accepted only when it parses to the same syntax tree as its input, layout aside; a
formatter that changes the code, or writes nothing, leaves the rewrite as codemod
wrote it.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sysconfig
import tempfile
from pathlib import Path

from codemod.budget import TooLarge, check_tokens
from codemod.fileio import SourceFile, encode_check

FORMATTERS = ("black", "ruff")
TIMEOUT_S = 60


class FormatterError(Exception):
    """The formatter is missing, or failed on a file; the message says which and why."""


def _executable(directory: str, name: str) -> str | None:
    for candidate in (name, name + ".exe") if os.name == "nt" else (name,):
        path = os.path.join(directory, candidate)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def formatter_command(name: str) -> list[str]:
    """How to run `name`: its executable on PATH, else next to this tool's interpreter."""
    # A relative PATH entry ("", ".", "bin") names the working directory: the repository.
    directories = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and os.path.isabs(d)]
    directories.append(sysconfig.get_path("scripts"))  # the tool's own environment
    for directory in directories:
        found = _executable(directory, name)
        if found:
            return [found]
    raise FormatterError(f"formatter {name!r} is not installed (pip install {name}), or use --formatter none")


def _environment() -> dict[str, str]:
    # PYTHONPATH may name the project (or "." for the working directory): a Python
    # formatter imports only from its own installation.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONSAFEPATH"] = "1"
    return env


def format_text(command: list[str], name: str, source: SourceFile, text: str, root: Path) -> str:
    """`text` (the new content of `source`'s file) as the formatter writes it.

    Raises FormatterError when the formatter fails or its output is not the same code."""
    # The file's absolute name tells the formatter which project settings apply; the
    # working directory is neutral (black and ruff find the settings from that name).
    filename = os.path.abspath(root / source.path)
    if name == "black":
        arguments = [*command, "--quiet", "--stdin-filename", filename, "-"]
    else:
        arguments = [*command, "format", "--quiet", "--stdin-filename", filename, "-"]
    data = encode_check(source, text)
    try:
        completed = subprocess.run(
            arguments, input=data, capture_output=True, cwd=tempfile.gettempdir(), env=_environment(),
            timeout=TIMEOUT_S,
        )
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
    formatted = formatted[1:] if formatted.startswith("\ufeff") else formatted
    problem = _changes_code(text, formatted)
    if problem:
        raise FormatterError(f"{name}'s output was not used: {problem}")
    return formatted


def _changes_code(before: str, after: str) -> str | None:
    """Why `after` is not `before` laid out anew (None when it is)."""
    try:
        check_tokens(before, "the rewritten file")
        check_tokens(after, "the formatter's output")
    except TooLarge as exc:
        return f"too large to compare ({exc.msg})"
    try:
        expected = _tree(before)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "the rewritten text does not parse"
    try:
        found = _tree(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "it does not parse"
    if found != expected:
        return "it parses to different code than it was given"
    return None


def _tree(text: str) -> str:
    """The syntax tree of `text` with what a formatter may change normalised away:
    positions, the indentation of docstrings (black re-indents them), and
    `del (a, b)` against `del a, b`."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                first.value.value = "\n".join(line.strip() for line in first.value.value.strip().splitlines())
        elif isinstance(node, ast.Delete):
            targets = []
            for target in node.targets:
                targets.extend(target.elts if isinstance(target, ast.Tuple) else [target])
            node.targets = targets
    return ast.dump(tree)
