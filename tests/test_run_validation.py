"""Validation end to end through `codemod.runner.run` and the `codemod` command line.

Small repositories are written into temporary directories; every run below
validates with real worker subprocesses (CPU values, meta-device evidence).
Module-scoped fixtures share one run between the tests that read it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from codemod.ftypes import Action, Verdict
from codemod.runner import RunOptions, run

PYPROJECT = '[project]\nname = "scratch"\nversion = "0"\n'

CONFIG = """
from dataclasses import dataclass


@dataclass
class ModelConfig:
    type_num: int = 4
    hidden_size: int = 8
    max_len: int = 16
    dropout: float = 0.1
"""

MODELS = """
import math

import torch
import torch.nn as nn


class TypeCls(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.type_emb = nn.Embedding(config.type_num, config.hidden_size)
        self.type_indices = torch.arange(0, config.type_num, 1).long()
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, text_rep, mask):
        type_emb = self.type_emb(self.type_indices)
        scores = torch.einsum("bth,ch->btc", self.dropout(text_rep), type_emb)
        return torch.sigmoid((scores * mask.unsqueeze(-1)).sum(1))


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(config.hidden_size, config.hidden_size)
        pe = torch.zeros(config.max_len, config.hidden_size)
        position = torch.arange(config.max_len).unsqueeze(1).float()
        div = torch.exp(torch.arange(0, config.hidden_size, 2).float() * (-math.log(10000.0) / config.hidden_size))
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        self.pe = pe
        self.scale = torch.ones(config.hidden_size, requires_grad=True)

    def forward(self, x):
        return (self.proj(x) + self.pe[: x.size(1)]) * self.scale
"""

EXAMPLES = """
import torch

from codemod.examples import example
from pkg.config import ModelConfig

example("pkg.models.TypeCls", ModelConfig(), inputs=lambda: (torch.randn(2, 5, 8), torch.ones(2, 5)))
example("pkg.models.Encoder", ModelConfig(), inputs=lambda: (torch.randn(2, 5, 8),))
"""

PAIR = """
import torch
import torch.nn as nn


class Good(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)
        self.weights = torch.linspace(0, 1, 5)

    def forward(self, x):
        return self.lin(x) * self.weights


class Bad(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)
        self.idx = torch.arange(5)

    def forward(self, x):
        return self.lin(x)[:, self.idx]
"""

PAIR_EXAMPLES = """
example("pkg.pair.Good", inputs=lambda: (torch.randn(3, 5),))
example("pkg.pair.Bad", inputs=lambda: (torch.randn(3, 5),))
"""

NEEDY = """
import torch
import torch.nn as nn


class Needy(nn.Module):
    def __init__(self, dim, encoder: nn.Module, scale=2.0):  # no module can be made up for encoder
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.offset = torch.arange(dim).long()  # an integer buffer: statically safe

    def forward(self, x):
        return self.lin(x) + self.offset
"""

MISBEHAVING = """
import sys
import time

import torch
import torch.nn as nn


