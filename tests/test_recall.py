"""Raw tensors the analysis used to miss or mishandle: Variable wrappers, a raw branch beside
an nn.Parameter, self-updates of a registered buffer, containers and constructor arguments."""

from __future__ import annotations

import textwrap

import torch
from torch import nn

from codemod.api import transform_source
from codemod.ftypes import Action


def rewrite(source: str):
    return transform_source(textwrap.dedent(source), path="model.py")


def build(code: str, name: str):
    namespace: dict = {}
    exec(compile(code, "model.py", "exec"), namespace)
    return namespace[name]


def by_attr(result) -> dict:
    return {f.attribute: f for f in result.findings}


def test_variable_unwrapped_only_when_it_is_the_tensor_itself():
    result = rewrite(
        """
        import torch
        import torch.nn as nn
        from torch.autograd import Variable

        class M(nn.Module):
            def __init__(self, n=3):
                super().__init__()
                w = torch.ones(n, requires_grad=True)
                self.a = Variable(torch.ones(n), volatile=True)
                self.b = Variable(w)
        """
    )
    assert 'self.register_buffer("a", torch.ones(n), persistent=False)' in result.code
    # Variable detaches a tensor that requires grad: the wrapper stays.
    assert 'self.register_buffer("b", Variable(w), persistent=False)' in result.code
    module = build(result.code, "M")()
    assert not module.b.requires_grad


RAW_OR_PARAMETER = """
import torch
import torch.nn as nn

class Scaler(nn.Module):
    def __init__(self, learn=False):
        super().__init__()
        if learn:
            self.scale = nn.Parameter(torch.ones(3))
        else:
            self.scale = torch.ones(3)
"""


def test_raw_branch_beside_parameter_keeps_the_checkpoints_of_each_configuration_by_default():
    result = rewrite(RAW_OR_PARAMETER)
    finding = by_attr(result)["scale"]
    assert (finding.action, finding.persistent) == (Action.BUFFER, False)
    original, rewritten = build(RAW_OR_PARAMETER, "Scaler"), build(result.code, "Scaler")
    for learn in (False, True):  # each configuration saves exactly the keys it saved before
        assert list(rewritten(learn=learn).state_dict()) == list(original(learn=learn).state_dict())
        rewritten(learn=learn).load_state_dict(original(learn=learn).state_dict())
    assert [n for n, _ in rewritten(learn=False).named_buffers()] == ["scale"]


def test_raw_branch_beside_parameter_is_persistent_under_the_state_policy_and_checkpoints_cross_configurations():
    result = transform_source(textwrap.dedent(RAW_OR_PARAMETER), path="model.py", persistent="state")
    finding = by_attr(result)["scale"]
    assert (finding.action, finding.persistent) == (Action.BUFFER, True)
    original, rewritten = build(RAW_OR_PARAMETER, "Scaler"), build(result.code, "Scaler")
    # The original loses the key in one configuration: a trained checkpoint does not load strictly.
    trained = original(learn=True).state_dict()
    assert "scale" not in original(learn=False).state_dict()
    try:
        original(learn=False).load_state_dict(trained)
        raise AssertionError("expected an unexpected-key error")
    except RuntimeError as error:
        assert "Unexpected key" in str(error)
    # Rewritten: the key exists in both, loads both ways, and the Parameter is still trained.
    frozen, learned = rewritten(learn=False), rewritten(learn=True)
    frozen.load_state_dict(learned.state_dict())
    learned.load_state_dict(frozen.state_dict())
    assert [n for n, _ in learned.named_parameters()] == ["scale"]
    assert [n for n, _ in frozen.named_buffers()] == ["scale"]
    frozen.to(torch.float64)
    assert frozen.scale.dtype == torch.float64


def test_parameter_assigned_over_a_registered_buffer_becomes_the_parameter():
    result = rewrite(
        """
        import torch
        import torch.nn as nn

        class Shift(nn.Module):
            def __init__(self, learn=True):
                super().__init__()
                self.shift = torch.zeros(3)
                if learn:
                    self.shift = nn.Parameter(self.shift)
        """
    )
    assert 'self.register_buffer("shift", torch.zeros(3), persistent=False)' in result.code
    module = build(result.code, "Shift")(learn=True)
    assert [n for n, _ in module.named_parameters()] == ["shift"] and not list(module.buffers())


def test_parameter_moved_to_device_fixed_beside_none_parameter():
    # under the state policy (the user asked for new keys for state); by default it is reported (BUF216)
    source = """
        import torch
        import torch.nn as nn

        class Affine(nn.Module):
            def __init__(self, bias=True, device="cpu"):
                super().__init__()
                if bias:
                    self.bias = nn.Parameter(torch.zeros(3)).to(device)
                else:
                    self.register_parameter("bias", None)
        """
    assert by_attr(rewrite(source))["bias"].code == "BUF216"
    result = transform_source(textwrap.dedent(source), path="model.py", persistent="state")
    assert by_attr(result)["bias"].action is Action.PARAMETER
    # nothing shows that the model is moved as a whole: the parameter is made on the device it was moved to
    assert "self.bias = nn.Parameter(torch.zeros(3).to(device))\n" in result.code
    cls = build(result.code, "Affine")
    assert [n for n, _ in cls(bias=True, device="meta").named_parameters()] == ["bias"]
    assert cls(bias=False).bias is None


def test_none_parameter_beside_a_plain_buffer_is_still_a_collision():
    result = rewrite(
        """
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self, flag=True):
                super().__init__()
                if flag:
                    self.bias = torch.zeros(3)
                else:
                    self.register_parameter("bias", None)
        """
    )
    assert by_attr(result)["bias"].action is Action.SKIP


def test_raw_after_parameter_on_the_same_path_is_not_rewritten():
    # Assigning a plain tensor to a Parameter's name raises TypeError: leave it to the user.
    result = rewrite(
        """
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.ones(3))
                self.w = torch.zeros(3)
        """
    )
    assert all(f.action is Action.SKIP for f in result.findings)
    assert "register_buffer" not in result.code


def test_self_update_of_registered_buffer_stays_plain_and_keeps_persistence():
    result = rewrite(
        """
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self, n=3):
                super().__init__()
                self.mask = torch.ones(n, n)
                self.mask = self.mask.bool()
        """
    )
    assert result.code.count("register_buffer") == 1
    assert "        self.mask = self.mask.bool()\n" in result.code
    module = build(result.code, "M")()
    assert module.mask.dtype == torch.bool and "mask" not in module.state_dict()
    assert [n for n, _ in module.named_buffers()] == ["mask"]


# -- constructor arguments typed from the repository's calls -----------------------------------

import pytest  # noqa: E402

from codemod.runner import RunOptions, run  # noqa: E402

LAYER = """
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, adj, dim):
        super().__init__()
        self.adj = adj
        self.dim = dim
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return self.adj @ self.lin(x)
"""


def run_project(root, prefilter: bool):
    report = run([root], RunOptions(write=False, validate=False, unsafe_fixes=True, use_cache=False, jobs=1, root=root, prefilter=prefilter))
    assert not report.errors and not [r.error for r in report.files if r.error]
    return {f"{f.class_name}.{f.attribute}": f for f in report.findings}


def write_project(root, caller: str) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "layers.py").write_text(LAYER)
    (root / "pkg" / "model.py").write_text(textwrap.dedent(caller))


