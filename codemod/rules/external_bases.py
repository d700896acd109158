"""A class whose base comes from a package outside the repository is reported, never rewritten.

Whether `class Fusion(TransFusion)` is an `nn.Module` depends on a class the codemod cannot
read (`transfusion.model.TransFusion`, not vendored), so nothing proves that
`self.register_buffer` exists on it: a rewrite could raise `AttributeError` where the
original ran.  Where the class shows what only a module does (a `forward` method and
`torch.nn` submodules built in `__init__`), its raw tensors are still worth a word: each
finding the analysis would make is reported instead, with what it would have been.

Torch fact (torch 2.13): `register_buffer` is a method of `nn.Module`; assigning an
`nn.Module` to an attribute of any object works, but only a module's `.to()` moves it.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from codemod import torch_names as tn
from codemod.ftypes import Action
from codemod.rules.base import Rule

if TYPE_CHECKING:
    from codemod.plans import ClassPlan
    from codemod.repo_index import RepoIndex
    from codemod.symbols import ModuleSymbols

RULE = Rule(
    "BUF311",
    "external-base",
    "a raw tensor of a class that looks like an nn.Module (forward, torch.nn submodules) but derives from a class "
    "outside the repository, which nothing shows to be one; reported with what the codemod would make of it",
    fact="register_buffer is a method of nn.Module: called on an object of any other class it raises AttributeError.",
    before="from transfusion.model import TransFusion\n\nclass Fusion(TransFusion):\n    def __init__(self, dim):\n"
    "        super().__init__()\n        self.proj = nn.Linear(dim, dim)\n        self.scale = torch.ones(dim)\n\n"
    "    def forward(self, x):\n        return self.proj(x) * self.scale",
)
RULES = (RULE,)


def unseen_module_base(index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef) -> str | None:
    """The base from outside the repository (and outside torch) of a class that is not known
    to be an nn.Module but defines `forward` and builds torch.nn submodules in `__init__`;
    None when the class shows no such thing or has no such base."""
    external = None
    for base in cls.bases:
        node = base.value if isinstance(base, ast.Subscript) else base
        qualname = symbols.qualify(node)
        if qualname is None or "." not in qualname or qualname.startswith("torch."):
            continue  # builtins (`object`), torch's own non-module classes (`torch.autograd.Function`)
        if index.resolve(qualname, symbols.path).kind == "external":
            external = external or qualname
    if external is None:
        return None
    methods = {s.name: s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    forward, init = methods.get("forward"), methods.get("__init__")
    if forward is None or init is None or any(getattr(d, "id", None) == "staticmethod" for d in forward.decorator_list):
        return None
    for node in ast.walk(init):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                        for t in node.targets)):
            called = symbols.qualify(node.value.func)
            if called is not None and tn.classify_call(called) is tn.CallKind.MODULE:
                return external
    return None


def as_reports(plan: ClassPlan, base: str) -> ClassPlan:
    """The class's findings as reports: no edit, each saying what it would have been."""
    findings = []
    for finding in plan.findings:
        if finding.action is Action.SKIP:
            would = f"{finding.code}: {finding.reason}"
        else:
            would = f"it would become {'a buffer' if finding.action is Action.BUFFER else 'an nn.Parameter'} ({finding.reason})"
        findings.append(replace(
            finding,
            action=Action.SKIP,
            persistent=None,
            statically_safe=False,
            code=RULE.code,
            reason=f"{plan.name} derives from {base}, which is not in the repository, so nothing shows it is an "
                   f"nn.Module (its forward and torch.nn submodules suggest one); if it is: {would}",
            suggestion=finding.suggestion if finding.action is Action.SKIP else
            f"if {base} is an nn.Module, make the change by hand (self.register_buffer(\"{finding.attribute}\", ..., "
            "persistent=False) in __init__ for a buffer)",
        ))
    return replace(plan, findings=findings, edits=[], annotations=[])
