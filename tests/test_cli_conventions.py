"""Conventions of the command line: stdin, -V, -v, --show-files, --show-settings, colour
variables, wording and plurals, the warning when no Python file is found."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_support import ENCODER, ENCODER_REWRITTEN, NOISY, invoke, make_project, python_files, subprocess_run
from codemod import __version__

ANSI = re.compile(rb"\x1b\[[0-9;]*m")
ENCODER_FINDING = (
    "models/encoder.py:9:9: Encoder.mask -> register_buffer "
    "(persistent=False: derived from constructor arguments; rebuilt on each construction)"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree) -> Path:
    root = make_project(tmp_path / "proj", write_tree)
    monkeypatch.chdir(root)
    return root


# -- standard input ------------------------------------------------------------------------------


def test_stdin_writes_the_rewritten_source_to_stdout_and_the_report_to_stderr(project: Path):
    before = python_files(project)
    result = invoke("--no-validate", "--unsafe-fixes", "--stdin-filename", "models/encoder.py", "-", input=ENCODER)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ENCODER_REWRITTEN
    assert ENCODER_FINDING in result.stderr.splitlines()
    assert python_files(project) == before, "nothing on disk is written"


def test_stdin_without_a_filename_is_shown_as_dash(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "-", input=ENCODER)
    assert result.stdout == ENCODER_REWRITTEN
    assert result.stderr.splitlines()[0].startswith("-:9:9: Encoder.mask -> register_buffer")


def test_stdin_with_nothing_to_rewrite_echoes_the_source(project: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "-", input=ENCODER_REWRITTEN)
    assert result.exit_code == 0
    assert result.stdout == ENCODER_REWRITTEN


def test_stdin_check_and_dry_run_follow_the_file_semantics(project: Path):
    check = invoke("--no-validate", "--unsafe-fixes", "--check", "--stdin-filename", "models/encoder.py", "-", input=ENCODER)
    assert check.exit_code == 1
    assert check.stdout.splitlines() == [
        ENCODER_FINDING,
        "would rewrite models/encoder.py",
        "1 file scanned, 1 would change, 1 buffer, 0 parameters, 0 skipped",
    ]
    clean = invoke("--no-validate", "--unsafe-fixes", "--check", "-", input=ENCODER_REWRITTEN)
    assert clean.exit_code == 0
    assert clean.stdout.splitlines() == ["1 file scanned, 0 would change, 0 buffers, 0 parameters, 0 skipped"]

    diff = invoke("--no-validate", "--unsafe-fixes", "--dry-run", "--stdin-filename", "models/encoder.py", "-", input=ENCODER)
    assert diff.exit_code == 0
    assert diff.stdout.startswith("--- a/models/encoder.py\n+++ b/models/encoder.py\n")
    assert '+        self.register_buffer("mask", torch.ones(size), persistent=False)\n' in diff.stdout


def test_stdin_filename_picks_the_project_configuration(project: Path, tmp_path: Path, monkeypatch, write_tree):
    with open(project / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\npersistent = "state"\n')
    monkeypatch.chdir(tmp_path)  # elsewhere: the configuration comes from the named file's project
    result = invoke("--no-validate", "--unsafe-fixes", "--stdin-filename", str(project / "models" / "noisy.py"), "-", input=NOISY)
    assert 'self.register_buffer("noise", torch.randn(dim))\n' in result.stdout


def test_stdin_finds_what_a_run_over_the_same_file_finds(project: Path, write_tree):
    """Source on stdin is decided like the file it names: the same findings, the same text."""
    write_tree(project, {"models/base.py": "from torch import nn\n\n\nclass Base(nn.Module):\n    pass\n"})
    child = (
        "import torch\nfrom models.base import Base\n\n\nclass Child(Base):\n"
        "    def __init__(self):\n        super().__init__()\n        self.table = torch.zeros(3)\n"
        "        self.mask = torch.ones(3)\n"
    )
    write_tree(project, {"models/child.py": child})
    on_disk = invoke("--no-validate", "--unsafe-fixes", "--check", "--no-cache", "models/child.py")
    from_stdin = invoke("--no-validate", "--unsafe-fixes", "--check", "--stdin-filename", "models/child.py", "-", input=child)
    assert from_stdin.exit_code == on_disk.exit_code
    assert from_stdin.stdout == on_disk.stdout
    dry = invoke("--no-validate", "--unsafe-fixes", "--dry-run", "--no-color", "models/child.py")
    dry_stdin = invoke("--no-validate", "--unsafe-fixes", "--dry-run", "--no-color", "--stdin-filename", "models/child.py", "-", input=child)
    assert dry_stdin.stdout == dry.stdout


def test_stdin_keeps_crlf_and_the_encoding(project: Path):
    data = ("# -*- coding: latin-1 -*-\n# café\n" + ENCODER).replace("\n", "\r\n").encode("latin-1")
    result = invoke("--no-validate", "--unsafe-fixes", "-", input=data)
    assert result.exit_code == 0
    assert result.stdout_bytes == ("# -*- coding: latin-1 -*-\n# café\n" + ENCODER_REWRITTEN).replace("\n", "\r\n").encode("latin-1")


def test_stdin_that_does_not_parse_exits_2_and_echoes_the_input(project: Path):
    broken = "import torch\n\nclass Broken(\n"
    result = invoke("--no-validate", "--unsafe-fixes", "--parse-all", "--stdin-filename", "broken.py", "-", input=broken)
    assert result.exit_code == 2
    assert result.stdout == broken
    assert result.stderr.splitlines()[0].startswith("broken.py: error: ")


def test_stdin_usage_errors(project: Path):
    assert invoke("--no-validate", "--unsafe-fixes", "-", "models", input=ENCODER).exit_code == 2
    assert invoke("--no-validate", "--unsafe-fixes", "--stdin-filename", "x.py", "models").exit_code == 2
    needs_validation = invoke("--require-validated", "-", input=ENCODER)
    assert needs_validation.exit_code == 2
    assert "validation does not run on standard input" in needs_validation.stderr


def test_stdin_verbose_says_validation_is_not_run(project: Path):
    result = invoke("-v", "-", input=ENCODER)  # validation on by default, yet not run for stdin
    assert "codemod: validation: not run for standard input" in result.stderr
    # Not validated, so only statically safe rewrites are written: a float buffer is held back.
    assert result.exit_code == 1
    assert result.stdout == ENCODER
    assert "Encoder.mask -> register_buffer" in result.stderr and "[not statically safe, not written]" in result.stderr
    assert "1 held back (--unsafe-fixes writes them)" in result.stderr
    assert "[passed]" not in result.stderr
    unsafe = invoke("--unsafe-fixes", "-", input=ENCODER)
    assert (unsafe.exit_code, unsafe.stdout) == (0, ENCODER_REWRITTEN)


# -- version, verbose, show-files, show-settings --------------------------------------------------


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(project: Path, flag: str):
    result = subprocess_run([flag], cwd=project, text=True)
    assert result.returncode == 0
    assert result.stdout.strip() == f"codemod, version {__version__}"


def test_verbose_goes_to_stderr_and_leaves_stdout_alone(project: Path):
    quiet = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    verbose = invoke("--no-validate", "--unsafe-fixes", "--check", "-v", ".")
    assert verbose.stdout == quiet.stdout
    lines = verbose.stderr.splitlines()
    assert f"codemod: project root: {project.resolve()}" in lines or f"codemod: project root: {project}" in lines
    assert "codemod: configuration: none ([tool.codemod] not found)" in lines
    assert "codemod: validation: off" in lines
    assert any(re.fullmatch(r"codemod: 4 files analysed in \d+\.\d\d s", line) for line in lines), lines


def test_show_files_lists_what_would_be_analysed_and_exits(project: Path, write_tree):
    write_tree(project, {"legacy/old.py": ENCODER, ".gitignore": "legacy/\n"})
    before = python_files(project)
    result = invoke("--show-files", "--exclude", "models/pair.py", ".")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["models/__init__.py", "models/encoder.py", "models/noisy.py"]
    assert python_files(project) == before


def test_show_settings_says_where_each_setting_comes_from(project: Path):
    with open(project / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\npersistent = "never"\nignore = ["BUF3"]\njobs = 3\n')
    result = invoke("--show-settings", "--jobs", "2", "--select", "BUF1,BUF2", ".")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "[tool.codemod]" in lines
    assert 'persistent = "never"  # pyproject.toml' in lines
    assert "jobs = 2  # command line" in lines
    assert 'select = ["BUF1", "BUF2"]  # command line' in lines
    assert 'ignore = ["BUF3"]  # pyproject.toml' in lines
    assert 'output-format = "text"  # default' in lines


# -- colour --------------------------------------------------------------------------------------


def _coloured(project: Path, *flags: str, env: dict | None = None) -> bool:
    result = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--dry-run", *flags, "."], cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    assert b"+        self.register_buffer" in ANSI.sub(b"", result.stdout)
    return b"\x1b[" in result.stdout


def test_colour_variables_and_flags(project: Path):
    assert not _coloured(project)  # a pipe: no colour
    assert _coloured(project, env={"FORCE_COLOR": "1"})
    assert not _coloured(project, env={"NO_COLOR": "1", "FORCE_COLOR": "1"})  # NO_COLOR wins
    assert _coloured(project, "--color", env={"NO_COLOR": "1"})  # a flag wins over the environment
    assert not _coloured(project, "--no-color", env={"FORCE_COLOR": "1"})
    assert _coloured(project, env={"NO_COLOR": "", "FORCE_COLOR": "1"})  # an empty NO_COLOR is unset
    with open(project / "pyproject.toml", "a") as handle:
        handle.write("\n[tool.codemod]\ncolor = true\n")
    assert _coloured(project)
    assert not _coloured(project, env={"NO_COLOR": "1"})  # the user's environment over the project's file


# -- wording -------------------------------------------------------------------------------------


def test_plurals_and_would_change_wording(project: Path):
    single = invoke("--no-validate", "--unsafe-fixes", "--check", "models/encoder.py")
    assert single.stdout.splitlines()[-2:] == [
        "would rewrite models/encoder.py",
        "1 file scanned, 1 would change, 1 buffer, 0 parameters, 0 skipped",
    ]
    dry = invoke("--no-validate", "--unsafe-fixes", "--dry-run", "models/noisy.py")
    assert dry.stdout.splitlines()[-1] == "1 file scanned, 1 would change, 1 buffer, 1 parameter, 0 skipped"
    assert "would rewrite" not in dry.stdout  # the diff already says which files
    written = invoke("--no-validate", "--unsafe-fixes", "models/encoder.py", "models/noisy.py", "missing.py")
    assert written.stdout.splitlines()[-1] == "2 files scanned, 2 changed, 2 buffers, 1 parameter, 0 skipped, 1 error"
    assert "would" not in written.stdout


def test_warning_when_no_python_file_is_found(project: Path, tmp_path: Path):
    empty = tmp_path / "empty"
    (empty / "docs").mkdir(parents=True)
    (empty / "docs" / "notes.txt").write_text("no python here\n")
    result = invoke("--no-validate", "--unsafe-fixes", str(empty))
    assert result.exit_code == 0
    assert result.stderr == f"warning: no Python files found under {empty}\n"
    assert result.stdout.splitlines() == ["0 files scanned, 0 changed, 0 buffers, 0 parameters, 0 skipped"]
    excluded = invoke("--no-validate", "--unsafe-fixes", "--exclude", "models/", "models")
    assert "warning: no Python files found under models" in excluded.stderr
    shown = invoke("--show-files", str(empty))
    assert shown.exit_code == 0 and shown.stdout == "" and "warning: no Python files" in shown.stderr


def test_stdin_through_a_real_pipe(project: Path):
    result = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--stdin-filename", "models/encoder.py", "-"], cwd=project, input=ENCODER.encode())
    assert result.returncode == 0, result.stderr
    assert result.stdout == ENCODER_REWRITTEN.encode()
    assert ENCODER_FINDING.encode() in result.stderr
