"""`--output-format text|json|json-lines|github|sarif`, `--statistics` and `--exit-zero`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import ENCODER, invoke, make_project, python_files
from codemod.rules.registry import REGISTRY

SCHEMA_FILE = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
FINDINGS = [  # (path, line, column, code) of the project's findings, in report order
    ("models/encoder.py", 9, 9, "BUF101"),
    ("models/noisy.py", 8, 9, "BUF101"),
    ("models/noisy.py", 9, 9, "BUF103"),
    ("models/pair.py", 8, 9, "BUF301"),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree) -> Path:
    root = make_project(tmp_path / "proj", write_tree)
    monkeypatch.chdir(root)
    return root


def _document(*args: str) -> dict:
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "json", *args)
    return json.loads(result.stdout)


# -- json and the --format alias -----------------------------------------------------------------


def test_format_is_an_alias_of_output_format(project: Path):
    new = invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "json", ".")
    old = invoke("--no-validate", "--unsafe-fixes", "--check", "--format", "json", ".")
    assert new.exit_code == old.exit_code == 1
    assert json.loads(new.stdout) == json.loads(old.stdout)


@pytest.mark.parametrize("key", ["output-format", "format"])
def test_output_format_from_config(project: Path, key: str):
    with open(project / "pyproject.toml", "a") as handle:
        handle.write(f'\n[tool.codemod]\n{key} = "json-lines"\n')
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["type"] for r in records] == ["finding"] * 4


def test_both_spellings_in_config_is_a_usage_error(project: Path):
    with open(project / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\nformat = "json"\noutput-format = "text"\n')
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 2
    assert "given twice" in result.stderr


# -- json-lines ----------------------------------------------------------------------------------


def test_json_lines_has_one_record_per_finding_and_error(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "json-lines", ".", "missing.py")
    assert result.exit_code == 2
    records = [json.loads(line) for line in result.stdout.splitlines()]
    findings = [r for r in records if r["type"] == "finding"]
    assert [(r["path"], r["line"], r["column"], r["code"]) for r in findings] == FINDINGS
    # The same records as the JSON document's findings, tagged with their type.
    document = _document(".")
    assert [{k: v for k, v in r.items() if k != "type"} for r in findings] == document["findings"]
    assert {"type": "error", "path": "missing.py", "message": "no such file or directory"} in records


def test_json_lines_dry_run_adds_one_diff_record_per_changed_file(project: Path):
    before = python_files(project)
    result = invoke("--no-validate", "--unsafe-fixes", "--dry-run", "--output-format", "json-lines", ".")
    assert result.exit_code == 0
    diffs = [json.loads(line) for line in result.stdout.splitlines() if json.loads(line)["type"] == "diff"]
    assert [d["path"] for d in diffs] == ["models/encoder.py", "models/noisy.py"]
    assert '+        self.register_buffer("mask", torch.ones(size), persistent=False)\n' in diffs[0]["diff"]
    assert python_files(project) == before


# -- github --------------------------------------------------------------------------------------


def test_github_annotations(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "github", ".", "missing.py")
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    from codemod.explain import rule_url

    # the title carries the rule code; the message ends with the code and its documentation
    assert lines[0] == (
        "::warning file=models/encoder.py,line=9,col=9,title=BUF101::Encoder.mask -> register_buffer "
        f"(persistent=False: derived from constructor arguments; rebuilt on each construction) (BUF101: {rule_url('BUF101')})"
    )
    annotations = [line for line in lines if line.startswith("::")]
    assert [a.split("::")[1] for a in annotations[:4]] == [
        f"warning file={path},line={line},col={col},title={code}" for path, line, col, code in FINDINGS
    ]
    assert "::error file=missing.py,title=codemod::no such file or directory" in lines
    assert lines[-1].startswith("4 files scanned, 2 would change")  # plain log text, not a command


def test_github_escaping():
    from codemod.github import command, escape_data, escape_property

    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"
    # A message keeps ':' and ',' (only properties escape them); a property loses neither.
    assert command("warning", "x: a, b", file="dir,1/a:b.py", line=3, title=None) == (
        "::warning file=dir%2C1/a%3Ab.py,line=3::x: a, b"
    )


def test_github_annotation_for_a_path_with_a_comma(project: Path, write_tree):
    write_tree(project, {"odd,name.py": ENCODER})
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "github", "odd,name.py")
    assert result.stdout.splitlines()[0].startswith("::warning file=odd%2Cname.py,line=9,col=9,title=BUF101::")


# -- sarif ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator():
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=jsonschema.FormatChecker())


def _assert_valid(validator, log: dict) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_sarif_is_valid_against_the_sarif_2_1_0_schema(project: Path, sarif_validator):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "sarif", ".", "missing.py")
    assert result.exit_code == 2
    log = json.loads(result.stdout)
    _assert_valid(sarif_validator, log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]

    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(REGISTRY)
    from codemod.explain import fact, rule_markdown, rule_text, rule_url

    for rule in rules:
        registered = REGISTRY[rule["id"]]
        assert rule["shortDescription"]["text"] == registered.summary
        assert rule["name"] == registered.name
        # the explanation `codemod rule CODE` prints, and the README's anchor for the code
        assert rule["fullDescription"]["text"] == (fact(registered) or registered.summary)
        assert rule["help"] == {"text": rule_text(registered), "markdown": rule_markdown(registered)}
        assert rule["helpUri"] == rule_url(rule["id"]) and rule["helpUri"].endswith("#" + rule["id"].lower())
        assert f"codemod: ignore[{rule['id']}]" in rule["help"]["text"]

    located = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
            r["ruleId"],
        )
        for r in run["results"]
    ]
    assert located == FINDINGS
    for result_record in run["results"]:
        assert rules[result_record["ruleIndex"]]["id"] == result_record["ruleId"]
        assert result_record["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    assert run["results"][0]["message"]["text"].startswith("Encoder.mask -> register_buffer (persistent=False")

    notifications = run["invocations"][0]["toolExecutionNotifications"]
    assert [(n["level"], n["message"]["text"]) for n in notifications] == [("error", "no such file or directory")]


def test_sarif_of_a_clean_run_is_valid_and_has_no_results(project: Path, sarif_validator):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "sarif", "models/__init__.py")
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    _assert_valid(sarif_validator, log)
    assert log["runs"][0]["results"] == []


def test_the_schema_check_rejects_a_broken_log(project: Path, sarif_validator):
    """The validator is a real check: a log without a location's required parts fails it."""
    log = json.loads(invoke("--no-validate", "--unsafe-fixes", "--check", "--output-format", "sarif", ".").stdout)
    log["runs"][0]["results"][0]["level"] = "severe"  # not one of none/note/warning/error
    assert list(sarif_validator.iter_errors(log))
    del log["version"]
    assert list(sarif_validator.iter_errors(log))


