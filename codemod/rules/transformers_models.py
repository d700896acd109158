"""Classes of transformers models are left to `_init_weights`.

Transformers fact (transformers 5.23, torch 2.13): `from_pretrained` builds the model on
the meta device and materialises every buffer the checkpoint lacks with uninitialised
memory; only the model's `_init_weights` re-creates it.  A non-persistent buffer added to
a `PreTrainedModel`, or to a module used inside one, therefore holds garbage after
`from_pretrained` (measured: `torch.arange(8.)` came back as `[-8.96e+29, 4.56e-41, ...]`),
and a persistent one is right only for checkpoints saved after the rewrite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF202",
    "transformers-model",
    "a transformers PreTrainedModel, or a class used inside one: from_pretrained refills a new buffer with uninitialised memory unless _init_weights re-creates it",
)
RULES = (RULE,)

SUGGESTION_TEMPLATE = (
    "register it, then re-create it in the model's _init_weights, e.g. "
    "`if isinstance(module, {cls}): module.{attr}.copy_(<the value>)` "
    "(from_pretrained leaves the plain attribute on the meta device today)"
)


def _is_pretrained_model(qualname: str) -> bool:
    head, _, name = qualname.rpartition(".")
    return name.endswith("PreTrainedModel") and (head == "transformers" or head.startswith("transformers."))


def class_reason(lineage, unsub) -> str | None:
    """Why the class is a transformers model itself: a PreTrainedModel among its bases,
    or among its repository bases' bases.  `lineage`: (symbols, ClassDef) pairs, the class first."""
    for symbols, cls in lineage:
        for base in cls.bases:
            qualname = symbols.qualify(unsub(base))
            if qualname is not None and _is_pretrained_model(qualname):
                return f"a transformers PreTrainedModel ({qualname.rpartition('.')[2]})"
    return None


def file_reason(symbols) -> str | None:
    """Why every module class of a file may be built inside a transformers model: the file
    belongs to transformers itself, or imports a PreTrainedModel class to build one."""
    if symbols.name.startswith("transformers.models.") or symbols.name == "transformers.modeling_utils":
        return "part of a transformers model (a module of the transformers package)"
    for qualname in symbols.imports.values():
        if _is_pretrained_model(qualname):
            return f"defined beside a transformers model (the file imports {qualname.rpartition('.')[2]})"
    return None


def decide(facts: AttributeFacts) -> Decision | None:
    cls = facts.cls
    if "transformers" not in cls.file_facts:
        cls.file_facts["transformers"] = file_reason(cls.symbols)
    # the class itself first (the clearer reason), then the file it is defined in
    model = class_reason(cls.lineage(), _unsub) or cls.file_facts["transformers"]
    if model is None:
        return None
    return RULE.skip(
        f"{model}: transformers' from_pretrained builds on the meta device and fills a buffer the checkpoint "
        "lacks with uninitialised memory unless _init_weights re-creates it",
        SUGGESTION_TEMPLATE.format(cls=cls.cls.name, attr=facts.attr),
    )


def _unsub(node):
    import ast

    return node.value if isinstance(node, ast.Subscript) else node