class Raises(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        raise ValueError("this model refuses to be built")


class Exits(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        sys.exit(3)


class Fine(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
"""

HANGS = """

class Hangs(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.zeros(3)
        time.sleep(600)
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def model_repo(root: Path) -> Path:
    """Classes that need a config object, with an examples file that supplies it."""
    return write(
        root,
        {
            "pyproject.toml": PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/config.py": CONFIG,
            "pkg/models.py": MODELS,
            "codemod_examples.py": EXAMPLES,
        },
    )


def mixed_repo(root: Path, hang: bool) -> Path:
    """model_repo plus a two-class file, a class nobody can build, and misbehaving constructors."""
    model_repo(root)
    return write(
        root,
        {
            "pkg/pair.py": PAIR,
            "pkg/needy.py": NEEDY,
            "pkg/misbehaving.py": MISBEHAVING + (HANGS if hang else ""),
            "codemod_examples.py": EXAMPLES + PAIR_EXAMPLES,
        },
    )


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text("utf-8") for p in sorted(root.rglob("*.py"))}


def by_class(report) -> dict[str, list]:
    found: dict[str, list] = {}
    for finding in report.findings:
        if finding.action is not Action.SKIP or finding.validation is not None:
            found.setdefault(finding.class_name, []).append(finding)
    return found


def verdict_of(report, cls: str):
    findings = [f for f in report.findings if f.class_name == cls and f.validation is not None]
    assert findings, f"{cls}: no validated finding in {[(f.class_name, f.attribute) for f in report.findings]}"
    validations = {id(f.validation): f.validation for f in findings}
    assert len(validations) == 1, f"{cls}: the findings of one class carry different validations"
    return findings[0].validation


def only_finding(root: Path):
    """Validate the repository at ``root`` with no setup (one job, no cache) and return its one finding."""
    report = run([root], RunOptions(write=False, validate=True, jobs=1, timeout=60, use_cache=False, root=root))
    (finding,) = report.findings
    return finding


def validations_of(tmp_path: Path, files: dict[str, str]) -> dict[str, object]:
    """Write ``files`` into a fresh repository, validate it with no setup (one job, no cache) and
    return each finding's validation by attribute."""
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    report = run([root], RunOptions(write=False, validate=True, jobs=1, timeout=60, use_cache=False, root=root))
    return {f.attribute: f.validation for f in report.findings}


def describe(validation) -> str:
    return f"{validation.verdict.value} on {validation.device}: {validation.message}\n" + "\n".join(
        f"  {d}" for d in validation.details
    )


def codemod_cli(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codemod", *args], cwd=str(cwd), capture_output=True, text=True, timeout=timeout
    )


# -- (a) the command line, writing, JSON output -------------------------------------------------


@pytest.fixture(scope="module")
def cli_json_run(tmp_path_factory):
    root = model_repo(tmp_path_factory.mktemp("cli_json"))
    before = snapshot(root)
    # Encoder.scale becomes an nn.Parameter, a new state_dict key: accepted here.  The meta path
    # gives the same evidence on every machine (auto picks the GPU where there is one).
    completed = codemod_cli(["run", "--format", "json", "--jobs", "1", "--no-cache", "--allow-new-keys", "--device", "meta", "."], root)
    return root, before, completed


def test_cli_run_writes_the_validated_rewrites(cli_json_run):
    root, before, completed = cli_json_run
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    after = snapshot(root)
    assert after["pkg/config.py"] == before["pkg/config.py"]
    assert after["codemod_examples.py"] == before["codemod_examples.py"]
    models = after["pkg/models.py"]
    assert models != before["pkg/models.py"]
    assert (
        'self.register_buffer(\n            "type_indices", torch.arange(0, config.type_num, 1).long(), persistent=False\n        )'
        in models
    )
    assert 'self.register_buffer("pe", pe, persistent=False)' in models
    assert "self.scale = nn.Parameter(torch.ones(config.hidden_size))" in models
    compile(models, "models.py", "exec")


def test_cli_json_has_a_validation_object_per_rewritten_finding(cli_json_run):
    _, _, completed = cli_json_run
    document = json.loads(completed.stdout)
    rewritten = [f for f in document["findings"] if f["action"] != "skip"]
    assert {(f["class"], f["attribute"], f["action"]) for f in rewritten} == {
        ("TypeCls", "type_indices", "buffer"),
        ("Encoder", "pe", "buffer"),
        ("Encoder", "scale", "parameter"),
    }
    for finding in rewritten:
        validation = finding["validation"]
        # Encoder.scale, a new parameter, adds a state_dict key: written here with --allow-new-keys
        expected = "changes the checkpoint format" if finding["class"] == "Encoder" else "passed"
        assert validation["verdict"] == expected, validation
        assert finding["verdict"] == ("changes the checkpoint format" if finding["attribute"] == "scale" else "passed")
        assert finding["written"] is True and finding["forward"] == "compared"
        assert validation["forward_compared"] is True and validation["builds"]
        assert validation["device"] == "cpu+meta"
        assert "forward:cpu" in validation["compared"] and "forward:meta" in validation["compared"]
        assert validation["max_abs_diff"] == 0.0
        # the original fails on meta (the bug being fixed); the rewritten one runs there
        assert validation["original_failure"] and "meta" in validation["original_failure"]
    # per class, not per attribute
    assert document["summary"]["verdicts"] == {"passed": 1, "changes the checkpoint format": 1}
    # per rewrite, each its own verdict: the two buffers passed, the parameter adds a key
    assert document["summary"]["rewrite_verdicts"] == {"passed": 2, "changes the checkpoint format": 1}
    assert sum(document["summary"]["rewrite_verdicts"].values()) == document["summary"]["rewrites_validated"]
    assert document["summary"]["rewrites_forward_compared"] == 2
    assert document["summary"]["files_changed"] == 1
    assert (document["summary"]["buffers"], document["summary"]["parameters"]) == (2, 1)
    assert document["errors"] == []


# -- (b) (d) one run over a repository with every kind of outcome -------------------------------


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    """write=True, no require_validated; the rewriter is made to corrupt pkg.pair.Bad."""
    import codemod.rewrite

    root = mixed_repo(tmp_path_factory.mktemp("mixed"), hang=True)
    before = snapshot(root)
    original_apply = codemod.rewrite.apply_plan
    corrupted: list[str] = []

    def corrupting_apply(source, plan, only_classes=None, style=None):
        text = original_apply(source, plan, only_classes, style)
        bad = text.replace('register_buffer("idx", torch.arange(5)', 'register_buffer("idx", torch.arange(6)')
        if bad != text:
            corrupted.append(str(only_classes))
        return bad

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codemod.rewrite, "apply_plan", corrupting_apply)
        # 20 s per class: long enough for the other classes on a loaded 2-core machine; Hangs still times out.
        report = run([root], RunOptions(write=True, validate=True, jobs=2, timeout=20, use_cache=False, root=root, device="meta"))
    assert corrupted, "the corrupting rewriter was never used"
    return root, before, report


def test_mixed_run_verdicts(mixed_run):
    _, _, report = mixed_run
    verdicts = {cls: verdict_of(report, cls).verdict for cls in by_class(report)}
    assert verdicts == {
        "TypeCls": Verdict.PASSED,
        # scale becomes an nn.Parameter: released checkpoints lack the key, nothing else differs
        "Encoder": Verdict.CHANGES_CHECKPOINT,
        "Good": Verdict.PASSED,
        "Bad": Verdict.FAILED,
        "Needy": Verdict.NOT_VALIDATED,
        "Raises": Verdict.ERROR,
        "Exits": Verdict.ERROR,
        "Hangs": Verdict.TIMEOUT,
        "Fine": Verdict.PASSED,
    }, {cls: describe(verdict_of(report, cls)) for cls in verdicts}


def test_summary_line_counts_verdicts_per_class(mixed_run):
    _, _, report = mixed_run
    assert report.summary.verdicts == {"passed": 3, "changes the checkpoint format": 1, "failed": 1,
                                       "not validated": 1, "error": 2, "timeout": 1}
    assert report.summary.line().endswith(
        "; 4 of 10 rewrites proven by running; validation of 9 classes: 1 changes the checkpoint format, 2 error, 1 failed, "
        "1 not validated, 3 passed, 1 timeout"
    ), report.summary.line()


def test_a_new_parameter_key_changes_the_checkpoint_format_and_is_held_back_without_allow_new_keys(mixed_run):
    root, _, report = mixed_run
    encoder = verdict_of(report, "Encoder")
    assert encoder.verdict is Verdict.CHANGES_CHECKPOINT
    assert encoder.verdict_for("pe") is Verdict.PASSED
    assert encoder.verdict_for("scale") is Verdict.CHANGES_CHECKPOINT
    assert "strict=False" in encoder.message_for("scale") and "missing_keys=[scale]" in encoder.message_for("scale")
    held = {f.attribute: f.held_back for f in report.findings if f.class_name == "Encoder"}
    assert "--allow-new-keys" in held["scale"] and "held back with scale" in held["pe"], held
    models = (root / "pkg" / "models.py").read_text("utf-8")
    assert "self.scale = torch.ones(config.hidden_size, requires_grad=True)" in models
    assert "        self.pe = pe\n" in models  # held back with scale: a class is written whole


def test_wrong_rewrite_fails_and_is_not_written(mixed_run):
    root, before, report = mixed_run
    bad = verdict_of(report, "Bad")
    assert bad.verdict is Verdict.FAILED
    assert "idx" in bad.message and "different" in bad.message, bad.message
    text = (root / "pkg" / "pair.py").read_text("utf-8")
    # the bad class keeps its original text ...
    assert "        self.idx = torch.arange(5)\n" in text
    assert 'register_buffer("idx"' not in text and "arange(6)" not in text
    # ... while the other class of the same file is rewritten
    assert 'self.register_buffer("weights", torch.linspace(0, 1, 5), persistent=False)' in text
    assert "self.weights = torch.linspace" not in text
    compile(text, "pair.py", "exec")
    good = verdict_of(report, "Good")
    assert good.verdict is Verdict.PASSED and good.device == "cpu+meta", describe(good)
    assert "forward:cpu" in good.compared
    # the bad class's finding is counted as held back (not written) and its line shows the verdict
    from codemod.report import finding_line

    static_skips = sum(1 for f in report.findings if f.action is Action.SKIP)
    assert report.summary.skipped == static_skips
    # held back: Bad, Encoder (2 rewrites), and the error and timeout classes Raises, Exits, Hangs
    assert report.summary.held_back == 6
    assert report.summary.held_back_hint == "--unsafe-fixes writes them"
    (line,) = [finding_line(f) for f in report.findings if f.class_name == "Bad"]
    assert line.endswith("[failed, not written]"), line
    assert text != before["pkg/pair.py"]


def test_passed_classes_are_written_with_the_verdict_and_device(mixed_run):
    root, _, report = mixed_run
    for cls in ("TypeCls", "Good", "Fine"):
        validation = verdict_of(report, cls)
        assert validation.verdict is Verdict.PASSED, describe(validation)
        assert validation.device == "cpu+meta"
        assert "device_movement" in validation.compared
    models = (root / "pkg" / "models.py").read_text("utf-8")
    assert 'register_buffer(\n            "type_indices", ' in models


def test_constructor_failures_cost_only_their_class(mixed_run):
    root, _, report = mixed_run
    raises, exits, hangs = (verdict_of(report, c) for c in ("Raises", "Exits", "Hangs"))
    assert raises.verdict is Verdict.ERROR and "refuses to be built" in raises.message, describe(raises)
    assert exits.verdict is Verdict.ERROR and "SystemExit (sys.exit(3))" in exits.message, describe(exits)
    assert hangs.verdict is Verdict.TIMEOUT, describe(hangs)
    assert "within 20 s" in hangs.message and "build" in hangs.message, hangs.message
    fine = verdict_of(report, "Fine")
    assert fine.verdict is Verdict.PASSED, describe(fine)
    # errors and timeouts are held back by default (--unsafe-fixes writes them): only Fine is written
    text = (root / "pkg" / "misbehaving.py").read_text("utf-8")
    assert text.count('self.register_buffer("table", torch.zeros(3), persistent=False)') == 1
    assert 'self.register_buffer("table"' in text.split("class Fine")[1]
    held = {f.class_name: f.held_back for f in report.findings if f.held_back}
    assert {"Raises", "Exits", "Hangs"} <= set(held) and "--unsafe-fixes" in held["Hangs"], held
    assert not report.has_errors
    # the hanging constructor's worker is gone once the run has returned
    assert _processes_in(root) == []


def _processes_in(directory: Path) -> list[str]:
    """Ids of live processes whose working directory is ``directory`` (Linux /proc; [] elsewhere)."""
    proc = Path("/proc")
    found = []
    if not proc.is_dir():
        return found
    target = str(directory.resolve())
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                if str((entry / "cwd").resolve()) == target:
                    found.append(entry.name)
            except OSError:
                continue
    return found


def test_unbuildable_class_with_a_statically_safe_rewrite_is_written_without_require_validated(mixed_run):
    root, before, report = mixed_run
    needy = verdict_of(report, "Needy")
    assert needy.verdict is Verdict.NOT_VALIDATED
    assert (root / "pkg" / "needy.py").read_text("utf-8") != before["pkg/needy.py"]


# -- (c) require_validated ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def strict_run(tmp_path_factory):
    root = mixed_repo(tmp_path_factory.mktemp("strict"), hang=False)
    before = snapshot(root)
    report = run(
        [root],
        RunOptions(write=True, validate=True, require_validated=True, jobs=2, timeout=30, use_cache=False, root=root,
                   allow_new_keys=True),
    )
    return root, before, report


def test_require_validated_writes_only_passed_classes(strict_run):
    root, before, report = strict_run
    after = snapshot(root)
    verdicts = {cls: verdict_of(report, cls).verdict for cls in by_class(report)}
    assert verdicts == {
        "TypeCls": Verdict.PASSED,
        "Encoder": Verdict.CHANGES_CHECKPOINT,  # written: --allow-new-keys
        "Good": Verdict.PASSED,
        "Bad": Verdict.PASSED,
        "Needy": Verdict.NOT_VALIDATED,
        "Raises": Verdict.ERROR,
        "Exits": Verdict.ERROR,
        "Fine": Verdict.PASSED,
    }
    assert after["pkg/needy.py"] == before["pkg/needy.py"]
    misbehaving = after["pkg/misbehaving.py"]
    # only Fine, the one class that passed, is rewritten in that file
    assert misbehaving.count('register_buffer("table"') == 1
    fine_body = misbehaving.split("class Fine")[1]
    assert 'self.register_buffer("table", torch.zeros(3), persistent=False)' in fine_body
    assert misbehaving.split("class Fine")[0].count("self.table = torch.zeros(3)") == 2
    assert after["pkg/models.py"] != before["pkg/models.py"]
    pair = after["pkg/pair.py"]
    assert 'register_buffer("weights"' in pair and 'register_buffer("idx", torch.arange(5), persistent=False)' in pair
    assert report.summary.files_changed == 3


def test_require_validated_reports_a_snippet_for_the_unbuildable_class(strict_run):
    _, _, report = strict_run
    needy = verdict_of(report, "Needy")
    assert needy.verdict is Verdict.NOT_VALIDATED
    assert "needs constructor arguments (dim, encoder)" in needy.message, needy.message
    assert needy.snippet == "example('pkg.needy.Needy', dim=..., encoder=..., inputs=lambda: {'x': ...})"
    from codemod.report import finding_line

    lines = [finding_line(f) for f in report.findings if f.class_name == "Needy"]
    assert lines and all(line.endswith("[not validated, not written]") for line in lines), lines


# -- (e) `codemod record`, then a run that validates from the records ---------------------------

RECORD_CONFIG = """
from dataclasses import dataclass


@dataclass
class TaggerConfig:
    vocab: int
    dim: int
    max_len: int = 16
"""

RECORD_MODEL = """
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.emb = nn.Embedding(config.vocab, config.dim)
        self.positions = torch.arange(config.max_len)
        self.pos = nn.Embedding(config.max_len, config.dim)
        self.out = nn.Linear(config.dim, 3)

    def forward(self, tokens):
        h = self.emb(tokens) + self.pos(self.positions[: tokens.size(1)])
        return self.out(h)
"""

RECORD_TEST = """
import torch

from pkg.config import TaggerConfig
from pkg.model import Tagger


def test_tagger_shapes():
    model = Tagger(TaggerConfig(vocab=20, dim=8))
    assert model(torch.randint(0, 20, (2, 5))).shape == (2, 5, 3)
"""


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    root = write(
        tmp_path_factory.mktemp("recorded"),
        {
            "pyproject.toml": PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/config.py": RECORD_CONFIG,
            "pkg/model.py": RECORD_MODEL,
            "tests/test_model.py": RECORD_TEST,
        },
    )
    recorded = codemod_cli(
        ["record", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], root
    )
    before = snapshot(root)
    dry = codemod_cli(["run", "--dry-run", "--format", "json", "--jobs", "1", "--device", "meta", "."], root)
    return root, recorded, before, dry


@pytest.mark.slow
def test_record_command_records_the_test_suites_models(recorded_run):
    root, recorded, _, _ = recorded_run
    assert recorded.returncode == 0, recorded.stdout[-3000:] + recorded.stderr[-3000:]
    assert "1 passed" in recorded.stdout
    assert "recorded pkg.model.Tagger (constructor + forward inputs)" in recorded.stderr, recorded.stderr
    from codemod.validate.record import default_records_dir

    assert (default_records_dir(root) / "index.json").is_file()  # in the user cache directory
    assert not (root / ".codemod").exists()


@pytest.mark.slow
def test_dry_run_validates_forward_from_the_records(recorded_run):
    root, _, before, dry = recorded_run
    assert dry.returncode == 0, dry.stdout[-3000:] + dry.stderr[-3000:]
    assert not (root / "codemod_examples.py").exists()
    document = json.loads(dry.stdout)
    findings = [f for f in document["findings"] if f["action"] != "skip"]
    assert [(f["class"], f["attribute"]) for f in findings] == [("Tagger", "positions")]
    validation = findings[0]["validation"]
    assert validation["verdict"] == "passed", validation
    assert validation["device"] == "cpu+meta"
    assert any(c.startswith("forward") for c in validation["compared"])
    assert "forward:cpu" in validation["compared"] and "forward:meta" in validation["compared"]
    assert validation["max_abs_diff"] == 0.0
    assert any("built from the record" in d for d in validation["details"]), validation["details"]
    assert validation["left_behind"] == ["positions (cpu)"]
    assert "positions" in validation["original_failure"]
    # a dry run writes nothing and shows the diff
    assert snapshot(root) == before
    assert len(document["diffs"]) == 1 and '"positions", ' in document["diffs"][0]["diff"]


@pytest.mark.cuda
def test_run_validates_on_the_gpu(tmp_path):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    root = model_repo(tmp_path)
    report = run([root], RunOptions(write=False, validate=True, jobs=1, use_cache=False, root=root))
    for cls, attr in (("TypeCls", "type_indices"), ("Encoder", "pe")):
        validation = verdict_of(report, cls)
        # Encoder.scale becomes a parameter, a new key: its own verdict, not the buffer's
        assert validation.verdict_for(attr) is Verdict.PASSED, describe(validation)
        assert validation.device.startswith("cuda")
        assert any(c.startswith("forward:cuda") for c in validation.compared)
        assert validation.original_failure


ON_GPU = """
import torch
import torch.nn as nn


class Regression(nn.Module):
    \"\"\"Moves its table to the GPU in the constructor (PSMNet's disparity regression).\"\"\"

    def __init__(self, maxdisp=4):
        super().__init__()
        self.disp = torch.arange(maxdisp).float().view(1, maxdisp).cuda()

    def forward(self, x):
        return (x * self.disp).sum(1)


class Recurrent(nn.Module):
    \"\"\"Keeps a hidden state that every forward updates: a second call gives other outputs.\"\"\"

    def __init__(self, size=4):
        super().__init__()
        self.cell = nn.GRUCell(size, size)
        self.hidden = torch.zeros(2, size)

    def forward(self, x):
        self.hidden = self.cell(x, self.hidden)
        return self.hidden


class Jittered(nn.Module):
    \"\"\"Draws noise in its forward: on the GPU from another random stream than the CPU's.\"\"\"

    def __init__(self):
        super().__init__()
        self.low = torch.tensor([0.5])

    def forward(self, x):
        return (x + torch.randn_like(x)) * self.low
"""


@pytest.mark.cuda
def test_constructor_cuda_calls_and_a_state_updating_forward_pass_on_the_gpu(tmp_path):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "nets.py").write_text(ON_GPU)
    report = run([root], RunOptions(write=False, validate=True, jobs=1, timeout=120, use_cache=False, root=root,
                                    unsafe_fixes=True))
    for cls in ("Regression", "Recurrent", "Jittered"):
        validation = verdict_of(report, cls)
        # the CPU stages keep .cuda() on the CPU on both sides (the same on every machine); the
        # GPU stage builds afresh with it real, and compares with a first forward
        assert validation.verdict is Verdict.PASSED, describe(validation)
        assert validation.forward_compared and f"forward:{validation.device}" in validation.compared, describe(validation)
    # the original fails on the GPU: the rewritten's random draws there meet the CPU's reference
    # by shape and dtype, not by value
    assert any("compared by shape and dtype only" in d for d in verdict_of(report, "Jittered").details)


LOSS = """
import torch
import torch.nn as nn


class EdgeLoss(nn.Module):
    def __init__(self):
        super().__init__()
        k = torch.tensor([[0.25, 0.5, 0.25]])
        self.kernel = torch.matmul(k.t(), k).unsqueeze(0).unsqueeze(0) * SCALE

    def forward(self, x, y):
        return ((x - y) * self.kernel.sum()).abs().mean()
"""


def test_files_with_the_same_module_name_in_different_import_roots_are_each_validated(tmp_path):
    # `Deblurring/losses.py` and `Denoising/losses.py`, script folders without __init__.py:
    # both are the module `losses`, each imported from its own folder.
    root = tmp_path / "repo"
    for folder, scale in (("Deblurring", "1.0"), ("Denoising", "2.0")):
        (root / folder).mkdir(parents=True)
        (root / folder / "losses.py").write_text(f"SCALE = {scale}\n" + LOSS)
    report = run([root], RunOptions(write=False, validate=True, jobs=1, timeout=60, use_cache=False, root=root))
    verdicts = {Path(f.path).parent.name: f.validation for f in report.findings}
    assert set(verdicts) == {"Deblurring", "Denoising"}
    for folder, validation in verdicts.items():
        assert validation.verdict is Verdict.PASSED, (folder, validation)
        assert validation.forward_compared and validation.branches == [1, 1], (folder, validation)


GRID = """
import torch
import torch.nn as nn


class Warp(nn.Module):
    def __init__(self):
        super().__init__()
        self.grid = torch.linspace(-1, 1, 4).cuda().float()
        self.scale = torch.cuda.FloatTensor([2.0])
        self.offset = torch.zeros(4, device="cuda")
        self.proj = nn.Linear(4, 4).cuda()

    def forward(self, x):
        return self.proj(x + self.grid + self.offset) * self.scale
"""


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="the CPU stand-in for .cuda() is used only without a GPU")
def test_constructor_cuda_calls_run_on_the_cpu_without_a_gpu_and_the_verdict_says_so(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "warp.py").write_text(GRID)
    report = run([root], RunOptions(write=False, validate=True, jobs=1, timeout=60, use_cache=False, root=root))
    (validation,) = {f.validation.verdict: f.validation for f in report.findings}.values()
    assert validation.verdict is Verdict.PASSED and validation.forward_compared, validation
    assert any("ran on the CPU, the same on both sides" in d for d in validation.details), validation.details


