"""The tolerant reading of a file that does not parse (codemod/tolerant.py)."""

from __future__ import annotations

import ast

from codemod.tolerant import python3_reading


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_python_2_statements_are_set_aside_line_for_line_and_the_rest_is_kept():
    text = (
        "import torch\n\n\nclass Net(object):\n    def __init__(self):\n        self.h = torch.zeros(2)\n"
        "        print 'built', self.h\n        print 'and', \\\n            'twice'\n"
        "        self.c = torch.ones(2)\n"
    )
    reading = python3_reading(text)
    assert reading is not None
    ast.parse(reading.text)
    # every line keeps its number; the two-line print leaves a blank line behind
    assert _lines(reading.text) == [
        "import torch", "", "", "class Net(object):", "    def __init__(self):", "        self.h = torch.zeros(2)",
        "        pass", "        pass", "", "        self.c = torch.ones(2)",
    ]
    assert reading.set_aside == (7, 8) and not reading.tabs_expanded
    assert reading.describe() == "2 statements Python 3 cannot read set aside (lines 7, 8)"


def test_a_block_header_set_aside_keeps_its_block():
    text = (
        "def load(path, (a, b)):\n    try:\n        x = open(path)\n    except IOError, e:\n        x = None\n"
        "    if x <> None:\n        return x\n    elif a <> b:\n        return a\n"
    )
    reading = python3_reading(text)
    assert reading is not None
    assert _lines(reading.text) == [
        "def load(*args, **kwargs):", "    try:", "        x = open(path)", "    except Exception:", "        x = None",
        "    if True:", "        return x", "    elif True:", "        return a",
    ]
    assert reading.set_aside == (1, 4, 6, 8)


def test_tabs_mixed_with_spaces_are_read_as_python_2_reads_them():
    # a tab moves to the next multiple of eight columns: the tab-indented line is in the block
    text = "class Net(object):\n    def __init__(self):\n        self.a = 1\n\tself.b = 2\n"
    reading = python3_reading(text)
    assert reading is not None and reading.tabs_expanded and not reading.set_aside
    assert _lines(reading.text)[3] == "        self.b = 2"
    assert reading.describe() == "leading tabs read as Python 2 reads them"


def test_a_file_that_parses_or_that_setting_aside_cannot_mend_has_no_reading():
    assert python3_reading("x = 1\n") is None
    # an indentation that no statement set aside can mend
    assert python3_reading("x = 1\n  y = 2\n") is None


def test_a_file_needing_more_than_the_bound_has_no_reading():
    text = "".join(f"print {n}\n" for n in range(300))
    assert python3_reading(text) is None
    assert python3_reading(text.replace("print 2", "x = 2", 1)[: len("print 0\n") * 150]) is not None
