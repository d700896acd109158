"""Generated and mutated sources: the tool never crashes, every output parses, and a
second run over its own output changes nothing."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemod.api import transform_source
from codemod.ftypes import RewriteError

VALUES = [
    "torch.ones(3)", "torch.zeros(2, 2)", "torch.randn(4) * 0.1", "torch.arange(n)", "torch.tensor([1.0, 2.0])",
    "torch.eye(n).to(device)", "torch.ones(3, requires_grad=True)", "nn.Parameter(torch.ones(n))",
    "torch.empty(n)", "torch.ones(n).cuda()", "None", "1.0", "[torch.ones(1)]", "torch.load(path)",
    "x", "torch.full((n,), 0.5, dtype=torch.float64)", "torch.ones(3, dtype=torch.complex64)",
    "torch.Tensor(n)", "torch.autograd.Variable(torch.ones(n))",
]
STATEMENTS = [
    "self.{a} = {v}", "self.{a} = {v}  # comment", "if n > 1:\n        self.{a} = {v}\n    else:\n        self.{a} = None",
    "self.{a}: torch.Tensor = {v}", "self.{a} = {v}\n    self.{a}.mul_(2)", "for _ in range(2):\n        self.{a} = {v}",
    "self.{a} = self.{a} if hasattr(self, '{a}') else {v}", "self.{a}, self.b = {v}, {v}", "setattr(self, '{a}', {v})",
    "self.{a} = {v}\n    del self.{a}", "x = {v}\n    self.{a} = x",
]
USES = ["return x * self.{a}", "return x + self.{a}.sum()", "self.{a}.add_(1)\n        return x", "return x"]
MUTATIONS = ["", "\r\n", "\x0c", "\t", "\u2028", "(", "#", "'''", "\\", "\x00"]

attribute = st.sampled_from(["mask", "scale", "w", "buf", "running_mean", "weight", "training", "forward"])


@st.composite
def sources(draw):
    body = []
    for _ in range(draw(st.integers(1, 4))):
        template = draw(st.sampled_from(STATEMENTS))
        body.append(template.format(a=draw(attribute), v=draw(st.sampled_from(VALUES))).replace("\n", "\n    "))
    init = "\n        ".join(b.replace("\n    ", "\n        ") for b in body)
    before_super = draw(st.booleans())
    lines = ["super().__init__()", init] if not before_super else [init, "super().__init__()"]
    use = draw(st.sampled_from(USES)).format(a=draw(attribute))
    base = draw(st.sampled_from(["nn.Module", "torch.nn.Module", "object", "Base"]))
    text = (
        "import torch\nfrom torch import nn\n\n\nclass Base(nn.Module):\n    pass\n\n\n"
        f"class M({base}):\n    def __init__(self, n=3, device='cpu', path='p'):\n        "
        + "\n        ".join(lines)
        + f"\n\n    def forward(self, x):\n        {use}\n"
    )
    if draw(st.booleans()):  # a mutation at a random place: line breaks, brackets, quotes
        where = draw(st.integers(0, len(text)))
        text = text[:where] + draw(st.sampled_from(MUTATIONS)) + text[where:]
    return text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sources())
def test_no_crash_outputs_parse_and_a_second_run_changes_nothing(source: str):
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        parses = False
    else:
        parses = True
    try:
        result = transform_source(source, path="model.py")
    except (SyntaxError, ValueError):
        assert not parses, "a source Python parses was rejected as unparsable"
        return
    except RewriteError:
        return  # reported as the file's error, the file left alone
    if result.code == source:
        return
    ast.parse(result.code)  # every output parses
    again = transform_source(result.code, path="model.py")
    assert again.code == result.code, "a second run changed the output again"
