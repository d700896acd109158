"""How a worker builds a class and finds its forward inputs.

Sources, in order: the examples file, a record made by ``codemod record``,
a constructor that needs no arguments, the arguments a parent passes when
it is built (see hooks.py), then made-up arguments (see synth.py).  A class
none of them can build gets a snippet for the examples file instead.

The original side picks the source; ``Source.spec`` (plain JSON data) lets the
rewritten side rebuild exactly the same way.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import io
import os
import pickle
import random
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import torch

from codemod import examples as examples_api
from codemod.validate import cuda_standin, own_folder, sources

Inputs = tuple[tuple[Any, ...], dict[str, Any]]

FORWARD_SEED = 2  # seeded right before every forward, on both sides
PREPARE_SEED = 3  # seeded right before a method that fills empty slots (Source.prepare), on both sides


_EVERY_DEVICE = [False]  # seed the accelerators' generators too (validating on CUDA)


def seed_every_device(on: bool) -> None:
    _EVERY_DEVICE[0] = on


def seed_all(seed: int) -> None:
    if _EVERY_DEVICE[0]:
        torch.manual_seed(seed)
    else:
        # the CPU generator alone: torch.manual_seed also queues the seed for every accelerator
        # torch could initialise later, formatting a stack trace for each (a few ms per call)
        torch.default_generator.manual_seed(seed)
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy.random.seed(seed)
        except Exception:
            pass


class NotBuildable(Exception):
    """No source knows how to build the class."""

    def __init__(self, message: str, snippet: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.snippet = snippet


@dataclass
class Source:
    kind: str  # "example" | "record" | "default" | "usage" | "parent" | "synth" | "variant"
    detail: str  # where the arguments come from, for the report
    construct: Callable[[type], Any]  # builds the class; seeds right before the constructor
    make_inputs: Callable[[], Inputs] | None
    notes: list[str] = field(default_factory=list)
    spec: dict[str, Any] = field(default_factory=dict)  # JSON: how the other side rebuilds it
    inputs_spec: dict[str, Any] | None = None  # synthesized inputs (synth.make_inputs), JSON
    # fresh copies of the constructor arguments, when the source has them (not a factory):
    # other builds of the class start from them (variants)
    arguments: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]] | None = None
    # inputs the repository's own code passes (calls.py), tried before made-up ones
    known_inputs: list[dict[str, Any]] = field(default_factory=list)
    # made-up inputs the choice of this build already saw run (_repairs_forward_asks_for),
    # tried first among the made-up ones, so that the build's own probe does not repeat it
    made_up_inputs: dict[str, Any] | None = None
    # the method run as the forward of this build (reads.reader_methods), None for forward itself
    method: str | None = None
    # a method that fills empty slots, called once right after each build with made-up inputs
    # (reads.setter_methods), JSON: {"method": name, "inputs": synth spec}; None for none
    prepare: dict[str, Any] | None = None
    # the floating dtype the repository casts the class to where it builds it (`Net(3).double()`):
    # the model is cast to it after each build, and its inputs follow it
    dtype: str | None = None

    @property
    def label(self) -> dict[str, Any]:
        """How the other side asks for the same build: {"kind": ..., "spec": ...}."""
        return {"kind": self.kind, "spec": self.spec}


def _constructor(arguments: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]) -> Callable[[type], Any]:
    def construct(cls: type) -> Any:
        args, kwargs = arguments()
        seed_all(0)
        return cls(*args, **kwargs)

    return construct


class Context:
    """What a worker knows beyond one request: how to import, where parents come from."""

    def __init__(self, importer: Callable[[str], Any], roots: list[str], parents: Any = None) -> None:
        self.importer = importer  # dotted "module.QualName" -> class
        self.roots = roots
        self.parents = parents  # parents.Parents, or None (no parent search)
        self.synthesize = True  # try made-up arguments (synth.py)
        # the class's calls in the repository's own code, read statically by the tool (calls.py)
        self.usages: list[dict[str, Any]] = []
        # the attributes the rewrite registers: a made-up number one of them keeps is made a tensor
        self.rewritten: list[str] = []


class ExamplesFile:
    """The user's examples file, imported once per worker on first use."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.loaded = False
        self.error: str | None = None
        self.entries: dict[str, examples_api.Example] = {}

    def load(self) -> None:
        if self.loaded or not self.path:
            self.loaded = True
            return
        self.loaded = True
        examples_api.clear()
        seed_all(0)
        try:
            spec = importlib.util.spec_from_file_location("codemod_examples", self.path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules["codemod_examples"] = module
            spec.loader.exec_module(module)
        except BaseException as exc:  # SystemExit included: the file is user code
            self.error = f"{Path(self.path).name} raised {format_exception(exc)}"
        self.entries = examples_api.registered()


def format_exception(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit (sys.exit({exc.code!r}))"
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    where = _user_frame(exc)
    return f"{type(exc).__name__}: {first}" + (f" [{where}]" if where else "")


def _user_frame(exc: BaseException) -> str:
    last = None
    for frame, line in traceback.walk_tb(exc.__traceback__):
        filename = frame.f_code.co_filename
        if "/codemod/validate/" not in filename.replace("\\", "/") and "site-packages" not in filename:
            last = f"{_shown(filename)}:{line}"
    return last or ""


def _shown(filename: str) -> str:
    """A file as the tool's report shows paths: relative to the directory the user ran the
    tool from (the parent passes it; the worker itself runs in the project root) when inside it."""
    base = os.environ.get("CODEMOD_DISPLAY_CWD")
    if not base:
        return filename
    try:
        relative = os.path.relpath(filename, base)
    except ValueError:  # another drive
        return filename
    return filename if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def load_record(path: str) -> dict[str, Any]:
    with open(path, "rb") as handle:
        return pickle.load(handle)


def _unblob(blob: bytes) -> Any:
    return torch.load(io.BytesIO(blob), map_location="cpu", weights_only=False)


def _deepcopy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def resolve_source(
    cls: type,
    target: str,
    examples: ExamplesFile,
    record_path: str | None,
    kind: str | None = None,
    spec: dict[str, Any] | None = None,
    context: Context | None = None,
    defaults_raised: str | None = None,
) -> Source:
    """The way to build ``cls``; ``kind`` and ``spec`` force the source the other side used.
    ``defaults_raised``: what building with the class's own defaults raised (`width=None` that
    the constructor takes the length of): the repository's calls and made-up values for every
    parameter defaulting to None are tried instead."""
    notes: list[str] = []
    if kind in (None, "example"):
        examples.load()
        entry = examples.entries.get(target)
        if entry is not None:
            return _from_example(entry, examples.path or "")
        if kind == "example":
            reason = examples.error or f"no example for {target} in {examples.path}"
            raise NotBuildable(f"the rewritten side could not use the example: {reason}", None)
        if examples.error:
            notes.append(f"examples file not used: {examples.error}")
    if kind in (None, "record") and record_path:
        try:
            return _from_record(load_record(record_path), record_path, notes)
        except NotBuildable as exc:
            if kind == "record":
                raise
            notes.append(exc.message)
        except Exception as exc:
            if kind == "record":
                raise NotBuildable(f"the record could not be loaded: {format_exception(exc)}", None) from exc
            notes.append(f"the record could not be loaded: {format_exception(exc)}")
    if kind == "variant":
        return _variant(cls, target, examples, record_path, dict(spec or {}), context)
    missing = required_parameters(cls)
    base = forwarded_base(cls) if not missing else None
    if base is not None:
        # `def __init__(self, *args, **kwargs)` handing everything to an nn layer: no argument
        # is required by its own signature, but the layer's are. Calling it with none is the
        # tool's guess, not the repository's default: when it raises, other sources are tried.
        missing = required_parameters(base)
        default = Source("default", "built with no constructor arguments", _default, None, notes,
                         arguments=lambda: ((), {}))
        if kind == "default":
            return default
        if kind is None:
            try:
                build(cls, default)
            except Exception as exc:
                notes = notes + [f"{cls.__qualname__}() forwards *args, **kwargs to {base.__module__}."
                                 f"{base.__qualname__}, and with no arguments it raised {format_exception(exc)}"]
            else:
                return default
    elif kind in (None, "default") and not missing and defaults_raised is None:
        return Source("default", "built with no constructor arguments", _default, None, notes,
                      arguments=lambda: ((), {}))
    usages = context.usages if context is not None else []
    if kind == "usage":
        index = int((spec or {}).get("index", -1))
        if not 0 <= index < len(usages):
            raise NotBuildable("the call of the class the original side used is not known here", None)
        return _from_usage(usages[index], index, context, notes)
    usage_notes: list[str] = []

    def first_usage_that_builds(in_code: bool) -> Source | None:
        for index, usage in enumerate(usages):
            if bool(usage.get("in_code")) != in_code:
                continue
            source = _from_usage(usage, index, context, notes)
            try:
                build(cls, source)
            except Exception as exc:
                usage_notes.append(f"(the call at {usage.get('where')}) raised {format_exception(exc)}")
                continue
            return source
        return None

    if kind is None:
        # the calls of a main block, a test or a docstring, which show how the class is used
        found = first_usage_that_builds(in_code=False)
        if found is not None:
            return found
    if kind == "parent" or (kind is None and context is not None and context.parents is not None):
        parent_spec = spec if kind == "parent" else context.parents.find(target)  # type: ignore[union-attr]
        if parent_spec is not None:
            assert context is not None
            return _from_parent(target, parent_spec, examples, context, notes)
        if kind == "parent":
            raise NotBuildable("no parent spec", None)
    if kind is None:
        # a call in the repository's own code: its arguments, after a parent module's build
        # (which also hands the parent's forward inputs on)
        found = first_usage_that_builds(in_code=True)
        if found is not None:
            return found
    synth_notes: list[str] = []
    if kind == "synth" or (kind is None and (context is None or context.synthesize)):
        from codemod.validate import synth

        none_defaults = bool((spec or {}).get("none_defaults")) if kind == "synth" else defaults_raised is not None
        candidates = synth.argument_candidates(cls, none_defaults=none_defaults)
        if kind == "synth":
            index = int((spec or {}).get("candidate", 0))
            repairs = list((spec or {}).get("repairs") or [])
            try:
                chosen = synth.repaired(candidates[index], repairs)
            except (IndexError, KeyError, synth.Unsynthesizable):
                raise NotBuildable("the made-up arguments of the original side cannot be made here", None) from None
            return _from_candidate(chosen, index, notes, none_defaults, repairs)
        for index, candidate in enumerate(candidates):
            try:
                repairs = _repairs_that_build(cls, candidate, context.rewritten if context is not None else [])
            except Exception as exc:
                note = f"({candidate.description}) raised {format_exception(exc)}"
                last = getattr(exc, "codemod_last_attempt", None)
                if last is not None:
                    note += f"; made again as the errors asked, the last ({last[0]}) raised {format_exception(last[1])}"
                synth_notes.append(note)
                continue
            ran = None
            try:
                repairs, ran = _repairs_forward_asks_for(cls, candidate, repairs, context)
            except Exception:
                pass  # the build the first repairs give stands: these only look for a better one
            source = _from_candidate(synth.repaired(candidate, repairs), index, notes, none_defaults, repairs)
            source.made_up_inputs = ran
            return source
    if kind in (None, "default"):
        if defaults_raised is not None and not missing:
            message = f"{target}() with its default arguments raised {defaults_raised}"
        else:
            message = f"{target}() needs constructor arguments ({', '.join(missing)})"
        if usage_notes:
            message += "; the repository's own calls did not build it: " + usage_notes[0]
        if synth_notes:
            message += "; made-up arguments did not build it: " + synth_notes[0]
        if examples.error:
            message += f"; {examples.error}"
        elif notes:
            message += "; " + "; ".join(notes)
        raise NotBuildable(message + ": add an example", snippet(cls, target))
    raise NotBuildable(f"unknown source {kind!r}", None)


def _repairs_that_build(cls: type, candidate: Any, rewritten: list[str] = ()) -> list[dict[str, Any]]:
    """The repairs of ``candidate`` that build ``cls`` ([] when it builds as made up), found
    breadth first from what each failed build raised (synth.argument_repairs), at most
    MAX_REPAIRS builds past the first; raises the first build's error when none builds.

    A build whose ``rewritten`` attribute keeps a made-up number as it was handed
    (`self.weights = weights`, which the repository's calls hand a tensor) is made again with
    that argument a tensor, where one builds: the rewritten buffer refuses a number, and the
    number proves nothing about a tensor."""
    from codemod.validate import synth

    repairs, model = _repairs_that_build_at_all(cls, candidate)
    repairs, model = _tensor_items_where_kept(cls, candidate, repairs, model, rewritten)
    held = _numbers_kept(model, synth.repaired(candidate, repairs), rewritten, cls)
    del model
    # every such argument made a tensor of the same option at once first (`len(which) ==
    # len(on)` holds), then each on its own, keeping what builds
    joint = [[{"tensor": [name, option]} for name in held] for option in range(len(synth.argument_tensors()))]
    for name in held:
        joint += [[{"tensor": [name, option]}] for option in range(len(synth.argument_tensors(name)))]
    wanted = {attr for attrs in held.values() for attr in attrs}
    best: tuple[int, list[dict[str, Any]]] = (0, repairs)
    for added in joint if held else []:
        tried = repairs + added
        try:
            model = _synth_build(cls, synth.repaired(candidate, tried))
        except Exception:
            continue
        tensors = sum(isinstance(getattr(model, attr, None), torch.Tensor) for attr in wanted)
        if tensors == len(wanted):
            return tried
        if tensors > best[0]:
            best = (tensors, tried)
    return best[1]


# Repairs of the made-up arguments tried for a forward that raised with every input
# (_repairs_forward_asks_for): builds, at most.
MAX_FORWARD_REPAIRS = 4


def _repairs_forward_asks_for(cls: type, candidate: Any, repairs: list[dict[str, Any]],
                              context: Context | None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """(``repairs``, and one more where the built model's forward raises with every input and
    its error blames a made-up argument the model holds (synth.argument_repairs, as for a
    build's error): `x * self.table[0]` of a made-up number. The repair is kept only where a
    forward then runs; the other side applies it too. Where a forward runs but gives only NaN,
    _valued_instead_of_sizes looks for arguments that give values.) The second item: the
    made-up inputs the build so chosen ran on, if any."""
    from codemod.validate import probe, synth

    known = [u["inputs"] for u in (context.usages if context is not None else []) if u.get("inputs")]
    importer = context.importer if context is not None else None
    current = synth.repaired(candidate, repairs)
    found = probe.first_inputs(_synth_build(cls, current), known, importer)
    made_up = found.inputs if found.inputs is not None and not found.known else None
    if found.inputs is not None and found.valueless:
        return _valued_instead_of_sizes(cls, candidate, repairs, known, importer), None
    if found.inputs is not None or not found.failures:
        return repairs, made_up

    def repaired_once() -> Iterator[list[dict[str, Any]]]:
        seen: list[dict[str, Any]] = []
        for _, error in found.failures:
            if not synth.blamed_names(error, list(current.kwargs)):
                continue  # the error is about the inputs, or about nothing the arguments made
            for repair in synth.argument_repairs(current, error, cls):
                if repair not in seen and len(seen) < MAX_FORWARD_REPAIRS:
                    seen.append(repair)
                    yield [*repairs, repair]

    tried, again = _first_that_runs(cls, candidate, repaired_once(), known, importer, with_values=False)
    if tried is None or again is None:
        return repairs, None
    return tried, again.inputs if not again.known else None


def _valued_instead_of_sizes(cls: type, candidate: Any, repairs: list[dict[str, Any]], known: list[dict[str, Any]],
                             importer: Any) -> list[dict[str, Any]]:
    """``repairs`` with a made-up number that became a size (`torch.Tensor(lb)` of `lb=8`:
    uninitialised memory, whose NaN runs through the whole forward) made a tensor of values
    instead, where the class then builds and a forward gives values; else ``repairs``."""
    from codemod.validate import synth

    sizes = [k for k, repair in enumerate(repairs) if "int" in repair]
    # all of them at once, each with values of its own (bounds `lb`, `ub` that are equal give
    # `(x - lb) / (ub - lb)` of NaN again), then each alone as the tensors a build's error gets
    tries = [[{"values": r["int"]} if k in sizes else r for k, r in enumerate(repairs)]] if sizes else []
    for k in sizes:
        name = repairs[k]["int"]
        tries += [[*repairs[:k], {"tensor": [name, option]}, *repairs[k + 1:]]
                  for option in range(len(synth.argument_tensors(name)))]
    tried, _ = _first_that_runs(cls, candidate, tries, known, importer, with_values=True)
    return repairs if tried is None else tried


def _first_that_runs(cls: type, candidate: Any, tries: Iterable[list[dict[str, Any]]], known: list[dict[str, Any]],
                     importer: Any, with_values: bool) -> tuple[list[dict[str, Any]] | None, Any]:
    """(the first of ``tries``, each a whole list of repairs of ``candidate``, with which the
    class builds and a forward runs, giving values where ``with_values``; that forward's
    probe.Probe), or (None, None)."""
    from codemod.validate import probe, synth

    for tried in tries:
        synth.forget_mapping_reads()
        try:
            model = _synth_build(cls, synth.repaired(candidate, tried))
        except Exception:
            continue
        found = probe.first_inputs(model, known, importer)
        if found.inputs is not None and not (with_values and found.valueless):
            return tried, found
    return None, None


def _tensor_items_where_kept(cls: type, candidate: Any, repairs: list[dict[str, Any]], model: Any,
                             rewritten: list[str]) -> tuple[list[dict[str, Any]], Any]:
    """``(repairs, model)``, with a made-up tuple of sizes (`bounds=(8, 8)`, synth's "items"
    repair) made a tuple of 0-dim tensors where a rewritten attribute holds one of its numbers
    (`self.lo, self.hi = bounds`) and the tensors build too: the rewritten buffer refuses a
    number, and the number proves nothing about a tensor."""
    from codemod.validate import synth

    if not any("items" in r and int(r["items"][2]) == 0 for r in repairs):
        return repairs, model
    if not any(type(model.__dict__.get(attr)) in (int, float) for attr in rewritten):
        return repairs, model
    tensors = [{"items": [*r["items"][:2], 1]} if "items" in r else r for r in repairs]
    try:
        return tensors, _synth_build(cls, synth.repaired(candidate, tensors))
    except Exception:
        return repairs, model


def _numbers_kept(model: Any, candidate: Any, rewritten: list[str], cls: type | None = None) -> dict[str, list[str]]:
    """Made-up keyword arguments that are numbers or lists, with the rewritten attributes of ``model``
    (built from ``candidate``) that keep them as handed: the same object, or, for the small
    ints Python keeps one of, an equal one where the constructor reads `self.attr = name`."""
    from codemod.validate import synth

    # numbers, and the lists a made-up sequence is (`which=[8, 8, 8]`, indices a caller hands as a tensor)
    numbers = {name: value for name, value in candidate.kwargs.items() if type(value) in (int, float, list, tuple)}
    if not rewritten or not numbers:
        return {}
    tree = synth._init_tree(cls) if cls is not None else None
    kept: dict[str, list[str]] = {}
    for attr in rewritten:
        held = model.__dict__.get(attr)
        for name, value in numbers.items():
            # the same object: a float made up here, or an int past those Python keeps one of
            same = held is value and (type(value) in (float, list, tuple) or value not in range(-5, 257))
            if not same and tree is not None and type(held) is type(value) and held == value:
                same = attr in synth._kept_as(tree, name)
            if same:
                kept.setdefault(name, []).append(attr)
    return kept


def _repairs_that_build_at_all(cls: type, candidate: Any) -> tuple[list[dict[str, Any]], Any]:
    """(the repairs that build ``cls``, the model they built)."""
    from codemod.validate import synth

    frontier: list[list[dict[str, Any]]] = [[]]
    first: Exception | None = None
    deepest: tuple[int, str, Exception] | None = None  # the attempt the most repairs got to
    builds = 0
    while frontier and builds <= synth.MAX_REPAIRS:
        repairs = frontier.pop(0)
        current = synth.repaired(candidate, repairs)
        synth.forget_mapping_reads()
        builds += 1
        try:
            model = _synth_build(cls, current)
        except Exception as exc:
            first = first or exc
            if repairs and (deepest is None or len(repairs) > deepest[0]):
                deepest = (len(repairs), current.description, exc)
            if len(repairs) < synth.MAX_REPAIRS:
                found = [repairs + [repair] for repair in synth.argument_repairs(current, exc, cls)]
                # An error that names an argument on its line (`torch.unique(user_indices)`) is
                # followed first: the next may name another (`torch.unique(item_indices)`).
                blamed = synth.blamed_names(exc, list(current.kwargs))
                frontier = found + frontier if blamed else frontier + found
            continue
        return repairs, model
    assert first is not None
    if deepest is not None:
        # what stopped the build last, where the user's fix is more likely needed (a name the
        # installed numpy removed, after the made-up lengths were mended)
        first.codemod_last_attempt = (deepest[1], deepest[2])  # type: ignore[attr-defined]
    raise first


def _synth_build(cls: type, candidate: Any) -> Any:
    def construct() -> Any:
        args, kwargs = _deepcopy(candidate.args), _deepcopy(candidate.kwargs)
        seed_all(0)
        return cls(*args, **kwargs)

    model = _without_gpu(construct)
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"built a {type(model).__name__}")
    return model


def _without_gpu(construct: Callable[[], Any]) -> Any:
    """``construct()``; where it fails for want of CUDA (a factory given device="cuda"), or
    leaves a tensor on the GPU, again with the factories' CPU stand-in (cuda_standin), which
    both sides then use; where it fails for want of a file named relative to the module's own
    folder, again from that folder (own_folder)."""
    try:
        return _on_cpu(construct)
    except Exception as exc:
        again = own_folder.retried(lambda: _on_cpu(construct), exc)
        if again is None:
            raise
        return again[0]


def _on_cpu(construct: Callable[[], Any]) -> Any:
    try:
        model = construct()
    except Exception as exc:
        if not (cuda_standin.needs_cuda(exc) and cuda_standin.install_factories()):
            raise
        return construct()
    # where there is a GPU the factory did not fail: its tensor is there, not on the CPU
    if cuda_standin.holds_cuda_tensors(model) and cuda_standin.install_factories():
        del model
        return construct()
    return model


def _from_candidate(candidate: Any, index: int, notes: list[str], none_defaults: bool = False,
                    repairs: list[dict[str, Any]] | None = None) -> Source:
    def arguments() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return _deepcopy(candidate.args), _deepcopy(candidate.kwargs)

    detail = f"built with made-up arguments ({candidate.description})"
    spec: dict[str, Any] = {"candidate": index}
    if none_defaults:
        spec["none_defaults"] = True  # the candidates also give the parameters that default to None
    if repairs:
        spec["repairs"] = repairs  # what the first builds raised asked for: the other side applies them too
    return Source("synth", detail, _constructor(arguments), None, notes, spec=spec, arguments=arguments)


def _from_usage(usage: dict[str, Any], index: int, context: Context | None, notes: list[str]) -> Source:
    """Build with the arguments of a call the repository itself makes (a ``__main__`` block, a
    docstring example, a test), read statically by the tool (calls.py) and rebuilt here."""
    from codemod.validate import synth

    importer = context.importer if context is not None else None

    def arguments() -> tuple[tuple[Any, ...], dict[str, Any]]:
        seed_all(0)
        args, kwargs = synth.make_inputs({"args": usage.get("args", []), "kwargs": usage.get("kwargs", {})},
                                         importer)
        return args, kwargs

    shown = synth.describe({"args": usage.get("args", []), "kwargs": usage.get("kwargs", {})})
    detail = f"built as {usage.get('where')} calls it ({shown})"
    dtype = usage.get("dtype") if usage.get("dtype") in _CASTS else None
    if dtype is not None:
        detail += f", then cast to torch.{dtype} as it is there"
    source = Source("usage", detail, _constructor(arguments), None, list(notes), spec={"index": index},
                    arguments=arguments, dtype=dtype)
    if usage.get("inputs"):
        source.known_inputs = [usage["inputs"]]
    return source


# -- other builds of the same class ------------------------------------------------------------

MAX_CHANGES = 8  # variants of the first build's arguments (a boolean flipped, a None default given a value,
# a zero that the constructor compares with 0 made positive)


def variant_sources(cls: type, target: str, primary: Source, examples: ExamplesFile, record_path: str | None,
                    context: Context | None) -> Iterator[Source]:
    """Other builds of ``cls``, most telling first: the first build's arguments with each boolean
    flipped (a parameter, or an attribute of a config object), each ``None`` default given
    a made-up value and each zero default the constructor compares with 0 made positive; then
    every other source that may build it (the record, the repository's
    own calls, the parent, made-up arguments).  Each is built only when the caller asks."""
    seen = {_key(primary.label)}
    if primary.arguments is not None:
        changes: list[dict[str, Any]] = [{"base": primary.label, "set": change} for change in _changes(cls, primary)]
        if cuda_standin.can_report_a_gpu() and _asks_for_a_gpu(cls):
            # `if torch.cuda.is_available(): self.nums = torch.ones(1).cuda() * nums`: the arm
            # a machine without a GPU never takes, taken with the stand-in, on the CPU
            changes.insert(0, {"base": primary.label, "set": [], "gpu": True})
        for spec in changes:
            if _key({"kind": "variant", "spec": spec}) in seen:
                continue
            seen.add(_key({"kind": "variant", "spec": spec}))
            try:
                yield _variant(cls, target, examples, record_path, spec, context)
            except NotBuildable:
                continue
    labels: list[dict[str, Any]] = []
    if record_path:
        labels.append({"kind": "record", "spec": {}})
    labels += [{"kind": "usage", "spec": {"index": i}} for i in range(len(context.usages if context else []))]
    if context is not None and context.parents is not None and context.parents.find(target) is not None:
        labels.append({"kind": "parent", "spec": context.parents.find(target)})
    if required_parameters(cls) and (context is None or context.synthesize):
        from codemod.validate import synth

        labels += [{"kind": "synth", "spec": {"candidate": i}} for i in range(len(synth.argument_candidates(cls)))]
    for label in labels:
        if _key(label) in seen:
            continue
        seen.add(_key(label))
        try:
            yield resolve_source(cls, target, examples, record_path, kind=label["kind"], spec=label["spec"],
                                 context=context)
        except (NotBuildable, Exception):
            continue


def _asks_for_a_gpu(cls: type) -> bool:
    """Whether the class's own source asks torch whether a GPU is there
    (`torch.cuda.is_available()`, `cuda.is_available()`), in its constructor or in a helper of
    the class it calls."""
    try:
        return "is_available(" in sources.original_source(cls)
    except (OSError, TypeError):
        return False


def _key(label: dict[str, Any]) -> str:
    import json

    return json.dumps(label, sort_keys=True, default=str)


def _changes(cls: type, primary: Source) -> list[list[list[Any]]]:
    """Each change of the first build's arguments: [[path, value spec]] with path [parameter] or
    [parameter, attribute of the config object handed in]."""
    from codemod.validate import synth

    try:
        signature = inspect.signature(cls)
        args, kwargs = primary.arguments()  # type: ignore[misc]
        bound = signature.bind_partial(*args, **kwargs)
    except Exception:
        return []
    changes: list[list[list[Any]]] = []
    hints = synth._hints(getattr(cls, "__init__", None))
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_KEYWORD:
            given = bound.arguments.get(parameter.name, {})
            for name, value in _keyword_flags(cls, parameter.name):
                if name not in given:  # `if "multi_channel" in kwargs:` takes its other arm
                    changes.append([[["**", name], {"op": "value", "value": value}]])
            continue
        if parameter.kind is parameter.VAR_POSITIONAL:
            continue
        value = bound.arguments.get(parameter.name, parameter.default)
        if isinstance(value, bool):
            changes.append([[[parameter.name], {"op": "value", "value": not value}]])
        elif value is None and parameter.default is None:
            if synth.parameter_values(cls, parameter, hints.get(parameter.name, parameter.annotation)):
                changes.append([[[parameter.name], {"op": "synth", "index": 0}]])
        elif _is_zero(value) and _is_zero(parameter.default) and parameter.name in _compared_with_zero(cls):
            # a size or a rate that is also a switch: `if gate_size > 0: self.gate_mask = ...`
            changes.append([[[parameter.name], {"op": "value", "value": 2 if isinstance(value, int) else 0.5}]])
        elif _config_object(value):
            for name, item in sorted(vars(value).items()):
                if isinstance(item, bool) and not name.startswith("_"):
                    changes.append([[[parameter.name, name], {"op": "value", "value": not item}]])
        if isinstance(value, str):
            for other in _compared_strings(cls, parameter.name):
                if other != value:
                    changes.append([[[parameter.name], {"op": "value", "value": other}]])
    return changes[:MAX_CHANGES]


def _is_zero(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0


def _compared_with_zero(cls: type) -> set[str]:
    """The names the constructor compares with 0 (``if gate_size > 0:``, ``if drop != 0``)."""
    tree = _parsed(cls.__dict__.get("__init__"))
    if tree is None:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and len(node.comparators) == 1:
            sides = (node.left, node.comparators[0])
            for one, other in (sides, sides[::-1]):
                if isinstance(one, ast.Name) and isinstance(other, ast.Constant) and _is_zero(other.value):
                    names.add(one.id)
    return names


def _keyword_flags(cls: type, kwargs_name: str) -> list[tuple[str, bool]]:
    """The flags a constructor reads from its ``**kwargs`` (``if "multi_channel" in kwargs:``,
    ``kwargs.get("bias", False)``), each with the value that takes the arm not taken when it
    is left out: True, or the opposite of the default ``get`` gives."""
    init = cls.__dict__.get("__init__")
    tree = _parsed(init)
    if tree is None:
        return []
    found: dict[str, bool] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In)
            and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
            and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == kwargs_name
        ):
            found.setdefault(node.left.value, True)
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == kwargs_name and len(node.args) == 2
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, bool)
        ):
            found[node.args[0].value] = not node.args[1].value
    return sorted(found.items())