REGISTRY_CALLS = {
    # a constant key names the class: a call of it
    "subscript": ('LAYERS = {"graph": GraphConv}', 'LAYERS["graph"](torch.eye(3), 3)', True),
    "get": ('LAYERS = {"graph": GraphConv}', 'LAYERS.get("graph")(torch.eye(3), 3)', True),
    "the last of a key given twice": ('LAYERS = {"graph": nn.Linear, "graph": GraphConv}', 'LAYERS["graph"](torch.eye(3), 3)', True),
    # what the lookup may find is not known: nothing typed
    "a key known at run time": ('LAYERS = {"graph": GraphConv}', 'LAYERS[name](torch.eye(3), 3)', False),
    "another class under the key": ('LAYERS = {"graph": GraphConv, "linear": nn.Linear}', 'LAYERS["linear"](torch.eye(3), 3)', False),
    "entries spread in": ('LAYERS = {**OTHERS, "graph": GraphConv}', 'LAYERS["graph"](torch.eye(3), 3)', False),
    "a dict bound twice": ('LAYERS = {"graph": GraphConv}\nLAYERS = {"graph": nn.Linear}', 'LAYERS["graph"](torch.eye(3), 3)', False),
}


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
@pytest.mark.parametrize("case", list(REGISTRY_CALLS))
def test_argument_typed_from_a_registry_lookup_with_a_constant_key(tmp_path, prefilter, case):
    registry, call, typed = REGISTRY_CALLS[case]
    header = "import torch\nimport torch.nn as nn\nfrom pkg.layers import GraphConv\n\nOTHERS = {}\n"
    write_project(tmp_path, f"{header}{registry}\n\n\ndef build(name):\n    return {call}\n")
    adj = run_project(tmp_path, prefilter)["GraphConv.adj"]
    if typed:
        assert adj.action is Action.BUFFER and "typed from its call in the repository" in adj.reason
    else:
        # as when nothing calls the class: a tensor by its use, reported for want of a type
        assert adj.action is Action.SKIP and "annotate" in adj.suggestion, adj


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_argument_typed_from_a_call_in_another_file(tmp_path, prefilter):
    write_project(
        tmp_path,
        """
        import torch
        import torch.nn as nn
        from pkg.layers import GraphConv

        class Net(nn.Module):
            def __init__(self, n=3):
                super().__init__()
                self.adj = torch.eye(n)
                self.blocks = nn.ModuleList([GraphConv(self.adj, n) for _ in range(2)])
        """,
    )
    found = run_project(tmp_path, prefilter)
    adj = found["GraphConv.adj"]
    assert (adj.action, adj.persistent) == (Action.BUFFER, False)
    assert "a tensor handed to the constructor (typed from its call in the repository)" in adj.reason
    assert "GraphConv.dim" not in found


@pytest.mark.parametrize(
    "call",
    [
        "GraphConv(np.eye(3), 3)",  # a numpy array: register_buffer would raise TypeError
        "GraphConv(*args)",  # cannot be read
        "GraphConv(adj=load(), dim=3)",  # not typed
    ],
)
def test_argument_left_alone_unless_every_call_passes_a_tensor(tmp_path, call):
    write_project(
        tmp_path,
        f"""
        import numpy as np
        import torch
        from pkg.layers import GraphConv

        def good():
            return GraphConv(torch.eye(3), 3)

        def other(args, load):
            return {call}
        """,
    )
    found = run_project(tmp_path, True)
    if "np.eye" in call:
        assert "GraphConv.adj" not in found  # a call refutes a tensor: nothing to say
    else:  # never rewritten; reported, since the class uses it as only a tensor is used
        assert (found["GraphConv.adj"].action, found["GraphConv.adj"].code) == (Action.SKIP, "BUF308")


def test_argument_without_any_call_or_tensor_use_is_left_alone(tmp_path):
    write_project(tmp_path, "import torch\n")
    # no call: `self.adj @ ...` alone is reported (BUF308), never rewritten
    assert {k: (f.action, f.code) for k, f in run_project(tmp_path, True).items()} == {"GraphConv.adj": (Action.SKIP, "BUF308")}
    (tmp_path / "pkg" / "layers.py").write_text(LAYER.replace("self.adj @ self.lin(x)", "self.lin(x) * self.adj"))
    (tmp_path / "pkg" / "model.py").write_text("import torch\nfrom pkg.layers import GraphConv\nm = GraphConv(torch.eye(3), 3)\n")
    # `x * self.adj` does not show a tensor (an int multiplies too), so it is never reported on
    # its own; but the calls are read, and this one passes a tensor
    assert run_project(tmp_path, True)["GraphConv.adj"].action is Action.BUFFER
    (tmp_path / "pkg" / "model.py").write_text("from pkg.layers import GraphConv\nm = GraphConv(0.5, 3)\n")
    assert "GraphConv.adj" not in run_project(tmp_path, True)  # a number passed: nothing to say
    (tmp_path / "pkg" / "model.py").unlink()
    assert "GraphConv.adj" not in run_project(tmp_path, True)  # no call: nothing to say either


def test_list_of_tensors_handed_in_is_reported(tmp_path):
    write_project(
        tmp_path,
        """
        import torch
        import torch.nn as nn

        class Cheb(nn.Module):
            def __init__(self, polynomials):
                super().__init__()
                self.polynomials = polynomials

            def forward(self, x):
                return sum(p @ x for p in self.polynomials)

        def build(n):
            return Cheb([torch.eye(n) for _ in range(3)])
        """,
    )
    finding = run_project(tmp_path, True)["Cheb.polynomials"]
    assert finding.action is Action.SKIP and "nn.ParameterList" in finding.suggestion


# -- built in a local, registered once ----------------------------------------------------------

NUMPY_FIRST = """
import numpy as np
import torch
import torch.nn as nn

class Table(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.table = np.eye(n)
        self.table = torch.from_numpy(self.table).float()
"""


def test_numpy_first_attribute_is_built_in_a_local_and_registered_once():
    naive = NUMPY_FIRST.replace(
        "self.table = torch.from_numpy(self.table).float()",
        'self.register_buffer("table", torch.from_numpy(self.table).float(), persistent=False)',
    )
    with pytest.raises(KeyError, match="already exists"):
        build(naive, "Table")()
    result = rewrite(NUMPY_FIRST)
    finding = by_attr(result)["table"]
    assert (finding.action, finding.code) == (Action.BUFFER, "BUF106")
    assert "        table = np.eye(n)\n" in result.code
    module = build(result.code, "Table")()
    assert [n for n, _ in module.named_buffers()] == ["table"]
    assert torch.equal(module.table, build(NUMPY_FIRST, "Table")().table)
    assert module.to(torch.float64).table.dtype == torch.float64
    assert rewrite(result.code).code == result.code


@pytest.mark.parametrize(
    "between",
    [
        "self.check()",  # a method may read self.table
        "print(self)",  # self handed along
        "if self.table.any():\n            pass",  # a use the rewrite cannot edit
    ],
)
def test_local_first_left_alone_when_something_may_read_the_attribute(between):
    source = NUMPY_FIRST.replace(
        "        self.table = torch.from_numpy",
        f"        {between}\n        self.table = torch.from_numpy",
    ) + "\n    def check(self):\n        pass\n"
    result = rewrite(source)
    assert by_attr(result)["table"].action is Action.SKIP
    assert result.code == textwrap.dedent(source)


def test_local_first_takes_another_name_when_the_attribute_name_is_a_local():
    source = NUMPY_FIRST.replace("self.table = np.eye(n)", "table = 2\n        self.table = np.eye(n) * table")
    result = rewrite(source)
    assert "        table_ = np.eye(n) * table\n" in result.code
    assert torch.equal(build(result.code, "Table")().table, build(source, "Table")().table)


