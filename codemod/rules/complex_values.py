"""Complex tensors stay plain attributes.

Torch fact (torch 2.13): `Module.to(dtype)` casts every buffer that is floating point
*or complex* (`t.is_floating_point() or t.is_complex()`), so after
`model.to(torch.bfloat16)` a complex64 buffer becomes a real bfloat16 tensor and torch
warns "Casting complex values to real discards the imaginary part" (`.half()`, `.float()`
and `.double()` leave complex tensors alone).  Mixed-precision code casts whole models
that way; a raw attribute is never cast, so the rewrite would destroy the values.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF201",
    "complex-tensor",
    "a complex tensor (torch.polar, view_as_complex, complex dtypes, 1j * ...): model.to(bfloat16) would cast a buffer to real and drop its imaginary part",
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
