"""The rule registry: stable codes, and every finding carries the code of a known rule."""

from __future__ import annotations

import re
from pathlib import Path

from codemod.api import transform_source
from codemod.fileio import read_source
from codemod.ftypes import Action
from codemod.rules import REGISTRY

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
        for finding in transform_source(text, path="input.py").findings:
            assert finding.code in REGISTRY, (case.name, finding)
            group = finding.code[3]
            if finding.action is Action.SKIP:
                assert group in "23", (case.name, finding)
            else:
                assert group == "1", (case.name, finding)
                assert (finding.code == "BUF102") == bool(finding.persistent) or finding.action is Action.PARAMETER
            seen.add(finding.code)
    assert {"BUF101", "BUF102", "BUF103"} <= seen
