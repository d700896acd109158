"""Split a module into its top-level statements without parsing it, and tell
which of them can hold a rewrite.

Parsing is most of the cost of a run over a large repository, and most of a
model file is `forward` code that can never hold a finding.  Here the text is
cut at top-level statement boundaries; the analysis then parses only the
imports and module-level code, the classes whose constructors (or attribute
assignments) mention something that can produce a tensor, and, on demand,
whatever another file's class refers to.  When the cut is in doubt (an
unbalanced triple quote, a piece that does not parse) the whole file is parsed.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from codemod.torch_names import TENSOR_ONLY_METHODS as RESULT_IS_TENSOR_METHODS
from codemod.torch_names import BATCH_MOVES_AND_CASTS, CallKind, classify_call, may_make_tensor
from codemod.torch_table import NON_TENSOR_ARGUMENT_KEYWORDS, NON_TENSOR_ARGUMENT_POSITIONS, TENSOR_METHODS_NOT_ON_OTHER_VALUES

# The scans below run over every file, so their patterns begin with a literal (which the
# regular expression engine finds fast) and conditions on what begins the line are checked
# afterwards: a pattern anchored with `^` is tried at every line, several times slower.
_TOP_LEVEL = re.compile(r"\n[^\s#)\]}]")  # a line that starts a top-level statement
_TRIPLE_DOUBLE = re.compile(r'"""')
_TRIPLE_SINGLE = re.compile(r"'''")
_HEAD = re.compile(r"(?:async[ \t]+)?(class|def)[ \t]+(\w+)|(import|from)\b")
_DEF = re.compile(r"def[ \t]+(\w+)[ \t]*\(")


def line_start_matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of `pattern` that only blanks precede on their line, as if the pattern
    began with `^[ \t]*` (and without overlapping, as finditer)."""
    position = 0
    while True:
        match = pattern.search(text, position)
        if match is None:
            return
        if _indent(text, match.start()) is not None:
            yield match
            position = match.end()
        else:
            position = match.start() + 1


def _indent(text: str, position: int) -> str | None:
    """The blanks between the start of the line and `position`; None if anything else is there."""
    prefix = text[text.rfind("\n", 0, position) + 1 : position]
    return None if prefix.strip(" \t") else prefix


def _triple_quotes(text: str) -> list[int]:
    """Offsets of every triple quote, in order (the two kinds cannot overlap)."""
    found = [m.start() for m in _TRIPLE_DOUBLE.finditer(text)]
    if "'''" in text:
        found += [m.start() for m in _TRIPLE_SINGLE.finditer(text)]
        found.sort()
    return found


def _method_defs(text: str) -> Iterator[tuple[int, int, str, int]]:
    """(line start, indent, name, end of `def name(`) of every indented `def`."""
    for match in _DEF.finditer(text):
        found = _method_def(text, match)
        if found is not None:
            yield found


def _method_def(text: str, match: re.Match[str]) -> tuple[int, int, str, int] | None:
    """The `def` matched, if it begins its line (after an indent and maybe `async`)."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    prefix = text[line_start : match.start()]
    rest = prefix.lstrip(" \t")
    indent = len(prefix) - len(rest)
    if indent and (not rest or (rest.startswith("async") and len(rest) > 5 and not rest[5:].strip(" \t"))):
        return line_start, indent, match.group(1), match.end()
    return None


@dataclass
class Segment:
    start: int  # 1-based first line (decorators included)
    end: int  # 1-based last line, inclusive
    kind: str  # class | def | import | other
    name: str | None
    text: str


def split(text: str) -> list[Segment] | None:
    """The top-level statements of `text`, or None when the cut would be a guess."""
    if "\r" in text and "\r" in text.replace("\r\n", ""):
        return None  # a lone \r ends a line for the parser: lines here are counted by \n
    if "\x0c" in text or "\x0b" in text:
        # A form feed is blank to the parser (and resets the indentation), not to these
        # scans; a vertical tab is a syntax error the full parse reports.
        return None
    quotes = _triple_quotes(text)
    if len(quotes) % 2:
        return None
    starts: list[int] = [0] if text and _TOP_LEVEL.match("\n" + text[0]) else []
    for match in _TOP_LEVEL.finditer(text):
        offset = match.start() + 1
        if bisect.bisect_left(quotes, offset) % 2:
            continue  # inside a triple-quoted string
        starts.append(offset)
    if not starts:
        return []
    # A decorator begins the statement it decorates (however many lines it spans); the
    # statement's kind is read where the decorated definition itself begins.
    merged: list[int] = []
    heads: list[int] = []
    previous_is_decorator = False
    for offset in starts:
        if not previous_is_decorator:
            merged.append(offset)
            heads.append(offset)
        else:
            heads[-1] = offset
        previous_is_decorator = text.startswith("@", offset)
    segments: list[Segment] = []
    line = 1 + text.count("\n", 0, merged[0])
    for i, offset in enumerate(merged):
        stop = merged[i + 1] if i + 1 < len(merged) else len(text)
        chunk = text[offset:stop]
        lines_in_chunk = chunk.count("\n")
        head = _HEAD.match(text, heads[i], stop)
        if head and head.group(1):
            kind, name = head.group(1), head.group(2)
        elif head and head.group(3):
            kind, name = "import", None
        else:
            kind, name = "other", None
        end = line + lines_in_chunk - (1 if chunk.endswith("\n") else 0)
        segments.append(Segment(line, max(end, line), kind, name, chunk))
        line += lines_in_chunk
    return segments


def padded(segment: Segment) -> str:
    """The segment's text placed at its own line numbers, so that ast positions match the file."""
    return "\n" * (segment.start - 1) + segment.text


@dataclass(frozen=True)
class Hints:
    """What a method must mention to be able to make a tensor.

    `names` count wherever they appear (`Tensor`, local tensor helpers).  `torch` maps
    names bound to torch objects (`torch`, `F`, `zeros`) to what they are bound to; a
    mention counts only where the dotted name it starts can make a tensor
    (`torch.zeros(`, `F.pad(`, `torch.Tensor`, not `torch.float32` or `nn.Linear(`).
    `calls` count where called (`make_mask(`, `utils.make_mask(`): names imported from
    the repository, which also appear as annotations and base classes.  `modules` are
    those of them bound to repository modules (`import Models`), whose calls
    (`Models.build(`) are functions whatever the case of the module's name.
    """

    names: frozenset[str]
    calls: frozenset[str]
    torch: Mapping[str, frozenset[str]] = field(default_factory=dict)
    modules: frozenset[str] = frozenset()