def _parsed(function: Any) -> ast.Module | None:
    import textwrap

    try:
        return ast.parse(textwrap.dedent(sources.original_source(inspect.unwrap(function))))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None


def _compared_strings(cls: type, name: str) -> list[str]:
    """The strings the constructor compares a parameter with (``if kind == "hann": ... elif kind
    == "hamming": ... else: ...``, or ``self.kind`` after ``self.kind = kind``), then one that
    matches none of them (the ``else`` arm)."""
    import ast
    import textwrap

    init = cls.__dict__.get("__init__")
    try:
        tree = ast.parse(textwrap.dedent(sources.original_source(inspect.unwrap(init))))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return []
    # `self.kind = kind` then `if self.kind == "universal":`, in __init__ or in forward
    kept = {
        target.attr
        for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name
        for target in node.targets if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
    }
    trees = [tree]
    if kept:
        try:
            trees.append(ast.parse(textwrap.dedent(sources.original_source(cls))))
        except (OSError, TypeError, SyntaxError, IndentationError):
            pass

    def is_parameter(side: ast.expr, in_init: bool) -> bool:
        if isinstance(side, ast.Name):
            return in_init and side.id == name
        return isinstance(side, ast.Attribute) and isinstance(side.value, ast.Name) and side.attr in kept

    found: list[str] = []
    for number, searched in enumerate(trees):
        for node in ast.walk(searched):
            if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
                continue
            sides = [node.left, node.comparators[0]]
            if not any(is_parameter(side, number == 0) for side in sides):
                continue
            for side in sides:
                values = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                for item in values:
                    if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value not in found:
                        found.append(item.value)
    return found + ["none of these"] if found else []


