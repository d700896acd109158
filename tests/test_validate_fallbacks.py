"""Zero-setup validation on layouts and constructors that fresh repositories showed.

- a repository whose root is a package (``__init__.py`` at the top) whose modules import
  their siblings script-style (``from layers import MLP``): those are the repository's own,
  never stand-ins, and the retry never loads an extension module (numpy) twice;
- a ``*args, **kwargs`` subclass of a torch.nn layer: not built with nothing and then blamed
  on the repository, but built through a parent or with made-up arguments for the base;
- detail lines that state only what was checked.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemod.ftypes import Verdict
from codemod.validate import stubs

from test_validate_coverage import _detail, _finding, _repo, _validate

PACKAGE = Path(stubs.__file__).resolve().parent.parent

LAYERS = """
import numpy as np
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.lin = nn.Linear(width, width)

    def forward(self, x):
        return self.lin(x) * float(np.float32(1.0))
"""

MODELS = """
import numpy as np
import torch
from torch import nn
from layers import MLP


class Net(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.mlp = MLP(width)
        self.offset = torch.from_numpy(np.ones(width, dtype=np.float32))

    def forward(self, x):
        return self.mlp(x) + self.offset
"""


def test_a_root_package_imports_its_own_sibling_modules_not_stand_ins(tmp_path):
    repo = tmp_path / "some-repo"
    _repo(repo, {"__init__.py": "", "layers.py": LAYERS, "models.py": MODELS})
    # as the tool finds it: the repository root is a package, so the project root is above it
    out = _validate(
        tmp_path, "some-repo/models.py", "some-repo.models",
        {"offset": ("        self.offset = torch.from_numpy(np.ones(width, dtype=np.float32))",
                    '        self.register_buffer("offset", torch.from_numpy(np.ones(width, dtype=np.float32)), '
                    'persistent=False)')},
        [("Net", [_finding("Net", "offset")])],
    )
    net = out["Net"]
    assert net.verdict is Verdict.PASSED, _detail(net)
    assert "stand-in" not in _detail(net)


def test_the_retry_never_loads_an_extension_module_twice(tmp_path):
    """A stand-in retry forgets the repository's half-imported modules only: numpy, imported for
    the first time during the failed attempt, stays loaded (loading it twice raises "cannot load
    module more than once per process"). A fresh interpreter, where numpy is not loaded yet."""
    pytest.importorskip("numpy")
    repo = tmp_path / "r"
    _repo(repo, {"__init__.py": "",
                 "a.py": "import missing_dep_for_codemod_retry_test\n",
                 "m.py": "import numpy\nfrom layers import thing\nimport a\nVALUE = thing + int(numpy.int64(1))\n",
                 "layers.py": "thing = 41\n"})
    script = textwrap.dedent(f"""
        import sys, importlib.util
        sys.path[:] = [{str(tmp_path)!r}] + [p for p in sys.path if p not in ("", ".")]
        spec = importlib.util.spec_from_file_location("codemod", {str(PACKAGE)!r} + "/__init__.py",
                                                      submodule_search_locations=[{str(PACKAGE)!r}])
        sys.modules["codemod"] = importlib.util.module_from_spec(spec)
        from codemod.validate import stubs
        assert "numpy" not in sys.modules
        module = stubs.import_with_stubs("r.m", {str(tmp_path)!r})
        print(module.VALUE, stubs.stubbed(), {str(repo)!r} in sys.path)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    # the dependency stood in for; `layers` is the repository's own, found in its directory
    assert done.stdout.split() == ["42", "['missing_dep_for_codemod_retry_test']", "True"], done.stdout


def test_forgettable_keeps_installed_and_extension_modules(tmp_path):
    import numpy

    assert not stubs._forgettable("numpy", numpy, "/")
    assert not stubs._forgettable("sys", sys, "/")
    own = tmp_path / "own.py"
    own.write_text("")
    mod = type(sys)("own")
    mod.__file__ = str(own)
    assert stubs._forgettable("own", mod, str(tmp_path))
    assert not stubs._forgettable("own", mod, str(tmp_path / "elsewhere"))