WHITENER = """
import torch
import torch.nn as nn


class Whitener(nn.Module):
    \"\"\"Builds its covariance on the first call; a cast after that casts the buffer the
    rewrite makes of it, and torch.linalg.inv has no half kernel on the CPU.\"\"\"

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)
        self.cov = None

    def forward(self, x):
        if self.cov is None:
            self.cov = torch.eye(x.shape[-1]) * 2.0
        return self.proj(x).float() @ torch.linalg.inv(self.cov)
"""


def test_lazy_slot_is_compared_after_the_first_forward_and_a_cast_after_it_fails_the_rewrite(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "whiten.py").write_text(WHITENER)
    (root / "codemod_examples.py").write_text(
        "import torch\n\nfrom codemod.examples import example\n\n"
        "example('whiten.Whitener', inputs=lambda: (torch.randn(2, 3),))\n"
    )
    report = run([root], RunOptions(write=False, validate=True, unsafe_fixes=True, jobs=1, timeout=60,
                                    use_cache=False, root=root))
    (finding,) = report.findings
    assert finding.code == "BUF107"
    validation = finding.validation
    assert "attributes: cov holds None after construction; compared as the first forward left it" in validation.details
    # model.half() on a fresh model is harmless (the slot is still empty); after a first
    # forward it casts the filled buffer, and the rewritten forward raises where the original runs
    assert validation.verdict is Verdict.FAILED, validation
    assert any("after a first forward, after model.half() the rewritten forward raises" in f
               for f in validation.failures), validation.failures


