"""The README is true: its sample output, install steps, commands and configuration keys.

`pytest tests/test_readme.py --update-golden` rewrites the quick start's sample output from
what the command prints now (review the diff afterwards).
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import tool_env
from codemod import cli
from codemod.config import KNOWN_KEYS, load_config

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
EXAMPLE = REPO_ROOT / "examples" / "research_repo"


def section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def _env() -> dict[str, str]:
    return tool_env(CUDA_VISIBLE_DEVICES="")  # the sample is what a machine without a GPU prints


def _example_copy(tmp_path: Path) -> Path:
    """examples/research_repo under tmp_path, as in a fresh checkout (no cache, no records)."""
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "research_repo", ignore=shutil.ignore_patterns(".codemod", "__pycache__"))
    return tmp_path


# -- the quick start prints the README's sample ---------------------------------------------------


@pytest.mark.slow
def test_quick_start_prints_the_readme_sample(tmp_path: Path, request) -> None:
    text = README.read_text(encoding="utf-8")
    quick = section(text, "Quick start")
    command = blocks(quick, "sh")[0].splitlines()[0].split("#")[0]
    args = shlex.split(command)
    assert args[0] == "codemod" and "examples/research_repo" in args
    [sample] = blocks(quick, "diff")
    completed = subprocess.run(
        [sys.executable, "-m", "codemod", *args[1:]], cwd=_example_copy(tmp_path), env=_env(),
        capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr
    if request.config.getoption("--update-golden"):
        README.write_text(text.replace(f"```diff\n{sample}```", f"```diff\n{completed.stdout}```"), encoding="utf-8")
        return
    assert completed.stdout == sample, "the README's sample is not what the quick start prints (--update-golden rewrites it)"
    assert "rewrites proven by running; validation of " in sample  # the sample shows validation verdicts


# -- install steps --------------------------------------------------------------------------------


def test_ci_installs_as_the_readme_says() -> None:
    install = section(README.read_text(encoding="utf-8"), "Install")
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    ci_commands = [line.split("#")[0].strip() for line in ci.splitlines() if re.match(r"\s*python -m (pip|pytest)", line)]
    development = blocks(install, "sh")[-1].splitlines()
    assert development[-3:] == ['pip install -e ".[test]"', "python -m pytest -q", "python -m pytest -q -m slow"]
    torch_step = development[-4]
    assert torch_step == "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    # CI: the CPU build of the same torch first, then the test extra, then the README's test command.
    assert ci_commands == ["python -m pip install torch==2.13.0", 'python -m pip install -e ".[test]"', "python -m pytest -q",
                           "python -m pytest -q -m slow"]
    assert "`pip install torch==2.13.0`" in install  # the README says why CI drops the index URL
    assert "torch-buffer-codemod" in install


def _pyproject() -> dict:
    import tomllib

    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def test_the_test_extra_installs_everything_the_tests_import() -> None:
    project = _pyproject()["project"]
    declared = {re.split(r"[<>=!~; \[]", r, maxsplit=1)[0].lower() for r in project["dependencies"] + project["optional-dependencies"]["test"]}
    # The tool, the tests' own helper modules, and packages of the repositories they write.
    local = {"codemod", "pkg", "graphs", "eventx", "benchmarks", "run_benchmark", "tests"}
    local |= {path.stem for path in (REPO_ROOT / "tests").glob("*.py")}
    distributions = {"pre_commit": "pre-commit", "pytest_lsp": "pytest-lsp", "pytest_asyncio": "pytest-asyncio", "yaml": "pyyaml"}
    imported: set[str] = set()
    for path in (REPO_ROOT / "tests").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {name for name in imported if name not in sys.stdlib_module_names and name not in local}
    assert {"torch", "numpy", "pytest"} <= third_party
    missing = {name for name in third_party if distributions.get(name, name).lower() not in declared}
    assert not missing, f"imported by the tests but not in the test extra: {sorted(missing)}"
    assert "pre-commit" in declared  # tests/test_pre_commit.py runs it


def test_torch_is_not_a_dependency_of_the_static_tool() -> None:
    project = _pyproject()["project"]
    assert project["name"] == "torch-buffer-codemod"
    assert not [r for r in project["dependencies"] if r.startswith("torch")]
    assert any(r.startswith("torch") for r in project["optional-dependencies"]["validate"])
    assert list(project["scripts"]) == ["codemod"]


# -- configuration keys ---------------------------------------------------------------------------


def documented_keys() -> dict[str, str]:
    """key -> the option column, from the README's table of [tool.codemod] keys."""
    text = section(README.read_text(encoding="utf-8"), "Command line")
    keys: dict[str, str] = {}
    for key, alias, option in re.findall(r"^\| `([a-z-]+)`(?: \(or `([a-z-]+)`\))? \| .+? \| (`--.+) \|$", text, flags=re.M):
        keys[key] = option
        if alias:
            keys[alias] = option
    return keys