def _config_object(value: Any) -> bool:
    if value is None or isinstance(value, (type, torch.Tensor, torch.nn.Module, str, bytes, int, float, list, tuple,
                                           dict, set)) or callable(value):
        return False
    try:
        return bool(vars(value))
    except TypeError:
        return False


def _variant(cls: type, target: str, examples: ExamplesFile, record_path: str | None, spec: dict[str, Any],
             context: Context | None) -> Source:
    """The build ``spec["base"]`` with the changes ``spec["set"]`` made to its arguments."""
    from codemod.validate import synth

    base_label = spec["base"]
    base = resolve_source(cls, target, examples, record_path, kind=base_label["kind"], spec=base_label.get("spec"),
                          context=context)
    if base.arguments is None:
        raise NotBuildable("the build this one changes has no arguments to change", None)
    signature = inspect.signature(cls)
    hints = synth._hints(getattr(cls, "__init__", None))
    importer = context.importer if context is not None else None

    def value_of(name: str, value_spec: dict[str, Any]) -> Any:
        if value_spec.get("op") == "synth":
            parameter = signature.parameters[name]
            values = synth.parameter_values(cls, parameter, hints.get(name, parameter.annotation))
            return _deepcopy(values[int(value_spec.get("index", 0))][0])
        return synth.make(value_spec, importer)

    def arguments() -> tuple[tuple[Any, ...], dict[str, Any]]:
        args, kwargs = base.arguments()  # type: ignore[misc]
        bound = signature.bind_partial(*args, **kwargs)
        extra: dict[str, Any] = {}
        for path, value_spec in spec["set"]:
            if path[0] == "**":  # a flag read from **kwargs (_keyword_flags)
                extra[path[1]] = synth.make(value_spec, importer)
                continue
            value = value_of(path[0], value_spec)
            if len(path) == 1:
                bound.arguments[path[0]] = value
                continue
            parameter = signature.parameters[path[0]]
            holder = copy.copy(bound.arguments.get(path[0], parameter.default))
            object.__setattr__(holder, path[1], value)  # a frozen dataclass too
            bound.arguments[path[0]] = holder
        return tuple(bound.args), {**bound.kwargs, **extra}

    def show(path: list[str], value_spec: dict[str, Any]) -> str:
        if value_spec.get("op") != "synth":
            return synth.describe_value(value_spec)
        parameter = signature.parameters[path[0]]
        values = synth.parameter_values(cls, parameter, hints.get(path[0], parameter.annotation))
        index = int(value_spec.get("index", 0))
        return values[index][1] if index < len(values) else "a made-up value"

    shown = ", ".join((path[1] if path[0] == "**" else ".".join(path)) + "=" + show(path, v) for path, v in spec["set"])
    construct = _constructor(arguments)
    if spec.get("gpu"):
        shown = "torch.cuda.is_available() answering True while it was built (no GPU here: its arm ran on the CPU)"
        plain = construct

        def construct(cls: type) -> Any:
            with cuda_standin.reporting_a_gpu():
                return plain(cls)

    source = Source("variant", f"{base.detail}, with {shown}", construct, base.make_inputs,
                    list(base.notes), spec=spec, arguments=arguments)
    source.known_inputs = list(base.known_inputs)
    source.inputs_spec = base.inputs_spec
    return source


