"""A file's analysis as plain JSON data, and back, with a strict shape check.

The result cache stores analyses in this form: reading it can never run code
(unlike pickle), and `decode` accepts only exactly the shape `encode` writes.
Anything else (a missing or extra key, a wrong type, an unknown edit, a name
that is not an identifier) raises `Malformed`, and the cache treats the entry
as absent.  Paths are never stored: the caller supplies the path of the file
being analysed, so no path to read or write ever comes from cached data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codemod.ftypes import Action, ClassRewrite, FileAnalysis, FileResult, Finding
from codemod.plans import ClassPlan, FilePlan, SpineEdit, StmtEdit

__all__ = ["Malformed", "decode_analysis", "encode_analysis"]

_STMT_OPS = frozenset({"buffer", "parameter", "buffer_to_parameter", "unmove", "localise"})
_SPINE_OPS = frozenset({"drop", "keep_args", "drop_kwarg", "unwrap"})
_ACTIONS = {a.value: a for a in Action}
# Generous bounds: a real plan is far below them; a crafted one cannot make decoding expensive.
_MAX_ITEMS = 100_000


class Malformed(ValueError):
    """The data does not have the shape `encode_analysis` writes."""


# -- encoding --------------------------------------------------------------------------------------


def encode_analysis(analysis: FileAnalysis) -> dict[str, Any]:
    result = analysis.result
    findings = result.findings
    position = {id(f): i for i, f in enumerate(findings)}
    return {
        "module": analysis.module,
        "findings": [_encode_finding(f) for f in findings],
        "original": result.original,
        "rewritten": result.rewritten,
        "error": result.error,
        "classes": [
            {"module": c.module, "class_name": c.class_name, "findings": [position[id(f)] for f in c.findings]}
            for c in result.classes
        ],
        "plan": None if analysis.plan is None else _encode_plan(analysis.plan, position),
    }


def _encode_finding(f: Finding) -> dict[str, Any]:
    # The validation verdict is not part of an analysis: it is added after caching.
    return {
        "line": f.line,
        "column": f.column,
        "class_name": f.class_name,
        "attribute": f.attribute,
        "action": f.action.value,
        "persistent": f.persistent,
        "reason": f.reason,
        "suggestion": f.suggestion,
        "code": f.code,
        "statically_safe": f.statically_safe,
    }


def _encode_plan(plan: FilePlan, position: dict[int, int]) -> dict[str, Any]:
    return {
        "parameter_spelling": plan.parameter_spelling,
        "add_nn_import": plan.add_nn_import,
        "classes": [
            {
                "name": c.name,
                "line": c.line,
                "findings": [position[id(f)] for f in c.findings],
                "edits": [_encode_edit(e) for e in c.edits],
                "annotations": [list(a) for a in c.annotations],
                "body_starts": list(c.body_starts),
            }
            for c in plan.classes
        ],
    }


def _encode_edit(e: StmtEdit) -> dict[str, Any]:
    return {
        "line": e.line,
        "col": e.col,
        "op": e.op,
        "attr": e.attr,
        "persistent": e.persistent,
        "spine": [
            {"index": s.index, "op": s.op, "args": list(s.args), "kwarg": s.kwarg, "keywords": list(s.keywords)}
            for s in e.spine
        ],
        "move_after": None if e.move_after is None else list(e.move_after),
        "end": list(e.end),
        "local": e.local,
        "owner": e.owner,
    }


# -- decoding, with the shape check ----------------------------------------------------------------


def decode_analysis(data: Any, path: Path, display_path: str) -> FileAnalysis:
    """The analysis of `path` from data written by `encode_analysis`; raises Malformed."""
    d = _record(data, {"module", "findings", "original", "rewritten", "error", "classes", "plan"})
    module = _typed(d["module"], str)  # file stems need not be identifiers
    findings = [_decode_finding(item, display_path) for item in _list(d["findings"])]
    original = _optional(d["original"], str)
    rewritten = _optional(d["rewritten"], str)
    if rewritten is not None and original is None:
        raise Malformed("a rewrite without its original")
    classes = []
    for item in _list(d["classes"]):
        c = _record(item, {"module", "class_name", "findings"})
        classes.append(
            ClassRewrite(
                path=path,
                module=_typed(c["module"], str),
                class_name=_identifier(c["class_name"]),
                findings=[_pick(findings, i) for i in _list(c["findings"])],
            )
        )
    result = FileResult(
        path=path,
        display_path=display_path,
        findings=findings,
        original=original,
        rewritten=rewritten,
        error=_optional(d["error"], str),
        classes=classes,
    )
    plan = None if d["plan"] is None else _decode_plan(d["plan"], findings)
    if result.changed and plan is None:
        raise Malformed("a rewrite without its plan")
    return FileAnalysis(result, plan, module)


def _decode_finding(data: Any, display_path: str) -> Finding:
    d = _record(data, {"line", "column", "class_name", "attribute", "action", "persistent", "reason", "suggestion", "code",
                       "statically_safe"})
    action = _ACTIONS.get(_typed(d["action"], str))
    if action is None:
        raise Malformed("unknown action")
    return Finding(
        path=display_path,
        line=_count(d["line"]),
        column=_count(d["column"]),
        class_name=_identifier(d["class_name"]),
        attribute=_typed(d["attribute"], str),
        action=action,
        persistent=_optional(d["persistent"], bool),
        reason=_typed(d["reason"], str),
        suggestion=_optional(d["suggestion"], str),
        code=_typed(d["code"], str),
        statically_safe=_typed(d["statically_safe"], bool),
    )


def _decode_plan(data: Any, findings: list[Finding]) -> FilePlan:
    d = _record(data, {"parameter_spelling", "add_nn_import", "classes"})
    classes = []
    for item in _list(d["classes"]):
        c = _record(item, {"name", "line", "findings", "edits", "annotations", "body_starts"})
        annotations = []
        for pair in _list(c["annotations"]):
            pair = _list(pair)
            if len(pair) != 2:
                raise Malformed("an annotation is (attribute, text)")
            annotations.append((_identifier(pair[0]), _typed(pair[1], str)))
        classes.append(
            ClassPlan(
                name=_identifier(c["name"]),
                line=_count(c["line"]),
                findings=[_pick(findings, i) for i in _list(c["findings"])],
                edits=[_decode_edit(e) for e in _list(c["edits"])],
                annotations=annotations,
                body_starts=tuple(_count(n) for n in _list(c["body_starts"])),
            )
        )
    return FilePlan(
        classes=classes,
        parameter_spelling=_dotted(d["parameter_spelling"], allow_empty=True),
        add_nn_import=_typed(d["add_nn_import"], bool),
    )


def _decode_edit(data: Any) -> StmtEdit:
    d = _record(data, {"line", "col", "op", "attr", "persistent", "spine", "move_after", "end", "local", "owner"})
    op = _typed(d["op"], str)
    if op not in _STMT_OPS:
        raise Malformed("unknown edit")
    spine = []
    for item in _list(d["spine"]):
        s = _record(item, {"index", "op", "args", "kwarg", "keywords"})
        if _typed(s["op"], str) not in _SPINE_OPS:
            raise Malformed("unknown edit")
        kwarg = _typed(s["kwarg"], str)
        spine.append(
            SpineEdit(
                index=_count(s["index"]),
                op=s["op"],
                args=tuple(_count(a) for a in _list(s["args"])),
                kwarg=_identifier(kwarg) if kwarg else "",
                keywords=tuple(_identifier(k) for k in _list(s["keywords"])),
            )
        )
    local = _typed(d["local"], str)
    return StmtEdit(
        line=_count(d["line"]),
        col=_count(d["col"]),
        op=op,
        attr=_identifier(d["attr"]),
        persistent=_optional(d["persistent"], bool),
        spine=tuple(spine),
        move_after=None if d["move_after"] is None else _pair(d["move_after"]),
        end=_pair(d["end"]),
        local=_identifier(local) if local else "",
        owner=_identifier(d["owner"]),
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


def _pair(value: Any) -> tuple[int, int]:
    items = _list(value)
    if len(items) != 2:
        raise Malformed("expected a pair")
    return _count(items[0]), _count(items[1])


def _list(value: Any) -> list:
    if type(value) is not list or len(value) > _MAX_ITEMS:
        raise Malformed("expected a list")
    return value


def _identifier(value: Any) -> str:
    if not _typed(value, str).isidentifier():
        raise Malformed("expected an identifier")
    return value


def _dotted(value: Any, allow_empty: bool = False) -> str:
    text = _typed(value, str)
    if (not text and allow_empty) or all(part.isidentifier() for part in text.split(".")):
        return text
    raise Malformed("expected a dotted name")


def _pick(findings: list[Finding], index: Any) -> Finding:
    if _count(index) >= len(findings):
        raise Malformed("finding index out of range")
    return findings[index]