# -- statistics ----------------------------------------------------------------------------------


def test_statistics_text_counts_findings_per_code(project: Path, write_tree):
    write_tree(project, {"models/encoder2.py": ENCODER.replace("Encoder", "Encoder2")})
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--statistics", ".")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "3  BUF101  rewrite  non-persistent-buffer",
        "1  BUF103  rewrite  trained-tensor-parameter",
        "1  BUF301  report   tensor-container",
    ]
    assert not any(line.startswith("models/") for line in lines)  # counts instead of the list
    assert lines[-1].startswith("5 files scanned, 3 would change")


def test_statistics_json(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--statistics", "--output-format", "json", ".")
    rows = json.loads(result.stdout)
    assert rows == [
        {"code": "BUF101", "name": "non-persistent-buffer", "count": 2, "rewrites": True},
        {"code": "BUF103", "name": "trained-tensor-parameter", "count": 1, "rewrites": True},
        {"code": "BUF301", "name": "tensor-container", "count": 1, "rewrites": False},
    ]


def test_statistics_with_sarif_is_a_usage_error(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--statistics", "--output-format", "sarif", ".")
    assert result.exit_code == 2
    assert "--statistics" in result.stderr


# -- exit-zero -----------------------------------------------------------------------------------


def test_exit_zero_under_check_with_pending_rewrites(project: Path):
    before = python_files(project)
    assert invoke("--no-validate", "--unsafe-fixes", "--check", ".").exit_code == 1
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--exit-zero", ".")
    assert result.exit_code == 0
    assert "would rewrite models/encoder.py" in result.stdout
    assert python_files(project) == before


def test_exit_zero_still_exits_2_on_errors(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--exit-zero", ".", "missing.py")
    assert result.exit_code == 2