ODD_STATE = """
import torch
import torch.nn as nn


class Odd(nn.Module):
    \"\"\"Saves a key its own load_state_dict does not accept (as custom spectral-norm wrappers do).\"\"\"

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.mask = torch.ones(2)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "extra"] = torch.zeros(1)

    def forward(self, x):
        return self.lin(x) * self.mask
"""


def test_a_state_dict_the_original_cannot_load_itself_does_not_fail_the_rewrite(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "odd.py").write_text(ODD_STATE)
    finding = only_finding(root)
    validation = finding.validation
    assert validation.verdict is Verdict.PASSED, validation
    assert any(d.startswith("checkpoint: not compared: the original's state_dict does not load into the original either")
               for d in validation.details), validation.details
    assert "checkpoint" not in validation.compared


VERSIONED = """
import torch
import torch.nn as nn


class Versioned(nn.Module):
    \"\"\"Its load hook reads the module version a saved state_dict carries in _metadata.\"\"\"

    _version = 2

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.mask = torch.ones(2)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
        if local_metadata.get("version") != 2:
            raise KeyError(prefix + "lin.weight")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    def forward(self, x):
        return self.lin(x) * self.mask
"""


def test_the_checkpoint_check_keeps_the_metadata_a_saved_state_dict_carries(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "versioned.py").write_text(VERSIONED)
    finding = only_finding(root)
    validation = finding.validation
    assert validation.verdict is Verdict.PASSED, validation
    assert "checkpoint: a state_dict saved from the original loads with strict=True" in validation.details
    assert "checkpoint" in validation.compared