def _from_parent(target: str, spec: dict[str, Any], examples: ExamplesFile, context: Context,
                 notes: list[str]) -> Source:
    """Build ``target`` with the arguments its parent passes when the parent is built."""
    from codemod.validate import hooks

    memo: dict[str, Any] = {}

    def captured() -> Any:
        if "value" not in memo:
            memo["value"] = capture_in_parent(spec, examples, context).get(target)
        if memo["value"] is None:
            raise NotBuildable(f"building {spec['parent']} no longer builds {target}", None)
        return memo["value"]

    def arguments() -> tuple[tuple[Any, ...], dict[str, Any]]:
        value = captured()
        return _deepcopy(value.args), _deepcopy(value.kwargs)

    make = None
    if spec.get("inputs"):
        def make() -> Inputs:
            value = captured()
            if value.inputs is None:
                raise NotBuildable(f"{spec['parent']} no longer calls {target}", None)
            args, kwargs = value.inputs
            return tuple(_deepcopy(hooks.detach_all(args))), dict(_deepcopy(hooks.detach_all(kwargs)))

    via = spec.get("detail", "")
    detail = f"built with the arguments {spec['parent']} passes to it ({via})"
    if spec.get("inputs"):
        detail += ", and the inputs its forward passes"
    return Source("parent", detail, _constructor(arguments), make, notes, spec=dict(spec), arguments=arguments)


