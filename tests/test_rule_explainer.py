"""`codemod rule CODE` / `codemod rule --all`: every rule of the registry explains itself from
its Rule fields (summary, torch fact, example before and after), with how to suppress it and
where its documentation is, also while some of those fields are still empty."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from codemod import explain
from codemod.cli import main
from codemod.rules.registry import REGISTRY
from codemod.rules.base import Rule


def rule(*args: str):
    return CliRunner().invoke(main, ["rule", *args], catch_exceptions=False)


@pytest.mark.parametrize("code", list(REGISTRY))
def test_every_rule_renders(code: str):
    registered = REGISTRY[code]
    result = rule(code.lower())  # any case
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith(f"{code} {registered.name}\n")
    assert " ".join(registered.summary.split()) in " ".join(text.split())
    assert f"# codemod: ignore[{code}]" in text and f"--ignore {code}" in text
    assert text.rstrip().endswith(f"Documentation: {explain.rule_url(code)}")
    if explain.fact(registered):
        assert "Torch fact:" in text
    if registered.before.strip():
        assert "Example:" in text and "  before:" in text and "  after:" in text
    # and as Markdown (SARIF's help), and JSON
    markdown = explain.rule_markdown(registered)
    assert markdown.startswith(f"**{code} {registered.name}**") and f"]({explain.rule_url(code)})" in markdown
    document = json.loads(rule(code, "--format", "json").stdout)
    assert document["code"] == code and document["suppress"] == f"# codemod: ignore[{code}]"
    assert document["kind"] == explain.kind(registered)


def test_all_explains_every_rule_in_order():
    text = rule("--all").stdout
    heads = [line.split()[0] for line in text.splitlines() if line.split() and line.split()[0] in REGISTRY
             and line == f"{line.split()[0]} {REGISTRY[line.split()[0]].name}"]
    assert heads == list(REGISTRY)
    documents = json.loads(rule("--all", "--output-format", "json").stdout)
    assert [d["code"] for d in documents] == list(REGISTRY)


def test_empty_fields_render_gracefully_and_filled_ones_are_shown():
    bare = Rule("BUF999", "made-up", "a rule with nothing but its summary")
    text = explain.rule_text(bare)
    assert "Torch fact:" not in text and "Example:" not in text
    assert "a rule with nothing but its summary" in text and "ignore[BUF999]" in text
    full = dataclasses.replace(
        bare, code="BUF199", fact="a made-up fact about torch",
        before="self.mask = torch.ones(3)\n", after='self.register_buffer("mask", torch.ones(3), persistent=False)\n',
    )
    text = explain.rule_text(full)
    assert "Torch fact:\n  a made-up fact about torch" in text
    assert "  before:\n    self.mask = torch.ones(3)\n  after:\n    self.register_buffer(" in text
    markdown = explain.rule_markdown(full)
    assert "```python\nself.mask = torch.ones(3)\n```" in markdown
    skip = dataclasses.replace(full, code="BUF299", after="")
    assert "    (left as it is)" in explain.rule_text(skip)


def test_unknown_or_missing_code_is_a_usage_error():
    unknown = rule("BUF1O1")
    assert unknown.exit_code == 2 and "unknown rule code 'BUF1O1'" in unknown.output and "BUF101" in unknown.output
    assert rule().exit_code == 2
    assert rule("BUF101", "--all").exit_code == 2


def test_rule_url_is_the_readme_anchor_of_the_code():
    assert explain.rule_url("BUF101") == explain.README_URL + "#buf101"
    assert explain.README_URL.startswith("https://") and explain.README_URL.endswith("README.md")
