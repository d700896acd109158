"""Raw tensors reported and never rewritten: their shape is not one register_buffer fits.

Torch facts (torch 2.13): `Module._apply` (what `.to()` runs) and `state_dict()` visit
`_parameters`, `_buffers` and `_modules` only, so tensors inside a list, tuple or dict
attribute are neither moved nor saved; `setattr(self, name, t)` with a dynamic name and a
tensor assigned only outside `__init__` have no single constructor statement to rewrite.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from codemod import unpacking
from codemod.edits import quote
from codemod.facts import THROUGH_FUNCTION, class_text, empty_container
from codemod.rules.base import Decision, Rule
from codemod.tensors import Kind

if TYPE_CHECKING:
    from codemod.facts import AttributeFacts

CONTAINER = Rule(
    "BUF301",
    "tensor-container",
    "a list, tuple or dict of tensors; its tensors are neither moved by .to() nor saved",
    fact='Module._apply (.to()) and state_dict() visit _parameters, _buffers and _modules only: tensors in a list, tuple or dict attribute are neither moved nor saved.',
    before='def __init__(self, n):\n    super().__init__()\n    self.supports = [torch.eye(n), torch.ones(n, n)]',
)
SETATTR = Rule(
    "BUF302",
    "setattr-tensor",
    "a tensor set with setattr(self, name, t)",
    fact='setattr(self, name, t) with a name computed at run time binds a plain attribute that .to() does not move; there is no single statement to rewrite.',
    before='def __init__(self, names):\n    super().__init__()\n    for name in names:\n        setattr(self, f"{name}_mask", torch.ones(3))',
)
OUTSIDE_CONSTRUCTOR = Rule(
    "BUF303",
    "assigned-outside-constructor",
    "a tensor assigned only outside __init__; it is neither moved by .to() nor saved",
    fact='A tensor assigned only outside __init__ (in forward, in a setup method) is a plain attribute: not moved by .to(), not saved.',
    before='def __init__(self):\n    super().__init__()\n\ndef forward(self, x):\n    self.mean = x.mean(0)\n    return x - self.mean',
)
UNPACKED = Rule(
    "BUF304",
    "unpacked-assignment",
    "a tensor assigned by tuple unpacking or a chained assignment",
    fact='register_buffer stores the tensor it is given; an unpacking is split into locals and registrations only when every attribute it binds is a plain tensor.',
    before='def __init__(self, n):\n    super().__init__()\n    self.mask, self.size = build_mask(n)  # size is an int',
)
RULES = (CONTAINER, SETATTR, OUTSIDE_CONSTRUCTOR, UNPACKED)

CONTAINER_SUGGESTION = (
    "register each tensor as a buffer; for tensors trained with the model, nn.ParameterList / nn.ParameterDict (they "
    "then join model.parameters(): not for tensors an optimizer of their own trains)"
)
# For a container filled outside __init__: most are per-call (outputs gathered in forward)
# or caches filled as inputs arrive, which need no buffer.
FILLED_LATER_SUGGESTION = (
    "a per-call container (outputs gathered in forward) needs no change, nor does a cache if the model is not moved "
    "after it fills; tensors the model keeps: register each as a buffer"
)


def set_by_base(attr: str, base_texts) -> bool:
    """Whether a repository base class's source registers or binds self.<attr> (then the
    attribute is the base's buffer or attribute, and assigning it keeps it so)."""
    quoted = (f'"{attr}"', f"'{attr}'")
    for text in base_texts:
        if any(q in text for q in quoted) or f".{attr} =" in text or f".{attr}=" in text:
            return True
    return False


def outside_suggestion(attr: str, class_text: str, overrides_base_method: bool) -> tuple[str, str | None]:
    """(extra reason, suggestion) for a tensor assigned only outside __init__.

    Never a persistent registration (the value is rebuilt where it is assigned, so a saved
    copy would be stale or the wrong shape), and none at all where a registration in
    __init__ would break the class: a lazy `hasattr` / `getattr(..., None)` guard (a
    registered None makes hasattr True, so the value is never built), or a method that
    overrides a base class's, which the base constructor may call before __init__'s body
    runs (register_buffer after it raises KeyError).
    """
    if f'hasattr(self, "{attr}")' in class_text or f"hasattr(self, '{attr}')" in class_text or (
        f'getattr(self, "{attr}"' in class_text or f"getattr(self, '{attr}'" in class_text
    ):
        return "; built lazily behind a hasattr/getattr check", "build it in __init__ and drop the lazy check, or leave it as it is"
    if overrides_base_method:
        return "; set by an override of a base-class method (or a method it calls), which the base constructor may run first", None
    return "", (
        "a per-call value (an output, a loss, a batch kept for logging) needs no change; a tensor the model keeps between "
        f'calls: declare it in __init__ with self.register_buffer("{attr}", None, persistent=False)'
    )


