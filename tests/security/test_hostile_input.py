"""Hostile sources cost bounded time and memory (skipped with a clear message where
needed), and the pre-filter agrees with the full parse on unusual line breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemod.fileio import MAX_FILE_BYTES
from codemod.runner import RunOptions, run

from .conftest import MODEL


def analyse(root: Path, *paths: Path, prefilter: bool = True):
    return run(list(paths) or [root], RunOptions(write=False, validate=False, unsafe_fixes=True, root=root, jobs=1, use_cache=False, prefilter=prefilter))


def test_a_300000_element_literal_is_reported_not_rewritten(repo: Path):
    literal = ", ".join(str(i % 10) for i in range(300_000))
    (repo / "pkg" / "table.py").write_text(MODEL.replace("torch.ones(3)", f"torch.tensor([{literal}])").replace("Model", "Table"))
    report = analyse(repo)
    (finding,) = [f for f in report.findings if f.class_name == "Table"]
    assert finding.action.value == "skip" and finding.code == "BUF305"
    assert "over the 20,000-character limit" in finding.reason and "by hand" in finding.reason
    assert [r.display_path for r in report.changed_files] == ["pkg/model.py"]


def test_a_file_over_the_size_limit_is_skipped_with_a_message(repo: Path):
    big = repo / "pkg" / "generated.py"
    with open(big, "w") as handle:
        handle.write(MODEL)
        handle.write("x = 1\n" * (MAX_FILE_BYTES // 6 + 1))
    report = analyse(repo)
    (result,) = [r for r in report.files if r.display_path == "pkg/generated.py"]
    assert result.error.startswith("skipped: ") and "MiB limit" in result.error
    assert [r.display_path for r in report.changed_files] == ["pkg/model.py"]


@pytest.mark.parametrize("depth", [150, 5_000])
def test_deep_nesting_is_an_error_for_that_file_only(repo: Path, depth: int):
    (repo / "pkg" / "deep.py").write_text(MODEL.replace("torch.ones(3)", "torch.tensor(" + "[" * depth + "1" + "]" * depth + ")").replace("Model", "Deep"))
    report = analyse(repo)
    assert [r.display_path for r in report.changed_files if r.display_path != "pkg/deep.py"] == ["pkg/model.py"]


LINE_BREAK_CASES = {
    "form feed before the statement": MODEL.replace("        self.mask", "\x0c        self.mask"),
    "form feed line": MODEL.replace("        self.mask", "\x0c\n        self.mask"),
    "form feed before the class": MODEL.replace("class Model", "\x0cclass Model"),
    "lone carriage returns": MODEL.replace("\n", "\r"),
    "windows line endings": MODEL.replace("\n", "\r\n"),
    "unicode line separator in a comment": MODEL.replace("torch.ones(3)", "torch.ones(3)  # a\u2028b"),
    "unicode separators in a string": MODEL.replace("super().__init__()", "super().__init__()\n        self.name = 'a\u2029b\x85c\x1cd'"),
    "vertical tab": MODEL.replace("        self.mask", "\x0b        self.mask"),
}


@pytest.mark.parametrize("case", sorted(LINE_BREAK_CASES))
def test_prefilter_and_full_parse_agree(repo: Path, case: str):
    path = repo / "pkg" / "model.py"
    path.write_bytes(LINE_BREAK_CASES[case].encode("utf-8"))

    def outcome(prefilter: bool):
        report = analyse(repo, path, prefilter=prefilter)
        (result,) = report.files
        return [f.to_json() for f in result.findings], result.rewritten

    assert outcome(True) == outcome(False)
    if "form feed before the class" in case or "line" in case:
        assert outcome(True)[0], "the class was missed"
