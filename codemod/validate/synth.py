"""Constructor arguments and forward inputs made up for classes nobody wrote an example for.

Worker side (imports torch).  Everything here is deterministic: the original
side tries the candidates in order and keeps the first that builds (and, for
inputs, the first that runs ``forward``); the rewritten side regenerates the
same candidate from its index (arguments) or from the JSON description the
original side chose (inputs), so both sides build and feed the same thing.

Arguments come from, per required parameter: its annotation (``int``,
``float``, ``bool``, a config class of the repository, a ``PretrainedConfig``
subclass built with small sizes), the repository's config classes visible
from the class's module (dataclasses, classes whose constructor needs no
arguments, named ``*Config``/``*Args``/...), a namespace holding the
attributes the constructor reads from the parameter, and small numbers
chosen by the parameter's name (``num_heads`` 2, ``num_layers`` 1,
``vocab_size`` 10, ``hidden_size`` 8, ...).

Inputs come from the calls the repository makes itself (calls.py), then the
first layer ``forward`` hands each parameter to (``Linear.in_features``,
``ConvNd.in_channels`` with images of several sizes, ``Embedding.num_embeddings``
for integer tokens, ``LayerNorm.normalized_shape``, ...), the parameter's name
(``mask``, ``input_ids``, ``adj``, ``t``) and annotation; a loss or a metric gets a
prediction and a target of the same shape (then class indices), a graph or
time-series model the node count of the adjacency it holds, a layer-less module
the shapes of the tensors it holds; else the usual shapes.  The caller keeps the
first candidate that runs the original.

Values are described as JSON (value specs, below) so that both sides, and the
tool that reads the repository's calls, describe the same value.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import functools
import inspect
import logging
import math
import os
import re
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import nn

from codemod.keywords import kwargs_access
from codemod.validate import own_folder, sources, stubs

MAX_CANDIDATES = 4
BATCH, SEQ, SPATIAL = 2, 7, 8
GIVEN_SIDE = 32  # a side handed to forward as a size (`img_size`): an image's, as the made-up ones go

_CONFIG_PARAMS = ("config", "cfg", "conf", "args", "opt", "opts", "hparams", "params", "hp", "settings", "options")
_CONFIG_SUFFIXES = ("config", "cfg", "args", "arguments", "params", "hparams", "options", "settings", "conf")

# name fragment -> small integer candidates, first match wins
_INT_NAMES: list[tuple[tuple[str, ...], list[int]]] = [
    (("head",), [2, 1, 4]),
    (("layer", "depth", "block", "stage", "n_blocks"), [1, 2]),
    (("kernel",), [3, 1]),
    (("stride", "dilation", "group", "pad"), [1]),
    (("vocab", "num_embeddings", "token", "num_class", "n_class", "classes", "label", "num_type", "type_num",
      "n_type", "num_out"), [10, 16]),
    (("len", "length", "seq", "position", "context", "block_size", "window", "max_"), [16, 32]),
]
_FLOAT_NAMES = ("dropout", "drop", "rate", "eps", "epsilon", "scale", "alpha", "beta", "gamma", "temperature",
                "momentum", "prob", "ratio", "lr", "weight", "sigma", "std", "margin", "smoothing")
_BOOL_PREFIXES = ("use_", "is_", "has_", "enable", "with_", "add_", "no_", "skip", "return_", "tie_", "bias",
                  "causal", "share", "learn", "normalize", "residual", "affine")

# PretrainedConfig attributes set small (only those the config already has)
SMALL_PRETRAINED = {
    "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 1,
    "intermediate_size": 64, "vocab_size": 99, "max_position_embeddings": 64, "head_dim": 16,
    "d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
    "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "num_layers": 1,
    "n_embd": 32, "n_head": 2, "n_layer": 1, "n_positions": 64, "embed_dim": 32, "num_heads": 2,
}


class Unsynthesizable(Exception):
    """No value can be made up for a parameter."""


@dataclasses.dataclass
class Candidate:
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    description: str


# -- constructor arguments ---------------------------------------------------------------------


def _constructor_parameters(cls: type) -> list[inspect.Parameter]:
    """The parameters of calling ``cls`` ([] where its signature cannot be read)."""
    try:
        return list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return []


def required_parameters(cls: type) -> list[inspect.Parameter]:
    return [
        p for p in _constructor_parameters(cls)
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def argument_candidates(cls: type, none_defaults: bool = False) -> list[Candidate]:
    """Up to MAX_CANDIDATES argument sets for ``cls``, most plausible first; [] when none.
    ``none_defaults``: the parameters that default to None are given values too (the class's
    own defaults do not build it)."""
    parameters = required_parameters(cls)
    if none_defaults:
        parameters += none_default_parameters(cls)
    # `def __init__(self, dropout=0.3, **args): super().__init__(**args)`: the base's required
    # parameters reach it through **args, made up by the base's own reading of them
    forwarded = _keywords_forwarded_to(cls, {p.name for p in parameters})
    positional = False
    owner = cls
    if forwarded is None:
        # `def __init__(self, dim, **kwargs)` reading `kwargs["adj"]`: a key it reads without a
        # default is required like a parameter, made up by its name; with the None defaults,
        # the keys it takes with `kwargs.get("mean")` too
        named = {p.name for p in parameters}
        parameters += [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY)
                       for key in keyword_reads(cls, optional=none_defaults) if key not in named]
    if not parameters and forwarded is None:
        from codemod.validate.build import forwarded_base

        base = forwarded_base(cls)
        if base is None:
            return []
        # `*args, **kwargs` handed to a torch.nn layer: made up for the layer's signature, passed
        # by position as such layers are usually called (PartialConv2d(3, 64, 7))
        owner, positional = base, True
        parameters = required_parameters(base)
    hints = _hints(getattr(owner, "__init__", None))
    options: list[list[tuple[Any, str]]] = []
    for parameter in parameters:
        values = _options(owner, parameter, hints.get(parameter.name, parameter.annotation))
        if not values:
            return []
        options.append(values)
    if forwarded is not None:
        base, extra = forwarded
        base_hints = _hints(getattr(base, "__init__", None))
        for parameter in extra:
            values = _options(base, parameter, base_hints.get(parameter.name, parameter.annotation))
            if not values:
                return []
            options.append(values)
            parameters.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))
    candidates = []
    depth = min(MAX_CANDIDATES, max(len(o) for o in options))
    for j in range(depth):
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        parts = []
        for parameter, values in zip(parameters, options):
            value, shown = values[min(j, len(values) - 1)]
            if positional or parameter.kind == parameter.POSITIONAL_ONLY:
                args.append(value)
            else:
                kwargs[parameter.name] = value
            parts.append(f"{parameter.name}={shown}")
        for name, value in kwargs.items():
            _label_mappings(value, (name,))
        candidates.append(Candidate(tuple(args), kwargs, ", ".join(parts)))
    return candidates


def forwards_keywords(cls: type) -> bool:
    """Whether the constructor hands ``**kwargs`` to a repository base that requires parameters."""
    return _keywords_forwarded_to(cls, set()) is not None


def _keywords_forwarded_to(cls: type, own: set[str]) -> tuple[type, list[inspect.Parameter]] | None:
    """(the repository base, its required parameters) where the class's constructor takes
    ``**kwargs`` and hands them to ``super().__init__(**kwargs)``; None otherwise."""
    init = vars(cls).get("__init__")
    try:
        parameters = list(inspect.signature(init).parameters.values()) if init is not None else []
    except (TypeError, ValueError):
        return None
    keywords = next((p.name for p in parameters if p.kind == p.VAR_KEYWORD), None)
    tree = _init_tree(cls)
    if keywords is None or tree is None or not any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
            and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == keywords for k in node.keywords)
            for node in ast.walk(tree)):
        return None
    base = next((b for b in cls.__mro__[1:] if "__init__" in vars(b)), None)
    if base is None or base is nn.Module or (base.__module__ or "").split(".")[0] == "torch":
        return None  # torch's layers: build.forwarded_base
    extra = [p for p in required_parameters(base) if p.name not in own]
    return (base, extra) if extra else None


def keyword_reads(cls: type, optional: bool = False) -> list[str]:
    """The keys a constructor taking ``**kwargs`` reads without a default, in order: from
    ``kwargs["dim"]`` or from the attribute it keeps them in (``self.params = kwargs``, then
    ``self.params["dim"]``); ``optional``: those it takes with ``kwargs.get("mean")`` or
    ``kwargs.pop("mean", None)`` (None by default) too; [] for a constructor without ``**kwargs``."""
    keyword = next((p.name for p in _constructor_parameters(cls) if p.kind is p.VAR_KEYWORD), None)
    tree = _init_tree(cls)
    if keyword is None or tree is None:
        return []
    held = {target.attr for node in ast.walk(tree) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name) and node.value.id == keyword
            for target in node.targets if isinstance(target, ast.Attribute)}
    keys: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)):
            continue
        holder = node.value
        if (isinstance(holder, ast.Name) and holder.id == keyword) or (
                isinstance(holder, ast.Attribute) and holder.attr in held and isinstance(holder.value, ast.Name)):
            if node.slice.value not in keys:
                keys.append(node.slice.value)
    if optional:  # `kwargs.get("mean")`, `kwargs.pop("std", None)`: like a parameter that defaults to None
        keys += [key for node in ast.walk(tree) if isinstance(node, ast.Call) and (key := kwargs_access(node, keyword))
                 and key not in keys and (len(node.args) == 1 or (isinstance(node.args[1], ast.Constant)
                                                                  and node.args[1].value is None))]
    return sorted(dict.fromkeys(keys), key=lambda k: _first_read(tree, k))


def _first_read(tree: ast.AST, key: str) -> tuple[int, int]:
    return min(((n.lineno, n.col_offset) for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == key),
               default=(0, 0))


def none_default_parameters(cls: type) -> list[inspect.Parameter]:
    """The constructor's parameters that default to None, passable by keyword."""
    return [p for p in _constructor_parameters(cls)
            if p.default is None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _hints(function: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function)
    except Exception:
        return {}


def parameter_values(cls: type, parameter: inspect.Parameter, annotation: Any) -> list[tuple[Any, str]]:
    """Made-up values for one constructor parameter, ``(value, how it is shown)``, most plausible first."""
    return _options(cls, parameter, annotation)


def _options(cls: type, parameter: inspect.Parameter, annotation: Any) -> list[tuple[Any, str]]:
    name = parameter.name.lower()
    annotation = _strip_optional(annotation)
    if typing.get_origin(annotation) in (typing.Union, getattr(types, "UnionType", ())):
        # `Union[torch.Size, Tuple[int, ...]]`: what any arm takes, the first arm's first
        options: list[tuple[Any, str]] = []
        for arm in typing.get_args(annotation):
            if arm is not type(None):
                options += [o for o in _options(cls, parameter, arm) if o[1] not in {shown for _, shown in options}]
        return options
    if annotation in (typing.Callable, collections.abc.Callable) or typing.get_origin(annotation) is collections.abc.Callable:
        # `g: Callable` kept and called in forward: a function of the data, returning its first input
        return [(PassThrough(), "a function returning its first input")]
    if annotation is torch.Size:
        item = _int_values(name)[0]
        return [(torch.Size([item]), f"torch.Size([{item}])"), (torch.Size([item, item]), f"torch.Size([{item}, {item}])")]
    if annotation is inspect.Parameter.empty or isinstance(annotation, str) or stubs.is_stub(annotation):
        # unannotated, an annotation that does not resolve, or a class of a module that is not
        # installed (`env: gym.Env` without gym): the name and the constructor's reads decide
        annotation = typing.Any
    if annotation is bool:
        return [(False, "False"), (True, "True")]
    if annotation is int:
        return [(v, str(v)) for v in _int_values(name)]
    if annotation is float:
        return [(v, repr(v)) for v in _float_values(name)]
    if annotation is str:
        value = _string_value(name)
        return [(value, repr(value))] if value is not None else []
    if annotation is torch.dtype:
        # float32, the dtype the cast checks start from (a half model is one of them)
        return [(torch.float32, "torch.float32")]
    if annotation is torch.device:
        return [(torch.device("cpu"), "torch.device('cpu')")]  # validation places the models itself
    if _is_numpy_array_type(annotation):
        return _numpy_values()
    if annotation in (nn.Module, typing.Any) and _names_a_wrapped_model(name):
        # `GaussianDiffusion(model, ...)`, `EMA(model)`: the network a wrapper is built around;
        # other modules handed in (an encoder, a head) are parts whose outputs the class
        # computes with, and no made-up module stands for them
        return [(PassThrough(), "a module returning its first input")]
    if isinstance(annotation, type) and not issubclass(annotation, (nn.Module, torch.Tensor)) \
            and annotation.__module__ not in ("builtins", "typing"):
        made = _config_values(annotation, required_fields=True)
        if made:
            return made
    if isinstance(annotation, type) and issubclass(annotation, torch.Tensor):
        return _tensor_values(name)
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, typing.Sequence) or annotation in (list, tuple):
        statistics = _STATISTICS.get(name)
        if statistics is not None:
            return [(list(statistics), str(list(statistics)))]
        element = typing.get_args(annotation)[:1]
        item = _float_values(name)[0] if element == (float,) else _int_values(name)[0]  # List[float]: floats
        if origin is tuple or annotation is tuple:  # `Tuple[int, ...]`: a tuple, which `==` with a shape needs
            return [((item,), f"({item},)"), ((item, item), f"({item}, {item})")]
        return [([item, item], f"[{item}, {item}]")]
    if annotation is not typing.Any:
        return []  # an annotation we cannot satisfy: guessing against it only builds nonsense
    # unannotated: the name decides
    if _names_a_path(parameter.name):
        # `vocab_path`, `save_dir`: no made-up value is a file the constructor can read, and a
        # number handed to open() would open one of the worker's own descriptors; a path under
        # os.devnull can be neither read nor created, so a class that only keeps it (a folder
        # to save to later, or a `bi_dir` flag that only looks like one) still builds
        path = os.path.join(MADE_UP_PATH_ROOT, parameter.name)
        return [(path, repr(path))]
    if name in ("logger", "log") or name.endswith("_logger"):
        # `self.logger.debug(...)` in the constructor: a logger that writes nowhere
        return [(_quiet_logger(), "a logging.Logger")]
    if _is_config_name(name):
        return _repository_configs(cls, parameter.name) + _namespaces(cls, parameter.name) + _mappings(
            cls, parameter.name)
    if _names_an_adjacency(name):
        return _tensor_values(name) + _namespaces(cls, parameter.name) + [(v, str(v)) for v in _int_values(name)]
    if parameter.default is None and (_kept_as_tensor(cls, parameter.name) or _torch_loss_weight(_init_tree(cls), parameter.name)
                                      or _kept_as_loss_weight(cls, parameter.name)):
        # `self.weight = weight` with `self.weight.view(1, -1)` in forward, or handed to
        # `nn.NLLLoss(weight=weight)`: a tensor, when given
        return _class_weights(cls, name) + _tensor_values(name)
    if parameter.default is inspect.Parameter.empty and _kept_as_tensor(cls, parameter.name):
        # a required one kept the same way (`self.comp_mask = competition_mask`, then
        # `self.comp_mask.tile(...)`): tensors first, numbers if none builds
        return _tensor_values(name) + [(v, str(v)) for v in _int_values(name)]
    if _variable_data(_init_tree(cls), parameter.name):
        # `Variable(weight * weight)`: a Variable's data must be a tensor
        return _class_weights(cls, name) + _tensor_values(name)
    if name == "dtype" or name.endswith("_dtype"):
        # `DTYPE`, `torch_dtype`: float32, the dtype the cast checks start from
        return [(torch.float32, "torch.float32")]
    if _words(name)[-1:] in (["tensor"], ["tensors"]):
        # `weights_tensor`: named a tensor; numbers only if no tensor builds
        return _class_weights(cls, name) + _tensor_values(name) + [(v, str(v)) for v in _int_values(name)]
    if "anchor" in name:
        # detection heads: (width, height) pairs
        return [(list(_ANCHORS), str(list(_ANCHORS)))] + [(v, str(v)) for v in _int_values(name)]
    if _looks_bool(name):
        return [(False, "False"), (True, "True")]
    statistics = _STATISTICS.get(name)
    if statistics is not None:
        # per-channel statistics (`NormalizeLayer(means, sds)`, `Normalize(mean, std)`): three
        # floats, as an image model's are, then one; never integers, which a cast leaves alone
        return [(list(statistics), str(list(statistics))), (statistics[0], repr(statistics[0]))]
    if _array_attribute_read(_init_tree(cls), parameter.name):
        # `self.DIMS0 = h.shape[0]`: only an array or a tensor has a shape; matrices first
        return _square_tensors() + _tensor_values(name)[:1]
    if _looks_float(name) and _object_reads(_attribute_reads(cls, parameter.name)):
        # `P.angles`, `P.fs` of a parameter named `P`: an object holding data, whatever the
        # name looks like (a lone `p` is a probability)
        return _repository_configs(cls, parameter.name) + _namespaces(cls, parameter.name)
    if _looks_float(name) or (_tensor_data(_init_tree(cls), parameter.name) and not _counts(parameter.name)):
        # `torch.tensor([kappa])`: the made-up number decides the tensor's dtype, and an int would
        # make a tensor that casts leave alone, so the cast checks would prove nothing
        return [(v, repr(v)) for v in _float_values(name)]
    value = _string_value(name)
    if value is not None:
        return [(value, repr(value))]
    compared = _compared_strings(_init_tree(cls), parameter.name)
    init_tree, class_tree = _init_tree(cls), _class_tree(cls)
    if init_tree is not None and class_tree is not None:
        # kept (`self.arc = arc`) and compared where it is used (`if 'default' in self.arc:`)
        for kept in sorted(_kept_as(init_tree, parameter.name)):
            compared += [v for v in _compared_strings(class_tree, kept, on_self=True) if v not in compared]
    if compared:  # `if gan_mode == "lsgan":`, `mode in ("sum", "mean")`: one of the strings the constructor knows
        return [(v, repr(v)) for v in compared]
    if _tensor_method_called(_init_tree(cls), parameter.name):
        # `image.clamp(0.0, 1.0)[:3]` in the constructor: a method only a tensor has
        return _image_values(name) + _tensor_values(name)
    pose = _camera_pose(cls, parameter.name)
    if pose is not None:
        return [pose]
    if _numpy_data(_init_tree(cls), parameter.name):
        # `torch.from_numpy(Auw)`: only a numpy array will do
        return _numpy_values()
    if _moved_and_kept(_init_tree(cls), parameter.name):
        # `self.const = const.to(device)`: a tensor (a module handed in is never made up), which
        # the analysis typed from the repository's calls before rewriting it
        return _tensor_values(name) + _namespaces(cls, parameter.name)
    accessed = _attribute_reads(cls, parameter.name)
    if accessed:  # used like an object: something with those attributes
        return _repository_configs(cls, parameter.name) + _namespaces(cls, parameter.name)
    if _subscript_reads(_init_tree(cls), parameter.name):  # used like a dict: one with those keys
        return _mappings(cls, parameter.name)
    if _used_as_sequence(_init_tree(cls), parameter.name):
        # `self.depth = len(width) - 1`, `width[i]`, `for w in width`: layer sizes, a list of ints
        item = _int_values(name)[0]
        if _names_a_shape(name):
            # a shape is a tuple, which `(n,) + shape` needs
            return [((item,) * 3, f"({item}, {item}, {item})"), ((item,) * 2, f"({item}, {item})")]
        return [([item] * 3, f"[{item}, {item}, {item}]"), ([item] * 2, f"[{item}, {item}]")]
    if _names_a_shape(name):
        # `mask_shape`, `lattice_shape` handed on to a helper (`torch.ones(shape)`, then
        # `mask[::2, ::2]`): a tensor's shape, a tuple, a grid's first; a number last
        return [((8, 8), "(8, 8)"), ((3, 8, 8), "(3, 8, 8)"), (8, "8")]
    return [(v, str(v)) for v in _int_values(name)]


