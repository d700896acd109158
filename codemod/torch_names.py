"""What a qualified name under torch (and a few neighbours) produces when called.

The raw lists come from `torch_table`, generated from the installed torch by
`python -m codemod.tools.generate_torch_table`; this module adds the meaning
the analysis needs (random? data-carrying? integer dtype?) without importing torch.
"""

from __future__ import annotations

import enum

from codemod import torch_table as table


class CallKind(enum.Enum):
    TENSOR = "tensor"
    SEQUENCE = "sequence"  # a list or tuple of tensors
    NON_TENSOR = "non_tensor"
    PARAMETER = "parameter"  # nn.Parameter(...)
    BUFFER = "buffer"  # nn.Buffer(...)
    MODULE = "module"  # an nn.Module instance
    VARIABLE = "variable"  # torch.autograd.Variable(...)
    LEGACY = "legacy"  # torch.FloatTensor(...) and friends
    INIT = "init"  # torch.nn.init.*_: fills its first argument in place, randomly
    UNKNOWN = "unknown"


# Well-known nn.Module bases from other libraries, by qualified name.
KNOWN_MODULE_BASES = frozenset(
    {
        # torch's private loss bases (the generated table leaves private names out); loss
        # classes of research code derive from them (`class Criterion(_Loss)`)
        "torch.nn.modules.loss._Loss",
        "torch.nn.modules.loss._WeightedLoss",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
        "lightning.pytorch.core.module.LightningModule",
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.lightning.LightningModule",
        "pytorch_lightning.core.module.LightningModule",
        "transformers.PreTrainedModel",
        "transformers.modeling_utils.PreTrainedModel",
        "transformers.FlaxPreTrainedModel",
        "diffusers.ModelMixin",
        "diffusers.models.ModelMixin",
        "diffusers.models.modeling_utils.ModelMixin",
        "torch_geometric.nn.MessagePassing",
        "torch_geometric.nn.conv.MessagePassing",
        "torch_geometric.nn.conv.message_passing.MessagePassing",
        "mmengine.model.BaseModule",
        "mmengine.model.base_module.BaseModule",
        "mmengine.model.BaseModel",
        "mmcv.runner.BaseModule",
        "mmcv.runner.base_module.BaseModule",
        "fairseq.models.BaseFairseqModel",
        "fairseq.models.FairseqEncoder",
        "fairseq.models.FairseqDecoder",
        "fairseq.models.FairseqIncrementalDecoder",
        "fairseq.models.FairseqEncoderDecoderModel",
        "allennlp.models.Model",
        "allennlp.modules.Seq2SeqEncoder",
        "allennlp.modules.Seq2VecEncoder",
        "torchvision.models.ResNet",
        "torchvision.models.VisionTransformer",
        "timm.models.VisionTransformer",
        "timm.models.vision_transformer.VisionTransformer",
        "timm.models.ResNet",
        "timm.models.resnet.ResNet",
        "torch.jit.ScriptModule",
        "torch.fx.GraphModule",
    }
)

# Functions whose result is fully determined by their (shape-like) arguments.
# Data-carrying ones (tensor, as_tensor, from_numpy, load, ...) and uninitialised
# ones (empty*) are not: their values come from outside the constructor's code.
DATA_FUNCTIONS = frozenset(
    {
        "tensor",
        "as_tensor",
        "asarray",
        "from_numpy",
        "frombuffer",
        "from_file",
        "from_dlpack",
        "load",
        "empty",
        "empty_like",
        "empty_strided",
        "empty_permuted",
        "sparse_coo_tensor",
        "sparse_csr_tensor",
    }
)
LITERAL_DATA_FUNCTIONS = frozenset({"tensor", "as_tensor", "asarray"})  # deterministic with literal data

# Results that are integer (or bool) whatever the inputs, unless a dtype says otherwise.
INTEGER_FUNCTIONS = frozenset(
    {
        "randint",
        "randperm",
        "tril_indices",
        "triu_indices",
        "nonzero",
        "argmax",
        "argmin",
        "argsort",
        "searchsorted",
        "bucketize",
        "bincount",
        "multinomial",
        "one_hot",
        "isnan",
        "isinf",
        "isfinite",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
    }
) | table.INTEGER_RESULT_FUNCTIONS  # and what the table proves by running torch

