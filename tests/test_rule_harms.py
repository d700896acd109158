"""What each safety rule and the persistence policy prevent, shown with torch itself.

Each test builds the module of a golden case three ways: as the user wrote it
(`input.py`), as the codemod now rewrites it (`expected.py`), and as the rewrite the rule
replaces would have written it; the harm shows on the last and not on the new rewrite.
"""

from __future__ import annotations

import re

import types
import warnings
from pathlib import Path

import pytest

from codemod.api import transform_source

torch = pytest.importorskip("torch")

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _module(text: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(text, module.__file__, "exec"), module.__dict__)
    return module


def _case(name: str) -> tuple[str, str]:
    folder = GOLDEN / name
    return (folder / "input.py").read_text(encoding="utf-8"), (folder / "expected.py").read_text(encoding="utf-8")


def test_non_persistent_policy_keeps_pre_rewrite_checkpoints_loading():
    original, rewritten = _case("persistent_derived_from_config_and_files")
    assert rewritten.count("persistent=False") == 4
    old_rewrite = rewritten.replace(", persistent=False", "")  # what --persistent auto wrote before

    torch.manual_seed(0)
    checkpoint = _module(original, "original").GraphLayer().state_dict()
    assert sorted(checkpoint) == ["lin.bias", "lin.weight"]

    new_model = _module(rewritten, "rewritten").GraphLayer()
    assert new_model.load_state_dict(checkpoint, strict=True) is not None
    assert {"adj", "anchors", "table", "norm"} <= {name for name, _ in new_model.named_buffers()}

    with pytest.raises(RuntimeError, match="Missing key"):
        _module(old_rewrite, "old_rewrite").GraphLayer().load_state_dict(checkpoint, strict=True)


def test_running_state_is_persistent_under_the_state_policy_and_travels_with_the_checkpoint():
    original, default = _case("persistent_running_state_variants")
    # by default no key is added: a checkpoint saved before the rewrite still loads strictly
    checkpoint = _module(original, "original").EMAQuantizer().state_dict()
    _module(default, "default").EMAQuantizer().load_state_dict(checkpoint, strict=True)
    rewritten = transform_source(original, path="input.py", persistent="state").code
    module = _module(rewritten, "rewritten")
    trained = module.EMAQuantizer()
    trained.update(torch.ones(5, 2), torch.ones(4))
    fresh = module.EMAQuantizer()
    fresh.load_state_dict(trained.state_dict(), strict=True)
    for name in ("cluster_size", "embed_avg", "average", "steps"):
        assert torch.equal(getattr(fresh, name), getattr(trained, name)), name
    assert int(fresh.steps) == 1


def test_complex_tensor_stays_complex_under_a_bfloat16_cast():
    original, rewritten = _case("safety_complex_tensor_skipped")
    assert "self.freqs_cis = precompute_freqs_cis(dim, end)" in rewritten  # left alone
    old_rewrite = original.replace(
        "self.freqs_cis = precompute_freqs_cis(dim, end)",
        'self.register_buffer("freqs_cis", precompute_freqs_cis(dim, end), persistent=False)',
    )
    kept = _module(rewritten, "rewritten").Rotary().to(torch.bfloat16)
    assert kept.freqs_cis.is_complex() and kept.freqs_cis.imag.abs().sum() > 0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        broken = _module(old_rewrite, "old_rewrite").Rotary().to(torch.bfloat16)
    assert broken.freqs_cis.dtype == torch.bfloat16  # the imaginary part is gone
    assert any("discards the imaginary part" in str(w.message) for w in caught)


