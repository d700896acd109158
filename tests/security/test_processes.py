"""Validation leaves no process behind: workers and what they start live in their own
process group, killed as a group at the end, and when the tool's process dies."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from codemod.validate.runner import _frame_from_dump

from .conftest import codemod_process, run_codemod

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups")

FORKER = """\
import os
import subprocess
import sys
import time

import torch
from torch import nn

MARKS = {marks!r}


class Forker(nn.Module):
    def __init__(self):
        super().__init__()
        with open(os.path.join(MARKS, f"group-{{os.getpid()}}"), "w") as handle:
            handle.write(str(os.getpgid(0)))
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        self.mask = torch.ones(3)
        {tail}
"""


def _groups(marks: Path) -> set[int]:
    return {int(p.read_text()) for p in marks.glob("group-*")}


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_gone(groups: set[int], seconds: float = 20.0) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = {g for g in groups if _alive(g)}
        if not left:
            return left
        time.sleep(0.2)
    return {g for g in groups if _alive(g)}


def _project(root: Path, marks: Path, tail: str = "") -> None:
    (root / "pyproject.toml").write_text("")
    (root / "model.py").write_text(FORKER.format(marks=str(marks), tail=tail))


def test_children_of_constructors_are_killed_with_the_worker(tmp_path: Path):
    root, marks = tmp_path / "repo", tmp_path / "marks"
    root.mkdir(), marks.mkdir()
    _project(root, marks)
    result = run_codemod(["run", "--dry-run", "--jobs", "1", "."], root, timeout=300)
    assert "Forker" in result.stdout, result.stderr
    groups = _groups(marks)
    assert groups and os.getpgid(0) not in groups, "workers run in process groups of their own"
    assert _wait_gone(groups, 5.0) == set(), "processes left behind"


def test_a_killed_parent_takes_its_workers_and_their_children_along(tmp_path: Path):
    root, marks = tmp_path / "repo", tmp_path / "marks"
    root.mkdir(), marks.mkdir()
    # The constructor spins holding the GIL: a watch thread in the worker could never run.
    _project(root, marks, tail="while True:\n            pass")
    parent = codemod_process(["run", "--dry-run", "--jobs", "1", "--timeout", "600", "."], root)
    try:
        deadline = time.monotonic() + 240
        while not _groups(marks) and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
        groups = _groups(marks)
        assert groups, "the constructor never ran"
        time.sleep(0.5)  # its children are started
        assert all(_alive(g) for g in groups)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    assert _wait_gone(groups) == set(), "a worker (or what it started) outlived the killed parent"


def test_a_crash_is_located_in_the_crashing_thread_at_the_repository_frame(tmp_path: Path):
    dump = (
        "Fatal Python error: Segmentation fault\n\n"
        "Thread 0x00007f1 (most recent call first):\n"
        '  File "/usr/lib/python3.11/threading.py", line 324 in wait\n'
        '  File "/usr/lib/python3.11/threading.py", line 1002 in _bootstrap\n\n'
        "Current thread 0x00007f2 (most recent call first):\n"
        '  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at\n'
        f'  File "{tmp_path}/repo/model.py", line 10 in __init__\n'
        '  File "/x/codemod/validate/side.py", line 80 in build\n'
    )
    assert _frame_from_dump(dump, tmp_path / "repo") == f"{tmp_path}/repo/model.py:10 in __init__"
