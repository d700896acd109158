"""Rewriting: only the statements (or methods) that change go through libcst, with the same
result as the whole class, and anything unusual falls back to a wider part."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemod import rewrite
from codemod.api import AnalysisOptions, analyse_text
from codemod.fileio import read_source
from codemod.repo_index import RepoIndex
from codemod.segments import split
from codemod.wrap import Style, dominant_quote


def _layout(text: str, plan):
    return rewrite._Layout(Style(), dominant_quote(text), plan.parameter_spelling)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if (p / "input.py").is_file())


def _plan(work: Path, name: str = "input.py"):
    files = sorted(work.rglob("*.py"))
    index = RepoIndex(files, root=work)
    path = work / name
    text = read_source(path).text
    analysis = analyse_text(index, path, text, name, AnalysisOptions())
    return text, analysis.plan


def _case_plan(case: Path, tmp_path: Path):
    work = tmp_path / "case"
    work.mkdir(parents=True)
    if (case / "repo").is_dir():
        shutil.copytree(case / "repo", work, dirs_exist_ok=True)
    shutil.copyfile(case / "input.py", work / "input.py")
    return _plan(work)


def _edited_pieces(text: str, plan):
    if plan is None:
        return  # nothing in the file can hold a finding: never parsed
    pieces = split(text)
    if pieces is None:
        assert "\x0c" in text or "\x0b" in text, "only form feeds and vertical tabs make a file parse whole"
        return  # such a file is rewritten whole: no piece to compare
    for class_plan in plan.classes:
        if class_plan.changed:
            piece = next(p for p in pieces if p.start <= class_plan.line <= p.end)
            yield piece, class_plan


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_statements_or_methods_alone_give_what_the_whole_class_gives(case: Path, tmp_path: Path):
    text, plan = _case_plan(case, tmp_path)
    for piece, class_plan in _edited_pieces(text, plan):
        whole = rewrite._transform(piece.text, [class_plan], _layout(text, plan), piece.start - 1)
        if class_plan.annotations:
            continue  # declarations go on the class itself: always the whole class
        try:
            assert rewrite._transform_methods(piece, class_plan, _layout(text, plan)) == whole
        except rewrite._CannotCut:
            # a class inside a function or a class is edited with its top-level statement
            assert class_plan.line > piece.start, (case.name, class_plan.line)
        if not any(e.move_after for e in class_plan.edits):
            try:
                alone = rewrite._transform_statements(piece, [class_plan], _layout(text, plan))
            except rewrite._CannotCut:
                continue  # a statement shares its line (`a = 1; self.t = ...`): not cut
            assert alone == whole


def test_most_golden_rewrites_are_cut(tmp_path: Path):
    # The equalities above only mean something if most edited classes take those paths.
    by_method = by_statement = 0
    for case in CASES:
        text, plan = _case_plan(case, tmp_path / case.name)
        for piece, c in _edited_pieces(text, plan):
            if c.annotations:
                continue
            by_method += 1
            try:
                rewrite._transform_statements(piece, [c], _layout(text, plan))
                by_statement += 1
            except rewrite._CannotCut:
                pass
    assert by_method >= 40 and by_statement >= 30


SOURCE = '''import torch
from torch import nn


class Outer(nn.Module):
    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.zeros(3)

    def __init__(self):
        super().__init__()
        self.b = torch.ones(3)  # stays beside its comment
        self.c = (
            torch.arange(4)  # a comment inside
            .long()
        )
'''

def _recording(monkeypatch) -> list[str]:
    parsed: list[str] = []
    real = rewrite._transform
    monkeypatch.setattr(rewrite, "_transform", lambda *a: parsed.append(a[0]) or real(*a))
    return parsed


def test_each_edited_statement_goes_through_libcst_alone(tmp_path: Path, monkeypatch):
    (tmp_path / "m.py").write_text(SOURCE)
    text, plan = _plan(tmp_path, "m.py")
    parsed = _recording(monkeypatch)
    code = rewrite.apply_plan(text, plan)
    assert len(parsed) == 3 and all("def " not in p for p in parsed)
    monkeypatch.undo()
    (piece,) = [p for p in split(text) if p.kind == "class"]
    whole = rewrite._transform(piece.text, plan.classes, _layout(text, plan), piece.start - 1)
    assert code == text.replace(piece.text, whole)
    # Laid out as black lays out the new statement: the comment stays, at the end of its line.
    assert 'self.register_buffer(\n            "c", torch.arange(4).long(), persistent=False  # a comment inside\n        )' in code


@pytest.mark.parametrize(
    "change",
    [
        ("self.b = torch.ones(3)  #", "self.b = torch.ones(3); x = 1  #"),  # two statements on a line
        ("        self.b = torch.ones(3)", "        x = 1; self.b = torch.ones(3)"),
        ("super().__init__()\n        self.b", "super().__init__(); \\\n        self.b"),  # a continued line
    ],
)
def test_a_statement_that_shares_its_line_is_rewritten_with_its_method(change, tmp_path: Path, monkeypatch):
    source = SOURCE.replace(*change)
    (tmp_path / "m.py").write_text(source)
    text, plan = _plan(tmp_path, "m.py")
    parsed = _recording(monkeypatch)
    code = rewrite.apply_plan(text, plan)
    assert 'self.register_buffer("b", torch.ones(3), persistent=False)' in code
    assert 'self.register_buffer("a", torch.zeros(3), persistent=False)' in code
    assert any("def __init__" in p for p in parsed)  # not that statement alone


def test_only_the_changed_method_goes_through_libcst_when_a_statement_moves(tmp_path: Path, monkeypatch):
    methods = "".join(f"\n    def m{i}(self, x):\n        return x * {i}\n" for i in range(50))
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):"
        + methods
        + "\n    def __init__(self, n):\n        self.w = torch.randn(n)\n        super().__init__()\n"
    )
    (tmp_path / "m.py").write_text(source)
    text, plan = _plan(tmp_path, "m.py")
    (net,) = plan.classes
    assert any(e.move_after for e in net.edits)
    piece = next(p for p in split(text) if p.kind == "class")
    parsed = _recording(monkeypatch)
    code = rewrite.apply_plan(text, plan)
    assert len(parsed) == 1 and "def m7" not in parsed[0] and "def __init__" in parsed[0]
    assert code.index("super().__init__()") < code.index('self.register_buffer("w", torch.randn(n), persistent=False)')
    monkeypatch.undo()
    assert code == text.replace(piece.text, rewrite._transform(piece.text, [net], _layout(text, plan), piece.start - 1))