def test_argument_wrapped_in_variable_typed_from_an_item_of_a_filled_list():
    # A parent builds a list with append and hands each item to a child, which keeps it
    # wrapped in Variable: the child's attribute is a raw tensor, the parent's list is reported.
    result = rewrite(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.autograd import Variable

        class FilterLinear(nn.Module):
            def __init__(self, n, mask):
                super().__init__()
                self.mask = Variable(mask, requires_grad=False)
                self.weight = nn.Parameter(torch.ones(n, n))

            def forward(self, x):
                return F.linear(x, self.mask.matmul(self.weight))

        class Net(nn.Module):
            def __init__(self, n=3, k=2):
                super().__init__()
                self.masks = []
                for i in range(k):
                    self.masks.append(torch.eye(n) * i)
                self.layers = nn.ModuleList([FilterLinear(n, self.masks[i]) for i in range(k)])
        """
    )
    found = by_attr(result)
    assert found["mask"].action is Action.BUFFER and found["masks"].action is Action.SKIP
    assert 'self.register_buffer("mask", mask, persistent=False)' in result.code
    net = build(result.code, "Net")().to(torch.float64)
    assert net.layers[1].mask.dtype == torch.float64


# -- modules whose names start with a capital letter --------------------------------------------

CAPITALISED_MODEL = """
import torch
import torch.nn as nn
import Layers
from helpers import Graphs


def build(n):
    return torch.eye(n)


class Net(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.a = build(n)
        self.c = Layers.make(n)
        self.d = Graphs.adjacency(n)
        self._init_extra(n)

    def _init_extra(self, n):
        self.b = Layers.make(n)

    def forward(self, x):
        return x + self.a + self.b + self.c + self.d
"""


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_capitalised_module_names_are_modules_not_classes(tmp_path, prefilter):
    # `Models.py`, `Layers.make(...)`: a module is told from a class by what its name is
    # bound to, not by its case.
    (tmp_path / "Model.py").write_text(CAPITALISED_MODEL)
    (tmp_path / "Layers.py").write_text("import torch\n\n\ndef make(n):\n    return torch.ones(n)\n")
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "Graphs.py").write_text("import torch\n\n\ndef adjacency(n):\n    return torch.eye(n)\n")
    found = run_project(tmp_path, prefilter)
    for name in ("a", "b", "c", "d"):
        finding = found[f"Net.{name}"]
        assert (finding.action, finding.persistent) == (Action.BUFFER, False), name


def test_method_of_a_capitalised_class_stays_untyped(tmp_path):
    (tmp_path / "model.py").write_text(
        textwrap.dedent(
            """
            import torch
            import torch.nn as nn
            from layers import Maker

            class Net(nn.Module):
                def __init__(self, n=3):
                    super().__init__()
                    self.a = Maker.make(n)
            """
        )
    )
    (tmp_path / "layers.py").write_text(
        "import torch\n\n\nclass Maker:\n    @staticmethod\n    def make(n):\n        return torch.ones(n)\n"
    )
    assert "Net.a" not in run_project(tmp_path, False)


def test_loss_classes_deriving_from_torchs_private_loss_base_are_modules():
    result = rewrite(
        """
        import torch
        from torch.nn.modules.loss import _Loss

        class WeightedLoss(_Loss):
            def __init__(self, weights=(1.0, 0.5)):
                super().__init__()
                self.weights = torch.tensor(weights)

            def forward(self, losses):
                return (self.weights * losses).sum()
        """
    )
    assert 'self.register_buffer("weights", torch.tensor(weights), persistent=False)' in result.code


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_argument_handed_on_by_a_parent_constructor_is_typed_from_the_parents_calls(tmp_path, prefilter):
    write_project(
        tmp_path,
        """
        import torch
        import torch.nn as nn
        from pkg.layers import GraphConv

        class Block(nn.Module):
            def __init__(self, adj, n=3):
                super().__init__()
                self.conv = GraphConv(adj, n)

        def build(n=3):
            return Block(torch.eye(n), n)
        """,
    )
    adj = run_project(tmp_path, prefilter)["GraphConv.adj"]
    assert (adj.action, adj.persistent) == (Action.BUFFER, False)


def test_argument_handed_on_is_left_alone_when_a_parents_call_passes_a_non_tensor(tmp_path):
    write_project(
        tmp_path,
        """
        import numpy as np
        import torch
        import torch.nn as nn
        from pkg.layers import GraphConv

        class Block(nn.Module):
            def __init__(self, adj, n=3):
                super().__init__()
                self.conv = GraphConv(adj, n)

        def build(n=3):
            return Block(torch.eye(n), n), Block(np.eye(n), n)
        """,
    )
    assert "GraphConv.adj" not in run_project(tmp_path, True)


# The uses that let the calls of a class decide (segments.tensor_used_attributes, the cheap text
# gate, and call_sites.used_as_tensor, the tree check, must agree on each).
TENSOR_USES = [
    "F.cross_entropy(x, y, self.k)",
    "F.nll_loss(x.view(-1, 2), y, weight=self.k)",
    "nn.functional.binary_cross_entropy_with_logits(x, y, pos_weight=self.k)",
    "mask = (self.k > 0)",
    "x[self.k == 1]",
    "edges = 0.5 < self.k",
    "self.k.gt(0)",
    "torch.ones_like(self.k)",
    "self.k.to(x.device)",
    "len(self.k.nonzero())",
    "torch.index_select(x, 0, self.k)",
    "torch.cat([x, self.k], 1)",
    "torch.mm(F.relu(self.k), x)",
    "torch.where(self.k, x, y)",
    "torch.einsum('ij,jk->ik', self.k, x)",
]
SCALAR_USES = [
    "torch.topk(x, self.k)",
    "F.dropout(x, self.k, self.training)",
    "F.dropout(x, p=self.k)",
    "torch.softmax(x, dim=self.k)",
    "torch.index_select(x, self.k, i)",
    "torch.cat([x, y], self.k)",
    "torch.zeros(self.k)",
    "torch.device(self.k)",
    "torch.sqrt(x + self.k)",
    "torch.mm(x, y) + self.k",
    "if self.k > 0: pass",
    "return 1 if self.k > 0 else 2",
    "assert self.k >= 1",
    "mode = self.k == 'mean'",
    "mask = x == self.k",  # a tensor compared with a name: the name may be the number
    "torch.stft(x, self.k, 4)",
    "torch.transpose(x, dim0=self.k, dim1=1)",
    "x.to(self.k.device)",
]


HANGING_SIGNATURES = {
    # parameters continued at the def's own indent: the body starts after their parenthesis
    "at the def's indent": "    def __init__(self, n=4,\n    length=10, meta=False,\n    width=60):\n",
    "a closing line at the def's indent": "    def __init__(\n    self, n=4, length=10\n    ):\n",
    "a default holding a bracket and a string": "    def __init__(self, n=4, sizes=(1, 2),\n    name='a)b', width=60):\n",
}


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
@pytest.mark.parametrize("signature", list(HANGING_SIGNATURES.values()), ids=list(HANGING_SIGNATURES))
def test_a_constructor_whose_parameters_go_on_at_the_def_indent_is_read(tmp_path, prefilter, signature):
    (tmp_path / "fibre.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Fibre(nn.Module):\n" + signature
        + "        super().__init__()\n        self.gamma = torch.ones(n, 8)\n\n"
        + "    def forward(self, u):\n        return u * self.gamma\n")
    found = run_project(tmp_path, prefilter)
    assert found["Fibre.gamma"].action is Action.BUFFER, found


@pytest.mark.parametrize("use,expected", [(u, True) for u in TENSOR_USES] + [(u, False) for u in SCALAR_USES])
def test_uses_that_let_the_calls_decide(use, expected):
    import ast

    from codemod.call_sites import used_as_tensor
    from codemod.segments import tensor_used_attributes

    text = f"class A:\n    def forward(self, x, y, i):\n        {use}\n"
    assert bool(tensor_used_attributes(text, {"k"})) is expected
    assert bool(used_as_tensor(ast.parse(text).body[0], "self", {"k"})) is expected


LOSS = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class WeightedLoss(nn.Module):
    def __init__(self, thresholds, weight=None, LAMBDA=None):
        super().__init__()
        self._weight = weight

    def forward(self, x, y):
        return F.cross_entropy(x, y, self._weight)


class TopK(nn.Module):
    def __init__(self, k, threshold):
        super().__init__()
        self.k = k
        self.threshold = threshold

    def forward(self, x):
        return torch.topk(x * (self.threshold > 0), self.k)
"""


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_argument_handed_to_a_torch_function_is_typed_from_the_calls(tmp_path, prefilter):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "loss.py").write_text(LOSS)
    (tmp_path / "main.py").write_text(
        "import numpy as np\nimport torch\nfrom pkg.loss import TopK, WeightedLoss\n\n"
        "weights = torch.from_numpy(np.array([1.0, 2.0])).float()\n"
        "criterion = WeightedLoss([0.5], weights)\nselect = TopK(3, 0.5)\n"
    )
    found = run_project(tmp_path, prefilter)
    weight = found["WeightedLoss._weight"]
    assert (weight.action, weight.persistent) == (Action.BUFFER, False)
    assert "typed from its call in the repository" in weight.reason
    # self.threshold > 0 lets the calls decide, and every call passes a number: left alone.
    assert set(found) == {"WeightedLoss._weight"}


@pytest.mark.parametrize("call", ["WeightedLoss([0.5])", "WeightedLoss([0.5], None)", "WeightedLoss([0.5], [1.0, 2.0])"])
def test_argument_handed_to_a_torch_function_left_alone_when_a_call_passes_no_tensor(tmp_path, call):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "loss.py").write_text(LOSS)
    (tmp_path / "main.py").write_text(f"import torch\nfrom pkg.loss import WeightedLoss\n\ncriterion = {call}\n")
    assert run_project(tmp_path, True) == {}