# Methods a constructor may call on an argument that only a tensor has (not a number, a list,
# a string or a numpy array).
_TENSOR_ONLY_CALLS = frozenset({"clamp", "clamp_", "unsqueeze", "permute", "detach", "contiguous", "masked_fill",
                                "index_select", "expand", "type_as", "new_zeros", "new_ones", "float", "long",
                                # called, not read: a numpy array's `.size` is a number, `M.size()` raises
                                "size", "dim", "numel", "t", "mm", "matmul", "mul"})


def _torch_loss_weight(tree: ast.AST | None, parameter: str) -> bool:
    """The constructor hands the parameter to a torch loss's per-class weights
    (`nn.NLLLoss(weight=weight)`, `nn.BCEWithLogitsLoss(pos_weight=w)`): a tensor, when given."""
    return tree is not None and any(
        isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
        and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id).endswith("Loss")
        and any(k.arg in ("weight", "pos_weight") and isinstance(k.value, ast.Name) and k.value.id == parameter
                for k in node.keywords)
        for node in ast.walk(tree))


# torch.nn.functional's losses that take per-class weights.
_FUNCTIONAL_LOSSES = frozenset({"cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                "multi_margin_loss", "multilabel_soft_margin_loss"})


def _kept_as_loss_weight(cls: type, parameter: str) -> bool:
    """The constructor keeps the parameter (`self.weight = weight`) and a method hands it to a
    functional loss's weights (`F.cross_entropy(x, y, weight=self.weight)`): a tensor, when given."""
    tree = _init_tree(cls)
    kept = _kept_as(tree, parameter) if tree is not None else set()
    source = _class_tree(cls) if kept else None
    if source is None:
        return False
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
        and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) in _FUNCTIONAL_LOSSES
        and any(k.arg in ("weight", "pos_weight") and isinstance(k.value, ast.Attribute) and k.value.attr in kept
                and isinstance(k.value.value, ast.Name) and k.value.value.id == "self" for k in node.keywords)
        for node in ast.walk(source))


def _array_attribute_read(tree: ast.AST | None, parameter: str) -> bool:
    """The constructor reads `parameter.shape` or `.ndim` (an array's or a tensor's)."""
    return tree is not None and any(
        isinstance(node, ast.Attribute) and node.attr in ("shape", "ndim") and isinstance(node.value, ast.Name)
        and node.value.id == parameter for node in ast.walk(tree))


def _tensor_method_called(tree: ast.AST | None, parameter: str) -> bool:
    if tree is None:
        return False
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TENSOR_ONLY_CALLS
        and isinstance(node.func.value, ast.Name) and node.func.value.id == parameter
        for node in ast.walk(tree))


def _image_values(name: str) -> list[tuple[Any, str]]:
    """An image (3 x H x W, values in [0, 1]) for a parameter named like one."""
    if not any(word in ("image", "img", "picture", "frame", "rgb") for word in _words(name)):
        return []
    size = 2 * SPATIAL
    return [(torch.linspace(0.0, 1.0, 3 * size * size).reshape(3, size, size), f"image(3x{size}x{size})")]


def _camera_pose(cls: type, parameter: str) -> tuple[Any, str] | None:
    """A camera's rotation and translation, where the constructor takes both as `R` and `T`
    (NeRF and Gaussian-splatting cameras): the identity and the origin, as numpy arrays."""
    if parameter not in ("R", "T") or not {"R", "T"} <= {p.name for p in _constructor_parameters(cls)}:
        return None
    import numpy as np  # torch's own dependency; imported only for a camera

    return (np.eye(3), "eye(3) (numpy)") if parameter == "R" else (np.zeros(3), "zeros(3) (numpy)")


def _class_weights(cls: type, name: str) -> list[tuple[Any, str]]:
    """Per-class weights (`weight` beside `n_classes=2`): ones, one per class the
    constructor's default names, so that they meet scores of that many classes."""
    if "weight" not in name:
        return []
    for p in _constructor_parameters(cls):
        if p.name.lower() in _CLASS_COUNT_NAMES and _class_count(p.default) is not None:
            return [(torch.ones(p.default), f"ones({p.default})")]
    return []


def _quiet_logger() -> logging.Logger:
    logger = logging.getLogger("codemod.validation.made-up")
    logger.addHandler(logging.NullHandler())
    logger.propagate = False
    return logger


_ANCHORS = ((10, 13), (16, 30), (33, 23))

# Names of per-channel statistics, and the values made up for them (ImageNet's).
_STATISTICS = {
    **dict.fromkeys(("mean", "means", "mu", "pixel_mean", "img_mean", "rgb_mean"), (0.485, 0.456, 0.406)),
    **dict.fromkeys(("std", "stds", "sd", "sds", "sigma_rgb", "pixel_std", "img_std", "rgb_std"), (0.229, 0.224, 0.225)),
}


def _names_an_adjacency(name: str) -> bool:
    """A constructor parameter named like a graph's adjacency (`adj`, `A`, `supports`)."""
    return name in _ADJACENCY_NAMES or name.startswith(("adj", "laplacian")) or name in ("a", "a_norm", "norm_adj") \
        or any(word in _ADJACENCY_WORDS for word in _words(name))  # `graph_neigh`, `norm_adjacency`


# Words of a parameter name that make it a graph's (node x node) matrix.
_ADJACENCY_WORDS = frozenset({"adj", "adjacency", "neigh", "neighbor", "neighbors", "neighbour", "neighbours",
                              "laplacian"})


def _tensor_values(name: str) -> list[tuple[Any, str]]:
    """Made-up tensors for a parameter annotated as one or named like an adjacency: the same
    values on both sides (built from the index, never drawn at random)."""
    n = SPATIAL
    if any(word in _SQUARE_MATRIX_WORDS for word in _words(name)):
        return _square_tensors()[::-1]  # the identity first: a covariance must be positive definite
    if _names_an_adjacency(name):
        return _square_tensors()
    # `forward_permutation: torch.Tensor`, `node_ids`: indices 0 .. n-1 first (see argument_tensors)
    indices = [(torch.arange(n), f"arange({n})")] if _names_indices(name) else []
    return [*indices, (torch.ones(n), f"ones({n})"), *_square_tensors(), (torch.ones(BATCH, n), f"ones({BATCH}x{n})")]


# Words of a tensor parameter's name that make it a square matrix (`cov`, `precision_matrix`).
_SQUARE_MATRIX_WORDS = frozenset({"cov", "covariance", "precision", "gram"})


def _square_tensors() -> list[tuple[Any, str]]:
    """Made-up N x N matrices: uniform rows, then the identity."""
    n = SPATIAL
    return [(torch.full((n, n), 1.0 / n), f"full({n}x{n}, 1/{n})"), (torch.eye(n), f"eye({n})")]


def _strip_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, getattr(types, "UnionType", ())):
        arms = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(arms) == 1:
            return arms[0]
        if int in arms and all(a is int or typing.get_origin(a) in (tuple, list) or a in (tuple, list)
                               for a in arms):
            return int  # a size: `int | tuple[int, int]` (torch's _size_2_t) takes an int
    return annotation


def _names_a_path(name: str) -> bool:
    """`vocab_path`, `pretrained_word2vec_path`, `ckpt_file`, `data_dir`, `filename`."""
    words = _words(name)
    return bool(words) and words[-1] in ("path", "file", "dir", "filename", "fname", "filepath", "folder", "directory")


def _int_values(name: str) -> list[int]:
    for fragments, values in _INT_NAMES:
        if any(f in name for f in fragments):
            return values
    return [8, 16, 4]


def _words(name: str) -> list[str]:
    """`max_time_steps` -> max, time, steps; `dropRate` -> drop, rate (a fragment must start a
    word: the `eps` in `steps` is no epsilon)."""
    return [w.lower() for w in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name) if w]


def _starts_a_word(name: str, fragments: tuple[str, ...]) -> bool:
    return any(word.startswith(fragments) for word in _words(name))


def _looks_float(name: str) -> bool:
    return _starts_a_word(name, _FLOAT_NAMES) or name == "p"


def _float_values(name: str) -> list[float]:
    if _starts_a_word(name, ("eps",)):
        return [1e-5]
    if _starts_a_word(name, ("drop", "prob", "smoothing")) or name == "p":
        return [0.0, 0.1]
    if _starts_a_word(name, ("momentum",)):
        return [0.1]
    return [0.5, 1.0]


def _looks_bool(name: str) -> bool:
    if name.startswith(("no_of_", "no_classes", "no_class")):
        return False  # `no_of_classes`: a number of, not a switch
    return name.startswith(_BOOL_PREFIXES) or name in ("bias", "causal", "training", "pretrained")


# A config key that names a file or folder (`feature2idx_path`, `save_dir`, `data_root`).
_PATH_NAME = re.compile(r"(?:^|_)(?:path|file|filename|fname|dir|directory|folder|root)$")
# Where a made-up path points: under a file, so that nothing can open, read or create it (a
# made-up number would be a file descriptor to `open()`: the worker's own pipes).
MADE_UP_PATH_ROOT = os.path.join(os.devnull, "codemod-made-up")


def _string_value(name: str) -> str | None:
    if _PATH_NAME.search(name):
        return os.path.join(MADE_UP_PATH_ROOT, name)
    if "device" in name:
        return "cpu"
    if name in ("act", "activation", "act_fn", "activation_fn", "act_layer", "hidden_act", "nonlinearity"):
        return "relu"
    return None


# -- configs -----------------------------------------------------------------------------------


def _config_values(config_cls: type, required_fields: bool = False) -> list[tuple[Any, str]]:
    """A repository config class (or PretrainedConfig subclass), built small, then as is;
    with `required_fields` (the parameter's own annotation names the class), one whose
    fields have no defaults too, built from made-up values for them."""
    out: list[tuple[Any, str]] = []
    name = config_cls.__name__
    if _is_pretrained_config(config_cls):
        try:
            plain = config_cls()
            small = {k: v for k, v in SMALL_PRETRAINED.items() if hasattr(plain, k)}
            out.append((config_cls(**small), f"{name}(small sizes)"))
        except Exception:
            pass
    if required_parameters(config_cls):
        if not required_fields:
            return out
        # a dataclass with required fields (`SimulationConfig(grid_size_x, grid_size_y, tau)`):
        # built from made-up values for them, as a constructor's arguments are
        if config_cls in _CONFIGS_BEING_MADE:
            return out  # a config that holds one of its own kind
        _CONFIGS_BEING_MADE.add(config_cls)
        try:
            for candidate in argument_candidates(config_cls)[:2]:
                try:
                    out.append((config_cls(*candidate.args, **candidate.kwargs), f"{name}({candidate.description})"))
                    break
                except Exception:
                    continue
        finally:
            _CONFIGS_BEING_MADE.discard(config_cls)
        return out
    try:
        value = config_cls()
    except Exception:
        return out
    shrunk = _shrink(value)
    if shrunk is not None:
        out.append((shrunk, f"{name}(small sizes)"))
    out.append((value, f"{name}()"))
    return out


_CONFIGS_BEING_MADE: set[type] = set()


def _is_pretrained_config(cls: type) -> bool:
    return any(base.__name__.lower() == "pretrainedconfig" and base.__module__.startswith("transformers")
               for base in getattr(cls, "__mro__", ()))


def _shrink(value: Any) -> Any:
    """A copy with large size-like integers made small, or None when nothing is large."""
    try:
        fields = dict(vars(value))
    except TypeError:
        return None
    changes = {}
    for key, item in fields.items():
        if isinstance(item, bool) or not isinstance(item, int) or item <= 128:
            continue
        lowered = key.lower()
        if any(f in lowered for f in ("len", "position", "seq", "context", "window")):
            changes[key] = 64
        elif any(f in lowered for f in ("vocab", "token", "class", "label")):
            changes[key] = 100
        else:
            changes[key] = 96  # divisible by the usual head counts (1, 2, 3, 4, 6, 8, 12, 16, 32)
    if not changes:
        return None
    try:
        if dataclasses.is_dataclass(value):
            return dataclasses.replace(value, **changes)
        import copy

        clone = copy.copy(value)
        for key, item in changes.items():
            setattr(clone, key, item)
        return clone
    except Exception:
        return None


def _repository_configs(cls: type, parameter: str) -> list[tuple[Any, str]]:
    """Config-like classes visible from the class's module, the best-named first."""
    module = sys.modules.get(cls.__module__)
    if module is None:
        return []
    seen: dict[str, type] = {}
    for value in vars(module).values():
        if isinstance(value, type) and _config_like(value):
            seen.setdefault(f"{value.__module__}.{value.__qualname__}", value)
    stem = parameter.lower().rstrip("s")
    ranked = sorted(seen.items(), key=lambda item: (stem not in item[1].__name__.lower(), item[0]))
    out: list[tuple[Any, str]] = []
    for _, config_cls in ranked[:3]:
        out.extend(_config_values(config_cls))
    return out


def _config_like(value: type) -> bool:
    if issubclass(value, (nn.Module, torch.Tensor)) or value.__module__ in ("builtins", "typing"):
        return False
    if _is_pretrained_config(value):
        return True
    module_name = value.__module__ or ""
    root = module_name.split(".")[0]
    if root in sys.stdlib_module_names or root in ("torch", "numpy", "transformers"):
        return False
    lowered = value.__name__.lower()
    return dataclasses.is_dataclass(value) or lowered.endswith(_CONFIG_SUFFIXES)


@functools.lru_cache(maxsize=64)
def _init_tree(cls: type) -> ast.AST | None:
    """The constructor's own tree (read-only: parsed once per class, asked per parameter)."""
    init = cls.__dict__.get("__init__")
    if init is None:
        return None
    init = inspect.unwrap(init)
    try:
        return ast.parse(textwrap.dedent(sources.original_source(init)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None


@functools.lru_cache(maxsize=64)
def _class_tree(cls: type) -> ast.AST | None:
    """The whole class's tree (read-only: parsed once per class, asked per parameter)."""
    try:
        return ast.parse(textwrap.dedent(sources.original_source(cls)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None


# Tensor factories and the argument that holds the data (`torch.full(size, fill_value)`).
_DATA_ARGUMENT = {"tensor": 0, "as_tensor": 0, "Tensor": 0, "FloatTensor": 0, "full": 1, "full_like": 1}


def _tensor_data(tree: ast.AST | None, parameter: str) -> bool:
    """Whether the constructor puts the parameter's value into a tensor as its data
    (`torch.tensor([kappa])`, `torch.full((n,), kappa)`), not as a size."""
    if tree is None:
        return False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Attribute, ast.Name)):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        position = _DATA_ARGUMENT.get(name)
        if position is None:
            continue
        if name in ("Tensor", "FloatTensor") and len(node.args) > 1:
            continue  # `torch.Tensor(out_channels, in_channels, k)`: sizes, the legacy way (one size: see _counts)
        data = node.args[position] if len(node.args) > position else next(
            (k.value for k in node.keywords if k.arg in ("data", "fill_value")), None)
        if data is not None and _holds_name(data, parameter):
            return True
    return False


def _numpy_data(tree: ast.AST | None, parameter: str) -> bool:
    """Whether the constructor hands the parameter to `torch.from_numpy(...)`."""
    return tree is not None and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_numpy"
        and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == parameter
        for node in ast.walk(tree))


def _numpy_values() -> list[tuple[Any, str]]:
    import numpy as np  # torch's own dependency; imported only where an array is needed

    # a vector of distinct values in (0, 1) first (a noise schedule, weights, probabilities:
    # `log(1 - betas)` stays finite), then matrices and vectors of ones
    ramp = np.linspace(0.05, 0.5, SPATIAL, dtype=np.float32)
    return [(ramp, f"linspace({SPATIAL}, 0.05..0.5) (numpy)"), (np.ones((8, 8), dtype=np.float32), "ones(8, 8) (numpy)"),
            (np.ones(8, dtype=np.float32), "ones(8) (numpy)")]


def _is_numpy_array_type(annotation: Any) -> bool:
    return isinstance(annotation, type) and annotation.__name__ == "ndarray" and annotation.__module__ == "numpy"


# Names of a constructor parameter that hands in a whole network to be wrapped.
_WRAPPED_MODEL_NAMES = frozenset({"model", "net", "network", "denoiser", "eps_model", "unet", "backbone", "base_model",
                                  "inner_model", "score_model"})


def _names_a_wrapped_model(name: str) -> bool:
    return name in _WRAPPED_MODEL_NAMES


class PassThrough(nn.Module):
    """A made-up network for a wrapper that takes one (a diffusion process around its denoiser,
    an EMA around a model): it returns its first input, whatever else it is handed, and holds
    one parameter so that moves and casts reach it.  What else the wrapper asks of it answers
    in kind: a name about the device (`self.model.get_device`) is the CPU, its dtype float32,
    and any other a function that passes its first tensor through
    (`self.model.TrajEncoder(sequence=x)`).  The same on both sides."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(()))
        self._made = True  # from here on, names it does not hold answer in kind

    def forward(self, x: Any = None, *args: Any, **kwargs: Any) -> Any:
        if x is None:
            x = next((v for v in [*args, *kwargs.values()] if isinstance(v, torch.Tensor)), None)
        return x * self.scale if isinstance(x, torch.Tensor) and x.is_floating_point() else x

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("_") or not self.__dict__.get("_made"):
                raise
            if "device" in name.lower():
                return torch.device("cpu")
            if "dtype" in name.lower():
                return torch.float32
            return self.forward


def _variable_data(tree: ast.AST | None, parameter: str) -> bool:
    """Whether the constructor hands the parameter (or arithmetic on it) to `Variable(...)` or
    `nn.Parameter(...)`, which raise TypeError unless their data is a tensor."""
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and (
                (isinstance(node.func, ast.Name) and node.func.id in ("Variable", "Parameter"))
                or (isinstance(node.func, ast.Attribute) and node.func.attr in ("Variable", "Parameter"))):
            data = node.args[0]
            while isinstance(data, ast.BinOp):
                data = data.left if _holds_name(data.left, parameter) else data.right
            if isinstance(data, ast.Name) and data.id == parameter:
                return True
    return False


def _kept_as_tensor(cls: type, parameter: str) -> bool:
    """The constructor keeps the parameter as an attribute (`self.weight = weight`,
    `self.comp_mask = competition_mask`) and a method of the class calls a tensor's method on
    that attribute (`self.weight.view(1, -1)`, `self.comp_mask.tile(...)`)."""
    try:
        source = textwrap.dedent(sources.original_source(cls))
    except (OSError, TypeError):
        return False
    # `self.weight = weight`, `self.comp_mask = competition_mask`
    tree = _init_tree(cls)
    attrs = sorted(_kept_as(tree, parameter)) if tree is not None else []
    if not attrs:
        return False
    uses = [m for attr in attrs for m in re.findall(rf"\bself\.{re.escape(attr)}\.(\w+)\(", source)]
    if not uses:
        return False
    # the methods only a tensor among the values a constructor is handed has, and `view`
    from codemod.segments import ARGUMENT_TENSOR_METHODS  # imported only where a use is found

    return any(method in ARGUMENT_TENSOR_METHODS or method in ("view", "tile", "repeat_interleave") for method in uses)


def _moved_and_kept(tree: ast.AST | None, parameter: str) -> bool:
    """The constructor keeps the parameter moved to a device (`self.c = c.to(device=device)`,
    `self.m = m.cuda()`)."""
    if tree is None:
        return False
    from codemod.segments import moved_operand  # the analysis's own reading of such a binding

    return any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
               and isinstance(moved := moved_operand(node.value), ast.Name) and moved.id == parameter
               and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                       for t in node.targets)
               for node in ast.walk(tree))


def _names_a_size(name: str) -> bool:
    """`out_channels`, `hidden_dim`, `num_joints`, `n_features`: a count or a size."""
    words = _words(name)
    return any(w.startswith(("channel", "dim", "size", "feature", "hidden", "unit", "len", "count", "num", "width",
                             "height", "depth"))
               for w in words) or name.lower().startswith(("n_", "num"))


def _names_a_shape(name: str) -> bool:
    """`shape`, `mask_shape`, `lattice_shape`: a tensor's shape, handed to the constructor."""
    return name == "shape" or name.endswith("_shape")


def _names_a_given_size(name: str) -> bool:
    """`img_size`, `output_shape`, `size`: a size handed to forward beside its data, not data."""
    last = name.lower().rsplit("_", 1)[-1]
    return last in ("size", "shape") and not name.lower().startswith(("batch", "hidden"))


def _counts(name: str) -> bool:
    """A count or a size even where a tensor holds it as data (`torch.tensor([K, T, -1, momentum])`
    beside `torch.zeros(K)`): `K`, `N`, `num_negatives`, `out_channels`."""
    return (len(name) == 1 and name.isupper()) or _names_a_size(name)


def _compared_strings(tree: ast.AST | None, name: str, on_self: bool = False) -> list[str]:
    """The string literals the code compares the parameter ``name`` (or, ``on_self``, the
    attribute ``self.name``) with (`==`, `!=`, `in`), in the order written: the values it is
    meant to take."""
    found: list[str] = []
    if tree is None:
        return found

    def is_it(node: ast.expr) -> bool:
        if on_self:
            return isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.value, ast.Name) \
                and node.value.id == "self"
        return isinstance(node, ast.Name) and node.id == name

    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        left, right = node.left, node.comparators[0]
        if is_it(right):
            left, right = right, left
        if not is_it(left):
            continue
        literals = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
        for literal in literals:
            if isinstance(literal, ast.Constant) and isinstance(literal.value, str) and literal.value not in found:
                found.append(literal.value)
    return found