# `f(self, ...)`: self handed to a plain function, named in group 1 (builtins that never bind
# attributes aside; facts.py reads the functions this finds).
HANDS_SELF = re.compile(
    r"(?<![\w.])(?<!def )(?!(?:isinstance|getattr|setattr|hasattr|delattr|super|type|id|print|len|str|repr|vars|dir|callable"
    r"|hash|iter|next)\()(\w+)\(\s*self\s*[,)]"
)


def may_hold_finding(segment: Segment, hints: Hints) -> bool:
    """Could a class (or any class inside this statement) produce a finding?

    Findings come from constructors and from methods that bind attributes of self; both
    must mention something that can produce a tensor.  Forward code that only reads
    attributes cannot, and is what this check lets the analysis skip.
    """
    text = segment.text
    if "self" in text and HANDS_SELF.search(text):
        return True  # `create_grids(self, n)`: a function of the module may bind attributes of self
    if "register_forward_hook(" in text or "backward_hook(" in text or ".register_hook(self." in text:
        # a hook defined in a method may keep the module's output on self (facts._collect_closure_events),
        # a tensor's hook method the gradient it receives
        return True
    quotes = _triple_quotes(text)
    constructors: list[tuple[int, int]] = []  # (start, end) of each __init__ block
    position = text.find("def __init__")
    while position >= 0:
        match = _DEF.match(text, position)
        found = _method_def(text, match) if match else None
        if found is not None and found[2] == "__init__":
            line_start, indent, _, head_end = found
            end = _block_end(text, head_end, indent, quotes)
            if mentions(_without_registrations(text[line_start:end], hints), hints):
                return True
            if keeps_tensor_argument(text[line_start:end], text) or derives_from_buffer(text[line_start:end]):
                return True
            if keeps_untyped_value(text[line_start:end], text):
                # `self.adj = load_graph(path)` or `self.mask = None` with `torch.mm(self.adj, x)`
                # (rules/untyped_values.py, rules/assigned_from_outside.py)
                return True
            if _COPIES_ATTRIBUTE.search(text, line_start, end):
                return True  # `self.alpha_mean = self.alpha`: a base's tensor under a second name (rules/aliases.py)
            if calls_inherited_method(text[line_start:end], text):
                return True  # a base class's method may bind a tensor (rules/mixins.py)
            constructors.append((line_start, end))
        position = text.find("def __init__", position + 1)
    # Other methods matter only where they bind an attribute of self.
    defs: list[tuple[int, int, int]] | None = None  # (start, indent, end of the def line), listed if needed
    checked = {start for start, _ in constructors}
    for position in _self_binding_lines(text):
        if any(start <= position < end for start, end in constructors):
            continue
        if defs is None:
            defs = [(start, indent, head_end) for start, indent, _, head_end in _method_defs(text)]
            starts = [d[0] for d in defs]
        depth = len(_indent(text, position) or "")
        if not depth:
            continue  # at the top level of the statement: in no method
        i = bisect.bisect_right(starts, position) - 1
        while i >= 0 and defs[i][1] >= depth:
            i -= 1  # the def that encloses this line is indented less than it
        if i < 0 or defs[i][0] in checked:
            continue
        start, indent, head_end = defs[i]
        checked.add(start)
        block = text[start : _block_end(text, head_end, indent, quotes)]
        if mentions(block, hints) or _STORES_SELF_CALL.search(block) or _COMPARISON_CAST.search(block):
            return True
        if _AUGMENTS_WITH_VALUE.search(block):
            return True  # `self.error += (pred - y).abs().mean()`: a number placeholder made a tensor
        if keeps_tensor_argument(block, text):
            return True  # `self.ids = ids` with `self.ids.size(0)` elsewhere (rules/untyped_method_arguments.py)
        if _KEEPS_MOVED_ITEM.search(block):
            return True  # `self.real_A = input["A"].to(self.device)` (rules/untyped_method_arguments.py)
        if _fills_empty_slot(block, text, constructors):
            return True
    return False


def _fills_empty_slot(block: str, text: str, constructors: list[tuple[int, int]]) -> bool:
    """`self.output = x` in a method, where a constructor set `self.output = None`: a slot the
    method fills with a local value, most often what forward computed (rules/placeholder.py
    reports it where the analysis types the value as a tensor)."""
    filled = {match.group(1) for match in _KEEPS_LOCAL.finditer(block)}
    if not filled:
        return False
    return any(match.group(1) in filled for start, end in constructors for match in _EMPTY_SLOT.finditer(text, start, end))


# `self.output = x` (a bare local) and `self.output = None`: the two halves of a slot filled later.
_KEEPS_LOCAL = re.compile(r"^[ \t]*self\.(\w+)[ \t]*=[ \t]*(?!None\b|True\b|False\b)[A-Za-z_]\w*[ \t]*(?:#[^\n]*)?$", re.MULTILINE)
_EMPTY_SLOT = re.compile(r"^[ \t]*self\.(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*None[ \t]*(?:#[^\n]*)?$", re.MULTILINE)


# `self.real_A = input["A"].to(device)`, `self.x = batch.x.cuda()`, `self.y = batch["y"].long()`: an item of
# a value moved to a device or cast (rules/untyped_method_arguments.py).
_KEEPS_MOVED_ITEM = re.compile(
    r"^[ \t]*self\.\w+[ \t]*=(?!=)[^\n]*\w[\w\]'\"]*[\].]\w*\.(?:" + "|".join(sorted(BATCH_MOVES_AND_CASTS)) + r")\(",
    re.MULTILINE,
)
# `self.b = self.a`, `self.b = self.a.data`, `self.b = self.child.a`: another attribute's value under a second name.
_COPIES_ATTRIBUTE = re.compile(r"^[ \t]*self\.\w+[ \t]*=[ \t]*self(?:\.\w+)+(?:\.detach\(\))?[ \t]*(?:#[^\n]*)?$", re.MULTILINE)
# `self.x += value`, not a counter's `self.steps += 1`.
_AUGMENTS_WITH_VALUE = re.compile(r"^[ \t]*self\.\w+[ \t]*(?:[-+*/]|//)=[ \t]*(?![-+]?[\d.]+[ \t]*(?:#[^\n]*)?$)\S", re.MULTILINE)
# `(ids != pad).float()`: a tensor (tensors._COMPARISON_CASTS).
_COMPARISON_CAST = re.compile(r"(?:[!=]=|[<>])[^\n]*\)\.(?:float|long|int|bool|byte|half|double|type_as|to|cuda)\(")
# `self.out = self.encoder(x)`, `self.ins, self.attn = self.instruction(q)`: what a submodule or
# a method returns, typed from its body (tensors.Evaluator._helper_method); also a layer picked
# from a container of them (`self.outputs[("disp", i)] = self.convs[("dispconv", i)](x)`).  Not
# `self.x = self.child.method(...)`: in a large library that lets three times as many
# statements through, for what other hints already find.
_STORES_SELF_CALL = re.compile(
    r"^[ \t]*self\.\w+(?:\[[^\n]*?\])?(?:[ \t]*,[ \t]*self\.\w+)*[ \t]*(?:[-+*/]|//)?=[ \t]*"
    r"self\.\w+(?:\[[^\n]*?\])?[ \t]*\(",
    re.MULTILINE,
)


