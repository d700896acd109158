"""The text scans of the pre-filter (segments.py) against the patterns they stand for.

The scans look for a literal first and check what begins the line afterwards, which is
several times faster than a pattern anchored with `^`; these tests hold them to the
anchored patterns' results over real files and over shapes made to trip them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemod import segments
from codemod.fileio import read_source

REPO_ROOT = Path(__file__).resolve().parents[1]

TRICKY = """\
class A(nn.Module):  # class B(C): in a comment
    '''class D(E): in a docstring
    def __init__(self): in a docstring
    '''
    x = 1; import os
    def __init__(self):
        self.a = 1
        myself.b = 2
        y = self.c = 3
        from torch import nn ; import math
    async  def go(self): pass
    asyncdef_ = 1
    asyncdef h(self): pass
    def  f (self) :
        setattr(self, "d", 4)
\tdef g(self): self.e = 5
def top(): pass
"""


def _texts() -> list[str]:
    paths = sorted(REPO_ROOT.glob("golden/*/input.py")) + sorted(REPO_ROOT.glob("codemod/**/*.py"))
    paths += sorted(REPO_ROOT.glob("examples/**/*.py"))
    return [TRICKY, TRICKY.replace("\n", "\r\n"), ""] + [read_source(p).text for p in paths]


TEXTS = _texts()


def test_there_are_real_texts():
    assert len(TEXTS) > 80


@pytest.mark.parametrize(
    "pattern",
    [
        r"from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)",
        r"import[ \t]+([^\n#;]+)",
        r"class[ \t]+(\w+)[ \t]*\(([^)]*)\)",
        r"self\.\w+[ \t]*(?::[^=\n]*)?=(?!=)|setattr\(\s*self\b",
    ],
)
def test_line_start_matches_equal_an_anchored_pattern(pattern: str):
    anchored = re.compile(r"^[ \t]*(?:" + pattern + ")", re.MULTILINE)
    literal_first = re.compile(pattern)
    total = 0
    for text in TEXTS:
        expected = [(m.end(), m.groups()) for m in anchored.finditer(text)]
        found = [(m.end(), m.groups()) for m in segments.line_start_matches(literal_first, text)]
        assert found == expected
        total += len(found)
    assert total > 50


def test_method_defs_equal_the_anchored_pattern():
    anchored = re.compile(r"^([ \t]+)(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.MULTILINE)
    for text in TEXTS:
        expected = [(m.start(), len(m.group(1)), m.group(2), m.end()) for m in anchored.finditer(text)]
        assert list(segments._method_defs(text)) == expected
    names = [name for _, _, name, _ in segments._method_defs(TRICKY)]
    assert names == ["__init__", "__init__", "go", "f", "g"]  # the first is in the docstring


def test_triple_quotes_equal_the_alternation():
    alternation = re.compile(r'"""|\'\'\'')
    for text in TEXTS + ["''''''\"\"\"''' \"\"\"\"", "'''\"\"\"'''"]:
        assert segments._triple_quotes(text) == [m.start() for m in alternation.finditer(text)]


def test_top_level_statements_start_where_the_anchored_pattern_says():
    anchored = re.compile(r"^[^\s#)\]}]", re.MULTILINE)
    for text in TEXTS:
        pieces = segments.split(text)
        if pieces is None:
            continue
        quotes = segments._triple_quotes(text)
        starts = [m.start() for m in anchored.finditer(text) if sum(q < m.start() for q in quotes) % 2 == 0]
        # Decorators join the statement they decorate; everything else starts a statement.
        expected = [s for i, s in enumerate(starts) if i == 0 or not text.startswith("@", starts[i - 1])]
        offsets = [text.index(p.text, sum(len(q.text) for q in pieces[:k])) for k, p in enumerate(pieces)]
        assert offsets == expected
        assert "".join(p.text for p in pieces) == text[expected[0] :] if expected else pieces == []


DECORATED = '''import torch


@auto_docstring(
    custom_intro="""
    A model.
    """
)
@register(
    "a",
)
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)


@cache
@wraps(
    f
)
def make(n):
    return torch.zeros(n)


if True:
    B = 1
'''


def test_a_decorator_over_several_lines_begins_the_definition_it_decorates():
    pieces = segments.split(DECORATED)
    assert [(p.kind, p.name, p.start, p.end) for p in pieces] == [
        ("import", None, 1, 3),
        ("class", "A", 4, 17),
        ("def", "make", 18, 25),
        ("other", None, 26, 27),
    ]
    assert "".join(p.text for p in pieces) == DECORATED


def test_mentions_of_a_name_are_whole_words():
    text = "xtorch.a(); torch_dtype; self.torch.b(); torch . zeros (3); torch"
    found = [(m.group(1), m.group(3)) for m in segments._mentions_of(text, "torch")]
    assert found == [(" . zeros", "("), ("", "")]
    # Plain names also count as attributes (`utils.make_mask`), never inside a longer word.
    assert [m.group(3) for m in segments._mentions_of("utils.make_mask(1); make_masks", "make_mask", after_dot=True)] == ["("]
