"""Safe defaults where nobody reads the output: CI, pre-commit, pipes.

- a rewrite that is not written, for whatever reason, is still pending: `--check` exits 1;
- without validation only statically safe rewrites are written, unless --unsafe-fixes;
- Ctrl-C exits 130 and says what was left unwritten;
- a dry run says what "would be written", never "written";
- --show-settings prints a [tool.codemod] table the file accepts back as it is.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import ENCODER, ENCODER_REWRITTEN, NOISY, REPO_ROOT, invoke, make_project
from codemod.config import KNOWN_KEYS, load_config

INDICES = """\
import torch
from torch import nn


class Indices(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.idx = torch.arange(n, dtype=torch.long)

    def forward(self, x):
        return x[..., self.idx]
"""
INDICES_REWRITTEN = INDICES.replace(
    "self.idx = torch.arange(n, dtype=torch.long)", 'self.register_buffer("idx", torch.arange(n, dtype=torch.long), persistent=False)'
)


@pytest.fixture
def project(tmp_path: Path, write_tree, monkeypatch) -> Path:
    root = make_project(tmp_path / "proj", write_tree, {"models/indices.py": INDICES})
    monkeypatch.chdir(root)
    return root


# -- without validation: statically safe rewrites only ---------------------------------------------


def test_no_validate_writes_only_statically_safe_rewrites(project: Path):
    result = invoke("--no-validate", ".")
    assert result.exit_code == 1, result.output  # rewrites held back are still pending
    assert (project / "models" / "indices.py").read_text() == INDICES_REWRITTEN  # an integer constant: safe
    assert (project / "models" / "encoder.py").read_text() == ENCODER  # a float buffer: a cast changes it
    assert (project / "models" / "noisy.py").read_text() == NOISY  # a new state_dict key and a parameter
    lines = stdout_lines(result)
    [mask] = [line for line in lines if "Encoder.mask" in line]
    assert mask.endswith("[not statically safe, not written]")
    [idx] = [line for line in lines if "Indices.idx" in line]
    assert "not written" not in idx
    assert lines[-1] == "5 files scanned, 1 changed, 1 buffer, 0 parameters, 1 skipped, 3 held back (--unsafe-fixes writes them)"
    # --check agrees: nothing left but the held-back rewrites, which are still pending
    checked = invoke("--no-validate", "--check", ".")
    assert checked.exit_code == 1
    assert stdout_lines(checked)[-1].endswith("3 held back (--unsafe-fixes writes them)")
    # --unsafe-fixes writes them; then nothing is pending
    unsafe = invoke("--no-validate", "--unsafe-fixes", ".")
    assert unsafe.exit_code == 0, unsafe.output
    assert (project / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN
    assert "held back" not in unsafe.stdout
    assert invoke("--no-validate", "--check", ".").exit_code == 0


def test_held_back_rewrites_are_in_json_with_the_reason(project: Path):
    document = json.loads(invoke("--no-validate", "--check", "--format", "json", ".").stdout)
    rewrites = {f["attribute"]: f for f in document["findings"] if f["action"] != "skip"}
    assert rewrites["idx"]["held_back"] is None and rewrites["idx"]["would_be_written"] is True
    assert rewrites["mask"]["held_back"] == "not statically safe and not validated (--unsafe-fixes writes it)"
    assert rewrites["mask"]["would_be_written"] is False
    assert document["summary"]["held_back"] == 3


def test_the_pre_commit_fix_hook_is_a_static_run_with_the_safe_policy():
    import re

    text = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text()
    entries = dict(re.findall(r"^- id: (\S+)\n(?:  .*\n)*?  entry: (.+)$", text, flags=re.M))
    assert entries == {"codemod-check": "codemod run --check --no-validate", "codemod-fix": "codemod run --no-validate"}


# -- --check with validation that could not run ----------------------------------------------------


BROKEN = """\
import os

import torch
from torch import nn

SETTINGS = os.environ["A_VARIABLE_THIS_ENVIRONMENT_LACKS"]  # the import fails here


class Broken(nn.Module):
    def __init__(self, n=len(SETTINGS)):  # no class without the setting
        super().__init__()
        self.idx = torch.arange(n, dtype=torch.long)

    def forward(self, x):
        return x + self.idx
"""


def test_check_does_not_pass_when_validation_could_not_run(tmp_path: Path, write_tree, monkeypatch):
    # The repository's import fails, so validation cannot run: the rewrite is not written
    # and stays pending, and the run says why.
    root = write_tree(tmp_path / "broken", {"pyproject.toml": "[project]\nname = 'b'\n", "model.py": BROKEN})
    monkeypatch.chdir(root)
    result = invoke("--check", "--no-cache", "--jobs", "1", ".")
    assert result.exit_code == 1, result.output
    lines = stdout_lines(result)
    [finding] = [line for line in lines if "Broken.idx" in line]
    assert "[passed" not in finding
    assert finding.endswith(", not written]"), finding
    assert any("A_VARIABLE_THIS_ENVIRONMENT_LACKS" in line for line in lines), lines
    assert ", 1 held back (--unsafe-fixes writes them)" in lines[-1]
    # nothing else pending: --exit-zero makes it pass on purpose only
    assert invoke("--check", "--no-cache", "--exit-zero", "--jobs", "1", ".").exit_code == 0


# -- Ctrl-C ----------------------------------------------------------------------------------------


def test_ctrl_c_while_writing_exits_130_and_names_what_was_left(project: Path, monkeypatch):
    from codemod import runner

    real = runner.write_source_atomic
    calls = []

    def write_then_stop(source, *args, **kwargs):
        calls.append(source.path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(source, *args, **kwargs)

    monkeypatch.setattr(runner, "write_source_atomic", write_then_stop)
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output
    [line] = result.stderr.splitlines()
    written = display(calls[0])
    assert line.startswith("codemod: interrupted while writing; "), line
    assert f"written: {written}" in line
    left = [p for p in ("models/encoder.py", "models/indices.py", "models/noisy.py") if p != written]
    assert line.endswith(f"left unwritten: {', '.join(left)}"), line


def display(path: Path) -> str:
    return Path(path).relative_to(Path.cwd().resolve()).as_posix()


def test_ctrl_c_before_anything_is_decided_says_nothing_was_written(project: Path, monkeypatch):
    from codemod import runner

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_analyse_one", stop)
    result = invoke("--no-validate", "--no-cache", "--jobs", "1", ".")
    assert result.exit_code == 130
    assert result.stderr == "codemod: interrupted while analysing; nothing was written (the rewrites were not yet decided)\n"
    assert (project / "models" / "encoder.py").read_text() == ENCODER
    dry = invoke("--no-validate", "--no-cache", "--jobs", "1", "--dry-run", ".")
    assert dry.exit_code == 130 and "this run writes nothing" in dry.stderr


def test_ctrl_c_that_an_import_wraps_in_another_error_is_still_an_interruption(project: Path, monkeypatch):
    from codemod import runner

    def stop(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:  # what `abc` makes of one landing in a class body being imported
            raise RuntimeError("Error calling __set_name__") from exc

    monkeypatch.setattr(runner, "_analyse_one", stop)
    result = invoke("--no-validate", "--no-cache", "--jobs", "1", ".")
    assert result.exit_code == 130, result.output
    assert result.stderr == "codemod: interrupted while analysing; nothing was written (the rewrites were not yet decided)\n"

    assert not runner._caused_by_interrupt(RuntimeError("a real error"))  # any other error stays one


SLOW_MODEL = """\
import time

import torch
from torch import nn


class Slow(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        time.sleep(60)
        self.scale = torch.ones(n)

    def forward(self, x):
        return x * self.scale
"""


@pytest.mark.slow
def test_a_real_ctrl_c_during_validation_exits_130(tmp_path: Path, write_tree):
    root = write_tree(tmp_path / "slow", {"pyproject.toml": "[project]\nname = 's'\n", "model.py": SLOW_MODEL})
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "codemod", "run", "--no-cache", "--jobs", "1", "."],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        # Validation starts workers that build the class (which sleeps): interrupt then.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not _worker_started(process.pid):
            time.sleep(0.2)
        time.sleep(1.0)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stdout + stderr
    assert "codemod: interrupted while validating; written: " not in stderr
    assert "left unwritten: model.py" in stderr or "nothing was written" in stderr, stderr
    assert "Traceback" not in stderr
    assert (root / "model.py").read_text() == SLOW_MODEL


def _worker_started(pid: int) -> bool:
    """Whether the run has started a process of its own (a validation worker or zygote)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return True  # no /proc: fall back on the sleep
    return bool(children)


# -- dry runs say "would be written" ---------------------------------------------------------------


def test_dry_run_json_and_json_lines_say_would_be_written(project: Path):
    for output_format in ("json", "json-lines"):
        for mode in ("--dry-run", "--check"):
            out = invoke("--no-validate", mode, "--format", output_format, ".").stdout
            assert '"written"' not in out and '"would_be_written"' in out, (output_format, mode)
    written = json.loads(invoke("--no-validate", "--format", "json", ".").stdout)
    rewrites = {f["attribute"]: f for f in written["findings"] if f["action"] != "skip"}
    assert "would_be_written" not in rewrites["idx"]
    assert rewrites["idx"]["written"] is True and rewrites["mask"]["written"] is False


def test_dry_run_report_says_would_be_written(project: Path):
    invoke("--no-validate", "--dry-run", "--report", "pr.md", ".")
    report = (project / "pr.md").read_text()
    assert "| Would be written |" in report and "| Written |" not in report
    assert "would change" in report and " changed," not in report
    invoke("--no-validate", "--report", "pr.md", ".")
    report = (project / "pr.md").read_text()
    assert "| Written |" in report and " 1 changed," in report


# -- --show-settings round trip --------------------------------------------------------------------


def test_show_settings_is_a_table_that_pyproject_accepts_back(project: Path):
    (project / "codemod_examples.py").write_text("")
    shown = invoke("--show-settings", "--unsafe-fixes", "--allow-new-keys", "--python", sys.executable, "--select", "BUF1",
                   "--ignore", "BUF102", "--exclude", "legacy/", "--jobs", "3", "--timeout", "12.5", "--no-color", ".")
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    keys = {line.split(" = ", 1)[0] for line in text.splitlines() if line and not line.startswith(("#", "["))}
    assert {k.replace("-", "_") for k in keys} == set(KNOWN_KEYS) - {"format"}  # every setting, once
    (project / "pyproject.toml").write_text(text)  # as it is
    config = load_config(project)
    assert config["unsafe_fixes"] is True and config["allow_new_keys"] is True
    assert Path(config["python"]) == Path(sys.executable)
    assert config["select"] == ("BUF1",) and config["ignore"] == ("BUF102",) and config["exclude"] == ["legacy/"]
    assert config["jobs"] == 3 and config["timeout"] == 12.5 and config["color"] is False
    assert config["examples"] == project / "codemod_examples.py"
    # read back, it resolves to the same settings (now all from pyproject.toml)
    again = invoke("--show-settings", ".")
    assert _values(again.stdout) == _values(text)
    assert all(line.endswith("# pyproject.toml") for line in _settings(again.stdout)), again.stdout


def test_show_settings_defaults_round_trip(project: Path):
    text = invoke("--show-settings", ".").stdout
    assert "unsafe-fixes = false  # default" in text and "allow-new-keys = false  # default" in text
    assert "\npython = " in text and '\nformatter = "none"' in text
    (project / "pyproject.toml").write_text(text)
    load_config(project)
    assert _values(invoke("--show-settings", ".").stdout) == _values(text)


def _settings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(("#", "["))]


def _values(text: str) -> list[str]:
    return [line.split("  # ", 1)[0] for line in _settings(text)]


def stdout_lines(result) -> list[str]:
    return result.stdout.splitlines()


# -- records live in the user cache directory; `codemod clean` removes them -------------------------


RECORDED = """\
import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = torch.ones(n)

    def forward(self, x):
        return x * self.scale
"""


def test_record_keeps_records_in_the_cache_directory_and_clean_removes_them(tmp_path: Path, write_tree, monkeypatch):
    from click.testing import CliRunner

    from codemod.cli import main
    from codemod.validate.record import default_records_dir, record_file

    root = write_tree(tmp_path / "rec", {"pyproject.toml": "[project]\nname = 'r'\n", "pkg/__init__.py": "",
                                         "pkg/model.py": RECORDED})
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    monkeypatch.setenv("CODEMOD_CACHE_DIR", str(cache))
    runner = CliRunner()
    command = "import torch; from pkg.model import Scaler; Scaler(4)(torch.ones(4))"
    recorded = runner.invoke(main, ["record", "--", sys.executable, "-c", command], catch_exceptions=False)
    assert recorded.exit_code == 0, recorded.output
    assert "recorded pkg.model.Scaler (constructor + forward inputs)" in recorded.stderr
    folder = default_records_dir(root)
    assert folder.parent == cache / "records" and str(folder) in recorded.stderr
    assert record_file(folder, root, root / "pkg" / "model.py", "Scaler") is not None  # where validation looks
    assert not (root / ".codemod").exists()  # nothing in the repository
    cleaned = runner.invoke(main, ["clean"], catch_exceptions=False)
    assert f"removed {folder}" in cleaned.stdout
    assert not folder.exists()