@pytest.mark.parametrize("folder", ["models", "MetaQA-KB"])
def test_a_module_with_relative_imports_in_a_folder_without_init_is_imported_as_its_path_spells(tmp_path, folder):
    # `models/` holds no __init__.py, and `models/losses.py` imports `from .scale import SCALE`:
    # only `models.losses` (a namespace package) imports, `losses` raises ImportError.  A folder
    # named like no identifier is one too (`python -m MetaQA-KB.train`).
    root = tmp_path / "repo"
    (root / folder).mkdir(parents=True)
    (root / folder / "scale.py").write_text("SCALE = 1.0\n")
    (root / folder / "losses.py").write_text("from .scale import SCALE\n" + LOSS)
    (root / "train.py").write_text("import importlib\n\nloss = importlib.import_module('" + folder + ".losses').EdgeLoss()\n")
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.PASSED, finding.validation


def test_a_compiled_extension_not_built_is_not_validated_with_how_to_build_it(tmp_path):
    # `pkg/ops/voxel_module.py` imports `pkg.ops.voxel_op`, built from `voxelization/*.cu`
    root = tmp_path / "repo"
    (root / "pkg" / "ops" / "voxelization").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "ops" / "__init__.py").write_text("")
    (root / "pkg" / "ops" / "voxelization" / "voxel_cuda.cu").write_text("// kernel\n")
    (root / "pkg" / "ops" / "voxel_module.py").write_text("from pkg.ops.voxel_op import hard_voxelize\n" + LOSS.replace("SCALE", "1.0"))
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.NOT_VALIDATED, finding.validation
    assert "pkg.ops.voxel_op" in finding.validation.message and "extension to build" in finding.validation.message


def test_a_shared_library_the_repository_loads_and_never_built_is_not_validated_with_how_to_build_it(tmp_path):
    # `src/align.py` loads `src/libalign.so` with ctypes, built from `src/align.c`
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "align.c").write_text("int add(int a, int b) { return a + b; }\n")
    (root / "src" / "loss.py").write_text(
        'from ctypes import cdll\nlibalign = cdll.LoadLibrary("src/libalign.so")\n' + LOSS.replace("SCALE", "1.0"))
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.NOT_VALIDATED, finding.validation
    assert "src/libalign.so" in finding.validation.message and "is not built" in finding.validation.message


def test_a_package_that_another_folder_shadows_on_the_path_is_imported_from_the_class_own_folder(tmp_path):
    # `models/` at the root and a copy in `release/models/`, both packages: `models.networks`
    # answers from the root's package (which lacks the class) until the package itself is
    # imported again from the class's folder.
    root = tmp_path / "repo"
    (root / "models").mkdir(parents=True)
    (root / "release" / "models").mkdir(parents=True)
    (root / "models" / "__init__.py").write_text("")
    (root / "models" / "networks.py").write_text("VALUE = 1\n")
    (root / "release" / "models" / "__init__.py").write_text("")
    (root / "release" / "models" / "networks.py").write_text(LOSS.replace("SCALE", "1.0"))
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.PASSED, finding.validation


def test_a_root_folder_that_only_wraps_a_src_layout_project_does_not_hide_its_package(tmp_path):
    # `ids/src/ids/` (a project one level down, its package importing itself absolutely): the
    # root's `ids/` holds no Python of its own, so it is no namespace package to keep
    root = tmp_path / "repo"
    package = root / "ids" / "src" / "ids"
    (package / "model").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "model" / "__init__.py").write_text("")
    (package / "model" / "scale.py").write_text("SCALE = 1.0\n")
    (package / "model" / "losses.py").write_text("from ids.model.scale import SCALE\n" + LOSS)
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.PASSED, finding.validation


