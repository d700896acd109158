"""The summary's advice when classes could not be built: record the repository's tests.

``codemod record -- python -m pytest TESTS`` captures how the tests build and
call every module class, and the next run validates the classes it saw.  The
estimate counts the unbuilt classes whose names appear in the test files.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Iterable

from codemod.ftypes import Verdict

_SKIP_DIRS = {".git", ".hg", ".venv", "venv", "env", "node_modules", "build", "dist", "__pycache__", ".tox",
              ".codemod", "site-packages"}
MAX_TEST_FILES = 2000


def test_files(root: Path) -> list[Path]:
    """``test_*.py`` / ``*_test.py`` files and anything under a ``tests``/``test`` folder."""
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        inside = any(part in ("tests", "test") for part in Path(directory).relative_to(root).parts)
        for name in sorted(filenames):
            if name.endswith(".py") and (inside or name.startswith("test_") or name.endswith("_test.py")):
                found.append(Path(directory) / name)
                if len(found) >= MAX_TEST_FILES:
                    return found
    return found


def _test_target(root: Path, files: list[Path]) -> str:
    for name in ("tests", "test"):
        if (root / name).is_dir():
            return name
    return ""


def record_hint(root: Path, analyses: Iterable) -> str | None:
    """One line for the summary, or None when there is nothing to gain or no tests."""
    verdicts: dict[tuple[str, str], object] = {}
    for analysis in analyses:
        for finding in analysis.result.findings:
            if finding.validation is not None:
                verdicts[(str(analysis.result.path), finding.class_name)] = finding.validation
    if not verdicts:
        return None
    unbuilt = sorted({cls for (_, cls), v in verdicts.items()
                      if v.verdict is Verdict.NOT_VALIDATED and "constructor arguments" in v.message})
    if not unbuilt:
        return None
    tests = test_files(Path(root))
    if not tests:
        return None
    text = []
    for path in tests:
        try:
            text.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    corpus = "\n".join(text)
    mentioned = [name for name in unbuilt if re.search(rf"\b{re.escape(name.split('.')[-1])}\b", corpus)]
    passed = sum(1 for v in verdicts.values() if v.verdict is Verdict.PASSED)
    target = _test_target(Path(root), tests)
    command = "codemod record -- python -m pytest" + (f" {shlex.quote(target)}" if target else "")
    if not mentioned:
        return (f"{len(unbuilt)} classes could not be built with no setup and the tests do not name them; "
                f"`{command}` may still record them if the tests build them indirectly")
    return (f"{len(unbuilt)} classes could not be built with no setup; the tests name {len(mentioned)} of them "
            f"({', '.join(mentioned[:4])}{', ...' if len(mentioned) > 4 else ''}): run `{command}` once, "
            f"then validation can prove up to {passed + len(mentioned)} of {len(verdicts)} classes "
            f"(now {passed})")