NON_TENSOR_PREFIXES = ("numpy.", "np.", "math.", "random.", "collections.", "itertools.", "functools.")
NON_TENSOR_BUILTINS = frozenset(
    {"int", "float", "bool", "str", "len", "range", "dict", "set", "frozenset", "bytes", "repr", "format", "isinstance", "hasattr", "print"}
)
SEQUENCE_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed"})
NON_TENSOR_TORCH_PREFIXES = (
    "torch.optim.",
    "torch.utils.",
    "torch.distributions.",  # distributions are objects, not tensors
    "torch.jit.",
    "torch.cuda.amp.",
    "torch.amp.",
    "torch.backends.",
    "torch.distributed.",
    "torch.testing.",
)
DEVICE_METHODS = frozenset({"cuda", "cpu", "to", "xpu", "mps"})


def is_torch_module_class(qualname: str) -> bool:
    if qualname in table.NN_MODULE_QUALNAMES:
        return True
    namespace, _, name = qualname.rpartition(".")
    return namespace in ("torch.nn", "torch.nn.modules") and name in table.NN_MODULE_CLASSES


def registered_buffers(qualname: str) -> tuple[str, ...]:
    """The buffers a torch.nn class's constructor registers (`torch.nn.BatchNorm2d`,
    `nn.modules.loss._WeightedLoss`), from the generated table; () for any other name."""
    return _per_nn_class(table.NN_REGISTERED_BUFFERS, qualname)


def constructor_called_methods(qualname: str) -> tuple[str, ...]:
    """The methods a torch.nn class's constructor calls on the instance (`torch.nn.Linear`:
    `reset_parameters`), from the generated table; () for any other name."""
    return _per_nn_class(table.NN_CONSTRUCTOR_CALLED_METHODS, qualname)


def _per_nn_class(entries: dict[str, tuple[str, ...]], qualname: str) -> tuple[str, ...]:
    found = entries.get(qualname)
    if found is None:
        namespace, _, name = qualname.rpartition(".")
        if namespace in ("torch.nn", "torch.nn.modules"):
            found = entries.get(f"torch.nn.{name}")
    return found or ()


def is_known_module_base(qualname: str) -> bool:
    if qualname in KNOWN_MODULE_BASES:
        return True
    # every transformers `<Model>PreTrainedModel` (`transformers.BertPreTrainedModel`, or from
    # its modeling module) derives from the PyTorch PreTrainedModel; TF and Flax ones do not
    head, _, name = qualname.rpartition(".")
    return (head == "transformers" or head.startswith("transformers.")) and name.endswith("PreTrainedModel") \
        and not name.startswith(("TF", "Flax"))