def test_transformers_model_buffer_would_be_garbage_after_from_pretrained(tmp_path):
    pytest.importorskip("transformers")
    original, rewritten = _case("safety_transformers_model_skipped")
    assert rewritten == original  # both classes left alone, with the _init_weights suggestion
    expected = torch.arange(4.0) + 100
    old_rewrite = original.replace(
        "self.positions = torch.arange(float(hidden)) + 100",
        'self.register_buffer("positions", torch.arange(float(hidden)) + 100, persistent=False)',
    )
    suggested = old_rewrite.replace(
        "        self.post_init()\n",
        "        self.post_init()\n\n"
        "    def _init_weights(self, module):\n"
        "        super()._init_weights(module)\n"
        "        if isinstance(module, Block):\n"
        "            with torch.no_grad():\n"
        "                module.positions.copy_(torch.arange(float(module.positions.numel())) + 100)\n",
    )

    def reloaded(text: str, name: str):
        module = _module(text.replace("tiny-codemod-golden", f"tiny-codemod-{name}"), name)
        model = module.TinyModel(module.TinyConfig())
        folder = tmp_path / name
        model.save_pretrained(folder)
        return module.TinyModel.from_pretrained(folder).block.positions

    # The raw attribute is left on the meta device by from_pretrained (an error at forward time) ...
    assert reloaded(original, "original").device.type == "meta"
    # ... a plain register_buffer silently holds uninitialised memory instead ...
    assert not torch.equal(reloaded(old_rewrite, "old"), expected)
    # ... and the suggested _init_weights code gives the right values.
    assert torch.equal(reloaded(suggested, "suggested"), expected)


def test_initialised_parameter_stays_trainable():
    original, rewritten = _case("safety_init_returns_parameter")
    assert "self.weight = nn.init.xavier_uniform_(nn.Parameter(" in rewritten
    old_rewrite = original.replace(
        "self.weight = nn.init.xavier_uniform_(nn.Parameter(torch.empty(features, features)))",
        'self.register_buffer("weight", nn.init.xavier_uniform_(nn.Parameter(torch.empty(features, features))))',
    )
    kept = dict(_module(rewritten, "rewritten").Projection().named_parameters())
    assert {"weight", "bias"} <= set(kept)
    lost = dict(_module(old_rewrite, "old_rewrite").Projection().named_parameters())
    assert "weight" not in lost  # an optimizer would never update it


def test_loaded_values_are_not_registered():
    _, rewritten = _case("safety_not_a_tensor_loaded_or_looked_up")
    model = _module(rewritten, "rewritten").Normalizer()
    assert isinstance(model.meta, dict) and isinstance(model.stats, dict)
    # register_buffer would have raised on these: the reason the rule exists
    with pytest.raises(TypeError):
        torch.nn.Module().register_buffer("meta", model.meta)
    assert "shift" in dict(model.named_buffers())


def test_kept_device_move_keeps_a_child_reference_on_the_model_device():
    _, rewritten = _case("device_move_kept_when_used_in_init")
    assert 'self.register_buffer("adj", torch.eye(nodes).to(device), persistent=False)' in rewritten
    # The child registers the tensor it keeps (typed from its call); a child that keeps a
    # plain reference (one the tool cannot type) is what the kept move protects.
    child_registers = re.compile(r'self\.register_buffer\(\s*"adj", adj, persistent=False\s*\)')  # maybe wrapped
    assert child_registers.search(rewritten)
    rewritten = child_registers.sub("self.adj = adj", rewritten)
    old_rewrite = rewritten.replace(
        'self.register_buffer("adj", torch.eye(nodes).to(device), persistent=False)',
        'self.register_buffer("adj", torch.eye(nodes), persistent=False)',
    )
    # "meta" stands for the accelerator a model is built for: the same moves, no GPU needed
    kept = _module(rewritten, "rewritten").GCN(device="meta").to("meta")
    assert kept.adj.device.type == kept.conv.adj.device.type == "meta"

    dropped = _module(old_rewrite, "old_rewrite").GCN(device="meta").to("meta")
    assert dropped.adj.device.type == "meta"
    assert dropped.conv.adj.device.type == "cpu"  # the child's own reference was left behind


def test_binding_in_a_constructor_helper_is_rewritten_too():
    original, rewritten = _case("safety_constructor_helper_bindings")
    # what the rewrite of __init__ alone gave: the helper's plain attribute, then register_buffer
    old_rewrite = original.replace(
        "self.positions = torch.arange(n)", 'self.register_buffer("positions", torch.arange(n))'
    )
    with pytest.raises(KeyError, match="already exists"):
        _module(old_rewrite, "old_rewrite").Embedder()
    model = _module(rewritten, "rewritten").Embedder()
    assert {"positions", "scale"} <= {name for name, _ in model.named_buffers()}
    assert torch.equal(model.positions, torch.arange(4))