def capture_in_parent(spec: dict[str, Any], examples: ExamplesFile, context: Context) -> dict[str, Any]:
    """Build (and run) the parent ``spec`` names; what each repository class got inside it."""
    from codemod.validate import hooks

    parent_cls = context.importer(spec["parent"])
    source = resolve_source(parent_cls, spec["parent"], examples, None, kind=spec["kind"], spec=spec.get("spec"))
    with hooks.Capture(context.roots, skip=parent_cls) as result:
        model = build(parent_cls, source)
        inputs = None
        if source.make_inputs is not None:
            inputs = make_inputs(source)
        elif spec.get("parent_inputs"):
            from codemod.validate import synth

            seed_all(1)
            inputs = synth.make_inputs(spec["parent_inputs"])
        if inputs is not None:
            try:
                with torch.no_grad():
                    seed_all(2)
                    model(*inputs[0], **inputs[1])
            except Exception:
                pass  # the submodules called before the failure still count
    del model
    return result.classes


def _from_example(entry: examples_api.Example, path: str) -> Source:
    where = entry.location or path
    make_inputs = entry.make_inputs if entry.has_inputs else None
    if entry.factory is not None:
        def construct(cls: type) -> Any:
            seed_all(0)
            return entry.factory()

        return Source("example", f"built from the example at {where}", construct, make_inputs)

    def arguments() -> tuple[tuple[Any, ...], dict[str, Any]]:
        # fresh copies: a constructor may mutate its config, and a worker builds many classes
        return _deepcopy(entry.args), _deepcopy(entry.kwargs)

    return Source("example", f"built from the example at {where}", _constructor(arguments), make_inputs,
                  arguments=arguments)