def classify_call(qualname: str) -> CallKind:
    """What calling the object named `qualname` returns."""
    namespace, _, name = qualname.rpartition(".")
    if qualname == "torch.load":
        return CallKind.TENSOR  # data loaded from a file; DATA_FUNCTIONS keeps it persistent
    if namespace == "torch":
        if name in table.LEGACY_TENSOR_TYPES:
            return CallKind.LEGACY
        if name in table.TORCH_TENSOR_FUNCTIONS:
            return CallKind.TENSOR
        if name in table.TORCH_SEQUENCE_FUNCTIONS:
            return CallKind.SEQUENCE
        if name in table.TORCH_NON_TENSOR_FUNCTIONS or name in table.NON_TENSOR_TORCH_CALLABLES:
            return CallKind.NON_TENSOR
        return CallKind.UNKNOWN
    if namespace == "torch.cuda" and name in table.CUDA_LEGACY_TENSOR_TYPES:
        return CallKind.LEGACY
    if qualname.startswith("torch."):
        dotted = qualname[len("torch.") :]
        if dotted in table.OTHER_LEGACY_TENSOR_TYPES:
            return CallKind.LEGACY  # torch.sparse.FloatTensor(indices, values, size), ...
        if dotted in table.SUBMODULE_TENSOR_FUNCTIONS:
            return CallKind.TENSOR
        if dotted in table.SUBMODULE_SEQUENCE_FUNCTIONS:
            return CallKind.SEQUENCE
        if dotted in table.SUBMODULE_NON_TENSOR_FUNCTIONS:
            return CallKind.NON_TENSOR
    if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
        return CallKind.PARAMETER
    if qualname in ("torch.nn.Buffer", "torch.nn.parameter.Buffer"):
        return CallKind.BUFFER
    if qualname in ("torch.autograd.Variable", "torch.autograd.variable.Variable"):
        return CallKind.VARIABLE
    if namespace == "torch.nn.init":
        return CallKind.INIT
    if namespace == "torch.nn.functional":
        if name in table.FUNCTIONAL_TENSOR_FUNCTIONS:
            return CallKind.TENSOR
        if name in table.FUNCTIONAL_SEQUENCE_FUNCTIONS:
            return CallKind.SEQUENCE
        return CallKind.UNKNOWN
    if is_torch_module_class(qualname):
        return CallKind.MODULE
    if namespace in ("torch.nn", "torch.nn.modules") or qualname.startswith("torch.nn.modules."):
        return CallKind.MODULE if name[:1].isupper() else CallKind.UNKNOWN
    if qualname.startswith(NON_TENSOR_TORCH_PREFIXES) or qualname.startswith(NON_TENSOR_PREFIXES):
        return CallKind.NON_TENSOR
    if namespace == "" and name in NON_TENSOR_BUILTINS:
        return CallKind.NON_TENSOR
    if namespace == "torch.cuda":
        return CallKind.NON_TENSOR  # streams, events, device queries
    return CallKind.UNKNOWN


def is_random(name: str) -> bool:
    return name in table.RANDOM_FUNCTIONS


def legacy_is_integer(name: str) -> bool:
    """`name`: torch.<name>, or dotted relative to torch (`sparse.LongTensor`, `cuda.IntTensor`)."""
    if name in table.LEGACY_TENSOR_DTYPE_IS_INTEGER:
        return table.LEGACY_TENSOR_DTYPE_IS_INTEGER[name]
    if name in table.OTHER_LEGACY_TENSOR_TYPES:
        return table.OTHER_LEGACY_TENSOR_TYPES[name]
    namespace, _, short = name.rpartition(".")
    return namespace == "cuda" and table.LEGACY_TENSOR_DTYPE_IS_INTEGER.get(short, False)


def is_sparse_legacy(name: str) -> bool:
    """torch.sparse.FloatTensor and friends (`name` dotted relative to torch)."""
    return name in table.OTHER_LEGACY_TENSOR_TYPES and ".sparse." in f".{name}"


# Namespaces whose functions the analysis follows when picked at run time: getattr(torch, name)(...).
RUNTIME_LOOKUP_NAMESPACES = ("torch", "torch.nn.functional")
# Annotations that make a constructor argument a tensor.
TENSOR_ANNOTATIONS = ("torch.Tensor", "Tensor")
# What a call must return for a value built from it to be, or hold, a tensor.
_SOURCE_KINDS = frozenset(
    {CallKind.TENSOR, CallKind.SEQUENCE, CallKind.LEGACY, CallKind.INIT, CallKind.VARIABLE, CallKind.PARAMETER}
)


def may_make_tensor(qualname: str, called: bool) -> bool:
    """Can a mention of the torch name `qualname` make a value that the analysis types as a
    tensor (or a parameter, or a sequence of them)?  `called`: the mention is a call.

    This mirrors the evaluator (tensors.py): an attribute of torch that is not called is at
    most a dtype or a function reference, except the Tensor annotation of an argument and
    a namespace passed to getattr, and a tensor type (`torch.cuda.FloatTensor`), which code
    calls later through a name (`Tensor = torch.cuda.FloatTensor if cuda else ...`).
    """
    if called:
        return classify_call(qualname) in _SOURCE_KINDS
    return qualname in TENSOR_ANNOTATIONS or qualname in RUNTIME_LOOKUP_NAMESPACES or classify_call(qualname) is CallKind.LEGACY


