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


def _fresh_stubbed_import(tmp_path: Path, module: str, after: str, before: str = "") -> subprocess.CompletedProcess:
    """`stubs.import_with_stubs(module)` in a fresh interpreter whose path starts at tmp_path,
    with this checkout's codemod; `before` and `after` run around the import (`module` bound)."""
    script = "\n".join([
        "import sys, importlib.util",
        f"sys.path[:] = [{str(tmp_path)!r}] + [p for p in sys.path if p not in ('', '.')]",
        f"spec = importlib.util.spec_from_file_location('codemod', {str(PACKAGE)!r} + '/__init__.py', "
        f"submodule_search_locations=[{str(PACKAGE)!r}])",
        "sys.modules['codemod'] = importlib.util.module_from_spec(spec)",
        "from codemod.validate import stubs",
        textwrap.dedent(before),
        f"module = stubs.import_with_stubs({module!r}, {str(tmp_path)!r})",
        textwrap.dedent(after),
    ])
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)


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
    done = _fresh_stubbed_import(tmp_path, "r.m", f"""
        print(module.VALUE, stubs.stubbed(), {str(repo)!r} in sys.path)
    """, before="""
        assert "numpy" not in sys.modules
    """)
    assert done.returncode == 0, done.stderr
    # the dependency stood in for; `layers` is the repository's own, found in its directory
    assert done.stdout.split() == ["42", "['missing_dep_for_codemod_retry_test']", "True"], done.stdout