def test_no_registration_suggested_for_an_override_the_base_constructor_calls():
    original, _ = _case("skip_outside_constructor_suggestions")
    report = (GOLDEN / "skip_outside_constructor_suggestions" / "report.txt").read_text(encoding="utf-8")
    finding = next(line for line in report.splitlines() if "Field.ids" in line)
    assert "suggestion" not in finding
    assert "Field.aabb" not in report  # the base's buffer
    # what the former suggestion ("declare it in __init__ with register_buffer(name, None)") gives:
    followed = original.replace(
        "class Field(Renderer):\n",
        "class Field(Renderer):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("ids", None)\n\n',
    )
    with pytest.raises(KeyError, match="already exists"):
        _module(followed, "followed").Field()
    # and a persistent per-forward value makes a saved state_dict unloadable into a fresh model
    model = _module(original, "original").Normalize()
    model.register_buffer("mean", None)
    model(torch.randn(3, 4))
    with pytest.raises(RuntimeError, match="Unexpected key"):
        _module(original, "fresh").Normalize().load_state_dict(model.state_dict())


def test_collate_only_tensor_stays_with_the_data():
    original, rewritten = _case("safety_off_device_collate_only")
    assert "self.pad_row = torch.full((1,), pad)" in rewritten
    old_rewrite = original.replace(
        "self.pad_row = torch.full((1,), pad)", 'self.register_buffer("pad_row", torch.full((1,), pad))'
    )
    batch = [torch.tensor([1, 2, 3]), torch.tensor([4])]
    # "meta" stands for the accelerator: the model moves, the DataLoader's batches stay on the CPU
    kept = _module(rewritten, "rewritten").Tagger().to("meta")
    assert kept.collate(batch).shape == (2, 3)
    moved = _module(old_rewrite, "old_rewrite").Tagger().to("meta")
    with pytest.raises((RuntimeError, NotImplementedError)):
        moved.collate(batch)


def test_values_that_reach_cpu_only_calls_stay_on_the_cpu():
    original, rewritten = _case("safety_cpu_data_read_numpy")
    assert "self.edges = torch.linspace(0, 1, bins + 1)\n        self.fc" in rewritten  # Histogram: kept
    old_rewrite = original.replace(
        "self.edges = torch.linspace(0, 1, bins + 1)\n        self.fc",
        'self.register_buffer("edges", torch.linspace(0, 1, bins + 1), persistent=False)\n        self.fc', 1)
    # "meta" stands for the accelerator: the model moves, the raw table stays where numpy() can read it
    kept = _module(rewritten, "rewritten").Histogram().to("meta")
    assert kept.edges[1:-1].numpy().shape == (7,)
    moved = _module(old_rewrite, "old_rewrite").Histogram().to("meta")
    with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
        moved.edges[1:-1].numpy()

    # a float tensor's host copy too: numpy has no bfloat16, which the cast makes a buffer
    assert "self.edges = torch.linspace(0, 1, bins + 1)\n        self.fc" in rewritten.split("class HostCopy")[1]
    kept = _module(rewritten, "rewritten").HostCopy().to(torch.bfloat16)
    assert kept.edges.cpu().numpy().dtype.name == "float32"
    cast = original.split("class HostCopy")[1].replace(
        "self.edges = torch.linspace(0, 1, bins + 1)", 'self.register_buffer("edges", torch.linspace(0, 1, bins + 1))', 1)
    moved = _module(original.split("class HostCopy")[0] + "class HostCopy" + cast, "cast").HostCopy().to(torch.bfloat16)
    with pytest.raises(TypeError):
        moved.edges.cpu().numpy()

    # a numpy function given the tensor itself reads it through Tensor.numpy()
    original, rewritten = _case("safety_cpu_data_read_numpy_function")
    assert "self.err_count = torch.zeros(n)" in rewritten and "self.t_count = torch.tensor(0)" in rewritten
    old_rewrite = original.replace(
        "self.err_count = torch.zeros(n)", 'self.register_buffer("err_count", torch.zeros(n), persistent=False)'
    ).replace("self.t_count = torch.tensor(0)", 'self.register_buffer("t_count", torch.tensor(0), persistent=False)')
    kept = _module(rewritten, "rewritten_rate").ErrorGate().to("meta")
    assert kept.err_rate.shape == (4,)
    moved = _module(old_rewrite, "old_rewrite_rate").ErrorGate().to("meta")
    with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
        moved.err_rate

    original, rewritten = _case("safety_cpu_data_read_through_held_module")
    assert "self.weights = torch.FloatTensor(weights)" in rewritten
    old_rewrite = original.replace("self.weights = None\n", 'self.register_buffer("weights", None, persistent=False)\n')
    weights = [0.1, 0.2, 0.3, 0.4]
    kept = _module(rewritten, "rewritten").SGNS(None, weights=weights).to("meta")
    draws = torch.multinomial(kept.weights, 6, replacement=True)
    assert torch.LongTensor(draws).shape == (6,)  # what Word2Vec.forward_o builds from them
    moved = _module(old_rewrite, "old_rewrite").SGNS(None, weights=weights).to("meta")
    draws = torch.multinomial(moved.weights, 6, replacement=True)
    assert draws.device.type == "meta"
    with pytest.raises(TypeError):
        torch.LongTensor(draws)


