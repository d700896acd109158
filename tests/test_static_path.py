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
    print(json.dumps({"torch": "torch" in sys.modules, "libcst": "libcst" in sys.modules}), file=sys.stderr)
    """
)


def _modules_loaded(args: list[str], cwd: Path) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    return json.loads(completed.stderr.strip().splitlines()[-1])


def test_static_run_with_rewrites_does_not_import_torch(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    loaded = _modules_loaded(["run", "--no-validate", "--dry-run", "--no-cache", "."], tmp_path)
    assert loaded["torch"] is False
    assert loaded["libcst"] is True  # a rewrite was rendered, with libcst


def test_run_with_nothing_to_rewrite_imports_neither_torch_nor_libcst(tmp_path):
    (tmp_path / "clean.py").write_text("import torch\n\nclass C:\n    def __init__(self):\n        self.x = 1\n")
    loaded = _modules_loaded(["run", "--dry-run", "--no-cache", "."], tmp_path)
    assert loaded == {"torch": False, "libcst": False}
