"""Complex tensors stay plain attributes.

Torch fact (torch 2.13): `Module.to(dtype)` casts every buffer that is floating point
*or complex* (`t.is_floating_point() or t.is_complex()`), so after
`model.to(torch.bfloat16)` a complex64 buffer becomes a real bfloat16 tensor and torch
warns "Casting complex values to real discards the imaginary part" (`.half()`, `.float()`
and `.double()` leave complex tensors alone).  Mixed-precision code casts whole models
that way; a raw attribute is never cast, so the rewrite would destroy the values.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF201",
    "complex-tensor",
    "a complex tensor (torch.polar, view_as_complex, complex dtypes, 1j * ...): model.to(bfloat16) would cast a buffer to real and drop its imaginary part",
    fact='model.to(torch.bfloat16) casts complex buffers to real and drops the imaginary part ("Casting complex values to real discards the imaginary part"); a raw attribute is never cast.',
    before='def __init__(self, dim, end):\n    super().__init__()\n    self.freqs_cis = torch.polar(torch.ones(end, dim), torch.zeros(end, dim))',
)
RULES = (RULE,)

REASON = (
    "complex tensor; as a buffer, model.to(torch.bfloat16) (or any floating dtype) would cast it to real "
    "and discard the imaginary part"
)
SUGGESTION = (
    "keep it a plain attribute and move it where it is used (t.to(x.device)), or register its real view "
    "(torch.view_as_real) as a buffer and rebuild the complex tensor in forward"
)


# -- the check ------------------------------------------------------------------------------

_COMPLEX_DTYPES = frozenset({"complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf"})
_COMPLEX_FUNCTIONS = frozenset({"polar", "view_as_complex", "complex"})
# torch.fft functions whose result is real; every other one returns a complex tensor.
_REAL_FFT = frozenset({"irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"})
# Calls and attributes that turn a complex tensor into a real one.
_TO_REAL = frozenset({"view_as_real", "real", "imag", "abs", "angle", "float", "double", "half", "bfloat16"})

Lookup = Callable[[ast.expr], "ast.FunctionDef | ast.AsyncFunctionDef | None"]


def complex_value(
    node: ast.expr, init: ast.AST | None, self_name: str | None, lookup: Lookup | None = None, cache: dict | None = None
) -> bool:
    """Whether the value of `node` (an expression in __init__) is a complex tensor.

    Follows locals and other attributes of self assigned in `init`, and (through
    `lookup`) the bodies of helper functions and methods the value calls, one level deep.
    """
    if cache is not None and "complex_names" in cache:
        tainted = cache["complex_names"]
    else:
        tainted = _complex_names(init, self_name, lookup) if init is not None else set()
        if cache is not None:
            cache["complex_names"] = tainted  # one class's __init__: the same for every attribute
    return _is_complex(node, tainted, self_name, lookup, depth=0)


def _complex_names(init: ast.AST, self_name: str | None, lookup: Lookup | None) -> set[str]:
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for stmt in ast.walk(init):
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            else:
                continue
            if not _is_complex(value, tainted, self_name, lookup, depth=0):
                continue
            for target in targets:
                key = _key(target, self_name)
                if key is not None and key not in tainted:
                    tainted.add(key)
                    changed = True
    return tainted


def _key(node: ast.expr, self_name: str | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return f"self.{node.attr}"
    return None


def _is_complex(node: ast.AST, tainted: set[str], self_name: str | None, lookup: Lookup | None, depth: int) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, complex)
    if isinstance(node, ast.Name):
        return node.id in tainted
    if isinstance(node, ast.Attribute):
        if node.attr in _COMPLEX_DTYPES:
            return True
        if node.attr in ("real", "imag"):
            return False
        key = _key(node, self_name)
        if key is not None and key in tainted:
            return True
        return _is_complex(node.value, tainted, self_name, lookup, depth)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in _TO_REAL:
            return False
        if name in _COMPLEX_FUNCTIONS and not (name == "complex" and isinstance(func, ast.Name)):
            return True
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "fft":
            return name not in _REAL_FFT
        if isinstance(func, ast.Attribute) and _is_complex(func.value, tainted, self_name, lookup, depth):
            return name not in ("size", "dim", "numel", "shape")
        if any(_is_complex(a, tainted, self_name, lookup, depth) for a in node.args):
            return True
        if any(_is_complex(k.value, tainted, self_name, lookup, depth) for k in node.keywords):
            return True
        if lookup is not None and depth < 2:
            function = lookup(func)
            if function is not None:
                inner = _complex_names(function, None, None)
                return any(
                    isinstance(n, ast.Return) and n.value is not None and _is_complex(n.value, inner, None, lookup, depth + 1)
                    for n in ast.walk(function)
                )
        return False
    if isinstance(node, ast.Subscript):
        return _is_complex(node.value, tainted, self_name, lookup, depth)
    return any(_is_complex(child, tainted, self_name, lookup, depth) for child in ast.iter_child_nodes(node))


def decide(facts: AttributeFacts) -> Decision | None:
    from codemod.call_sites import complex_arguments

    cls = facts.cls
    # constructor arguments some repository call hands a complex tensor (typed from the calls)
    passed = complex_arguments(cls.index, cls.symbols, cls.cls) if cls.index is not None else {}
    for event in facts.events:
        if event.kind == "assign" and event.value is not None and event.value.is_tensor and event.value_node is not None:
            if complex_value(event.value_node, cls.init, cls.self_name, cls.function_of, cls.cache):
                return RULE.skip(REASON, SUGGESTION)
            for name, where in sorted(passed.items()):
                if _is_complex(event.value_node, {name}, cls.self_name, None, depth=0):
                    return RULE.skip(f"{REASON} (the call at {where} hands {name} a complex tensor)", SUGGESTION)
    return None