_SELF_CALL = re.compile(r"\bself\.(\w+)\(")
# Methods a constructor calls that are nn.Module's or a framework's own, never a repository's mixin.
_FRAMEWORK_METHODS = frozenset(
    {"register_buffer", "register_parameter", "register_module", "add_module", "apply", "to", "cuda", "cpu", "float",
     "double", "half", "train", "eval", "requires_grad_", "register_forward_hook", "register_forward_pre_hook",
     "register_full_backward_hook", "register_load_state_dict_post_hook", "_register_load_state_dict_pre_hook",
     "_register_state_dict_hook", "post_init", "init_weights", "_init_weights", "tie_weights", "save_hyperparameters",
     "gradient_checkpointing_enable", "_backward_compatibility_gradient_checkpointing", "set_default_attn_processor"}
)


def calls_inherited_method(constructor: str, class_text: str) -> bool:
    """`self.setup(...)` in __init__ where the class itself defines no `setup`: the method of a
    base class (a mixin) runs as constructor code."""
    for name in set(_SELF_CALL.findall(constructor)):
        if name in _FRAMEWORK_METHODS or name.startswith("__"):
            continue
        if f"def {name}(" not in class_text:
            return True
    return False


# `self.adj = adj` / `self.S = S.to(device)`: an argument kept as an attribute.
_KEEPS_NAME = re.compile(
    # `self.adj = adj`, `self.adj = adj.to(device)`, `self.gso = args.gso`, `self.size = aabb[1] - aabb[0]`
    r"^[ \t]*self\.(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*[-(]?[A-Za-z_0-9.]*[A-Za-z_]\w*"
    r"(?:\.\w+(?:\([^()\n]*\))?|\[[^\]\n]*\]|[ \t]*[-+*/][ \t]*\(?[A-Za-z_0-9.]+\)?)*[ \t]*(?:#[^\n]*)?$",
    re.MULTILINE,
)
# Methods only a tensor has; call_sites.used_as_tensor reads the same uses from the tree.  A
# module has `.to(` / `.cuda(` too and a numpy array `.clone(`: a use only lets the calls of
# the class decide (call_sites), which type the value itself.
TENSOR_ONLY_METHODS = (
    "t", "mm", "matmul", "bmm", "spmm", "unsqueeze", "squeeze", "expand", "expand_as", "view", "permute",
    "transpose", "masked_fill", "index_select", "gather", "numel", "dim", "to_dense", "to_sparse", "nonzero",
    "repeat", "reshape", "flatten", "sum", "mean", "float", "long", "bool", "half", "unbind", "chunk", "split",
    "gt", "lt", "ge", "le", "eq", "ne", "to", "cuda", "cpu", "type_as", "detach", "clone", "contiguous", "size",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "tile", "repeat_interleave",
    # and every method torch's table finds on tensors alone (`mask.mul(x)`, `w.exp()`)
    *sorted(TENSOR_METHODS_NOT_ON_OTHER_VALUES),
)

# -- an attribute handed to a torch function ------------------------------------------------
# `F.cross_entropy(x, y, self.weight)`, `torch.index_select(x, 0, self.index)`,
# `torch.ones_like(self.adj)`: the attribute is the whole argument, in a slot where torch
# takes a tensor.  Slots that take numbers or options (`torch.topk(x, self.k)`,
# `F.dropout(x, self.p)`, `dim=self.dim`) do not count, so that a class whose attribute is a
# number never gets its calls searched; where one still counts, the calls of the class decide.

# torch functions none of whose arguments shows a tensor (sizes, data to copy, paths, seeds).
NON_TENSOR_ARGUMENT_FUNCTIONS = frozenset(
    {"zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "range", "linspace",
     "logspace", "eye", "tensor", "as_tensor", "asarray", "from_numpy", "device", "load", "save", "manual_seed",
     "seed", "set_grad_enabled", "no_grad", "enable_grad", "inference_mode", "is_tensor", "is_storage",
     "get_default_dtype", "set_default_dtype", "set_num_threads", "set_printoptions", "finfo", "iinfo", "compile",
     "tril_indices", "triu_indices", "hann_window", "hamming_window", "blackman_window", "bartlett_window",
     "kaiser_window", "empty_strided"}
)
# torch functions whose first argument is a sequence of tensors and nothing else (TypeError
# "expected Tensor as element 0" for a number or None).
TENSOR_SEQUENCE_FUNCTIONS = frozenset(
    f"torch.{name}" for name in ("cat", "concat", "concatenate", "stack", "vstack", "hstack", "dstack", "row_stack",
                                 "column_stack")
)
# torch functions that take tensors only in their first positions (the count), options after.
TENSOR_POSITIONS = {
    **dict.fromkeys(
        ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "softmax",
         "log_softmax", "softmin", "gumbel_softmax", "normalize", "pad", "interpolate", "upsample", "leaky_relu",
         "elu", "celu", "gelu", "hardtanh", "threshold", "softplus", "topk", "kthvalue", "split", "chunk", "narrow",
         "cat", "stack", "concat", "concatenate", "unsqueeze", "squeeze", "transpose", "permute", "flatten",
         "reshape", "roll", "sum", "mean", "prod", "std", "var", "norm", "cumsum", "cumprod", "argmax", "argmin",
         "logsumexp", "one_hot", "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
         "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
         "adaptive_max_pool2d", "adaptive_max_pool3d", "unfold", "fold", "repeat_interleave", "tile", "clamp",
         "clip", "pow", "round", "diag", "tril", "triu", "full_like", "multinomial", "pixel_shuffle",
         "pixel_unshuffle", "layer_norm", "group_norm", "affine_grid", "diagonal", "movedim", "flip", "max", "min",
         "sort", "argsort", "unique", "nan_to_num", "quantile", "nanquantile", "logit", "glu", "stft", "istft",
         "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
         "rfftn", "irfftn", "fftshift", "ifftshift"),
        1,
    ),
    **dict.fromkeys(("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "grid_sample", "masked_fill",
                     "embedding", "soft_margin_loss", "cosine_similarity",
                     "pairwise_distance", "cdist"), 2),
    **dict.fromkeys(("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                     "linear", "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                     "where", "lerp", "addmm", "baddbmm", "addcmul", "addcdiv"), 3),
    **dict.fromkeys(("batch_norm", "instance_norm"), 5),
}
# Positions that take a tensor after a number (`torch.index_select(x, 0, self.index)`).
TENSOR_LATE_POSITIONS = {"index_select": (2,), "gather": (2,), "scatter": (2, 3), "scatter_add": (2, 3),
                         "scatter_reduce": (2, 3), "index_add": (2, 3), "index_copy": (2, 3), "index_fill": (2,),
                         "take_along_dim": (1,)}
