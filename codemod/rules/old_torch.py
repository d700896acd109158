"""A buffer rewrite in a repository that declares a torch older than 1.6 is reported, not made.

`register_buffer(name, tensor, persistent=False)` raises `TypeError: register_buffer() got an
unexpected keyword argument 'persistent'` before torch 1.6, and a persistent buffer would add
a key to every checkpoint.  Where every torch the repository declares (requirements files,
environment files, setup.py, setup.cfg, pyproject.toml, README install commands, or where
none names torch the version the README says the code was written for; see
codemod/torch_version.py) is older than 1.6, the rewrite would break the model on the torch
its users install, so it is reported instead.  Parameters (`nn.Parameter`) exist in every
torch and are still rewritten.

Torch fact: the `persistent` argument of `Module.register_buffer` was added in torch 1.6.0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.rules.base import Rule, skip_buffers_where

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts, ClassFacts
    from codemod.rules.base import Decision

RULE = Rule(
    "BUF222",
    "buffer-needs-torch-1.6",
    "a raw tensor in a repository that declares a torch older than 1.6, where register_buffer has no persistent "
    "argument (a persistent buffer would add a checkpoint key)",
    fact="Module.register_buffer takes persistent= since torch 1.6.0; before, the keyword raises TypeError.",
    before="# requirements.txt: torch==1.0.1\ndef __init__(self, n):\n    super().__init__()\n"
    "    self.index = torch.arange(n)",
)
RULES = (RULE,)


def refine_class(cls: ClassFacts, decided: dict[str, tuple[AttributeFacts, Decision]]) -> None:
    skip_buffers_where(decided, lambda: cls.index.too_old_torch, lambda attr, declared: RULE.skip(
        f"the repository declares {declared}, whose register_buffer has no persistent argument (torch 1.6 added "
        "it): the non-persistent buffer would raise TypeError there, and a persistent one would add a checkpoint "
        "key",
        "if the project runs on torch 1.6 or later, update the requirement it declares and run again; otherwise "
        "leave it as it is",
    ))
