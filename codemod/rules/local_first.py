"""A value first bound as a numpy array or a list and converted to a tensor later is built
in a local and registered once.

Torch fact (torch 2.13): `register_buffer(name, t)` raises `KeyError: "attribute 'name'
already exists"` when `self.name` already holds a plain value (a numpy array, a list), and
assigning a numpy array or a list to a registered buffer raises `TypeError: cannot assign
'numpy.ndarray' as buffer`.  Neither order of register-then-convert works on the attribute
itself; building the value in a local (`table = np.load(p)` ... `self.register_buffer(
"table", torch.from_numpy(table))`) leaves exactly one binding of the name, the buffer.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF106",
    "local-then-buffer",
    "an attribute first bound to a non-tensor and converted later -> built in a local, then register_buffer once",
)
RULES = (RULE,)
