"""The checks of what breaks in real use, per-rewrite verdicts, the write policy and reports.

Each check has a hand-written rewrite it must fail and one it must pass, validated with
real worker subprocesses (one module-scoped run shares the workers between classes).
The runner-level tests at the end use the tool's own analysis on a small repository.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemod.ftypes import Action, ClassRewrite, Finding, Validation, Verdict
from codemod.validate import ValidationOptions, validate_rewrites
from codemod.write_policy import WritePolicy, may_write, statically_safe

CHECKS = """
import torch
import torch.nn as nn


class Reshaped(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.history = torch.zeros(1, 4)

    def forward(self, x):
        self.history = torch.cat([self.history, x.detach().mean(0, keepdim=True)])
        return self.lin(x) + self.history.sum(0)


class ReshapedScratch(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.history = torch.zeros(1, 4)

    def forward(self, x):
        self.history = torch.cat([self.history, x.detach().mean(0, keepdim=True)])
        return self.lin(x) + self.history.sum(0)


class NewKey(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mask = torch.tril(torch.ones(4, 4))

    def forward(self, x):
        return self.lin(x) @ self.mask


class NoNewKey(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mask = torch.tril(torch.ones(4, 4))

    def forward(self, x):
        return self.lin(x) @ self.mask


class ComplexTable(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.freqs = torch.polar(torch.ones(4), torch.arange(4.0))

    def forward(self, x):
        return self.lin(x) * self.freqs.real + self.freqs.imag


class RealTable(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.scale = torch.linspace(0.5, 1.5, 4)

    def forward(self, x):
        return self.lin(x) * self.scale


class TrainedAsBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.alpha = torch.ones(4, requires_grad=True)

    def forward(self, x):
        return self.lin(x) * self.alpha


class TrainedAsParameter(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.alpha = torch.ones(4, requires_grad=True)

    def forward(self, x):
        return self.lin(x) * self.alpha


class Branchy(nn.Module):
    def __init__(self, extra=False):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.scale = torch.ones(4)
        if extra:
            self.table = {"a": torch.ones(4)}

    def forward(self, x):
        return self.lin(x) * self.scale


class CpuPinned(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.table = torch.arange(4.0, device="cpu")

    def forward(self, x):
        return self.lin(x) + self.table


class Recreated(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.reset_parameters()

    def reset_parameters(self):
        self.table = torch.arange(4.0)

    def forward(self, x):
        return self.lin(x) + self.table
"""

# (class, attribute, old statement, new statement, action, persistent)
EDITS = [
    ("Reshaped", "history", "self.history = torch.zeros(1, 4)",
     'self.register_buffer("history", torch.zeros(1, 4))', "buffer", True),
    ("ReshapedScratch", "history", "self.history = torch.zeros(1, 4)",
     'self.register_buffer("history", torch.zeros(1, 4), persistent=False)', "buffer", False),
    ("NewKey", "mask", "self.mask = torch.tril(torch.ones(4, 4))",
     'self.register_buffer("mask", torch.tril(torch.ones(4, 4)))', "buffer", True),
    ("NoNewKey", "mask", "self.mask = torch.tril(torch.ones(4, 4))",
     'self.register_buffer("mask", torch.tril(torch.ones(4, 4)), persistent=False)', "buffer", False),
    ("ComplexTable", "freqs", "self.freqs = torch.polar(torch.ones(4), torch.arange(4.0))",
     'self.register_buffer("freqs", torch.polar(torch.ones(4), torch.arange(4.0)), persistent=False)', "buffer", False),
    ("RealTable", "scale", "self.scale = torch.linspace(0.5, 1.5, 4)",
     'self.register_buffer("scale", torch.linspace(0.5, 1.5, 4), persistent=False)', "buffer", False),
    ("TrainedAsBuffer", "alpha", "self.alpha = torch.ones(4, requires_grad=True)",
     'self.register_buffer("alpha", torch.ones(4, requires_grad=True), persistent=False)', "buffer", False),
    ("TrainedAsParameter", "alpha", "self.alpha = torch.ones(4, requires_grad=True)",
     "self.alpha = nn.Parameter(torch.ones(4))", "parameter", None),
    ("Branchy", "scale", "self.scale = torch.ones(4)",
     'self.register_buffer("scale", torch.ones(4), persistent=False)', "buffer", False),
    ("Branchy", "table", 'self.table = {"a": torch.ones(4)}',
     'self.register_buffer("table", {"a": torch.ones(4)}, persistent=False)', "buffer", False),
    ("CpuPinned", "table", 'self.table = torch.arange(4.0, device="cpu")',
     'self.register_buffer("table", torch.arange(4.0, device="cpu"), persistent=False)', "buffer", False),
    ("Recreated", "table", "self.table = torch.arange(4.0)",
     'self.register_buffer("table", torch.arange(4.0), persistent=False)', "buffer", False),
]

HF = """
import torch
import torch.nn as nn
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "codemod-tiny"

    def __init__(self, hidden=4, **kwargs):
        super().__init__(**kwargs)
        self.hidden = hidden


class Tiny(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config=None):
        super().__init__(config or TinyConfig())
        self.lin = nn.Linear(4, 4)
        self.table = torch.arange(4.0)
        self.post_init()

    def forward(self, x):
        return self.lin(x) + self.table


class TinyInit(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config=None):
        super().__init__(config or TinyConfig())
        self.lin = nn.Linear(4, 4)
        self.table = torch.arange(4.0)
        self.post_init()

    def _init_weights(self, module):
        super()._init_weights(module)
        if isinstance(module, TinyInit) and module.table.device.type != "meta":
            with torch.no_grad():
                module.table.copy_(torch.arange(4.0))

    def forward(self, x):
        return self.lin(x) + self.table
"""

HF_EDITS = [
    ("Tiny", "table", "self.table = torch.arange(4.0)",
     'self.register_buffer("table", torch.arange(4.0), persistent=False)', "buffer", False),
    ("TinyInit", "table", "self.table = torch.arange(4.0)",
     'self.register_buffer("table", torch.arange(4.0), persistent=False)', "buffer", False),
]

EXAMPLES = """
import torch
from codemod.examples import example

for name in ("Reshaped", "ReshapedScratch", "NewKey", "NoNewKey", "ComplexTable", "RealTable",
             "TrainedAsBuffer", "TrainedAsParameter", "Branchy", "CpuPinned", "Recreated"):
    example(f"pkg.checks.{name}", inputs=lambda: (torch.randn(3, 4),))
for name in ("Tiny", "TinyInit"):
    example(f"pkg.hf.{name}", inputs=lambda: (torch.randn(3, 4),))
"""


def _apply(text: str, edits) -> tuple[str, dict[str, list[Finding]], dict[str, list[tuple[str, int, int]]]]:
    """The rewritten text, the findings and the edited statements of each class."""
    lines = text.splitlines()
    findings: dict[str, list[Finding]] = {}
    statements: dict[str, list[tuple[str, int, int]]] = {}
    for cls, attr, old, new, action, persistent in edits:
        start = next(i for i, line in enumerate(lines) if line.startswith(f"class {cls}("))
        index = next(i for i in range(start, len(lines)) if lines[i].strip() == old)
        lines[index] = lines[index].replace(old, new)
        findings.setdefault(cls, []).append(
            Finding("x.py", index + 1, 9, cls, attr, Action(action), persistent, "hand-written rewrite")
        )
        statements.setdefault(cls, []).append((attr, index + 1, index + 1))
    return "\n".join(lines) + "\n", findings, statements


def _repo(root: Path, with_hf: bool) -> tuple[list[ClassRewrite], dict[Path, str]]:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    rewrites, overlay = [], {}
    modules = [("checks", CHECKS, EDITS)] + ([("hf", HF, HF_EDITS)] if with_hf else [])
    for name, source, edits in modules:
        text = textwrap.dedent(source).lstrip("\n")
        path = root / "pkg" / f"{name}.py"
        path.write_text(text)
        rewritten, findings, statements = _apply(text, edits)
        overlay[path] = rewritten
        rewrites += [
            ClassRewrite(path, f"pkg.{name}", cls, found, tuple(statements[cls])) for cls, found in findings.items()
        ]
    (root / "codemod_examples.py").write_text(textwrap.dedent(EXAMPLES))
    return rewrites, overlay


def _has_transformers() -> bool:
    try:
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    root = tmp_path_factory.mktemp("checks")
    rewrites, overlay = _repo(root, with_hf=_has_transformers())
    default = validate_rewrites(root, rewrites, overlay, ValidationOptions(jobs=2, timeout=120))
    return {cls: v for (_, cls), v in default.items()}


def _describe(v: Validation) -> str:
    return f"{v.verdict.value}: {v.message}\n" + "\n".join(f"  {d}" for d in v.details + v.notes)


def _failed_by(v: Validation, check: str) -> list[str]:
    return [f for f in v.failures if f.startswith(f"{check}: ")]


# -- checkpoint round trip -------------------------------------------------------------------


def test_round_trip_fails_a_persistent_buffer_reshaped_in_forward(checked):
    v = checked["Reshaped"]  # its new key alone would change the checkpoint format: the round trip fails it
    assert v.verdict is Verdict.FAILED, _describe(v)
    (failure,) = _failed_by(v, "round_trip")
    assert "size mismatch" in failure and "history" in failure, failure
    assert v.verdict_for("history") is Verdict.FAILED


def test_round_trip_passes_a_non_persistent_buffer(checked):
    default = checked
    v = default["ReshapedScratch"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert "round_trip" in v.compared
    assert any("reloaded model gives the original's outputs" in d for d in v.details), v.details


# -- pre-rewrite checkpoints -----------------------------------------------------------------


def test_new_persistent_key_changes_the_checkpoint_format(checked):
    v = checked["NewKey"]
    assert v.verdict is Verdict.CHANGES_CHECKPOINT, _describe(v)
    assert not v.failures
    assert v.checkpoint_compatible is False and v.missing_keys == ["mask"]
    assert v.verdict_for("mask") is Verdict.CHANGES_CHECKPOINT
    assert "strict=False" in v.message_for("mask") and "missing_keys=[mask]" in v.message_for("mask")


def test_no_new_key_keeps_pre_rewrite_checkpoints_loading(checked):
    default = checked
    v = default["NoNewKey"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert v.checkpoint_compatible is True and "checkpoint" in v.compared


# -- dtype casts -----------------------------------------------------------------------------


def test_casts_fail_a_complex_buffer_cast_to_real(checked):
    default = checked
    v = default["ComplexTable"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    failures = _failed_by(v, "casts")
    assert any("to(torch.bfloat16)" in f and "freqs" in f and "imaginary part is discarded" in f for f in failures), failures
    assert v.verdict_for("freqs") is Verdict.FAILED


def test_casts_pass_a_real_table(checked):
    default = checked
    v = default["RealTable"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert "casts" in v.compared
    assert not _failed_by(v, "casts")


# -- training --------------------------------------------------------------------------------


def test_training_fails_a_trained_tensor_made_a_buffer(checked):
    default = checked
    v = default["TrainedAsBuffer"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    (failure,) = _failed_by(v, "training")
    assert "alpha requires grad" in failure and "nn.Parameter" in failure
    assert v.verdict_for("alpha") is Verdict.FAILED


def test_training_passes_a_trained_tensor_made_a_parameter(checked):
    v = checked["TrainedAsParameter"]
    assert v.verdict is Verdict.CHANGES_CHECKPOINT, _describe(v)  # alpha: a new key, nothing else differs
    assert "training" in v.compared
    assert any(d.startswith("training:") and "new: alpha" in d for d in v.details), v.details


# -- coverage and per-rewrite verdicts -------------------------------------------------------


def test_a_broken_rewrite_in_a_branch_only_a_second_build_takes_fails_and_the_other_passes(checked):
    v = checked["Branchy"]
    # the example builds with extra=False; a second build flips it and runs the other statement,
    # whose (deliberately wrong) rewrite registers a dict as a buffer
    assert v.verdict is Verdict.FAILED, _describe(v)
    assert len(v.builds) == 2 and v.builds[1].endswith("with extra=True"), v.builds
    assert v.verdict_for("table") is Verdict.FAILED
    assert "cannot assign 'dict' object to buffer 'table'" in v.message_for("table")
    assert "build 2" in v.message_for("table")
    assert v.verdict_for("scale") is Verdict.PASSED, v.message_for("scale")
    assert "coverage" in v.checks_for("scale") and "forward:cpu" in v.checks_for("scale")
    assert v.branches == [2, 2]


def test_line_coverage_records_the_branch_taken(tmp_path):
    from codemod.validate.checks import LineCoverage, not_run

    target = tmp_path / "branchy_target.py"
    target.write_text("def build(flag):\n    if flag:\n        y = 2\n    else:\n        y = 3\n    return y\n")
    namespace: dict = {}
    exec(compile(target.read_text(), str(target), "exec"), namespace)
    for flag, unrun in ((True, [5]), (False, [3])):
        with LineCoverage(str(target)) as coverage:
            namespace["build"](flag)
        assert not_run(coverage.lines, [[3, 3], [5, 5]]) == unrun
    assert sys.gettrace() is None or "LineCoverage" not in repr(sys.gettrace())


# -- meta-device materialisation -------------------------------------------------------------


def test_meta_init_reports_a_buffer_that_comes_back_uninitialised(checked):
    default = checked
    v = default["CpuPinned"]
    assert v.verdict is Verdict.PASSED, _describe(v)  # reported, not a failure
    assert "meta_init" in v.compared
    assert any(n.startswith("meta init: table comes back uninitialised") for n in v.notes), v.notes


def test_meta_init_passes_a_buffer_that_reset_parameters_recreates(checked):
    default = checked
    v = default["Recreated"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert not any("meta init" in n for n in v.notes), v.notes
    assert any("the rewritten tensors hold their values" in d for d in v.details), v.details


# -- transformers ----------------------------------------------------------------------------


@pytest.mark.skipif(not _has_transformers(), reason="transformers is not installed")
def test_from_pretrained_fails_a_buffer_nothing_recreates(checked):
    default = checked
    v = default["Tiny"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    failures = _failed_by(v, "from_pretrained")
    assert any("table holds uninitialised memory" in f and "_init_weights" in f for f in failures), failures


@pytest.mark.skipif(not _has_transformers(), reason="transformers is not installed")
def test_from_pretrained_passes_a_buffer_init_weights_recreates(checked):
    default = checked
    v = default["TinyInit"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert "from_pretrained" in v.compared


# -- the write policy, as a function ---------------------------------------------------------


def _finding(code: str, verdict: Verdict, safe: bool = False) -> Finding:
    finding = Finding("m.py", 3, 9, "M", "x", Action.BUFFER, False, "r", code=code, statically_safe=safe)
    finding.validation = Validation(verdict, rewrites={"x": {"verdict": verdict.value, "checks": [], "message": ""}})
    return finding


def test_only_buf101_can_be_statically_safe():
    from codemod.rules.registry import REGISTRY

    assert [code for code, rule in REGISTRY.items() if rule.statically_safe] == ["BUF101"]
    assert statically_safe(_finding("BUF101", Verdict.NOT_VALIDATED, safe=True))
    assert not statically_safe(_finding("BUF101", Verdict.NOT_VALIDATED, safe=False))


@pytest.mark.parametrize(
    "verdict,code,safe,default,unsafe,required",
    [
        (Verdict.PASSED, "BUF102", False, True, True, True),
        (Verdict.NOT_VALIDATED, "BUF101", True, True, True, False),
        (Verdict.NOT_VALIDATED, "BUF101", False, False, True, False),  # a float buffer: a cast can change it
        (Verdict.NOT_VALIDATED, "BUF102", False, False, True, False),
        (Verdict.NOT_VALIDATED, "BUF103", False, False, True, False),
        (Verdict.CHECKED_WITHOUT_FORWARD, "BUF101", True, True, True, False),  # an integer buffer
        (Verdict.CHECKED_WITHOUT_FORWARD, "BUF101", False, False, True, False),  # a float one: casts reach it
        (Verdict.CHECKED_WITHOUT_FORWARD, "BUF103", False, False, True, False),
        (Verdict.FAILED, "BUF101", True, False, True, False),
        (Verdict.ERROR, "BUF101", True, False, True, False),
        (Verdict.TIMEOUT, "BUF101", True, False, True, False),
    ],
)
def test_write_policy(verdict, code, safe, default, unsafe, required):
    finding = _finding(code, verdict, safe)
    assert may_write(finding, WritePolicy())[0] is default
    assert may_write(finding, WritePolicy(unsafe_fixes=True))[0] is unsafe
    assert may_write(finding, WritePolicy(require_validated=True))[0] is required
    allowed, reason = may_write(finding, WritePolicy())
    assert allowed or ("--unsafe-fixes" in reason and verdict.value in reason)


def test_a_rewrite_that_changes_the_checkpoint_format_is_written_with_allow_new_keys_only():
    finding = _finding("BUF102", Verdict.CHANGES_CHECKPOINT)
    allowed, reason = may_write(finding, WritePolicy())
    assert not allowed and "changes the checkpoint format" in reason and "--allow-new-keys" in reason
    assert may_write(finding, WritePolicy(allow_new_keys=True)) == (True, "")
    assert may_write(finding, WritePolicy(allow_new_keys=True, require_validated=True)) == (True, "")
    assert not may_write(finding, WritePolicy(require_validated=True))[0]
    assert may_write(finding, WritePolicy(unsafe_fixes=True))[0]  # --unsafe-fixes writes everything


# -- through the runner and the command line -------------------------------------------------

POLICY = """
import torch
import torch.nn as nn


class Good(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)
        self.weights = torch.linspace(0, 1, 5)

    def forward(self, x):
        return self.lin(x) * self.weights


class Raises(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        raise ValueError("this model refuses to be built")


# Built from another module: no argument can be made up for them, so they stay not validated.
class NeedsDim(nn.Module):
    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.offset = torch.arange(encoder.dim).long()


class NeedsDimFloat(nn.Module):
    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.ramp = torch.linspace(0, 1, encoder.dim)


class NeedsDimTrained(nn.Module):
    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.scale = torch.ones(encoder.dim, requires_grad=True)

    def forward(self, x):
        return x * self.scale
"""

POLICY_EXAMPLES = """
import torch
from codemod.examples import example

example("pkg.policy.Good", inputs=lambda: (torch.randn(3, 5),))
"""


def _policy_repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "scratch"\nversion = "0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "policy.py").write_text(textwrap.dedent(POLICY).lstrip("\n"))
    (root / "codemod_examples.py").write_text(textwrap.dedent(POLICY_EXAMPLES))
    return root


def _class_text(text: str, cls: str) -> str:
    return text.split(f"class {cls}(")[1].split("\nclass ")[0]


@pytest.fixture(scope="module")
def policy_runs(tmp_path_factory):
    from codemod.runner import RunOptions, run

    runs = {}
    for name, unsafe in (("default", False), ("unsafe", True)):
        root = _policy_repo(tmp_path_factory.mktemp(name))
        report = run([root], RunOptions(write=True, jobs=1, timeout=60, use_cache=False, root=root, unsafe_fixes=unsafe))
        runs[name] = (root, report, (root / "pkg" / "policy.py").read_text())
    return runs


def test_default_policy_writes_passed_and_statically_safe_rewrites_only(policy_runs):
    _, report, text = policy_runs["default"]
    verdicts = {f.class_name: f.validation.verdict_for(f.attribute) for f in report.findings if f.validation}
    assert verdicts == {"Good": Verdict.PASSED, "Raises": Verdict.ERROR, "NeedsDim": Verdict.NOT_VALIDATED,
                        "NeedsDimFloat": Verdict.NOT_VALIDATED, "NeedsDimTrained": Verdict.NOT_VALIDATED}
    codes = {f.class_name: f.code for f in report.findings}
    assert codes["NeedsDim"] == "BUF101" and codes["NeedsDimTrained"] == "BUF103"
    assert 'register_buffer("weights"' in _class_text(text, "Good")
    # not validated, statically safe (an integer buffer, no key): written; a float one is held back
    assert '"offset", torch.arange(encoder.dim).long(), persistent=False' in _class_text(text, "NeedsDim")
    assert "self.ramp = torch.linspace(0, 1, encoder.dim)" in _class_text(text, "NeedsDimFloat")
    assert "self.table = torch.zeros(3)" in _class_text(text, "Raises")  # error: held back
    assert "self.scale = torch.ones(encoder.dim, requires_grad=True)" in _class_text(text, "NeedsDimTrained")
    held = {f.class_name: f.held_back for f in report.findings if f.held_back}
    assert set(held) == {"Raises", "NeedsDimFloat", "NeedsDimTrained"}
    assert "error" in held["Raises"] and "--unsafe-fixes" in held["Raises"]
    assert "not statically safe" in held["NeedsDimTrained"] and "not statically safe" in held["NeedsDimFloat"]
    assert report.summary.rewrites_proven == 1 and report.summary.rewrites_validated == 5
    assert "; 1 of 5 rewrites proven by running;" in report.summary.line()


def test_unsafe_fixes_writes_the_rest(policy_runs):
    _, report, text = policy_runs["unsafe"]
    assert 'register_buffer("table"' in _class_text(text, "Raises")
    assert "self.scale = nn.Parameter(torch.ones(encoder.dim))" in _class_text(text, "NeedsDimTrained")
    assert 'register_buffer("weights"' in _class_text(text, "Good")
    assert not any(f.held_back for f in report.findings)
    compile(text, "policy.py", "exec")


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemod", *args], cwd=str(cwd), capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory):
    root = _policy_repo(tmp_path_factory.mktemp("cli"))
    shutil.rmtree(root / ".codemod", ignore_errors=True)
    as_json = _cli(["run", "--dry-run", "--format", "json", "-j", "1", "--no-cache", "--report", "pr.md", "."], root)
    as_text = _cli(["run", "--check", "-j", "1", "--no-cache", "."], root)
    return root, as_json, as_text


def test_json_has_a_verdict_and_checks_per_rewrite(cli_runs):
    _, completed, _ = cli_runs
    assert completed.returncode == 0, completed.stderr[-3000:]
    document = json.loads(completed.stdout)
    rewrites = {f["class"]: f for f in document["findings"] if f["action"] != "skip"}
    good = rewrites["Good"]
    # a dry run writes nothing: it says what it would write
    assert not any("written" in f for f in document["findings"])
    assert good["verdict"] == "passed" and good["would_be_written"] is True and good["held_back"] is None
    assert {"attributes", "round_trip", "casts", "training", "meta_init", "coverage"} <= set(good["checks"])
    assert rewrites["Raises"]["verdict"] == "error" and rewrites["Raises"]["would_be_written"] is False
    assert rewrites["NeedsDim"]["would_be_written"] is True
    assert rewrites["NeedsDimTrained"]["would_be_written"] is False and rewrites["NeedsDimFloat"]["would_be_written"] is False
    assert document["summary"]["held_back"] == 3
    assert rewrites["NeedsDim"]["statically_safe"] is True and rewrites["NeedsDimFloat"]["statically_safe"] is False
    assert (document["summary"]["rewrites_proven"], document["summary"]["rewrites_validated"]) == (1, 5)


def test_report_file_is_a_markdown_summary(cli_runs):
    root, _, _ = cli_runs
    report = (root / "pr.md").read_text()
    assert report.startswith("# ")
    assert "**1 of 5 rewrites proven by running.**" in report
    assert "| `pkg/policy.py:" in report and "`Good.weights`" in report
    assert "## Failures" in report and "this model refuses to be built" in report
    assert "## Not validated" in report and "NeedsDimTrained.scale" in report
    assert "example('pkg.policy.NeedsDim', encoder=..." in report
    # the run was a dry run: the report says what would be written, never "written"
    assert "| Would be written |" in report and "| Written |" not in report
    assert " would change, " in report.splitlines()[2] and " changed, " not in report.splitlines()[2]


def test_text_output_is_one_line_per_passing_class(cli_runs):
    _, _, completed = cli_runs
    assert completed.returncode == 1, completed.stderr[-3000:]  # --check: rewrites pending
    lines = completed.stdout.splitlines()
    (index,) = [i for i, line in enumerate(lines) if line.startswith("pkg/policy.py: Good: validation passed")]
    assert not lines[index + 1].startswith("    "), lines[index : index + 3]
    (raises,) = [i for i, line in enumerate(lines) if line.startswith("pkg/policy.py: Raises: validation error")]
    assert lines[raises + 1].startswith("    table not written: error"), lines[raises : raises + 3]
    finding_lines = [line for line in lines if "NeedsDimTrained.scale ->" in line]
    assert finding_lines and finding_lines[0].endswith("[not validated, not written]"), finding_lines


def test_plain_reads_sees_which_raw_attributes_a_forward_reads_and_puts_them_back():
    import torch

    from codemod.validate.checks import PlainReads

    class Gate(torch.nn.Module):
        scale = 2.0  # a class attribute: never moved out of the way

        def __init__(self, universal=False):
            super().__init__()
            self.universal = universal
            self.signal = torch.ones(3)
            self.table = torch.zeros(3)

        def forward(self, x):
            if self.universal:
                x = x + self.signal
            self.table = x * self.scale  # bound again by forward: kept
            return x

    for universal, expected in ((False, set()), (True, {"signal"})):
        model, seen = Gate(universal), set()
        with PlainReads(model, ["signal", "table"], seen):
            out = model(torch.zeros(3))
        assert seen == expected
        assert torch.equal(model.signal, torch.ones(3)) and "signal" in model.__dict__  # put back
        assert torch.equal(model.table, out * 2.0)