def test_trained_tensor_handed_to_an_optimizer_before_rebinding_keeps_training():
    original, rewritten = _case("safety_trained_tensor_handed_out_before_rebinding")
    assert "self.log_alpha = torch.tensor([0.0], requires_grad=True)" in rewritten
    old_rewrite = original.replace(
        "self.log_alpha = torch.tensor([0.0], requires_grad=True)", "self.log_alpha = nn.Parameter(torch.tensor([0.0]))"
    ).replace("self.log_alpha = self.log_alpha.to(device)", "self.log_alpha = nn.Parameter(self.log_alpha)")

    def after_one_step(text: str, name: str) -> float:
        model = _module(text, name).Temperature()
        model(torch.ones(2)).sum().backward()
        model.alpha_optim.step()
        return float(model.log_alpha.detach())

    assert after_one_step(rewritten, "rewritten") == pytest.approx(-0.1)
    assert after_one_step(original, "original") == pytest.approx(-0.1)
    assert after_one_step(old_rewrite, "old_rewrite") == 0.0  # the optimizer's leaf never got a gradient


def test_float_table_moved_where_read_keeps_its_precision_under_bfloat16():
    original, rewritten = _case("safety_float_table_placed_where_read")
    assert "self.freqs = torch.exp(" in rewritten
    old_rewrite = rewritten.replace(
        "self.freqs = torch.exp(-math.log(max_period) * torch.arange(dim // 2, dtype=torch.float32) / (dim // 2))",
        'self.register_buffer("freqs", torch.exp(-math.log(max_period) * torch.arange(dim // 2, dtype=torch.float32) / (dim // 2)), persistent=False)',
    )
    assert old_rewrite != rewritten
    t = torch.tensor([999.0])

    def frequencies(text: str, name: str):
        model = _module(text, name).TimeEmbedding(dim=256).to(torch.bfloat16)
        return model.freqs, torch.outer(t, model.freqs.to(torch.float32))

    kept, kept_args = frequencies(rewritten, "rewritten")
    original_freqs, original_args = frequencies(original, "original")
    cast, cast_args = frequencies(old_rewrite, "old_rewrite")
    assert kept.dtype == original_freqs.dtype == torch.float32 and torch.equal(kept_args, original_args)
    assert cast.dtype == torch.bfloat16
    # The rounded frequencies shift the sinusoid's argument by more than a radian at t=999:
    # the embedding the trained layers expect is gone.
    assert (cast_args - original_args).abs().max() > 1.0
    assert (torch.cos(cast_args) - torch.cos(original_args)).abs().max() > 0.5


def test_tensor_starting_empty_and_replaced_keeps_state_dicts_loading():
    _, rewritten = _case("persistent_starts_empty_replaced_later")
    assert 'self.register_buffer("overlap", torch.empty(0), persistent=False)' in rewritten
    old_rewrite = rewritten.replace(", persistent=False", "")  # the persistent key of a running update
    for text, name in ((rewritten, "rewritten"), (old_rewrite, "old_rewrite")):
        module = _module(text, name)
        used = module.DiverseSearch()
        used(torch.ones(2, 3))
        used(torch.ones(2, 3))
        if text is rewritten:
            assert module.DiverseSearch().load_state_dict(used.state_dict(), strict=True) is not None
        else:
            with pytest.raises(RuntimeError, match="size mismatch"):
                module.DiverseSearch().load_state_dict(used.state_dict(), strict=True)