# -- the decision ---------------------------------------------------------------------------


def wants(facts: AttributeFacts) -> bool:
    """A list or dict filled with tensors by a method other than __init__ (built empty in
    __init__, or in that method itself), or built empty in __init__ and replaced there by
    one of tensors."""
    return _filled_outside(facts) is not None


def _filled_outside(facts: AttributeFacts) -> str | None:
    """Where a method of the class fills the attribute with tensors (`self.means.append(t)`),
    or, after an empty placeholder in __init__, binds it to a container of them
    (`self.means = means`, a local list of tensors)."""
    own = f"{facts.cls.cls.name}."
    placeholder = bool(facts.events) and all(empty_container(e.value_node) for e in facts.events)
    for label, event in facts.outside:
        if event.value is None or event.value.kind is not Kind.SEQUENCE:
            continue
        if event.kind == "fill":
            return f"filled in {label} (line {event.stmt.lineno})"
        if placeholder and event.kind == "assign" and label.startswith(own):
            return f"set in {label} (line {event.stmt.lineno})"
    return None


def _base_placeholder(attr: str, base_texts) -> bool:
    """Whether every binding of self.<attr> in the bases' text is `= None` and none names it
    in quotes (a registration): a placeholder that the subclass's method fills."""
    if any(f'"{attr}"' in text or f"'{attr}'" in text for text in base_texts):
        return False
    values = [m.group(1) for text in base_texts for m in re.finditer(rf"\.{re.escape(attr)}\s*=(?!=)\s*([^\n]*)", text)]
    return bool(values) and all(v.split("#")[0].strip() == "None" for v in values)