GRAPH_BASE = """
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, params=None):
        super().__init__()
        self.params = params


class GBase(Base):
    def __init__(self, edge_index, edge_type, num_rel, params=None):
        super(GBase, self).__init__(params)
        self.edge_index = edge_index
        self.edge_type = edge_type
        self.num_rel = num_rel

    def forward(self, x):
        return torch.index_select(x, 0, self.edge_type) + self.edge_index.sum()


class GSub(GBase):
    def __init__(self, edge_index, edge_type, params=None):
        super().__init__(edge_index, edge_type, 3, params)
"""


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
@pytest.mark.parametrize(
    "super_call",
    [
        "super().__init__(edge_index, edge_type, 3, params)",
        "super(GSub, self).__init__(edge_index, edge_type, 3, params)",
        "super(self.__class__, self).__init__(edge_index, edge_type, 3, params)",
        "GBase.__init__(self, edge_index, edge_type, num_rel=3, params=params)",
        "super().__init__(edge_type=edge_type, edge_index=edge_index, num_rel=3)",
    ],
)
def test_base_argument_handed_on_by_a_subclass_is_typed_from_the_subclass_calls(tmp_path, prefilter, super_call):
    (tmp_path / "model.py").write_text(GRAPH_BASE.replace("super().__init__(edge_index, edge_type, 3, params)", super_call))
    (tmp_path / "run.py").write_text(
        "import torch\nfrom model import GSub\n\n"
        "m = GSub(torch.LongTensor([[0, 1]]).t(), torch.LongTensor([0, 1]), params=None)\n"
    )
    found = run_project(tmp_path, prefilter)
    assert set(found) == {"GBase.edge_index", "GBase.edge_type"}
    for finding in found.values():
        assert (finding.action, finding.persistent) == (Action.BUFFER, False)
        assert "a tensor handed to the constructor (typed from its call in the repository)" in finding.reason


@pytest.mark.parametrize(
    "caller",
    [
        "m = GSub([[0, 1]], [0, 1])",  # lists
        "m = GSub(torch.LongTensor([[0, 1]]).t(), None)",  # None for edge_type
        "m = GSub(*args)",  # cannot be read
    ],
)
def test_base_argument_handed_on_left_alone_unless_every_subclass_call_passes_a_tensor(tmp_path, caller):
    (tmp_path / "model.py").write_text(GRAPH_BASE)
    (tmp_path / "run.py").write_text(f"import torch\nfrom model import GSub\n\nargs = ()\n{caller}\n")
    found = run_project(tmp_path, True)
    if "*args" in caller:  # nothing read: reported (BUF308), never rewritten
        assert (found["GBase.edge_type"].action, found["GBase.edge_type"].code) == (Action.SKIP, "BUF308")
    else:  # a list, or None in every call: refuted, nothing to say
        assert "GBase.edge_type" not in found


def _chain(levels: int) -> tuple[str, str]:
    """GRAPH_BASE with `levels` more subclasses, each handing its arguments on; (source, last class)."""
    chain = [GRAPH_BASE]
    previous = "GSub"
    for level in range(levels):
        chain.append(
            f"\n\nclass Level{level}({previous}):\n    def __init__(self, edge_index, edge_type):\n"
            "        super().__init__(edge_index, edge_type)\n"
        )
        previous = f"Level{level}"
    return "".join(chain), previous


@pytest.mark.parametrize("levels,typed", [(3, True), (12, False)])
def test_base_constructor_followed_through_a_bounded_chain_of_subclasses(tmp_path, levels, typed):
    source, last = _chain(levels)
    (tmp_path / "model.py").write_text(source)
    (tmp_path / "run.py").write_text(f"import torch\nfrom model import {last}\n\nm = {last}(torch.eye(2).long(), torch.arange(2))\n")
    # deeper than call_sites follows: nothing typed, nothing rewritten; the uses are reported
    found = run_project(tmp_path, True)
    if typed:
        assert {k: f.action for k, f in found.items()} == {"GBase.edge_index": Action.BUFFER, "GBase.edge_type": Action.BUFFER}
    else:  # edge_type (`torch.index_select`) is reported; edge_index.sum() an array has too
        assert {k: (f.action, f.code) for k, f in found.items()} == {"GBase.edge_type": (Action.SKIP, "BUF308")}


# -- tuple unpacking (codemod/unpacking.py) ------------------------------------------------------

UNPACKED = """
import torch
import torch.nn as nn

mask = "a module-level name the constructor reads"


def build(n):
    return torch.eye(n), torch.arange(n).long()


class M(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        note = mask
        self.mask, self.order = build(n)
        if n: self.low, self.high = torch.arange(4).chunk(2)
        self.values, self.index = torch.sort(torch.tensor([3.0, 1.0, 2.0])); self.n = n
"""


def test_unpacking_is_split_into_fresh_locals_and_registered():
    result = rewrite(UNPACKED)
    # `mask` is read in __init__ (a global): the local must not shadow it
    assert "mask_, order = build(n)" in result.code
    assert 'self.register_buffer("mask", mask_, persistent=False)' in result.code
    assert 'self.register_buffer("order", order, persistent=False)' in result.code
    # on a line of its own block or beside other statements: joined with semicolons
    assert 'if n: low, high = torch.arange(4).chunk(2); self.register_buffer("low", low' in result.code
    original, rewritten = build(UNPACKED, "M")(), build(result.code, "M")()
    for name in ("mask", "order", "low", "high", "values", "index"):
        assert name in dict(rewritten.named_buffers()), name
        assert torch.equal(getattr(original, name), getattr(rewritten, name)), name
    moved = rewritten.to(torch.float64)
    assert moved.mask.dtype == torch.float64 and moved.order.dtype == torch.long  # a float cast leaves integers alone
    integer = {f.attribute: f.statically_safe for f in result.findings}
    assert integer["order"] and integer["index"] and not integer["mask"]


def test_unpacking_with_a_non_tensor_item_is_reported_and_left_alone():
    source = """
    import torch
    import torch.nn as nn

    def table(n):
        return torch.ones(n), len(range(n))

    class M(nn.Module):
        def __init__(self, n=3):
            super().__init__()
            self.table, self.size = table(n)
    """
    result = rewrite(source)
    finding = by_attr(result)["table"]
    assert finding.action is Action.SKIP and finding.code == "BUF304"
    assert "self.size gets a non-tensor" in finding.reason
    assert result.code == textwrap.dedent(source)


def test_parameter_or_tensor_argument_is_reported_not_registered():
    source = """
    from typing import Union
    import torch
    import torch.nn as nn

    class M(nn.Module):
        def __init__(self, weight: Union[nn.Parameter, torch.Tensor]):
            super().__init__()
            self.weight = weight
    """
    result = rewrite(source)
    finding = by_attr(result)["weight"]
    assert finding.action is Action.SKIP and "Parameter passed in" in finding.reason
    # what a rewrite would have broken: a Parameter registered as a buffer leaves parameters()
    module = build(result.code, "M")(nn_parameter := torch.nn.Parameter(torch.ones(2)))
    assert any(p is nn_parameter for p in module.parameters())


# -- values returned by objects the module holds -------------------------------------------------

