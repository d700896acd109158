"""Validation building blocks: examples API, import overlay, device checker, output comparison."""

from __future__ import annotations

import collections
import dataclasses
import inspect
import linecache
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
import torch
import torch.nn as nn

from codemod import examples
from codemod.ftypes import Action, ClassRewrite, Finding, Verdict
from codemod.validate import ValidationOptions, validate_rewrites
from codemod.validate import compare, devices, overlay, sources
from codemod.validate.build import snippet

REPO = Path(__file__).resolve().parent.parent


def test_importing_validate_and_examples_does_not_import_torch():
    code = ("import sys; import codemod.validate, codemod.examples, codemod.validate.record, codemod.validate.calls; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- examples API --------------------------------------------------------------------------------


@pytest.fixture
def registry():
    examples.clear()
    yield examples
    examples.clear()


def test_example_registers_args_kwargs_and_inputs(registry):
    entry = registry.example("pkg.model.Net", 3, hidden=8, inputs=lambda: (torch.ones(1), torch.zeros(1)))
    assert registry.registered() == {"pkg.model.Net": entry}
    assert entry.args == (3,) and entry.kwargs == {"hidden": 8}
    args, kwargs = entry.make_inputs()
    assert len(args) == 2 and kwargs == {}
    assert entry.location.endswith(f"{Path(__file__).name}:{test_example_registers_args_kwargs_and_inputs.__code__.co_firstlineno + 1}")


def test_inputs_shapes(registry):
    t = torch.ones(2)
    assert examples.normalize_inputs(t)[0][0] is t  # a lone object is the single positional argument
    assert examples.normalize_inputs((t, t)) == ((t, t), {})
    assert examples.normalize_inputs({"x": t}) == ((), {"x": t})
    assert examples.normalize_inputs([t, t])[0] == ([t, t],)  # a list is one argument
    assert examples.normalize_inputs(examples.Inputs(t, mask=None)) == ((t,), {"mask": None})
    Pair = collections.namedtuple("Pair", "a b")
    pair = Pair(t, t)
    assert examples.normalize_inputs(pair) == ((pair,), {})  # a namedtuple is a value, not an argument list


def test_example_targets(registry):
    class Local(nn.Module):
        pass

    assert examples.target_name(Local) == f"{__name__}.test_example_targets.<locals>.Local"
    with pytest.raises(ValueError):
        registry.example("Net")
    with pytest.raises(TypeError):
        registry.example(42)
    registry.example("a.B", 1)
    registry.example("a.B", 2)
    assert registry.registered()["a.B"].args == (2,)  # the later example wins
    entry = registry.example_factory("a.C", lambda: nn.Linear(1, 1), inputs={"input": torch.ones(1, 1)})
    assert entry.factory is not None and entry.make_inputs() == ((), {"input": entry.inputs["input"]})


def test_snippet_names_what_is_needed():
    class NeedsConfig(nn.Module):
        def __init__(self, config, /, hidden, *layers, dropout=0.1, **extra):
            super().__init__()

        def forward(self, *xs):
            return xs

    class Plain(nn.Module):
        def __init__(self, dim):
            super().__init__()

        def forward(self, tokens, mask=None):
            return tokens

    assert snippet(NeedsConfig, "m.NeedsConfig") == "example('m.NeedsConfig', ..., hidden=..., inputs=lambda: ())"
    assert snippet(Plain, "m.Plain") == "example('m.Plain', dim=..., inputs=lambda: {'tokens': ...})"


# -- import overlay --------------------------------------------------------------------------------


def test_overlay_serves_rewritten_text_to_relative_and_absolute_imports(tmp_path):
    name = f"ovpkg_{uuid.uuid4().hex[:8]}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("VALUE = 'original'\n")
    (package / "b.py").write_text("from .a import VALUE\n")
    (package / "c.py").write_text(f"from {name}.a import VALUE\n")
    finder = overlay.install({package / "a.py": "VALUE = 'rewritten'\n"})
    sys.path.insert(0, str(tmp_path))
    try:
        b = __import__(f"{name}.b", fromlist=["VALUE"])
        c = __import__(f"{name}.c", fromlist=["VALUE"])
        a = sys.modules[f"{name}.a"]
        assert b.VALUE == c.VALUE == "rewritten"
        assert a.__file__ == str(package / "a.py")  # real filename, for tracebacks and __file__ users
        assert finder.served == [f"{name}.a"]
        assert (package / "a.py").read_text() == "VALUE = 'original'\n"
        assert not list(package.glob("__pycache__/a.*.pyc"))
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def test_overlay_source_of_a_rewritten_class_is_the_rewritten_text_even_when_linecache_holds_the_disk_file(tmp_path):
    # the rewrite moved the class down two lines; linecache read the file on disk before the
    # import (as a worker forked from a parent that had read it does)
    name = f"ovsrc_{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{name}.py"
    path.write_text("class First:\n    x = 1\n\n\nclass Second:\n    y = 'original'\n")
    assert linecache.getlines(str(path))[4] == "class Second:\n"
    finder = overlay.install({path: "import os\n\nclass First:\n    x = 1\n\n\nclass Second:\n    y = 'rewritten'\n"})
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(name)
        assert inspect.getsource(module.Second) == "class Second:\n    y = 'rewritten'\n"
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
        linecache.cache.pop(str(path), None)


def test_made_up_values_are_decided_from_the_source_on_disk_on_both_sides(tmp_path):
    # the rewritten side imports the rewritten text, but reads the original statements that
    # decided the made-up arguments (`self.weight = weight`, not register_buffer)
    name = f"ovorig_{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{name}.py"
    original = "class Loss:\n    def __init__(self, weight=None):\n        self.weight = weight\n"
    path.write_text(original)
    rewritten = "import os\n\n\nclass Loss:\n    def __init__(self, weight=None):\n" \
                "        self.register_buffer('weight', weight)\n"
    finder = overlay.install({path: rewritten})
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(name)
        assert inspect.getsource(module.Loss) == rewritten.split("\n\n\n")[1]
        assert sources.original_source(module.Loss) == original
        assert sources.original_source(module.Loss.__init__) == "    " + original.split("    ", 1)[1]
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
        linecache.cache.pop(str(path), None)


# -- device checker --------------------------------------------------------------------------------


def test_checker_catches_embedding_with_a_cpu_index_that_meta_kernels_accept():
    emb = nn.Embedding(4, 3).to("meta")
    idx = torch.arange(4)
    assert emb(idx).device.type == "meta"  # lenient meta kernel
    with pytest.raises(devices.MixedDeviceError, match=r"aten\.embedding.*plain attribute idx"):
        with devices.DeviceMixChecker({id(idx): "idx"}):
            emb(idx)


def test_checker_allows_zero_dim_indexing_and_explicit_moves():
    x = torch.ones(4, 3, device="meta")
    with devices.DeviceMixChecker():
        x * torch.tensor(2.0)  # 0-dim CPU scalar
        x[torch.tensor([0, 1])]  # aten.index
        x + torch.ones(3).to("meta")


def test_checker_catches_a_cpu_tensor_indexed_with_indices_on_the_device():
    # meta indices into a CPU tensor give garbage where CUDA ones raise: the checker raises
    table, idx = torch.arange(5), torch.tensor([0, 2, 4], device="meta")
    with pytest.raises(devices.MixedDeviceError, match=r"aten\.index.*plain attribute frozen"):
        with devices.DeviceMixChecker({id(table): "frozen"}):
            table[idx]
    with pytest.raises(devices.MixedDeviceError, match=r"aten\.index_put"):
        with devices.DeviceMixChecker():
            table[idx] = 0
    with devices.DeviceMixChecker():
        table.to("meta")[idx]  # the index on the indexed tensor's device


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_refuses_a_cpu_tensor_indexed_with_cuda_indices_and_takes_the_reverse():
    """The torch fact the checker stands in for."""
    table = torch.arange(5)
    with pytest.raises(RuntimeError, match="indices should be either on cpu or on the same device"):
        table[torch.tensor([0, 2], device="cuda")]
    assert table.cuda()[torch.tensor([0, 2])].device.type == "cuda"


def test_meta_limits_are_not_blamed_on_the_rewrite():
    x = torch.ones(3, 2, 4, device="meta")
    with pytest.raises(Exception) as info:
        x.sum().item()
    assert devices.classify_meta_error(info.value) == "unchecked"
    with pytest.raises(Exception) as info:
        with devices.DeviceMixChecker():
            nn.utils.rnn.pack_padded_sequence(x, torch.tensor([3, 2]), batch_first=True)
    assert devices.classify_meta_error(info.value) == "unchecked"
    mixed = devices.MixedDeviceError("mixed devices ['cpu', 'meta'] in aten.add.Tensor", "aten.add.Tensor", False)
    assert devices.classify_meta_error(mixed) == "mixed"


def test_left_behind_lists_raw_tensors_of_submodules():
    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = torch.ones(2)

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.register_buffer("ok", torch.ones(2))
            self.scalar = torch.tensor(1.0)

    model = Outer().to("meta")
    assert sorted(devices.left_behind(model, torch.device("meta"))) == [("inner.table", "cpu"), ("scalar", "cpu")]


# -- output comparison -----------------------------------------------------------------------------


@dataclasses.dataclass
class Out:
    logits: torch.Tensor
    extra: dict


class ModelOutputLike(collections.OrderedDict):
    pass


def test_flatten_handles_nested_structures():
    Pair = collections.namedtuple("Pair", "a b")
    t = torch.ones(2)
    output = (Out(t, {"k": [t, 3]}), Pair(t, None), ModelOutputLike(loss=t), "text")
    paths = [p for p, _ in compare.flatten(output)]
    assert paths == [
        "output[0].logits", "output[0].extra['k'][0]", "output[0].extra['k'][1]",
        "output[1].a", "output[1].b", "output[2]['loss']", "output[3]",
    ]
    saved = compare.portable(compare.flatten(output))
    assert all(not isinstance(v, torch.Tensor) or not v.requires_grad for _, v in saved)


def test_compare_leaves_uses_device_tolerances():
    ref = [("output", torch.tensor([1.0, 2.0]))]
    close = [("output", torch.tensor([1.0, 2.0 + 1e-4]))]
    problems, diff = compare.compare_leaves(ref, close, "cpu")
    assert problems and diff == pytest.approx(1e-4, rel=1e-2)
    assert compare.compare_leaves(ref, close, "cuda")[0] == []
    assert compare.compare_leaves(ref, [("other", torch.ones(2))], "cpu")[0][0].startswith("outputs differ in structure")
    assert compare.exact_difference(torch.tensor([float("nan")]), torch.tensor([float("nan")])) is None
    assert compare.exact_difference(torch.ones(2), torch.ones(2, dtype=torch.float64)).startswith("dtype")


# -- options ---------------------------------------------------------------------------------------


SIMPLE = """
import torch
import torch.nn as nn


class Simple(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.table = torch.ones(4)

    def forward(self, x):
        return self.lin(x) + self.table


class NeedsArgs(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.table = torch.ones(dim)
"""

REWRITTEN = SIMPLE.replace("self.table = torch.ones(4)", 'self.register_buffer("table", torch.ones(4), persistent=False)')
REWRITTEN = REWRITTEN.replace("self.table = torch.ones(dim)", 'self.register_buffer("table", torch.ones(dim), persistent=False)')


def _simple_repo(root: Path, examples_text: str | None = None):
    (root / "simple").mkdir()
    (root / "simple" / "__init__.py").write_text("")
    (root / "simple" / "m.py").write_text(textwrap.dedent(SIMPLE))
    if examples_text is not None:
        (root / "codemod_examples.py").write_text(textwrap.dedent(examples_text))
    path = root / "simple" / "m.py"
    text = textwrap.dedent(SIMPLE)

    def line_of(statement: str) -> int:  # validation checks that the rewritten statement ran
        return text[: text.index(statement)].count("\n") + 1

    lines = {"Simple": line_of("self.table = torch.ones(4)"), "NeedsArgs": line_of("self.table = torch.ones(dim)")}
    rewrites = [
        ClassRewrite(path, "simple.m", cls, [Finding("m.py", lines[cls], 1, cls, "table", Action.BUFFER, False, "")])
        for cls in ("Simple", "NeedsArgs")
    ]
    return path, rewrites, {path: textwrap.dedent(REWRITTEN)}


def test_cpu_device_and_a_broken_examples_file(tmp_path):
    path, rewrites, texts = _simple_repo(
        tmp_path, "from codemod.examples import example\nimport torch\nraise RuntimeError('examples are broken')\n"
    )
    # without zero-setup building, NeedsArgs(dim) has no source at all
    out = validate_rewrites(tmp_path, rewrites, texts, ValidationOptions(device="cpu", timeout=30, zero_setup=False))
    simple = out[(path, "Simple")]
    assert simple.verdict is Verdict.PASSED, simple.message
    assert simple.device == "cpu" and "device_movement" not in simple.compared
    assert any("examples are broken" in d for d in simple.details)
    needs = out[(path, "NeedsArgs")]
    assert needs.verdict is Verdict.NOT_VALIDATED
    assert "examples are broken" in needs.message and needs.snippet == "example('simple.m.NeedsArgs', dim=..., inputs=lambda: ())"


def test_missing_examples_file_is_reported_without_starting_workers(tmp_path):
    path, rewrites, texts = _simple_repo(tmp_path)
    out = validate_rewrites(tmp_path, rewrites, texts, ValidationOptions(examples=tmp_path / "nope.py"))
    assert {v.verdict for v in out.values()} == {Verdict.NOT_VALIDATED}
    assert "does not exist" in out[(path, "Simple")].message


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message when no GPU is present")
def test_cuda_requested_without_a_gpu_is_not_validated(tmp_path):
    path, rewrites, texts = _simple_repo(tmp_path)
    out = validate_rewrites(tmp_path, rewrites[:1], texts, ValidationOptions(device="cuda", timeout=30))
    v = out[(path, "Simple")]
    assert v.verdict is Verdict.NOT_VALIDATED
    assert "torch.cuda.is_available() is False" in v.message


# -- the report says what each verdict rests on --------------------------------------------------


def test_the_text_report_gives_each_class_its_evidence():
    from codemod.ftypes import Validation
    from codemod.report import validation_lines

    passed = Validation(Verdict.PASSED, device="cpu+meta", compared=["attributes", "forward:cpu"],
                        builds=["built with no constructor arguments", "the same, with gated=True"],
                        forward_compared=True, branches=[3, 3])
    (line,) = validation_lines("m.py", "Gate", passed)  # one line for a passing class
    assert line == ("m.py: Gate: validation passed on cpu+meta (forward compared: yes; builds: 2; branches covered: "
                    "3 of 3): attributes, forward:cpu")
    unproven = Validation(Verdict.CHECKED_WITHOUT_FORWARD, device="cpu+meta", compared=["attributes"],
                          builds=["made-up arguments", "made-up arguments, with flag=True"], branches=[1, 2],
                          rewrites={"t": {"verdict": "checked without forward", "checks": [], "message": "no inputs"}})
    lines = validation_lines("m.py", "Table", unproven)
    assert lines[0].startswith("m.py: Table: validation checked without forward on cpu+meta (forward compared: no; "
                               "builds: 2; branches covered: 1 of 2)")
    assert lines[1:] == ["    t: checked without forward: no inputs", "    build 1: made-up arguments",
                         "    build 2: made-up arguments, with flag=True"]


# -- the workers' interpreter starts while the tool analyses ------------------------------------


@pytest.mark.skipif(not __import__("codemod.validate.runner").validate.runner.forking_supported(),
                    reason="workers are forked from a zygote on Linux only")
def test_a_prestarted_zygote_is_taken_over_or_ended():
    from codemod.validate import runner, worker_environment

    kept = list(runner._keep_in)
    runner._keep_in.clear()  # as outside a test session: each run starts and ends its own
    try:
        env = worker_environment(dict(__import__("os").environ))
        runner.prestart(sys.executable, env)
        zygote = runner._prestarted[sys.executable]
        assert zygote.proc is not None and zygote.proc.poll() is None  # launched, importing torch
        runner.prestart(sys.executable, env)
        assert runner._prestarted[sys.executable] is zygote  # one per interpreter
        assert runner._zygote_for(sys.executable, env, Path(".")) is zygote  # a pool takes it over
        assert sys.executable not in runner._prestarted
        runner._prestarted[sys.executable] = zygote
        runner.release_prestarted()  # unused: ended at once, its log directory removed
        assert not runner._prestarted and zygote.proc is None and not zygote.logs.exists()
    finally:
        runner._keep_in[:] = kept


def test_the_parent_search_counts_cpu_time_and_still_ends_a_parent_that_sleeps(monkeypatch):
    import threading
    import time

    from codemod.validate import parents

    if threading.current_thread() is not threading.main_thread() or not hasattr(__import__("signal"), "setitimer"):
        pytest.skip("interval timers work in the main thread on POSIX")
    with pytest.raises(parents.ParentTooSlow):
        with parents._time_limit(0.2):
            while True:  # CPU time: ended after 0.2 s of it, however busy the machine is
                pass
    monkeypatch.setattr(parents, "WALL_FACTOR", 3.0)
    started = time.monotonic()
    with pytest.raises(parents.ParentTooSlow):
        with parents._time_limit(0.1):
            time.sleep(5)  # no CPU time: ended by the clock, after 3 x 0.1 s
    assert time.monotonic() - started < 2


def test_a_snapshot_reads_the_buffers_of_a_script_module():
    # torch.jit.ScriptModule wraps _buffers in a mapping with keys() but no __iter__: iterating
    # it directly indexes it with 0, 1, ... and raises TypeError
    from codemod.validate import side

    class Scripted(torch.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.register_buffer("grid", torch.ones(2))  # it refuses non-persistent ones

    snap = side.snapshot(Scripted(), [])
    assert [tuple(b) for b in snap["buffers"]] == [("grid", True)]


def test_a_cast_output_that_overflows_is_said_to_become_inf_not_to_differ_by_zero():
    from codemod.validate.compare import compare_cast

    original = [("output", torch.tensor([1.0, 70000.0]))]  # a float32 table kept the sum in range
    rewritten = [("output", torch.tensor([1.0, float("inf")], dtype=torch.float16))]
    assert compare_cast(original, rewritten, torch.float16) == [
        "output: 1 of 2 values become inf or nan where the original's are finite (the computation overflows at the "
        "cast's range)"]
    # finite values that differ still give the largest difference
    assert compare_cast(original, [("output", torch.tensor([1.0, 60000.0]))], torch.float16) == [
        "output differs (max abs diff 1e+04)"]


def test_a_gpu_forward_that_draws_random_numbers_meets_the_cpu_reference_by_shape_and_dtype_only():
    from codemod.validate import judge

    reference = [("output", torch.tensor([1.0, 2.0]))]
    original = {"has_inputs": True, "forward_error": None, "outputs": reference,
                "device": {"status": "mixed", "error": "Expected all tensors to be on the same device", "left": []}}

    def judged(on_gpu: torch.Tensor, draws_random: bool):
        rewritten = {"forward_error": None, "outputs": reference,
                     "device": {"status": "ok", "error": None, "left": [], "outputs": [("output", on_gpu)],
                                "draws_random": draws_random}}
        judgement = judge._Judgement("cuda:0")
        judge._forward(judgement, original, rewritten, {}, torch.device("cuda", 0))
        return judgement

    # a forward that draws nothing there is compared by value with the original's CPU forward
    assert judged(torch.tensor([1.0, 2.5]), False).failures == ["forward: on cuda:0 output differs (max abs diff 0.5)"]
    # one that draws from the GPU's stream: by shape and dtype, and the verdict says so
    drawn = judged(torch.tensor([1.3, 2.5]), True)
    assert drawn.failures == [] and "forward:cuda:0" in drawn.compared
    assert any("compared by shape and dtype only" in d for d in drawn.details), drawn.details
    assert judged(torch.zeros(3), True).failures == [
        "forward: on cuda:0 output: (2,) float32 on CPU vs (3,) float32 on cuda:0"]


def test_the_random_stream_of_a_device_advances_with_each_draw_there():
    from codemod.validate.side import _random_stream

    before = _random_stream(torch.device("cpu"))
    torch.zeros(3).add_(1)
    assert torch.equal(before, _random_stream(torch.device("cpu")))
    torch.randn(3)
    assert not torch.equal(before, _random_stream(torch.device("cpu")))
