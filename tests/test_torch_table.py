"""The generated torch table: current, true to torch's behaviour, and torch-free."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from codemod import torch_table as table

ROOT = Path(__file__).resolve().parent.parent

# What the table lists is read from the torch it was generated from (the README's pinned
# version); another release has other names (torch.nn.LinearCrossEntropyLoss is newer than 2.11).
_release = torch.__version__.split("+")[0]
from_this_torch = pytest.mark.skipif(
    _release != table.TORCH_VERSION.split("+")[0],
    reason=f"the table is generated from torch {table.TORCH_VERSION}, this is {torch.__version__}: "
    "`python -m codemod.tools.generate_torch_table` regenerates it",
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


# --- (a) the committed file is what the generator produces -------------------


@pytest.mark.slow
@from_this_torch
def test_committed_table_matches_installed_torch() -> None:
    # A fresh interpreter, so nothing other tests imported or patched leaks in.
    result = _run("-m", "codemod.tools.generate_torch_table", "--check")
    assert result.returncode == 0, (
        "codemod/torch_table.py is stale or was edited by hand; regenerate it with "
        "`python -m codemod.tools.generate_torch_table`\n" + result.stdout + result.stderr
    )


def test_check_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    gen = importlib.import_module("codemod.tools.generate_torch_table")
    fresh = 'X: frozenset[str] = frozenset(\n    {\n        "a", "b",\n    }\n)\n'
    monkeypatch.setattr(gen, "generate", lambda: (fresh, []))
    target = tmp_path / "torch_table.py"
    monkeypatch.setattr(gen, "TABLE_PATH", target)

    target.write_text(fresh.replace('"b"', '"c"'), encoding="utf-8")
    assert gen.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert '-        "a", "c",' in out and '+        "a", "b",' in out

    assert gen.main([]) == 0
    assert target.read_bytes() == fresh.encode()
    assert gen.main(["--check"]) == 0


@from_this_torch
def test_header_names_command_and_version() -> None:
    head = (ROOT / "codemod" / "torch_table.py").read_text(encoding="utf-8").splitlines()[0]
    assert "python -m codemod.tools.generate_torch_table" in head
    assert table.TORCH_VERSION in head
    assert table.TORCH_VERSION.split("+")[0] == _release


# --- (b) spot checks against real behaviour ----------------------------------

X = torch.tensor([3.0, 1.0, 2.0])
M = torch.tensor([[1.0, 2.0], [3.0, 4.0]])

TENSOR_CALLS = {
    "zeros": lambda: torch.zeros(2),
    "ones": lambda: torch.ones(2, 3),
    "arange": lambda: torch.arange(4),
    "eye": lambda: torch.eye(2),
    "full": lambda: torch.full((2,), 1.5),
    "empty": lambda: torch.empty(2),
    "rand": lambda: torch.rand(2),
    "randn": lambda: torch.randn(2),
    "randint": lambda: torch.randint(0, 5, (3,)),
    "randperm": lambda: torch.randperm(4),
    "normal": lambda: torch.normal(0.0, 1.0, (2,)),
    "linspace": lambda: torch.linspace(0, 1, 5),
    "logspace": lambda: torch.logspace(0, 1, 5),
    "tensor": lambda: torch.tensor([1, 2]),
    "as_tensor": lambda: torch.as_tensor([1, 2]),
    "from_numpy": lambda: torch.from_numpy(np.zeros(2)),
    "zeros_like": lambda: torch.zeros_like(X),
    "tril": lambda: torch.tril(M),
    "triu": lambda: torch.triu(M),
    "exp": lambda: torch.exp(X),
    "sin": lambda: torch.sin(X),
    "cos": lambda: torch.cos(X),
    "matmul": lambda: torch.matmul(M, M),
    "cat": lambda: torch.cat([X, X]),
    "stack": lambda: torch.stack([X, X]),
    "hann_window": lambda: torch.hann_window(4),
    "einsum": lambda: torch.einsum("ij->j", M),
    "cdist": lambda: torch.cdist(M, M),
    "tensordot": lambda: torch.tensordot(M, M),
    "block_diag": lambda: torch.block_diag(M, M),
}


@pytest.mark.parametrize("name", sorted(TENSOR_CALLS))
def test_tensor_functions_return_tensors(name: str) -> None:
    assert name in table.TORCH_TENSOR_FUNCTIONS
    assert isinstance(TENSOR_CALLS[name](), torch.Tensor)


SEQUENCE_CALLS = {
    "split": lambda: torch.split(X, 1),
    "chunk": lambda: torch.chunk(X, 3),
    "unbind": lambda: torch.unbind(M),
    "meshgrid": lambda: torch.meshgrid(X, X, indexing="ij"),
    "sort": lambda: torch.sort(X),
    "topk": lambda: torch.topk(X, 2),
    "broadcast_tensors": lambda: torch.broadcast_tensors(X, X),
}


@pytest.mark.parametrize("name", sorted(SEQUENCE_CALLS))
def test_sequence_functions_return_sequences_of_tensors(name: str) -> None:
    assert name in table.TORCH_SEQUENCE_FUNCTIONS
    result = SEQUENCE_CALLS[name]()
    assert isinstance(result, (tuple, list)) and not isinstance(result, torch.Tensor)
    assert result and all(isinstance(item, torch.Tensor) for item in result)


def test_mixed_functions_really_return_both() -> None:
    for name in ("where", "max", "unique", "nonzero"):
        assert name in table.TORCH_MIXED_FUNCTIONS
    assert isinstance(torch.where(X > 1, X, M[0, 0]), torch.Tensor)
    assert isinstance(torch.where(X > 1), tuple)
    assert isinstance(torch.max(X), torch.Tensor)
    assert isinstance(torch.max(M, dim=0), tuple)
    assert isinstance(torch.unique(X), torch.Tensor)
    assert isinstance(torch.unique(X, return_counts=True), tuple)
    assert isinstance(torch.nonzero(X), torch.Tensor)
    assert isinstance(torch.nonzero(X, as_tuple=True), tuple)


NON_TENSOR_CALLS = {
    "is_tensor": lambda: torch.is_tensor(X),
    "numel": lambda: torch.numel(X),
    "is_floating_point": lambda: torch.is_floating_point(X),
    "get_default_dtype": lambda: torch.get_default_dtype(),
    "manual_seed": lambda: torch.manual_seed(0),
    "broadcast_shapes": lambda: torch.broadcast_shapes((2, 1), (1, 3)),
}


@pytest.mark.parametrize("name", sorted(NON_TENSOR_CALLS))
def test_non_tensor_functions_return_non_tensors(name: str) -> None:
    assert name in table.TORCH_NON_TENSOR_FUNCTIONS
    assert not isinstance(NON_TENSOR_CALLS[name](), torch.Tensor)


FUNCTIONAL_CALLS = {
    "relu": lambda F: F.relu(X),
    "gelu": lambda F: F.gelu(X),
    "softmax": lambda F: F.softmax(X, dim=0),
    "one_hot": lambda F: F.one_hot(torch.tensor([0, 2]), 3),
    "pad": lambda F: F.pad(X, (1, 1)),
    "normalize": lambda F: F.normalize(M),
    "interpolate": lambda F: F.interpolate(M[None, None], scale_factor=2.0),
    "embedding": lambda F: F.embedding(torch.tensor([0, 1]), M),
    "linear": lambda F: F.linear(M, M),
    "dropout": lambda F: F.dropout(X, 0.5),
    "sigmoid": lambda F: F.sigmoid(X),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL_CALLS))
def test_functional_tensor_functions(name: str) -> None:
    import torch.nn.functional as F

    assert name in table.FUNCTIONAL_TENSOR_FUNCTIONS
    assert isinstance(FUNCTIONAL_CALLS[name](F), torch.Tensor)


def test_functional_return_indices_is_mixed() -> None:
    import torch.nn.functional as F

    assert "max_pool1d" in table.FUNCTIONAL_MIXED_FUNCTIONS
    assert "max_pool1d_with_indices" in table.FUNCTIONAL_SEQUENCE_FUNCTIONS
    assert isinstance(F.max_pool1d(M[None], 2), torch.Tensor)
    assert isinstance(F.max_pool1d(M[None], 2, return_indices=True), tuple)


METHOD_CALLS = {
    "float": lambda t: t.float(),
    "long": lambda t: t.long(),
    "int": lambda t: t.int(),
    "half": lambda t: t.half(),
    "double": lambda t: t.double(),
    "bool": lambda t: t.bool(),
    "cfloat": lambda t: t.cfloat(),
    "to": lambda t: t.to(torch.float64),
    "cpu": lambda t: t.cpu(),
    "view": lambda t: t.view(-1),
    "reshape": lambda t: t.reshape(4),
    "unsqueeze": lambda t: t.unsqueeze(0),
    "squeeze": lambda t: t.squeeze(),
    "permute": lambda t: t.permute(1, 0),
    "transpose": lambda t: t.transpose(0, 1),
    "contiguous": lambda t: t.contiguous(),
    "clone": lambda t: t.clone(),
    "detach": lambda t: t.detach(),
    "expand": lambda t: t[:1].expand(3, 2),
    "repeat": lambda t: t.repeat(2, 1),
    "masked_fill": lambda t: t.masked_fill(t > 2, 0.0),
    "requires_grad_": lambda t: t.clone().requires_grad_(),
    "new_zeros": lambda t: t.new_zeros(2),
    "norm": lambda t: t.norm(),
}


@pytest.mark.parametrize("name", sorted(METHOD_CALLS))
def test_tensor_methods_returning_tensor(name: str) -> None:
    assert name in table.TENSOR_METHODS_RETURNING_TENSOR
    assert isinstance(METHOD_CALLS[name](M), torch.Tensor)


def test_in_place_methods_return_self() -> None:
    t = M.clone()
    for name in ("add_", "mul_", "zero_", "fill_", "uniform_"):
        assert name in table.TENSOR_METHODS_RETURNING_TENSOR
    assert t.add_(1) is t and t.zero_() is t and t.uniform_() is t


NON_TENSOR_METHOD_CALLS = {
    "item": lambda t: t[0, 0].item(),
    "tolist": lambda t: t.tolist(),
    "size": lambda t: t.size(),
    "dim": lambda t: t.dim(),
    "numel": lambda t: t.numel(),
    "stride": lambda t: t.stride(),
    "data_ptr": lambda t: t.data_ptr(),
    "element_size": lambda t: t.element_size(),
    "is_contiguous": lambda t: t.is_contiguous(),
    "nelement": lambda t: t.nelement(),
    "numpy": lambda t: t.numpy(),
}


@pytest.mark.parametrize("name", sorted(NON_TENSOR_METHOD_CALLS))
def test_tensor_methods_returning_non_tensor(name: str) -> None:
    assert name in table.TENSOR_METHODS_RETURNING_NON_TENSOR
    assert not isinstance(NON_TENSOR_METHOD_CALLS[name](M), torch.Tensor)


def test_tensor_properties() -> None:
    t = M.clone().requires_grad_()
    t.sum().backward()
    for name in ("T", "mT", "H", "mH", "data", "real", "grad"):
        assert name in table.TENSOR_PROPERTIES_TENSOR
        assert isinstance(getattr(t, name), torch.Tensor), name
    assert "imag" in table.TENSOR_PROPERTIES_TENSOR
    assert isinstance(M.cfloat().imag, torch.Tensor)
    for name in ("shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "layout"):
        assert name in table.TENSOR_PROPERTIES_NON_TENSOR
        assert not isinstance(getattr(t, name), torch.Tensor), name


def test_namespaces_tables_are_disjoint() -> None:
    groups = [
        [
            table.TORCH_TENSOR_FUNCTIONS,
            table.TORCH_SEQUENCE_FUNCTIONS,
            table.TORCH_MIXED_FUNCTIONS,
            table.TORCH_NON_TENSOR_FUNCTIONS,
        ],
        [
            table.FUNCTIONAL_TENSOR_FUNCTIONS,
            table.FUNCTIONAL_SEQUENCE_FUNCTIONS,
            table.FUNCTIONAL_MIXED_FUNCTIONS,
            table.FUNCTIONAL_NON_TENSOR_FUNCTIONS,
        ],
        [
            table.TENSOR_METHODS_RETURNING_TENSOR,
            table.TENSOR_METHODS_RETURNING_SEQUENCE,
            table.TENSOR_METHODS_MIXED,
            table.TENSOR_METHODS_RETURNING_NON_TENSOR,
            table.TENSOR_PROPERTIES_TENSOR,
            table.TENSOR_PROPERTIES_NON_TENSOR,
        ],
    ]
    for group in groups:
        seen: set[str] = set()
        for names in group:
            assert not (seen & names), sorted(seen & names)
            seen |= names


def _rng_advances(call) -> bool:
    before = torch.get_rng_state()
    call()
    return not torch.equal(before, torch.get_rng_state())


def test_random_functions_really_draw() -> None:
    calls = {
        "rand": lambda: torch.rand(2),
        "randn": lambda: torch.randn(2),
        "randint": lambda: torch.randint(0, 5, (2,)),
        "randperm": lambda: torch.randperm(3),
        "normal": lambda: torch.normal(0.0, 1.0, (2,)),
        "bernoulli": lambda: torch.bernoulli(torch.full((4,), 0.5)),
        "multinomial": lambda: torch.multinomial(torch.ones(3), 2),
        "rand_like": lambda: torch.rand_like(X),
        "dropout": lambda: torch.dropout(X, 0.5, True),
    }
    for name, call in calls.items():
        assert name in table.RANDOM_FUNCTIONS, name
        assert _rng_advances(call), name
    for name in ("zeros", "arange", "manual_seed", "initial_seed", "seed"):
        assert name not in table.RANDOM_FUNCTIONS, name
    assert not _rng_advances(lambda: torch.zeros(2))


def test_random_tensor_methods_really_draw() -> None:
    expected = {"uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_"}
    expected |= {"cauchy_", "log_normal_"}
    assert expected <= table.RANDOM_TENSOR_METHODS
    for name in sorted(expected):
        t = torch.empty(4)
        arg = (0.5,) if name == "geometric_" else ()
        assert _rng_advances(lambda: getattr(t, name)(*arg)), name
    assert "zero_" not in table.RANDOM_TENSOR_METHODS


def test_random_functional_and_init() -> None:
    import torch.nn.functional as F

    assert {"dropout", "rrelu", "gumbel_softmax"} <= table.RANDOM_FUNCTIONAL_FUNCTIONS
    assert "relu" not in table.RANDOM_FUNCTIONAL_FUNCTIONS
    assert _rng_advances(lambda: F.gumbel_softmax(M))
    assert {"normal_", "uniform_", "kaiming_uniform_", "xavier_normal_"} <= table.RANDOM_INIT_FUNCTIONS
    assert "zeros_" not in table.RANDOM_INIT_FUNCTIONS
    assert "zeros_" in table.NN_INIT_TENSOR_FUNCTIONS


def test_legacy_tensor_types() -> None:
    expected = {"FloatTensor", "LongTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor"}
    expected |= {"ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "BoolTensor", "Tensor"}
    assert expected <= table.LEGACY_TENSOR_TYPES
    assert set(table.LEGACY_TENSOR_DTYPE_IS_INTEGER) == table.LEGACY_TENSOR_TYPES
    assert expected - {"Tensor"} <= table.CUDA_LEGACY_TENSOR_TYPES
    for name, is_integer in table.LEGACY_TENSOR_DTYPE_IS_INTEGER.items():
        made = getattr(torch, name)([1])
        assert isinstance(made, torch.Tensor), name
        assert (not (made.is_floating_point() or made.is_complex())) == is_integer, name
    for name in table.CUDA_LEGACY_TENSOR_TYPES:
        assert isinstance(getattr(torch.cuda, name), type), name


def test_dtype_names() -> None:
    for name in table.DTYPE_NAMES:
        assert isinstance(getattr(torch, name), torch.dtype), name
    expected = {"long", "int", "int64", "int32", "int16", "int8", "uint8", "bool", "short"}
    assert expected <= table.INTEGER_DTYPE_NAMES
    assert {"float", "float32", "half", "bfloat16", "double"} <= table.FLOATING_DTYPE_NAMES
    for name in table.INTEGER_DTYPE_NAMES:
        dtype = getattr(torch, name)
        assert not (dtype.is_floating_point or dtype.is_complex), name
    assert not table.INTEGER_DTYPE_NAMES & table.FLOATING_DTYPE_NAMES
    assert table.INTEGER_DTYPE_NAMES <= table.DTYPE_NAMES


@from_this_torch
def test_nn_module_classes() -> None:
    assert {"Module", "Linear", "Sequential", "ModuleList", "ModuleDict", "ParameterList"} <= (
        table.NN_MODULE_CLASSES
    )
    assert {"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"} <= (
        table.NN_NON_MODULE_CLASSES
    )
    for name in table.NN_MODULE_CLASSES:
        cls = getattr(torch.nn, name)
        assert isinstance(cls, type) and issubclass(cls, torch.nn.Module), name
    for name in table.NN_NON_MODULE_CLASSES:
        cls = getattr(torch.nn, name)
        assert isinstance(cls, type) and not issubclass(cls, torch.nn.Module), name


def _resolve(dotted: str) -> object:
    module_name, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module_name), attr)


@from_this_torch
def test_nn_qualnames_resolve() -> None:
    expected = {"torch.nn.Module", "torch.nn.modules.module.Module", "torch.nn.modules.linear.Linear"}
    assert expected <= table.NN_MODULE_QUALNAMES
    assert "torch.nn.parameter.Parameter" in table.NN_NON_MODULE_QUALNAMES
    for dotted in table.NN_MODULE_QUALNAMES:
        obj = _resolve(dotted)
        assert isinstance(obj, type) and issubclass(obj, torch.nn.Module), dotted
    for dotted in table.NN_NON_MODULE_QUALNAMES:
        obj = _resolve(dotted)
        assert isinstance(obj, type) and not issubclass(obj, torch.nn.Module), dotted


def test_non_tensor_callables() -> None:
    expected = {"device", "Size", "finfo", "iinfo", "Generator", "dtype", "Stream", "Event"}
    expected |= {"cuda.Stream", "cuda.Event", "compile", "jit.script"}
    assert expected <= table.NON_TENSOR_TORCH_CALLABLES
    assert not {"Tensor", "FloatTensor", "cuda.FloatTensor"} & table.NON_TENSOR_TORCH_CALLABLES
    assert not isinstance(torch.device("cpu"), torch.Tensor)
    assert not isinstance(torch.Size([2]), torch.Tensor)
    assert not isinstance(torch.finfo(torch.float32), torch.Tensor)
    assert not isinstance(torch.Generator(), torch.Tensor)


# --- (c) the table itself is torch-free ---------------------------------------


def test_importing_the_table_does_not_import_torch() -> None:
    code = (
        "import sys, codemod.torch_table as t; "
        "assert 'torch' not in sys.modules, 'torch was imported'; "
        "assert 'zeros' in t.TORCH_TENSOR_FUNCTIONS"
    )
    result = _run("-c", code)
    assert result.returncode == 0, result.stderr


# --- (d) namespaces below torch, sparse constructors, integer results --------


def test_legacy_sparse_constructors_make_sparse_tensors_of_their_dtype() -> None:
    assert {"sparse.FloatTensor", "sparse.LongTensor", "cuda.sparse.FloatTensor"} <= set(table.OTHER_LEGACY_TENSOR_TYPES)
    index, size = torch.tensor([[0, 1], [1, 0]]), torch.Size([2, 2])
    for dotted, is_integer in table.OTHER_LEGACY_TENSOR_TYPES.items():
        if dotted.startswith("cuda."):
            continue
        cls = getattr(torch.sparse, dotted.rpartition(".")[2])
        made = cls(index, torch.tensor([1, 2]).to(cls().dtype), size)
        assert isinstance(made, torch.Tensor) and made.is_sparse, dotted
        assert (not (made.is_floating_point() or made.is_complex())) == is_integer, dotted


SUBMODULE_CALLS = {
    "signal.windows.hann": lambda: torch.signal.windows.hann(4),
    "fft.rfftfreq": lambda: torch.fft.rfftfreq(4),
    "special.expit": lambda: torch.special.expit(X),
    "linalg.inv": lambda: torch.linalg.inv(M),
    "sparse.mm": lambda: torch.sparse.mm(M.to_sparse(), M),
    "nn.utils.rnn.pad_sequence": lambda: torch.nn.utils.rnn.pad_sequence([X, X[:2]]),
}


@pytest.mark.parametrize("dotted", sorted(SUBMODULE_CALLS))
def test_submodule_tensor_functions(dotted: str) -> None:
    assert dotted in table.SUBMODULE_TENSOR_FUNCTIONS
    assert isinstance(SUBMODULE_CALLS[dotted](), torch.Tensor)


def test_submodule_sequence_functions() -> None:
    assert {"linalg.qr", "linalg.svd", "linalg.eigh"} <= table.SUBMODULE_SEQUENCE_FUNCTIONS
    assert all(isinstance(t, torch.Tensor) for t in torch.linalg.qr(M))
    assert "random.manual_seed" in table.SUBMODULE_NON_TENSOR_FUNCTIONS


def test_unannotated_functions_probed() -> None:
    import torch.nn.functional as F

    assert {"softsign", "tanhshrink"} <= table.FUNCTIONAL_TENSOR_FUNCTIONS
    assert isinstance(F.softsign(X), torch.Tensor)
    assert "to_sparse_coo" in table.TENSOR_METHODS_RETURNING_TENSOR


def _integer(t: torch.Tensor) -> bool:
    return not (t.is_floating_point() or t.is_complex())


def test_integer_results_are_integer_from_float_inputs() -> None:
    calls = {
        "argsort": lambda: torch.argsort(X),
        "argmax": lambda: torch.argmax(X),
        "isnan": lambda: torch.isnan(X),
        "eq": lambda: torch.eq(X, X),
        "searchsorted": lambda: torch.searchsorted(X.sort().values, X),
        "randperm": lambda: torch.randperm(3),
        "tril_indices": lambda: torch.tril_indices(3, 3),
    }
    for name, call in calls.items():
        assert name in table.INTEGER_RESULT_FUNCTIONS, name
        assert _integer(call()), name
    # floats from float inputs (arange(3.0)), or the input's dtype: never in the table
    for name in ("arange", "zeros", "ones_like", "where", "max", "clone"):
        assert name not in table.INTEGER_RESULT_FUNCTIONS, name
    assert not _integer(torch.arange(3.0))
    for name in ("argsort", "long", "bool", "eq", "isnan"):
        assert name in table.INTEGER_RESULT_METHODS, name
        assert _integer(getattr(M, name)(*((M,) if name == "eq" else ()))), name


def test_integer_return_positions() -> None:
    assert table.INTEGER_RETURN_POSITIONS["sort"] == (1,)
    assert table.INTEGER_RETURN_POSITIONS["topk"] == (1,)
    assert table.INTEGER_RETURN_POSITIONS["max"] == (1,)
    values, indices = torch.sort(X)
    assert not _integer(values) and _integer(indices)
    assert _integer(torch.topk(X, 2)[1]) and _integer(torch.max(M, 1)[1])
    assert table.METHOD_INTEGER_RETURN_POSITIONS["kthvalue"] == (1,)
    assert _integer(X.kthvalue(1)[1])
    assert {"max", "unique"} <= table.MIXED_UNPACKING_TO_TENSORS
    assert "type" not in table.MIXED_METHODS_UNPACKING_TO_TENSORS
    assert all(isinstance(t, torch.Tensor) for t in torch.unique(X, return_inverse=True))


def test_parameter_free_layers_hold_nothing_and_run_on_another_device_unmoved():
    import torch

    from codemod import torch_table

    assert {"MSELoss", "ReLU", "MaxPool2d", "Dropout"} <= torch_table.NN_PARAMETER_FREE_MODULES
    assert not {"Linear", "Conv2d", "BatchNorm2d", "PReLU", "InstanceNorm2d", "Sequential", "ModuleList"} & (
        torch_table.NN_PARAMETER_FREE_MODULES
    )
    x = torch.randn(2, 3, 4, 4, device="meta")  # standing in for a GPU: the layers stay where they were built
    assert torch.nn.MSELoss()(x, x).device.type == "meta"
    assert torch.nn.MaxPool2d(2)(torch.nn.ReLU()(x)).device.type == "meta"
    # class weights make a loss hold a buffer, which must be moved with it
    assert [n for n, _ in torch.nn.CrossEntropyLoss(weight=torch.ones(3)).named_buffers()] == ["weight"]


def test_registered_buffers_are_probed_from_torch_constructors():
    from codemod import torch_names

    assert torch_names.registered_buffers("torch.nn.modules.loss._WeightedLoss") == ("weight",)
    assert "weight" in torch.nn.modules.loss._WeightedLoss()._buffers
    assert set(torch_names.registered_buffers("torch.nn.BatchNorm2d")) == set(torch.nn.BatchNorm2d(2)._buffers)
    assert set(torch_names.registered_buffers("torch.nn.modules.batchnorm.BatchNorm1d")) == set(torch.nn.BatchNorm1d(2)._buffers)
    assert torch_names.registered_buffers("torch.nn.Linear") == () and not torch.nn.Linear(2, 2)._buffers


def test_tensor_methods_take_no_more_positional_arguments_than_the_typing_assumes():
    """call_sites only counts `x.dim()`, `x.size(0)` as a tensor's use where the call passes no
    more positional arguments than torch's method takes: one more raises TypeError."""
    from codemod.call_sites import TENSOR_METHOD_MAX_POSITIONAL

    for method, most in TENSOR_METHOD_MAX_POSITIONAL.items():
        with pytest.raises(TypeError):
            getattr(torch.ones(3, 3), method)(*[0] * (most + 1))
        try:
            getattr(torch.ones(3, 3), method)(*[0] * most)
        except TypeError as exc:  # a device or a value torch refuses is fine: the count is not
            raise AssertionError(f"Tensor.{method} refuses {most} positional arguments: {exc}") from exc
        except (RuntimeError, AssertionError, IndexError, ValueError):
            pass