def dtype_is_integer(qualname: str | None) -> bool | None:
    """True/False for a dtype like torch.long / torch.float32; None when it is not a dtype."""
    if qualname is None or not qualname.startswith("torch."):
        return None
    name = qualname[len("torch.") :]
    if name in table.INTEGER_DTYPE_NAMES:
        return True
    if name in table.DTYPE_NAMES:
        return False
    return None


# Tensor methods that combine the tensor with their argument by arithmetic or a product
# (`mask.mul(x)`, `x.matmul(w)`), as the operators do.
ARITHMETIC_METHODS = frozenset({"add", "sub", "mul", "div", "true_divide", "pow", "matmul", "mm", "bmm", "mv",
                                "maximum", "minimum", "add_", "sub_", "mul_", "div_"})


# torch.nn classes whose call returns something other than one tensor (a tuple, its input, anything).
_MODULES_NOT_RETURNING_A_TENSOR = frozenset(
    {"Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Identity", "RNN", "LSTM",
     "GRU", "RNNBase", "MultiheadAttention", "AdaptiveLogSoftmaxWithLoss", "Container", "DataParallel",
     "DistributedDataParallel"}
)


# Methods only a torch tensor has (numpy arrays, configs and other objects have none of them): a
# receiver of unknown type called this way is a tensor.  `clone`, `to`, `view`, `pow` are not here:
# configs (yacs CfgNode.clone), modules (.to) and numpy arrays (.view) have them too; nor is
# `requires_grad_`, which nn.Module has (`backbone().requires_grad_(False)` returns the module).
# The in-place methods (`zero_`, `scatter_`) return the tensor itself; no numpy array has them.
TENSOR_ONLY_METHODS = frozenset(
    {"detach", "unsqueeze", "masked_fill", "masked_fill_", "contiguous", "index_select", "expand_as", "view_as",
     "type_as", "new_zeros", "new_ones", "new_full", "new_empty", "zero_", "fill_", "scatter_", "scatter_add_",
     "index_fill_", "index_copy_", "index_add_", "copy_", "add_", "sub_", "mul_", "div_", "clamp_", "normal_",
     "uniform_", "bernoulli_", "masked_scatter_", "unsqueeze_", "squeeze_", "t_", "transpose_"}
)


# What a batch's tensors are moved or cast with when a method keeps them (`input["A"].to(dev)`,
# `batch["x"].float()`): methods a tensor (and a module, which the class would call) has, and
# a list, a dict, a number or a numpy array has not.
BATCH_MOVES_AND_CASTS = frozenset({"to", "cuda", "float", "double", "half", "bfloat16", "long", "int", "bool", "byte"})


# The module a factory function returns where it is one of several classes (a Value's module):
# not a torch.nn name, so nothing takes what calling it returns for a typed tensor.
SOME_REPOSITORY_MODULE = "<a repository module>"


# Functions of well-kept libraries that return an array of the kind they are given (a torch
# tensor for a tensor): einops rearranges, repeats and reduces any backend's arrays.
SAME_KIND_AS_FIRST_ARGUMENT = frozenset({"einops.rearrange", "einops.repeat", "einops.reduce"})


def module_returns_tensor(qualname: str) -> bool:
    """Whether calling an instance of this torch.nn class returns a tensor (layers, losses, activations)."""
    return qualname.startswith("torch.nn.") and qualname.rpartition(".")[2] not in _MODULES_NOT_RETURNING_A_TENSOR


def legacy_type_is_integer(node, qualname: str | None) -> bool | None:
    """For `t.type(<arg>)`: True/False when the argument names a legacy tensor type (`torch.LongTensor`,
    "torch.cuda.FloatTensor"); None when it cannot be told (the result is a tensor either way)."""
    name = qualname
    if name is None and getattr(node, "value", None).__class__ is str:
        name = node.value
    if not name or not name.startswith("torch."):
        return None
    dotted = name[len("torch.") :]
    return legacy_is_integer(dotted) if dotted.rpartition(".")[2].endswith("Tensor") else None


def method_kind(name: str) -> CallKind:
    """What calling a tensor method returns."""
    if name in table.TENSOR_METHODS_RETURNING_NON_TENSOR:
        return CallKind.NON_TENSOR
    if name in table.TENSOR_METHODS_RETURNING_TENSOR:
        return CallKind.TENSOR
    return CallKind.UNKNOWN