def _holds_name(node: ast.expr, name: str) -> bool:
    """`kappa`, `[kappa]`, `[[kappa, 1.0]]`: the value itself or an element of a literal list or
    tuple (not `np.arange(1, L + 1)`, where it is a size)."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_holds_name(element, name) for element in node.elts)
    return False


def _attribute_reads(cls: type, parameter: str) -> dict[str, Any]:
    """``{attr: nested}`` for every ``parameter.attr(.sub...)`` the constructor reads."""
    tree = _init_tree(cls)
    if tree is None:
        return {}
    found: dict[str, Any] = {}
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    sequences = _sequence_operands(tree)
    kept = _kept_as(tree, parameter)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = []
        current: ast.AST = node
        while isinstance(current, ast.Attribute):
            chain.append(current.attr)
            current = current.value
        if chain and chain[-1] in kept and isinstance(current, ast.Name) and current.id == "self":
            chain.pop()  # `self.args.aggr` after `self.args = args`: read from the argument all the same
            current = ast.Name(id=parameter)
        if chain and isinstance(current, ast.Name) and current.id == parameter:
            level = found
            for part in reversed(chain):
                level = level.setdefault(part, {})
            if id(node) in called and not level:
                level[_CALLED] = True  # `voc.get_id(token)`: a method, made up as one
            elif id(node) in sequences and not level:
                level[_SEQUENCE] = True  # `len(para.channels)`: a list, made up as one
    # getattr(param, "x", default) keeps its default: not needed
    return found


def _sequence_operands(tree: ast.AST) -> set[int]:
    """ids of the nodes a function uses as a sequence: `len(x)`, `for _ in x`, `*x`, `x[0]`, `x[i]`."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
            found.add(id(node.args[0]))
        elif isinstance(node, (ast.For, ast.comprehension)):
            found.add(id(node.iter))
        elif isinstance(node, ast.Starred):
            found.add(id(node.value))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and (
                isinstance(node.slice, ast.Name)
                or (isinstance(node.slice, ast.Constant) and type(node.slice.value) is int)):
            found.add(id(node.value))
    return found


def _is_leaf(nested: dict[str, Any]) -> bool:
    """A value read as it is, called as a method or used as a sequence: no attributes of its own."""
    return not nested or nested == {_CALLED: True} or nested == {_SEQUENCE: True}


def _kept_as(tree: ast.AST, parameter: str) -> set[str]:
    """The attributes of self the constructor keeps the parameter in as it is (`self.args = args`)."""
    return {target.attr for node in ast.walk(tree) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name) and node.value.id == parameter
            for target in node.targets if isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name) and target.value.id == "self"}


# Marks, in _attribute_reads, an attribute the constructor calls, and one it uses as a sequence.
_CALLED = "<called>"
_SEQUENCE = "<sequence>"


def _namespaces(cls: type, parameter: str) -> list[tuple[Any, str]]:
    """A namespace with the attributes the constructor reads, then, where the repository's
    command line declares `choices` for some of them, one with each further choice: its default
    may suit another model of the repository and not this class (`--aggr tfmlp`, which only
    one of its networks supports)."""
    reads = _attribute_reads(cls, parameter)
    if not reads:
        return []
    strings = _compared_keys(cls, parameter)
    out = []
    for variant in range(_choice_variants(reads, strings)):
        value = _namespace(reads, variant)
        for key, choice in _chosen_strings(strings, reads, variant).items():
            setattr(value, key, choice)
        out.append((value, f"a namespace ({_shown_namespace(value, reads)})"))
    return out


def _shown_namespace(value: Any, reads: dict[str, Any]) -> str:
    """`hidden=8, env() -> 8, action_space=(high=[8, 8])`: the values made up for what the
    constructor reads, nested ones in brackets."""
    return ", ".join(f"{k}() -> {getattr(value, k)()!r}" if reads[k] == {_CALLED: True}
                     else f"{k}=array({len(getattr(value, k))})" if _array_reads(reads[k])
                     else f"{k}={getattr(value, k)!r}" if _is_leaf(reads[k])
                     else f"{k}=({_shown_namespace(getattr(value, k), reads[k])})" for k in sorted(reads))


def _choice_variants(reads: dict[str, Any], strings: dict[str, list[str]] | None = None) -> int:
    """How many made-up configs the declared choices of the keys read, and the strings the
    class compares them with, give (1 where none has any), at most MAX_CANDIDATES."""
    counts = [len(_alternatives(key)) for key in _keys(reads)] + [len(v) for v in (strings or {}).values()]
    return min(MAX_CANDIDATES, max([1, *counts]))


def _chosen_strings(strings: dict[str, list[str]], reads: dict[str, Any], variant: int) -> dict[str, str]:
    """The string each key read as it is (not indexed, called or read into) takes in the
    ``variant``-th made-up config: the variant-th it is compared with, the last once they run out."""
    return {key: choices[min(variant, len(choices) - 1)] for key, choices in strings.items() if reads.get(key) == {}}


def _compared_keys(cls: type, parameter: str) -> dict[str, list[str]]:
    """``{key: strings}`` for the keys of a config argument that the class compares with
    string literals, in the order written: `config["mode"] == "gru"`, or kept first,
    `self.A_name = config["A_name"]` then `assert self.A_name in ["lstm", "gru"]` (or
    `cell = args.cell` then `if cell == "lstm":`).  A made-up number there fails every
    comparison, and an `assert` or a final `else: raise` stops the build."""
    init_tree, class_tree = _init_tree(cls), _class_tree(cls)
    if init_tree is None:
        return {}

    def key_of(node: ast.AST) -> str | None:
        if isinstance(node, ast.IfExp):  # `config["x"] if "x" in config else "none"`
            node = node.body
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == parameter \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return node.slice.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == parameter:
            return node.attr
        return None

    found: dict[str, list[str]] = {}

    def add(key: str, strings: list[str]) -> None:
        found.setdefault(key, []).extend(v for v in strings if v not in found.get(key, []))

    for node in ast.walk(class_tree or init_tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
                key = key_of(side)
                literals = other.elts if isinstance(other, (ast.Tuple, ast.List, ast.Set)) else [other]
                if key is not None:
                    add(key, [v.value for v in literals if isinstance(v, ast.Constant) and isinstance(v.value, str)])
    for node in ast.walk(init_tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or key_of(node.value) is None:
            continue
        target = node.targets[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            add(key_of(node.value), _compared_strings(class_tree or init_tree, target.attr, on_self=True))
        elif isinstance(target, ast.Name):
            add(key_of(node.value), _compared_strings(init_tree, target.id))
    return {key: strings for key, strings in found.items() if strings}


def _keys(reads: dict[str, Any]):
    for key, nested in reads.items():
        if not _is_leaf(nested):
            yield from _keys(nested)
        elif not nested:
            yield key


def _used_as_sequence(tree: ast.AST | None, parameter: str) -> bool:
    """Whether a function takes the parameter's length (`len(width)`), iterates over it, unpacks
    it (`*shape`) or indexes it with a number or a name (`width[0]`, `width[l]`): a list, not a
    number (_sequence_operands)."""
    if tree is None:
        return False

    kept = _kept_as(tree, parameter)

    def is_parameter(node: ast.AST) -> bool:
        # the parameter, or the attribute of self the constructor keeps it in (`self.shape[1]`)
        return (isinstance(node, ast.Name) and node.id == parameter) or (
            isinstance(node, ast.Attribute) and node.attr in kept and isinstance(node.value, ast.Name)
            and node.value.id == "self")

    sequences = _sequence_operands(tree)
    return any(id(node) in sequences and is_parameter(node) for node in ast.walk(tree))


def _subscript_reads(tree: ast.AST | None, parameter: str, indexed: bool = False) -> dict[str, Any]:
    """``{key: nested}`` for every ``parameter["key"](["sub"]...)`` a function reads; a
    ``parameter.get("key", default)`` keeps its default and needs nothing.  With `indexed`,
    a value read by a number (``parameter["std_range"][0]``) is marked a sequence."""
    if tree is None:
        return {}
    found: dict[str, Any] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            continue
        chain = []
        current: ast.AST = node
        by_number = indexed and isinstance(current.slice, ast.Constant) and type(current.slice.value) is int
        if by_number:
            current = current.value
        while isinstance(current, ast.Subscript) and isinstance(current.slice, ast.Constant) \
                and isinstance(current.slice.value, str):
            chain.append(current.slice.value)
            current = current.value
        if chain and isinstance(current, ast.Name) and current.id == parameter:
            level = found
            for part in reversed(chain):
                level = level.setdefault(part, {})
            if by_number and not level:
                level[_SEQUENCE] = True  # `params["std_range"][0]`: a pair, made up as a list
    return found


def _mappings(cls: type, parameter: str) -> list[tuple[Any, str]]:
    """A dict with the keys the constructor reads; one per declared choice, as _namespaces."""
    reads = _subscript_reads(_init_tree(cls), parameter, indexed=True)
    if not reads:
        return []
    strings = _compared_keys(cls, parameter)
    out = []
    for variant in range(_choice_variants(reads, strings)):
        value = _mapping(reads, variant)
        value.update(_chosen_strings(strings, reads, variant))
        shown = ", ".join(f"{k!r}: {value[k]!r}" for k in sorted(reads) if _is_leaf(reads[k]))
        out.append((value, f"a dict ({{{shown}}})"))
    return out


class MadeUpMapping(dict):
    """A dict config made up from the keys a constructor reads (``config["num_train"]``); a
    key it hands on to a submodule that reads more gets a value by its name too.  Each read
    is noted (``_MAPPING_READS``), so that a build that fails on the value read last can be
    repaired (``argument_repairs``)."""

    path: tuple[str, ...] = ()

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        if isinstance(key, str):
            _MAPPING_READS.append(((*self.path, key), value))
        return value

    def __missing__(self, key: Any) -> Any:
        if not isinstance(key, str) or key.startswith("_"):
            raise KeyError(key)
        value = _value_by_name(key)
        self[key] = value
        return value


def _mapping(reads: dict[str, Any], variant: int = 0) -> MadeUpMapping:
    return MadeUpMapping({key: _made_up_sequence(key) if nested == {_SEQUENCE: True} else _mapping(nested, variant)
                          if nested else _value_by_name(key, variant) for key, nested in reads.items()})


class MadeUpConfig(types.SimpleNamespace):
    """A config made up from the attributes a constructor reads.

    The constructor may hand it on to submodules that read more: an attribute
    it does not hold yet gets a value by its name, as the first ones did.
    """

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name.startswith("_"):
            raise AttributeError(name)
        value = _value_by_name(name)
        setattr(self, name, value)
        return value


def _value_by_name(key: str, variant: int = 0) -> Any:
    """The made-up value of a config key; `variant` picks among the choices the repository's
    command line declares for it (the default first), the last one once they run out."""
    lowered = key.lower()
    alternatives = _alternatives(key)
    if alternatives and "device" not in lowered:
        return alternatives[min(variant, len(alternatives) - 1)]
    option = repository_options().get(key)
    if option is not None and "device" not in lowered:
        return option  # `--manifold PoincareBall`: a choice the repository's own command line offers
    if _looks_bool(lowered):
        return False
    if _looks_float(lowered):
        return _float_values(lowered)[0]
    if _string_value(lowered) is not None:
        return _string_value(lowered)
    return _int_values(lowered)[0]


# A repository's command-line options and option tables are read up to this many files.
_OPTION_FILES = 400


def repository_options() -> dict[str, str | bool]:
    """String and bool defaults of the repository's own options, by name, read statically from
    the working directory (the worker runs from the repository root): argparse's
    `add_argument("--manifold", default="PoincareBall")` and option tables written as
    `"manifold": ("Euclidean", "which manifold to use")`.  Numbers are left to the made-up
    sizes, which are kept small; a string option has no made-up value that works."""
    return _declarations()[0]


def repository_choices() -> dict[str, list[str]]:
    """The string `choices=[...]` the repository's argparse options declare, by name."""
    return _declarations()[1]


def _alternatives(key: str) -> list[str]:
    """A string option's values to try, its declared default first, then its other choices."""
    choices = repository_choices().get(key)
    if not choices:
        return []
    default = repository_options().get(key)
    first = [default] if isinstance(default, str) and default in choices else []
    return first + [c for c in choices if c not in first]


@functools.lru_cache(maxsize=1)
def _declarations() -> tuple[dict[str, str | bool], dict[str, list[str]]]:
    found: dict[str, str | bool] = {}
    choices: dict[str, list[str]] = {}
    seen = 0
    for directory, subdirectories, files in os.walk(own_folder.repository_root()):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".") and d not in (
            "node_modules", "site-packages", "__pycache__", "venv", "env"))
        for name in sorted(files):
            if not name.endswith(".py") or seen >= _OPTION_FILES:
                continue
            seen += 1
            try:
                with open(os.path.join(directory, name), "rb") as f:
                    text = f.read(2_000_000).decode("utf-8", "replace")
                if "add_argument" not in text and "\": (" not in text and "': (" not in text:
                    continue
                tree = ast.parse(text)
            except (OSError, SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                for key, value in _declared_options(node):
                    if isinstance(value, (str, bool)):
                        found.setdefault(key, value)
                for key, values in _declared_choices(node):
                    choices.setdefault(key, values)
    return found, choices


def _option_name(call: ast.Call) -> str | None:
    """The attribute an argparse `add_argument` call sets (`dest=`, or its long flag)."""
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    long = next((f for f in flags if f.startswith("--")), None)
    dest = next((k.value.value for k in call.keywords if k.arg == "dest" and isinstance(k.value, ast.Constant)), None)
    return dest or (long.lstrip("-").replace("-", "_") if long else None)


def _declared_choices(node: ast.AST):
    """(name, [choice, ...]) for an argparse call that lists string choices."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
        return
    listed = next((k.value for k in node.keywords if k.arg == "choices"), None)
    if not isinstance(listed, (ast.List, ast.Tuple, ast.Set)):
        return
    values = [e.value for e in listed.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    name = _option_name(node)
    if name and values and len(values) == len(listed.elts):
        yield name, values


def _declared_options(node: ast.AST):
    """(name, default) pairs an argparse call or an option-table entry declares."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
        default = next((k.value for k in node.keywords if k.arg == "default"), None)
        name = _option_name(node)
        if name and isinstance(default, ast.Constant):
            yield name, default.value
    elif isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            if (isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(value, ast.Tuple)
                    and len(value.elts) == 2 and isinstance(value.elts[0], ast.Constant)
                    and isinstance(value.elts[1], ast.Constant) and isinstance(value.elts[1].value, str)):
                yield key.value, value.elts[0].value


def _namespace(reads: dict[str, Any], variant: int = 0) -> MadeUpConfig:
    values = {key: _made_up_method(key) if nested == {_CALLED: True} else _made_up_sequence(key)
              if nested == {_SEQUENCE: True} else _made_up_array(key) if _array_reads(nested)
              else _namespace(nested, variant) if nested
              else _value_by_name(key, variant) for key, nested in reads.items()}
    return MadeUpConfig(**values)


# What only an array (or a tensor) has: `P.angles.shape[0]` makes `P.angles` an array.
_ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "T"})


def _array_reads(nested: dict[str, Any]) -> bool:
    return bool(nested) and set(nested) <= _ARRAY_ATTRIBUTES


def _object_reads(reads: dict[str, Any]) -> bool:
    """Attributes read that make the value an object with fields, not an array or a number."""
    return bool(reads) and not _array_reads(reads)


def _made_up_array(name: str) -> Any:
    """A config entry whose shape the constructor reads (`P.angles.shape[0]`): a numpy array of
    the size made up for its name, as data objects hold."""
    import numpy as np  # torch's own dependency

    size = _int_values(name.lower())[0]
    return np.linspace(0.05, 0.5, size, dtype=np.float32)


def _made_up_sequence(name: str) -> list[Any]:
    """A config entry the constructor takes the length of or iterates (`len(para.channels)`):
    two of the values made up for its name."""
    value = _value_by_name(name)
    return [value, value]


def _made_up_method(name: str) -> Callable[..., Any]:
    """A method of a made-up object (`voc.get_id(token)`): whatever it is handed, it returns
    the value made up for what it names (`get_id`: an id, a small int)."""
    value = _value_by_name(name[4:] if name.startswith("get_") and len(name) > 4 else name)
    return lambda *args, **kwargs: value


# -- repairs of made-up arguments, read from what a failed build raised ------------------------
#
# A repair is JSON, so that the rewritten side applies the ones the original side needed:
#   {"tensor": [parameter, option]}   the number made up for a keyword argument becomes the
#                                     option-th of argument_tensors()
#   {"list": [parameter, key, ...]}   the number a made-up dict holds at that key becomes a pair
#   {"int": parameter}                a made-up float becomes a size (`torch.Tensor(bins)`)
#   {"values": parameter}             a made-up number becomes a vector of values of its own (named_values)
#   {"numpy": parameter}              a made-up tensor becomes a numpy array (`torch.from_numpy(emb)`)