def _makes_parameters(node: ast.expr | None) -> bool:
    """A list, tuple or dict display or comprehension whose items are `nn.Parameter(...)`."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        items = [node.elt]
    elif isinstance(node, ast.DictComp):
        items = [node.value]
    elif isinstance(node, (ast.List, ast.Tuple)):
        items = list(node.elts)
    elif isinstance(node, ast.Dict):
        items = list(node.values)
    else:
        return False
    return bool(items) and all(isinstance(item, ast.Call) and ast.unparse(item.func).rpartition(".")[2] == "Parameter"
                               for item in items)


def decide(facts: AttributeFacts) -> Decision | None:
    if not facts.events:
        return _outside_only(facts)
    filled = _filled_outside(facts)
    if filled is not None and not any(e.value is not None and e.value.is_tensor for e in facts.events if e.kind == "assign"):
        return CONTAINER.skip(
            f"a list or dict of tensors, {filled}; its tensors are not moved by .to() nor saved",
            FILLED_LATER_SUGGESTION,
        )
    for event in facts.events:
        if event.kind == "setattr" and event.value is not None and event.value.is_tensor:
            name = quote(facts.attr) if facts.attr != "<dynamic name>" else "name"
            return SETATTR.skip(
                "tensor set with setattr(self, ...); the name is not a plain attribute",
                f"self.register_buffer({name}, <tensor>)",
            )
    sequence = next(
        (e for e in facts.events if e.value is not None and e.value.kind is Kind.SEQUENCE and e.kind in ("assign", "fill")), None
    )
    if sequence is not None and not any(e.value is not None and e.value.is_tensor for e in facts.events if e.kind == "assign"):
        if _makes_parameters(sequence.value_node):
            # `[nn.Parameter(...) for _ in range(n)]`: the weights of layers nobody trains
            return CONTAINER.skip(
                "a list, tuple or dict of nn.Parameters made here; a plain container hides them from model.parameters(), "
                "so an optimizer built from it never trains them, and .to() and state_dict() miss them",
                "nn.ParameterList / nn.ParameterDict, which register each one (they then join model.parameters() and "
                "state_dict(): checkpoints saved before lack those keys)",
            )
        what = "a tensor or a tuple of tensors, by configuration" if sequence.value.or_tensor else "a list, tuple or dict of tensors"
        forward = f"{facts.cls.cls.name}.forward"
        rebound = next((e for label, e in facts.outside if label == forward and e.kind in ("assign", "unpack")), None)
        if rebound is not None:  # `out, self.hidden = self.lstm(x, self.hidden)`: state replaced on every call
            return CONTAINER.skip(
                f"{what}, replaced by forward (line {rebound.stmt.lineno}); its tensors are not "
                "moved by .to() nor saved",
                "state that forward replaces (a recurrent hidden state) needs no change if it is reset before use on "
                "the device; tensors the model keeps: register each as a buffer",
            )
        return CONTAINER.skip(
            f"{what}; its tensors are not moved by .to() nor saved",
            CONTAINER_SUGGESTION,
        )
    unpacked = unpacking.skip_reason(facts.attr, facts.events)
    if unpacked is not None:
        return UNPACKED.skip(unpacked)
    return None


def _outside_only(facts: AttributeFacts) -> Decision | None:
    """A tensor assigned only outside the constructor: reported, never rewritten."""
    cls = facts.cls
    own = [
        (label, e)
        for label, e in facts.outside
        if label.startswith(f"{cls.cls.name}.") and e.value is not None and (
            (e.kind in ("assign", "unpack", "fill") and (e.value.kind is Kind.TENSOR or e.value.kind is Kind.SEQUENCE))
            # `self.loss = 0` then `self.loss += self.criterion(out, y)`: a tensor from then on
            or (e.kind == "mutate" and isinstance(e.stmt, ast.AugAssign) and e.value.kind is Kind.TENSOR)
        )
    ]
    if not own or any(label.startswith("base ") for label, _ in facts.outside):
        return None
    tensors = [(label, e) for label, e in own if e.value.kind is Kind.TENSOR]
    if not tensors:
        label, event = own[0]
        if event.kind == "fill" and facts.attr in cls.inherited_containers:
            where = f"made empty by a base class's constructor and filled in {label} (line {event.stmt.lineno})"
        else:
            where = f"assigned only outside __init__ (in {label})"
        return CONTAINER.skip(
            f"a list, tuple or dict of tensors {where}; its tensors are not moved by .to() nor saved",
            FILLED_LATER_SUGGESTION,
        )
    label, event = tensors[0]
    if facts.forward_input_refuted(tensors):
        return None  # forward's input is a list of objects here (`self.meshes[i].edges_count`), not a tensor
    base_texts = [class_text(symbols, base) for symbols, base in cls.bases]
    if set_by_base(facts.attr, base_texts) and not _base_placeholder(facts.attr, base_texts):
        return None  # the base's buffer or attribute: assigning it keeps it one
    method = label.partition(".")[2]
    # torch's layers never call an override from their constructors; a repository base may
    # (a dummy pass to size its layers, a reset hook), which its text shows
    overrides = method in cls.run_by_base_constructor
    extra, suggestion = outside_suggestion(facts.attr, cls.class_text, overrides)
    # the finding points at the first binding outside __init__; where that is not this one
    # (`self._e = e` in a setup method, the tensor made in forward), the line says which
    where = label if event is facts.outside[0][1] else f"{label}, line {event.stmt.lineno}"
    through_init = f"{cls.cls.name}.__init__{THROUGH_FUNCTION}"
    if label.startswith(through_init):
        # `if ONNX_EXPORT: create_grids(self, ...)` in __init__, and forward otherwise
        return OUTSIDE_CONSTRUCTOR.skip(
            f"tensor bound by {label[len(through_init):]} (line {event.stmt.lineno}), a function of the module "
            "that __init__ hands self to, not a statement of the class the tool can rewrite; it is not moved "
            f"by .to() nor saved{extra}", suggestion
        )
    return OUTSIDE_CONSTRUCTOR.skip(
        f"tensor assigned only outside __init__ (in {where}); it is not moved by .to() nor saved{extra}", suggestion
    )
