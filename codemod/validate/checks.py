"""Checks of what breaks in real use, run on both sides (worker side, imports torch).

Each function gathers evidence from one side's models; `judge.py` compares the two
sides.  What they exercise, and the torch facts behind them:

* checkpoint round trip: a `state_dict` saved after a forward must load with
  `strict=True` into a freshly built model (a persistent buffer whose shape changes in
  forward makes it fail with a size mismatch);
* dtype casts: `Module.to(dtype)` casts floating-point *and complex* buffers (the
  imaginary part is discarded), `.half()` / `.double()` cast floating-point ones only;
  a plain attribute is never cast;
* training: in `train()` mode one backward pass; a tensor that requires grad but is
  registered as a buffer gets a `.grad` that no optimizer over `parameters()` applies;
* meta-device materialisation: large-model loaders build under `torch.device("meta")`,
  call `to_empty()` and re-run initialisation; a buffer nothing re-creates holds
  uninitialised memory;
* transformers: `from_pretrained` builds on meta and refills what the checkpoint lacks
  with uninitialised memory unless `_init_weights` re-creates it;
* coverage: which rewritten statements ran while the model was built.
"""

from __future__ import annotations

import copy
import os
import sys
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

import torch

from codemod.symbols import mangled
from codemod.validate import compare
from codemod.validate.build import (FORWARD_SEED, Inputs, cast_inputs, evaluation_mode, format_exception, seed_all,
                                    training_mode)

# (label, dtype, how) for every cast the check applies to both models.
CASTS: tuple[tuple[str, torch.dtype, Callable[[torch.nn.Module], Any]], ...] = (
    ("to(torch.bfloat16)", torch.bfloat16, lambda m: m.to(torch.bfloat16)),
    ("half()", torch.float16, lambda m: m.half()),
    ("double()", torch.float64, lambda m: m.double()),
)

Forward = Callable[[torch.nn.Module, "torch.dtype | None"], list]


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= 300 else line[:297] + "..."


def stored_name(owner: object, name: str) -> str:
    """The name an attribute is stored under: a private `__x` written in class `C` is `_C__x`
    (the class that wrote it, or one of its bases)."""
    for cls in type(owner).__mro__:
        stored = mangled(name, cls.__name__)
        if stored == name:
            continue
        if stored in vars(owner) or stored in getattr(owner, "_buffers", {}) or stored in getattr(owner, "_parameters", {}):
            return stored
    return name


def tensor_at(model: torch.nn.Module, attr: str) -> torch.Tensor | None:
    owner_path, _, name = attr.rpartition(".")
    try:
        owner = model.get_submodule(owner_path) if owner_path else model
        value = getattr(owner, stored_name(owner, name))
    except AttributeError:
        return None
    return value if isinstance(value, torch.Tensor) else None


def where(model: torch.nn.Module, attr: str) -> str:
    owner_path, _, name = attr.rpartition(".")
    try:
        owner = model.get_submodule(owner_path) if owner_path else model
    except AttributeError:
        return "missing"
    name = stored_name(owner, name)
    if name in owner._parameters:
        return "parameter"
    if name in owner._buffers:
        return "buffer"
    return "dict" if isinstance(vars(owner).get(name), torch.Tensor) else "other"


def _portable(tensor: torch.Tensor | None) -> torch.Tensor | None:
    if tensor is None or tensor.device.type == "meta":
        return None
    if tensor.layout != torch.strided:
        # a sparse tensor's values, compared as the dense tensor they stand for (sparse tensors
        # have no elementwise kernels for the checks made on them)
        return tensor.detach().cpu().to_dense()
    return tensor.detach().cpu().clone()


def forward_leaves(model: torch.nn.Module, make: Callable[[], Inputs], dtype: torch.dtype | None = None) -> list:
    """Run forward with fresh inputs (floating ones cast to ``dtype``); portable leaves."""
    seed_all(1)
    args, kwargs = cast_inputs(make(), dtype)
    seed_all(FORWARD_SEED)
    with torch.no_grad():
        return compare.portable(compare.flatten(model(*args, **kwargs)))


# -- checkpoint round trip -----------------------------------------------------------------