# The last keys read from made-up dicts during the current build, in order, with the value
# each gave (a bounded window: a forward may read a config in a loop).
_MAPPING_READS: collections.deque[tuple[tuple[str, ...], Any]] = collections.deque(maxlen=64)

# A number used as a tensor: `'int' object has no attribute 'size'` (`target.size()` in a
# helper the constructor calls), `mean(): argument 'input' (position 1) must be Tensor, not int`.
# `torch.Tensor(u)` of a made-up number: "new(): data must be a sequence (got float)".
_NOT_A_TENSOR = re.compile(r"'(int|float)' object has no attribute '(\w+)'|must be Tensor, not (int|float)\b"
                           r"|data must be a sequence \(got (int|float)\)")
# A number used as a sequence: `params["offset"][0]`, `for w in cfg["widths"]`, `len(...)`.
_NOT_A_SEQUENCE = re.compile(r"'(int|float)' object is not (?:subscriptable|iterable)|object of type '(int|float)' has no len\(\)")
# A number where a list is added to: `self.edge = connectivity + self_link` of a skeleton graph
# handed its edges.
_NOT_A_LIST = re.compile(r"unsupported operand type\(s\) for \+=?: '(int|float)' and 'list'"
                         r"|can only concatenate list \(not \"(int|float)\"\) to list")
# A made-up string (a path, for a name ending in `dir`) where data is wanted:
# `torch.tensor(F.tx_dir)` says "new(): invalid data type 'str'".
_STRING_AS_DATA = re.compile(r"new\(\): invalid data type 'str'|could not convert string to float"
                             r"|must be real number, not str|unsupported operand type\(s\) for [-+*/]=?: "
                             r"(?:'(?:int|float|Tensor)' and 'str'|'str' and '(?:int|float|Tensor)')")
# A made-up tensor reshaped into rows of a fixed width (`torch.tensor(grid).reshape(-1, 3)` of
# points in space): "shape '[-1, 3]' is invalid for input of size 64".
_ROWS_OF = re.compile(r"shape '\[-1, (\d+)\]' is invalid for input of size \d+")
# An assertion on the rank of what the constructor made of an argument
# (`assert len(self.system_sizes.shape) == 2` after `torch.tensor(system_sizes)`).
_ASSERTED_RANK = re.compile(r"assert\s+(?:len\(\s*(?:self\.)?(\w+)\.shape\s*\)|(?:self\.)?(\w+)\.(?:dim\(\)|ndim))"
                            r"\s*==\s*(\d)")
# A made-up number where a registered name is assigned: `nn.CrossEntropyLoss(weight=w)` of a
# number says "cannot assign 'float' object to buffer 'weight' (torch Tensor or None
# required)"; `self.theta = theta` on a registered parameter says "cannot assign 'int' as
# parameter 'theta' (torch.nn.Parameter or None expected)".
_NOT_A_REGISTERED_VALUE = re.compile(r"cannot assign '(int|float)'(?: object)? (?:to|as) (buffer|parameter) '\w+'")
# A made-up number read from a made-up dict and subscripted by a key in turn
# (`config['weighting_nn']['loss_factor']`): the value is a dict too, not a list.
_KEYED_AGAIN = r"\[\s*['\"]{key}['\"]\s*\]\s*\[\s*['\"]"
# Two arguments meant to be sequences of one length (frequencies and the levels at them), one
# made up as a number: scipy's "x and y arrays must be equal in length along interpolation
# axis", numpy's broadcast of two 1-d shapes.
_LENGTHS_DIFFER = re.compile(r"arrays must be equal in length|must have the same length"
                             r"|operands could not be broadcast together with shapes \(\d+,\) \(\d+,\)")
# A made-up list in arithmetic (`1/self.lam_set - 1/self.lamb` of wavelengths handed in):
# "unsupported operand type(s) for /: 'int' and 'list'"; the list is made a float tensor.
_LIST_IN_ARITHMETIC = re.compile(r"unsupported operand type\(s\) for (?:/|-|//|%|\*\*|@)=?: "
                                 r"(?:'(?:int|float|Tensor)' and 'list'|'list' and '(?:int|float|Tensor)')")
# What a number is made again as where a list is wanted: node pairs (edges, links), then numbers.
_MADE_UP_LISTS = ([(0, 1), (1, 2), (2, 3)], [SPATIAL, SPATIAL])
# A number unpacked into several names: `self.lo, self.hi = bounds`, `h, w = img_size`.
_NOT_UNPACKABLE = re.compile(r"cannot unpack non-iterable (int|float) object")
# The first tuple tried there: sizes (`h, w = img_size`); the second: distinct 0-dim tensors
# (`self.lo, self.hi = bounds`, where equal values would divide by zero).
_UNPACKED_OPTIONS = 2
# A tensor where numpy's array is taken: `torch.from_numpy(t)` says "expected np.ndarray (got Tensor)".
_NOT_AN_ARRAY = re.compile(r"expected np\.ndarray \(got Tensor\)")
MAX_REPAIRS = 8


def _label_mappings(value: Any, path: tuple[str, ...]) -> None:
    """Name each made-up dict by where it sits in the arguments, so that its reads say so."""
    if isinstance(value, MadeUpMapping):
        value.path = path
        for key, item in value.items():
            _label_mappings(item, (*path, str(key)))


def forget_mapping_reads() -> None:
    _MAPPING_READS.clear()


def argument_tensors(name: str = "") -> list[tuple[Any, str]]:
    """Tensors tried, lowest rank first, for a made-up number the constructor used as a tensor:
    a vector, a matrix, a feature map (batch x 3 channels x H x W), an image (3 x H x W).  The
    same values on both sides (made from a range, never drawn at random).  An argument named
    for indices (`user_indices`, `node_ids`) is tried first as the indices 0 .. n-1, which
    pick every row of what they index (a vector of ones picks row 1 only, or none)."""
    n = SPATIAL
    vector, matrix = _tensor_values("")[:2]  # ones(n), then the uniform n x n matrix
    indices = [(torch.arange(n), f"arange({n})")] if _names_indices(name) else []
    return [*indices, vector, matrix,
            (torch.linspace(0.0, 1.0, BATCH * 3 * n * n).reshape(BATCH, 3, n, n), f"linspace({BATCH}x3x{n}x{n})"),
            (torch.linspace(0.0, 1.0, 3 * n * n).reshape(3, n, n), f"linspace(3x{n}x{n})"),
            # last, for what only indices build (`torch.index_select(x, -1, self.which)`)
            *([] if indices else [(torch.arange(n), f"arange({n})")])]


def named_values(name: str) -> tuple[torch.Tensor, str]:
    """A vector of SPATIAL distinct values that depend on ``name`` (the same on both sides and
    in every run), for a made-up number the constructor turns into a tensor of data: two such
    arguments (`lb`, `ub`) never hold the same values, whose difference would be all zeros."""
    import zlib

    start = 1.0 + (zlib.crc32(name.encode()) % 89) / 89
    return torch.linspace(start, 2 * start, SPATIAL), f"linspace({start:.3g}, {2 * start:.3g}, {SPATIAL})"


def _names_indices(name: str) -> bool:
    words = _words(name.lower())
    return bool(words) and words[-1] in ("indices", "index", "idx", "ids", "indexes", "perm", "permutation", "order")


def argument_repairs(candidate: Candidate, error: BaseException, cls: type | None = None) -> list[dict[str, Any]]:
    """The repairs a build's error asks for, each to try on its own: the numbers of the same type
    among the keyword arguments made tensors (a number used as one), the number read last
    from a made-up dict made a pair (a number indexed or iterated), or the number added to a
    list on the line that raised made a list (of node pairs, then of numbers), the number
    unpacked on the line that raised made a tuple (of sizes, then of 0-dim tensors), or a parameter of
    ``cls`` given each string the code that raised compares it with before raising
    (_choices_that_raised); [] when the error says none of these."""
    message = str(error)
    found = _NOT_A_TENSOR.search(message)
    if found is not None:
        kind = found.group(1) or found.group(3) or found.group(4)
        attribute = found.group(2)
        if attribute is not None and not hasattr(torch.Tensor, attribute):
            return []
        names = [name for name, value in candidate.kwargs.items() if type(value).__name__ == kind]
        # `torch.unique(user_indices)`: the number on the line that raised, where one is there
        names = blamed_names(error, names) or names
        # `torch.Tensor(bins)` of a made-up 0.5: a size (an int) first, then a tensor
        sizes = [{"int": name} for name in names] if found.group(4) == "float" else []
        return sizes + [{"tensor": [name, option]} for name in names for option in range(len(argument_tensors(name)))]
    if _STRING_AS_DATA.search(message):
        # the made-up strings read on the line that raised (`F.tx_dir`), made numbers
        return [{"number": path} for path in _strings_read_there(error, candidate)]
    ranked = _asserted_ranks(error, candidate) if isinstance(error, AssertionError) else []
    if ranked:
        return ranked
    found = _ROWS_OF.search(message)
    if found is not None:
        # the made-up tensors named on the line that raised, given a last dimension that wide
        names = blamed_names(error, [name for name, value in candidate.kwargs.items()
                                     if isinstance(value, (torch.Tensor, _ndarray_type()))])
        return [{"width": [name, int(found.group(1))]} for name in names]
    found = _NOT_A_REGISTERED_VALUE.search(message)
    if found is not None:
        # only the argument on the line that raised (or that called the code that did)
        names = blamed_names(error, [name for name, value in candidate.kwargs.items() if type(value).__name__ == found.group(1)])
        if found.group(2) == "parameter":
            return [{"parameter": [name, option]} for name in names for option in range(len(argument_tensors(name)))]
        return [{"tensor": [name, option]} for name in names for option in range(len(argument_tensors(name)))]
    found = _NOT_A_LIST.search(message)
    if found is not None:
        # only the argument on the line that raised: a list made of any other number is a guess
        kind = found.group(1) or found.group(2)
        names = blamed_names(error, [name for name, value in candidate.kwargs.items() if type(value).__name__ == kind])
        return [{"sequence": [name, option]} for name in names for option in range(len(_MADE_UP_LISTS))]
    if _LENGTHS_DIFFER.search(message):
        # `interp1d(audiometric, audiogram)` of a made-up number and a made-up list: the numbers
        # named on the line that raised made lists as long as the lists named there
        named = blamed_names(error, [name for name, value in candidate.kwargs.items()
                                     if type(value) in (int, float, list)])
        lengths = [len(candidate.kwargs[name]) for name in named if type(candidate.kwargs[name]) is list]
        if lengths:
            return [{"lengths": [[name, max(lengths)] for name in named if type(candidate.kwargs[name]) is not list]}]
    if _LIST_IN_ARITHMETIC.search(message):
        names = blamed_names(error, [name for name, value in candidate.kwargs.items() if type(value) is list
                                     and value and all(type(v) in (int, float) for v in value)])
        return [{"array": name} for name in names]
    found = _NOT_UNPACKABLE.search(message)
    if found is not None:
        names = [name for name, value in candidate.kwargs.items() if type(value).__name__ == found.group(1)]
        return [{"items": [name, count, option]} for name, count in _unpacked_counts(error, names).items()
                for option in range(_UNPACKED_OPTIONS)]
    if _NOT_AN_ARRAY.search(message):
        # `torch.from_numpy(embedding)` of a made-up tensor: the same values as a numpy array
        return [{"numpy": name} for name, value in candidate.kwargs.items() if isinstance(value, torch.Tensor)]
    found = _NOT_A_SEQUENCE.search(message)
    if found is not None:
        kind = found.group(1) or found.group(2)
        for path, value in reversed(_MAPPING_READS):
            if type(value).__name__ == kind:
                if _keyed_again(error, path[-1]):
                    return [{"mapping": list(path)}]
                return [{"list": list(path)}]
        # `X[mask]` of a made-up number handed on (`Normalize(X_train, ...)`): the argument on
        # the line that raised (or that called the code that did) made a tensor
        names = blamed_names(error, [name for name, value in candidate.kwargs.items() if type(value).__name__ == kind])
        return [{"tensor": [name, option]} for name in names for option in range(len(argument_tensors(name)))]
    if cls is not None:
        parameters = {p.name for p in _constructor_parameters(cls) if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        return [{"choice": [name, value]} for name, value in _choices_that_raised(error, parameters)
                if candidate.kwargs.get(name) != value]
    return []


def _choices_that_raised(error: BaseException, names: set[str]) -> list[tuple[str, str]]:
    """``(name, string)`` for each string the repository's code that raised ``error`` compares
    one of ``names`` with (_compared_strings: a plain name or an attribute of self), where the
    raise sits in the `else` of those comparisons: `if strategy == 'uniform': ... elif
    strategy == 'distance': ... else: raise ValueError(...)` in a graph helper the constructor
    calls with a default ('Uniform') none of its arms takes.  The innermost frame in the
    repository decides."""
    import linecache

    frames = _repository_frames(error)
    if not frames:
        return []
    filename, number = frames[-1]
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return []
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and node.orelse
                and node.orelse[0].lineno <= number <= (node.orelse[-1].end_lineno or 0)):
            continue
        for name in sorted(names):
            for on_self in (False, True):
                found += [(name, value) for value in _compared_strings(node.test, name, on_self)
                          if (name, value) not in found]
    return found


def _repository_frames(error: BaseException) -> list[tuple[str, int]]:
    """``(file, line)`` of each frame of ``error``'s traceback in the repository's own code (not
    torch's, not this tool's), outermost first."""
    import traceback

    root = os.path.join(own_folder.repository_root(), "")
    frames = [(os.path.abspath(frame.f_code.co_filename), number)
              for frame, number in traceback.walk_tb(error.__traceback__)]
    return [(filename, number) for filename, number in frames
            if filename.startswith(root) and "site-packages" not in filename]


def _raising_line(error: BaseException) -> str:
    """The text of the line in the repository's own code that raised ``error`` (the innermost
    repository frame); "" where no frame of the traceback is the repository's."""
    import linecache

    frames = _repository_frames(error)
    return linecache.getline(*frames[-1]) if frames else ""


def _strings_read_there(error: BaseException, candidate: Candidate) -> list[list[str]]:
    """``[argument, attribute]`` for each made-up namespace attribute holding a string that the
    line that raised ``error`` reads (`argument.attribute`, or any `.attribute` of it kept on
    self), and ``[argument]`` for a made-up string argument it names."""
    line = _raising_line(error)
    if not line:
        return []
    words = set(re.findall(r"[A-Za-z_]\w*", line))
    found: list[list[str]] = []
    for name, value in candidate.kwargs.items():
        if isinstance(value, str) and name in words:
            found.append([name])
        elif isinstance(value, MadeUpConfig):
            found += [[name, key] for key, item in vars(value).items()
                      if isinstance(item, str) and re.search(rf"\.{re.escape(key)}\b", line)]
    return found


def _asserted_ranks(error: AssertionError, candidate: Candidate) -> list[dict[str, Any]]:
    """`assert len(self.system_sizes.shape) == 2` failing on a made-up number: the argument of
    that name made a nested list of that rank (sizes per system, one row each)."""
    found = _ASSERTED_RANK.search(_raising_line(error))
    if found is None or not 1 <= int(found.group(3)) <= 4:
        return []
    named = found.group(1) or found.group(2)
    numbers = [name for name, value in candidate.kwargs.items() if type(value) in (int, float)]
    return [{"rank": [name, int(found.group(3))]} for name in blamed_names(error, numbers) if name == named]


def _ndarray_type() -> type:
    import numpy as np  # torch's own dependency

    return np.ndarray


def _keyed_again(error: BaseException, key: str) -> bool:
    """Whether the line that raised ``error`` subscripts the value read at ``key`` by a string
    key in turn (`config['weighting_nn']['loss_lower_bound']`): a nested dict, not a list."""
    return re.search(_KEYED_AGAIN.format(key=re.escape(key)), _raising_line(error)) is not None


def _unpacked_counts(error: BaseException, names: list[str]) -> dict[str, int]:
    """name -> how many targets the line that raised ``error`` unpacks it into (`self.lo,
    self.hi = bounds`: bounds -> 2), for those of ``names`` unpacked there whole."""
    line = _raising_line(error)
    if not line:
        return {}
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return {}
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in names:
            for target in node.targets:
                if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
                    counts[node.value.id] = len(target.elts)
    return counts


def blamed_names(error: BaseException, names: list[str]) -> list[str]:
    """Those of ``names`` written on the line that raised ``error``, or else on the line that
    called it, and so on out: the traceback's lines in the repository's code (not torch's,
    not this tool's), innermost first.  Where the constructor calls
    `torch.unique(user_indices)` and a made-up number fails there, ``user_indices`` is the
    argument to make a tensor, not any other number it was handed; where a helper fails on
    its own name for it (`X[mask]` in `Normalize(X_train, ...)`), the constructor's line
    names it."""
    import linecache

    lines = [linecache.getline(filename, number) for filename, number in _repository_frames(error)]
    for line in reversed(lines):
        words = set(re.findall(r"[A-Za-z_]\w*", line))
        named = [name for name in names if name in words]
        if named:
            return named
    return []


