"""The static path (--no-validate, or nothing to validate) must never import torch:
importing it costs over a second, more than a whole warm run may take."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

MODEL = textwrap.dedent(
    """
    import torch
    import torch.nn as nn


    class TypeCls(nn.Module):
        def __init__(self, n=4):
            super().__init__()
            self.idx = torch.arange(n)
    """
)

PROBE = textwrap.dedent(
    """
    import json, sys
    from codemod.cli import main
    try:
        main(sys.argv[1:], standalone_mode=False)
    except SystemExit:
        pass
    names = ("torch", "libcst", "codemod.analysis", "multiprocessing", "pathspec", "dulwich")
    print(json.dumps({name: name in sys.modules for name in names}), file=sys.stderr)
    """
)


def _modules_loaded(args: list[str], cwd: Path) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    return json.loads(completed.stderr.strip().splitlines()[-1])


def test_static_run_with_rewrites_does_not_import_torch(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    loaded = _modules_loaded(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--no-cache", "."], tmp_path)
    assert loaded["torch"] is False
    assert loaded["libcst"] is True  # a rewrite was rendered, with libcst


def test_run_with_nothing_to_rewrite_imports_neither_torch_nor_libcst(tmp_path):
    (tmp_path / "clean.py").write_text("import torch\n\nclass C:\n    def __init__(self):\n        self.x = 1\n")
    loaded = _modules_loaded(["run", "--dry-run", "--no-cache", "."], tmp_path)
    assert (loaded["torch"], loaded["libcst"]) == (False, False)


def test_a_warm_run_imports_no_analysis(tmp_path):
    # Every result comes from the cache: the analysis, the process pool and libcst (and
    # pathspec, with no ignore file) would be most of such a run's time.
    (tmp_path / "model.py").write_text(MODEL.replace("torch.arange(n)", "[torch.arange(n)]"))  # a skip, no rewrite
    for i in range(40):
        (tmp_path / f"helper_{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    cold = _modules_loaded(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--jobs", "2", "."], tmp_path)
    assert cold["codemod.analysis"] and cold["multiprocessing"]
    warm = _modules_loaded(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--jobs", "2", "."], tmp_path)
    assert warm == {"torch": False, "libcst": False, "codemod.analysis": False, "multiprocessing": False, "pathspec": False,
                    "dulwich": False}
    (tmp_path / ".gitignore").write_text("build/\n")
    loaded = _modules_loaded(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "."], tmp_path)
    # the index is read only where an ignore rule hides a Python file or a directory
    assert loaded["pathspec"] is True and loaded["dulwich"] is False
    # A file with a rewrite is analysed again on every run (its text never comes from the cache).
    (tmp_path / "model.py").write_text(MODEL)
    _modules_loaded(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--jobs", "2", "."], tmp_path)
    pending = _modules_loaded(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--jobs", "2", "."], tmp_path)
    assert pending["codemod.analysis"] and pending["libcst"] and not pending["multiprocessing"]