HELPERS = """
import torch
import torch.nn as nn


class Converter:
    def encode(self, words):
        return torch.IntTensor([len(w) for w in words]), torch.IntTensor([len(words)])

    def vocabulary(self):
        return {"a": 1}

    @classmethod
    def build(cls):
        return cls()


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)

    def forward(self, z):
        return torch.tanh(self.body(z))
"""


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_values_from_a_held_object_of_another_file_are_typed_from_its_class(tmp_path, prefilter):
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "model.py").write_text(
        textwrap.dedent(
            """
            import torch.nn as nn
            from helpers import Converter, Generator

            class Net(nn.Module):
                def __init__(self, words):
                    super().__init__()
                    self.converter = Converter()
                    self.netG = Generator()
                    self.codes, self.lengths = self.converter.encode(words)
                    self.vocab = self.converter.vocabulary()
                    self.other = Converter.build()

                def forward(self, z):
                    self.fake = self.netG(z)
                    self.again = self.other.encode(["a"])
                    return self.fake
            """
        )
    )
    found = run_project(tmp_path, prefilter)
    for name in ("codes", "lengths"):
        assert (found[f"Net.{name}"].action, found[f"Net.{name}"].persistent) == (Action.BUFFER, False), name
    assert found["Net.fake"].code == "BUF303"  # a repository module's forward returns a tensor
    # a dict, an instance built by a classmethod (not typed), and modules are no findings
    for name in ("vocab", "other", "again", "converter", "netG"):
        assert f"Net.{name}" not in found, name


def test_number_placeholder_then_tensor_is_reported_and_a_buffer_could_not_hold_the_number():
    result = rewrite(
        """
        import torch
        import torch.nn as nn

        class Trainer(nn.Module):
            def __init__(self):
                super().__init__()
                self.loss = 0
                self.count = 0

            def step(self, x):
                self.loss = torch.mean(x)
                self.count += 1
                return self.loss
        """
    )
    found = by_attr(result)
    assert found["loss"].code == "BUF307" and found["loss"].action is Action.SKIP
    assert "count" not in found  # stays a number
    assert result.changed is False
    # The fact the rule rests on: a buffer slot refuses the number the class resets it to,
    # and a tensor in the plain attribute is not moved by .to().
    module = torch.nn.Module()
    module.register_buffer("loss", None, persistent=False)
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer"):
        module.loss = 0
    module = torch.nn.Module()
    module.loss = torch.zeros(1)
    assert module.to("meta").loss.device.type == "cpu"


def test_tensor_handed_to_its_own_optimizer_is_reported_because_a_parameter_would_be_trained_twice():
    result = rewrite(
        """
        import torch
        import torch.nn as nn

        class Search(nn.Module):
            def __init__(self, k):
                super().__init__()
                self.alphas = torch.zeros(k, requires_grad=True)
                self.arch = [self.alphas]
                self.scale = torch.ones(k, requires_grad=True)

            def forward(self, x):
                return torch.cat([x, self.scale]) * self.alphas.sum()
        """
    )
    found = by_attr(result)
    assert found["alphas"].code == "BUF217" and found["alphas"].action is Action.SKIP
    # torch.cat([x, self.scale]) is a computation, not a list handed to an optimizer
    assert found["scale"].action is Action.PARAMETER
    # The fact: a Parameter is in parameters(), so the model's optimizer updates it as well
    # as the optimizer of its own (here: listed twice in one group, it is stepped twice).
    module = torch.nn.Module()
    module.alphas = torch.nn.Parameter(torch.zeros(1))
    assert any(p is module.alphas for p in module.parameters())
    with pytest.warns(UserWarning, match="duplicate parameters"):
        opt = torch.optim.SGD([*module.parameters(), module.alphas], lr=1.0)
    module.alphas.grad = torch.ones(1)
    opt.step()
    assert module.alphas.item() == -2.0