def test_a_second_name_for_a_buffer_stops_sharing_it_after_a_move_either_way():
    """BUF310: the alias is reported, because registering it would not keep one tensor either."""
    source, rewritten = _case("report_alias_of_own_buffer")
    assert "self.last = self.running" in rewritten  # reported, left as written
    registered = source.replace(
        "self.last = self.running  #", 'self.register_buffer("last", self.running, persistent=False)  #'
    )
    for text, name in ((source, "as_written"), (registered, "registered")):
        module = _module(text, name)
        model = module.Smoother(3)
        assert model.last is model.running  # one tensor, two names, before any move
        model.to("meta")
        assert model.running.device.type == "meta"
        if text is source:
            assert model.last.device.type == "cpu"  # the plain attribute stays behind
        else:
            # two buffers: each converted separately, so an update through one no longer shows through the other
            assert model.last.device.type == "meta" and model.last is not model.running
    report = (GOLDEN / "report_alias_of_own_buffer" / "report.txt").read_text(encoding="utf-8")
    assert "Smoother.last skipped: a second name for self.running's tensor" in report


def test_variable_of_anything_that_does_not_raise_is_a_tensor_and_the_rewrite_keeps_the_call():
    from torch.autograd import Variable

    assert isinstance(Variable(None), torch.Tensor) and Variable(None).numel() == 0
    with pytest.raises(TypeError, match="has to be a tensor"):
        Variable([1.0, 2.0])
    _, rewritten = _case("tensor_variable_of_untyped_argument")
    assert 'self.register_buffer("weights", Variable(weight), persistent=False)' in rewritten
    module = _module(rewritten, "rewritten")
    for weight in (None, torch.tensor([0.3, 0.7])):
        loss = module.mIoULoss(weight)
        assert torch.equal(loss.weights, Variable(weight))  # the same value the attribute held
        assert "weights" in dict(loss.named_buffers()) and "weights" not in loss.state_dict()


def test_a_move_read_through_an_instance_elsewhere_is_kept_for_the_parent_that_reads_it(monkeypatch):
    """BUF205: a parent's constructor hands the child's tensor on before the model is moved;
    on the meta device (standing in for a GPU) the dropped move leaves that copy on the CPU."""
    _, rewritten = _case("device_move_kept_read_through_an_instance_elsewhere")
    assert 'torch.rand(n_verts, 3).to(device), persistent=False' in rewritten
    dropped = rewritten.replace("torch.rand(n_verts, 3).to(device)", "torch.rand(n_verts, 3)")
    parent = (GOLDEN / "device_move_kept_read_through_an_instance_elsewhere" / "repo" / "handnet.py").read_text(encoding="utf-8")
    devices = {}
    for text, name in ((rewritten, "rewritten"), (dropped, "dropped")):
        monkeypatch.setitem(__import__("sys").modules, "input", _module(text, "input"))
        handnet = _module(parent, f"handnet_{name}")
        model = handnet.HandNet(device="meta")
        devices[name] = model.laplacian.vertices.device.type
    assert devices == {"rewritten": "meta", "dropped": "cpu"}