def round_trip(model: torch.nn.Module, build_fresh: Callable[[], torch.nn.Module],
               make: Callable[[], Inputs] | None) -> dict[str, Any]:
    """``model``'s state_dict into a fresh build, strictly; taken after its forward when ``make`` is
    given (the forward ran), else after construction: ``saved`` says which, for the verdict's words."""
    state = model.state_dict()
    after = "after a forward" if make is not None else "after construction (no forward ran)"
    try:
        fresh = build_fresh()
    except BaseException as exc:
        return {"status": "unchecked", "error": f"building a second model raised {format_exception(exc)}"}
    try:
        fresh.load_state_dict(state, strict=True)
    except Exception as exc:
        text = " ".join(line.strip() for line in str(exc).strip().splitlines() if line.strip())
        return {"status": "failed", "error": text[:600] or type(exc).__name__, "saved": after}
    result: dict[str, Any] = {"status": "ok", "error": None, "outputs": None, "forward_error": None, "saved": after}
    if make is not None:
        try:
            result["outputs"] = forward_leaves(fresh, make)
        except BaseException as exc:
            result["forward_error"] = format_exception(exc)
    return result


# -- dtype casts ---------------------------------------------------------------------------


def casts(model: torch.nn.Module, attrs: list[str], make: Callable[[], Inputs] | None,
          build_fresh: Callable[[], torch.nn.Module] | None = None) -> dict[str, Any]:
    """Each cast applied to a copy of ``model``: the rewritten tensors and the outputs after it.
    A model that cannot be copied (a tensor computed from a parameter at construction is no
    graph leaf, which deepcopy refuses) is built again for each cast with ``build_fresh``, as
    seeded as the first; without it, nothing about the cast is known."""
    out: dict[str, Any] = {}
    uncopiable: str | None = None
    for label, dtype, apply in CASTS:
        entry: dict[str, Any] = {"error": None, "attrs": {}, "outputs": None, "forward_error": None}
        out[label] = entry
        copied: torch.nn.Module | None = None
        if uncopiable is None:
            try:
                copied = copy.deepcopy(model)
            except BaseException as exc:
                uncopiable = f"the model cannot be copied to cast it: {format_exception(exc)}"
        if copied is None and build_fresh is not None:
            try:
                copied = build_fresh()
                entry["built_again"] = uncopiable
            except BaseException as exc:
                uncopiable = f"{uncopiable}; building it again raised {format_exception(exc)}"
                build_fresh = None
        if copied is None:
            entry["copy_error"] = uncopiable  # the copy, not the cast, failed: the cast was never applied
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Casting complex values to real ..." is what we look for
                apply(copied)
        except BaseException as exc:
            entry["error"] = f".{label} raised {format_exception(exc)}"
            continue
        for attr in attrs:
            tensor = tensor_at(copied, attr)
            entry["attrs"][attr] = None if tensor is None else {
                "dtype": str(tensor.dtype).replace("torch.", ""),
                "tensor": _portable(tensor),
            }
        if make is not None:
            try:
                entry["outputs"] = forward_leaves(copied, make, dtype)
            except BaseException as exc:
                entry["forward_error"] = format_exception(exc)
        del copied
    return out


# -- training ------------------------------------------------------------------------------


def training(model: torch.nn.Module, attrs: list[str], make: Callable[[], Inputs] | None) -> dict[str, Any]:
    """One backward pass in train() mode: gradients, and what an optimizer would be given."""
    # What `torch.optim.X(model.parameters())` receives: the deduplicated parameters, in
    # order (building a real optimizer costs seconds of one-time imports per worker).
    names = {id(p): n for n, p in model.named_parameters()}
    given = [names.get(id(p), "?") for p in model.parameters()]
    result: dict[str, Any] = {
        "status": "ok",
        "error": None,
        "optimizer": given,
        "grads": [],
        "attrs": {},
    }
    for attr in attrs:
        tensor = tensor_at(model, attr)
        result["attrs"][attr] = None if tensor is None else {
            "where": where(model, attr), "requires_grad": bool(tensor.requires_grad), "leaf": bool(tensor.is_leaf), "grad": None,
        }
    if make is None:
        result["status"] = "unchecked"
        result["error"] = "no inputs known"
        return result
    training_mode(model)
    model.zero_grad(set_to_none=True)
    for attr in attrs:
        tensor = tensor_at(model, attr)
        if tensor is not None and tensor.is_leaf and tensor.grad is not None:
            tensor.grad = None
    try:
        seed_all(1)
        args, kwargs = make()
        seed_all(FORWARD_SEED)
        leaves = [
            leaf
            for _, leaf in compare.flatten(model(*args, **kwargs))
            if isinstance(leaf, torch.Tensor) and leaf.requires_grad and (leaf.is_floating_point() or leaf.is_complex())
        ]
        if not leaves:
            result["status"], result["error"] = "unchecked", "no output of the forward requires grad"
            return result
        # fixed random weights: a plain sum of a softmax has a zero gradient
        generator = torch.Generator().manual_seed(7)
        loss = sum(
            ((leaf.real if leaf.is_complex() else leaf).double()
             * torch.randn(leaf.shape, generator=generator, dtype=torch.float64).to(leaf.device)).sum()
            for leaf in leaves
        )
        loss.backward()  # type: ignore[union-attr]
    except BaseException as exc:
        result["status"], result["error"] = "unchecked", format_exception(exc)
        return result
    finally:
        evaluation_mode(model)
    result["grads"] = [(n, _portable(p.grad)) for n, p in model.named_parameters()]
    for attr in attrs:
        tensor = tensor_at(model, attr)
        if tensor is not None and result["attrs"].get(attr) is not None and tensor.is_leaf:
            result["attrs"][attr]["grad"] = _portable(tensor.grad)
    return result