def _from_record(record: dict[str, Any], path: str, notes: list[str]) -> Source:
    notes = list(notes) + [str(n) for n in record.get("notes", [])]
    if record.get("args") is None:
        reason = "; ".join(record.get("notes") or ["constructor arguments were not recorded"])
        raise NotBuildable(f"the record has no constructor arguments ({reason})", None)
    blob_args: bytes = record["args"]
    blob_inputs: bytes | None = record.get("inputs")
    command = " ".join(record.get("command") or [])
    try:
        _unblob(blob_args)  # fail here, not as a constructor error, when recorded classes are gone
    except Exception as exc:
        raise NotBuildable(f"the recorded constructor arguments do not load: {format_exception(exc)}", None) from exc

    def arguments() -> tuple[tuple[Any, ...], dict[str, Any]]:
        args, kwargs = _unblob(blob_args)  # unpickled per build: fresh objects each time
        return tuple(args), dict(kwargs)

    make_inputs = None
    if blob_inputs is not None:
        def make_inputs() -> Inputs:
            args, kwargs = _unblob(blob_inputs)
            return tuple(args), dict(kwargs)

    detail = f"built from the record {Path(path).name}" + (f" (made by `{command}`)" if command else "")
    return Source("record", detail, _constructor(arguments), make_inputs, notes, arguments=arguments)


