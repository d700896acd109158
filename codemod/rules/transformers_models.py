"""Classes of transformers models are left to `_init_weights`.

Transformers fact (transformers 5.23, torch 2.13): `from_pretrained` builds the model on
the meta device and materialises every buffer the checkpoint lacks with uninitialised
memory; only the model's `_init_weights` re-creates it.  A non-persistent buffer added to
a `PreTrainedModel`, or to a module used inside one, therefore holds garbage after
`from_pretrained` (measured: `torch.arange(8.)` came back as `[-8.96e+29, 4.56e-41, ...]`),
and a persistent one is right only for checkpoints saved after the rewrite.
"""

from __future__ import annotations

from codemod.rules.base import Rule

RULE = Rule(
    "BUF202",
    "transformers-model",
    "a transformers PreTrainedModel, or a class used inside one: from_pretrained refills a new buffer with uninitialised memory unless _init_weights re-creates it",
)
RULES = (RULE,)