# -- meta-device materialisation -----------------------------------------------------------


def _sentinel_fill(tensor: torch.Tensor) -> None:
    if tensor.is_floating_point() or tensor.is_complex():
        tensor.fill_(float("nan"))
    elif tensor.dtype == torch.bool:
        tensor.fill_(True)
    else:
        tensor.fill_(-7)


def meta_init(build_on_meta: Callable[[], torch.nn.Module], attrs: list[str],
              reference: dict[str, torch.Tensor | None], checkpoint: dict[str, torch.Tensor]) -> dict[str, Any]:
    """Build on meta, ``to_empty()``, re-initialise, load the checkpoint: are the tensors right?

    Uninitialised memory is modelled by a fill (NaN, -7, True) so that a value that happens
    to be left in reused memory cannot pass for a re-created one.
    """
    try:
        with torch.device("meta"):
            model = build_on_meta()
    except BaseException as exc:
        return {"status": "unchecked", "error": f"building on the meta device raised {format_exception(exc)}"}
    try:
        model.to_empty(device="cpu")
        with torch.no_grad():
            for tensor in list(model.parameters()) + list(model.buffers()):
                _sentinel_fill(tensor)
            for module in model.modules():  # what loaders call to re-create what a checkpoint lacks
                reset = getattr(module, "reset_parameters", None)
                if callable(reset):
                    try:
                        reset()
                    except Exception:
                        pass
            init = getattr(model, "_init_weights", None)
            if callable(init):
                try:
                    model.apply(init)
                except Exception:
                    pass
        model.load_state_dict(checkpoint, strict=False)
    except BaseException as exc:
        return {"status": "unchecked", "error": f"materialising the meta model raised {format_exception(exc)}"}
    states = _reloaded_states(model, attrs, reference)
    return {"status": "ok", "error": None, "attrs": states}


def _reloaded_states(model: torch.nn.Module, attrs: list[str], reference: dict[str, torch.Tensor | None]) -> dict[str, str]:
    """Each rewritten tensor of a model built again (meta materialisation, from_pretrained):
    ok (the reference values), meta, uninitialised (other values) or missing."""
    states: dict[str, str] = {}
    for attr in attrs:
        tensor = tensor_at(model, attr)
        expected = reference.get(attr)
        if tensor is None or expected is None:
            states[attr] = "missing"
        elif tensor.device.type == "meta":
            states[attr] = "meta"
        elif compare.exact_difference(expected, tensor.detach().cpu()) is None:
            states[attr] = "ok"
        else:
            states[attr] = "uninitialised"
    return states


# -- transformers ----------------------------------------------------------------------------


def is_pretrained_model(cls: type) -> bool:
    return any(
        base.__name__ == "PreTrainedModel" and base.__module__.startswith("transformers")
        for base in getattr(cls, "__mro__", ())
    )


