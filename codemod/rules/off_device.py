"""Tensors used only off the model's device stay plain attributes.

Torch fact (torch 2.13): `model.to(device)` / `.cuda()` move every buffer.  A tensor read
only by code that runs outside the model on the CPU (a sampler, a `collate_fn`, a method
passed as a callback to a DataLoader), and never by `forward`, is meant to stay where it
is: as a buffer it follows the model to the GPU and that code then mixes devices or
copies back on every call.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF206",
    "off-device-use",
    "read only by code that runs off the model's device (sampling, collate_fn, methods passed as callbacks), never by forward",
)
RULES = (RULE,)


def _calls_and_references(method: ast.AST, self_name: str) -> tuple[set[str], set[str]]:
    """Methods of self this method calls, and those it hands on without calling (callbacks)."""
    called: set[str] = set()
    referenced: set[str] = set()
    funcs = {id(n.func) for n in ast.walk(method) if isinstance(n, ast.Call)}
    for n in ast.walk(method):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == self_name and isinstance(n.ctx, ast.Load):
            (called if id(n) in funcs else referenced).add(n.attr)
    return called, referenced


def _self_name(method) -> str | None:
    parameters = method.args.args
    return parameters[0].arg if parameters else None


def off_device_readers(attr: str, cls: ast.ClassDef) -> list[str] | None:
    """The methods that read self.<attr> when every one of them runs off the model's device:
    passed as a callback (`collate_fn=self.collate`) or named like a collate function, or
    reached only from such methods, and never from forward.  None otherwise."""
    methods = {
        stmt.name: stmt
        for stmt in cls.body
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name != "__init__" and _self_name(stmt)
    }
    readers = [
        name
        for name, method in methods.items()
        if any(
            isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name) and n.value.id == _self_name(method)
            for n in ast.walk(method)
        )
    ]
    if not readers:
        return None
    edges: dict[str, set[str]] = {}
    callbacks: set[str] = set()
    init = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
    for name, method in [*methods.items(), *([("__init__", init)] if init is not None and _self_name(init) else [])]:
        called, referenced = _calls_and_references(method, _self_name(method))
        edges[name] = called & set(methods)
        callbacks |= referenced & set(methods)
    callbacks |= {name for name in methods if "collate" in name}

    def reach(starts: set[str]) -> set[str]:
        seen = set(starts)
        pending = list(starts)
        while pending:
            for nxt in edges.get(pending.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    pending.append(nxt)
        return seen

    on_device = reach({name for name in ("forward", "__call__") if name in methods})
    off = reach(callbacks) - on_device
    if not callbacks or any(r in on_device or r not in off for r in readers):
        return None
    return readers


REASON = "read only by {methods}, which run off the model's device (callbacks such as collate_fn, never forward); as a buffer it would follow the model to the accelerator"
SUGGESTION = "keep it a plain attribute (or move it to the data pipeline object that uses it)"


def decide(facts: AttributeFacts) -> Decision | None:
    readers = off_device_readers(facts.attr, facts.cls.cls)
    if readers is None:
        return None
    names = ", ".join(f"{facts.cls.cls.name}.{r}" for r in readers)
    return RULE.skip(REASON.format(methods=names), SUGGESTION)
