"""Rewrites preserve behaviour by construction, checked with torch over every golden case.

For each class of a golden case that builds without arguments, the original (`input.py`)
and the rewrite (`expected.py`) are built and compared on the three things a rewrite must
not change without being asked (torch-facts: "Facts behind behaviour-preserving rewrites"):

- checkpoints: the rewrite adds no `state_dict` key except the parameters it reports, so a
  checkpoint saved from the original loads strictly;
- devices: built with `device="meta"` (standing in for another device), every rewritten
  attribute is where the original's was, and so is what construction computed from it;
- casts: a rewrite the analysis calls statically safe keeps its value under
  `model.half()` / `.to(torch.bfloat16)`, exactly as the raw attribute did.
"""

from __future__ import annotations

import functools
import io
import inspect
import sys
import types
from pathlib import Path

import pytest

from codemod.ftypes import Action

torch = pytest.importorskip("torch")

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if (p / "input.py").is_file() and not (p / "input_raises.txt").exists())


@functools.lru_cache(maxsize=None)
def _module(case: Path, file_name: str, tag: str) -> types.ModuleType:
    repo = case / "repo"
    names_before = set(sys.modules)
    if repo.is_dir():
        sys.path.insert(0, str(repo))
    try:
        module = types.ModuleType(f"golden_{tag}")
        module.__file__ = str(case / file_name)
        code = (case / file_name).read_bytes()
        exec(compile(code, module.__file__, "exec"), module.__dict__)
        return module
    finally:
        if repo.is_dir():
            sys.path.remove(str(repo))
            for name in set(sys.modules) - names_before:
                del sys.modules[name]  # another case's repository may use the same module names


def _classes(module: types.ModuleType) -> dict[str, type]:
    return {
        name: obj
        for name, obj in vars(module).items()
        if isinstance(obj, type) and issubclass(obj, torch.nn.Module) and obj.__module__ == module.__name__
    }


def _build(cls: type, **kwargs):
    torch.manual_seed(0)
    return cls(**kwargs)