def pretrained_round_trip(model: torch.nn.Module, attrs: list[str], reference: dict[str, torch.Tensor | None],
                          make: Callable[[], Inputs] | None) -> dict[str, Any]:
    """save_pretrained / from_pretrained in a temporary directory; no network."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        with tempfile.TemporaryDirectory(prefix="codemod-pretrained-") as directory:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.save_pretrained(directory)  # type: ignore[operator]
                loaded = type(model).from_pretrained(directory)  # type: ignore[attr-defined]
    except BaseException as exc:
        return {"status": "unchecked", "error": f"save_pretrained/from_pretrained raised {format_exception(exc)}"}
    evaluation_mode(loaded)
    states = _reloaded_states(loaded, attrs, reference)
    result: dict[str, Any] = {"status": "ok", "error": None, "attrs": states, "outputs": None, "forward_error": None}
    if make is not None:
        try:
            result["outputs"] = forward_leaves(loaded, make)
        except BaseException as exc:
            result["forward_error"] = format_exception(exc)
    return result


# -- which rewritten tensors a forward reads -----------------------------------------------------


class ForwardReads:
    """The rewritten attributes a forward reads (rewritten side).

    A buffer or parameter is not in its module's ``__dict__``: every read goes through
    ``nn.Module.__getattr__``, which is wrapped while the block runs; reads count only while
    ``model``'s own forward runs (hooks on it), not the checks' own reads.  A read counts when
    it names the attribute on its module, or returns the very tensor the attribute holds (a
    submodule given it at construction).  A forward that compared outputs without reading a
    rewritten tensor (another branch of forward) proves nothing about it.
    """

    def __init__(self, model: torch.nn.Module, attrs: list[str], into: set[str]) -> None:
        self.model = model
        self.running = 0  # inside the model's forward
        self.hooks: list[Any] = []
        self.read = into
        self.by_owner: dict[tuple[int, str], str] = {}
        self.by_tensor: dict[int, str] = {}
        for attr in attrs:
            owner_path, _, name = attr.rpartition(".")
            try:
                owner = model.get_submodule(owner_path) if owner_path else model
            except AttributeError:
                continue
            self.by_owner[(id(owner), name)] = attr
            tensor = tensor_at(model, attr)
            if tensor is not None:
                self.by_tensor[id(tensor)] = attr
        self._original: Any = None
        self._call: tuple[type, Any] | None = None  # (class, its own __call__) while wrapped

    def __enter__(self) -> ForwardReads:
        original = self._original = torch.nn.Module.__getattr__
        tracker = self

        def __getattr__(module: torch.nn.Module, name: str) -> Any:
            value = original(module, name)
            if not tracker.running:
                return value
            attr = tracker.by_owner.get((id(module), name))
            if attr is None and isinstance(value, torch.Tensor):
                attr = tracker.by_tensor.get(id(value))
            if attr is not None:
                tracker.read.add(attr)
            return value

        def enter(*_: Any) -> None:
            tracker.running += 1

        def leave(*_: Any) -> None:
            tracker.running = max(0, tracker.running - 1)

        if type(self.model).__call__ is not torch.nn.Module.__call__:
            # a class that overrides __call__ (a GAN loss's `__call__(input, target_is_real)`)
            # runs no forward hooks: its __call__ is wrapped while the block runs, so that
            # what the checks themselves read around the call does not count
            cls, call = type(self.model), type(self.model).__call__
            self._call = (cls, cls.__dict__.get("__call__"))

            def counted_call(module: Any, *args: Any, **kwargs: Any) -> Any:
                if module is not tracker.model:
                    return call(module, *args, **kwargs)
                enter()
                try:
                    return call(module, *args, **kwargs)
                finally:
                    leave()

            cls.__call__ = counted_call  # type: ignore[method-assign]
        else:
            self.hooks = [self.model.register_forward_pre_hook(enter),
                          self.model.register_forward_hook(leave, always_call=True)]
        torch.nn.Module.__getattr__ = __getattr__  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        torch.nn.Module.__getattr__ = self._original  # type: ignore[method-assign]
        for hook in self.hooks:
            hook.remove()
        if self._call is not None:
            cls, own = self._call
            if own is None:
                del cls.__call__  # inherited: the base's is found again
            else:
                cls.__call__ = own  # type: ignore[method-assign]
            self._call = None


class PlainReads(ForwardReads):
    """The raw attributes to be rewritten that a forward reads (original side).

    A plain attribute lives in its module's ``__dict__``, which Python reads without a hook:
    while the block runs, each is moved out of it (unless its class has an attribute of the
    same name, which the move would expose), so that a read reaches ``nn.Module.__getattr__``,
    which returns the value and notes the read.  What forward binds again stays; the rest is
    put back when the block ends."""

    def __enter__(self) -> PlainReads:
        self.stash: dict[tuple[int, str], tuple[torch.nn.Module, Any]] = {}
        modules = {id(m): m for m in self.model.modules()}
        for owner_id, name in self.by_owner:
            owner = modules.get(owner_id)
            if owner is not None and name in owner.__dict__ and not hasattr(type(owner), name):
                self.stash[(owner_id, name)] = (owner, owner.__dict__.pop(name))
        super().__enter__()
        wrapped, tracker = torch.nn.Module.__getattr__, self

        def __getattr__(module: torch.nn.Module, name: str) -> Any:
            kept = tracker.stash.get((id(module), name))
            if kept is None or name in module.__dict__:
                return wrapped(module, name)
            if tracker.running:
                tracker.read.add(tracker.by_owner[(id(module), name)])
            return kept[1]

        torch.nn.Module.__getattr__ = __getattr__  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        for (_, name), (owner, value) in self.stash.items():
            bound_again = name in owner.__dict__ or name in owner._buffers or name in owner._parameters or name in owner._modules
            if not bound_again:
                owner.__dict__[name] = value


# -- coverage of the rewritten statements ------------------------------------------------------


class LineCoverage:
    """Lines executed in some files while the block runs (``lines``: the first file's;
    ``ran(file)``: any file's).  The block may be entered again: lines accumulate.

    Python 3.12+ uses ``sys.monitoring`` (each other code location is disabled after its
    first event, so the cost is paid once per location); 3.11 uses ``sys.settrace`` with
    a local tracer only in frames of those files.
    """

    def __init__(self, filename: str, *others: str) -> None:
        self.files = {os.path.normcase(os.path.realpath(f)): set() for f in (filename, *others)}  # type: ignore[var-annotated]
        self.lines: set[int] = self.files[os.path.normcase(os.path.realpath(filename))]
        self._known: dict[str, set[int] | None] = {}
        self._tool: int | None = None

    def _ours(self, filename: str) -> set[int] | None:
        """The set of lines ``filename`` adds to, None for a file not traced."""
        if filename not in self._known:
            self._known[filename] = self.files.get(os.path.normcase(os.path.realpath(filename)))
        return self._known[filename]

    def ran(self, filename: str) -> set[int]:
        return self._ours(filename) or set()

    def __enter__(self) -> LineCoverage:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            for tool in (monitoring.COVERAGE_ID, 4, 3, 2):
                try:
                    monitoring.use_tool_id(tool, "codemod-validate")
                except ValueError:
                    continue
                self._tool = tool
                break
        if self._tool is not None:
            monitoring = sys.monitoring  # type: ignore[attr-defined]

            def on_line(code, line):
                lines = self._ours(code.co_filename)
                if lines is not None:
                    lines.add(line)
                return monitoring.DISABLE

            monitoring.register_callback(self._tool, monitoring.events.LINE, on_line)
            monitoring.set_events(self._tool, monitoring.events.LINE)
            monitoring.restart_events()
            return self
        if not _TRACING:
            _TRACING.append(sys.gettrace())  # the tracer to give back when the last one ends
            sys.settrace(_dispatch)
        _TRACING.append(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._tool is not None:
            monitoring = sys.monitoring  # type: ignore[attr-defined]
            monitoring.set_events(self._tool, 0)
            monitoring.register_callback(self._tool, monitoring.events.LINE, None)
            monitoring.free_tool_id(self._tool)
            self._tool = None
            return
        if self in _TRACING:
            _TRACING.remove(self)
        if len(_TRACING) == 1:
            sys.settrace(_TRACING.pop())


# Under sys.settrace there is one tracer: the previous tracer, then the coverages now running
# (one started inside another, `read_sites` while a build is traced, both see every line).
_TRACING: list[Any] = []


def _dispatch(frame: Any, event: str, arg: Any) -> Any:
    if event != "call":
        return None
    filename = frame.f_code.co_filename
    targets = [lines for coverage in _TRACING[1:] if (lines := coverage._ours(filename)) is not None]
    if not targets:
        return None
    for lines in targets:
        lines.add(frame.f_lineno)

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            for lines in targets:
                lines.add(frame.f_lineno)
        return local

    return local


def not_run(lines: set[int], spans: list[list[int]]) -> list[int]:
    """The first lines of the statements in ``spans`` of which no line ran."""
    return [start for start, end in spans if not any(n in lines for n in range(start, end + 1))]


def unread_sites(coverage: LineCoverage, after_move: LineCoverage,
                 sites: dict[str, list[tuple[str, int, int, str, bool]]]) -> dict[str, list[list[Any]]]:
    """``{attr: [[method, first line], ...]}``: the read sites (reads.read_sites) of which no
    line ran while ``coverage`` traced, nor, for a site a test of devices guards, while
    ``after_move`` traced (the forward after the device move)."""
    out: dict[str, list[list[Any]]] = {}
    for attr, found in sites.items():
        for filename, first, last, method, guarded in found:
            ran = [trace.ran(filename) for trace in ((coverage, after_move) if guarded else (coverage,))]
            if not any(n in lines for lines in ran for n in range(first, last + 1)):
                out.setdefault(attr, []).append([method, first])
    return out