def repaired(candidate: Candidate, repairs: list[dict[str, Any]]) -> Candidate:
    """``candidate`` with ``repairs`` applied (on copies: the candidate itself is left alone)."""
    if not repairs:
        return candidate
    import copy

    kwargs = copy.deepcopy(candidate.kwargs)
    description = candidate.description
    for repair in repairs:
        if "numpy" in repair:
            name = repair["numpy"]
            if not isinstance(kwargs.get(name), torch.Tensor):
                raise Unsynthesizable(f"no made-up tensor {name!r} to repair")
            kwargs[name] = kwargs[name].numpy()
            description = _shown_again(description, name, lambda old: f"array of {old}")
        elif "lengths" in repair:
            for name, length in repair["lengths"]:
                if name not in kwargs:
                    raise Unsynthesizable(f"no made-up argument {name!r} to repair")
                kwargs[name] = [kwargs[name]] * int(length)
                description = _shown_again(description, name, lambda _, made=kwargs[name]: str(made))
        elif "array" in repair:
            # a list of numbers used in arithmetic: the same numbers as a float tensor
            name = repair["array"]
            if not isinstance(kwargs.get(name), list):
                raise Unsynthesizable(f"no made-up list {name!r} to repair")
            kwargs[name] = torch.tensor([float(v) for v in kwargs[name]])
            description = _shown_again(description, name, lambda old: f"tensor({old})")
        elif "values" in repair:
            name = repair["values"]
            if name not in kwargs:
                raise Unsynthesizable(f"no made-up argument {name!r} to repair")
            kwargs[name], shown = named_values(name)
            description = _shown_again(description, name, lambda _, shown=shown: shown)
        elif "int" in repair:
            name = repair["int"]
            if name not in kwargs:
                raise Unsynthesizable(f"no made-up argument {name!r} to repair")
            kwargs[name] = SPATIAL
            description = _shown_again(description, name, lambda _: str(SPATIAL))
        elif "choice" in repair:
            name, value = repair["choice"]
            if name in kwargs:
                description = _shown_again(description, name, lambda _, value=value: repr(value))
            else:
                description = ", ".join(filter(None, (description, f"{name}={value!r}")))
            kwargs[name] = value
        elif "sequence" in repair:
            name, option = repair["sequence"]
            if name not in kwargs:
                raise Unsynthesizable(f"no made-up argument {name!r} to repair")
            kwargs[name] = list(_MADE_UP_LISTS[int(option)])
            description = _shown_again(description, name, lambda _, made=kwargs[name]: str(made))
        elif "items" in repair:
            name, count, option = repair["items"]
            if name not in kwargs:
                raise Unsynthesizable(f"no made-up argument {name!r} to repair")
            sizes = int(option) == 0
            kwargs[name] = tuple(SPATIAL if sizes else torch.tensor(float(i + 1)) for i in range(int(count)))
            description = _shown_again(description, name, lambda _, made=kwargs[name]: str(made))
        elif "tensor" in repair or "parameter" in repair:
            name, option = repair.get("tensor") or repair["parameter"]
            value, shown = argument_tensors(name)[int(option)]
            if name not in kwargs:
                raise Unsynthesizable(f"no made-up argument {name!r} to repair")
            if "parameter" in repair:  # assigned where the class registered a parameter
                value, shown = nn.Parameter(value.float()), f"nn.Parameter({shown})"
            kwargs[name] = value
            description = _shown_again(description, name, lambda _, shown=shown: shown)
        elif "rank" in repair:
            name, rank = repair["rank"]
            if type(kwargs.get(name)) not in (int, float):
                raise Unsynthesizable(f"no made-up number {name!r} to repair")
            value: Any = kwargs[name]
            for _ in range(int(rank)):
                value = [copy.deepcopy(value), copy.deepcopy(value)]
            kwargs[name] = value
            description = _shown_again(description, name, lambda _, made=value: str(made))
        elif "width" in repair:
            name, width = repair["width"]
            old_value = kwargs.get(name)
            if not hasattr(old_value, "shape"):
                raise Unsynthesizable(f"no made-up tensor {name!r} to repair")
            shape = (*tuple(old_value.shape), int(width))
            kwargs[name] = torch.linspace(0.0, 1.0, math.prod(shape)).reshape(shape)
            if not isinstance(old_value, torch.Tensor):
                kwargs[name] = kwargs[name].numpy()
            description = _shown_again(description, name, lambda _, shape=shape: f"linspace({'x'.join(map(str, shape))})")
        elif "number" in repair:
            name, *attribute = repair["number"]
            if name not in kwargs:
                raise Unsynthesizable(f"no made-up argument {name!r} to repair")
            number = _int_values((attribute or [name])[0].lower())[0]
            if attribute:
                setattr(kwargs[name], attribute[0], number)
                description += f"; {name}.{attribute[0]}={number}"
            else:
                kwargs[name] = number
                description = _shown_again(description, name, lambda _, shown=str(number): shown)
        elif "mapping" in repair:
            *parents, key = repair["mapping"]
            level = kwargs
            for part in parents:
                level = level[part] if not isinstance(level, MadeUpMapping) else dict.__getitem__(level, part)
            # an empty made-up dict: each key read gets a value by its name
            level[key] = MadeUpMapping()
            level[key].path = tuple(repair["mapping"])
            description += f"; {'.'.join(repair['mapping'])}=a dict"
        else:
            *parents, key = repair["list"]
            level: Any = kwargs
            for part in parents:
                level = level[part] if not isinstance(level, MadeUpMapping) else dict.__getitem__(level, part)
            value = level[key]
            level[key] = [value, value]
            description += f"; {'.'.join(repair['list'])}=[{value!r}, {value!r}]"
    return Candidate(candidate.args, kwargs, description)


def _shown_again(description: str, name: str, show: Callable[[str], str]) -> str:
    """``description`` with the value shown for ``name=`` replaced by ``show(old)``; a value in
    brackets (`which=[8, 8, 8]`) is replaced whole, commas and all."""
    found = re.search(rf"\b{re.escape(name)}=", description)
    if found is None:
        return description
    start = end = found.end()
    depth = 0
    while end < len(description):
        char = description[end]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char in ",;" and depth == 0:  # `; config.x=...` notes a repair after the arguments
            break
        end += 1
    return description[:start] + show(description[start:end]) + description[end:]


# -- values described as JSON ------------------------------------------------------------------

# A value spec is JSON, so that both sides (and the tool, which reads the repository's own
# calls statically: calls.py) describe the same value:
#   {"op": "randn"|"rand"|"ones"|"zeros", "shape": [...], "dtype": "float64"?}
#   {"op": "randint", "low": 0?, "high": n, "shape": [...]}     {"op": "arange", "start": 0, "end": n}
#   {"op": "eye", "n": n}    {"op": "tensor", "data": [...], "dtype": "long"?}
#   {"op": "value", "value": v}    {"op": "tuple"|"list", "items": [...]}    {"op": "dict", "items": [[k, spec]]}
#   {"op": "namespace", "kwargs": {...}}    {"op": "call", "target": "pkg.mod.Config", "args": [...], "kwargs": {...}}

_DTYPES = {
    "float": torch.float32, "float32": torch.float32, "float64": torch.float64, "double": torch.float64,
    "float16": torch.float16, "half": torch.float16, "bfloat16": torch.bfloat16,
    "long": torch.int64, "int64": torch.int64, "int": torch.int32, "int32": torch.int32, "int16": torch.int16,
    "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
    "cfloat": torch.complex64, "complex64": torch.complex64, "cdouble": torch.complex128, "complex128": torch.complex128,
}


def make(spec: dict[str, Any], importer: Any = None) -> Any:
    """The value a spec describes (tensors drawn from the current random state)."""
    op = spec["op"]
    dtype = _DTYPES.get(spec.get("dtype") or "")
    if op in ("randn", "rand", "ones", "zeros"):
        factory = {"randn": torch.randn, "rand": torch.rand, "ones": torch.ones, "zeros": torch.zeros}[op]
        shape = tuple(spec["shape"])  # () is one number, a 0-d tensor
        return factory(shape, dtype=dtype) if dtype is not None else factory(shape)
    if op == "randint":
        return torch.randint(int(spec.get("low", 0)), int(spec["high"]), tuple(spec["shape"]))
    if op == "arange":
        return torch.arange(spec.get("start", 0), spec["end"], dtype=dtype)
    if op == "eye":
        return torch.eye(int(spec["n"]), dtype=dtype)
    if op == "tensor":
        return torch.tensor(spec["data"], dtype=dtype)
    if op == "tuple":
        return tuple(make(item, importer) for item in spec["items"])
    if op == "list":
        return [make(item, importer) for item in spec["items"]]
    if op == "dict":
        return {key: make(item, importer) for key, item in spec["items"]}
    if op == "namespace":
        return types.SimpleNamespace(**{k: make(v, importer) for k, v in spec["kwargs"].items()})
    if op == "call":
        if importer is None:
            raise ValueError(f"cannot build {spec['target']} here")
        target = importer(spec["target"])
        return target(*(make(a, importer) for a in spec.get("args", [])),
                      **{k: make(v, importer) for k, v in spec.get("kwargs", {}).items()})
    return spec.get("value")


def make_inputs(specs: dict[str, Any], importer: Any = None) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (tuple(make(s, importer) for s in specs.get("args", [])),
            {k: make(s, importer) for k, s in specs.get("kwargs", {}).items()})


def describe(specs: dict[str, Any]) -> str:
    parts = [describe_value(s) for s in specs.get("args", [])]
    parts += [f"{k}={describe_value(s)}" for k, s in specs.get("kwargs", {}).items()]
    return ", ".join(parts)


def describe_value(spec: dict[str, Any]) -> str:
    op = spec["op"]
    shape = "x".join(str(d) for d in spec.get("shape", ()))
    dtype = f", {spec['dtype']}" if spec.get("dtype") else ""
    if op in ("randn", "rand", "ones", "zeros"):
        return f"{op}({shape}{dtype})"
    if op == "randint":
        return f"randint<{spec.get('high')}({shape})"
    if op == "arange":
        return f"arange({spec.get('start', 0)}, {spec['end']}{dtype})"
    if op == "eye":
        return f"eye({spec['n']}{dtype})"
    if op == "tensor":
        return f"tensor({spec['data']!r}{dtype})"
    if op in ("tuple", "list"):
        inner = ", ".join(describe_value(item) for item in spec["items"])
        return f"({inner},)" if op == "tuple" and len(spec["items"]) == 1 else (
            f"({inner})" if op == "tuple" else f"[{inner}]")
    if op == "dict":
        return "{" + ", ".join(f"{k!r}: {describe_value(v)}" for k, v in spec["items"]) + "}"
    if op == "namespace":
        return "namespace(" + ", ".join(f"{k}={describe_value(v)}" for k, v in spec["kwargs"].items()) + ")"
    if op == "call":
        inner = [describe_value(a) for a in spec.get("args", [])]
        inner += [f"{k}={describe_value(v)}" for k, v in spec.get("kwargs", {}).items()]
        return f"{spec['target'].rpartition('.')[2]}({', '.join(inner)})"
    return repr(spec.get("value"))


# -- forward inputs ----------------------------------------------------------------------------

MAX_INPUT_CANDIDATES = 12

# A loss or a metric takes a prediction and a target of the same shape (forward(input, target),
# forward(pred, gt), forward(x, y)): the target gets what the prediction gets.
_PREDICTION_NAMES = ("input", "inputs", "pred", "preds", "prediction", "predictions", "output", "outputs", "logits",
                     "x", "y_pred", "y_hat", "yhat", "x_hat", "xhat", "estimate", "est", "recon", "reconstruction",
                     "fake", "predict", "predicted", "score", "scores", "prob", "probs", "sr", "out")
_TARGET_NAMES = ("target", "targets", "gt", "ground_truth", "groundtruth", "label", "labels", "y", "y_true", "true",
                 "real", "ref", "reference", "hr", "truth", "gold", "mask_gt", "tgt_gt")
_TOKEN_NAMES = ("input_ids", "ids", "tokens", "token_ids", "idx", "indices", "src_tokens", "tgt_tokens", "words",
                "word_ids", "seq", "sequence", "text", "sentence", "src", "tgt", "source_ids", "target_ids", "x_ids")
_ADJACENCY_NAMES = ("adj", "adjacency", "a_hat", "adj_matrix", "graph", "support", "supports", "laplacian", "lap",
                    "edge_weight", "adj_mx")
_TIME_NAMES = ("t", "timestep", "timesteps", "time", "times", "sigma", "sigmas", "noise_level", "noise_levels",
               "step", "steps")
# Names of the times of a sequence's steps (`event_time`, `timestamps`, `arrival_times`).
_EVENT_TIME_ENDINGS = ("_time", "_times", "timestamp", "timestamps")
# Shapes for an input nothing sizes (a loss, a metric, a layer-less module), most common first;
# last, a one-channel signal (a waveform for F.conv1d).
_GENERIC_SHAPES = ([BATCH, 16], [BATCH, SEQ, 16], [BATCH, 3, 16, 16], [BATCH, 64], [BATCH], [BATCH, 1, 64])


class _Model:
    """What the model itself says about its inputs, looked at once per candidate list."""

    def __init__(self, model: nn.Module) -> None:
        self.model = model
        self.width = _width_specs(model)
        self.embedding = next((m for m in model.modules() if isinstance(m, (nn.Embedding, nn.EmbeddingBag))), None)
        self.nodes = node_counts(model)
        try:
            self.forward_tree: ast.AST | None = ast.parse(textwrap.dedent(sources.original_source(entry_point(type(model)))))
        except (OSError, TypeError, SyntaxError, IndentationError):
            self.forward_tree = None