# Keyword arguments that take numbers or options, never a tensor worth a search.
SCALAR_KEYWORDS = frozenset(
    {"dim", "p", "eps", "training", "inplace", "dtype", "device", "size", "kernel_size", "stride", "padding",
     "dilation", "groups", "num_classes", "k", "scale_factor", "mode", "align_corners", "reduction",
     "ignore_index", "label_smoothing", "keepdim", "momentum", "negative_slope", "min", "max", "value",
     "diagonal", "requires_grad", "layout", "pin_memory", "memory_format", "tau", "hard", "approximate",
     "lambd", "beta", "alpha", "num_samples", "replacement", "generator", "sorted", "largest", "descending",
     "return_counts", "return_inverse", "bins", "dims", "shifts", "chunks", "split_size_or_sections",
     "start_dim", "end_dim", "output_size", "ceil_mode", "count_include_pad", "return_indices", "out_dtype",
     "equation", "pad", "antialias", "recompute_scale_factor", "padding_mode", "num_groups",
     "normalized_shape", "threshold", "margin", "log_target", "delta", "full", "decimals", "q", "interpolation",
     "dim0", "dim1", "repeats", "n", "s", "norm", "n_fft", "hop_length", "win_length", "as_tuple"}
)


def torch_slot_takes_tensor(name: str, position: int | None, keyword: str | None) -> bool:
    """Whether argument `position` (or `keyword`) of the torch function `name` (`torch.<name>`,
    `F.<name>`) is a tensor slot worth searching the calls of a class for."""
    if not name[:1].islower() or name in NON_TENSOR_ARGUMENT_FUNCTIONS:
        return False
    if keyword is not None:
        return keyword not in SCALAR_KEYWORDS and keyword not in NON_TENSOR_ARGUMENT_KEYWORDS.get(name, ())
    if position is None:
        return False
    if position in NON_TENSOR_ARGUMENT_POSITIONS.get(name, ()):
        return False  # a number or an option in every overload torch has (`torch.batch_norm_stats(x, eps)`)
    late = TENSOR_LATE_POSITIONS.get(name)
    if late is not None:
        return position == 0 or position in late
    count = TENSOR_POSITIONS.get(name)
    return count is None or position < count


# What follows or precedes `self.<attr>` where only a tensor (or a list of them) fits.
_TENSOR_USE_AFTER = re.compile(r"(?:\[[^\]\n]*\])?[ \t]*@(?!=)|\.(?:" + "|".join(TENSOR_ONLY_METHODS) + r")\(")
_TENSOR_USE_BEFORE = re.compile(r"(?:@[ \t]*|\bin[ \t]+)$")
# Methods no object but a tensor has, by the position of the argument that must be a tensor
# too: the mask of masked_fill, the index of index_select / gather / scatter, the other
# tensor of type_as / expand_as (call_sites reads the same slots from the tree).
TENSOR_METHOD_SLOTS = {
    **dict.fromkeys(("masked_fill", "masked_fill_", "masked_select", "masked_scatter", "masked_scatter_",
                     "type_as", "expand_as", "view_as", "reshape_as"), 0),
    **dict.fromkeys(("index_select", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_fill",
                     "index_fill_", "index_add", "index_add_", "index_copy", "index_copy_"), 1),
}
# `scores.masked_fill_(` / `x.index_select(1, ` up to the attribute
_TENSOR_METHOD_SLOT_BEFORE = re.compile(
    r"\.(?:(?:%s)\([ \t]*|(?:%s)\([^(),\n]*,[ \t]*)$" % (
        "|".join(m for m, p in TENSOR_METHOD_SLOTS.items() if p == 0),
        "|".join(m for m, p in TENSOR_METHOD_SLOTS.items() if p == 1)))
# `torch.ones_like(`, `F.cross_entropy(x, y, `, `nn.functional.nll_loss(x, y, weight=` up to the
# attribute, on one line, with the parentheses in between balanced (name, arguments so far).
_TORCH_CALL_BEFORE = re.compile(
    r"\b(?:torch\.(?:(?:sparse|linalg|fft|special|nn\.functional)\.)?|F\.|functional\.)([a-z_]\w*)\("
    r"((?:[^()\n]|\([^()\n]*\))*)$"
)
# The attribute is the whole argument: what follows closes it.
_ARGUMENT_END = re.compile(r"(?:\[[^\]\n]*\])?[ \t]*(?:[,)\]#\n]|$)")
# `self.adj > 0`, `0 < self.adj`, `self.mask == 1`: compared with a number written out (a tensor
# compared with a name may be the number, as in `input_ids == self.pad_token_id`).
_COMPARED_AFTER = re.compile(r"(?:\[[^\]\n]*\])?[ \t]*(?:[<>](?![<>])=?|[=!]=)[ \t]*-?[ \t]*\.?\d")
_COMPARED_BEFORE = re.compile(r"(?<![\w.])\d[\w.]*[ \t]*(?:[<>]=?|[=!]=)[ \t]*$")
# A comparison in a condition is a number's (`if self.k > 0:`); only one that makes a value counts.
_CONDITION = re.compile(r"\b(?:if|elif|while|assert|and|or|not)\b")
_KEYWORD = re.compile(r"(\w+)[ \t]*=(?!=)[ \t]*(.*)$", re.DOTALL)


def _argument_slot(arguments: str) -> tuple[int, str | None] | None:
    """(position, keyword) of the argument of a call that begins where `arguments` (the text
    after the call's parenthesis) ends; None when the text there is part of a larger expression.
    Inside a list or tuple literal (`torch.cat([x, `), the literal's slot."""
    depth, position, piece_start = 0, 0, 0
    for i, char in enumerate(arguments):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            position, piece_start = position + 1, i + 1
    piece = arguments[piece_start:].strip()
    keyword = None
    match = _KEYWORD.match(piece)
    if match is not None:
        keyword, piece = match.group(1), match.group(2).strip()
    if depth == 0:
        return (position, keyword) if not piece else None
    if depth == 1 and piece[:1] in "[(" and piece[-1:] in "[(,":
        return position, keyword
    return None


