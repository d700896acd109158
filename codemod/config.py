"""The ``[tool.codemod]`` table of a repository's ``pyproject.toml``."""

from __future__ import annotations

import math
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from .discovery import display_path

__all__ = ["ConfigError", "KNOWN_KEYS", "check_device", "check_timeout", "find_project_root", "load_config", "project_scope", "load_style"]


def _toml_reader():
    # Imported only when there is a pyproject.toml to read.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised only on Python 3.10
        import tomli as tomllib
    return tomllib


class ConfigError(Exception):
    """The configuration is unusable; the message names the file and the key."""


PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py")


def _has_marker(directory: str) -> bool:
    """Whether ``directory`` holds one of PROJECT_MARKERS or `.git`: a project's root."""
    return any(os.path.isfile(os.path.join(directory, m)) for m in PROJECT_MARKERS) or os.path.exists(
        os.path.join(directory, ".git"))


def _common_directory(paths: Sequence[Path]) -> str:
    """The deepest directory holding every one of ``paths`` (a file stands for its folder)."""
    directories = []
    for path in paths:
        absolute = os.path.abspath(path)
        directories.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    return os.path.commonpath(directories)


def find_project_root(paths: Sequence[Path]) -> Path:
    """Nearest common ancestor of ``paths`` holding ``pyproject.toml``, ``setup.cfg``,
    ``setup.py`` or ``.git``.

    Without any such ancestor: the import root of the common directory (the parent of
    its outermost package, the directory itself when it is no package), so that a file
    deep in a package still sees the whole package.
    """
    common = _common_directory(paths or [Path.cwd()])
    current = common
    while True:
        if _has_marker(current):
            return Path(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    while os.path.isfile(os.path.join(common, "__init__.py")) and os.path.dirname(common) != common:
        common = os.path.dirname(common)
    return Path(common)


def project_scope(paths: Sequence[Path], root: Path) -> Path:
    """The folder whose files the repository-wide searches read (callers, stores made
    elsewhere): ``root`` where a marker names it; without one, the outermost package holding
    ``paths``, not ``root`` above it. A repository whose top folder is itself a package
    (an ``__init__.py`` beside its scripts), unpacked into a folder of downloads, is read
    alone: its neighbours are other projects, whose code says nothing about it."""
    if _has_marker(str(root)) or not paths:
        return root
    below = os.path.relpath(_common_directory(paths), os.path.abspath(root))
    if below == os.curdir or below.startswith(os.pardir):
        return root
    return Path(os.path.abspath(root), below.split(os.sep)[0])


# --- value checks: each returns the normalised value or raises ValueError("must be ...")


def _choice(*options: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, str) or value not in options:
            raise ValueError(f"must be one of {', '.join(options)}")
        return value

    return check


def _persistence(value: Any) -> str:
    if value in ("auto", "always"):
        raise ValueError(f'{value!r} is no longer a value: use "never" (the default: no new checkpoint key) or "state"')
    return _choice("never", "state")(value)


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _string(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string")
    return value


def _string_list(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError("must be a list of strings")
    return list(value)


def _positive_int(value: Any) -> int:
    # bool is an int subclass; `jobs = true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("must be an integer >= 1")
    return value


def _positive_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError("must be a number > 0")
    return float(value)


_DEVICE = re.compile(r"auto|cpu|meta|cuda(?::\d+)?")


def check_device(value: Any) -> str:
    if not isinstance(value, str) or not _DEVICE.fullmatch(value):
        raise ValueError("must be auto, cpu, meta, cuda or cuda:N")
    return value


def check_timeout(value: Any) -> float:
    """Seconds: a finite number > 0 (not nan, not inf)."""
    return _positive_number(value)


def _selectors(value: Any) -> tuple[str, ...]:
    from codemod.selection import UnknownCode, parse_selectors

    items = _string_list(value)
    try:
        return parse_selectors(items)
    except UnknownCode as exc:
        raise ValueError(f"names an {exc}") from None


OUTPUT_FORMATS = ("text", "json", "json-lines", "github", "sarif")

# Canonical (underscored) key -> (description of the expected TOML value, check).
KNOWN_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "persistent": ('"never" or "state"', _persistence),
    "exclude": ("list of strings", _string_list),
    "output_format": (" | ".join(f'"{f}"' for f in OUTPUT_FORMATS), _choice(*OUTPUT_FORMATS)),
    "format": ("the same as output-format", _choice(*OUTPUT_FORMATS)),
    "select": ("list of rule codes or prefixes", _selectors),
    "ignore": ("list of rule codes or prefixes", _selectors),
    "validate": ("boolean", _boolean),
    "jobs": ("integer >= 1", _positive_int),
    "device": ('"auto", "cpu", "meta", "cuda" or "cuda:N"', check_device),
    "examples": ("path relative to the project root", _string),
    "timeout": ("number of seconds > 0", _positive_number),
    "require_validated": ("boolean", _boolean),
    "unsafe_fixes": ("boolean", _boolean),
    "allow_new_keys": ("boolean", _boolean),
    "cache": ("boolean", _boolean),
    "color": ("boolean", _boolean),
    "check": ("boolean", _boolean),
    "dry_run": ("boolean", _boolean),
    "quiet": ("boolean", _boolean),
    "parse_all": ("boolean", _boolean),
    "formatter": ('"black", "ruff" or "none"', _choice("black", "ruff", "none")),
    "python": ("path of the interpreter for validation, relative to the project root", _string),
}


def _normalise(key: str) -> str:
    return key.replace("-", "_")


def load_config(root: Path) -> dict[str, Any]:
    """The validated ``[tool.codemod]`` table of ``root/pyproject.toml``, keys underscored.

    ``{}`` when there is no such file or table.  ``examples`` comes back as an
    absolute Path resolved against ``root``.
    """
    file = Path(root) / "pyproject.toml"
    shown = display_path(file)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        return {}
    except IsADirectoryError:
        raise ConfigError(f"{shown}: is a directory") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {(exc.strerror or str(exc)).lower()}") from None
    tomllib = _toml_reader()
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{shown}: invalid TOML: {' '.join(str(exc).split())}") from None

    tool = document.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{shown}: [tool] must be a table")
    table = tool.get("codemod")
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ConfigError(f"{shown}: [tool.codemod] must be a table")

    config: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for key, value in table.items():
        name = _normalise(key)
        if name not in KNOWN_KEYS:
            message = f"{shown}: [tool.codemod] unknown key {key!r}"
            import difflib

            close = difflib.get_close_matches(name, KNOWN_KEYS, n=1)
            if close:
                message += f" (did you mean {close[0].replace('_', '-')!r}?)"
            else:
                message += f" (known: {', '.join(k.replace('_', '-') for k in KNOWN_KEYS)})"
            raise ConfigError(message)
        if name in spelled:
            raise ConfigError(f"{shown}: [tool.codemod] {key} given twice (also as {spelled[name]})")
        spelled[name] = key
        _, check = KNOWN_KEYS[name]
        try:
            checked = check(value)
        except ValueError as exc:
            raise ConfigError(f"{shown}: [tool.codemod] {key} {exc} (got {value!r})") from None
        if name == "examples" or (name == "python" and ("/" in checked or os.sep in checked)):
            checked = Path(root, checked).absolute()
        config[name] = checked
    if "format" in config:  # the older spelling of output-format
        if "output_format" in config:
            raise ConfigError(f"{shown}: [tool.codemod] {spelled['format']} given twice (also as {spelled['output_format']})")
        config["output_format"] = config.pop("format")
    return config


# -- the project's code style, from its formatter's settings -----------------------------------


def load_style(root: Path, formatter: str | None = None):
    """How the project formats code: line length, quotes, magic trailing commas.

    Read from black's ``[tool.black]`` or ruff's settings (``[tool.ruff]`` of
    pyproject.toml, or ruff.toml / .ruff.toml, which ruff prefers).  The tool named
    by ``formatter`` is read first; otherwise black's settings where the project has
    them, then ruff's.  Black and ruff both default to 88 columns.
    """
    from codemod.wrap import DEFAULT_LINE_LENGTH, Style

    black, ruff = _formatter_settings(Path(root))
    order = [("ruff", ruff), ("black", black)] if formatter == "ruff" else [("black", black), ("ruff", ruff)]
    if formatter not in ("black", "ruff"):
        order = [item for item in order if item[1] is not None] or order
    settings = order[0][1] or {}
    line_length = settings.get("line-length", DEFAULT_LINE_LENGTH)
    quote = settings.get("quote")
    return Style(line_length=line_length, quote=quote, magic_trailing_comma=not settings.get("skip-magic-trailing-comma", False))


def _formatter_settings(root: Path) -> tuple[dict | None, dict | None]:
    """(black's settings, ruff's settings), each None where the project has none."""
    black = ruff = None
    document, shown = _read_toml(root / "pyproject.toml")
    tool = document.get("tool", {}) if isinstance(document.get("tool", {}), dict) else {}
    if isinstance(tool.get("black"), dict):
        table = tool["black"]
        black = {}
        _take_int(table, "line-length", black, f"{shown}: [tool.black]")
        _take_bool(table, "skip-magic-trailing-comma", black, f"{shown}: [tool.black]")
    ruff_table, where = None, ""
    for name in ("ruff.toml", ".ruff.toml"):
        if (root / name).is_file():
            ruff_table, where = _read_toml(root / name)
            break
    else:
        if isinstance(tool.get("ruff"), dict):
            ruff_table, where = tool["ruff"], f"{shown}: [tool.ruff]"
    if ruff_table is not None:
        ruff = {}
        _take_int(ruff_table, "line-length", ruff, where)
        formatting = ruff_table.get("format", {})
        if isinstance(formatting, dict):
            _take_bool(formatting, "skip-magic-trailing-comma", ruff, f"{where} format")
            style = formatting.get("quote-style")
            if style is not None and style not in ("double", "single", "preserve"):
                raise ConfigError(f"{where} format quote-style must be one of double, single, preserve (got {style!r})")
            if style in ("double", "single"):
                ruff["quote"] = '"' if style == "double" else "'"
    return black, ruff


def _read_toml(file: Path) -> tuple[dict, str]:
    shown = display_path(file)
    try:
        data = file.read_bytes()
    except OSError:
        return {}, shown
    tomllib = _toml_reader()
    try:
        return tomllib.loads(data.decode("utf-8")), shown
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{shown}: invalid TOML: {' '.join(str(exc).split())}") from None


def _take_int(table: dict, key: str, into: dict, where: str) -> None:
    if key in table:
        try:
            into[key] = _positive_int(table[key])
        except ValueError as exc:
            raise ConfigError(f"{where} {key} {exc} (got {table[key]!r})") from None


def _take_bool(table: dict, key: str, into: dict, where: str) -> None:
    if key in table:
        try:
            into[key] = _boolean(table[key])
        except ValueError as exc:
            raise ConfigError(f"{where} {key} {exc} (got {table[key]!r})") from None
