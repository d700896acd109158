"""Rule codes: `--select` / `--ignore`, `select` / `ignore` in [tool.codemod], and
`# codemod: ignore[CODE]` comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import ENCODER, NOISY, NOISY_REWRITTEN, PAIR, invoke, make_project, python_files
from codemod.api import transform_source
from codemod.rules.registry import REGISTRY
from codemod.selection import RuleSelection, UnknownCode, check_markers, parse_selectors


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree) -> Path:
    root = make_project(tmp_path / "proj", write_tree)
    monkeypatch.chdir(root)
    return root


def codes(result) -> list[str]:
    """The (path, class.attr) of each finding line printed."""
    return [line.split(": ", 1)[1].split(" ", 1)[0] for line in result.stdout.splitlines() if line.startswith("models/")]


# -- the selection itself ------------------------------------------------------------------------


def test_most_specific_selector_decides():
    default = RuleSelection()
    assert all(default.enabled(c) for c in ("BUF101", "BUF201", "BUF301"))
    rewrites_but_one = RuleSelection(select=("BUF1",), ignore=("BUF101",))
    assert not rewrites_but_one.enabled("BUF101")
    assert rewrites_but_one.enabled("BUF102")
    assert not rewrites_but_one.enabled("BUF201")
    one_back = RuleSelection(select=("BUF101",), ignore=("BUF1",))
    assert one_back.enabled("BUF101") and not one_back.enabled("BUF102")
    assert not RuleSelection(select=("BUF101",), ignore=("BUF101",)).enabled("BUF101")  # a tie: ignore wins
    assert not RuleSelection(ignore=("BUF",)).enabled("BUF204")


def test_parse_selectors():
    assert parse_selectors(["BUF1,buf201", " BUF3 ", "BUF1"]) == ("BUF1", "BUF201", "BUF3")
    for wrong in (["BUF999"], ["BUF4"], ["B"], ["E501"], ["BUF1,XYZ"]):
        with pytest.raises(UnknownCode):
            parse_selectors(wrong)


def test_selection_changes_the_cache_fingerprint():
    from codemod.ftypes import AnalysisOptions

    assert AnalysisOptions().fingerprint() != AnalysisOptions(selection=RuleSelection(ignore=("BUF101",))).fingerprint()


# -- command line and configuration --------------------------------------------------------------


def test_ignore_a_rewrite_code_neither_writes_nor_reports_it(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--ignore", "BUF101", ".")
    assert result.exit_code == 0
    assert (project / "models" / "encoder.py").read_text() == ENCODER  # BUF101 left alone
    assert (project / "models" / "noisy.py").read_text() == NOISY.replace(
        "self.scale = torch.ones(dim, requires_grad=True)", "self.scale = nn.Parameter(torch.ones(dim))"
    )
    assert "Encoder.mask" not in result.stdout
    assert codes(result) == ["Noisy.scale", "Pair.weights"]


def test_select_a_prefix(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--select", "BUF1", ".")
    assert codes(result) == ["Encoder.mask", "Noisy.noise", "Noisy.scale"]  # BUF301 not reported
    reports_only = invoke("--no-validate", "--unsafe-fixes", "--select", "BUF3", ".")
    assert codes(reports_only) == ["Pair.weights"]
    assert (project / "models" / "encoder.py").read_text() == ENCODER, "no rewrite rule selected: nothing written"


def test_select_and_ignore_combine(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--select", "BUF1", "--ignore", "BUF102,BUF103", ".")
    assert codes(result) == ["Encoder.mask", "Noisy.noise"]
    assert result.stdout.splitlines()[-1] == "4 files scanned, 2 would change, 2 buffers, 0 parameters, 0 skipped"


@pytest.mark.parametrize("flag", ["--select", "--ignore"])
def test_unknown_code_is_a_usage_error(project: Path, flag: str):
    before = python_files(project)
    result = invoke("--no-validate", "--unsafe-fixes", flag, "BUF999", ".")
    assert result.exit_code == 2
    assert "unknown rule code 'BUF999'" in result.stderr
    assert python_files(project) == before


def test_select_and_ignore_in_config(project: Path):
    with open(project / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\nselect = ["BUF1", "BUF3"]\nignore = ["BUF103"]\n')
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert codes(result) == ["Encoder.mask", "Noisy.noise", "Pair.weights"]
    # --select replaces the configured selection; --ignore adds to the configured one.
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--select", "BUF10,BUF3", "--ignore", "BUF301", ".")
    assert codes(result) == ["Encoder.mask", "Noisy.noise"]


def test_unknown_code_in_config_is_a_usage_error(project: Path):
    with open(project / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\nignore = ["BUF1O1"]\n')
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 2
    assert "ignore names an unknown rule code 'BUF1O1'" in result.stderr


def test_cached_results_follow_the_selection(project: Path):
    full = invoke("--no-validate", "--unsafe-fixes", "--check", ".")  # fills the cache
    ignored = invoke("--no-validate", "--unsafe-fixes", "--check", "--ignore", "BUF101", ".")
    again = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert "Encoder.mask" in full.stdout and "Encoder.mask" not in ignored.stdout
    assert again.stdout == full.stdout


def test_ignoring_a_safety_skip_never_turns_it_into_a_rewrite(project: Path, write_tree):
    complex_source = (
        "import torch\nfrom torch import nn\n\n\nclass Rotary(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.freqs = torch.polar(torch.ones(4), torch.zeros(4))\n"
    )
    write_tree(project, {"models/rotary.py": complex_source})
    skipped = invoke("--no-validate", "--unsafe-fixes", "--check", "models/rotary.py")
    assert "Rotary.freqs skipped" in skipped.stdout
    result = invoke("--no-validate", "--unsafe-fixes", "--ignore", "BUF201", "models/rotary.py")
    assert "Rotary.freqs" not in result.stdout
    assert (project / "models" / "rotary.py").read_text() == complex_source


# -- suppression comments ------------------------------------------------------------------------


def _transform(source: str, **kwargs):
    return transform_source(source, path="model.py", **kwargs)


@pytest.mark.parametrize(
    "marked",
    [
        "        self.mask = torch.ones(size)  # codemod: ignore[BUF101]",
        "        # codemod: ignore[BUF101]\n        self.mask = torch.ones(size)",
        "        self.mask = torch.ones(size)  # codemod: ignore[BUF1]",
        "        self.mask = torch.ones(size)  # noqa: E501  codemod: ignore[BUF102, BUF101]",
        "        self.mask = torch.ones(size)  # codemod: ignore",
        "        # codemod: ignore\n        self.mask = torch.ones(size)",
    ],
    ids=["on the line", "on the line above", "a prefix", "among other codes", "bare", "bare above"],
)
def test_ignore_comment_leaves_the_attribute_alone(marked: str):
    source = ENCODER.replace("        self.mask = torch.ones(size)", marked)
    result = _transform(source)
    assert result.code == source
    assert result.findings == []


@pytest.mark.parametrize(
    "marked",
    [
        "        self.mask = torch.ones(size)  # codemod: ignore[BUF102]",  # another code
        "        self.proj = nn.Linear(size, size)  # codemod: ignore[BUF101]",  # the previous statement's comment
    ],
    ids=["another code", "trailing comment of the statement above"],
)
def test_ignore_comment_for_something_else_keeps_the_rewrite(marked: str):
    target = "        self.mask = torch.ones(size)" if "mask" in marked else "        self.proj = nn.Linear(size, size)"
    source = ENCODER.replace(target, marked)
    result = _transform(source)
    assert [f.code for f in result.findings] == ["BUF101"]
    # (wrapped when the trailing comment makes the line too long, as black would)
    assert '"mask", torch.ones(size), persistent=False' in result.code


def test_ignore_comment_on_the_class_line_covers_the_class():
    source = NOISY.replace("class Noisy(nn.Module):", "class Noisy(nn.Module):  # codemod: ignore[BUF103]")
    result = _transform(source)
    assert [f.code for f in result.findings] == ["BUF101"]
    assert "self.scale = torch.ones(dim, requires_grad=True)" in result.code
    assert 'self.register_buffer("noise", torch.randn(dim), persistent=False)' in result.code


def test_ignore_comment_on_a_report():
    marked = PAIR.replace("self.weights = [torch.ones(2), torch.zeros(2)]", "self.weights = [torch.ones(2), torch.zeros(2)]  # codemod: ignore[BUF301]")
    assert _transform(PAIR).findings and not _transform(marked).findings


def test_unknown_code_in_a_comment_is_an_error_for_that_file(project: Path):
    marked = ENCODER.replace("self.mask = torch.ones(size)", "self.mask = torch.ones(size)  # codemod: ignore[BUF1O1]")
    (project / "models" / "encoder.py").write_text(marked)
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        (
            f"models/encoder.py: error: line 9: unknown rule code 'BUF1O1' (codes are BUF101..{max(REGISTRY)}; see README, "
            "Rules and codes) in '# codemod: ignore[...]'"
        )
    ]
    assert (project / "models" / "encoder.py").read_text() == marked, "a mistyped suppression stops the rewrite"
    assert (project / "models" / "noisy.py").read_text() == NOISY_REWRITTEN, "the rest of the run goes on"


def test_check_markers():
    assert check_markers(ENCODER) is None
    assert check_markers("x = 1  # codemod: ignore\n") is None
    assert check_markers("x = 1  # codemod: ignore[BUF101,BUF2]\n") is None
    assert check_markers("\nx = 1  # codemod: ignore[]\n").startswith("line 2: ")
    assert "'NOPE'" in check_markers("x = 1  # codemod: ignore[NOPE]\n")


def test_ignore_marker_with_codes_in_a_rewritten_file_stays(project: Path):
    """A file with a suppressed attribute and another one rewritten keeps the comment."""
    source = NOISY.replace("self.noise = torch.randn(dim)", "self.noise = torch.randn(dim)  # codemod: ignore[BUF101]")
    (project / "models" / "noisy.py").write_text(source)
    result = invoke("--no-validate", "--unsafe-fixes", "models/noisy.py")
    assert result.exit_code == 0
    text = (project / "models" / "noisy.py").read_text()
    assert "self.noise = torch.randn(dim)  # codemod: ignore[BUF101]" in text
    assert "self.scale = nn.Parameter(torch.ones(dim))" in text
    assert (project / "models" / "encoder.py").read_text() == ENCODER  # not named: untouched