def _handed_to_torch(before: str, text: str, end: int) -> bool:
    """`F.cross_entropy(x, y, self.w)`, `torch.ones_like(self.adj)`: the mention that ends at
    `end` is a whole argument in a tensor slot of a torch function."""
    if "(" not in before:
        return False
    match = _TORCH_CALL_BEFORE.search(before)
    if match is None or _ARGUMENT_END.match(text, end, end + 80) is None:
        return False
    slot = _argument_slot(match.group(2))
    return slot is not None and torch_slot_takes_tensor(match.group(1), *slot)


def _compared(before: str, text: str, end: int) -> bool:
    """`(self.adj > 0)`, `mask = self.m == 1`: a comparison with a number that makes a value,
    not a condition."""
    if _COMPARED_AFTER.match(text, end, end + 80) is None and _COMPARED_BEFORE.search(before) is None:
        return False
    return _CONDITION.search(before[before.rfind("\n") + 1 :]) is None


# `self.block = Block(...)`, `self.layers = nn.ModuleList(...)`: a child module, as far as the text tells.
_CHILD = re.compile(r"self\.(\w+)[ \t]*=[ \t]*(?:[\w.]+\.)?[A-Z]\w*\(")
# `self.inv = 1.0 / self.size`: inv is derived from size.
_DERIVED = re.compile(r"^[ \t]*self\.(\w+)[ \t]*=(?!=)([^\n]*)$", re.MULTILINE)


def _tensor_method_slot(before: str, class_text: str, end: int) -> bool:
    """The attribute is the whole argument in a tensor method's tensor slot
    (`scores.masked_fill_(self.mask, v)`), not in a function of torch or numpy of the same name
    (`torch.index_select(x, self.dim, i)` takes the dimension there)."""
    match = _TENSOR_METHOD_SLOT_BEFORE.search(before)
    if match is None or not _ARGUMENT_END.match(class_text, end):
        return False
    receiver = re.search(r"(\w+)$", before[: match.start()])
    return receiver is None or receiver.group(1) not in _FUNCTION_NAMESPACES


# Names whose `.index_select(...)` is a function, not a tensor's method.
_FUNCTION_NAMESPACES = frozenset({"torch", "F", "functional", "np", "numpy", "sparse", "special", "linalg"})


def tensor_used_attributes(class_text: str, attrs, _depth: int = 0) -> set[str]:
    """Those of `attrs` the text uses the way only a tensor (or a list of them) is used:
    `self.adj @ x`, `torch.mm(self.adj, x)`, `self.adj.t()`, `for a in self.supports`."""
    found: set[str] = set()
    children = sorted(set(_CHILD.findall(class_text)))
    # handed to a child module's call: `self.block(x, self.mask)`, `self.layers[0](x, self.adj)`
    child_call = re.compile(r"\bself\.(?:" + "|".join(children) + r")(?:\[[^\]\n]*\])?\([^()\n]*$") if children else None
    for attr in attrs:
        needle = "self." + attr
        start = class_text.find(needle)
        while start >= 0:
            end = start + len(needle)
            if end >= len(class_text) or not (class_text[end].isalnum() or class_text[end] == "_"):
                before = class_text[max(0, start - 80) : start]
                if (
                    _TENSOR_USE_AFTER.match(class_text, end, end + 80)
                    or _TENSOR_USE_BEFORE.search(before)
                    or _tensor_method_slot(before, class_text, end)
                    or (child_call is not None and child_call.search(before))
                    or _handed_to_torch(before, class_text, end)
                    or _compared(before, class_text, end)
                ):
                    found.add(attr)
                    break
            start = class_text.find(needle, end)
    rest = set(attrs) - found
    if rest and _depth < 3:
        # an attribute another is derived from, where that one is used as a tensor
        for match in _DERIVED.finditer(class_text):
            target, value = match.group(1), match.group(2)
            sources = {a for a in rest if re.search(r"\bself\." + re.escape(a) + r"\b", value)}
            if sources and target not in attrs and tensor_used_attributes(class_text, {target}, _depth + 1):
                found |= sources
                rest -= sources
    return found


_REGISTERED_NAME = re.compile(r"register_buffer\(\s*[\"'](\w+)[\"']")