def _default(cls: type) -> Any:
    seed_all(0)
    return cls()


def build(cls: type, source: Source) -> Any:
    """Build the module after ``torch.manual_seed(0)`` and put it in eval mode."""
    model = _without_gpu(lambda: source.construct(cls))
    if not isinstance(model, torch.nn.Module):
        raise NotBuildable(f"the example built a {type(model).__name__}, not an nn.Module", None)
    if not isinstance(model, cls):
        raise NotBuildable(
            f"the example built a {type(model).__module__}.{type(model).__qualname__}, not {cls.__qualname__}", None
        )
    if source.dtype is not None:
        model.to(_CASTS[source.dtype])
        model.register_forward_pre_hook(_inputs_in_the_models_dtype, with_kwargs=True)
    evaluation_mode(model)
    if source.prepare is not None:
        fill_slots(model, source.prepare)
    return model


# The casts a repository's own build may apply (calls.py), float32 being no cast at all.
_CASTS = {"float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _inputs_in_the_models_dtype(model: torch.nn.Module, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Floating inputs cast to the dtype of the model's floating tensors at the time of the call,
    as the repository feeds a model it built in float64 (`torch.tensor(x).double()`), and after
    a cast check's `.half()` the half inputs that check makes."""
    dtype = next((t.dtype for t in (*model.parameters(), *model.buffers()) if t.is_floating_point()), None)
    return cast_inputs((args, kwargs), dtype)


def cast_inputs(inputs: Inputs, dtype: torch.dtype | None) -> Inputs:
    """The inputs with their floating tensors, in plain nested containers, cast to ``dtype``."""
    if dtype is None:
        return inputs

    def cast(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.to(dtype) if value.is_floating_point() else value
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*(cast(v) for v in value))
        if isinstance(value, (list, tuple)):
            return type(value)(cast(v) for v in value)
        if isinstance(value, dict):
            return {k: cast(v) for k, v in value.items()}
        return value

    args, kwargs = inputs
    return cast(args), cast(kwargs)


def fill_slots(model: torch.nn.Module, prepare: dict[str, Any]) -> None:
    """Call the method ``prepare`` names with its made-up inputs, as the repository's own code
    calls a setter before using the module (`ode_func.set_condition(source, target)`): the
    empty slots it fills are then checked as any tensor the constructor binds. Seeded, and
    without autograd (a slot holding a graph could not be copied), on both sides alike."""
    from codemod.validate import synth  # heavier: imported only when asked

    seed_all(1)  # the inputs drawn as forward's are (make_inputs)
    args, kwargs = synth.make_inputs(prepare["inputs"])
    seed_all(PREPARE_SEED)
    with torch.no_grad():
        getattr(model, prepare["method"])(*args, **kwargs)


def evaluation_mode(model: torch.nn.Module) -> None:
    """`model.eval()`, or nn.Module's own switch where the class overrides `train` with a
    signature eval() cannot call (`def train(self):` freezing a backbone)."""
    try:
        model.eval()
    except TypeError:
        torch.nn.Module.train(model, False)


def training_mode(model: torch.nn.Module) -> None:
    """`model.train()`, or nn.Module's own switch where the class's `train` wants other arguments."""
    try:
        model.train()
    except TypeError:
        torch.nn.Module.train(model, True)


def make_inputs(source: Source) -> Inputs | None:
    if source.make_inputs is None:
        return None
    seed_all(1)
    return source.make_inputs()


def forwarded_base(cls: type) -> type | None:
    """The torch.nn layer a ``*args``-forwarding constructor hands its arguments to, or None.

    ``class PartialConv2d(nn.Conv2d): def __init__(self, *args, **kwargs)`` requires nothing
    by its own signature, while ``nn.Conv2d`` requires ``in_channels, out_channels,
    kernel_size``: the first base from torch.nn whose constructor has required parameters.
    """
    try:
        parameters = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return None
    if not any(p.kind == p.VAR_POSITIONAL for p in parameters) or required_parameters(cls):
        return None
    for base in cls.__mro__[1:]:
        if base is torch.nn.Module:
            break
        if (base.__module__ or "").startswith("torch.nn") and "__init__" in vars(base) and required_parameters(base):
            return base
    return None


def required_parameters(cls: type) -> list[str]:
    """The constructor parameters without defaults."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in signature.parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def snippet(cls: type, target: str) -> str:
    """The ``example(...)`` line to add, with ``...`` where values are needed."""
    parts = [repr(target)]
    try:
        parameters = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    for p in parameters:
        if p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        parts.append("..." if p.kind == p.POSITIONAL_ONLY else f"{p.name}=...")
    parts.append(f"inputs=lambda: {_inputs_template(cls)}")
    return f"example({', '.join(parts)})"


def _inputs_template(cls: type) -> str:
    try:
        from codemod.validate import synth  # synth imports torch's heavier parts: only when asked

        parameters = list(inspect.signature(synth.entry_point(cls)).parameters.values())[1:]
    except (TypeError, ValueError, AttributeError):
        return "(...,)"
    required = [p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if any(p.kind == p.POSITIONAL_ONLY for p in required) or any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return "(" + ", ".join("..." for _ in required) + ("," if len(required) == 1 else "") + ")"
    if not required:
        return "()"
    return "{" + ", ".join(f"{p.name!r}: ..." for p in required) + "}"