def input_candidates(model: nn.Module, known: list[dict[str, Any]] | tuple = ()) -> list[dict[str, Any]]:
    """Input specs to try on ``model``'s forward, most plausible first ([] when none).

    ``known``: inputs the repository's own code passes (calls.py), tried first; then inputs
    made up from the first layer each parameter meets, the parameter's name, annotation and
    default, the adjacency the model holds, and shapes of the usual kinds of models.
    """
    candidates: list[dict[str, Any]] = []

    def add(candidate: dict[str, Any]) -> None:
        if candidate not in candidates and len(candidates) < MAX_INPUT_CANDIDATES + len(known):
            candidates.append(candidate)

    for candidate in known:
        add(candidate)
    forward = entry_point(type(model))
    try:
        parameters = list(inspect.signature(forward).parameters.values())[1:]
    except (TypeError, ValueError):
        return candidates
    required = [p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if not required:
        add({"args": [], "kwargs": {}})
        return candidates
    hints = _hints(forward)
    first_layers = _first_layer_uses(model, type(model))
    if not first_layers and not isinstance(model, (nn.Sequential, nn.ModuleList)) and layer_specs(model):
        # the model is itself a torch.nn layer (a subclass of nn.Conv2d): its first input is the layer's
        first_layers = {required[0].name: model}
    seen = _Model(model)
    per_param: list[list[dict[str, Any]]] = []
    for p in required:
        specs = _param_specs(p, hints.get(p.name, p.annotation), first_layers.get(p.name), seen)
        if not specs:
            return candidates
        per_param.append(specs)
    documented = documented_shapes(forward, [p.name for p in required], type(model))
    if documented:
        # the shapes forward's docstring gives (`:param x: (batch_size, 27, 128, 320)`): the
        # author's own word, tried before any shape made up from the layers
        add(_arrange(required, [documented.get(p.name) or specs[0] for p, specs in zip(required, per_param)]))
    pair = _prediction_and_target(required, first_layers, hints)
    if pair is not None:
        prediction, target = pair
        # the same shapes, drawn separately; a target in [0, 1) (probabilities, a mask, soft
        # labels), never negative: `F.cross_entropy(x, randn)` in a focal loss gives a negative
        # loss whose `exp(-ce)` overflows under a half cast, which no real target does
        per_param[target] = [{**spec, "op": "rand"} if spec.get("op") == "randn" else spec
                             for spec in per_param[prediction]]
        classes = _one_hot_classes(seen, required[target].name)
        if classes is not None:
            # `F.one_hot(targets, num_classes=self.num_classes)`: class indices, one per sample,
            # and a prediction with a score per class; first, as forward itself says so
            indices = [{"op": "randn", "shape": [BATCH, classes]} if k == prediction
                       else {"op": "randint", "high": classes, "shape": [BATCH]} if k == target
                       else specs[0] for k, specs in enumerate(per_param)]
            add(_arrange(required, indices))
    for j in range(max(len(s) for s in per_param)):
        chosen = [s[min(j, len(s) - 1)] for s in per_param]
        add(_arrange(required, chosen))
        if j == 0 and pair is not None:
            # a loss over a masked sequence: right after the plainest inputs, before shapes
            # that run it only by broadcasting
            masked = _masked_sequence_loss(required, per_param, *pair)
            if masked is not None:
                add(masked)
    # images too small for a model that halves them several times (a U-Net, a Laplacian
    # pyramid): the first two image candidates again at LARGE_IMAGE, past the usual limit
    for image in [c for c in candidates[len(known):] if _small_images(c)][:2]:
        larger = _with_image_size(image, LARGE_IMAGE)
        if larger not in candidates:
            candidates.append(larger)
    held = _held_batch_size(model)
    if held is not None:
        # a module built for one batch size (a contrastive loss whose mask pairs 2 x batch_size
        # rows): the first made-up inputs again with that batch
        for made in candidates[len(known):len(known) + 2]:
            rebatched = _mapped(made, lambda spec: _with_batch(spec, held))
            if rebatched not in candidates:
                candidates.append(rebatched)
    if pair is not None:
        # classification: class indices for the target, as cross-entropy takes them; where the
        # module holds its number of classes (`self.classes = n_classes`), that many scores
        prediction, target = pair
        classes = _held_class_count(model)
        for spec in per_param[prediction]:
            shape = spec.get("shape") or []
            if spec["op"] == "randn" and len(shape) >= 2:
                channel = 1 if len(shape) > 2 else len(shape) - 1
                if classes is not None:
                    shape = [*shape[:channel], classes, *shape[channel + 1:]]
                    spec = {**spec, "shape": shape}
                chosen = [s[0] for s in per_param]
                chosen[prediction] = spec
                chosen[target] = {"op": "randint", "high": int(shape[channel]), "shape": [shape[0], *shape[2:]]}
                add(_arrange(required, chosen))
    # Last, past the limit `add` keeps (so that they crowd out none of the above):
    for nodes in (seen.nodes or _input_node_counts(candidates[len(known):]))[:1]:
        # a graph model over node features (`torch.mm(adj, x)`): one row per node, as many as
        # the adjacency it holds or is handed, not a batch
        matrices = [c for c in candidates[len(known):] if any(_rank(spec) == 2 and spec["shape"][0] == BATCH
                                                               for spec in _input_specs(c))]
        for made in matrices[:3]:
            per_node = _mapped(made, lambda spec: _with_batch(spec, nodes) if _rank(spec) == 2 else spec)
            if per_node not in candidates:
                candidates.append(per_node)
    sizes = [p for p in parameters if p.default is None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
             and _names_a_size(p.name)]
    if sizes:
        # `forward(self, x, seq_len=None)`: None skips what the module builds for a length
        # (a rotary table cached on first use); a length as long as the made-up sequences
        for made in candidates[len(known):len(known) + 2]:
            sized = {"args": list(made["args"]), "kwargs": {**made["kwargs"], **{p.name: {"op": "value", "value": SEQ}
                                                                                  for p in sizes}}}
            if sized not in candidates:
                candidates.append(sized)
    return candidates


def flag_variants(model: nn.Module, candidate: dict[str, Any] | None) -> list[dict[str, Any]]:
    """``candidate`` again with each flag forward takes with a default (`forward(self, x,
    inverse=False)`) given its other value: the arm of forward only that value runs (an
    invertible layer's inverse pass) reads the held tensors too."""
    if not candidate:
        return []
    parameters = _forward_parameters(type(model))
    if parameters is None:
        return []
    given = set(candidate.get("kwargs", {}))
    return [{"args": list(candidate.get("args", [])),
             "kwargs": {**candidate.get("kwargs", {}), p.name: {"op": "value", "value": not p.default}}}
            for p in parameters if isinstance(p.default, bool) and p.name not in given
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


# A shape in a docstring: `(batch_size, 27, 128, 320)`, `[B, T, D]`, `(N, 3, H, W)`.
_DOCUMENTED_SHAPE = re.compile(r"[(\[]\s*((?:[A-Za-z_][\w.]*|\d+)(?:\s*[,x×]\s*(?:[A-Za-z_][\w.]*|\d+)){0,4})\s*,?\s*[)\]]")
# The line that documents a parameter: `:param x: ...`, `x: ...`, `x (Tensor): ...`, `- x: ...`.
_PARAMETER_LINE = r"^\s*(?::param\s+(?:\w+\s+)?|[-*]\s*)?{name}\s*(?:\([^)]*\))?\s*:(.*)$"
_BATCH_NAMES = frozenset({"b", "n", "bs", "batch", "batch_size", "batchsize", "nbatch", "num_batch"})
_SEQUENCE_NAMES = frozenset({"t", "l", "s", "seq", "seq_len", "seqlen", "len", "length", "time", "timesteps"})
_CHANNEL_NAMES = frozenset({"c", "ch", "channels", "in_channels", "num_channels"})
_SIDE_NAMES = frozenset({"h", "w", "d", "height", "width", "depth", "img_size", "image_size"})


def documented_shapes(function: Any, names: list[str], owner: type | None = None) -> dict[str, dict[str, Any]]:
    """``{parameter: spec}`` for the parameters whose docstring line gives a shape with a
    batch first, or a time before the batch (`:param x: (batch_size, 27, 128, 320)`,
    `x (Tensor): [B, T, D]`, `I: (T,B,C,H,W)`): numbers kept, a batch's name made BATCH, a
    sequence's SEQ, a channel's 3, a side's 4 x SPATIAL, any other name SPATIAL.  The
    parameters ``function``'s docstring says nothing of are looked up in the docstring of
    ``owner`` (the class), where many modules list their inputs.  {} when neither gives any."""
    found: dict[str, dict[str, Any]] = {}
    for holder in (function, owner):
        rest = [name for name in names if name not in found]
        if holder is not None and rest:
            found.update(_documented_in((inspect.getdoc(holder) or "").splitlines(), rest))
    rest = [name for name in names if name not in found]
    if rest:
        found.update(_commented_shapes(function, rest))
    return found


def _commented_shapes(function: Any, names: list[str]) -> dict[str, dict[str, Any]]:
    """``{parameter: spec}`` from the comments of ``function``'s own source that give a
    parameter's shape before the function rebinds it (`# traj_input (N, M, 3), mat_input
    (N, M, M, 2)`, `def forward(self, x):  # x: [B, C, H, W]`): a comment after `x = ...`
    says what the new `x` is, not what is passed in."""
    try:
        source = textwrap.dedent(sources.original_source(function))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError, ValueError):
        return {}
    rebound: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            rebound[node.id] = min(rebound.get(node.id, node.lineno), node.lineno)
    lines = source.splitlines()
    found: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        _, hash_, comment = line.partition("#")
        if not hash_:
            continue
        for name in names:
            if name in found or number >= rebound.get(name, len(lines) + 1):
                continue
            matched = re.search(rf"(?<![\w.]){re.escape(name)}\s*(?:[:=]|\bshape\b|\bof shape\b)?\s*([(\[][^()\[\]]*[)\]])",
                                comment)
            if matched is None:
                continue
            shape = _shape_of(matched.group(1))
            if shape is not None:
                found[name] = {"op": "randn", "shape": shape}
    return found


def _documented_in(lines: list[str], names: list[str]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name in names:
        pattern = re.compile(_PARAMETER_LINE.format(name=re.escape(name)))
        for index, line in enumerate(lines):
            matched = pattern.match(line)
            if matched is None:
                continue
            # its own line, then the lines indented under it
            text = matched.group(1)
            for more in lines[index + 1:index + 4]:
                if not more.strip() or pattern.match(more) or re.match(r"^\s*(?::param|:return|\w+\s*(?:\([^)]*\))?\s*:)", more):
                    break
                text += " " + more
            shape = _shape_of(text)
            words = set(_words(name)) | set(re.findall(r"[a-z]+", text.lower()))
            if shape is None:
                pass
            elif words & {"mask", "bool", "boolean"}:
                found[name] = {"op": "ones", "shape": shape, "dtype": "bool"}
            elif words & {"ids", "indices", "labels", "tokens", "long", "longtensor"}:
                found[name] = {"op": "randint", "high": 2, "shape": shape}  # ids every vocabulary holds
            else:
                found[name] = {"op": "randn", "shape": shape}
            break
    return found


def _shape_of(text: str) -> list[int] | None:
    for matched in _DOCUMENTED_SHAPE.finditer(text):
        parts = [part for part in re.split(r"\s*[,x×]\s*", matched.group(1)) if part]
        time_first = len(parts) > 2 and parts[0].lower() in _SEQUENCE_NAMES and parts[1].lower() in _BATCH_NAMES
        if not parts or not (parts[0].isdigit() or parts[0].lower() in _BATCH_NAMES or time_first):
            continue  # a shape starts with its batch (`(x, y)` in prose is not one)
        batch = 1 if time_first else 0
        shape = [BATCH if index == batch and not part.isdigit() else int(part) if part.isdigit()
                 else SEQ if part.lower() in _SEQUENCE_NAMES else 3 if part.lower() in _CHANNEL_NAMES
                 else 4 * SPATIAL if part.lower() in _SIDE_NAMES else SPATIAL
                 for index, part in enumerate(parts)]
        if all(0 < size <= 4096 for size in shape) and math.prod(shape) <= MAX_LONGER_ELEMENTS:
            return shape
    return None


def _masked_sequence_loss(required: list[inspect.Parameter], per_param: list[list[dict[str, Any]]], prediction: int,
                          target: int) -> dict[str, Any] | None:
    """A sequence loss with a mask (`forward(pred, target, umask)` of a dialogue or tagging
    model): the prediction flattened over batch and time (BATCH*SEQ x C), the target one class
    index per step, the mask BATCH x SEQ, as `pred * mask.view(-1, 1)` wants them."""
    masks = [i for i, p in enumerate(required) if i not in (prediction, target) and "mask" in p.name.lower()]
    if len(masks) != 1 or len(required) != 3:
        return None
    shape = next((spec.get("shape") for spec in per_param[prediction] if spec["op"] == "randn" and spec.get("shape")), None)
    classes = int(shape[-1]) if shape else SPATIAL
    chosen = [{}, {}, {}]
    chosen[prediction] = {"op": "randn", "shape": [BATCH * SEQ, classes]}
    chosen[target] = {"op": "randint", "high": classes, "shape": [BATCH * SEQ]}
    chosen[masks[0]] = {"op": "ones", "shape": [BATCH, SEQ]}
    return _arrange(required, chosen)


LARGE_IMAGE = 128

# Batch sizes a module may hold (`self.batch_size = batch_size`) that inputs are made with.
MAX_HELD_BATCH = 256


# What a classification module calls its number of classes.
_CLASS_COUNT_NAMES = ("classes", "n_classes", "num_classes", "nclass", "nclasses", "num_class", "n_class", "class_num")


def _held_class_count(model: nn.Module) -> int | None:
    return next((vars(model)[name] for name in _CLASS_COUNT_NAMES if _class_count(vars(model).get(name)) is not None),
                None)


def _class_count(value: Any) -> int | None:
    """value, when it can be a number of classes (an int from 2 to 4096)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 4096 else None


def _held_batch_size(model: nn.Module) -> int | None:
    """The batch size the module keeps (`self.batch_size`, `self.batch_size_gen`: a simulator
    that draws one sample per row it was built for), where it is not ours."""
    for name, value in sorted(vars(model).items(), key=lambda item: item[0] != "batch_size"):
        if "batch_size" not in name.lower() and "batchsize" not in name.lower():
            continue
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_HELD_BATCH and value != BATCH:
            return value
    return None


def _input_node_counts(candidates: list[dict[str, Any]]) -> list[int]:
    """N of the N x N adjacency the first made-up inputs hand the forward (`adj`), if any."""
    for candidate in candidates[:1]:
        for spec in _input_specs(candidate):
            if _rank(spec) == 2 and spec["shape"][0] == spec["shape"][1] != BATCH:
                return [spec["shape"][0]]
    return []


def _rank(spec: Any) -> int | None:
    return len(spec.get("shape") or []) if isinstance(spec, dict) and spec.get("shape") is not None else None


def _with_batch(spec: Any, batch: int) -> Any:
    if isinstance(spec, dict) and spec.get("op") in ("randn", "rand", "randint") and (spec.get("shape") or [None])[0] == BATCH:
        return {**spec, "shape": [batch, *spec["shape"][1:]]}
    return spec


# What a failed forward says about the rank its input needed: `b, c, h, w = x.shape` on a
# matrix, F.pad of four sizes on a matrix, a conv2d handed a vector.
_UNPACK_RANK = re.compile(r"(?:not enough|too many) values to unpack \(expected (\d)(?:, got (\d))?\)")
_PADDING_RANK = re.compile(r"Padding size (\d+) is not supported for (\d)D input")
_EXPECTED_RANK = re.compile(r"Expected (?:\d)D \(unbatched\) or (\d)D \(batched\) input|Expected (\d)(?:D|-dimensional) input"
                            # a repository's own check: "Input images should be 4-d or 5-d tensors"
                            r"|(?:should|must) be (?:a )?(\d)-?[dD](?: or \d-?[dD])? (?:tensor|input|array)")
# A repository's own size check: "Image size should be larger than 160 due to the 4
# downsamplings": images one step past that side.
_LARGER_THAN = re.compile(r"(?:size|side|resolution)[^.\n]{0,40}?(?:larger|greater|bigger) than (\d+)")
MAX_IMAGE_SIDE = 512
# `torch.mm(self.A, x)` or `x.t()` handed a batch of sequences: both take matrices only
_MATRIX_WANTED = re.compile(r"\b(?:self|mat1|mat2) must be a matrix|t\(\) expects a tensor with <= 2 dimensions")
# `x.size(2)` or `x.flatten(2)` of a matrix: a dimension past the input's last, so at least one more
_DIM_RANGE = re.compile(r"Dimension out of range \(expected to be in range of \[-(\d+), -?\d+\], but got (-?\d+)\)")


# `x[:, :, 0]` on a matrix: the input needs one more dimension than it has.
_TOO_MANY_INDICES = re.compile(r"too many indices for tensor of dimension (\d)")
# `torch.gather(x, 2, idx)` with indices past the input's length there (a delay-and-sum
# beamformer reading sample 2166 of each signal): that dimension long enough to hold them.
_OUT_OF_BOUNDS = re.compile(r"index (\d+) is out of bounds for dimension (\d) with size (\d+)")


# A sequence or image too short for a kernel or a pooling: `Kernel size can't be greater than
# actual input size`, `Calculated padded input size per channel: (8). Kernel size: (10)`.
_TOO_SHORT = re.compile(r"Kernel size can't be greater than actual input size|Output size is too small")
# A signal shorter than the reflect padding an STFT adds (`n_fft // 2` each side): "Padding size
# should be less than the corresponding input dimension, but got: padding (512, 512)".
_PADDING_TOO_LONG = re.compile(r"Padding size should be less than the corresponding input dimension, but got: padding \((\d+), (\d+)\)")
# A window longer than the signal it slides over (`nn.Unfold((1, frame_size))` of a loudness
# meter's 0.4 s frames at 44.1 kHz): "Given input with spatial size (1, 1), kernel_size=(1, 17640)".
_SLIDING_WINDOW = re.compile(r"Given input with spatial size \(\d+(?:, \d+)*\), kernel_size=\((?:\d+, )*(\d+)\)")
_LONGER = (64, 256)
MAX_LONGER_ELEMENTS = 1 << 22
MAX_LENGTHENED = 1 << 14

# A matrix product whose weight takes another width: "(2x16 and 8x4)" wants 8 features; a
# recurrent layer's own check (torch.nn.RNN, LSTM, GRU and their copies) names it outright.
_MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied \(\d+x(\d+) and (\d+)x\d+\)")
_INPUT_SIZE = re.compile(r"input\.size\(-1\) must be equal to input_size\. Expected (\d+), got (\d+)")
# Broadcasting against a tensor the model holds: `x + self.time_signal[:, :T]` with x 2 x 7
# says "The size of tensor a (7) must match the size of tensor b (200) at non-singleton
# dimension 2": the input wants 200 there.
_SIZE_MISMATCH = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)")
# `cell(x.view(1, -1), ...)` on our batch of 2: the features doubled, a batch of 1 is meant
_FLATTENED_BATCH = re.compile(r"input has inconsistent input_size: got (\d+) expected (\d+)")
# A recurrent state the module holds, built for another batch (`self.hidden = torch.zeros(1, 1,
# h)`): "Expected hidden[0] size (1, 2, 8), got [1, 1, 8]" wants inputs of batch 1.
_HIDDEN_BATCH = re.compile(r"Expected hidden(?:\[\d\])? size \(\d+, (\d+), \d+\), got \[\d+, (\d+), \d+\]")


def _sized_again(candidate: dict[str, Any], message: str) -> list[dict[str, Any]]:
    """The first input with its last size set to the one a broadcast or a matrix product asked
    for, or with that size added as a last dimension (token ids become features: floats)."""
    found = _SIZE_MISMATCH.search(message)
    first = _first_input(candidate, ("randn", "rand", "randint"))
    if first is None or not first.get("shape"):
        return []
    if found is not None:
        ours, wanted = int(found.group(1)), int(found.group(2))
        replaced_first = False
    elif (found := _MATMUL.search(message)) is not None:
        # `(2x16 and 8x4)`: the input's 16 features where the weight (of a layer torch does not
        # know, which sized nothing) takes 8
        ours, wanted = int(found.group(1)), int(found.group(2))
        replaced_first = True
    elif (found := _INPUT_SIZE.search(message)) is not None:
        ours, wanted = int(found.group(2)), int(found.group(1))
        replaced_first = True
    else:
        return []
    shape = list(first["shape"])
    if shape[-1] != ours and replaced_first and found.re is _MATMUL:
        return _images_for_features(candidate, ours, wanted)
    if found.re is _SIZE_MISMATCH and wanted <= 4096:
        dim = int(found.group(3))
        if dim < len(shape) - 1 and shape[dim] == ours and dim > 0:
            # `inputs + self.embedding(self.grid)`, a (1, 8, 8, 8) grid, met a 2 x 3 x 16 x 8 input
            # at dimension 2: an inner size of the held tensor, which the input takes too
            return [_replaced(candidate, first, {**first, "shape": [*shape[:dim], wanted, *shape[dim + 1:]]})]
    if shape[-1] != ours or wanted > 4096:
        return []
    options = ([*shape[:-1], wanted], [*shape, wanted]) if replaced_first else ([*shape, wanted], [*shape[:-1], wanted])
    # `forward(x_cur, u, x_post)` made as three images, where `u` feeds a linear layer: one input,
    # not all those made alike, is a vector of the width the layer takes
    alike = [k for k, spec in enumerate(_input_specs(candidate)) if spec == first]
    singles = [_with_input(candidate, k, {"op": "randn", "shape": [shape[0], wanted]}) for k in alike] \
        if replaced_first and len(shape) >= 3 and len(alike) > 1 else []
    return singles + [_replaced(candidate, first, {"op": "randn", "shape": option}) for option in options]


# An op that takes integer indices handed floats: one_hot, indexing, an embedding, nll_loss's target.
_INDEX_DTYPE = re.compile(r"one_hot is only applicable to index tensor|tensors used as indices must be long"
                          r"|'indices' to have one of the following scalar types|expected scalar type Long but found"
                          r"|Expected object of scalar type Long|\"nll_loss\w*\" not implemented for 'Float'"
                          # `x[i, :lengths[i]]`, `index_select(m, 0, ids)` with made-up floats
                          r"|only integer tensors of a single element can be converted to an index"
                          r"|Expected dtype int(?:64|32)(?: or int(?:64|32))? for index")
# torch's convolutions: "expected input[2, 256, 8, 8] to have 8 channels, but got 256 channels instead"
_CHANNELS = re.compile(r"expected input\[(\d+(?:, \d+)*)\] to have (\d+) channels, but got \d+ channels")


def _as_indices(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """Class indices or ids made up as floats (`F.one_hot(target)`, an embedding's ids): each
    float input in turn, the last first (a target follows its prediction), as integers."""
    specs = _input_specs(candidate)
    floats = [k for k, spec in enumerate(specs) if isinstance(spec, dict)
              and spec.get("op") in ("randn", "rand") and spec.get("shape")]
    return [_with_input(candidate, k, {"op": "randint", "high": 2, "shape": list(specs[k]["shape"])})
            for k in reversed(floats)][:2]


def _at_channels(candidate: dict[str, Any], message: str) -> list[dict[str, Any]]:
    """The input a convolution met with another channel count than its weight takes (`self.down`
    iterated, so the first layer was guessed from a later one), at the count it asked for."""
    found = _CHANNELS.search(message)
    if found is None:
        return []
    shape = [int(part) for part in found.group(1).split(", ")]
    wanted = int(found.group(2))
    met = [spec for spec in _input_specs(candidate) if isinstance(spec, dict) and spec.get("shape") == shape]
    if not met or wanted > 4096:
        return []
    return [_replaced(candidate, met[0], {**met[0], "shape": [shape[0], wanted, *shape[2:]]})]


# `int(t * steps)` or `float(t)` on a made-up vector: the code wants one number (an ODE's time)
_SCALAR_WANTED = re.compile(r"only one element tensors can be converted to Python scalars"
                            r"|a Tensor with \d+ elements cannot be converted to Scalar")


# A probability taken where made-up inputs are normal draws (`F.binary_cross_entropy(pred,
# target)` of a loss that is handed probabilities): "all elements of input should be between
# 0 and 1".
_PROBABILITIES_WANTED = re.compile(r"all elements of (?:input|target) should be between 0 and 1")


def positive_inputs(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """The normal float inputs drawn uniformly in [0, 1) instead: all of them (a prediction and
    its target), then the first alone. For a loss handed probabilities, and for a forward that
    takes square roots or logarithms of its inputs (probe.py)."""
    specs = _input_specs(candidate)
    normal = [k for k, spec in enumerate(specs) if _drawn_normal(spec)]
    together = _mapped(candidate, _drawn_positive)  # the tensors of a made-up tuple too
    if together == candidate:
        return []
    alone = [_with_input(candidate, normal[0], {**specs[normal[0]], "op": "rand"})] if normal else []
    return _distinct([together, *alone])


def _drawn_normal(spec: Any) -> bool:
    return isinstance(spec, dict) and spec.get("op") == "randn" and not spec.get("dtype")


def _drawn_positive(spec: Any) -> Any:
    """A normal float input drawn in [0, 1) instead, inside made-up tuples and lists too."""
    if _drawn_normal(spec):
        return {**spec, "op": "rand"}
    if isinstance(spec, dict) and spec.get("op") in ("tuple", "list"):
        return {**spec, "items": [_drawn_positive(item) for item in spec["items"]]}
    return spec


# A complex-valued network (complex weights, `F.linear(x, W)` with W complex) handed real
# inputs: "mat1 and mat2 must have the same dtype, but got Float and ComplexFloat".
_COMPLEX_WANTED = re.compile(r"must have the same dtype, but got Float and Complex(?:Float|Double)"
                             r"|expected scalar type Complex\w* but found Float"
                             r"|expected m1 and m2 to have the same dtype, but got: float != c10::complex")


def _as_complex(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """The float inputs made complex: all of them (a complex network's signals), then the
    first alone."""
    specs = _input_specs(candidate)
    floats = [k for k, spec in enumerate(specs) if isinstance(spec, dict) and spec.get("op") in _FLOAT_DRAWS
              and not spec.get("dtype")]
    if not floats:
        return []
    together = candidate
    for k in floats:
        together = _with_input(together, k, {**specs[k], "op": "randn", "dtype": "cfloat"})
    first = _with_input(candidate, floats[0], {**specs[floats[0]], "op": "randn", "dtype": "cfloat"})
    return _distinct([together, first])


def _as_scalars(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """Each made-up vector in turn (`rand(2)`, an ODE function's time) as one number, a 0-d
    tensor, for code that turns it into a Python number."""
    specs = _input_specs(candidate)
    vectors = [k for k, spec in enumerate(specs) if isinstance(spec, dict)
               and spec.get("op") in ("randn", "rand") and len(spec.get("shape") or []) == 1]
    return [_with_input(candidate, k, {**specs[k], "shape": []}) for k in vectors][:2]


def _per_sample_as_column(candidate: dict[str, Any], message: str) -> list[dict[str, Any]]:
    """A value per sample (a diffusion time, `rand(2)`) broadcast against a held table
    (`t.float() * self.freqs[None]`: "The size of tensor a (2) must match the size of tensor b
    (128) at non-singleton dimension 1"), made again as a column (`2 x 1`), as such code expects."""
    found = _SIZE_MISMATCH.search(message)
    if found is None or int(found.group(1)) != BATCH:
        return []
    vectors = [spec for spec in _input_specs(candidate) if isinstance(spec, dict)
               and spec.get("op") in ("rand", "randn") and spec.get("shape") == [BATCH]]
    return [_replaced(candidate, vectors[0], {**vectors[0], "shape": [BATCH, 1]})] if vectors else []


def _images_for_features(candidate: dict[str, Any], ours: int, wanted: int) -> list[dict[str, Any]]:
    """Square images whose flattened feature maps give a linear layer the width it takes:
    `x.view(n, -1)` after the convolutions gives 128 features of a 16 x 16 image where `fc1`
    takes 1152 (128 channels of 3 x 3), so the side grows by the square root of 1152 / 128."""
    images = _image_specs(candidate)
    if not images or not all(s["shape"][2] == s["shape"][3] for s in images) or ours <= 0:
        return []
    side = images[0]["shape"][2]
    scaled = side * math.sqrt(wanted / ours)
    sides = [math.ceil(scaled), math.ceil(scaled / 16) * 16]
    return [_with_image_size(candidate, s) for s in dict.fromkeys(sides) if 1 <= s <= MAX_IMAGE_SIDE and s != side]


def repaired_candidates(candidate: dict[str, Any], message: str, blamed: Iterable[int] = ()) -> list[dict[str, Any]]:
    """Made-up inputs again, at the rank or size a failed forward's error asks for (its first
    input, and those made like it): `(2 x 16)` raising `not enough values to unpack (expected
    4, got 2)` gives `(2 x 16 x 16 x 16)` and `(2 x 3 x 32 x 32)`; a broadcast against a held
    tensor of 200 features gives the input those 200; [] when the error says neither.

    ``blamed``: the positions (in ``_input_specs`` order) of the inputs the line that raised
    names, where known. Those are made again first, the others held as they were: `S1 =
    y[:, 0]` in `forward(self, t, y)` asks more of ``y``, not of ``t``, the first. The repairs
    of the first input follow, as without that knowledge."""
    plain = _repairs(candidate, message)
    specs = _input_specs(candidate)
    blamed = {k for k in blamed if 0 <= k < len(specs)}
    if not blamed or len(blamed) == len(specs):
        return plain
    held = {k: spec for k, spec in enumerate(specs) if k not in blamed}
    focused = [_unmasked(again, held) for again in _repairs(_masked(candidate, held), message)]
    return _distinct(focused + plain)


# A forward input left at its default None that the line that raised reads as a tensor
# (`prefix_len, _, input_dim = prefix.shape` in `forward(self, x, prefix=None)`).
_NONE_READ = re.compile(r"'NoneType' object (?:has no attribute '\w+'|is not subscriptable|is not iterable)"
                        r"|unsupported operand type\(s\) for [^:]+: '(?:NoneType|Tensor)' and '(?:NoneType|Tensor)'"
                        r"|must be Tensor, not NoneType|but got NoneType")


def forward_repairs(model: nn.Module, candidate: dict[str, Any], error: BaseException) -> list[dict[str, Any]]:
    """Inputs to try after ``candidate`` made ``model``'s forward raise ``error``: first, where
    the line that raised reads an input forward leaves at None, that input given a tensor made
    like the first; then repaired_candidates, aimed at the inputs that line names."""
    message = str(error)
    parameters = _forward_parameters(type(model))
    if parameters is None:
        return repaired_candidates(candidate, message)
    args, kwargs = list(candidate.get("args", [])), dict(candidate.get("kwargs", {}))
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [*positional[:len(args)], *[""] * (len(args) - len(positional)), *kwargs]
    named = set(blamed_names(error, [name for name in names if name]))
    out = []
    if _NONE_READ.search(message):
        unset = [p.name for p in parameters if p.default is None and p.name not in names
                 and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        like = _first_input(candidate, (*_FLOAT_DRAWS, "randint"))
        if like is not None:
            out += [{"args": args, "kwargs": {**kwargs, name: dict(like)}} for name in blamed_names(error, unset)[:2]]
    out += _unpacked_inputs(candidate, error, names)
    out += repaired_candidates(candidate, message, [k for k, name in enumerate(names) if name in named])
    return _distinct(out)


# `depths, masks, boundaries = x` on a made-up tensor of our batch: unpacked along its first
# dimension, which has BATCH rows, where the forward wanted a sequence of that many inputs.
_UNPACKED = re.compile(r"(?:not enough|too many) values to unpack \(expected (\d+)(?:, got (\d+))?\)")
_UNPACKS_NAME = re.compile(r"^\s*[\w\s,()\[\]*]+?=\s*(\w+)\s*(?:#.*)?$")
_MAX_UNPACKED = 8


def _unpacked_inputs(candidate: dict[str, Any], error: BaseException, names: list[str]) -> list[dict[str, Any]]:
    """Where the line that raised unpacks an input itself (`pred, target, mask = x`, not
    `b, c = x.shape`) into as many names as the error says, that input made a tuple of that
    many tensors, each made as it was."""
    found = _UNPACKED.search(str(error))
    line = _UNPACKS_NAME.match(_raising_line(error))
    if found is None or line is None or line.group(1) not in names:
        return []
    count = int(found.group(1))
    k = names.index(line.group(1))
    specs = _input_specs(candidate)
    spec = specs[k] if k < len(specs) else None
    if not 2 <= count <= _MAX_UNPACKED or not isinstance(spec, dict) or spec.get("op") not in _FLOAT_DRAWS:
        return []
    unpacked = {"op": "tuple", "items": [dict(spec) for _ in range(count)]}
    args, kwargs = list(candidate.get("args", [])), dict(candidate.get("kwargs", {}))
    if k < len(args):
        args[k] = unpacked
    else:
        kwargs[list(kwargs)[k - len(args)]] = unpacked
    return [{"args": args, "kwargs": kwargs}]


# A stand-in for an input a repair must leave alone (no repair makes anything of this op).
_HELD = "held"


def _masked(candidate: dict[str, Any], held: dict[int, Any]) -> dict[str, Any]:
    """``candidate`` with the inputs at the positions of ``held`` replaced by stand-ins."""
    args = [{"op": _HELD, "k": k} if k in held else spec for k, spec in enumerate(candidate.get("args", []))]
    offset = len(args)
    kwargs = {name: {"op": _HELD, "k": offset + k} if offset + k in held else spec
              for k, (name, spec) in enumerate(candidate.get("kwargs", {}).items())}
    return {"args": args, "kwargs": kwargs}


def _unmasked(candidate: dict[str, Any], held: dict[int, Any]) -> dict[str, Any]:
    """``candidate`` with its stand-ins given back the inputs they stood for."""
    return _mapped(candidate, lambda spec: held[spec["k"]] if isinstance(spec, dict) and spec.get("op") == _HELD else spec)


def _repairs(candidate: dict[str, Any], message: str) -> list[dict[str, Any]]:
    """repaired_candidates, for the first input the error can be about."""
    sized = _sized_again(candidate, message)
    if sized:
        return _distinct(sized)
    per_sample = _per_sample_as_column(candidate, message)
    if per_sample:
        return per_sample
    if _INDEX_DTYPE.search(message):
        return _as_indices(candidate)
    if _SCALAR_WANTED.search(message):
        return _as_scalars(candidate)
    if _COMPLEX_WANTED.search(message):
        return _as_complex(candidate)
    if _PROBABILITIES_WANTED.search(message):
        return positive_inputs(candidate)
    at_channels = _at_channels(candidate, message)
    if at_channels:
        return at_channels
    viewed = _viewed_as(candidate, message)
    if viewed:
        return _distinct(viewed)
    if (found := _HIDDEN_BATCH.search(message)) is not None:
        return _distinct(_rebatched(candidate, int(found.group(1)), int(found.group(2))))
    if (found := _FLATTENED_BATCH.search(message)) is not None and int(found.group(1)) == BATCH * int(found.group(2)):
        return _distinct(_rebatched(candidate, BATCH, 1))
    if _TOO_SHORT.search(message):
        return _distinct(_longer(candidate))
    if (found := _PADDING_TOO_LONG.search(message)) is not None:
        return _distinct(_longer_signals(candidate, 2 * max(int(found.group(1)), int(found.group(2))) + 1))
    if (found := _SLIDING_WINDOW.search(message)) is not None:
        return _distinct(_longer_signals(candidate, int(found.group(1))))
    if (found := _OUT_OF_BOUNDS.search(message)) is not None:
        return _distinct(_lengthened(candidate, *(int(g) for g in found.groups())))
    if (found := _LARGER_THAN.search(message)) is not None:
        side = -(-(int(found.group(1)) + 1) // 16) * 16  # the next multiple of 16 past it
        if side <= MAX_IMAGE_SIDE and _image_specs(candidate):
            return [_with_image_size(candidate, side)]
    rank = None
    found = _UNPACK_RANK.search(message)
    if found is not None:
        rank = int(found.group(1))
    elif (found := _PADDING_RANK.search(message)) is not None:
        rank = int(found.group(1)) // 2 + 2
    elif (found := _EXPECTED_RANK.search(message)) is not None:
        rank = int(next(g for g in found.groups() if g))
    elif _MATRIX_WANTED.search(message):
        rank = 2
    elif (found := _TOO_MANY_INDICES.search(message)) is not None:
        rank = int(found.group(1)) + 1
        first = _first_input(candidate, ("randn", "rand"))
        if first is None or len(first.get("shape") or []) != rank - 1:
            return []  # the error is about another tensor than the first input
    elif (found := _DIM_RANGE.search(message)) is not None:
        held, asked = int(found.group(1)), int(found.group(2))
        rank = asked + 1 if asked >= 0 else -asked
        first = _first_input(candidate, ("randn", "rand")) or _first_nested(candidate)
        if first is None or len(first.get("shape") or []) != held or rank <= held:
            return []  # the error is about another tensor than the first input
    first = _first_input(candidate, ("randn", "rand"))
    replace = _replaced
    if first is None and (first := _first_nested(candidate)) is not None:
        replace = _replaced_deep  # the tensors of a made-up tuple (`pred, target = x`)
    if rank is None or not 2 <= rank <= 5 or first is None or len(first.get("shape") or []) == rank:
        return []
    shape = list(first["shape"])
    widths = list(dict.fromkeys([shape[1], shape[-1]] if len(shape) > 1 else [16]))
    inner = [16] * (rank - 2)
    options = []
    for width in widths:  # the layer's width first (channels, a conv) or last (features, a linear)
        options += [[BATCH, width, *inner], [BATCH, *inner, width]] if rank > 2 else [[BATCH, width]]
    if rank == 4:
        options.append([BATCH, 3, 32, 32])
    # every input made like the first (a pair to compare) alike
    return _distinct([replace(candidate, first, {**first, "shape": option}) for option in options])


# `x.view(bs, self.in_channel, 1)` on an input of another size: the shape forward wanted.
_VIEW_SHAPE = re.compile(r"shape '\[(-?\d+(?:, -?\d+)*)\]' is invalid for input of size \d+")


def _viewed_as(candidate: dict[str, Any], message: str) -> list[dict[str, Any]]:
    """The first input (and those made like it) at the shape a failed `view`/`reshape` of it
    names, when that shape starts with our batch: `[2, 8, 1]` gives `(2 x 8)` (its size-1
    dimensions dropped, as a view that adds them expects) and `(2 x 8 x 1)`."""
    found = _VIEW_SHAPE.search(message)
    first = _first_input(candidate, ("randn", "rand")) or _first_nested(candidate)
    if found is None or first is None or not first.get("shape"):
        return []
    shape = [int(part) for part in found.group(1).split(", ")]
    if shape[0] == -1 and -1 not in shape[1:] and all(size > 0 for size in shape[1:]):
        # `x.reshape(-1, 16, 13, 3)`, `x.view(-1, 1, 28, 28)`: our batch of exactly that, and of
        # the same values flattened (a forward that views a flat input)
        whole = [first["shape"][0], *shape[1:]]
        if math.prod(whole) > 65536:
            return []
        flat = [first["shape"][0], math.prod(shape[1:])]
        options = [option for option in (flat, whole) if option != list(first["shape"])]
        return [_replaced_deep(candidate, first, {**first, "shape": option}) for option in _distinct(options)]
    if shape[0] != first["shape"][0] or math.prod(shape) > 65536:
        return []
    squeezed = [shape[0], *[size for size in shape[1:] if size != 1]]
    options = [option for option in (*_merged(shape, list(first["shape"])), squeezed, shape)
               if option != list(first["shape"])]
    return [_replaced_deep(candidate, first, {**first, "shape": option}) for option in _distinct(options)]


def _first_nested(candidate: dict[str, Any]) -> dict[str, Any] | None:
    """The first float tensor inside a made-up dict or list input (`data["keypoints0"]`)."""
    pending = [spec for spec in _input_specs(candidate) if isinstance(spec, dict)]
    while pending:
        spec = pending.pop(0)
        if spec.get("op") in ("randn", "rand") and spec.get("shape"):
            return spec
        for item in spec.get("items") or []:
            inner = item[1] if isinstance(item, list) and len(item) == 2 and spec.get("op") == "dict" else item
            if isinstance(inner, dict):
                pending.append(inner)
    return None


def _replaced_deep(candidate: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """_replaced, inside made-up dicts and lists too (every tensor made like ``old``)."""
    def change(spec: Any) -> Any:
        if _alike(spec, old):
            return _as(spec, new)
        if isinstance(spec, dict) and spec.get("op") == "dict":
            return {**spec, "items": [[key, change(value)] for key, value in spec.get("items") or []]}
        if isinstance(spec, dict) and spec.get("op") in ("list", "tuple"):
            return {**spec, "items": [change(item) for item in spec.get("items") or []]}
        return spec

    return _mapped(candidate, change)


def _merged(view: list[int], ours: list[int]) -> list[list[int]]:
    """The view's shape at our input's rank, neighbouring sizes multiplied together, where the
    view splits one dimension of the input: `p.view(bs, 3, 85, ny, nx)` of a `(2 x 64 x 16 x 16)`
    map wants `(2 x 255 x 16 x 16)`, `x.view(B, N, heads, d)` of `(2 x 7 x 16)` wants
    `(2 x 7 x heads*d)`.  Those that keep more of our sizes where they are come first."""
    extra = len(view) - len(ours)
    if extra <= 0 or len(ours) < 2:
        return []
    options = [[*view[:i], math.prod(view[i:i + extra + 1]), *view[i + extra + 1:]] for i in range(1, len(ours))]
    return sorted(options, key=lambda option: -sum(a == b for a, b in zip(option, ours)))


def _rebatched(candidate: dict[str, Any], ours: int, held: int) -> list[dict[str, Any]]:
    """The inputs with the batch a held recurrent state was built for, in the first dimension
    that now has our batch (dimension 0 with batch_first, else the one after the time steps)."""
    first = _first_input(candidate, ("randn", "rand", "randint"))
    shape = list((first or {}).get("shape") or [])
    if held < 1 or held > MAX_HELD_BATCH or len(shape) < 2 or ours not in shape[:2]:
        return []
    dim = shape[:2].index(ours)

    def rebatched(spec: Any) -> Any:
        if isinstance(spec, dict) and spec.get("op") in ("randn", "rand", "randint") and len(spec.get("shape") or []) > dim \
                and spec["shape"][dim] == ours:
            return {**spec, "shape": [*spec["shape"][:dim], held, *spec["shape"][dim + 1:]]}
        return spec

    return [_mapped(candidate, rebatched)]


def _longer(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """The inputs of rank 3 and more with every size past the channels at 64, then 256."""
    options = [_mapped(candidate, lambda spec, size=size: _with_length(spec, size)) for size in _LONGER]
    return [option for option in options if option != candidate]


def _longer_signals(candidate: dict[str, Any], needed: int) -> list[dict[str, Any]]:
    """The inputs made like the first (signals, `batch x samples`) with their last dimension
    past the ``needed`` samples a failed STFT's padding or a sliding window asked for (the next
    power of two, then four times that)."""
    first = _first_input(candidate, ("randn", "rand"))
    shape = list(first.get("shape") or []) if first is not None else []
    if len(shape) < 2 or shape[-1] >= needed:
        return []  # long enough: the error is about another tensor than the first input
    assert first is not None
    length = 1 << needed.bit_length()
    options = []
    for size in (length, 4 * length):
        longer = [*shape[:-1], size]
        if math.prod(longer) <= MAX_LONGER_ELEMENTS:
            options.append(_replaced(candidate, first, {**first, "shape": longer}))
    return options


def _lengthened(candidate: dict[str, Any], index: int, dim: int, size: int) -> list[dict[str, Any]]:
    """The first input (and those made like it) with dimension ``dim``, of ``size``, made long
    enough for ``index``, where the first input has that size there.  The error names the first
    index past the end it met, not the largest, so the dimension is made as long as
    MAX_LONGER_ELEMENTS allows (a power of two, at most MAX_LENGTHENED)."""
    first = _first_input(candidate, ("randn", "rand"))
    shape = list(first.get("shape") or []) if first is not None else []
    if dim >= len(shape) or shape[dim] != size or index < size:
        return []  # the error is about another tensor than the first input
    others = math.prod(shape) // size
    longest = min(MAX_LENGTHENED, 1 << max(0, (MAX_LONGER_ELEMENTS // others).bit_length() - 1))
    if longest <= index:
        return []
    shape[dim] = longest
    assert first is not None
    return [_replaced(candidate, first, {**first, "shape": shape})]


def _with_length(spec: Any, size: int) -> Any:
    shape = spec.get("shape") if isinstance(spec, dict) and spec.get("op") in ("randn", "rand") else None
    if not shape or len(shape) < 3 or max(shape[2:]) >= size:
        return spec
    longer = [*shape[:2], *([size] * (len(shape) - 2))]
    return {**spec, "shape": longer} if math.prod(longer) <= MAX_LONGER_ELEMENTS else spec


def _input_specs(candidate: dict[str, Any]) -> list[Any]:
    return [*candidate.get("args", []), *candidate.get("kwargs", {}).values()]


def _image_specs(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    specs = _input_specs(candidate)
    return [s for s in specs if isinstance(s, dict) and s.get("op") in ("randn", "rand") and len(s.get("shape") or []) == 4]


def _small_images(candidate: dict[str, Any]) -> bool:
    """A candidate whose image inputs (B x C x H x W) are all square and at most 32 wide."""
    images = _image_specs(candidate)
    return bool(images) and all(s["shape"][2] == s["shape"][3] <= 32 for s in images)


def _with_image_size(candidate: dict[str, Any], size: int) -> dict[str, Any]:
    def resized(spec: Any) -> Any:
        if spec in images:
            return {**spec, "shape": [*spec["shape"][:2], size, size]}
        return spec

    images = _image_specs(candidate)
    return _mapped(candidate, resized)


def _mapped(candidate: dict[str, Any], change: Callable[[Any], Any]) -> dict[str, Any]:
    """The candidate with ``change`` applied to each of its input specs."""
    return {"args": [change(a) for a in candidate.get("args", [])],
            "kwargs": {k: change(v) for k, v in candidate.get("kwargs", {}).items()}}


def _first_input(candidate: dict[str, Any], ops: tuple[str, ...]) -> dict[str, Any] | None:
    """The first input spec made by one of ``ops``."""
    return next((s for s in _input_specs(candidate) if isinstance(s, dict) and s.get("op") in ops), None)


def _replaced(candidate: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The candidate with every input made like ``old`` (a pair to compare alike) made ``new``."""
    return _mapped(candidate, lambda spec: _as(spec, new) if _alike(spec, old) else spec)


# Ops of made-up float tensors that differ only in their values: a prediction (`randn`) and
# its target (`rand`) are a pair made again alike.
_FLOAT_DRAWS = ("randn", "rand")


def _alike(spec: Any, old: dict[str, Any]) -> bool:
    """Whether ``spec`` is made as ``old`` is, its values drawn from either float draw."""
    if spec == old:
        return True
    return (isinstance(spec, dict) and spec.get("op") in _FLOAT_DRAWS and old.get("op") in _FLOAT_DRAWS
            and {k: v for k, v in spec.items() if k != "op"} == {k: v for k, v in old.items() if k != "op"})


def _as(spec: Any, new: dict[str, Any]) -> dict[str, Any]:
    """``new``, keeping the float draw of ``spec`` (a target stays in [0, 1))."""
    if isinstance(spec, dict) and spec.get("op") in _FLOAT_DRAWS and new.get("op") in _FLOAT_DRAWS:
        return {**new, "op": spec["op"]}
    return new


def _with_input(candidate: dict[str, Any], k: int, new: dict[str, Any]) -> dict[str, Any]:
    """The candidate with its ``k``-th input (in ``_input_specs`` order: positional, then
    keyword) made ``new``."""
    args, kwargs = list(candidate.get("args", [])), dict(candidate.get("kwargs", {}))
    if k < len(args):
        args[k] = new
    else:
        kwargs[list(kwargs)[k - len(args)]] = new
    return {"args": args, "kwargs": kwargs}


def _arrange(required: list[inspect.Parameter], chosen: list[dict[str, Any]]) -> dict[str, Any]:
    args, kwargs = [], {}
    for p, spec in zip(required, chosen):
        if p.kind == p.KEYWORD_ONLY:
            kwargs[p.name] = spec
        else:
            args.append(spec)
    return {"args": args, "kwargs": kwargs}


def _one_hot_classes(seen: _Model, name: str) -> int | None:
    """The class count forward one-hot encodes parameter ``name`` with (`F.one_hot(targets.long(),
    num_classes=self.num_classes)`): a literal, or an integer attribute of the model; None
    where forward does not say."""
    if seen.forward_tree is None:
        return None
    for node in ast.walk(seen.forward_tree):
        if not (isinstance(node, ast.Call) and node.args and (
                isinstance(node.func, ast.Attribute) and node.func.attr == "one_hot"
                or isinstance(node.func, ast.Name) and node.func.id == "one_hot")):
            continue
        if not any(isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node.args[0])):
            continue
        given = next((k.value for k in node.keywords if k.arg == "num_classes"), node.args[1] if len(node.args) > 1 else None)
        value: Any = None
        if isinstance(given, ast.Constant):
            value = given.value
        elif isinstance(given, ast.Attribute) and isinstance(given.value, ast.Name) and given.value.id == "self":
            value = getattr(seen.model, given.attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and 1 < value <= 4096:
            return value
    return None


def _prediction_and_target(required: list[inspect.Parameter], first_layers: dict[str, nn.Module],
                           hints: dict[str, Any]) -> tuple[int, int] | None:
    """(index of the prediction, index of the target) when forward takes a pair to compare."""
    names = [p.name.lower() for p in required]
    target = next((i for i, n in enumerate(names) if n in _TARGET_NAMES or n.endswith(("_target", "_gt", "_true"))),
                  None)
    if target is None or required[target].name in first_layers:
        return None
    annotation = _strip_optional(hints.get(required[target].name, inspect.Parameter.empty))
    if annotation in (int, float, bool):
        return None
    prediction = next((i for i, n in enumerate(names) if i != target and
                       (n in _PREDICTION_NAMES or n.startswith(("pred", "out", "logit", "recon", "x_"))
                        or n.endswith(("_pred", "_hat", "_out", "_logits")))), None)
    if prediction is None:
        prediction = next((i for i in range(len(names)) if i != target), None)
    return (prediction, target) if prediction is not None else None


def _param_specs(p: inspect.Parameter, annotation: Any, layer: nn.Module | None, seen: _Model) -> list[dict[str, Any]]:
    name = p.name.lower()
    annotation = _strip_optional(annotation)
    if annotation is int:
        return [{"op": "value", "value": 2}]
    if annotation is float:
        return [{"op": "value", "value": 0.5}]
    if annotation is bool:
        return [{"op": "value", "value": False}]
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, typing.Sequence) or annotation in (list, tuple):
        items = _generic_floats(seen)[:2]
        return [{"op": "list", "items": [item, item]} for item in items]
    if _looks_bool(name) or "_is_" in name:
        # `forward(self, input, target_is_real)`: a flag, both ways (a GAN loss, real then fake)
        return [{"op": "value", "value": True}, {"op": "value", "value": False}]
    if layer is not None:
        specs = layer_specs(layer, seen.nodes)
        if specs and name.endswith("idx"):
            # `source_idx` into an embedding: one index per sample as well as a token batch
            specs = _distinct(specs + [{**spec, "shape": [BATCH]} for spec in specs if spec.get("op") == "randint"])
        if specs:
            return specs
    if _names_a_given_size(name):
        # `forward(self, p, img_size)`: the size of what the data came from, handed beside it
        # (`max(img_size)`, `img_size[0]`, `F.interpolate(x, size=size)`): a pair of sides, then
        # one side, as a square image's (`img_size / p.shape[-1]`)
        return [{"op": "value", "value": [GIVEN_SIDE, GIVEN_SIDE]}, {"op": "value", "value": GIVEN_SIDE}]
    keys = _subscript_reads(seen.forward_tree, p.name)
    if keys:  # `config["alpha"]` in forward: a dict with those keys, values by name
        return _dict_specs(keys, seen, _is_config_name(name))
    if "mask" in name:
        return [{"op": "ones", "shape": [BATCH, SEQ]}]
    if name in _ADJACENCY_NAMES or name.startswith("adj") or (name in ("a", "g") and seen.nodes):
        return [{"op": "rand", "shape": [n, n]} for n in (seen.nodes or [SPATIAL])]
    if name in _TOKEN_NAMES or name.endswith(("_ids", "_idx", "_tokens")):
        high = seen.embedding.num_embeddings if seen.embedding is not None else 10
        tokens = [{"op": "randint", "high": high, "shape": [BATCH, SEQ]}]
        # `source_idx`, one index per sample (a class, a group), where `_ids`/`_tokens` are sequences
        return tokens + ([{"op": "randint", "high": high, "shape": [BATCH]}] if name.endswith("idx") else [])
    specs = []
    if name in _TIME_NAMES:  # a diffusion timestep, a noise level: one number per sample
        specs.append({"op": "rand", "shape": [BATCH]})
    elif name.endswith(_EVENT_TIME_ENDINGS):
        # `event_time`, `timestamps` beside a sequence: one time per step of each sample (a
        # point process, a dynamic graph)
        specs.append({"op": "rand", "shape": [BATCH, SEQ]})
    specs += _generic_floats(seen)
    if seen.embedding is not None:  # a sequence model handed token ids under another name
        specs.append({"op": "randint", "high": seen.embedding.num_embeddings, "shape": [BATCH, SEQ]})
    if seen.width:  # the first layer may not be where this input goes: the usual shapes last
        specs += [{"op": "randn", "shape": list(shape)} for shape in _GENERIC_SHAPES]
    return _distinct(specs)


def _dict_specs(reads: dict[str, Any], seen: _Model, options: bool) -> list[dict[str, Any]]:
    """Dicts with the keys a forward reads: options by their names (`alpha`, `device`,
    `n_class`; every key of a dict named like a config), data (`batch["image"]`) a tensor of
    each of the usual sizes in turn."""
    data = _generic_floats(seen)[:3] or [{"op": "randn", "shape": [BATCH, 16]}]

    def made(level: dict[str, Any], tensor: dict[str, Any]) -> dict[str, Any]:
        items = []
        for key, nested in level.items():
            lowered = key.lower()
            if nested:
                items.append([key, made(nested, tensor)])
            elif options or _looks_bool(lowered) or _looks_float(lowered) or _string_value(lowered) is not None or any(
                    f in lowered for fragments, _ in _INT_NAMES for f in fragments):
                items.append([key, {"op": "value", "value": _value_by_name(key)}])
            else:
                items.append([key, tensor])
        return {"op": "dict", "items": items}

    return _distinct([made(reads, tensor) for tensor in data])


def _is_config_name(name: str) -> bool:
    return any(name == c or name.endswith("_" + c) or name.startswith(c + "_") for c in _CONFIG_PARAMS)


def _distinct(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The specs in order, each once (dicts: not hashable, compared whole)."""
    out: list[dict[str, Any]] = []
    for spec in specs:
        if spec not in out:
            out.append(spec)
    return out


def _generic_floats(seen: _Model) -> list[dict[str, Any]]:
    """Sized by the model's first layer; else by the tensors it holds (a layer-less module
    combines its input with them: ``x * self.scale``, ``x @ self.projection``); else the
    usual shapes."""
    if seen.width:
        return list(seen.width)
    held = held_shapes(seen.model)
    # a graph layer without nn layers (x @ self.W over N nodes): node features, B x N x F, F
    # one of the sizes of the tensors it holds
    sizes = list(dict.fromkeys(size for shape in held for size in shape[1:]))
    specs = [{"op": "randn", "shape": [BATCH, n, f]} for n in seen.nodes[:1] for f in sizes[:6]]
    specs += [{"op": "randn", "shape": shape} for shape in held]
    specs += [{"op": "randn", "shape": list(shape)} for shape in _GENERIC_SHAPES]
    return _distinct(specs)


def held_shapes(model: nn.Module, limit: int = 3) -> list[list[int]]:
    """Input shapes that fit the tensors the model holds itself: ``[B, first size]`` (``x @ t``),
    ``[B, last size]`` (``x * t``), ``[B, *shape]`` (``x.masked_fill(mask, 0)``), and for a
    kernel ``[B, in channels, 16, ...]`` (``F.conv2d(x, self.kernel)``)."""
    shapes: list[list[int]] = []
    seen = 0
    for value in list(vars(model).values()) + list(model._buffers.values()) + list(model._parameters.values()):
        if not isinstance(value, torch.Tensor) or value.dim() == 0 or value.device.type == "meta" \
                or max(value.shape) > 4096:
            continue
        seen += 1
        shapes_of = [[BATCH, int(value.shape[0])], [BATCH, int(value.shape[-1])], [BATCH, *map(int, value.shape)]]
        if 3 <= value.dim() <= 5:
            # a convolution kernel (out x in x k...) applied with F.convNd: in channels, a small signal/image
            shapes_of.append([BATCH, int(value.shape[1]), *([16] * (value.dim() - 2))])
            if value.shape[1] == 1:  # a depthwise kernel (groups = channels): out channels in
                shapes_of.append([BATCH, int(value.shape[0]), *([16] * (value.dim() - 2))])
        for shape in shapes_of:
            if shape not in shapes:
                shapes.append(shape)
        if seen >= limit:
            break
    return shapes


def node_counts(model: nn.Module) -> list[int]:
    """Sizes N of the N x N matrices the model holds (an adjacency, graph supports, one per channel),
    most common first."""
    counts: dict[int, int] = {}

    def look(value: Any) -> None:
        # N x N, or a stack of them (one adjacency per channel or head: C x N x N)
        if isinstance(value, torch.Tensor) and value.dim() in (2, 3) and value.shape[-1] == value.shape[-2] \
                and value.shape[-1] > 1 and value.device.type != "meta":
            counts[int(value.shape[-1])] = counts.get(int(value.shape[-1]), 0) + 1
        elif isinstance(value, (list, tuple)):
            for item in value[:8]:
                look(item)

    for module in model.modules():
        for value in list(vars(module).values()) + list(module._buffers.values()):
            look(value)
    return sorted(counts, key=lambda n: (-counts[n], n))[:2]


def layer_specs(layer: nn.Module, nodes: list[int] | tuple = ()) -> list[dict[str, Any]]:
    """Inputs a layer accepts, from its sizes (``nodes``: a graph's node counts, for models
    over nodes and time)."""
    while isinstance(layer, (nn.Sequential, nn.ModuleList)) and len(layer) > 0:
        layer = layer[0]
    if isinstance(layer, nn.Linear):
        f = layer.in_features
        specs = [{"op": "randn", "shape": [BATCH, SEQ, f]}, {"op": "randn", "shape": [BATCH, f]}]
        specs += [{"op": "randn", "shape": shape} for n in nodes for shape in ([BATCH, n, f], [n, f])]
        return specs
    if isinstance(layer, nn.Bilinear):
        return [{"op": "randn", "shape": [BATCH, layer.in1_features]}]
    if isinstance(layer, (nn.Conv1d, nn.ConvTranspose1d)):
        specs = [{"op": "randn", "shape": [BATCH, layer.in_channels, 16]}]
        specs += [{"op": "randn", "shape": [BATCH, layer.in_channels, n]} for n in nodes]
        return specs + [{"op": "randn", "shape": [BATCH, layer.in_channels, 64]}]
    if isinstance(layer, (nn.Conv2d, nn.ConvTranspose2d)):
        c = layer.in_channels
        # over nodes and time (N x T, a traffic or sensor model), else images, small to large
        specs = [{"op": "randn", "shape": [BATCH, c, n, t]} for n in nodes for t in (13, 12)]
        return specs + [{"op": "randn", "shape": [BATCH, c, size, size]} for size in (16, 32, 64)]
    if isinstance(layer, (nn.Conv3d, nn.ConvTranspose3d)):
        return [{"op": "randn", "shape": [BATCH, layer.in_channels, size, size, size]} for size in (SPATIAL, 16)]
    if isinstance(layer, (nn.Embedding, nn.EmbeddingBag)):
        return [{"op": "randint", "high": layer.num_embeddings, "shape": [BATCH, SEQ]}]
    if isinstance(layer, nn.LayerNorm) or type(layer).__name__ == "RMSNorm":
        shape = list(getattr(layer, "normalized_shape", ()) or ())
        if shape:
            return [{"op": "randn", "shape": [BATCH, SEQ, *shape]}, {"op": "randn", "shape": [BATCH, *shape]}]
    if isinstance(layer, nn.BatchNorm1d):
        f = layer.num_features
        shapes = [[BATCH, f], [BATCH, f, SEQ]]
        # a skeleton model's data norm over joints and their coordinates (ST-GCN's
        # `BatchNorm1d(in_channels * V)` beside a V x V adjacency): poses N x T x V x C,
        # N x C x T x V, and N x C x T x V x M of one person
        shapes += [shape for n in nodes if f % n == 0 and f > n
                   for shape in ([BATCH, SEQ, n, f // n], [BATCH, f // n, SEQ, n], [BATCH, f // n, SEQ, n, 1])]
        return [{"op": "randn", "shape": shape} for shape in shapes]
    if isinstance(layer, nn.BatchNorm2d):
        specs = [{"op": "randn", "shape": [BATCH, layer.num_features, n, 12]} for n in nodes]
        return specs + [{"op": "randn", "shape": [BATCH, layer.num_features, SPATIAL, SPATIAL]}]
    if isinstance(layer, nn.GroupNorm):
        return [{"op": "randn", "shape": [BATCH, layer.num_channels, SPATIAL, SPATIAL]}]
    if isinstance(layer, nn.MultiheadAttention):
        return [{"op": "randn", "shape": [BATCH, SEQ, layer.embed_dim]}]
    if isinstance(layer, (nn.RNNBase,)):
        return [{"op": "randn", "shape": [BATCH, SEQ, layer.input_size]}]
    if isinstance(layer, nn.RNNCellBase):  # one step: a batch of vectors
        return [{"op": "randn", "shape": [BATCH, layer.input_size]}]
    return []


def _width_specs(model: nn.Module) -> list[dict[str, Any]]:
    """When forward says nothing: what the model's first sized layer takes (floats: an
    embedding table says nothing about a tensor handed to forward, which is not indices)."""
    nodes = node_counts(model)
    for module in model.modules():
        if module is model or isinstance(module, (nn.Embedding, nn.EmbeddingBag)):
            continue
        specs = layer_specs(module, nodes)
        if specs:
            return specs
    return []


def _first_layer_uses(model: nn.Module, cls: type, depth: int = 0) -> dict[str, nn.Module]:
    """``{forward parameter: the first submodule forward hands it to}``, looking two levels down
    (``x = self.encoder(x)`` where the encoder's own forward starts with a layer)."""
    try:
        tree = ast.parse(textwrap.dedent(sources.original_source(inspect.unwrap(entry_point(cls)))))
    except (OSError, TypeError, SyntaxError, IndentationError, AttributeError):
        return {}
    function = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if function is None:
        return {}
    names = [a.arg for a in function.args.args[1:] + function.args.kwonlyargs]
    found: dict[str, nn.Module] = {}
    calls = sorted((n for n in ast.walk(function) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        target = _self_submodule(model, call.func)
        if target is None or not call.args:
            continue
        first = call.args[0]
        if isinstance(first, ast.Name) and first.id in names and first.id not in found:
            if layer_specs(target):
                found[first.id] = target
            elif depth < 2 and type(target).__module__.split(".")[0] != "torch":
                inner = _first_layer_uses(target, type(target), depth + 1)
                parameters = _forward_names(type(target))
                if parameters and parameters[0] in inner:
                    found[first.id] = inner[parameters[0]]
    return found


def entry_point(cls: type) -> Any:
    """What calling a module of ``cls`` runs: its ``forward``, or, where the class leaves
    forward to nn.Module and overrides ``__call__`` itself (a GAN loss's
    ``__call__(self, input, target_is_real)``), that ``__call__``."""
    forward = getattr(cls, "forward", None)
    if forward is not nn.Module.forward:
        return forward
    call = getattr(cls, "__call__", None)
    if call is not None and call is not nn.Module.__call__ and not getattr(call, "__module__", "torch").startswith("torch"):
        return call
    return forward


def _forward_parameters(cls: type) -> list[inspect.Parameter] | None:
    """The parameters of what calling a module of ``cls`` runs (entry_point), self left out;
    None where its signature cannot be read."""
    try:
        return list(inspect.signature(entry_point(cls)).parameters.values())[1:]
    except (TypeError, ValueError, AttributeError):
        return None


def _forward_names(cls: type) -> list[str]:
    return [p.name for p in _forward_parameters(cls) or []]


def _self_submodule(model: nn.Module, func: ast.AST) -> nn.Module | None:
    """``self.a.b(...)`` -> the submodule ``a.b``; ``self.layers[0](...)`` -> ``layers[0]``."""
    chain: list[str | int] = []
    current = func
    while True:
        if isinstance(current, ast.Attribute):
            chain.append(current.attr)
            current = current.value
        elif isinstance(current, ast.Subscript) and isinstance(current.slice, ast.Constant) \
                and isinstance(current.slice.value, int):
            chain.append(current.slice.value)
            current = current.value
        else:
            break
    if not (isinstance(current, ast.Name) and current.id == "self") or not chain:
        return None
    value: Any = model
    for part in reversed(chain):
        try:
            value = value[part] if isinstance(part, int) else getattr(value, part)
        except Exception:
            return None
    return value if isinstance(value, nn.Module) else None
