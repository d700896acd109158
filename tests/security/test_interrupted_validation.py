"""Validation interrupted: SIGTERM stops it and removes its temporary folder; after a
SIGKILL, the next run that validates removes what the killed one left."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import codemod_process, run_codemod

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals")


SLEEPER = """\
import os
import time

import torch
from torch import nn


class Sleeper(nn.Module):
    def __init__(self):
        super().__init__()
        open(os.path.join({marks!r}, f"built-{{os.getpid()}}"), "w").close()
        time.sleep(600)
        self.mask = torch.ones(3)
"""


def _scratch(tmpdir: Path) -> list[Path]:
    return sorted(tmpdir.glob("codemod-validate-*"))


@pytest.mark.parametrize("signal_sent", ["SIGTERM", "SIGKILL"])
def test_validation_folders_are_removed_on_sigterm_and_by_the_next_run_after_sigkill(tmp_path: Path, signal_sent: str):
    root, marks, tmpdir = tmp_path / "repo", tmp_path / "marks", tmp_path / "tmp"
    for directory in (root, marks, tmpdir):
        directory.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "model.py").write_text(SLEEPER.format(marks=str(marks)))
    env_tmp = {"TMPDIR": str(tmpdir)}
    parent = codemod_process(["run", "--jobs", "1", "--timeout", "600", "."], root, env_extra=env_tmp,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not list(marks.glob("built-*")) and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
        assert list(marks.glob("built-*")), "the constructor never ran"
        (folder,) = _scratch(tmpdir)
        assert any(folder.iterdir()), "the folder holds the run's files"
        parent.send_signal(getattr(signal, signal_sent))
        _, stderr = parent.communicate(timeout=30)  # the stated bound: it stops, it does not wait for the model
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert (root / "model.py").read_text() == SLEEPER.format(marks=str(marks)), "nothing written"
    if signal_sent == "SIGTERM":
        assert parent.returncode == 128 + signal.SIGTERM
        assert "terminated: stopping validation and removing its temporary files" in stderr
        assert _scratch(tmpdir) == []
    else:
        assert parent.returncode == -signal.SIGKILL
        assert _scratch(tmpdir) == [folder], "a killed run cannot clean up"
        other = tmp_path / "other"
        other.mkdir()
        (other / "pyproject.toml").write_text("")
        (other / "m.py").write_text("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n"
                                    "        super().__init__()\n        self.mask = torch.ones(3)\n")
        result = run_codemod(["run", "--jobs", "1", "--dry-run", "."], other, timeout=240, env_extra=env_tmp)
        assert result.returncode == 0, result.stderr
        assert _scratch(tmpdir) == [], "the next run that validates removes what the killed one left"


def test_codemod_clean_removes_only_folders_a_dead_run_of_the_tool_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import tempfile

    from click.testing import CliRunner

    from codemod.cli import main

    dead = subprocess.Popen(["true"])
    dead.wait()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    left = tmp_path / f"codemod-validate-{dead.pid}-{'a' * 16}-x1"
    alive = tmp_path / f"codemod-validate-{os.getppid()}-{'b' * 16}-x2"
    unmarked = tmp_path / f"codemod-validate-{dead.pid}-{'c' * 16}-x3"
    mismatched = tmp_path / f"codemod-validate-{dead.pid}-{'d' * 16}-x4"
    for folder, marker in ((left, f"{dead.pid} {'a' * 16}\n"), (alive, f"{os.getppid()} {'b' * 16}\n"),
                           (unmarked, None), (mismatched, f"{dead.pid} {'e' * 16}\n")):
        folder.mkdir()
        (folder / "overlay.json").write_text("{}")
        if marker is not None:
            (folder / ".codemod-validate").write_text(marker)
    result = CliRunner().invoke(main, ["clean"])
    assert result.exit_code == 0, result.output
    assert f"removed {left}" in result.output
    assert not left.exists() and alive.exists() and unmarked.exists() and mismatched.exists()