def test_a_float_read_into_a_tensor_is_made_up_as_a_float_so_casts_have_something_to_change(tmp_path, monkeypatch):
    """Validation's made-up constructor arguments: `torch.tensor([kappa])` gets a float (an int
    would make an integer tensor, which half() and bfloat16 leave alone)."""
    import importlib
    import inspect

    from codemod.validate import synth

    (tmp_path / "gamma_loss.py").write_text(
        "import torch\nimport torch.nn as nn\n\n"
        "class GammaLoss(nn.Module):\n"
        "    def __init__(self, kappa, n, length):\n"
        "        super().__init__()\n"
        "        self.kappa = torch.tensor([kappa])\n"
        "        self.table = torch.full((n,), kappa)\n"
        "        self.positions = torch.Tensor(torch.arange(1, length + 1) / length)  # a size, not the data\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cls = importlib.import_module("gamma_loss").GammaLoss
    parameters = inspect.signature(cls).parameters
    made = {name: synth.parameter_values(cls, p, p.annotation)[0][0] for name, p in parameters.items()}
    assert isinstance(made["kappa"], float) and isinstance(made["n"], int) and isinstance(made["length"], int)
    assert cls(**made).kappa.half().dtype == torch.float16  # the cast now has a value to change


def test_coordinates_differentiated_with_respect_to_are_not_handed_to_every_optimizer():
    original, rewritten = _case("safety_requires_grad_coordinates_derived_at_construction")
    assert original.split("class XavierLayer")[0] == rewritten.split("class XavierLayer")[0]  # BUF223: left alone
    made_parameter = rewritten.replace(
        "self.xi_ref = torch.linspace(0.0, 1.0, n).unsqueeze(1)\n        self.xi_ref.requires_grad_(True)",
        "self.xi_ref = nn.Parameter(torch.linspace(0.0, 1.0, n).unsqueeze(1))")  # what BUF103 would write
    assert made_parameter != rewritten
    for text, moved in ((rewritten, False), (made_parameter, True)):
        model = _module(text, f"coordinates_{moved}").QuadraturePoints()
        before = model.xi_ref.detach().clone()
        (du,) = torch.autograd.grad(model(torch.ones(8, 1)), model.xi_ref)  # differentiable either way
        assert du.shape == before.shape
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        model(torch.ones(8, 1)).backward()
        optimizer.step()
        # as a Parameter the optimizer moves the quadrature points; kept raw, they stay put
        assert (not torch.equal(model.xi_ref.detach(), before)) is moved


def test_a_tensor_a_parent_rebinds_to_a_list_stays_plain_where_a_buffer_would_raise():
    original, rewritten = _case("safety_rebound_to_a_list_by_the_parent_that_builds_it")
    assert rewritten == original  # BUF224: reported, not registered
    registered = original.replace(
        "self.anchors = torch.tensor(anchors)",
        'self.register_buffer("anchors", torch.tensor(anchors), persistent=False)')  # what BUF101 would write
    assert registered != original
    blocks = [{"anchors": "1,2,3,4"}]
    layers = _module(original, "rebound_plain").create_network(blocks)
    assert layers[0].anchors == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(TypeError, match="cannot assign 'list' as buffer 'anchors'"):
        _module(registered, "rebound_buffer").create_network(blocks)


def test_a_tensor_computed_with_one_that_stays_plain_waits_for_it():
    """BUF225.  The factors stay plain attributes (an optimizer of their own trains them:
    BUF217); the indices computed with them stay plain too.  On the meta device, standing in
    for the GPU the model is moved to, the original computes on the CPU as before, and so
    does the rewrite (only `counts`, read alone, is a buffer); registering the indices, as
    the rewrite without the rule would, makes `torch.index_select` mix devices."""
    from codemod.validate.devices import DeviceMixChecker, MixedDeviceError

    original, rewritten = _case("safety_computed_with_a_kept_raw_tensor")
    assert 'register_buffer("counts"' in rewritten and 'register_buffer("user_ids"' not in rewritten
    old_rewrite = rewritten.replace("self.user_ids = user_ids", 'self.register_buffer("user_ids", user_ids, persistent=False)')
    old_rewrite = old_rewrite.replace("self.item_ids = item_ids", 'self.register_buffer("item_ids", item_ids, persistent=False)')
    ratings = torch.tensor([1.0, 2.0, 3.0, 4.0])
    for text, name in ((original, "original"), (rewritten, "rewritten")):
        model = _module(text, name).build().to("meta")
        with DeviceMixChecker():
            loss = model.fit(ratings)
        assert loss.device.type == "cpu", name
    model = _module(old_rewrite, "old_rewrite").build().to("meta")
    assert model.user_ids.device.type == "meta" and model.theta.device.type == "cpu"
    with pytest.raises(MixedDeviceError, match="index_select"):
        with DeviceMixChecker():
            model.fit(ratings)
    # the partner reduced to one element is a 0-dim CPU tensor, which mixes with any device
    with DeviceMixChecker():
        assert (torch.ones(3, device="meta") * model.theta.sum()).device.type == "meta"


def test_a_partner_that_meets_forward_inputs_holds_nothing_back():
    """BUF225 stays silent where the plain partner is computed with forward's inputs: once the
    model moves, the original mixes devices there already (`self.lin(x) * self.weights +
    self.offsets`), so waiting for the partner keeps nothing working that works now."""
    source = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Pooler(nn.Module):\n"
        "    def __init__(self, n=4):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(n, n)\n"
        "        self.weights = torch.linspace(0.0, 1.0, n)\n"
        "        self.offsets = torch.zeros(n, requires_grad=True)\n"
        "        self.tuner = torch.optim.SGD([self.offsets], lr=0.1)\n\n"
        "    def forward(self, x):\n"
        "        return self.lin(x) * self.weights + self.offsets\n\n"
        "    def summary(self):\n"
        "        return self.weights + self.offsets\n"
    )
    result = transform_source(source, path="pool.py")
    codes = {f.attribute: f.code for f in result.findings}
    assert codes == {"weights": "BUF101", "offsets": "BUF217"}, codes
    # without forward's inputs, `summary` alone holds the weights back
    alone = source.replace("return self.lin(x) * self.weights + self.offsets", "return self.lin(x)")
    codes = {f.attribute: f.code for f in transform_source(alone, path="pool.py").findings}
    assert codes == {"weights": "BUF225", "offsets": "BUF217"}, codes
    # a partner the constructor puts on a device is not where the weights are made: the
    # original already computes with the two on different devices
    placed = alone.replace("torch.zeros(n, requires_grad=True)", "torch.zeros(n, requires_grad=True).to(device)")
    placed = placed.replace("def __init__(self, n=4):", "def __init__(self, n=4, device='cuda'):")
    codes = {f.attribute: f.code for f in transform_source(placed, path="pool.py").findings}
    assert codes["weights"] == "BUF101", codes


