"""The rule registry: stable codes, and every finding carries the code of a known rule."""

from __future__ import annotations

import re
from pathlib import Path

from codemod.api import transform_source
from codemod.fileio import read_source
from codemod.ftypes import Action
from codemod.rules.registry import REGISTRY

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def test_codes_are_well_formed_and_grouped():
    assert REGISTRY
    names = set()
    for code, rule in REGISTRY.items():
        assert re.fullmatch(r"BUF[123]\d\d", code), code
        assert rule.code == code
        assert rule.name not in names, rule.name
        names.add(rule.name)
        assert rule.summary
        if not code.startswith("BUF1"):
            assert not rule.statically_safe, code  # a skip or a report writes nothing to call safe


def test_every_golden_finding_carries_a_code_of_the_right_group():
    seen = set()
    for case in sorted(GOLDEN.iterdir()):
        source = case / "input.py"
        if not source.is_file() or (case / "repo").is_dir():
            continue
        text = read_source(source).text
        findings = transform_source(text, path="input.py").findings
        findings += transform_source(text, path="input.py", persistent="state").findings
        for finding in findings:
            assert finding.code in REGISTRY, (case.name, finding)
            group = finding.code[3]
            if finding.action is Action.SKIP:
                assert group in "23", (case.name, finding)
            else:
                assert group == "1", (case.name, finding)
                if finding.code in ("BUF101", "BUF102"):  # the code says the persistence (BUF108 keeps the author's)
                    assert (finding.code == "BUF102") == bool(finding.persistent)
            seen.add(finding.code)
    assert {"BUF101", "BUF102", "BUF103"} <= seen


def test_persistence_cases_named_in_the_reason():
    """rules/persistence.state_of on events as the walker records them."""
    import ast

    from codemod.rules import persistence
    from codemod.tensors import Kind, Value
    from codemod.walker import AttrEvent

    init = ast.parse("def __init__(self, n):\n    self.x = torch.zeros(n)\n").body[0]
    stmt = init.body[0]

    def event(kind: str, value: Value, node=None, statement=stmt) -> AttrEvent:
        return AttrEvent("x", kind, statement, value, node, 0, False)

    raw = event("assign", Value(Kind.TENSOR), stmt.value)
    parameter = event("assign", Value(Kind.PARAMETER))
    assert persistence.state_of("x", [raw, parameter], [], init, "self")[0] is True
    assert "nn.Parameter" in persistence.state_of("x", [raw, parameter], [], init, "self")[1]

    persistent, reason = persistence.state_of("x", [raw], [], init, "self")
    assert (persistent, reason) == (False, "derived from constructor arguments; rebuilt on each construction")

    random = event("assign", Value(Kind.TENSOR, "random initialisation (torch.randn)"), stmt.value)
    assert persistence.state_of("x", [random], [], init, "self")[0] is True

    method = ast.parse(
        "def f(self, m):\n    self.x = self.x * m + 1\n    self.x = self.x.to('cpu')\n    self.x = torch.ones(3)\n"
    ).body[0]
    update, move, rebuild = (event("assign", Value(Kind.TENSOR), s.value, s) for s in method.body)
    assert persistence.state_of("x", [raw], [("M.f", update)], init, "self")[0] is True
    assert persistence.state_of("x", [raw], [("M.f", move)], init, "self")[1].endswith("rebuilt on each construction")
    persistent, reason = persistence.state_of("x", [raw], [("M.f", rebuild)], init, "self")
    assert not persistent and "recomputed wholesale in M.f" in reason


def test_forward_called_from_init_is_not_constructor_code():
    source = (
        "import torch\nimport torch.nn as nn\n\n\nclass Probe(nn.Module):\n"
        "    def __init__(self, n=4):\n        super().__init__()\n        self.running = torch.zeros(n)\n"
        "        self.forward(torch.zeros(2, n))\n\n"
        "    def forward(self, x):\n        self.running = self.running * 0.9 + x.mean(0)\n        return x - self.running\n"
    )
    (finding,) = transform_source(source, path="m.py", persistent="state").findings
    assert (finding.code, finding.persistent) == ("BUF102", True)
    assert "Probe.forward" in finding.reason


def test_every_pytorch_pretrained_model_of_transformers_is_a_module_base_and_no_tf_or_flax_one():
    from codemod.torch_names import is_known_module_base

    assert is_known_module_base("transformers.BertPreTrainedModel")
    assert is_known_module_base("transformers.models.bert.modeling_bert.BertPreTrainedModel")
    assert not is_known_module_base("transformers.TFBertPreTrainedModel")
    assert not is_known_module_base("transformers.FlaxBertPreTrainedModel")
    assert not is_known_module_base("mylib.BertPreTrainedModel")
    source = (
        "import torch\nimport torch.nn as nn\nfrom transformers import BertPreTrainedModel\n\n\n"
        "class Scorer(BertPreTrainedModel):\n    def __init__(self, config):\n        super().__init__(config)\n"
        "        self.head = nn.Linear(config.hidden_size, 1)\n        self.scale = torch.ones(1)\n\n"
        "    def forward(self, x):\n        return self.head(x) * self.scale\n"
    )
    # analysed as the module it is: the transformers rule speaks for it (from_pretrained refills buffers)
    (finding,) = transform_source(source, path="m.py").findings
    assert finding.attribute == "scale" and finding.code == "BUF202", finding


def test_a_class_of_an_outside_hierarchy_is_reported_never_rewritten():
    source = (
        "import torch\nimport torch.nn as nn\nfrom fusionlib.model import Fusion\n\n\n"
        "class SpectrumFusion(Fusion):\n    def __init__(self, dim):\n        super().__init__()\n"
        "        self.proj = nn.Linear(dim, dim)\n        self.scale = torch.arange(dim)\n\n"
        "    def forward(self, x):\n        return self.proj(x) * self.scale\n"
    )
    result = transform_source(source, path="m.py")
    (finding,) = result.findings
    assert finding.code == "BUF311" and finding.action is Action.SKIP, finding
    assert "it would become a buffer" in finding.reason and "fusionlib.model.Fusion" in finding.reason
    assert result.code == source
    # no forward, or no torch.nn submodule: nothing suggests a module, nothing is said
    assert not transform_source(source.replace("def forward", "def apply"), path="m.py").findings
    assert not transform_source(source.replace("nn.Linear(dim, dim)", "dim"), path="m.py").findings