def _buildable(cls: type, **kwargs) -> bool:
    try:
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return False
    required = [p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return not required and all(k in {p.name for p in parameters} for k in kwargs)


@functools.lru_cache(maxsize=None)
def _findings(case: Path):
    from test_golden import _transform

    return _transform(case, "input.py")[1].findings


def _pairs(case: Path, **kwargs):
    """(class name, original instance, rewritten instance, the class's findings)."""
    findings = _findings(case)
    rewritten_classes = {f.class_name for f in findings if f.action is not Action.SKIP}
    if not rewritten_classes:
        return []
    original, expected = _module(case, "input.py", "original"), _module(case, "expected.py", "rewritten")
    pairs = []
    for name, cls in _classes(original).items():
        if name not in rewritten_classes or not _buildable(cls, **kwargs):
            continue
        try:
            before = _build(cls, **kwargs)
        except Exception:
            continue  # the original does not build this way either: nothing to compare
        after = _build(_classes(expected)[name], **kwargs)
        pairs.append((name, before, after, [f for f in findings if f.class_name == name]))
    return pairs


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_no_new_checkpoint_key_and_old_checkpoints_load_strictly(case: Path):
    for name, before, after, findings in _pairs(case):
        # a key is added only for what the report says: a parameter, or a buffer made persistent on request
        asked = {f.attribute for f in findings if f.action is Action.PARAMETER or f.persistent}
        new_keys = set(after.state_dict()) - set(before.state_dict())
        assert {k.rpartition(".")[2] for k in new_keys} <= asked, (name, new_keys)
        if not asked:
            after.load_state_dict(before.state_dict(), strict=True)


DEVICE_CASES = [c for c in CASES if b"device" in (c / "input.py").read_bytes()]


@pytest.mark.parametrize("case", DEVICE_CASES, ids=[c.name for c in DEVICE_CASES])
def test_every_rewritten_tensor_is_where_the_original_put_it_during_construction(case: Path):
    """Built for another device (meta stands in for it), nothing read at construction moves."""
    compared = 0
    for name, before, after, findings in _pairs(case, device="meta"):
        for finding in findings:
            if finding.action is Action.SKIP:
                continue
            original, rewritten = getattr(before, finding.attribute), getattr(after, finding.attribute)
            if isinstance(original, torch.Tensor) and "dropped" not in finding.reason:
                assert rewritten.device == original.device, (name, finding.attribute, finding.reason)
                compared += 1
        # what construction computed from the tensors (children's tables, derived attributes)
        for key, value in before.__dict__.items():
            derived = after.__dict__.get(key)
            if isinstance(value, torch.Tensor) and isinstance(derived, torch.Tensor):
                assert derived.device == value.device, (name, key)
        for child_name, child in before.named_modules():
            other = dict(after.named_modules()).get(child_name)
            for key, value in vars(child).items():
                if isinstance(value, torch.Tensor) and other is not None and isinstance(vars(other).get(key), torch.Tensor):
                    assert vars(other)[key].device == value.device, (name, child_name, key)
    if case.name.startswith("device_move_kept"):
        assert compared, "the case compares no kept move"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_statically_safe_rewrites_keep_their_values_under_casts(case: Path):
    for name, before, after, findings in _pairs(case):
        for finding in findings:
            if not finding.statically_safe:
                continue
            assert finding.action is Action.BUFFER and finding.persistent is False
            for cast in (lambda m: m.half(), lambda m: m.to(torch.bfloat16), lambda m: m.double()):
                original, rewritten = getattr(cast(before), finding.attribute), getattr(cast(after), finding.attribute)
                assert rewritten.dtype == original.dtype and not rewritten.is_floating_point(), (name, finding.attribute)
                if original.is_sparse:
                    original, rewritten = original.to_dense(), rewritten.to_dense()
                assert torch.equal(rewritten, original), (name, finding.attribute)


def test_the_facts_behind_the_rules():
    """The torch behaviour the three checks above rest on (torch-facts.md)."""

    class Raw(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.table = torch.ones(2)
            self.index = torch.arange(2)

    class Rewritten(torch.nn.Module):
        def __init__(self, persistent=False):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.register_buffer("table", torch.ones(2), persistent=persistent)
            self.register_buffer("index", torch.arange(2), persistent=persistent)

    checkpoint = Raw().state_dict()
    Rewritten().load_state_dict(checkpoint, strict=True)  # non-persistent: no new key
    with pytest.raises(RuntimeError, match="Missing key"):
        Rewritten(persistent=True).load_state_dict(checkpoint, strict=True)
    half = Rewritten().half()
    assert half.table.dtype == torch.float16 and half.index.dtype == torch.int64  # float buffers are cast, integers never
    assert Raw().half().table.dtype == torch.float32  # a raw attribute is never cast

    class Reads(torch.nn.Module):
        def __init__(self, device, keep_move):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2, device=device)
            table = torch.ones(2, 2)
            self.register_buffer("table", table.to(device) if keep_move else table, persistent=False)
            self.weight_sum = self.lin.weight + self.table  # construction reads it on the device

    Reads("meta", keep_move=True)
    with pytest.raises(RuntimeError, match="device"):
        Reads("meta", keep_move=False)


def test_a_script_module_refuses_a_non_persistent_buffer_and_saves_a_persistent_one():
    """The fact behind BUF221 (rules/script_modules.py)."""

    class Scripted(torch.jit.ScriptModule):
        def __init__(self, persistent):
            super().__init__()
            self.register_buffer("offsets", torch.arange(3), persistent=persistent)

    with pytest.raises(RuntimeError, match="non-persistent"):
        Scripted(persistent=False)
    assert list(Scripted(persistent=True).state_dict()) == ["offsets"]  # a new checkpoint key


def test_a_scripted_module_saves_a_non_persistent_buffer_that_the_eager_one_leaves_out():
    """The fact behind BUF226 (rules/scripted_models.py)."""

    class Scale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("index", torch.arange(3), persistent=False)

        def forward(self, x):
            return x.index_select(-1, self.index)

    eager = Scale()
    scripted = torch.jit.script(Scale())
    assert list(eager.state_dict()) == []
    assert list(scripted.state_dict()) == ["index"]  # the key a rewrite must not add unasked
    with pytest.raises(RuntimeError, match="Unexpected key"):
        Scale().load_state_dict(scripted.state_dict())  # a checkpoint of the scripted model, loaded eagerly


def test_an_operation_on_a_parameter_made_on_the_spot_leaves_the_parameter_unregistered():
    """The fact behind BUF316 (rules/unregistered_parameters.py)."""

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            self.bias = torch.nn.Parameter(torch.zeros(3, 1)).squeeze(1)

    model = Attention()
    assert not isinstance(model.bias, torch.nn.Parameter) and model.bias.grad_fn is not None
    assert model.bias.requires_grad and not model.bias.is_leaf
    assert set(dict(model.named_parameters())) == {"lin.weight", "lin.bias"}  # the parameter is not there
    assert "bias" not in model.state_dict()
    assert model.to("meta").bias.device.type == "cpu"  # nor moved


def test_a_cast_that_changes_a_parameter_s_dtype_leaves_the_parameter_unregistered():
    """BUF316's fact for casts: `.double()` of a float32 parameter is a non-leaf copy, while a
    cast to the dtype it has hands back the Parameter itself."""

    class SpatialConv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.theta = torch.nn.Parameter(torch.FloatTensor(4, 2)).double().to("cpu")
            self.scale = torch.nn.Parameter(torch.ones(2)).float()

    model = SpatialConv()
    assert not isinstance(model.theta, torch.nn.Parameter) and not model.theta.is_leaf and model.theta.requires_grad
    assert isinstance(model.scale, torch.nn.Parameter)
    assert set(dict(model.named_parameters())) == {"scale"}
    assert "theta" not in model.state_dict()


def test_a_parameter_nothing_reads_trains_nothing_and_breaks_strict_loads_and_optimizer_states():
    """BUF219's facts: an unread tensor made nn.Parameter gets no gradient, yet a checkpoint and an
    optimizer state saved before no longer load."""

    class Before(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.dummy = torch.ones(1, requires_grad=True)

        def forward(self, x):
            return self.lin(x)

    class After(Before):
        def __init__(self):
            super().__init__()
            self.dummy = torch.nn.Parameter(torch.ones(1))

    before, after = Before(), After()
    assert "dummy" not in before.state_dict() and "dummy" in after.state_dict()
    after(torch.randn(3, 2)).sum().backward()
    assert after.dummy.grad is None  # nothing reads it: nothing to train
    with pytest.raises(RuntimeError, match="Missing key"):
        After().load_state_dict(before.state_dict(), strict=True)
    saved = torch.optim.Adam(before.parameters()).state_dict()
    with pytest.raises(ValueError, match="parameter group that doesn.t match the size"):
        torch.optim.Adam(after.parameters()).load_state_dict(saved)


def test_an_rng_state_kept_as_a_buffer_would_leave_the_cpu_and_be_refused():
    """BUF218's RNG facts: a state from torch.get_rng_state() is a CPU ByteTensor that
    torch.set_rng_state needs as such; as a buffer it follows the model off the CPU (the meta
    device standing in for a GPU) and is refused there, while the raw attribute stays put."""

    class Raw(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.state = torch.get_rng_state()

    class Rewritten(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.register_buffer("state", torch.get_rng_state(), persistent=False)

    raw, rewritten = Raw().to("meta"), Rewritten().to("meta")
    assert raw.state.device.type == "cpu" and raw.state.dtype == torch.uint8
    torch.set_rng_state(raw.state)
    assert rewritten.state.device.type == "meta"
    with pytest.raises(TypeError, match="ByteTensor"):
        torch.set_rng_state(rewritten.state)


def test_ids_tested_against_labels_moved_to_the_cpu_work_only_as_a_raw_attribute():
    """BUF218's host-tensor fact: elements of an id table that forward iterates and tests
    against labels it moves to the CPU itself (`i not in labels.to("cpu")`).  The raw table
    stays on the CPU when the model moves (the meta device standing in for a GPU) and the test
    works; as a buffer the table follows the model and each element meets a CPU tensor."""

    class Raw(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.all_ids = torch.arange(4)

        def forward(self, labels):
            seen = torch.unique(labels).to("cpu")
            return [int(i) for i in self.all_ids if i not in seen]

    class Rewritten(Raw):
        def __init__(self):
            torch.nn.Module.__init__(self)
            self.lin = torch.nn.Linear(2, 2)
            self.register_buffer("all_ids", torch.arange(4), persistent=False)

    labels = torch.tensor([1, 3])
    assert Raw().to("meta")(labels) == [0, 2]
    assert Rewritten()(labels) == [0, 2]  # the same on the CPU
    with pytest.raises(RuntimeError, match="device"):
        Rewritten().to("meta")(labels)


def test_a_table_indexed_by_values_moved_to_the_cpu_answers_on_the_cpu_only_as_a_raw_attribute():
    """BUF218's indexing fact: a method ranks on the CPU (`.cpu()`) and picks rows of a table
    with those indices, returning them beside the CPU scores.  The raw table stays on the CPU
    when the model moves (meta standing in for a GPU), so the rows come back on the CPU; as a
    buffer the table follows the model and the rows come back on the other device."""

    class Raw(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.gallery = torch.arange(8.0).view(4, 2)

        def predict(self, scores):
            top = torch.topk(scores.cpu(), 2)
            return self.gallery[top.indices], top.values

    class Rewritten(Raw):
        def __init__(self):
            torch.nn.Module.__init__(self)
            self.lin = torch.nn.Linear(2, 2)
            self.register_buffer("gallery", torch.arange(8.0).view(4, 2), persistent=False)

    scores = torch.tensor([0.1, 0.7, 0.2, 0.9])
    rows, values = Raw().to("meta").predict(scores)
    assert rows.device.type == values.device.type == "cpu"
    assert torch.equal(rows, Rewritten().predict(scores)[0])  # the same on the CPU
    rows, values = Rewritten().to("meta").predict(scores)
    assert rows.device.type == "meta" and values.device.type == "cpu"


def test_a_window_a_forward_moves_itself_keeps_its_dtype_only_as_a_raw_attribute():
    """BUF215's facts for a window that forward rebinds to the input's device before any read
    (`self.window = self.window.to(x.device)`): model.half() leaves the raw attribute float32,
    and torch.stft of half inputs with a float32 window computes in float32; as a buffer it
    is cast, and the CPU's FFT takes no float16."""

    class Raw(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.window = torch.hann_window(32)

        def forward(self, x):
            self.window = self.window.to(x.device)
            return torch.stft(x, 32, 8, window=self.window, return_complex=True).abs()

    class Rewritten(Raw):
        def __init__(self):
            torch.nn.Module.__init__(self)
            self.register_buffer("window", torch.hann_window(32), persistent=False)

    x = torch.randn(2, 128).half()
    Raw().half()(x)
    rewritten = Rewritten().half()
    assert rewritten.window.dtype == torch.float16
    with pytest.raises(RuntimeError):
        rewritten(x)


def test_register_buffer_exists_only_on_modules_and_a_moved_frozen_parameter_changes_kind_with_the_device():
    """BUF311's fact: register_buffer is nn.Module's, so a class whose base is unseen cannot be
    rewritten blindly.  BUF216's frozen case: nn.Parameter(t, requires_grad=False).to(device) is
    a parameter (a state_dict key) where the move returns it, a plain tensor (no key) where it
    copies it (the meta device standing in for a GPU); nothing is trained either way."""

    class NotAModule:
        def __init__(self):
            self.scale = torch.ones(2)

    with pytest.raises(AttributeError, match="register_buffer"):
        NotAModule().register_buffer("scale", torch.ones(2))

    class Frozen(torch.nn.Module):
        def __init__(self, device):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(1, 1, 3, 3), requires_grad=False).to(device)

    on_cpu, elsewhere = Frozen("cpu"), Frozen("meta")
    assert isinstance(on_cpu.weight, torch.nn.Parameter) and "weight" in on_cpu.state_dict()
    assert not isinstance(elsewhere.weight, torch.nn.Parameter) and "weight" not in elsewhere.state_dict()
    assert not on_cpu.weight.requires_grad and not elsewhere.weight.requires_grad


def test_arithmetic_on_a_parameter_gives_a_plain_tensor_that_nothing_registers():
    """The typing of `nn.Parameter(t, requires_grad=False) - w / 2`: a plain tensor, in no
    state_dict and left behind by .to() (the meta device standing in for a GPU), so a raw
    tensor attribute; as a buffer it keeps its values and follows the model.  On a trainable
    parameter the result carries the gradient, which is why that case is left alone."""

    class Grid(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.xx = torch.nn.Parameter(torch.arange(4.0), requires_grad=False) - 2.0
            self.scaled = torch.nn.Parameter(torch.ones(2)) * 0.5

    grid = Grid()
    assert type(grid.xx) is torch.Tensor and not grid.xx.requires_grad
    assert not list(grid.parameters()) and "xx" not in grid.state_dict()
    assert grid.to("meta").xx.device.type == "cpu"
    assert grid.scaled.requires_grad and grid.scaled.grad_fn is not None  # not a leaf: a buffer would hold the graph

    class Rewritten(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("xx", torch.nn.Parameter(torch.arange(4.0), requires_grad=False) - 2.0, persistent=False)

    rewritten = Rewritten()
    assert torch.equal(rewritten.xx, Grid().xx) and "xx" not in rewritten.state_dict()
    assert rewritten.to("meta").xx.device.type == "meta"


# at module level: torch.save(model) pickles the class by its qualified name
class _Masked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))
        self.reset_mask()

    def reset_mask(self):
        self.mask = torch.ones(3)

    def forward(self, x):
        return x * self.w * self.mask


def test_a_model_saved_whole_keeps_its_plain_attribute_so_a_helper_run_again_cannot_register_it():
    """BUF220's facts: a model saved with torch.save(model) before the rewrite loads with the
    attribute a plain one, since __init__ does not run again; register_buffer in a helper that
    runs again raises on it, while the empty slot declared in __init__ plus the helper's own
    assignment works on the old model (still a plain attribute) and the new one (a buffer)."""
    saved = io.BytesIO()
    torch.save(_Masked(), saved)
    original = _Masked.reset_mask

    def registered(self):
        self.register_buffer("mask", torch.ones(3), persistent=False)

    try:
        _Masked.reset_mask = registered
        saved.seek(0)
        old = torch.load(saved, weights_only=False)
        with pytest.raises(KeyError, match="attribute 'mask' already exists"):
            old.reset_mask()
        _Masked.reset_mask = original  # the safe form: the assignment stays
        old.reset_mask()
        assert "mask" in old.__dict__ and "mask" not in old._buffers
        class Slotted(_Masked):  # the slot declared in __init__ before the helper runs
            def __init__(self):
                torch.nn.Module.__init__(self)
                self.w = torch.nn.Parameter(torch.ones(3))
                self.register_buffer("mask", None, persistent=False)
                self.reset_mask()

        fresh = Slotted()
        fresh.reset_mask()
        assert "mask" in fresh._buffers and fresh.to("meta").mask.device.type == "meta"
    finally:
        _Masked.reset_mask = original


def test_a_tensor_a_lambda_closes_over_is_neither_moved_nor_cast_nor_saved():
    """BUF317's fact: `.to()`, `.half()` and `state_dict()` never reach a tensor that only a
    lambda kept on the module holds (the meta device standing in for a GPU)."""

    class Normalizing(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            mean = torch.tensor([0.5, 0.5, 0.5])
            self.normalizer = lambda x: x - mean

    model = Normalizing().to("meta")
    (mean,) = (cell.cell_contents for cell in model.normalizer.__closure__)
    assert model.lin.weight.device.type == "meta" and mean.device.type == "cpu"
    assert Normalizing().half().normalizer.__closure__[0].cell_contents.dtype == torch.float32
    assert set(Normalizing().state_dict()) == {"lin.weight", "lin.bias"}
    with pytest.raises((RuntimeError, NotImplementedError)):
        model.normalizer(torch.ones(3, device="meta"))


def test_a_training_property_setter_binds_its_attributes_before_the_constructor_body():
    """BUF207's training-setter fact: nn.Module.__init__ sets self.training, which runs a
    `training` property's setter; an attribute that setter binds is a plain attribute before
    the constructor's body, so register_buffer under that name raises KeyError."""

    class Propagate(torch.nn.Module):
        def __init__(self, register: bool):
            super().__init__()
            assert "cache" in self.__dict__  # bound by the setter, during nn.Module.__init__
            if register:
                self.register_buffer("cache", torch.zeros(2), persistent=False)
            else:
                self.cache = torch.zeros(2)

        @property
        def training(self):
            return self._training

        @training.setter
        def training(self, mode):
            self.cache = None
            self._training = mode

    assert Propagate(register=False).cache.shape == (2,)
    with pytest.raises(KeyError, match="already exists"):
        Propagate(register=True)


def test_a_parameter_handed_in_stays_a_parameter_only_as_a_plain_assignment():
    """Why a tensor default alone types no argument for a rewrite (rules/not_a_tensor.py): a
    caller may pass an nn.Parameter, which `self.x = x` registers as a parameter and
    register_buffer files as a buffer, out of model.parameters() and the optimizer."""

    class Raw(torch.nn.Module):
        def __init__(self, tau=torch.zeros(1)):
            super().__init__()
            self.tau = tau

    class Rewritten(torch.nn.Module):
        def __init__(self, tau=torch.zeros(1)):
            super().__init__()
            self.register_buffer("tau", tau, persistent=False)

    tau = torch.nn.Parameter(torch.tensor([0.1]))
    assert [name for name, _ in Raw(tau).named_parameters()] == ["tau"]
    rewritten = Rewritten(tau)
    assert list(rewritten.parameters()) == [] and rewritten.tau is tau  # a buffer now: never trained


@pytest.mark.parametrize("name", sorted(__import__("codemod.rules.cpu_data_reads", fromlist=["x"]).NUMPY_METADATA_READERS))
def test_numpy_metadata_readers_take_a_tensor_on_any_device(name):
    """BUF218 leaves out the numpy functions that read a tensor's metadata only: each takes a
    tensor on the meta device (standing in for a GPU), where a numpy function that reads the
    values (np.maximum) raises."""
    import numpy as np

    tensor = torch.ones(2, 3, device="meta")
    getattr(np, name.partition(".")[2])(tensor)
    with pytest.raises(TypeError, match="numpy"):
        np.maximum(tensor, 1.0)