def test_a_number_assigned_through_an_untyped_object_or_a_fitting_loop_keeps_the_tensor_plain():
    for case, before, registered, run in (
        ("safety_rebound_through_an_untyped_object_to_a_number",
         "self.sigma_rec = torch.tensor(math.sqrt(2.0 / alpha) * sigma_rec)  # noise scale",
         'self.register_buffer("sigma_rec", torch.tensor(math.sqrt(2.0 / alpha) * sigma_rec), persistent=False)',
         lambda module: module.Agent(module.RNN(), {"sigma_rec": 0.05}).quiet()),
        ("safety_rebound_by_a_fitting_function_to_its_argument",
         "self.sigma_diff = torch.tensor(sigma_diff)",
         'self.register_buffer("sigma_diff", torch.tensor(sigma_diff), persistent=False)',
         lambda module: module.fit(module.DDM(), [0.5, 1.5])),
    ):
        original, rewritten = _case(case)
        assert before in rewritten  # BUF224: reported, not registered
        as_buffer = original.replace(before, registered)  # what BUF101 would write
        assert as_buffer != original
        run(_module(original, f"{case}_plain"))  # the original runs
        with pytest.raises(TypeError, match="cannot assign '(int|float)' as buffer"):
            run(_module(as_buffer, f"{case}_buffer"))


def test_a_learnt_initial_state_is_registered_alone_but_not_as_a_pair():
    original, rewritten = _case("report_container_learnt_initial_state_by_configuration")
    assert rewritten == original, "reported, never rewritten"
    module = _module(original, "original")
    pair, alone = module.Recurrent(4, lstm=True), module.Recurrent(4, lstm=False)
    # the GRU's one nn.Parameter joins the model; the LSTM's pair is unseen by optimizers,
    # .to() and state_dict: the report's business, whichever the configuration
    assert "initial" in dict(alone.named_parameters()) and "initial" in alone.state_dict()
    assert not any(p is pair.initial[0] for p in pair.parameters())
    assert "initial" not in pair.state_dict() and "initial.0" not in pair.state_dict()
    moved = pair.to(torch.float64)
    assert moved.initial[0].dtype == torch.float32


def test_parameters_in_a_plain_list_are_never_trained_by_the_models_optimizer():
    original, rewritten = _case("report_container_parameters_in_a_plain_list")
    assert rewritten == original, "reported, never rewritten"
    model = _module(original, "original").GCNAlign()
    before = [w.detach().clone() for w in model.weights]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model(torch.eye(10)).sum().backward()
    optimizer.step()
    assert all(torch.equal(w, b) for w, b in zip(model.weights, before)), "the optimizer never saw them"
    assert all(w.grad is not None for w in model.weights), "yet they have gradients"
    assert not any(k.startswith("weights") for k in model.state_dict())