def test_the_retry_survives_a_namespace_folder_below_a_package_whose_import_failed(tmp_path):
    """`model/__init__.py` imports `model.nets`, whose folder `model/nets/ext` has no
    __init__.py and imports a missing compiled module. The failed attempt leaves the namespace
    package `model.nets.ext` behind its removed parent; reading its path then raised
    `KeyError: 'model.nets'` instead of standing in for the missing module."""
    _repo(tmp_path, {"model/__init__.py": "from model.nets import VALUE\n",
                     "model/nets/__init__.py": "from model.nets.ext.op import VALUE\n",
                     "model/nets/ext/op.py": "import missing_cuda_op_for_codemod_test\nVALUE = 7\n",
                     "model/nets/loss.py": "from model.nets import VALUE\nLOSS = VALUE * 6\n"})
    done = _fresh_stubbed_import(tmp_path, "model.nets.loss", """
        print(module.LOSS, stubs.stubbed())
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42", "['missing_cuda_op_for_codemod_test']"], done.stdout


def test_a_sibling_file_named_like_a_missing_package_gives_way_to_a_stand_in(tmp_path):
    """`conf/utils.py` runs `import hydra_for_codemod_test`, and `conf/hydra_for_codemod_test.py`
    sits beside it, importing `hydra_for_codemod_test.core`: the sibling is not the package the
    code meant. Its directory comes off sys.path and the missing package is stood in for,
    where the import raised "'hydra_for_codemod_test' is not a package"."""
    _repo(tmp_path, {"r/__init__.py": "",
                     "r/conf/__init__.py": "from .utils import VALUE\n",
                     "r/conf/utils.py": "import hydra_for_codemod_test\nVALUE = 41\n",
                     "r/conf/hydra_for_codemod_test.py": "from hydra_for_codemod_test.core import Store\n",
                     "r/m.py": "from r.conf import VALUE\nANSWER = VALUE + 1\n"})
    done = _fresh_stubbed_import(tmp_path, "r.m", """
        print(module.ANSWER, stubs.stubbed(), any(p.endswith("conf") for p in sys.path))
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42", "['hydra_for_codemod_test']", "False"], done.stdout


def test_a_version_file_written_at_install_time_is_stood_in_for(tmp_path):
    """`from ._version import __version__` in a package whose `_version.py` setuptools-scm writes
    when it is installed: the source tree lacks it, and the package now imports with an unknown
    version.  Any other missing module of the repository stays an error."""
    _repo(tmp_path, {"pkg/__init__.py": "from ._version import __version__, __version_tuple__\n",
                     "pkg/m.py": "import pkg\nVERSION = pkg.__version__\n",
                     "other/__init__.py": "from ._helpers import x\n",
                     "other/m.py": "import other\n"})
    done = _fresh_stubbed_import(tmp_path, "pkg.m", """
        print(module.VERSION, stubs.stubbed())
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [stubs.UNKNOWN_VERSION, "[]"], done.stdout
    done = _fresh_stubbed_import(tmp_path, "other.m", "")
    assert done.returncode != 0 and "No module named 'other._helpers'" in done.stderr


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


# -- `*args, **kwargs` subclasses of a torch.nn layer ---------------------------------------------

PCONV = """
import torch
from torch import nn
import torch.nn.functional as F


class PartialConv2d(nn.Conv2d):
    def __init__(self, *args, **kwargs):
        self.return_mask = kwargs.pop("return_mask", False)
        super().__init__(*args, **kwargs)
        self.weight_maskUpdater = torch.ones(1, 1, self.kernel_size[0], self.kernel_size[1])

    def forward(self, x):
        mask = F.conv2d(torch.ones_like(x[:, :1]), self.weight_maskUpdater, padding=self.padding)
        return super().forward(x) * mask
"""

PCONV_LINE = ("        self.weight_maskUpdater = torch.ones(1, 1, self.kernel_size[0], self.kernel_size[1])",
              '        self.register_buffer("weight_maskUpdater", torch.ones(1, 1, self.kernel_size[0], '
              'self.kernel_size[1]), persistent=False)')


def test_an_args_kwargs_layer_is_built_with_made_up_arguments_for_its_torch_base(tmp_path):
    _repo(tmp_path, {"pc/__init__.py": "", "pc/pconv.py": PCONV})
    out = _validate(tmp_path, "pc/pconv.py", "pc.pconv", {"w": PCONV_LINE},
                    [("PartialConv2d", [_finding("PartialConv2d", "weight_maskUpdater")])])
    v = out["PartialConv2d"]
    assert v.verdict is Verdict.PASSED, _detail(v)
    detail = _detail(v)
    assert "made-up arguments (in_channels=8, out_channels=8, kernel_size=3)" in detail, detail
    assert "forwards *args, **kwargs to torch.nn.modules.conv.Conv2d" in detail, detail


def test_an_args_kwargs_layer_is_built_through_a_parent_that_builds_with_defaults(tmp_path):
    _repo(tmp_path, {"pc/__init__.py": "", "pc/pconv.py": PCONV + """

class Generator(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.conv = PartialConv2d(channels, 4, 5, padding=2)

    def forward(self, x):
        return self.conv(x)
"""})
    out = _validate(tmp_path, "pc/pconv.py", "pc.pconv", {"w": PCONV_LINE},
                    [("PartialConv2d", [_finding("PartialConv2d", "weight_maskUpdater")])])
    v = out["PartialConv2d"]
    assert v.verdict is Verdict.PASSED, _detail(v)
    assert "built with the arguments pc.pconv.Generator passes to it" in _detail(v), _detail(v)
    assert "the inputs its forward passes" in _detail(v), _detail(v)


def test_an_args_kwargs_layer_that_nothing_builds_is_not_validated_never_an_error(tmp_path):
    _repo(tmp_path, {"pc/__init__.py": "", "pc/pconv.py": PCONV.replace(
        'self.return_mask = kwargs.pop("return_mask", False)', 'self.mask_channels = kwargs.pop("mask_channels")')})
    out = _validate(tmp_path, "pc/pconv.py", "pc.pconv", {"w": PCONV_LINE},
                    [("PartialConv2d", [_finding("PartialConv2d", "weight_maskUpdater")])])
    v = out["PartialConv2d"]
    assert v.verdict is Verdict.NOT_VALIDATED, _detail(v)
    assert "the original itself raised" not in _detail(v) and "in_channels, out_channels, kernel_size" in v.message, \
        _detail(v)


def test_forwarded_base_and_made_up_arguments_for_it():
    from torch import nn

    from codemod.validate import build, synth

    class Forwarding(nn.Conv3d):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)

    class Own(nn.Conv2d):
        def __init__(self, channels, *args, **kwargs):
            super().__init__(channels, *args, **kwargs)

    assert build.forwarded_base(Forwarding) is nn.Conv3d
    assert build.forwarded_base(Own) is None  # it names what it needs: made up by its own signature
    assert build.forwarded_base(nn.Conv2d) is None
    candidate = synth.argument_candidates(Forwarding)[0]
    assert candidate.args == (8, 8, 3) and candidate.kwargs == {}
    Forwarding(*candidate.args)


# -- detail lines say only what was checked ---------------------------------------------------------

NO_FORWARD = """
import math
import torch
from torch import nn


class Sinc(nn.Module):
    def __init__(self, n=5):
        super().__init__()
        self.n_ = 2 * math.pi * torch.arange(n, dtype=torch.float32) / 16000

    def forward(self, batch):
        return batch.waveform * self.n_
"""


def test_without_a_forward_the_details_claim_no_forward_and_no_cast_values(tmp_path):
    _repo(tmp_path, {"sinc/__init__.py": "", "sinc/m.py": NO_FORWARD})
    out = _validate(tmp_path, "sinc/m.py", "sinc.m",
                    {"n": ("        self.n_ = 2 * math.pi * torch.arange(n, dtype=torch.float32) / 16000",
                           '        self.register_buffer("n_", 2 * math.pi * torch.arange(n, dtype=torch.float32) '
                           '/ 16000, persistent=False)')},
                    [("Sinc", [_finding("Sinc", "n_")])])
    v = out["Sinc"]
    assert v.verdict is Verdict.CHECKED_WITHOUT_FORWARD, _detail(v)
    details = list(v.details)
    assert "round trip: a state_dict saved after construction (no forward ran) loads with strict=True into a " \
           "freshly built model" in details, details
    assert not any("saved after a forward" in d for d in details), details
    casts = [d for d in details if d.startswith("casts:")]
    assert len(casts) == 1 and "keep their values" not in casts[0], casts
    assert "only checked that no rewritten tensor becomes inf or nan" in casts[0], casts
    assert "under model.half(): n_ becomes float16, the original keeps float32" in casts[0], casts


CAMERA = """
import torch
from torch import nn


class Camera(nn.Module):
    def __init__(self, ray_surface, scale):
        super().__init__()
        self.ray_surface = ray_surface
        self.scale = scale

    def forward(self, x):
        return x * self.scale + self.ray_surface.sum()
"""
CAMERA_LINE = ("        self.ray_surface = ray_surface\n",
               '        self.register_buffer("ray_surface", ray_surface, persistent=False)\n')


def test_made_up_non_tensor_arguments_that_a_rewritten_buffer_refuses_prove_nothing(tmp_path):
    # The static analysis typed ray_surface from the repository's calls (a tensor); made-up
    # arguments hand it a small int, which the constructor keeps as handed (`self.ray_surface =
    # ray_surface`): made a tensor, the build runs and the forward is compared.
    _repo(tmp_path, {"cam/__init__.py": "", "cam/model.py": CAMERA})
    out = _validate(tmp_path, "cam/model.py", "cam.model", {"ray_surface": CAMERA_LINE},
                    [("Camera", [_finding("Camera", "ray_surface")])])["Camera"]
    assert out.verdict is Verdict.PASSED and out.forward_compared, out
    assert any("ray_surface=ones(" in build for build in out.builds), out.builds
    # where no tensor builds it (`range(ray_surface)` takes only a number), the number proves
    # nothing: register_buffer refuses it, which is not a failure of the rewrite
    counted = CAMERA.replace("        self.scale = scale\n", "        self.scale = scale\n        self.steps = list(range(ray_surface))\n")
    assert counted != CAMERA
    other = tmp_path / "other"
    _repo(other, {"cam/__init__.py": "", "cam/model.py": counted})
    out = _validate(other, "cam/model.py", "cam.model", {"ray_surface": CAMERA_LINE},
                    [("Camera", [_finding("Camera", "ray_surface")])])["Camera"]
    assert out.verdict is Verdict.NOT_VALIDATED, out
    assert "made-up arguments" in out.message and "register_buffer refuses" in out.message, out.message


def test_the_repositorys_own_non_tensor_default_that_a_rewritten_buffer_refuses_fails(tmp_path):
    # The same refusal with the class's own default is what a user building it gets: failed.
    source = CAMERA.replace("def __init__(self, ray_surface, scale):", "def __init__(self, ray_surface=3, scale=2.0):")
    _repo(tmp_path, {"cam/__init__.py": "", "cam/model.py": source})
    out = _validate(tmp_path, "cam/model.py", "cam.model", {"ray_surface": CAMERA_LINE},
                    [("Camera", [_finding("Camera", "ray_surface")])])["Camera"]
    assert out.verdict is Verdict.FAILED, out


def test_a_stand_in_base_beside_an_abc_metaclass_and_a_bare_decorator(tmp_path):
    # `class CometModel(ptl.LightningModule, metaclass=abc.ABCMeta)` with lightning missing: no
    # metaclass conflict; `@overrides` from a missing module leaves the method as written
    repo = tmp_path / "r"
    _repo(repo, {"__init__.py": "",
                 "m.py": "import abc\n"
                         "import missing_lightning_for_codemod_test as ptl\n"
                         "from missing_overrides_for_codemod_test import overrides\n\n"
                         "class Base(ptl.LightningModule, metaclass=abc.ABCMeta):\n"
                         "    @abc.abstractmethod\n"
                         "    def score(self): ...\n\n"
                         "class Model(Base):\n"
                         "    @overrides\n"
                         "    def score(self):\n"
                         "        return 7\n"})
    done = _fresh_stubbed_import(tmp_path, "r.m", """
        try:
            module.Base()
        except TypeError:
            print("abstract")
        print(module.Model().score(), stubs.DECORATED)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["abstract", "7 ['missing_overrides_for_codemod_test.overrides']"], done.stdout


MISSING_ON_THE_REWRITTEN_SIDE = """
import torch
from torch import nn


class Table(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.table = torch.arange(n)

    def forward(self, x):
        return x + self.table
"""


def test_a_missing_module_used_at_import_by_the_rewritten_side_is_not_validated_not_failed(tmp_path):
    # The rewritten module's import meets a module that is not installed (here the rewrite's
    # text names one; in a real run, a sibling module imported on that side only): nothing is
    # learnt about the rewrite, so "not validated", never "failed".
    _repo(tmp_path, {"tab/__init__.py": "", "tab/m.py": MISSING_ON_THE_REWRITTEN_SIDE})
    out = _validate(tmp_path, "tab/m.py", "tab.m",
                    {"table": ("        self.table = torch.arange(n)",
                               '        self.register_buffer("table", torch.arange(n), persistent=False)'),
                     "import": ("from torch import nn", "from torch import nn\nimport regex_not_installed_xyz\n"
                                "PATTERN = regex_not_installed_xyz.compile('a')")},
                    [("Table", [_finding("Table", "table")])])
    v = out["Table"]
    assert v.verdict is Verdict.NOT_VALIDATED, _detail(v)
    assert "regex_not_installed_xyz" in v.message and "not installed" in v.message, v.message


# -- code written for an older numpy, and a recurrent state built for batch 1 ----------------------

OLD_NUMPY = """
import numpy as np
import torch
from torch import nn


class Smoother(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.lin = nn.Linear(width, width)
        self.kernel = torch.from_numpy(np.ones(width, dtype=np.float)) / width

    def forward(self, x):
        return self.lin(x) * self.kernel.float()
"""

OLD_NUMPY_LINE = ("        self.kernel = torch.from_numpy(np.ones(width, dtype=np.float)) / width",
                  '        self.register_buffer("kernel", torch.from_numpy(np.ones(width, dtype=np.float)) / width, '
                  'persistent=False)')


def test_a_class_using_numpy_aliases_removed_since_1_24_is_validated_and_says_so(tmp_path):
    import numpy

    assert "float" not in vars(numpy) and not hasattr(numpy, "float"), "the installed numpy still has np.float"
    _repo(tmp_path, {"old.py": OLD_NUMPY})
    out = _validate(tmp_path, "old.py", "old", {"k": OLD_NUMPY_LINE},
                    [("Smoother", [_finding("Smoother", "kernel")])])
    v = out["Smoother"]
    assert v.verdict is Verdict.PASSED, _detail(v)
    assert "names numpy or Python have removed, given back as older releases bound them: np.float" in _detail(v), _detail(v)
    assert "forward" in _detail(v)
    assert not hasattr(numpy, "float"), "only the workers get the names back"


OLD_PYTHON = """
from collections import Iterable
import fractions
import torch
from torch import nn


class Resampler(nn.Module):
    def __init__(self, orig=48, new=32):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.kernel = torch.ones(orig // fractions.gcd(orig, new))

    def forward(self, x):
        assert isinstance(x, Iterable)
        return self.lin(x) * self.kernel.mean()
"""

OLD_PYTHON_LINE = ("        self.kernel = torch.ones(orig // fractions.gcd(orig, new))",
                   '        self.register_buffer("kernel", torch.ones(orig // fractions.gcd(orig, new)), persistent=False)')


def test_a_class_using_standard_library_names_python_removed_is_validated_and_says_so(tmp_path):
    import collections
    import fractions

    assert not hasattr(collections, "Iterable") and not hasattr(fractions, "gcd"), "this Python still has them"
    _repo(tmp_path, {"legacy.py": OLD_PYTHON})
    out = _validate(tmp_path, "legacy.py", "legacy", {"k": OLD_PYTHON_LINE},
                    [("Resampler", [_finding("Resampler", "kernel")])])
    v = out["Resampler"]
    assert v.verdict is Verdict.PASSED, _detail(v)
    assert "given back as older releases bound them: collections.Iterable, fractions.gcd" in _detail(v), _detail(v)
    assert not hasattr(collections, "Iterable"), "only the workers get the names back"


BATCH_ONE_STATE = """
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.lstm = nn.LSTM(width, width)
        self.h0 = torch.zeros(1, 1, width)
        self.c0 = torch.zeros(1, 1, width)

    def forward(self, sentence):
        out, _ = self.lstm(sentence, (self.h0, self.c0))
        return out
"""

BATCH_ONE_LINE = "        self.h0 = torch.zeros(1, 1, width)"


def test_a_forward_whose_held_state_is_built_for_batch_one_is_compared(tmp_path):
    # no made-up input of batch 2 runs; the error names the batch the state was built for
    _repo(tmp_path, {"tagger.py": BATCH_ONE_STATE})
    right = (BATCH_ONE_LINE, '        self.register_buffer("h0", torch.zeros(1, 1, width), persistent=False)')
    out = _validate(tmp_path, "tagger.py", "tagger", {"h": right}, [("Tagger", [_finding("Tagger", "h0")])])
    v = out["Tagger"]
    assert v.verdict is Verdict.PASSED and v.forward_compared, _detail(v)
    assert "randn(2x1x8)" in _detail(v), _detail(v)
    # a rewrite that changes the state is caught by that forward
    wrong = (BATCH_ONE_LINE, '        self.register_buffer("h0", torch.ones(1, 1, width), persistent=False)')
    out = _validate(tmp_path, "tagger.py", "tagger", {"h": wrong}, [("Tagger", [_finding("Tagger", "h0")])])
    v = out["Tagger"]
    assert v.verdict is Verdict.FAILED and "forward" in v.message, _detail(v)


# The rewrite and the layer the import tests below share: a Net holding an MLP and a raw offset.
OFFSET_REWRITE = {"offset": ("        self.offset = torch.ones(width)",
                             '        self.register_buffer("offset", torch.ones(width), persistent=False)')}
MLP_MODULE = """
from torch import nn


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return self.fc(x)
"""


def test_a_module_named_like_its_repository_package_is_imported_by_its_path(tmp_path):
    # `calo/models/calo.py` in a folder without __init__.py: imported as `calo` it would hide the
    # repository's package `calo`, whose `calo.models.layers` it imports
    repo = tmp_path / "repo"
    _repo(repo, {
        "calo/__init__.py": "",
        "calo/models/layers.py": MLP_MODULE,
        "calo/models/calo.py": """
            import torch
            from torch import nn
            from calo.models.layers import MLP


            class Net(nn.Module):
                def __init__(self, width=4):
                    super().__init__()
                    self.mlp = MLP(width)
                    self.offset = torch.ones(width)

                def forward(self, x):
                    return self.mlp(x) + self.offset
            """,
    })
    out = _validate(
        repo, "calo/models/calo.py", "calo",
        OFFSET_REWRITE, [("Net", [_finding("Net", "offset")])],
    )
    net = out["Net"]
    assert net.verdict is Verdict.PASSED, _detail(net)


@pytest.mark.parametrize("submodule", ["geometry", "utils/geometry"])
def test_a_module_of_a_submodule_not_checked_out_is_not_validated_and_says_how(tmp_path, submodule):
    # at the root, or deeper in the tree (`utils/geometry`, imported as utils.geometry.cells)
    repo = tmp_path / "repo"
    dotted = submodule.replace("/", ".")
    _repo(repo, {
        ".gitmodules": f'[submodule "{submodule}"]\n\tpath = {submodule}\n\turl = https://example.invalid/geometry\n',
        **({"utils/__init__.py": ""} if "/" in submodule else {}),
        "net.py": f"""
            import torch
            from torch import nn
            from {dotted}.cells import CELLS


            class Net(nn.Module):
                def __init__(self, width=4):
                    super().__init__()
                    self.offset = torch.ones(width)

                def forward(self, x):
                    return x + self.offset
            """,
    })
    (repo / submodule).mkdir(parents=True)  # the submodule's folder, empty until `git submodule update --init`
    out = _validate(
        repo, "net.py", "net",
        OFFSET_REWRITE, [("Net", [_finding("Net", "offset")])],
    )
    net = out["Net"]
    assert net.verdict is Verdict.NOT_VALIDATED, _detail(net)
    assert f"git submodule {submodule}," in _detail(net) and "git submodule update --init" in _detail(net)


def test_a_module_of_the_second_of_two_same_named_packages_imports_from_its_own_folder(tmp_path):
    # `model/` at the root and `open/model/` below it: `model.net` answers first with the root's
    # package, which has no `net`; the module is imported from its own folder, and its own
    # imports (`from model.layers import MLP`) find that folder's modules, not the root's
    repo = tmp_path / "repo"
    _repo(repo, {
        "model/__init__.py": "",
        "model/layers.py": "raise ImportError('the root package, not the one net.py belongs to')\n",
        "open/model/__init__.py": "",
        "open/model/layers.py": MLP_MODULE,
        "open/model/net.py": """
            import torch
            from torch import nn
            from model.layers import MLP


            class Net(nn.Module):
                def __init__(self, width=4):
                    super().__init__()
                    self.mlp = MLP(width)
                    self.offset = torch.ones(width)

                def forward(self, x):
                    return self.mlp(x) + self.offset
            """,
    })
    out = _validate(
        repo, "open/model/net.py", "model.net",
        OFFSET_REWRITE, [("Net", [_finding("Net", "offset")])],
    )
    net = out["Net"]
    assert net.verdict is Verdict.PASSED, _detail(net)


def test_a_module_through_a_base_of_a_missing_package_is_not_validated_and_names_it(tmp_path):
    # `class InteractionNetwork(MessagePassing)` where torch_geometric is not installed: the
    # class is an nn.Module only through the missing base, so the message names that package
    # (never "not an nn.Module subclass", which is false of the class the repository means).
    source = textwrap.dedent("""
        import torch
        from graph_package_not_installed_xyz.nn import MessagePassing


        class Interaction(MessagePassing):
            def __init__(self, n=4):
                super().__init__()
                self.table = torch.arange(n)
        """)
    _repo(tmp_path, {"gnn/__init__.py": "", "gnn/m.py": source})
    out = _validate(tmp_path, "gnn/m.py", "gnn.m",
                    {"table": ("        self.table = torch.arange(n)",
                               '        self.register_buffer("table", torch.arange(n), persistent=False)')},
                    [("Interaction", [_finding("Interaction", "table")])])
    v = out["Interaction"]
    assert v.verdict is Verdict.NOT_VALIDATED, _detail(v)
    assert "MessagePassing" in v.message and "graph_package_not_installed_xyz" in v.message, v.message
    assert "not an nn.Module subclass" not in v.message


def test_a_name_an_installed_package_no_longer_has_is_not_validated_and_says_so(tmp_path):
    # `from PIL import PILLOW_VERSION` (removed in Pillow 7) in a repository written for an
    # older release: the import says nothing about the rewrite, so "not validated", with the
    # name and the package, never "error".  A name the standard library never had stands in.
    source = textwrap.dedent("""
        import torch
        from torch import nn
        from json import DECODER_VERSION_REMOVED_XYZ


        class Table(nn.Module):
            def __init__(self, n=4):
                super().__init__()
                self.table = torch.arange(n)

            def forward(self, x):
                return x + self.table
        """)
    _repo(tmp_path, {"old/__init__.py": "", "old/m.py": source})
    out = _validate(tmp_path, "old/m.py", "old.m",
                    {"table": ("        self.table = torch.arange(n)",
                               '        self.register_buffer("table", torch.arange(n), persistent=False)')},
                    [("Table", [_finding("Table", "table")])])
    v = out["Table"]
    assert v.verdict is Verdict.NOT_VALIDATED, _detail(v)
    assert "DECODER_VERSION_REMOVED_XYZ" in v.message and "json" in v.message and "older" in v.message, v.message


def test_a_model_handing_its_keywords_to_a_repository_base_is_built_with_made_up_ones(tmp_path):
    """`def __init__(self, dropout=0.3, **args): super().__init__(**args)` over a base that
    requires `num_nodes` and `input_dim`: its own defaults do not build it, so the base's
    required parameters are made up, and the forward is compared."""
    _repo(tmp_path, {
        "base.py": textwrap.dedent("""
            import torch.nn as nn

            class BaseModel(nn.Module):
                def __init__(self, name, num_nodes, input_dim):
                    super().__init__()
                    self.num_nodes = num_nodes
                    self.input_dim = input_dim
        """),
        "m.py": textwrap.dedent("""
            import torch
            import torch.nn as nn
            from base import BaseModel

            class Former(BaseModel):
                def __init__(self, dropout=0.3, **args):
                    super().__init__(**args)
                    self.lin = nn.Linear(self.input_dim, self.input_dim)
                    self.mask = torch.ones(self.input_dim)

                def forward(self, x):
                    return self.lin(x) * self.mask
        """),
    })
    out = _validate(
        tmp_path, "m.py", "m",
        {"mask": ("        self.mask = torch.ones(self.input_dim)",
                  '        self.register_buffer("mask", torch.ones(self.input_dim), persistent=False)')},
        [("Former", [_finding("Former", "mask")])],
    )
    former = out["Former"]
    assert former.verdict is Verdict.PASSED, _detail(former)
    assert former.forward_compared


def test_a_circular_import_is_entered_from_the_module_that_breaks_it(tmp_path, monkeypatch):
    # cyc/sampling.py imports cyc/helpers.py first, which takes a name from the half-imported
    # sampling: the repository's entry point imports helpers first, and so does the import here
    import sys

    from codemod.validate import stubs

    package = tmp_path / "cyc"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sampling.py").write_text(
        "import torch\nimport cyc.helpers\n\n\ndef resample(x):\n    return x[::2]\n\n\n"
        "class Sampler(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.kernel = torch.ones(3)\n")
    (package / "helpers.py").write_text("from cyc.sampling import resample\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ImportError, match="partially initialized module"):
            __import__("cyc.sampling")
        for name in [m for m in sys.modules if m == "cyc" or m.startswith("cyc.")]:
            del sys.modules[name]
        module = stubs.import_with_stubs("cyc.sampling", str(tmp_path))
        assert module.Sampler().kernel.shape == (3,)
        assert sys.modules["cyc.helpers"].resample is module.resample
        # a cycle nothing breaks still raises what the import raised
        (package / "helpers.py").write_text("from cyc.sampling import resample\nfrom cyc.sampling import missing\n")
        for name in [m for m in sys.modules if m == "cyc" or m.startswith("cyc.")]:
            del sys.modules[name]
        with pytest.raises(ImportError, match="missing|partially initialized"):
            stubs.import_with_stubs("cyc.sampling", str(tmp_path))
    finally:
        for name in [m for m in sys.modules if m == "cyc" or m.startswith("cyc.")]:
            del sys.modules[name]


def test_a_package_beside_the_importer_wins_over_a_module_of_another_folder_named_like_it(tmp_path):
    # `from utils.dct import f` in somoformer/src/model.py, whose folder holds utils/dct.py; a
    # `utils.py` of another folder of the repository, earlier on the path, answered first
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "utils.py").write_text("WHO = 'other'\n")
    src = tmp_path / "somoformer" / "src"
    (src / "utils").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "utils" / "__init__.py").write_text("")
    (src / "utils" / "dct.py").write_text("def get_dct_matrix(n):\n    return n * 2\n")
    (src / "model.py").write_text("from utils.dct import get_dct_matrix\nN = get_dct_matrix(3)\n")
    done = _fresh_stubbed_import(tmp_path, "src.model", "print(module.N)",
                                 before=f"sys.path[:0] = [{str(tmp_path / 'other')!r}, {str(tmp_path / 'somoformer')!r}]")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "6"


def test_an_installed_module_refusing_a_stand_in_of_its_missing_dependency_is_stood_in_for(tmp_path):
    """`from torch.utils.tensorboard import SummaryWriter` without tensorboard installed: torch's
    module imports `tensorboard` (a stand-in) and then raises "TensorBoard logging requires
    TensorBoard version 1.15 or above" as the stand-in has no version. The installed module is
    stood in for as a whole, and using what it holds names the missing dependency."""
    site = tmp_path / "site"  # an installed package, outside the repository
    _repo(site, {"boardlib/__init__.py": "",
                 "boardlib/logging/__init__.py": (
                     "import boarddep_for_codemod_test\n"
                     "if not hasattr(boarddep_for_codemod_test, '__version__'):\n"
                     "    raise ImportError('Board logging requires BoardDep_for_codemod_test 1.15 or above')\n"
                     "class Writer:\n    pass\n")})
    repo = tmp_path / "repo"
    _repo(repo, {"trainer.py": "from boardlib.logging import Writer\nVALUE = 42\n",
                 "own_check.py": "raise ImportError('requires boarddep_for_codemod_test')\n"})
    done = _fresh_stubbed_import(repo, "trainer", """
        print(module.VALUE, stubs.stubbed())
        try:
            module.Writer()
        except stubs.StubUsed as exc:
            print(exc.module)
    """, before=f"sys.path.append({str(site)!r})")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42", "['boarddep_for_codemod_test',", "'boardlib.logging']",
                                   "boarddep_for_codemod_test"], done.stdout
    # the repository's own ImportError stays its error
    done = _fresh_stubbed_import(repo, "own_check", "", before=f"sys.path.append({str(site)!r})")
    assert done.returncode != 0 and "requires boarddep_for_codemod_test" in done.stderr


def test_a_made_up_path_names_no_file_and_no_file_descriptor():
    """A config key named like a path was made up as a number, which `open()` takes for a file
    descriptor (the worker's own pipes): it is a path under a file, which nothing can open,
    read or create."""
    import os

    import torch
    from torch import nn

    from codemod.validate import synth

    class _ReadsItsVocabulary(nn.Module):
        def __init__(self, config):
            super().__init__()
            with open(config.vocab_path) as file:
                self.size = len(file.read().split())
            self.table = torch.arange(config.width)

    candidate = synth.argument_candidates(_ReadsItsVocabulary)[0]
    config = candidate.args[0] if candidate.args else candidate.kwargs["config"]
    path = config.vocab_path
    assert isinstance(path, str) and path.startswith(synth.MADE_UP_PATH_ROOT), path
    assert isinstance(config.width, int)
    with pytest.raises(NotADirectoryError):
        _ReadsItsVocabulary(config)
    with pytest.raises(OSError):
        os.makedirs(os.path.join(path, "runs"), exist_ok=True)
    assert not os.path.exists(path)