def test_a_module_whose_package_init_fails_after_it_ran_is_validated_alike_on_both_sides(tmp_path):
    # subnet/__init__.py imports losses (the class's module), then a module needing an unbuilt
    # extension: both classes of losses.py get the same verdict, the first one too
    root = tmp_path / "repo"
    package = root / "codec" / "subnet"
    package.mkdir(parents=True)
    (root / "codec" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from .losses import EdgeLoss, OtherLoss\nfrom .align import Align\n")
    (package / "align.py").write_text("try:\n    from .dcn import deform\nexcept ImportError:\n"
                                      "    raise ImportError('Failed to import DCN module.')\n")
    (package / "losses.py").write_text("SCALE = 1.0\n" + LOSS + LOSS.replace("EdgeLoss", "OtherLoss").split("import torch.nn as nn\n", 1)[1])
    report = run([root], RunOptions(write=False, validate=True, jobs=1, timeout=60, use_cache=False, root=root))
    assert sorted(f.class_name for f in report.findings) == ["EdgeLoss", "OtherLoss"]
    for finding in report.findings:
        assert finding.validation.verdict is Verdict.PASSED, finding.validation
        assert any("package's __init__ raised" in d and "Failed to import DCN module" in d for d in finding.validation.details)


def _models_package_with_a_failing_init(tmp_path, losses_head: str):
    """A repository whose `models/__init__.py` imports generated protobuf code (calling a
    missing `google` module at its top level) before `models/losses.py`, which begins with
    ``losses_head`` and holds EdgeLoss; its root. The module is one that no installation
    holds (`google.protobuf` itself is installed on some machines)."""
    root = tmp_path / "repo"
    package = root / "models"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .proto import *\nfrom .losses import EdgeLoss\n")
    (package / "proto.py").write_text("from google.protobuf_absent import symbol_database\n_db = symbol_database.Default()\n")
    (package / "losses.py").write_text(losses_head + LOSS)
    return root


def test_a_module_whose_package_init_raises_before_it_runs_is_imported_without_that_init(tmp_path):
    # models/__init__.py imports every model, and one of them calls a missing module at its top
    # level (generated protobuf code): the class's own module never ran.  It is imported with
    # the package standing empty over its folder, on both sides, and its forward is compared.
    finding = only_finding(_models_package_with_a_failing_init(tmp_path, "SCALE = 1.0\n"))
    assert finding.validation.verdict is Verdict.PASSED, finding.validation
    assert finding.validation.rewrites["kernel"]["forward"] == "compared", finding.validation
    assert any("without running the __init__ of package models" in d and "google" in d
               for d in finding.validation.details), finding.validation.details


def test_a_package_init_failure_the_module_itself_shares_is_not_bypassed(tmp_path):
    # the class's module needs what the package's __init__ lacked: importing it without that
    # __init__ raises too, and the verdict names the missing module, as before
    finding = only_finding(_models_package_with_a_failing_init(tmp_path, "from .proto import _db\nSCALE = 1.0\n"))
    assert finding.validation.verdict is not Verdict.PASSED, finding.validation
    assert "google" in finding.validation.message, finding.validation


def test_a_module_name_that_another_file_shadows_on_the_path_is_imported_from_its_own_file(tmp_path):
    # `networks.py` at the root (no such class) and the rewritten one in `release/models/`:
    # the worker's first root answers `import networks` with the wrong file.
    root = tmp_path / "repo"
    (root / "release" / "models").mkdir(parents=True)
    (root / "networks.py").write_text("VALUE = 1\n")
    (root / "release" / "models" / "networks.py").write_text(LOSS.replace("SCALE", "1.0"))
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.PASSED, finding.validation


def _the_one_finding(tmp_path, file_name: str, source: str):
    """Validate a one-file repository holding one rewrite; that rewrite's finding."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / file_name).write_text(textwrap.dedent(source))
    finding = only_finding(root)
    return finding


def test_a_class_whose_defaults_do_not_build_it_is_built_with_made_up_values_for_its_none_defaults(tmp_path):
    # `width=None`, whose length the constructor takes: a sentinel for "must be given", not the
    # repository's failure; a list is made up for it (the constructor takes its length)
    finding = _the_one_finding(tmp_path, "kan.py", """
        import torch
        import torch.nn as nn


        class KAN(nn.Module):
            def __init__(self, width=None, grid=3):
                super().__init__()
                self.depth = len(width) - 1
                self.layers = nn.ModuleList(nn.Linear(width[i], width[i + 1]) for i in range(self.depth))
                self.input_id = torch.arange(width[0])

            def forward(self, x):
                x = x[:, self.input_id.long()]
                for layer in self.layers:
                    x = layer(x)
                return x
    """)
    assert finding.validation.verdict is Verdict.PASSED, finding.validation
    assert finding.validation.forward_compared


def test_defaults_that_never_build_make_the_class_not_validated_not_an_error(tmp_path):
    finding = _the_one_finding(tmp_path, "broken.py", """
        import torch
        import torch.nn as nn


        class Table(nn.Module):
            def __init__(self, spec=None):
                super().__init__()
                self.table = torch.ones(spec["rows"]["count"] + spec.missing)

            def forward(self, x):
                return x + self.table
    """)
    assert finding.validation.verdict is Verdict.NOT_VALIDATED, finding.validation
    assert "with its default arguments raised TypeError" in finding.validation.message, finding.validation.message


def test_a_repository_class_handing_arguments_to_a_missing_base_is_not_validated_naming_the_module(tmp_path):
    # `class CfgNode(fvcore.common.config.CfgNode)`, built at import with arguments: the
    # stand-in base is used, so the verdict names the missing module instead of an error
    finding = _the_one_finding(tmp_path, "model.py", """
        import torch
        import torch.nn as nn
        from absent_config_library.config import CfgNode as _CfgNode


        class CfgNode(_CfgNode):
            pass


        _C = CfgNode({"weight": 1.5})


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = torch.tensor(1.5)

            def forward(self, x):
                return x * self.weight
    """)
    assert finding.validation.verdict is Verdict.NOT_VALIDATED, finding.validation
    assert "absent_config_library" in finding.validation.message, finding.validation.message


def test_files_the_repository_code_writes_while_validated_are_named_in_a_warning(tmp_path):
    # a constructor that saves a first checkpoint into ./model, as some repositories do: the
    # workers run from the project root, so a dry run's validation leaves that file there
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "kan.py").write_text(textwrap.dedent("""
        import os

        import torch
        import torch.nn as nn


        class Saver(nn.Module):
            def __init__(self):
                super().__init__()
                self.table = torch.ones(3)
                os.makedirs("model", exist_ok=True)
                with open(os.path.join("model", "0.0_config.txt"), "w") as handle:
                    handle.write("width: 3\\n")

            def forward(self, x):
                return x * self.table
    """))
    completed = subprocess.run([sys.executable, "-P", "-m", "codemod", "run", "--dry-run", "--no-cache", "."], cwd=root,
                               capture_output=True, text=True, timeout=300)
    assert (root / "model" / "0.0_config.txt").exists()  # the repository's doing
    warnings = [line for line in completed.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "changed 1 file(s) in the project: model/0.0_config.txt" in warnings[0], completed.stderr
    assert "warning" not in completed.stdout
    # nothing is said where the models write nothing
    (root / "kan.py").write_text((root / "kan.py").read_text().replace('"0.0_config.txt"', '"../../outside.txt"'))
    completed = subprocess.run([sys.executable, "-P", "-m", "codemod", "run", "--dry-run", "--no-cache", "--format", "json", "."],
                               cwd=root, capture_output=True, text=True, timeout=300)
    assert "warning: " not in completed.stderr, completed.stderr
    json.loads(completed.stdout)


BROKEN_DEFAULTS = '''
import torch
import torch.nn as nn


class Material(nn.Module):
    def __init__(self, multires=0, dims=(8, 8)):
        super().__init__()
        if multires > 0:
            input_dim = 3 * (1 + 2 * multires)
        self.encoder = nn.Linear(input_dim, dims[0])
        self.scales = torch.linspace(0.0, 1.0, dims[0])

    def forward(self, x):
        return self.encoder(x) * self.scales
'''


def test_a_class_its_own_defaults_cannot_build_is_an_error_that_asks_for_an_example(tmp_path):
    # multires=0 leaves input_dim unbound: the repository's configs always give a value
    root = tmp_path / "repo"
    root.mkdir()
    (root / "material.py").write_text(BROKEN_DEFAULTS)
    finding = only_finding(root)
    validation = finding.validation
    assert validation.verdict is Verdict.ERROR, validation
    assert "called with the class's own defaults, raised UnboundLocalError" in validation.message, validation.message
    assert "add an example" in validation.message


KEYWORD_PARAMS = '''
import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self, **model_params):
        super().__init__()
        self.model_params = model_params
        embedding_dim = self.model_params["embedding_dim"]
        self.proj = nn.Linear(embedding_dim, embedding_dim)
        self.positions = torch.linspace(0.0, 1.0, embedding_dim)
        self.clip = model_params.get("logit_clipping", 10.0)

    def forward(self, x):
        return torch.clamp(self.proj(x) + self.positions, -self.clip, self.clip)
'''


def test_a_constructor_of_keyword_parameters_is_built_with_the_keys_it_reads(tmp_path):
    # `**model_params` read as `self.model_params["embedding_dim"]`: built with nothing it
    # raises KeyError; made up by key, it builds and its forward is compared
    root = tmp_path / "repo"
    root.mkdir()
    (root / "decoder.py").write_text(KEYWORD_PARAMS)
    finding = only_finding(root)
    validation = finding.validation
    assert validation.verdict is Verdict.PASSED, validation
    assert validation.forward_compared, validation
    assert validation.builds == ["built with made-up arguments (embedding_dim=8)"], validation.builds


EXITING_LOSS = '''
import sys

import torch
import torch.nn as nn


class JointLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.ones(3)

    def forward(self, pred, target):
        if pred.dim() != 5:
            print("unknown loss mode")
            sys.exit()
        return ((pred - target) * self.w).sum()
'''


def test_a_forward_that_exits_on_made_up_inputs_is_checked_without_forward_not_a_validator_error(tmp_path):
    # `else: sys.exit()` in the repository's forward: the made-up inputs did not run it, which
    # is what the verdict says; before, the SystemExit escaped as "validator error: SystemExit"
    root = tmp_path / "repo"
    root.mkdir()
    (root / "loss.py").write_text(EXITING_LOSS)
    finding = only_finding(root)
    validation = finding.validation
    assert validation.verdict is Verdict.CHECKED_WITHOUT_FORWARD, validation
    assert "raised SystemExit (sys.exit(None))" in validation.message, validation.message


def test_a_script_whose_top_level_code_raises_after_the_class_is_validated_as_far_as_it_ran(tmp_path):
    # a model file that also trains at top level: the class is defined before the line that
    # raises, and both sides stop at that line alike
    root = tmp_path / "repo"
    root.mkdir()
    script = LOSS.replace("SCALE", "1.0") + "\nloss = EdgeLoss()\nimages = load_images('data/')\n"
    (root / "train.py").write_text(script)
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.PASSED, describe(finding.validation)
    assert finding.validation.forward_for("kernel") == "compared"
    assert any("imported as far as its top-level code ran" in d and "NameError" in d and "load_images" in d
               for d in finding.validation.details), describe(finding.validation)


def test_a_script_whose_top_level_code_stops_otherwise_after_the_rewrite_fails(tmp_path):
    # the script's own top-level code reads the plain attribute from the instance's __dict__:
    # the rewritten file raises KeyError there, before the NameError the original reaches
    root = tmp_path / "repo"
    root.mkdir()
    script = (LOSS.replace("SCALE", "1.0")
              + "\nkernel = EdgeLoss().__dict__['kernel']\nimages = load_images('data/')\n")
    (root / "train.py").write_text(script)
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.FAILED, describe(finding.validation)
    assert "KeyError" in finding.validation.message and "NameError" in finding.validation.message


def test_a_module_that_raises_before_defining_the_class_is_built_from_its_definitions(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "train.py").write_text("settings = read_settings()\n" + LOSS.replace("SCALE", "1.0"))
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.PASSED, describe(finding.validation)
    assert finding.validation.forward_for("kernel") == "compared"
    assert any("top-level code raised NameError" in d and "before defining EdgeLoss" in d
               and "skipped (line 1 (NameError))" in d for d in finding.validation.details), describe(finding.validation)


def test_inputs_made_again_that_still_do_not_run_say_the_last_error_too(tmp_path):
    # the first made-up signals are shorter than the STFT's padding; made long enough, the
    # forward raises for the reason no forward can run here (no `return_complex` on torch 2)
    finding = _the_one_finding(tmp_path, "losses.py", """
        import torch
        import torch.nn as nn


        class STFTLoss(nn.Module):
            def __init__(self, fft_size=2048, win_length=1024):
                super().__init__()
                self.fft_size = fft_size
                self.window = torch.hann_window(win_length)

            def forward(self, x, y):
                spec = lambda s: torch.stft(s, self.fft_size, win_length=1024, window=self.window)[..., 0]
                return (spec(x) - spec(y)).abs().mean()
    """)
    assert finding.validation.verdict is Verdict.CHECKED_WITHOUT_FORWARD, describe(finding.validation)
    text = describe(finding.validation)
    assert "Padding size should be less" in text and "made again as the errors asked" in text
    assert "return_complex" in text.split("made again as the errors asked", 1)[1]


def test_a_made_up_number_a_rewritten_attribute_keeps_is_made_a_tensor(tmp_path):
    # `self.weights = weights`, which the repository's call hands a tensor: the number made up
    # for `weights` would be refused by the buffer, so the build is made again with a tensor
    finding = _the_one_finding(tmp_path, "train.py", """
        import torch
        import torch.nn as nn


        class WeightedMSELoss(nn.Module):
            def __init__(self, weights):
                super().__init__()
                self.weights = weights

            def forward(self, pred, target):
                return (((pred - target) ** 2).mean(dim=0) * self.weights).sum()


        def main():
            weights = torch.tensor([1.0, 20.0])
            return WeightedMSELoss(weights)
    """)
    assert finding.validation.verdict is Verdict.PASSED, describe(finding.validation)
    assert finding.validation.forward_for("weights") == "compared"


def test_a_script_whose_top_level_error_names_an_object_address_stops_alike_on_both_sides(tmp_path):
    # the message holds an address, which differs between the two sides' processes
    root = tmp_path / "repo"
    root.mkdir()
    script = LOSS.replace("SCALE", "1.0") + "\nraise RuntimeError(f'no dataset for {object()}')\n"
    (root / "train.py").write_text(script)
    finding = only_finding(root)
    assert finding.validation.verdict is Verdict.PASSED, describe(finding.validation)


DOUBLE_MODULE = """
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


class Rates(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.rates = torch.linspace(0.1, 1.0, n)

    def forward(self, x):
        return self.lin(x) * self.rates


class Steps(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.times = torch.arange(n) * 0.5

    def forward(self, x):
        return self.lin(x) + self.times
"""


def test_classes_of_a_module_that_sets_the_default_dtype_are_built_under_it_on_both_sides(tmp_path):
    # every class of the module is built in float64, as a fresh import builds it, whichever
    # of them a worker imported the module for first
    verdicts = validations_of(tmp_path, {"sir.py": DOUBLE_MODULE})
    assert set(verdicts) == {"rates", "times"}
    for attr, validation in verdicts.items():
        assert validation.verdict is Verdict.PASSED, describe(validation)
        assert f"attributes: {attr} holds the same tensor ((4,) float64), now a non-persistent buffer" in validation.details, \
            describe(validation)


GPU_ARM = """
import torch
import torch.nn as nn


class ThresholdLoss(nn.Module):
    def __init__(self, nums=600.0):
        super().__init__()
        if torch.cuda.is_available():
            self.nums = torch.ones(1).cuda() * nums
        else:
            self.nums = torch.ones(1) * nums

    def forward(self, input, target):
        changed = torch.relu(torch.abs(target - input) - 0.5).sum().unsqueeze(0)
        return torch.relu(changed - self.nums)
"""


@pytest.mark.skipif(torch.cuda.is_available(), reason="where there is a GPU, the first build takes the arm itself")
def test_the_gpu_arm_of_a_constructor_is_built_again_with_a_gpu_reported_and_run_on_the_cpu(tmp_path):
    validation = validations_of(tmp_path, {"loss.py": GPU_ARM})["nums"]
    # both arms rewritten: the first build runs the CPU one, a second the GPU one, on the CPU
    assert validation.verdict is Verdict.PASSED, describe(validation)
    assert any("torch.cuda.is_available() answering True while it was built" in d for d in validation.details), \
        describe(validation)


FROM_A_PARAMETER = """
import torch
import torch.nn as nn


class MixedEncoding(nn.Module):
    def __init__(self, d_model=4, param_dim=2, max_len=6):
        super().__init__()
        self.param_embedding = nn.Parameter(torch.randn(param_dim, 1, d_model))
        pe = torch.arange(max_len * d_model, dtype=torch.float32).view(max_len, 1, d_model) / 10.0
        self.pe = torch.cat([self.param_embedding, pe], dim=0)

    def forward(self, x):
        return x + self.pe[: x.size(0)]
"""


def test_a_cast_the_validator_cannot_copy_the_model_for_runs_on_a_model_built_again(tmp_path):
    # a tensor computed from a parameter at construction is no graph leaf: deepcopy refuses the
    # model on both sides, so each cast is applied to a model built again, seeded as the first
    validation = validations_of(tmp_path, {"encoding.py": FROM_A_PARAMETER})["pe"]
    assert validation.verdict_for("pe") is Verdict.PASSED and validation.forward_compared, describe(validation)
    assert any(d.startswith("casts: applied to models built again, seeded alike, one per cast (the model cannot be copied")
               for d in validation.details), describe(validation)
    assert not any("raises on both models" in d for d in validation.details), describe(validation)


def test_a_cast_on_a_model_neither_copied_nor_built_again_is_not_run_rather_than_raising_on_both():
    from codemod.validate import checks

    class FromAParameter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(2))
            self.pe = self.w * 2  # no graph leaf: deepcopy refuses the model

        def forward(self, x):
            return x + self.pe

    def make():
        return (torch.ones(2),), {}

    def no_second_build():
        raise RuntimeError("built once only")

    for build_fresh in (None, no_second_build):
        out = checks.casts(FromAParameter(), ["pe"], make, build_fresh)
        assert all(entry.get("copy_error", "").startswith("the model cannot be copied to cast it") and not entry["error"]
                   for entry in out.values()), out
    assert "building it again raised RuntimeError: built once only" in out["half()"]["copy_error"], out
    built = checks.casts(FromAParameter(), ["pe"], make, FromAParameter)
    # a raw attribute the cast leaves float32, on a model built again and run after the cast
    assert built["half()"]["attrs"]["pe"]["dtype"] == "float32" and built["half()"]["built_again"], built
    assert built["half()"]["outputs"] is not None and not built["half()"]["forward_error"], built


INVERTIBLE = """
import torch
import torch.nn as nn


class Inv1x1(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.L = nn.Parameter(torch.eye(n) + 0.1)
        self.eye = torch.eye(n)

    def forward(self, x, cond=None, inverse=False):
        if not inverse:
            return x @ torch.tril(self.L, -1) + x
        W = torch.tril(self.L, diagonal=-1) + self.eye  # read only by the inverse pass
        return x @ torch.inverse(W)
"""


def test_a_tensor_read_only_in_the_arm_a_forward_flag_takes_is_compared_with_the_flag_flipped(tmp_path):
    validation = validations_of(tmp_path, {"flow.py": INVERTIBLE})["eye"]
    assert validation.verdict is Verdict.PASSED and validation.forward_compared, describe(validation)
    assert any(d.startswith("build ") and "inverse=True" in d for d in validation.details), describe(validation)


def test_flag_variants_give_each_defaulted_forward_flag_its_other_value():
    from codemod.validate import synth

    namespace: dict = {}
    exec(INVERTIBLE, namespace)
    model = namespace["Inv1x1"]()
    used = {"args": [{"op": "randn", "shape": [2, 4]}], "kwargs": {}}
    assert synth.flag_variants(model, used) == [
        {"args": [{"op": "randn", "shape": [2, 4]}], "kwargs": {"inverse": {"op": "value", "value": True}}}]
    assert synth.flag_variants(model, {**used, "kwargs": {"inverse": {"op": "value", "value": True}}}) == []
    assert synth.flag_variants(model, None) == []
