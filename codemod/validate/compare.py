"""Flatten forward outputs and compare tensors (worker side, imports torch)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import torch

MAX_LEAVES = 10_000

# (rtol, atol) by device type and dtype.  CPU against CPU runs the same
# kernels, so the bound only absorbs threading noise; CUDA kernels (TF32
# convolutions, fused reductions) legitimately drift further from the CPU.
_TOLERANCES: dict[str, dict[torch.dtype, tuple[float, float]]] = {
    "cpu": {
        torch.float64: (1e-7, 1e-9),
        torch.float32: (1e-5, 1e-6),
        torch.float16: (1e-3, 1e-3),
        torch.bfloat16: (1e-2, 1e-2),
    },
    "cuda": {
        torch.float64: (1e-6, 1e-7),
        torch.float32: (1e-3, 1e-3),
        torch.float16: (1e-2, 1e-2),
        torch.bfloat16: (3e-2, 3e-2),
    },
}


def tolerance(dtype: torch.dtype, device_type: str) -> tuple[float, float]:
    table = _TOLERANCES.get(device_type, _TOLERANCES["cuda"])
    if dtype.is_complex:
        dtype = torch.float64 if dtype == torch.complex128 else torch.float32
    return table.get(dtype, table[torch.float32])


def flatten(obj: Any, prefix: str = "output") -> list[tuple[str, Any]]:
    """``(path, leaf)`` pairs for every tensor and scalar in a forward result.

    Handles tuples, lists, dicts (ModelOutput-like mappings included),
    namedtuples, dataclasses and objects exposing ``keys()``/``__getitem__``.
    Anything else becomes an opaque ``"<TypeName>"`` leaf, compared by type.
    """
    leaves: list[tuple[str, Any]] = []
    _flatten(obj, prefix, leaves, 0)
    return leaves


def _flatten(obj: Any, path: str, leaves: list[tuple[str, Any]], depth: int) -> None:
    if len(leaves) >= MAX_LEAVES:
        return
    if isinstance(obj, torch.Tensor):
        leaves.append((path, obj))
    elif obj is None or isinstance(obj, (bool, int, float, str)):
        leaves.append((path, obj))
    elif depth > 32:
        leaves.append((path, f"<{type(obj).__qualname__}>"))
    elif isinstance(obj, tuple) and hasattr(obj, "_fields"):
        for name in obj._fields:
            _flatten(getattr(obj, name), f"{path}.{name}", leaves, depth + 1)
    elif isinstance(obj, Mapping):
        for key in list(obj.keys()):
            _flatten(obj[key], f"{path}[{key!r}]", leaves, depth + 1)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for item in dataclasses.fields(obj):
            _flatten(getattr(obj, item.name), f"{path}.{item.name}", leaves, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for index, value in enumerate(obj):
            _flatten(value, f"{path}[{index}]", leaves, depth + 1)
    elif callable(getattr(obj, "keys", None)) and hasattr(obj, "__getitem__"):
        for key in list(obj.keys()):
            _flatten(obj[key], f"{path}[{key!r}]", leaves, depth + 1)
    else:
        leaves.append((path, f"<{type(obj).__qualname__}>"))


def portable(leaves: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Detach tensors to the CPU so the list survives ``torch.save`` with weights_only."""
    out: list[tuple[str, Any]] = []
    for path, leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            leaf = leaf.detach()
            if leaf.device.type == "meta":
                leaf = f"<meta tensor {tuple(leaf.shape)} {leaf.dtype}>"
            else:
                leaf = leaf.cpu().clone()
        out.append((path, leaf))
    return out


def without_values(leaves: list[tuple[str, Any]]) -> bool:
    """Whether every floating output is NaN or infinite (and there is one): outputs that agree
    this way tell nothing apart. The uninitialised memory a made-up size leaves in a kept
    tensor (`torch.Tensor(lb)` of `lb=8`, filled with NaN so that both sides agree) runs
    through a whole forward like that."""
    floats = [leaf for _, leaf in leaves if isinstance(leaf, torch.Tensor) and leaf.numel()
              and (leaf.is_floating_point() or leaf.is_complex())]
    return bool(floats) and not any(bool(torch.isfinite(leaf).any()) for leaf in floats)


def describe(tensor: torch.Tensor) -> str:
    return f"{tuple(tensor.shape)} {str(tensor.dtype).replace('torch.', '')}"


def exact_difference(a: torch.Tensor, b: torch.Tensor) -> str | None:
    """None when ``a`` and ``b`` hold the same dtype, shape and values (NaN equal to NaN)."""
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} != {b.dtype}"
    if a.shape != b.shape:
        return f"shape {tuple(a.shape)} != {tuple(b.shape)}"
    if a.layout != b.layout:
        return f"layout {a.layout} != {b.layout}"
    try:
        a, b = a.detach().cpu(), b.detach().cpu()
        if a.layout is not torch.strided:  # sparse (a sparse adjacency): compared as the dense tensor it stands for
            a, b = a.to_dense(), b.to_dense()
        if a.is_floating_point() or a.is_complex():
            same = bool(torch.equal(a, b) or torch.isclose(a, b, rtol=0, atol=0, equal_nan=True).all())
        else:
            same = bool(torch.equal(a, b))
    except Exception as exc:  # sparse, quantized, ...: say so rather than guess
        return f"could not compare values ({type(exc).__name__}: {exc})"
    if same:
        return None
    diff = max_abs_diff(a, b)
    return "values differ" + (f" (max abs diff {diff:.3g})" if diff is not None else "")


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float | None:
    if a.numel() == 0:
        return 0.0
    if a.dtype == torch.bool:
        a, b = a.to(torch.uint8), b.to(torch.uint8)
    a64 = a.detach().cpu().to(torch.complex128 if a.is_complex() else torch.float64)
    b64 = b.detach().cpu().to(a64.dtype)
    finite = torch.isfinite(a64) & torch.isfinite(b64)
    if not bool(finite.any()):
        return 0.0
    return float((a64 - b64)[finite].abs().max())