def derives_from_buffer(init_text: str) -> bool:
    """A constructor that binds an attribute from a buffer it registered (`self.register_buffer(
    "aabb", aabb)`, then `self.inv = 1.0 / (self.aabb[1] - self.aabb[0])`): a registered buffer
    is a tensor, and so may be what is made from it."""
    names = set(_REGISTERED_NAME.findall(init_text))
    if not names:
        return False
    reads = re.compile(r"\bself\.(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    return any(reads.search(match.group(2)) for match in _DERIVED.finditer(init_text))


def keeps_tensor_argument(init_text: str, class_text: str) -> bool:
    """A constructor that keeps a name as an attribute the class uses like a tensor: worth
    parsing, the calls of the class may type it (see call_sites)."""
    kept = {match.group(1) for match in _KEEPS_NAME.finditer(init_text)}
    if kept and _KEPT_AS_TENSOR.search(init_text):
        return True  # `self.mean = mean.view(-1, 1, 1)`: call_sites.binding_evidence reads it
    if kept and _combined_in_forward(class_text, _maybe_tensor_arguments(init_text, kept)):
        return True  # `inputs * self.mask`, `f(x, w=self.w)`: the calls may type it (call_sites.combined_with_inputs)
    if _maybe_tensor_arguments(init_text, set(_MOVES_ARGUMENT.findall(init_text))):
        return True  # `self.const = const.to(device)`: a tensor or a module, the calls may say which
    if _combined_in_forward(class_text, set(_KEEPS_KEYWORD.findall(init_text))):
        return True  # `self.mean = kwargs.get("mean")`, then `(x - self.mean)`: a keyword the calls may type
    unpacked = {attr for match in _UNPACKS_NAME.finditer(init_text) for attr in re.findall(r"self\.(\w+)", match.group(0))}
    if unpacked and (_combined_in_forward(class_text, unpacked) or tensor_used_attributes(class_text, unpacked)):
        return True  # `self.lo, self.hi = bounds`: items of an argument the calls may type
    return bool(kept) and bool(tensor_used_attributes(class_text, kept))


# `self.lo, self.hi = bounds`: the items of a name unpacked into attributes.
_UNPACKS_NAME = re.compile(r"^[ \t]*self\.\w+(?:[ \t]*,[ \t]*self\.\w+)+[ \t]*,?[ \t]*=[ \t]*[A-Za-z_]\w*[ \t]*(?:#[^\n]*)?$",
                           re.MULTILINE)

# `self.mean = kwargs.get("mean")`, `self.adj = kwargs["adj"]`: a keyword taken out of **kwargs
# (call_sites.keywords_taken), kept as it is.
_KEEPS_KEYWORD = re.compile(r"^[ \t]*self\.(\w+)[ \t]*=[ \t]*\w+(?:\.(?:get|pop)\(|\[)[ \t]*[\"'](?:\w+)[\"']", re.MULTILINE)


# Moves that keep what they are called on what it is (a tensor stays one, so does a module).
_MOVES = ("to", "cuda", "cpu")
# `.to(device=device)`, `.cuda()`: one of them, as text.
_MOVE_CALL = r"\.(?:%s)\([^()\n]*\)" % "|".join(_MOVES)
# `self.const = const.to(device=device)`, `self.mask = mask.cuda()`: a name kept, moved.
_MOVES_ARGUMENT = re.compile(
    r"^[ \t]*self\.(\w+)[ \t]*=[ \t]*[A-Za-z_]\w*" + _MOVE_CALL + r"[ \t]*(?:#[^\n]*)?$", re.MULTILINE)


def moved_operand(node: ast.expr | None) -> ast.expr | None:
    """`mask` for `mask`, `mask.to(device)`, `mask.cuda()`: the value kept, moved or not; None
    for anything else (the tree reading of what the patterns above admit)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES:
        node = node.func.value
    return node if isinstance(node, ast.Name) else None


# `self.adj = load_graph(path)`, `self.index = tables["index"]`, `self.kernel = kernel`,
# `self.mask = None`: a call, an item, a local or an empty slot kept as an attribute (not a
# torch.nn module's construction).
_KEEPS_VALUE = re.compile(
    r"^[ \t]*self\.(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*(?!(?:torch\.)?nn\.)[A-Za-z_][\w.]*[ \t]*(?:[(\[]|(?:#[^\n]*)?$)",
    re.MULTILINE,
)


def keeps_untyped_value(init_text: str, class_text: str) -> bool:
    """A constructor that keeps a call's result, an item, a local or None as an attribute the
    class uses like a tensor: worth parsing (the analysis may not type the value, or code
    outside the class may fill the slot, and either is reported)."""
    kept = {match.group(1) for match in _KEEPS_VALUE.finditer(init_text)}
    return bool(kept) and bool(tensor_used_attributes(class_text, kept))


# Names of the configuration objects constructors are handed: never a tensor themselves.
CONFIG_NAMES = frozenset({"config", "cfg", "conf", "args", "opt", "opts", "hparams", "params", "options", "settings"})
# Annotations that show a parameter is no tensor (`scale: float`, `config: BertConfig`).
# (`A: np.ndarray` too, unless the annotation admits a Tensor as well)
NOT_A_TENSOR_ANNOTATION = re.compile(r"\b(?:int|float|bool|str)\b|Config\b|^(?!.*Tensor).*\b(?:ndarray|NDArray)\b")
# `def __init__(self, mask, scale: float = 1.0, weight=None)`: one parameter's annotation and default.
_PARAMETER = r"(?:^|[(,])\s*%s\s*(?::\s*([^=,)]+?))?\s*(?:=\s*([^,)]+?))?\s*(?=[,)])"


def _maybe_tensor_arguments(init_text: str, kept: set[str]) -> set[str]:
    """Those of `kept` kept as a parameter (`self.mask = mask`, `self.comp_mask =
    competition_mask`) that the signature does not show to be something else: no number, string or bool default, no
    scalar, string or config annotation, not named like a configuration object (the text
    stand-in of facts._open_arguments)."""
    head = init_text[: init_text.find(":\n") + 1 if ":\n" in init_text else len(init_text)]
    chosen = set()
    for attr in kept:
        # `self.mask = mask`, `self.comp_mask = competition_mask`, `self.const = const.to(device)`
        bound = re.search(r"^[ \t]*self\.%s[ \t]*=[ \t]*([A-Za-z_]\w*)(?:%s)?[ \t]*(?:#[^\n]*)?$" % (attr, _MOVE_CALL),
                          init_text, re.M)
        name = bound.group(1) if bound else None
        if name is None or name in CONFIG_NAMES or attr in CONFIG_NAMES:
            continue
        found = re.search(_PARAMETER % re.escape(name), head)
        if found is None:
            continue
        annotation, default = (found.group(1) or "").strip(), (found.group(2) or "").strip()
        if NOT_A_TENSOR_ANNOTATION.search(annotation):
            continue
        if default and default != "None" and re.fullmatch(r"[-+]?[\d.eE_]+|True|False|[rbuf]?[\"'].*", default):
            continue
        chosen.add(attr)
    return chosen


def _combined_in_forward(class_text: str, kept: set[str]) -> bool:
    """forward's text puts a kept attribute beside an operator or in a call's arguments
    (`inputs * self.mask`, `f(x, weight=self.weight)`); a cheap stand-in for
    call_sites.combined_with_inputs, which reads the tree."""
    body = _method_text(class_text, "forward")
    if body is None or not kept:
        return False
    # and the methods forward calls on self (`return self.process(H, y)`), as the tree reading does
    body += "".join(_method_text(class_text, name) or "" for name in set(_SELF_CALL.findall(body)) - {"forward"})
    names = "|".join(map(re.escape, sorted(kept)))
    return re.search(
        r"(?:[*+\-/@(,]|\w=)[ \t]*\(?[ \t]*self\.(?:" + names + r")\b(?![ \t]*\()|\bself\.(?:" + names
        + r")\)?[ \t]*[*+\-/@,)]"
        # `K = self.K`: a local alias, combined under its own name (call_sites._aliases)
        + r"|^[ \t]*\w+[ \t]*=[ \t]*self\.(?:" + names + r")[ \t]*(?:#[^\n]*)?$",
        body,
        re.MULTILINE,
    ) is not None


_SELF_CALL = re.compile(r"\bself\.(\w+)\s*\(")
_NEXT_DEF = re.compile(r"\n[ \t]+(?:async[ \t]+)?def[ \t]")


def _method_text(class_text: str, name: str) -> str | None:
    """The text of a method of the class, from its `def` to the next one (None if it has none)."""
    start = class_text.find(f"def {name}(")
    if start < 0:
        return None
    end = _NEXT_DEF.search(class_text, start + 1)
    return class_text[start:end.start() if end else len(class_text)]


# The methods no other value a constructor is handed has: numpy arrays (`sum`, `reshape`,
# `transpose`), strings (`split`), modules (`float`, `half`, `to`, `cuda`: a module handed in is
# a submodule, not an attribute), configurations (`clone`: yacs and detectron2 CfgNode) and
# lists share the rest.  Enough to report an argument nothing else types
# (call_sites.tensor_use_evidence), not to rewrite it.
ARGUMENT_TENSOR_METHODS = frozenset(
    {"t", "mm", "bmm", "spmm", "unsqueeze", "masked_fill", "index_select", "gather", "to_dense", "to_sparse", "expand",
     "expand_as", "permute", "type_as", "unbind", "long", "numel", "dim", "new_zeros", "new_ones", "new_full",
     "new_empty", "new_tensor", "detach", "contiguous", "size"}
)
# A kept argument used as only a tensor is, in its binding (`self.mean = mean.view(-1, 1, 1)`).
_KEPT_AS_TENSOR = re.compile(
    r"self\.\w+[ \t]*=[ \t]*\w+(?:\.\w+)*\.(?:" + "|".join(sorted(ARGUMENT_TENSOR_METHODS | {"view"})) + r")\("
)


_IMPORT_WORD = re.compile(r"\bimport\b")
# A call of a method of self: a helper that may build a tensor (`self.mask = ~self._causal(n)`).
_SELF_HELPER = re.compile(r"self\.\w+\s*\(")
# `self.enc, self.n = self.converter.encode(text)`: a method of an object self holds, whose
# return the analysis types from the object's class (tensors.Evaluator._instance_method).
_FROM_HELD_OBJECT = re.compile(r"^[ \t]*self\.\w+(?:[ \t]*,[ \t]*self\.\w+)*[ \t]*=[ \t]*self\.\w+\.\w+[ \t]*\(", re.MULTILINE)
_WORD_CHAR = re.compile(r"\w")
# A tuple target binding an attribute of self: `self.magnitude, self.phase = ...`, `x, self.attn = ...`.
_TUPLE_BINDS_SELF = re.compile(r"self\.\w+[ \t]*,[^=\n]*=(?!=)|,[ \t]*self\.\w+[ \t]*=(?!=)")


def _self_binding_lines(text: str) -> Iterator[int]:
    """Where each statement binding an attribute of self starts (its line's first non-blank),
    in order; tuple targets are found anywhere on the line, the rest at the line start."""
    found = [m.start() for m in line_start_matches(_BINDS_SELF, text)]
    found.extend(_tuple_binding_starts(text))
    return iter(sorted(set(found)))


def _tuple_binding_starts(text: str) -> Iterator[int]:
    for match in _TUPLE_BINDS_SELF.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        head = text[line_start : match.start()]
        if "=" in head or "#" in head or "(" in head:
            continue  # the match is not in the target of the statement
        yield line_start + len(head) - len(head.lstrip())


def binds_self_attribute(text: str) -> bool:
    """A statement binding an attribute of self: `self.x = ...`, `self.x: T = ...`,
    setattr(self, ...), or a tuple target holding one (`x, self.attn = ...`)."""
    return next(line_start_matches(_BINDS_ATTRIBUTE, text), None) is not None or next(
        _tuple_binding_starts(text), None
    ) is not None


# `+=` too: `self.loss += criterion(out, y)` makes a number placeholder a tensor (rules/placeholder.py)
_BINDS_ATTRIBUTE_PATTERN = r"self\.\w+[ \t]*(?::[^=\n]*|[-+*/@]|//)?=(?!=)|setattr\(\s*self\b"
_BINDS_ATTRIBUTE = re.compile(_BINDS_ATTRIBUTE_PATTERN)


# `self.x = ...`, `setattr(self, ...)`, and a container of self filled: `self.d[k] = ...`,
# `self.items.append(...)`, `self.saved[g].append(...)` (a list or dict of tensors is reported
# wherever it is filled).
_BINDS_SELF = re.compile(
    _BINDS_ATTRIBUTE_PATTERN
    + r"|self\.\w+(?:\[[^\]\n]*\])+[ \t]*=(?!=)|self\.\w+(?:\[[^\]\n]*\])*\.(?:append|extend|insert|update|setdefault)\("
)


_REGISTRATION = re.compile(r"\b(?:Parameter|register_buffer)\(")
# `self.weight = nn.Parameter(` up to the parenthesis: the parameter is the value bound.
_BOUND_TO_SELF = re.compile(r"[ \t]*self\.\w+[ \t]*(?::[^=\n]*)?=[ \t]*([\w.]+\.)?$")
_REST_OF_LINE_IS_EMPTY = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\n|$)")


def _without_registrations(block: str, hints: Hints) -> str:
    """The block with registered tensors blanked out: the arguments of
    `self.register_buffer(...)`, and `nn.Parameter(...)` with its arguments where it is the
    whole value bound to an attribute (`self.w = nn.Parameter(torch.zeros(3))`).  A tensor
    made there is registered already, whatever torch call makes it.

    Kept: a parameter anywhere else (`[nn.Parameter(t)]` is a list of tensors,
    `nn.Parameter(t).to(device)` a copy), a registration whose arguments mention
    requires_grad (a buffer meant to be trained) or bind a name (`:=`), or whose
    parentheses cannot be matched simply.
    """
    if "Parameter(" not in block and "register_buffer(" not in block:
        return block
    pieces: list[str] = []
    position = 0
    for match in _REGISTRATION.finditer(block):
        if match.start() < position:
            continue  # nested inside a span already blanked
        end = _closing_paren(block, match.end())
        if end is None:
            continue
        inner = block[match.end() : end]
        if "requires_grad" in inner or ":=" in inner:
            continue
        if block[match.start()] == "P":
            line_start = block.rfind("\n", 0, match.start()) + 1
            bound = _BOUND_TO_SELF.match(block, line_start, match.start())
            if not (bound and _REST_OF_LINE_IS_EMPTY.match(block, end + 1) and _is_torch_parameter(bound.group(1), hints)):
                continue
            blank_from, blank_to = match.end() - 1, end + 1  # the call's parentheses too
        else:
            blank_from, blank_to = match.end(), end
        pieces.append(block[position:blank_from])
        pieces.append(" " * (blank_to - blank_from))
        position = blank_to
    pieces.append(block[position:])
    return "".join(pieces)


def _is_torch_parameter(qualifier: str | None, hints: Hints) -> bool:
    """Whether `<qualifier>Parameter` (`nn.`, `torch.nn.` or nothing) is torch's nn.Parameter."""
    head, _, rest = (qualifier or "Parameter").partition(".")
    suffix = f".{rest}Parameter" if qualifier else ""
    return any(classify_call(target + suffix) is CallKind.PARAMETER for target in hints.torch.get(head, ()))


def _closing_paren(text: str, start: int) -> int | None:
    """Index of the parenthesis closing the one just before `start`; None if what is inside
    cannot be followed simply (a triple-quoted string, a string not closed on its line)."""
    depth = 1
    i = start
    stop = min(len(text), start + 2000)
    while i < stop:
        char = text[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return i
        elif char == "#":
            i = text.find("\n", i)
            if i < 0:
                return None
        elif char in "\"'":
            if text.startswith(char * 3, i):
                return None
            i += 1
            while i < stop and text[i] != char:
                if text[i] == "\n":
                    return None
                i += 2 if text[i] == "\\" else 1
            if i >= stop:
                return None
        i += 1
    return None


# Calls of methods only a tensor has (torch_names.TENSOR_ONLY_METHODS): their result is a tensor.
_TENSOR_METHOD_CALL = re.compile(r"\.(?:" + "|".join(sorted(RESULT_IS_TENSOR_METHODS)) + r")\(")


def mentions(text: str, hints: Hints) -> bool:
    if "import" in text and _IMPORT_WORD.search(text):
        return True  # names bound inside the method, which the hints do not know
    for match in _SELF_HELPER.finditer(text):
        if match.start() and _WORD_CHAR.match(text, match.start() - 1):
            continue  # `myself.x(`
        if _indent(text, match.start()) is None:
            return True  # a value built by a method of self, not a bare `self.post_init()`
    if _TENSOR_METHOD_CALL.search(text):
        return True  # `val.detach()`: whatever `val` is, the result is a tensor
    if "=" in text and _FROM_HELD_OBJECT.search(text):
        return True
    # A substring test first (fast, in C); the finer checks only for the names found.
    for name in hints.names:
        if name in text and next(_mentions_of(text, name, after_dot=True), None) is not None:
            return True
    for name, targets in hints.torch.items():
        if name in text and any(_torch_mention_may_make_tensor(m, targets) for m in _mentions_of(text, name)):
            return True
    for name in hints.calls:
        if name in text and any(
            m.group(3) == "(" and not _is_method_of_a_class(name, m.group(1), hints.modules)
            for m in _mentions_of(text, name)
        ):
            return True
    for name in hints.modules:
        # `config.power`: a module-level value of a repository module, perhaps a tensor
        # (Evaluator._constant_at)
        if name in text and any(m.group(1) and m.group(3) != "(" for m in _mentions_of(text, name)):
            return True
    return False


# What follows a name: `.a.b` (spaces allowed around the dots), the space after, the next character.
_CHAIN = re.compile(r"((?:\s*\.\s*\w+)*)(\s*)(.?)")


def _mentions_of(text: str, name: str, after_dot: bool = False) -> Iterator[re.Match[str]]:
    """For each mention of `name` as a whole word (and, unless `after_dot`, not as the
    attribute of something else), what follows it (see _CHAIN)."""
    position = text.find(name)
    while position >= 0:
        end = position + len(name)
        before = text[position - 1] if position else " "
        if not (_WORD_CHAR.match(before) or (before == "." and not after_dot) or _WORD_CHAR.match(text, end)):
            yield _CHAIN.match(text, end)  # type: ignore[misc]  (it matches anywhere)
        position = text.find(name, position + 1)


def _torch_mention_may_make_tensor(match: re.Match[str], targets: frozenset[str]) -> bool:
    attributes, space, after = match.groups()
    if after in (".", "\\") or (after == "#" and "\n" not in space):
        return True  # a dotted name this scan cannot follow (continued, or commented)
    tail = "".join(attributes.split())
    return any(may_make_tensor(target + tail, called=after == "(") for target in targets)


def _is_method_of_a_class(head: str, attributes: str, modules: frozenset[str] = frozenset()) -> bool:
    """`Config.from_dict(`: a method of a class, which the analysis never types (see
    Evaluator._qualified_call).  Told by what the head is bound to, not by case alone: under
    a module (`Models.build(`, `pkg.Layers.make(`) the owner may be a module, and the call
    counts (a class method there only costs a parse)."""
    parts = [head, *attributes.replace(".", " ").split()]
    return len(parts) >= 2 and parts[-2][:1].isupper() and head not in modules


def _block_end(text: str, position: int, indent: int, quotes: list[int]) -> int:
    """Offset where the block of a `def` at `indent` ends (the next line indented no deeper),
    `position` being the end of its `def name(`.  The parameters may go on over lines
    indented no deeper than the `def` itself: the block starts after their closing
    parenthesis, and where that cannot be followed simply it ends with the text."""
    length = len(text)
    closing = _closing_paren(text, position)
    if closing is None:
        return length
    position = text.find("\n", closing)
    while 0 <= position < length:
        line_start = position + 1
        line_end = text.find("\n", line_start)
        if line_end < 0:
            line_end = length
        line = text[line_start:line_end]
        stripped = line.lstrip(" \t")
        if stripped.rstrip("\r") and not stripped.startswith(("#", ")", "]", "}")):  # "\r": a blank CRLF line
            depth = len(line) - len(stripped)
            if depth <= indent and bisect.bisect_left(quotes, line_start) % 2 == 0:
                return line_start
        position = line_end if line_end < length else -1
    return length




_FROM_IMPORT = re.compile(r"from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)")
_PLAIN_IMPORT = re.compile(r"import[ \t]+([^\n#;]+)")


def import_bindings(text: str) -> list[tuple[str, str, int, str]] | None:
    """(local name, module, level, imported name) for every import line, wherever it is.

    Read from the text, without parsing: a superset of what the module binds (imports
    inside functions count too).  The imported name is "*" for a star import.  None when
    a line continues with a backslash, which the expression cannot follow.
    """
    bindings: list[tuple[str, str, int, str]] = []
    for match in line_start_matches(_FROM_IMPORT, text):
        names = match.group(3).strip()
        if names.endswith("\\"):
            return None
        names = names.strip("()")
        for item in names.split(","):
            item = item.split("#")[0].strip()
            if not item:
                continue
            parts = item.split()
            name, local = parts[0], parts[-1] if len(parts) == 3 and parts[1] == "as" else parts[0]
            bindings.append((local, match.group(2), len(match.group(1)), name))
    for match in line_start_matches(_PLAIN_IMPORT, text):
        names = match.group(1).strip()
        if names.endswith("\\"):
            return None
        for item in names.split(","):
            parts = item.split()
            if not parts:
                continue
            module = parts[0]
            local = parts[2] if len(parts) == 3 and parts[1] == "as" else module.partition(".")[0]
            bindings.append((local, module if len(parts) == 3 else local, 0, ""))
    return bindings