def test_raw_tensor_replaced_by_a_parameter_on_every_path_is_no_finding():
    source = """
        import torch
        import torch.nn as nn

        class Backproject(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.ones = nn.Parameter(torch.ones(1, 1, n), requires_grad=False)
                self.xy = torch.zeros(1, 2, n)
                self.xy = torch.cat([self.xy, self.ones], 1)
                self.xy = nn.Parameter(self.xy, requires_grad=False)
        """
    result = rewrite(source)
    assert "xy" not in by_attr(result) and result.changed is False
    # The fact: the attribute ends as a parameter whatever came before it.
    model = build(textwrap.dedent(source), "Backproject")(3)
    assert [name for name, _ in model.named_parameters()] == ["ones", "xy"] and not list(model.buffers())


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_an_untyped_argument_used_as_a_tensor_is_reported_unless_a_call_refutes_it(tmp_path, prefilter):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "layers.py").write_text(
        textwrap.dedent(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            class Propagate(nn.Module):
                def __init__(self, adj):
                    super().__init__()
                    self.adj = adj

                def forward(self, x):
                    return torch.mm(self.adj, x)

            class Head(nn.Module):
                def __init__(self, weight):
                    super().__init__()
                    self.weight = weight

                def forward(self, x):
                    return F.linear(x, self.weight)
            """
        )
    )
    (tmp_path / "train.py").write_text(
        textwrap.dedent(
            """
            import pickle
            import torch.nn as nn
            from pkg.layers import Head, Propagate

            saved = pickle.load(open("graph.pkl", "rb"))
            model = Propagate(saved["adj"])
            embed = nn.Embedding(10, 4)
            head = Head(embed.weight)
            """
        )
    )
    found = run_project(tmp_path, prefilter)
    assert found["Propagate.adj"].code == "BUF308" and found["Propagate.adj"].action is Action.SKIP
    assert "torch.mm(self.adj, x)" in found["Propagate.adj"].reason
    assert "Head.weight" not in found  # handed another module's parameter: tied, registered on assignment
    # The facts the rule rests on: a plain tensor attribute does not move with the module nor
    # reach state_dict, and a Parameter handed in is registered by the assignment itself.
    module = torch.nn.Module()
    module.adj = torch.eye(2)
    module.to("meta")
    assert module.adj.device.type == "cpu" and "adj" not in module.state_dict()
    embed = torch.nn.Embedding(10, 4)
    head = torch.nn.Module()
    head.weight = embed.weight
    assert "weight" in dict(head.named_parameters())


def _golden_input(name: str) -> str:
    from pathlib import Path

    return (Path(__file__).parent.parent / "golden" / name / "input.py").read_text(encoding="utf-8")


def test_a_method_argument_kept_and_used_as_a_tensor_is_reported_and_is_left_behind_by_a_move():
    source = _golden_input("report_untyped_method_argument")
    found = {k: (f.action, f.code) for k, f in by_attr(transform_source(source, path="model.py")).items()}
    # `scale` is only multiplied by: a number would do the same, so nothing is said of it
    assert found == {"local_entity": (Action.SKIP, "BUF309"), "adj": (Action.SKIP, "BUF309")}
    namespace: dict = {}
    exec(compile(source, "model.py", "exec"), namespace)
    layer = namespace["GraphLayer"]()
    layer.set_graph(torch.eye(8))
    layer.to("meta")  # "meta" stands for the accelerator: the same moves, no GPU needed
    assert layer.linear.weight.device.type == "meta" and layer.adj.device.type == "cpu"  # the fact reported
    # what the suggestion gives: a None buffer declared in __init__ holds the tensor, which then moves
    layer = namespace["GraphLayer"]()
    layer.register_buffer("adj", None, persistent=False)
    layer.set_graph(torch.eye(8))
    layer.to("meta")
    assert layer.adj.device.type == "meta" and "adj" not in layer.state_dict()


def test_a_cast_of_an_elementwise_comparison_kept_by_a_method_is_reported_as_a_tensor():
    source = _golden_input("report_comparison_cast_outside_constructor")
    found = {k: (f.action, f.code) for k, f in by_attr(transform_source(source, path="model.py")).items()}
    assert found == {"query_mask": (Action.SKIP, "BUF303"), "local_entity_mask": (Action.SKIP, "BUF303")}
    namespace: dict = {}
    exec(compile(source, "model.py", "exec"), namespace)
    model = namespace["EntityMask"]()
    model.init_reason(torch.tensor([1, 5, 2]))
    assert isinstance(model.local_entity_mask, torch.Tensor) and "local_entity_mask" not in model.state_dict()


def test_methods_are_read_with_the_layers_a_base_constructor_and_a_submodule_constructor_build():
    source = _golden_input("report_inherited_constructor_attributes")
    found = {k: (f.action, f.code) for k, f in by_attr(transform_source(source, path="model.py")).items()}
    assert found == {"rel_features": (Action.SKIP, "BUF303"), "instruction_list": (Action.SKIP, "BUF301")}
    namespace: dict = {}
    exec(compile(source, "model.py", "exec"), namespace)
    model = namespace["GNNModel"]()
    model(torch.ones(8))
    assert isinstance(model.rel_features, torch.Tensor)
    assert all(isinstance(t, torch.Tensor) for t in model.instruction_list)
    assert not {"rel_features", "instruction_list"} & set(model.state_dict())


def test_a_number_placeholder_that_plus_equals_turns_into_a_tensor_is_reported():
    source = _golden_input("report_number_placeholder_augmented")
    found = {k: (f.action, f.code) for k, f in by_attr(transform_source(source, path="model.py")).items()}
    assert found == {"loss_total": (Action.SKIP, "BUF307"), "error": (Action.SKIP, "BUF307")}
    namespace: dict = {}
    exec(compile(source, "model.py", "exec"), namespace)
    trainer = namespace["Trainer"]()
    trainer.train_step(torch.ones(2, 4), torch.zeros(2, 4))
    assert isinstance(trainer.loss_total, torch.Tensor) and trainer.steps == 1
    assert "loss_total" not in trainer.state_dict()
    # why the report suggests no plain registration: a buffer refuses the number placeholder
    trainer = namespace["Trainer"]()
    del trainer.loss_total
    trainer.register_buffer("loss_total", None, persistent=False)
    try:
        trainer.loss_total = 0
    except TypeError:
        pass
    else:
        raise AssertionError("a buffer accepted a number")


def _findings_and_namespace(golden: str) -> tuple[dict, dict]:
    source = _golden_input(golden)
    found = {k: (f.action, f.code) for k, f in by_attr(transform_source(source, path="model.py")).items()}
    namespace: dict = {}
    exec(compile(source, "model.py", "exec"), namespace)
    return found, namespace


def test_a_new_tensor_made_from_a_parameter_fills_a_lazy_slot():
    found, ns = _findings_and_namespace("lazy_fresh_tensor_from_parameter")
    assert found == {"noise_in": (Action.BUFFER, "BUF107"), "workspace": (Action.BUFFER, "BUF107")}
    cell = ns["VarRNNCell"]()
    made = cell.weight_ih.new_empty(2, 4)
    assert type(made) is torch.Tensor and not made.requires_grad  # a new plain tensor, not the parameter
    del cell.noise_in
    cell.register_buffer("noise_in", None, persistent=False)  # what the rewrite declares
    cell.reset_noise(2)
    cell.to("meta")
    assert "noise_in" in dict(cell.named_buffers()) and cell.noise_in.device.type == "meta"


def test_a_buffer_a_torch_base_registers_is_no_finding():
    found, ns = _findings_and_namespace("report_torch_base_registers_buffer")
    assert found == {"shift": (Action.BUFFER, "BUF101")}  # not weight, not running_mean
    loss = ns["WeightedLoss"](torch.ones(3))
    assert "weight" in dict(loss.named_buffers()) and "weight" in loss.state_dict()  # the base's buffer, filled
    loss.to("meta")
    assert loss.weight.device.type == "meta"
    norm = ns["FrozenNorm"]()
    assert "running_mean" in dict(norm.named_buffers()) and "shift" not in dict(norm.named_buffers())


def test_a_forward_input_whose_elements_are_objects_is_not_reported():
    found, ns = _findings_and_namespace("report_forward_input_holding_objects")
    assert found == {"fe": (Action.SKIP, "BUF307")}

    class Mesh:
        edges_count = 2

    out = ns["MeshPool"]()(torch.ones(2, 3, 4), [Mesh(), Mesh()])
    assert out.shape == (2,)


def test_none_then_a_tuple_of_tensors_is_reported_because_no_buffer_holds_a_tuple():
    _, ns = _findings_and_namespace("report_none_then_tuple_of_tensors")
    result = transform_source(_golden_input("report_none_then_tuple_of_tensors"), path="model.py")
    by_class = {(f.class_name, f.attribute): (f.action, f.code) for f in result.findings}
    assert by_class == {("LSTMPlain", "hidden"): (Action.SKIP, "BUF307"), ("GRUPlain", "hidden"): (Action.BUFFER, "BUF107")}
    model = ns["LSTMPlain"]()
    model(torch.ones(1, 2, 4))
    assert isinstance(model.hidden, tuple) and len(model.hidden) == 2
    try:
        model.register_buffer("state", model.hidden, persistent=False)
    except TypeError:
        pass
    else:
        raise AssertionError("a buffer took a tuple")


def test_a_helper_of_an_override_the_base_constructor_runs_gets_no_registration_suggested():
    found, ns = _findings_and_namespace("report_override_helper_run_by_base_constructor")
    assert found == {"cond_ids": (Action.SKIP, "BUF303")}
    (finding,) = transform_source(_golden_input("report_override_helper_run_by_base_constructor"), path="model.py").findings
    assert "base constructor may run first" in finding.reason and finding.suggestion is None
    model = ns["LatentDiffusion"]()
    assert torch.equal(model.cond_ids[:3], torch.arange(3))  # set while the base constructor ran
    try:
        model.register_buffer("cond_ids", None, persistent=False)  # the suggestion this report no longer makes
    except KeyError:
        pass
    else:
        raise AssertionError("registering over the attribute did not raise")


def test_a_submodule_in_the_other_branch_is_named_as_such():
    found, ns = _findings_and_namespace("skip_submodule_in_other_branch")
    assert found == {"rho": (Action.SKIP, "BUF204"), "scale": (Action.SKIP, "BUF204")}
    by_attr_found = by_attr(transform_source(_golden_input("skip_submodule_in_other_branch"), path="model.py"))
    assert "a submodule in the other" in by_attr_found["rho"].reason
    assert "plain attribute in the other" in by_attr_found["scale"].reason
    # the fact: the same name is a submodule in one configuration, a plain tensor in the other
    assert "rho" in dict(ns["ETM"]().named_modules())
    fixed = ns["ETM"](train_embeddings=False, embeddings=torch.ones(10, 4))
    assert isinstance(fixed.rho, torch.Tensor) and "rho" not in dict(fixed.named_buffers())


def test_a_dict_filled_by_a_forward_hook_method_is_a_container_of_tensors():
    found, ns = _findings_and_namespace("report_container_filled_by_hook_method")
    assert found == {"hidden": (Action.SKIP, "BUF301")}  # not shapes: tuples of ints
    model = ns["NetWrapper"](nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2)))
    model(torch.ones(3, 4))
    (kept,) = model.hidden.values()
    assert isinstance(kept, torch.Tensor) and not dict(model.named_buffers())  # the fact: held outside .to()
    model.to("meta")
    assert kept.device.type == "cpu" and model.net[0].weight.device.type == "meta"


def test_what_a_sequential_returns_to_a_method_is_reported_and_not_guessed_in_the_constructor():
    found, ns = _findings_and_namespace("report_sequential_output_kept_by_method")
    # utt_orig through a chained assignment; not probe, a constructor value a guess could rewrite
    assert found == {"utt_orig": (Action.SKIP, "BUF303"), "utt_shared": (Action.SKIP, "BUF303")}
    model = ns["MISA"]()
    model(torch.ones(2, 4))
    assert isinstance(model.utt_orig, torch.Tensor) and isinstance(model.utt_shared, torch.Tensor)
    assert not {"utt_orig", "utt_shared"} & set(model.state_dict())
    model.to("meta")
    assert model.utt_shared.device.type == "cpu"  # left behind by the move


_UNTYPED_VALUE = """
import numpy as np
import torch
import torch.nn as nn
from graphkit import load_graph  # outside the repository: nothing types it
from pkg.graphs import repository_graph, repository_table


class GraphConv(nn.Module):
    def __init__(self, path, dim):
        super().__init__()
        self.adj = {value}
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return {use}

    def _init_new_params(self, *size):
        out = nn.Parameter(torch.FloatTensor(*size))
        nn.init.xavier_normal_(out)
        return out
"""


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
@pytest.mark.parametrize(
    ("value", "use", "expected"),
    [
        # another package's call, used as only a tensor is used: reported (BUF312), never rewritten
        ("load_graph(path)", "torch.mm(self.adj, self.lin(x))", ("skip", "BUF312")),
        ("load_graph(path)['adj']", "self.adj.t() @ self.lin(x)", ("skip", "BUF312")),
        # a use other objects have too (a number multiplies): nothing to say
        ("load_graph(path)", "self.lin(x) * self.adj", None),
        # the repository's own function says what it returns: a tensor is rewritten, an array is not one
        ("repository_graph(path)", "torch.mm(self.adj, self.lin(x))", ("buffer", "BUF101")),
        ("repository_table(path)", "torch.mm(torch.from_numpy(self.adj), self.lin(x))", None),
        # a kept argument is BUF308's (or deliberately nobody's)
        ("path", "torch.mm(self.adj, self.lin(x))", ("skip", "BUF308")),
        # what the class's own method returns (here an nn.Parameter) is never reported on a guess
        ("self._init_new_params(dim, dim)", "torch.mm(self.adj, self.lin(x))", None),
    ],
)
def test_untyped_value_used_as_a_tensor_is_reported(tmp_path, prefilter, value, use, expected):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "graphs.py").write_text(
        "import numpy as np\nimport torch\n\n\ndef repository_graph(path):\n    return torch.eye(3)\n\n\n"
        "def repository_table(path):\n    return np.eye(3)\n"
    )
    (tmp_path / "pkg" / "layers.py").write_text(_UNTYPED_VALUE.format(value=value, use=use))
    found = run_project(tmp_path, prefilter)
    got = found.get("GraphConv.adj")
    assert (None if got is None else (got.action.value, got.code)) == expected


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # the model read through another object, its values handed to .numpy(): kept on the CPU
        ("def f(net, i):\n    return torch.argmax(net.module.table[i], dim=1).numpy()\n", "BUF218"),
        ("def f(net, i):\n    picked = net.table[i]\n    return torch.LongTensor(picked)\n", "BUF218"),
        # a Python number made of it, a host copy, or an option of the same name: nothing to keep
        ("def f(net):\n    return np.array([float(net.table.sum()), 1.0])\n", "BUF101"),
        ("def f(net):\n    return net.table.cpu().numpy()\n", "BUF101"),
        ("def f(args):\n    weights = [float(args.table), 1.0]\n    return torch.FloatTensor(weights)\n", "BUF101"),
        ("def f(args):\n    return torch.FloatTensor(args.table)\n", "BUF101"),
        # a config another library loads holds its own `table`; a model torch loads is the model
        ("from omegaconf import OmegaConf\n\n\ndef f(path):\n    oc = OmegaConf.merge(OmegaConf.create(), OmegaConf.load(path))\n"
         "    return torch.FloatTensor(oc.data.table)\n", "BUF101"),
        ("def f(path, i):\n    net = torch.load(path)\n    return torch.LongTensor(net.table[i])\n", "BUF218"),
    ],
)
def test_values_read_through_another_object_that_reach_cpu_only_calls(tmp_path, script, expected):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self, n=4):\n"
        "        super().__init__()\n        self.table = torch.zeros(n, 2)\n        self.lin = nn.Linear(2, 2)\n\n"
        "    def forward(self, x):\n        return self.lin(x @ self.table)\n"
    )
    (tmp_path / "pkg" / "prune.py").write_text("import numpy as np\nimport torch\n\n\n" + script)
    assert run_project(tmp_path, True)["Net.table"].code == expected


_FACTORY_MODEL = """
import torch.nn as nn


class Small(nn.Module):
    def forward(self, x):
        return x * 2


class Large(nn.Module):
    def forward(self, x):
        return x * 3


class Tokenizer:
    def __call__(self, text):
        return text.split()


def define_net(kind):
    if kind == "small":
        net = Small()
    else:
        net = Large()
    return net


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = None

    def initialize(self, kind):
        self.net = define_net(kind)
        self.tokenizer = Tokenizer()

    def forward(self, x, text):
        if self.cache is None:
            self.cache = {cache}
        self.words = self.tokenizer(text)
        return self.net(x) + self.cache
"""


def test_a_module_from_a_factory_gives_per_call_reports_and_a_proven_cache_a_lazy_buffer():
    # what a module of one of several classes returns is a guess: reported, never an empty buffer slot
    for cache in ("self.net(x)", "self.net(x) * 2 + 1"):  # arithmetic on a guess is a guess
        guessed = by_attr(rewrite(_FACTORY_MODEL.format(cache=cache)))
        assert (guessed["cache"].action, guessed["cache"].code) == (Action.SKIP, "BUF307"), cache
    assert "words" not in guessed  # a plain object's call is no tensor
    # detach() is a method only a tensor has: the cache is proven one, and gets its empty slot
    proven = by_attr(rewrite(_FACTORY_MODEL.format(cache="self.net(x).detach()")))
    assert (proven["cache"].action, proven["cache"].code) == (Action.BUFFER, "BUF107")


def test_what_a_module_handed_to_a_method_returns_is_a_per_call_report():
    result = by_attr(rewrite("""
        import torch.nn as nn


        class DiscLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.criterion = nn.MSELoss()

            def get_loss(self, net, fake, real):
                self.pred_fake = net.forward(fake.detach())
                self.pred_real = net.forward(real)
                self.loss_D = (self.pred_fake - self.pred_real).mean()
                self.steps = net.forward_count
                return self.loss_D
    """))
    assert {attr: (f.action, f.code) for attr, f in result.items()} == {
        attr: (Action.SKIP, "BUF303") for attr in ("pred_fake", "pred_real", "loss_D")
    }


def test_an_item_of_a_list_of_tensors_that_grew_is_a_per_call_report_and_never_a_constructor_rewrite():
    result = by_attr(rewrite("""
        import torch
        import torch.nn as nn


        class Stack(nn.Module):
            def __init__(self, convs, n=4):
                super().__init__()
                self.convs = convs
                self.tables = [torch.zeros(n)]
                for conv in convs:
                    self.tables.append(conv.table())
                self.last_table = self.tables[-2]

            def forward(self, x):
                self.outs = [x.float()]
                for conv in self.convs:
                    self.outs.append(conv(self.outs[-1]))
                self.last_features = self.outs[-2]
                return self.outs[-1]
    """))
    assert (result["last_features"].action, result["last_features"].code) == (Action.SKIP, "BUF303")
    assert "last_table" not in result  # a guess is never made in the constructor, whose values may be rewritten


def test_a_number_taken_from_a_loss_the_pre_0_4_way_is_not_a_kept_tensor():
    # `loss.data[0]` was how torch before 0.4 made a Python number of a loss (today it raises
    # on a 0-dim loss): not reported as a tensor kept on the module, unlike the loss itself
    result = by_attr(rewrite("""
        import torch.nn as nn


        class Trainer(nn.Module):
            def __init__(self):
                super().__init__()
                self.criterion = nn.L1Loss()

            def backward_G(self, fake, real):
                loss = self.criterion(fake, real)
                self.loss_G = loss
                self.loss_G_value = loss.data[0]
                return loss
    """))
    assert {attr: f.code for attr, f in result.items()} == {"loss_G": "BUF303"}


def test_einops_rearrange_of_a_tensor_is_a_tensor():
    # einops hands back an array of the kind it is given: a torch tensor for a tensor
    result = rewrite(
        """
        import torch
        import torch.nn as nn
        from einops import rearrange, repeat


        class Patches(nn.Module):
            def __init__(self, n=4):
                super().__init__()
                self.grid = rearrange(torch.arange(n * n).float(), "(h w) -> h w", h=n)
                self.tokens = repeat(torch.zeros(n), "d -> b d", b=2)
                self.shape = rearrange([1, 2], "n -> n")

            def forward(self, x):
                return x + self.grid.sum() + self.tokens.sum()
        """
    )
    found = by_attr(result)
    assert found["grid"].action is Action.BUFFER and found["tokens"].action is Action.BUFFER, result.findings
    assert "shape" not in found  # a list handed in: not known to be a tensor


def test_an_assignment_where_the_attribute_exists_beside_its_registration_in_the_other_arm_is_left_alone():
    # the author registers it the first time and assigns the registered buffer after: no KeyError
    # can happen (the arms never both run) and nothing is a raw tensor
    result = rewrite(
        """
        from typing import Optional

        import torch
        import torch.nn as nn

        class Graph(nn.Module):
            def __init__(self, n, prior: Optional[torch.Tensor] = None):
                super().__init__()
                self.n = n
                if prior is not None:
                    self.set_prior(prior)
                else:
                    self.register_buffer("prior", torch.eye(n), persistent=False)

            def set_prior(self, a: torch.Tensor) -> None:
                normed = a.float() / a.sum(1, keepdim=True)
                if hasattr(self, "prior") and isinstance(getattr(self, "prior"), torch.Tensor):
                    self.prior = normed.to(self.prior.device)
                else:
                    self.register_buffer("prior", normed, persistent=False)

            def forward(self, x):
                return self.prior @ x
        """
    )
    assert "prior" not in by_attr(result), result.findings


def test_a_plain_tensor_in_one_arm_beside_a_registration_in_the_other_is_not_said_to_raise():
    result = rewrite(
        """
        import torch
        import torch.nn as nn

        class Table(nn.Module):
            def __init__(self, n, keep=True):
                super().__init__()
                if keep:
                    self.register_buffer("table", torch.arange(n))
                else:
                    self.table = torch.arange(n)

            def forward(self, x):
                return x + self.table
        """
    )
    table = by_attr(result)["table"]
    assert "raises KeyError" not in table.reason, table
    assert table.action is Action.BUFFER and table.persistent is False, table


COMPLEX_LAYER = """
import torch
import torch.nn as nn


class Filter(nn.Module):
    def __init__(self, n, init_value=torch.zeros(1)):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.init_value = init_value.to("cpu")

    def forward(self, x):
        return self.lin(x) + self.init_value
"""


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
@pytest.mark.parametrize("passed,complex_", [("self.H", True), ("self.H.abs()", False), ("torch.ones(8)", False)])
def test_an_argument_a_repository_call_hands_a_complex_tensor_stays_plain(tmp_path, prefilter, passed, complex_):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "layers.py").write_text(COMPLEX_LAYER)
    (tmp_path / "pkg" / "fibre.py").write_text(textwrap.dedent(f"""
        import torch
        import torch.nn as nn
        from pkg.layers import Filter

        class Fibre(nn.Module):
            def __init__(self, n=8, dz=0.1):
                super().__init__()
                beta = torch.linspace(0, 1, n)
                self.H = torch.exp(-1j * beta * dz)
                self.filters = nn.ModuleList([Filter(n, init_value={passed}) for _ in range(2)])
        """))
    found = run_project(tmp_path, prefilter)["Filter.init_value"]
    if complex_:
        # model.to(torch.bfloat16) would drop the imaginary part of a complex buffer
        assert found.action is Action.SKIP and found.code == "BUF201", found
        assert "the call at fibre.py, line 11 hands init_value a complex tensor" in found.reason, found.reason
    else:
        assert found.action is Action.BUFFER, found


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
@pytest.mark.parametrize("binding", ["from pkg import config", "import pkg.config as config"])
def test_a_tensor_another_repository_module_binds_at_top_level_is_typed_where_read_through_it(tmp_path, prefilter, binding):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "config.py").write_text("import torch\n\npower = torch.ones(3) * 1.0\nlam = 1550.0\n")
    (tmp_path / "pkg" / "tx.py").write_text(textwrap.dedent(f"""
        import torch.nn as nn
        {binding}

        class Tx(nn.Module):
            def __init__(self):
                super().__init__()
                self.power = config.power
                self.lam = config.lam

            def forward(self, x):
                return x * self.power * self.lam
        """))
    found = run_project(tmp_path, prefilter)
    assert found["Tx.power"].action is Action.BUFFER and found["Tx.power"].persistent is False, found
    assert "Tx.lam" not in found


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_an_argument_read_from_an_instance_a_script_builds_at_top_level_is_typed(tmp_path, prefilter):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "layers.py").write_text(LAYER)
    (tmp_path / "pkg" / "tx.py").write_text(textwrap.dedent("""
        import torch
        import torch.nn as nn

        class Tx(nn.Module):
            def __init__(self, n=3):
                super().__init__()
                self.adj = torch.eye(n)
        """))
    (tmp_path / "main.py").write_text(textwrap.dedent("""
        from pkg.layers import GraphConv
        from pkg.tx import Tx

        tx = Tx()


        def build():
            return GraphConv(tx.adj, 3)  # the module's instance, read inside a function
        """))
    adj = run_project(tmp_path, prefilter)["GraphConv.adj"]
    assert adj.action is Action.BUFFER and "typed from its call in the repository" in adj.reason, adj


@pytest.mark.parametrize("use,reported", [
    ("dataset = TensorDataset(self.x_train, self.y_train)", True),  # tensors only
    ("dataset = list(zip(self.x_train, self.y_train))", False),  # anything iterable
])
def test_data_a_constructor_loads_with_torch_load_is_reported_where_it_is_used_as_tensors(use, reported):
    result = rewrite(
        f"""
        import torch as tc
        import torch.nn as nn
        from torch.utils.data import TensorDataset

        class G2P(nn.Module):
            def __init__(self, hidden):
                super().__init__()
                self.x_train = tc.load("data/X_train.pt")
                self.y_train = tc.load("data/Y_train.pt")
                self.encoder = nn.GRU(self.x_train.shape[2], hidden)

            def train_model(self):
                {use}
                return dataset
        """
    )
    found = by_attr(result)
    if reported:
        x = found["x_train"]
        assert x.action is Action.SKIP and x.code == "BUF312", x
        assert "TensorDataset(self.x_train, self.y_train)" in x.reason and "kept out of the module" in x.suggestion, x
    else:
        assert "x_train" not in found and "y_train" not in found, result.findings


def test_a_local_named_like_torch_functional_is_not_torch_functional():
    # `F = self.f(x)` then `F.view(b, self.in_ch, -1)`: a tensor's view with a size, not F.<op>
    result = rewrite(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Attention(nn.Module):
            def __init__(self, in_ch):
                super().__init__()
                self.in_ch = in_ch
                self.f = nn.Conv2d(in_ch, in_ch, 1)

            def forward(self, x):
                b = x.shape[0]
                F = self.f(x)
                F = F.view(b, self.in_ch, -1)
                return torch.bmm(F, F.transpose(1, 2))
        """
    )
    assert "in_ch" not in by_attr(result), result.findings


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "full-parse"])
def test_parameters_made_into_a_plain_list_are_reported_and_the_modules_own_are_not(tmp_path, prefilter):
    # a plain list hides the parameters it is filled with from model.parameters() and .to()
    (tmp_path / "gates.py").write_text(textwrap.dedent("""
        import torch
        import torch.nn as nn

        class Gates(nn.Module):
            def __init__(self, sizes):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(3))
                self.ws = []
                self.own = []
                for s in sizes:
                    self.ws.append(nn.Parameter(0.0005 * torch.ones(s, 1), requires_grad=True))
                    self.own.append(self.weight)  # the module's own parameter, registered already

            def forward(self, h):
                return sum(h @ w for w in self.ws) + sum(self.own)
        """))
    found = run_project(tmp_path, prefilter)
    ws = found["Gates.ws"]
    assert ws.action is Action.SKIP and ws.code == "BUF301" and "nn.ParameterList" in ws.suggestion, ws
    assert "Gates.own" not in found