def property_kind(name: str) -> CallKind:
    if name in table.TENSOR_PROPERTIES_TENSOR:
        return CallKind.TENSOR
    if name in table.TENSOR_PROPERTIES_NON_TENSOR:
        return CallKind.NON_TENSOR
    return CallKind.UNKNOWN


# In-place methods that replace every element: the tensor's old state is gone.
OVERWRITING_METHODS = frozenset({"zero_", "fill_", "copy_"})


def init_is_random(name: str) -> bool:
    return name in table.RANDOM_INIT_FUNCTIONS


INTEGER_CAST_METHODS = frozenset({"long", "int", "short", "byte", "char", "bool"})
# Tensor methods whose result is integer or bool whatever the receiver's dtype (argsort, eq, ...).
INTEGER_RESULT_METHODS = table.INTEGER_RESULT_METHODS | INTEGER_CAST_METHODS


def integer_positions(qualname_or_method: str, method: bool = False) -> tuple[int, ...]:
    """Positions of the tuple a torch function (or, `method`, a tensor method) returns that
    hold an integer tensor whatever the input: the indices of sort, topk, max(dim), ..."""
    if method:
        return table.METHOD_INTEGER_RETURN_POSITIONS.get(qualname_or_method, ())
    namespace, _, name = qualname_or_method.rpartition(".")
    return table.INTEGER_RETURN_POSITIONS.get(name, ()) if namespace == "torch" else ()
FLOAT_CAST_METHODS = frozenset({"float", "double", "half", "bfloat16", "cfloat", "cdouble"})
# Tensor methods that refill the tensor itself with random values (from the generated table).
RANDOM_INPLACE_METHODS = frozenset(m for m in table.RANDOM_TENSOR_METHODS if m.endswith("_"))


def unpacks_to_tensors(qualname: str) -> bool:
    """A torch function whose result is a tensor or a tuple of tensors (torch.max(x, dim),
    torch.unique(..., return_inverse=True)): unpacked, each item is a tensor."""
    namespace, _, name = qualname.rpartition(".")
    return namespace == "torch" and name in table.MIXED_UNPACKING_TO_TENSORS


def method_returns_sequence(name: str) -> bool:
    return name in table.TENSOR_METHODS_RETURNING_SEQUENCE


def method_unpacks_to_tensors(name: str) -> bool:
    return name in table.MIXED_METHODS_UNPACKING_TO_TENSORS


# What makes a mixed function or method return a tuple, not one tensor: a dimension
# (`x.max(1)`, `x.median(dim=0)`), `return_inverse` / `return_counts`, `as_tuple=True`.
_TUPLE_KEYWORDS = {
    "max": {"dim", "keepdim"}, "min": {"dim", "keepdim"}, "median": {"dim", "keepdim"},
    "nanmedian": {"dim", "keepdim"}, "unique": {"return_inverse", "return_counts"},
    "unique_consecutive": {"return_inverse", "return_counts"}, "nonzero": {"as_tuple"},
}


def mixed_call_returns_tensor(name: str, positional: int, keywords: dict[str, bool | None]) -> bool:
    """Whether a call of the mixed method `name` (TENSOR_METHODS_MIXED) returns one tensor:
    `x.max()`, `x.median()`, `x.unique(sorted=True)`, `x.nonzero()` (probed on torch 2.13),
    given its positional arguments after the tensor and its keywords (name -> a literal
    True/False, or None for another value).  Any positional argument may be a dimension."""
    selecting = _TUPLE_KEYWORDS.get(name)
    if selecting is None or positional or "**" in keywords:
        return False  # a dimension, or keywords nothing can read
    return all(keywords.get(k, False) is False for k in selecting)


# Functions and methods returning several tensors of their input's dtype (the pieces of a
# split, sorted values, ...): from integer inputs, each item is integer.
SAME_DTYPE_PIECES = frozenset(
    {"split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "unsafe_split", "unsafe_chunk",
     "split_with_sizes", "meshgrid", "broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d", "sort",
     "topk", "max", "min", "median", "nanmedian", "mode", "kthvalue", "cummax", "cummin", "unique",
     "unique_consecutive"}
)
