"""A tensor that requires grad and is handed out in a list is reported, not made a Parameter.

Torch facts (torch 2.13): a raw tensor with `requires_grad=True` is not in `parameters()`;
an `nn.Parameter` is, so every optimizer built from `model.parameters()` updates it (with
its learning rate and weight decay).  A tensor that code puts in a list or tuple
(`self._arch_parameters = [self.alphas]`, `Adam([model.temperature])`) is trained by an
optimizer of its own, as the architecture weights of a search are: as a Parameter it
would be updated by both, and `torch.optim` updates a tensor listed twice in one group
twice.  So the rewrite to nn.Parameter (BUF103/BUF104/BUF105) is made only where no code
of the class or of the repository hands the tensor out that way.
"""

from __future__ import annotations

import ast
import os
import re
from typing import TYPE_CHECKING

from codemod.rules.base import Decision, Rule

from pathlib import Path

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

RULE = Rule(
    "BUF217",
    "trained-tensor-handed-out",
    "a tensor that requires grad and is put in a list or tuple (trained by an optimizer of its own); as nn.Parameter "
    "the model's optimizer would train it too",
    fact="A tensor with requires_grad=True is not in parameters(); an nn.Parameter is, so an optimizer built from "
    "model.parameters() updates it as well as any optimizer it is handed to.",
    before="def __init__(self, n):\n    super().__init__()\n    self.alphas = torch.zeros(n, requires_grad=True)\n"
    "    self.arch_parameters = [self.alphas]  # trained by an optimizer of its own",
)
RULES = (RULE,)


def _listed(tree: ast.AST, attr: str, owner: str | None, ignored: frozenset[int] = frozenset()) -> int | None:
    """The line of a list, tuple or set display holding `<name>.<attr>` (`self.<attr>` when
    owner is given), other than the argument list of a torch function (torch.cat([...]));
    ``ignored``: ids of `<name>.<attr>` nodes that are not the class's attribute."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            head = func
            while isinstance(head, ast.Attribute):
                head = head.value
            if isinstance(head, ast.Name) and head.id in ("torch", "F") and not (
                isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "optim"
            ):
                skip.update(id(a) for a in node.args)
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and id(node) not in skip:
            for element in node.elts:
                if isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) \
                        and element.func.attr == "requires_grad_":
                    element = element.func.value  # `[self.E.requires_grad_(), ...]` lists self.E itself
                if isinstance(element, ast.Attribute) and element.attr == attr and isinstance(element.value, ast.Name) \
                        and id(element) not in ignored:
                    if owner is None or element.value.id == owner:
                        return node.lineno
    return None


def handed_out(facts: AttributeFacts) -> str | None:
    """Where self.<attr> is put in a list or tuple: in the class, or anywhere in the
    repository as `<name>.<attr>` (a training script's `Adam([model.alphas])`)."""
    cls = facts.cls
    line = _listed(cls.cls, facts.attr, cls.self_name or "self")
    if line is not None:
        return f"line {line}"
    index = cls.index
    needle = re.compile(rf"[\[(,{{]\s*\w+(?:\.\w+)*\.{re.escape(facts.attr)}\s*[\]),}}]")
    class_word = re.compile(rf"\b{re.escape(cls.cls.name)}\b")
    index.scanned_repository = True  # the answer depends on every file of the run
    for path in list(index.files):
        if path == cls.symbols.path:
            continue
        text = index.text(path)
        if not text or f".{facts.attr}" not in text or not needle.search(text) or not class_word.search(text):
            continue  # a file that never names the class holds other objects' attributes of that name
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        line = _listed(tree, facts.attr, None, _other_classes_own(tree, facts.attr, cls.cls.name))
        if line is not None:
            return f"{_shown(path, cls.symbols.path, cls.display_path)}:{line}"
    return None


def _other_classes_own(tree: ast.AST, attr: str, name: str) -> frozenset[int]:
    """ids of the `self.<attr>` nodes in the methods of classes other than ``name`` and its
    subclasses: another file's class of the same name (`Attention` in train.py beside
    train3.py's) returning its own `self.attn1`, a submodule there, says nothing of ours."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or any(ast.unparse(base).rpartition(".")[2] == name
                                                     for base in node.bases):
            continue
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            arguments = [*method.args.posonlyargs, *method.args.args]
            if not arguments:
                continue
            own = arguments[0].arg
            found.update(id(n) for n in ast.walk(method) if isinstance(n, ast.Attribute) and n.attr == attr
                         and isinstance(n.value, ast.Name) and n.value.id == own)
    return frozenset(found)


def _shown(path: Path, own: Path, own_display: str) -> str:
    """`path` as the report shows files: relative to the project root, which is where the
    class's own file is shown from."""
    depth = len(Path(own_display).parts)
    root = own.resolve().parents[depth - 1] if 0 < depth <= len(own.resolve().parents) else own.parent
    return Path(os.path.relpath(path.resolve(), root)).as_posix()


def decide(facts: AttributeFacts) -> Decision | None:
    if facts.trained is None:
        return None
    where = handed_out(facts)
    if where is None:
        return None
    return RULE.skip(
        f"requires grad ({facts.trained}) and is put in a list or tuple at {where}, as tensors trained by an optimizer "
        "of their own are; as nn.Parameter it would also join model.parameters() and be updated by the model's optimizer",
        "leave it; or make it nn.Parameter and keep it out of the parameter list of the model's optimizer",
    )