VALID = {
    "persistent": '"never"', "exclude": '["scripts/"]', "output-format": '"sarif"', "select": '["BUF1"]',
    "ignore": '["BUF101"]', "validate": "false",
    "require-validated": "true", "unsafe-fixes": "false", "allow-new-keys": "true", "jobs": "2", "device": '"cuda:1"', "examples": '"codemod_examples.py"',
    "timeout": "12.5", "cache": "false", "color": "false", "check": "true", "dry-run": "true",
    "quiet": "true", "parse-all": "true", "formatter": '"none"', "python": '"python3"',
}


def test_documented_keys_are_exactly_the_known_keys(tmp_path: Path) -> None:
    documented = documented_keys()
    assert {key.replace("-", "_") for key in documented} == set(KNOWN_KEYS)
    (tmp_path / "codemod_examples.py").write_text("")
    aliases = {"format"}  # the same key as output-format: one of the two at a time
    table = "\n".join(f"{key} = {VALID[key]}" for key in documented if key not in aliases)
    (tmp_path / "pyproject.toml").write_text(f"[tool.codemod]\n{table}\n")
    assert set(load_config(tmp_path)) | aliases == set(KNOWN_KEYS)
    (tmp_path / "pyproject.toml").write_text('[tool.codemod]\nformat = "json"\n')
    assert load_config(tmp_path)


def test_every_run_option_can_be_set_in_pyproject() -> None:
    import click

    options = {p.name for p in cli.run_command.params if isinstance(p, click.Option)} - {"help"}
    # exclude, select and ignore combine flag and key; color is resolved with NO_COLOR/FORCE_COLOR.
    configurable = set(cli._FLAG_TO_CONFIG) | {"excludes", "select", "ignore", "color"}
    assert options - configurable == set(cli.PER_INVOCATION), "options neither read from [tool.codemod] nor per invocation"
    assert set(cli._FLAG_TO_CONFIG.values()) <= set(KNOWN_KEYS)
    readme = section(README.read_text(encoding="utf-8"), "Command line")
    for option in cli.PER_INVOCATION:
        flag = {"verbose": "-v", "report_path": "--report"}.get(option, "--" + option.replace("_", "-"))
        assert f"`{flag}`" in readme.split("is for one invocation")[0].rsplit("Every other option", 1)[1]


MODEL = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.idx = torch.arange(n, dtype=torch.long)
"""


def test_check_and_quiet_from_pyproject_take_effect(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "pyproject.toml").write_text("[tool.codemod]\ncheck = true\nquiet = true\nvalidate = false\n")
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "codemod", "run", *args, "."], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120
    )
    checked = run()
    assert checked.returncode == 1
    # quiet, as ruff's: the findings, no summary
    [finding] = checked.stdout.splitlines()
    assert finding.startswith("model.py:8:9: Model.idx -> register_buffer")
    assert (tmp_path / "model.py").read_text() == MODEL
    loud = run("--no-quiet")
    assert loud.stdout.splitlines()[0] == finding
    assert loud.stdout.splitlines()[-1] == "1 file scanned, 1 would change, 1 buffer, 0 parameters, 0 skipped"
    written = run("--no-check")
    assert written.returncode == 0
    assert 'self.register_buffer("idx"' in (tmp_path / "model.py").read_text()


# -- codemod record ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("runner", ["readme", "bare pytest"])
def test_record_command_of_the_readme_works_on_the_example(tmp_path: Path, runner: str) -> None:
    text = README.read_text(encoding="utf-8")
    readme_command = re.findall(r"`(codemod record -- [^`]+)`", section(text, "Validation"))[0]
    args = shlex.split(readme_command)
    assert args[3:6] == ["python", "-m", "pytest"]
    if runner == "bare pytest":
        # A bare `pytest` does not put the current directory on sys.path; recording does.
        args = [*args[:3], "pytest", *args[6:]]
    script = Path(sys.executable).parent / "pytest"  # the console script, as a user types it
    assert script.is_file(), script
    args[3] = {"python": sys.executable, "pytest": str(script)}[args[3]]
    project = _example_copy(tmp_path) / "examples" / "research_repo"
    completed = subprocess.run(
        [sys.executable, "-m", "codemod", *args[1:]], cwd=project, env=_env(), capture_output=True, text=True, timeout=600
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "recorded eventx.models.casee.CasEE (constructor + forward inputs)" in completed.stderr
    from codemod.validate.record import default_records_dir

    assert (default_records_dir(project) / "index.json").is_file()  # in the user cache directory
    assert not (project / ".codemod").exists()


# -- the rules reference --------------------------------------------------------------------------


def test_the_rules_reference_is_generated_from_the_registry() -> None:
    """`python -m codemod.tools.rules_reference --write` regenerates it."""
    from codemod.rules.registry import REGISTRY
    from codemod.tools.rules_reference import END, START, markdown

    text = README.read_text(encoding="utf-8")
    generated = text[text.index(START) + len(START) : text.index(END)]
    assert generated == "\n" + markdown()
    for code, rule in REGISTRY.items():
        assert f'<a id="{code.lower()}"></a>' in generated
        assert rule.fact and rule.before, f"{code} has no torch fact or example"
        assert bool(rule.after) == rule.rewrites or code == "BUF205", f"{code}: a rewrite shows what it becomes"
