"""A file's analysis as plain JSON data, and back, with a strict shape check.

The result cache stores analyses in this form: reading it can never run code
(unlike pickle), and `decode` accepts only exactly the shape `encode` writes.
Anything else (a missing or extra key, a wrong type, a finding that is not a
skip) raises `Malformed`, and the cache treats the entry as absent.  Paths are
never stored: the caller supplies the path of the file being analysed, so no
path to read or write ever comes from cached data.

Only analyses with nothing to write are stored: their findings are skips and
reports, and what a run writes is never taken from the cache.  A file with a
rewrite is analysed again on every run, so its text and its edits always come
from the current file (`cacheable`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codemod.ftypes import Action, FileAnalysis, FileResult, Finding

__all__ = ["Malformed", "cacheable", "decode_analysis", "encode_analysis"]

# Generous bounds: a real analysis is far below them; a crafted one cannot make decoding expensive.
_MAX_ITEMS = 100_000


class Malformed(ValueError):
    """The data does not have the shape `encode_analysis` writes."""


def cacheable(analysis: FileAnalysis) -> bool:
    """Whether the analysis may be stored: nothing to write, only skips and reports."""
    result = analysis.result
    return result.rewritten is None and not result.classes and all(f.action is Action.SKIP for f in result.findings)


# -- encoding --------------------------------------------------------------------------------------


def encode_analysis(analysis: FileAnalysis) -> dict[str, Any]:
    assert cacheable(analysis)
    result = analysis.result
    return {
        "module": analysis.module,
        "findings": [_encode_finding(f) for f in result.findings],
        "error": result.error,
    }


def _encode_finding(f: Finding) -> dict[str, Any]:
    return {
        "line": f.line,
        "column": f.column,
        "class_name": f.class_name,
        "attribute": f.attribute,
        "persistent": f.persistent,
        "reason": f.reason,
        "suggestion": f.suggestion,
        "code": f.code,
    }


# -- decoding, with the shape check ----------------------------------------------------------------


def decode_analysis(data: Any, path: Path, display_path: str) -> FileAnalysis:
    """The analysis of `path` from data written by `encode_analysis`; raises Malformed."""
    d = _record(data, {"module", "findings", "error"})
    module = _typed(d["module"], str)  # file stems need not be identifiers
    findings = [_decode_finding(item, display_path) for item in _list(d["findings"])]
    result = FileResult(path=path, display_path=display_path, findings=findings, error=_optional(d["error"], str))
    return FileAnalysis(result, None, module)


def _decode_finding(data: Any, display_path: str) -> Finding:
    d = _record(data, {"line", "column", "class_name", "attribute", "persistent", "reason", "suggestion", "code"})
    return Finding(
        path=display_path,
        line=_count(d["line"]),
        column=_count(d["column"]),
        class_name=_identifier(d["class_name"]),
        attribute=_typed(d["attribute"], str),
        action=Action.SKIP,
        persistent=_optional(d["persistent"], bool),
        reason=_typed(d["reason"], str),
        suggestion=_optional(d["suggestion"], str),
        code=_typed(d["code"], str),
    )


def _record(data: Any, keys: set[str]) -> dict[str, Any]:
    if not isinstance(data, dict) or set(data) != keys:
        raise Malformed("unexpected record")
    return data


def _typed(value: Any, kind: type) -> Any:
    # bool is a subclass of int: an int field must not accept True, nor a bool field 1.
    if type(value) is not kind:
        raise Malformed(f"expected {kind.__name__}")
    return value


def _optional(value: Any, kind: type) -> Any:
    return None if value is None else _typed(value, kind)


def _count(value: Any) -> int:
    if _typed(value, int) < 0:
        raise Malformed("negative number")
    return value


def _list(value: Any) -> list:
    if type(value) is not list or len(value) > _MAX_ITEMS:
        raise Malformed("expected a list")
    return value


def _identifier(value: Any) -> str:
    if not _typed(value, str).isidentifier():
        raise Malformed("expected an identifier")
    return value