def compare_leaves(
    reference: list[tuple[str, Any]], got: list[tuple[str, Any]], device_type: str
) -> tuple[list[str], float | None]:
    """Compare two flattened outputs; returns (problems, max abs diff)."""
    problems: list[str] = []
    ref_paths = [p for p, _ in reference]
    got_paths = [p for p, _ in got]
    if ref_paths != got_paths:
        missing = [p for p in ref_paths if p not in set(got_paths)]
        extra = [p for p in got_paths if p not in set(ref_paths)]
        text = "outputs differ in structure"
        if missing:
            text += f"; only in the original: {', '.join(missing[:5])}"
        if extra:
            text += f"; only in the rewritten: {', '.join(extra[:5])}"
        return [text], None
    worst: float | None = None
    for (path, a), (_, b) in zip(reference, got):
        if isinstance(a, torch.Tensor) != isinstance(b, torch.Tensor):
            problems.append(f"{path}: {type(a).__name__} vs {type(b).__name__}")
            continue
        if not isinstance(a, torch.Tensor):
            if isinstance(a, float) and isinstance(b, float):
                if not (a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)):
                    problems.append(f"{path}: {a!r} != {b!r}")
            elif a != b:
                problems.append(f"{path}: {a!r} != {b!r}")
            continue
        b = b.detach().cpu()
        if a.dtype != b.dtype or a.shape != b.shape:
            problems.append(f"{path}: {describe(a)} vs {describe(b)}")
            continue
        diff = max_abs_diff(a, b)
        if diff is not None:
            worst = diff if worst is None else max(worst, diff)
        if a.is_floating_point() or a.is_complex():
            rtol, atol = tolerance(a.dtype, device_type)
            close = bool(torch.isclose(b.to(a.dtype), a, rtol=rtol, atol=atol, equal_nan=True).all())
        else:
            close = bool(torch.equal(a, b))
        if not close:
            problems.append(f"{path} differs (max abs diff {diff:.3g})" if diff is not None else f"{path} differs")
    return problems, worst


def compare_specs(reference: list[tuple[str, Any]], got: list[tuple[str, Any]], where: str = "meta") -> list[str]:
    """Paths, shapes and dtypes only: for meta outputs, which carry no values, and for outputs
    whose values no CPU reference can match (random draws from another device's stream)."""
    ref_paths = [p for p, _ in reference]
    got_paths = [p for p, _ in got]
    if ref_paths != got_paths:
        return [f"outputs on {where} differ in structure from the CPU reference"]
    problems = []
    for (path, a), (_, b) in zip(reference, got):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            if a.shape != b.shape or a.dtype != b.dtype:
                problems.append(f"{path}: {describe(a)} on CPU vs {describe(b)} on {where}")
    return problems


# After a cast, how far the rewritten model's outputs may drift from the original's: both
# ran at the cast dtype, but the original kept its raw tensors at their own precision.
_CAST_TOLERANCE = {torch.bfloat16: 5e-2, torch.float16: 1e-2, torch.float64: 1e-5}


def compare_cast(reference: list[tuple[str, Any]], got: list[tuple[str, Any]], dtype: torch.dtype) -> list[str]:
    """Outputs of both models after the same cast, compared in float64 within the cast's rounding.

    The dtypes may differ (a raw float32 table promotes the original's result to float32),
    so values alone are compared, relative to the largest magnitude of each output.
    """
    if [p for p, _ in reference] != [p for p, _ in got]:
        return ["outputs differ in structure"]
    tol = _CAST_TOLERANCE.get(dtype, 1e-2)
    problems = []
    for (path, a), (_, b) in zip(reference, got):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            continue
        if a.shape != b.shape:
            problems.append(f"{path}: shape {tuple(a.shape)} vs {tuple(b.shape)}")
            continue
        if not (a.is_floating_point() or a.is_complex()) or a.numel() == 0:
            if not (b.is_floating_point() or b.is_complex()) and not torch.equal(a, b.to(a.dtype)):
                problems.append(f"{path} differs")
            continue
        wide = torch.complex128 if (a.is_complex() or b.is_complex()) else torch.float64
        a64, b64 = a.to(wide), b.to(wide)
        finite = a64[torch.isfinite(a64)]
        scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
        if not bool(torch.isclose(b64, a64, rtol=tol, atol=tol * scale, equal_nan=True).all()):
            overflow = int((torch.isfinite(a64) & ~torch.isfinite(b64)).sum())
            if overflow:
                # `max abs diff` counts finite values only: say what the rest became
                problems.append(f"{path}: {overflow} of {b64.numel()} values become inf or nan where the original's "
                                "are finite (the computation overflows at the cast's range)")
            else:
                problems.append(f"{path} differs (max abs diff {max_abs_diff(a64, b64):.3g})")
    return problems
