"""Persistence policy: which buffers a checkpoint must carry.

Torch fact (torch 2.13): a persistent buffer added to a class puts a new key in
`state_dict()`, so `load_state_dict(strict=True)` of every checkpoint saved before the
rewrite fails with `Missing key(s) in state_dict`; a `persistent=False` buffer is left
out of `state_dict()` and old checkpoints keep loading, while `.to()` / `.half()` still
move and cast it.  The raw attribute was never saved, so a non-persistent buffer changes
nothing a checkpoint sees: it is the default, and a persistent key is written only for
state that no constructor call can rebuild.
"""

from __future__ import annotations

from codemod.rules.base import Rule

NON_PERSISTENT = Rule(
    "BUF101",
    "non-persistent-buffer",
    "a value the constructor rebuilds (factories, literals, constructor arguments, files read in __init__, caches recomputed later) -> register_buffer(..., persistent=False)",
    statically_safe=True,
)
PERSISTENT = Rule(
    "BUF102",
    "persistent-buffer",
    "state a checkpoint must carry (random initialisation, running statistics updated from their previous value, the raw branch of a Parameter) -> register_buffer(...); checkpoints saved before lack the key",
)
RULES = (NON_PERSISTENT, PERSISTENT)
