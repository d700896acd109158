"""What the analysis knows about a class and each of its attributes, gathered once.

The rules (codemod/rules/) decide from these facts and nothing else: `ClassFacts` holds
the class, its constructor walked statement by statement, its methods, bases and
subclasses; `AttributeFacts` holds one attribute's bindings in the constructor, what other
methods do to it and where it is read.  Expensive facts are computed on first use and
kept, so a rule pays only for what it asks.
"""

from __future__ import annotations

import ast
import re
from functools import cached_property
from typing import TYPE_CHECKING

from codemod.call_sites import (
    argument_values,
    bound_node,
    binding_evidence,
    arithmetic_uses,
    combined_with_inputs,
    elements_used_as_objects,
    handed_to_tensor_helpers,
    keyword_taken,
    keywords_taken,
    kept_arguments,
    mixed_arguments,
    partly_typed_arguments,
    refuted_arguments,
    registered_elsewhere,
    tensor_use_evidence,
    typed_by_signature_only,
    used_as_tensor,
)
from codemod.ftypes import PersistentPolicy
from codemod.repo_index import RepoIndex
from codemod.rules import branches, constructor_helpers
from codemod.segments import (
    CONFIG_NAMES,
    HANDS_SELF,
    NOT_A_TENSOR_ANNOTATION,
    TENSOR_SEQUENCE_FUNCTIONS,
    binds_self_attribute,
    moved_operand,
    tensor_used_attributes,
)
from codemod.symbols import ModuleSymbols
from codemod.tensors import (
    FORWARD_INPUT,
    TAKEN_KEYWORD,
    UNKNOWN,
    Evaluator,
    Kind,
    Value,
    admits_a_tensor_among_others,
    constructor_attributes,
    mentions_self_attribute,
    method_bound_attributes,
    method_in,
    type_tested,
)
from codemod.walker import AttrEvent, BodyWalker, is_base_init

if TYPE_CHECKING:
    from collections.abc import Iterator

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# In the label of an event bound by a function defined inside a method (a hook, a callback).
INNER_FUNCTION = "'s inner function "
# In the label of an event bound by a function of the module that a method hands self to.
THROUGH_FUNCTION = " through "
# Methods that return their receiver's kind, moved, cast or copied: a tensor gives a tensor (a
# module, a module; None raises in either version), so `self.x = self.x.to(device)` binds nothing new.
SAME_KIND_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "long", "int", "bool",
                               "type_as", "contiguous", "detach", "clone"})


def same_kind_receiver(node: ast.expr | None) -> ast.expr | None:
    """What a chain of such methods starts from (`self.h.detach().clone()` -> `self.h`); the
    node itself where it is no such call."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SAME_KIND_METHODS:
        node = node.func.value
    return node


def copied_attribute(node: ast.expr | None, self_names: set[str | None]) -> str | None:
    """The attribute of self that a value is, whole or through such methods (`self.pending`,
    `self.h.detach().clone()`), or None."""
    node = same_kind_receiver(node)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self_names:
        return node.attr
    return None


# Why a slot copied from another slot (`self.previous = self.pending`) is taken to hold a tensor.
COPIED_SLOT = "data passed in (another slot of the module that a method fills with a tensor)"


def _binds_attribute_of(name: str) -> re.Pattern[str]:
    """`name.x = ...` / `name.x: T = ...` / `name.x[key] = ...` at a line start: code binding an
    attribute of the object `name` holds, or storing into one (a function handed self, a
    closure over a method's self)."""
    return re.compile(rf"^[ \t]*{re.escape(name)}\.\w+(?:\[[^\n]*\])?[ \t]*(?::[^=\n]*)?=(?!=)", re.MULTILINE)


class ClassFacts:
    """One nn.Module class of a file, with its constructor walked."""

    def __init__(
        self,
        index: RepoIndex,
        symbols: ModuleSymbols,
        cls: ast.ClassDef,
        display_path: str,
        policy: PersistentPolicy,
        can_spell_parameter: bool,
        file_facts: dict,
    ) -> None:
        self.index = index
        self.symbols = symbols
        self.cls = cls
        self.display_path = display_path
        self.policy = policy
        self.can_spell_parameter = can_spell_parameter
        self.file_facts = file_facts  # what rules learn once per file
        self.lines = symbols.source_lines
        self.cache: dict = {}  # what rules compute once per class
        self.init: FunctionNode | None = next(
            (s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None
        )
        self.evaluator: Evaluator | None = None
        self.walker: BodyWalker | None = None
        self.constructor_helpers: set[str] = set()  # own methods that __init__ calls (constructor code)
        self.init_events: dict[str, list[AttrEvent]] = {}
        self.final_attrs: dict[str, Value] = {}
        # attr -> (argument, where the class uses it as only a tensor is used, or None; and where
        # one call hands it a tensor and another an untyped value, or None), for constructor
        # arguments kept as attributes that not every repository call types (rules/untyped_arguments.py)
        self.untyped_tensor_arguments: dict[str, tuple[str, str | None, tuple[str, str] | None]] = {}
        self._walk_constructor()

    # -- the constructor --------------------------------------------------------------------

    def _walk_constructor(self) -> None:
        init = self.init
        if init is None:
            return
        evaluator = Evaluator(self.index, self.symbols, init, self.method)
        walker = self._walker(evaluator)
        walker.walk(init.body)
        typed = self._typed_arguments(init, walker)
        if typed:
            evaluator = Evaluator(self.index, self.symbols, init, self.method)
            evaluator.env.update(typed)
            parameters = {a.arg for a in [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]}
            taken = set(keywords_taken(init)) - parameters
            # a keyword taken out of **kwargs (`kwargs.get("mean")`) is read where it is taken
            evaluator.env.update((TAKEN_KEYWORD + name, value) for name, value in typed.items() if name in taken)
            walker = self._walker(evaluator)
            walker.walk(init.body)
        events = walker.events
        self.final_attrs = dict(evaluator.self_attrs)
        helper_events = self._helper_events(init, evaluator, walker.containers)
        if helper_events:
            events = _in_call_order(events, helper_events)
        for event in events:
            self.init_events.setdefault(event.attr, []).append(event)
        self.final_attrs.update(evaluator.self_attrs)
        self.evaluator, self.walker = evaluator, walker

    @cached_property
    def tensor_uses(self) -> dict[str, str]:
        """attr -> where a method of the class uses it as only a tensor is used
        (call_sites.tensor_use_evidence), for every attribute the constructor binds; one walk
        of the methods serves every rule that asks."""
        if self.self_name is None:
            return {}
        return tensor_use_evidence(self.cls, self.self_name, set(self.init_events))

    @cached_property
    def torch_base_buffers(self) -> set[str]:
        """Buffers registered by the torch.nn classes the class derives from (`_WeightedLoss`: weight)."""
        if not self.cls.bases:
            return set()
        return self.index.torch_base_buffers(self.symbols, self.cls)

    @property
    def self_name(self) -> str | None:
        return self.evaluator.self_name if self.evaluator is not None else None

    def _typed_arguments(self, init: FunctionNode, walker: BodyWalker) -> dict[str, Value]:
        """Constructor arguments kept as attributes and used as tensors, typed from the
        repository's calls of this class (see call_sites)."""
        if walker.ev.self_name is None:
            return {}
        text = self.class_text
        # The text first: walking the constructor and every method costs more.
        # `self.mean = mean.view(-1, 1, 1)`: the binding itself uses the argument as a tensor
        bound_as_tensor = binding_evidence(walker.events, {event.attr for event in walker.events})
        evidenced: set[str] = set()  # kept arguments the text shows used as a tensor

        open_arguments = _open_arguments(init, walker.events)
        # `self.const = const.to(device)`: a tensor or a module whatever the class does with it;
        # worth typing from the calls (a tensor there is kept raw), never reported untyped
        moved = {event.attr for event in walker.events if event.kind == "assign"
                 and isinstance(event.value_node, ast.Call) and moved_operand(event.value_node) is not None} & open_arguments

        # `self.w = w` for `w: Tensor` or `w=torch.ones(3)`: a tensor, maybe an nn.Parameter a
        # caller hands in; the calls may say it is a plain one, whatever the class does with it
        by_signature = {event.attr for event in walker.events if event.kind == "assign"
                        and event.value is not None and typed_by_signature_only(event.value)}

        def worth(attrs: set[str]) -> set[str]:
            evidenced.update(tensor_used_attributes(text, attrs) | (attrs & bound_as_tensor.keys())
                             | handed_to_tensor_helpers(self.cls, walker.ev.self_name, attrs))
            return evidenced | combined_with_inputs(self.cls, attrs & open_arguments) | (attrs & (moved | by_signature))

        kept = kept_arguments(init, walker.events, walker.ev, worth)
        self._mixed_arguments(init, walker)
        tested = type_tested(init)  # `if not isinstance(weight, torch.Tensor)`: other values are expected
        kept = {attr: name for attr, name in kept.items() if name.partition(".")[0] not in tested}
        if not kept:
            return {}
        in_bindings = {attr: where for attr, where in bound_as_tensor.items() if attr in kept}
        # what `inputs * self.mask` or `f(x, w=self.w)` alone admitted is typed from the calls or
        # left alone, never reported as an untyped tensor argument
        used = (used_as_tensor(self.cls, walker.ev.self_name, set(kept)) & evidenced) | set(in_bindings)
        # `self.lens = lens.to(device)` and `self.lens - 1` in a method: only a tensor does both
        to_device = {event.attr for event in walker.events if event.attr in moved and _moved_to_a_device(event.value_node)}
        moved_arithmetic = arithmetic_uses(self.cls, walker.ev.self_name, (set(kept) & to_device) - used)
        used |= set(moved_arithmetic)
        # `inputs * self.mask`: a number or a tensor; the calls may say (typed), or nothing is said
        combined = (combined_with_inputs(self.cls, set(kept) & open_arguments) | (set(kept) & (moved | by_signature))) - used
        if not used and not combined:
            return {}
        values = argument_values(self.index, self.symbols, self.cls, init, {kept[a] for a in used | combined})
        typed = {name: v for name, v in values.items() if v.is_tensor or v.kind is Kind.SEQUENCE}
        untyped = {a for a in used if kept[a] not in typed}
        # a call hands a tensor and another a value nothing types (`dataset = eval(name)`, then
        # `Model(mean=dataset.mean)`): a raw tensor in the first configuration at least
        partly = partly_typed_arguments(self.index, self.symbols, self.cls)
        partial = {a for a in used | combined if kept[a] not in typed and kept[a] in partly}
        # a call hands a tensor and another a number or a string (`RX(0, torch.tensor(0.5))`,
        # `RX(0, "theta")`): a raw tensor in the first configuration, reported, never rewritten
        self._note_mixed({a: kept[a] for a in used | combined if a not in untyped | partial}, typed)
        if untyped or partial:
            refuted = refuted_arguments(self.index, self.symbols, self.cls)
            scalars = _scalar_parameters(init)  # `size_average=True`: the signature says what it is
            candidates = {a for a in untyped | partial if kept[a] not in refuted
                          and kept[a].partition(".")[0] not in scalars and not registered_elsewhere(self.index, kept[a])}
            evidence = {a: where for a, where in in_bindings.items() if a in candidates}
            evidence.update(tensor_use_evidence(self.cls, walker.ev.self_name, candidates - set(evidence)))
            evidence.update({a: f"{where}, on a value moved to a device in __init__" for a, where in moved_arithmetic.items()
                             if a in candidates and a not in evidence})
            self.untyped_tensor_arguments.update((a, (kept[a], where, None)) for a, where in evidence.items())
            for a in sorted(candidates & partial):
                where = self.untyped_tensor_arguments.get(a, (None, None, None))[1]
                self.untyped_tensor_arguments[a] = (kept[a], where, partly[kept[a]])
        return typed

    def _mixed_arguments(self, init: FunctionNode, walker: BodyWalker) -> None:
        """Kept arguments annotated as a tensor among other values (`param_name: str | float |
        Tensor`) that one repository call hands a tensor and another (or the default) a value
        that is none: reported (BUF308), since the tensor stays a plain attribute and no
        rewrite can register the other values."""
        args = init.args
        admitting = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
                     if admits_a_tensor_among_others(a.annotation, walker.ev)}
        if not admitting:
            return
        wanted = {attr: name for attr, name in kept_arguments(init, walker.events, walker.ev).items() if name in admitting}
        if not wanted:
            return
        values = argument_values(self.index, self.symbols, self.cls, init, set(wanted.values()))
        self._note_mixed(wanted, {name for name, value in values.items() if value.is_tensor})

    def _note_mixed(self, kept: dict[str, str], typed: set[str] | dict[str, Value]) -> None:
        """Report (BUF308) each kept argument (attr -> argument) not typed a tensor that one
        repository call hands a tensor and another a value that is none (mixed_arguments)."""
        mixed = mixed_arguments(self.index, self.symbols, self.cls)
        for attr, name in sorted(kept.items()):
            if name in mixed and name not in typed:
                self.untyped_tensor_arguments[attr] = (name, None, (*mixed[name], "non-tensor"))

    def _helper_events(self, init: FunctionNode, evaluator: Evaluator, containers: set[str]
                       ) -> list[tuple[ast.Call, AttrEvent]]:
        """Events of the methods __init__ calls (rules/constructor_helpers.py): constructor code.

        Each comes with the call in __init__ that runs it.  A helper that another method
        also calls keeps its events among the other methods' too (see outside_events).  The
        containers the helpers bind join `containers` (the constructor walker's).
        """
        own = {
            stmt.name: stmt
            for stmt in self.cls.body
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            and stmt.name not in ("forward", "__call__")  # a dry run in __init__ does not make forward constructor code
            and not (stmt.name.startswith("__") and stmt.name.endswith("__"))  # a private `__load(...)` is a helper too
        }
        if not own:
            return []
        found: dict[int, tuple[ast.Call, ast.AST]] = {}  # each method once, run first where a torch base runs it
        for call, method in [*self._run_by_torch_base(init, own, evaluator.self_name),
                             *constructor_helpers.helper_calls(init, evaluator.self_name, own)]:
            found.setdefault(id(method), (call, method))
        if not found:
            return []
        tops = [(stmt.lineno, stmt.end_lineno or stmt.lineno) for stmt in init.body]
        result: list[tuple[ast.Call, AttrEvent]] = []
        for call, method in found.values():
            helper_evaluator = Evaluator(self.index, self.symbols, method, self.method, self_attrs=dict(evaluator.self_attrs))
            helper_evaluator.per_call = False  # constructor code: its values may be rewritten, so no guesses
            if helper_evaluator.self_name is None:
                continue
            helper_walker = BodyWalker(helper_evaluator)
            # `self.points = {}` in __init__, `self.points[k] = tensor` in the helper it calls
            helper_walker.containers.update(containers)
            helper_walker.walk(method.body)
            top = next((i for i, (a, b) in enumerate(tops) if a <= call.lineno <= b), len(tops))
            for event in helper_walker.events:
                event.top_index = top
                event.nested = True  # never moved after super().__init__() from another method
                event.in_base_init = _is_base_init(call, evaluator.self_name)
                result.append((call, event))
            evaluator.self_attrs.update(helper_evaluator.self_attrs)
            # `self.best = {"acc": 0}` in init_metrics(): a container other methods may fill
            containers |= helper_walker.containers
        self.constructor_helpers = {method.name for _, method in found.values()}
        return result

    def _run_by_torch_base(self, init: FunctionNode, own: dict[str, ast.AST], self_name: str) -> list[tuple[ast.Call, ast.AST]]:
        """The own methods a torch.nn base's constructor calls (`reset_parameters` of a class
        derived from nn.Linear), with the `super().__init__(...)` call that runs them, and the
        helpers they call in turn."""
        if not self.cls.bases:
            return []
        wanted = [name for name in sorted(self.index.torch_base_constructor_calls(self.symbols, self.cls)) if name in own]
        if not wanted:
            return []
        start = next((node for node in ast.walk(init) if isinstance(node, ast.Call) and _is_base_init(node, self_name)), None)
        if start is None:
            return []
        found: list[tuple[ast.Call, ast.AST]] = []
        for name in wanted:
            method = own[name]
            found.append((start, method))
            parameters = method.args.args  # type: ignore[attr-defined]
            if parameters:
                found += [(start, m) for _, m in constructor_helpers.helper_calls(method, parameters[0].arg, own)]
        return found

    def _self_calls_in_init(self) -> Iterator[ast.Call]:
        """The calls `self.<name>(...)` in __init__ (nested ones included)."""
        init, self_name = self.init, self.self_name
        if init is None or self_name is None:
            return
        for node in ast.walk(init):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == self_name
            ):
                yield node

    @cached_property
    def base_helper_bindings(self) -> dict[str, tuple[str, AttrEvent, int]]:
        """Tensors bound by methods of repository base classes that __init__ calls
        (`self.setup()` defined in a mixin): {attr: (where, event, line of the call)}."""
        found: dict[str, tuple[str, AttrEvent, int]] = {}
        own = {s.name for s in self.cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for node in self._self_calls_in_init():
            if node.func.attr in own or node.func.attr == "__init__":
                continue
            located = self.method(node.func.attr)
            if located is None:
                continue
            symbols, method = located
            owner = next((c.name for _, c in self.bases if method in c.body), "a base class")
            evaluator = Evaluator(self.index, symbols, method, self.method)
            if evaluator.self_name is None:
                continue
            walker = BodyWalker(evaluator)
            walker.walk(method.body)
            for event in walker.events:
                if event.kind == "assign" and event.value is not None and event.value.is_tensor and event.attr not in found:
                    where = f"{owner}.{method.name} ({symbols.path.name}, line {event.stmt.lineno})"
                    found[event.attr] = (where, event, node.lineno)
        return found

    # -- lookups ----------------------------------------------------------------------------

    @cached_property
    def class_text(self) -> str:
        return class_text(self.symbols, self.cls)

    @cached_property
    def bases(self) -> list[tuple[ModuleSymbols, ast.ClassDef]]:
        """Repository base classes, parsed only when a lookup needs them (they can be large:
        a framework's base model class is thousands of lines)."""
        return self.index.base_classes(self.symbols, self.cls)

    @cached_property
    def subclasses(self) -> list[tuple[ModuleSymbols, ast.ClassDef]]:
        return self.index.subclasses_of(self.symbols, self.cls)

    def lineage(self) -> Iterator[tuple[ModuleSymbols, ast.ClassDef]]:
        """This class, then its repository bases (parsed only if the search gets that far)."""
        yield self.symbols, self.cls
        yield from self.bases

    def method(self, name: str) -> tuple[ModuleSymbols, FunctionNode] | None:
        return method_in(self.lineage(), name)

    @cached_property
    def registered_through_helpers(self) -> set[str]:
        """Names __init__ registers through a method of the class or a repository base that
        hands its argument to register_buffer / register_parameter (`self.register_state(
        "running_keys", torch.zeros(0, d))`, whose body calls `self.register_buffer(name,
        default)`): later assignments land in that buffer."""
        found: set[str] = set()
        if "register_" not in self.class_text and not self.bases:
            return found  # no register_* call in the class, and no base that could hold the helper
        for node in self._self_calls_in_init():
            if not (
                node.func.attr not in ("register_buffer", "register_parameter", "__init__")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            located = self.method(node.func.attr)
            if located is None:
                continue
            method = located[1]
            positional = [*method.args.posonlyargs, *method.args.args]
            if len(positional) < 2:
                continue
            own, name = positional[0].arg, positional[1].arg
            for call in ast.walk(method):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("register_buffer", "register_parameter")
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == own
                    and call.args
                    and isinstance(call.args[0], ast.Name)
                    and call.args[0].id == name
                ):
                    found.add(node.args[0].value)
        return found

    def own_method(self, name: str) -> FunctionNode | None:
        found = self.method(name)
        return found[1] if found is not None else None

    @cached_property
    def class_level_names(self) -> dict[str, str]:
        """Names bound in the class body (or a repository base's): attributes, methods, properties."""
        names: dict[str, str] = {}
        for _, cls in self.lineage():
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.setdefault(stmt.name, f"a method of {cls.name}")
                elif isinstance(stmt, ast.Assign):
                    for target in stmt.targets:
                        if isinstance(target, ast.Name):
                            names.setdefault(target.id, f"a class attribute of {cls.name}")
                elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
                    names.setdefault(stmt.target.id, f"a class attribute of {cls.name}")
        return names

    @cached_property
    def branch_paths(self) -> dict:
        """The if/match arms around each statement of __init__ and of the class's other
        methods (a helper __init__ calls binds `self.mu = nn.Parameter(...)` in one arm and a
        raw tensor in the other), each method's statements on their own."""
        paths = branches.branch_paths(self.init.body if self.init is not None else [])
        for name, method in self.own_methods.items():
            if name != "__init__":
                paths.update(branches.branch_paths(method.body))
        return paths

    @cached_property
    def if_tests(self) -> dict[int, ast.expr]:
        """The test of every `if` statement of the class's methods, by the statement's id (the
        keys of branch_paths)."""
        return {id(node): node.test for method in self.own_methods.values() for node in ast.walk(method)
                if isinstance(node, ast.If)}

    def function_of(self, func: ast.expr) -> FunctionNode | None:
        """The definition a call's function refers to: a method of self, a function of this
        file or of the repository; None when unknown."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.self_name:
            return self.own_method(func.attr)
        if isinstance(func, ast.Name) and func.id in self.symbols.functions:
            return self.symbols.functions[func.id]
        qualname = self.symbols.qualify(func)
        if qualname is None or qualname.startswith("torch."):
            return None
        resolved = self.index.resolve(qualname, self.symbols.path)
        if resolved.kind == "function" and resolved.module is not None:
            return resolved.node
        return None

    @cached_property
    def own_methods(self) -> dict[str, FunctionNode]:
        """The methods the class body defines, by name."""
        return {stmt.name: stmt for stmt in self.cls.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def _with_helpers(self, names) -> set[str]:
        """`names` (own methods other than __init__) and the own methods they call."""
        own = {name: stmt for name, stmt in self.own_methods.items() if name != "__init__"}
        found: set[str] = set()
        for name in sorted(set(names) & set(own)):
            found.add(name)
            first = own[name].args.args[0].arg if own[name].args.args else None
            found.update(method.name for _, method in constructor_helpers.helper_calls(own[name], first, own))
        return found

    @cached_property
    def run_by_base_constructor(self) -> set[str]:
        """Own methods that override a repository base's method the base's source calls
        (`self.register_schedule(...)`, `self(...)` for forward), and those they call: the
        base constructor may run them before this class's __init__ body."""
        texts = [class_text(symbols, base) for symbols, base in self.bases]
        called = {
            name for name in self.own_methods
            if any(f"self.{name}(" in text or (name == "forward" and "self(" in text) for text in texts)
        }
        return self._with_helpers(called & self.overrides)

    @cached_property
    def overrides(self) -> set[str]:
        """Own methods that override a repository base's method, and those they call: a base
        constructor may run them before this class's __init__ body."""
        return self._with_helpers(self._base_method_names)

    @cached_property
    def _base_method_names(self) -> set[str]:
        return {
            stmt.name
            for _, cls in self.bases
            for stmt in cls.body
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name != "__init__"
        }

    # -- other methods ----------------------------------------------------------------------

    def outside_events(self, candidates: set[str]) -> dict[str, list[tuple[str, AttrEvent]]]:
        """Events on self.<attr> in the other methods of the class, its repository bases and subclasses.

        Own methods are read for every attribute they assign (to report tensors set only
        outside __init__); bases and subclasses only matter for the attributes to rewrite.
        """
        result: dict[str, list[tuple[str, AttrEvent]]] = {}
        self._collect_method_events(self.symbols, self.cls, self.init, result, "own", candidates)
        self._type_copied_slots(result)
        self._collect_function_events(result)
        self._collect_closure_events(result)
        if candidates:
            for symbols, cls in self.bases:
                self._collect_method_events(symbols, cls, None, result, "base", candidates)
            for symbols, cls in self.subclasses:
                self._collect_method_events(symbols, cls, None, result, "subclass", candidates)
        return result

    def _type_copied_slots(self, result: dict[str, list[tuple[str, AttrEvent]]]) -> None:
        """`self.previous = self.pending` (or `.clone()` of it) in a method, where the constructor leaves `pending`
        None and a method of the class binds it a tensor: `previous` then holds a tensor or
        None, whatever the walk of that method read for `pending` (the constructor's None).
        A guess, fit for a report (rules/placeholder.py)."""
        filled = {
            attr for attr, events in result.items()
            if self.final_attrs.get(attr, UNKNOWN).kind is Kind.NONE
            and any(e.kind in ("assign", "unpack") and e.value is not None and e.value.kind is Kind.TENSOR
                    for _, e in events)
        }
        for attr, events in result.items():
            for _label, event in events:
                copied = copied_attribute(event.value_node, {"self", self.self_name})  # `.clone()` of it too
                if event.kind == "assign" and copied in filled and copied != attr \
                        and (event.value is None or event.value.kind in (Kind.NONE, Kind.UNKNOWN)):
                    event.value = Value(Kind.TENSOR_OR_NONE, COPIED_SLOT, guessed=True)

    @cached_property
    def attrs_after_construction(self) -> dict[str, Value]:
        return self._attrs_after_construction()

    def _attrs_after_construction(self) -> dict[str, Value]:
        """What self holds when another method runs: the constructor's attributes, and those of
        the repository bases' constructors (`self.relation_linear` built by a base)."""
        lineage = [(self.symbols, self.cls), *self.bases]
        # `self.Tensor` and `self.netG`, a tensor type or a module some method binds (a
        # pix2pix-style base's `initialize`)
        bound = method_bound_attributes(self.index, lineage)
        if not self.bases:
            return {**bound, **self.final_attrs}
        inherited = constructor_attributes(self.index, lineage, depth=1)
        return {**bound, **inherited, **self.final_attrs}

    def _walker(self, evaluator: Evaluator) -> BodyWalker:
        """A walker of one of the class's own bodies, which knows the lists the class
        concatenates."""
        walker = BodyWalker(evaluator)
        walker.concatenated.update(self.concatenated)
        return walker

    @cached_property
    def concatenated(self) -> set[str]:
        """Attributes a method of the class hands whole to torch.cat / torch.stack
        (`torch.cat(self.all_preds, dim=0)`): lists of tensors, as those functions take nothing
        else, whatever the values appended to them are typed as."""
        if "cat(" not in self.class_text and "stack(" not in self.class_text:
            return set()
        found: set[str] = set()
        for method in self.cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            owner = method.args.args[0].arg
            for node in ast.walk(method):
                if not isinstance(node, ast.Call) or self.symbols.qualify(node.func) not in TENSOR_SEQUENCE_FUNCTIONS:
                    continue
                first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "tensors"), None)
                if isinstance(first, ast.Attribute) and isinstance(first.value, ast.Name) and first.value.id == owner:
                    found.add(first.attr)
        return found

    @cached_property
    def inherited_containers(self) -> set[str]:
        """Attributes a repository base's constructor binds to an empty container (a tuple
        among them, which nothing fills), and this class does not bind in its own (`self.training_step_outputs = []` in a Lightning base
        whose subclasses' steps append losses)."""
        found: set[str] = set()
        own = set(self.init_events) if self.init is not None else set()
        for _, base in self.bases:
            init = next((s for s in base.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is None or not init.args.args:
                continue
            owner = init.args.args[0].arg
            for node in ast.walk(init):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                        and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == owner
                        and empty_container(node.value) and node.targets[0].attr not in own):
                    found.add(node.targets[0].attr)
        return found

    def _collect_method_events(self, symbols, cls, own_init, result, relation: str, candidates: set[str]) -> None:
        lines = symbols.source_lines
        helpers = self.constructor_helpers if relation == "own" else set()
        whole = ""  # the class's text, read once if a method may be a forward hook
        for stmt in cls.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or stmt is own_init:
                continue
            if stmt.name in helpers and not self._called_elsewhere(cls, stmt.name, own_init):
                continue  # constructor code, read with __init__
            # Reading a method costs far more than this text check, and most methods never touch these attributes.
            text = "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])
            mentions = any(attr in text for attr in candidates)
            if not mentions and relation == "own":
                containers = (self.walker.containers if self.walker is not None else set()) | self.inherited_containers
                mentions = any(f".{attr}" in text for attr in containers)  # filled with tensors here?
            if not mentions and (relation != "own" or not binds_self_attribute(text)):
                continue
            evaluator = Evaluator(self.index, symbols, stmt, self.method, self_attrs=self._attrs_after_construction())
            if evaluator.self_name is None:
                continue
            positional = [*stmt.args.posonlyargs, *stmt.args.args]
            if len(positional) == 4 and positional[3].annotation is None and (
                f"register_forward_hook(self.{stmt.name})" in (whole := whole or class_text(symbols, cls))
            ):
                _type_hook_arguments(evaluator, positional[2], positional[3])  # `layer.register_forward_hook(self._hook)`
            elif len(positional) == 2 and positional[1].annotation is None and (
                f".register_hook(self.{stmt.name})" in (whole := whole or class_text(symbols, cls))
            ):
                # `x.register_hook(self.save_gradient)`: a tensor's hook receives its gradient
                evaluator.env[positional[1].arg] = Value(Kind.TENSOR, "data passed in (the gradient a tensor hook receives)")
            elif relation == "own" and len(positional) > 1 and binds_self_attribute(text):
                # `def save_attn(self, attn): self.attn = attn`, called as `self.save_attn(attn)` by forward
                for name, value in self._typed_by_own_calls(symbols, cls, stmt).items():
                    if name not in evaluator.env or evaluator.env[name].kind is Kind.UNKNOWN:
                        evaluator.env[name] = value
            if relation == "own":
                walker = self._walker(evaluator)
                walker.containers.update(self.inherited_containers)  # `self.step_outputs = []` in a base's __init__
            else:
                walker = BodyWalker(evaluator)
            if self.walker is not None:
                walker.containers.update(self.walker.containers)  # `self.d = {}` in __init__, `self.d[k] = t` here
            walker.walk(stmt.body)
            label = f"{cls.name}.{stmt.name}"
            if relation == "base":
                label = f"base {label}"
            elif relation == "subclass":
                label = f"subclass {label}"
            for event in walker.events:
                if relation == "own" or event.attr in candidates:
                    result.setdefault(event.attr, []).append((label, event))

    def _typed_by_own_calls(self, symbols, cls, method: FunctionNode) -> dict[str, Value]:
        """Unannotated parameters of ``method`` that every call the class makes of it
        (`self.save_attn(attn)` in forward) hands a tensor, typed as a guess: a value read at the
        end of the caller's body, fit for a report, never for a rewrite (rules/lazy.py)."""
        parameters = [a for a in [*method.args.posonlyargs, *method.args.args][1:] if a.annotation is None]
        if not parameters:
            return {}
        handed: dict[str, list[Value]] = {}
        for caller in cls.body:
            if not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)) or caller is method or not caller.args.args:
                continue
            me = caller.args.args[0].arg
            calls = [node for node in ast.walk(caller) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Attribute) and node.func.attr == method.name
                     and isinstance(node.func.value, ast.Name) and node.func.value.id == me]
            if not calls:
                continue
            evaluator = self._walked(symbols, caller)
            if evaluator.self_name is None:
                return {}
            for call in calls:
                if any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
                    return {}
                for parameter, argument in zip(parameters, call.args):
                    handed.setdefault(parameter.arg, []).append(evaluator.eval(argument))
        return {name: Value(Kind.TENSOR, "data passed in (by the class's own call)", guessed=True)
                for name, values in handed.items() if values and all(v.kind is Kind.TENSOR for v in values)}

    def _walked(self, symbols, method: FunctionNode) -> Evaluator:
        """An evaluator of ``method`` that has walked its body (what its names hold at its end),
        made once per method: every setter the method calls asks for it."""
        key = ("walked", id(method))
        if key not in self.cache:
            evaluator = Evaluator(self.index, symbols, method, self.method, self_attrs=self._attrs_after_construction())
            if evaluator.self_name is not None:
                BodyWalker(evaluator).walk(method.body)
            self.cache[key] = evaluator
        return self.cache[key]

    def _collect_function_events(self, result) -> None:
        """`create_grids(self, n)`: a function of the module that binds attributes of the module
        handed to it, as a method would.  Reported, never rewritten: the analysis rewrites
        statements of the class only.  Where __init__ hands self to it (`if ONNX_EXPORT:
        create_grids(self, ...)`, and forward otherwise), its bindings are labelled as made
        through __init__, so that a binding in __init__ itself is not rewritten either
        (rules/constructor_helpers.py)."""
        if not HANDS_SELF.search(self.class_text):
            return  # most classes: nothing hands self to a function
        lines = self.symbols.source_lines
        callers: dict[str, set[str]] = {}
        for stmt in self.cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                text = "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])
                for name in HANDS_SELF.findall(text):
                    callers.setdefault(name, set()).add(stmt.name)
        for name, methods in sorted(callers.items()):
            if name not in self.symbols.functions:
                continue
            function = self.symbols.functions[name]
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            positional = [*function.args.posonlyargs, *function.args.args]
            if not positional:
                continue
            text = "\n".join(lines[function.lineno - 1 : function.end_lineno])
            if not _binds_attribute_of(positional[0].arg).search(text):
                continue  # binds no attribute of the instance it is handed
            evaluator = Evaluator(self.index, self.symbols, function, self.method, self_attrs=dict(self.final_attrs))
            if evaluator.self_name is None:
                continue
            walker = BodyWalker(evaluator)
            walker.walk(function.body)
            caller = "__init__" if "__init__" in methods else sorted(methods)[0]
            label = f"{self.cls.name}.{caller}{THROUGH_FUNCTION}{name}()"
            for event in walker.events:
                result.setdefault(event.attr, []).append((label, event))

    def _collect_closure_events(self, result) -> None:
        """`def save_output(module, inputs, output): self.features = output` inside a method (a
        forward hook, a callback): a function defined in a method that binds attributes of the
        method's self.  Reported, never rewritten: it runs whenever its caller decides.  The
        output argument of a function handed to register_forward_hook is the module's output."""
        lines = self.symbols.source_lines
        # `layer.register_forward_hook(self._make_hook(name))`: the functions those methods return are hooks
        factories = set(re.findall(r"register_forward_hook\(\s*self\.(\w+)\(", self.class_text))
        backward_factories = set(re.findall(_BACKWARD_HOOK + r"\(\s*self\.(\w+)\(", self.class_text))
        for method in self.cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            outer_self = method.args.args[0].arg
            text = "\n".join(lines[method.lineno - 1 : method.end_lineno])
            if text.count("def ") < 2 or f"{outer_self}." not in text:
                continue
            binds = _binds_attribute_of(outer_self)
            hooks = _hook_functions(method, set(re.findall(r"register_forward_hook\(\s*(\w+)", text)), method.name in factories)
            backward = _hook_functions(method, set(re.findall(_BACKWARD_HOOK + r"\(\s*(\w+)", text)),
                                      method.name in backward_factories)
            for nested in ast.walk(method):
                if nested is method or not isinstance(nested, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                arguments = [a.arg for a in (*nested.args.posonlyargs, *nested.args.args, *nested.args.kwonlyargs)]
                if outer_self in arguments:
                    continue  # its own `self`: a method of a nested class, not a closure
                if not binds.search("\n".join(lines[nested.lineno - 1 : nested.end_lineno])):
                    continue
                evaluator = Evaluator(self.index, self.symbols, nested, None, self_attrs=dict(self.final_attrs))
                evaluator.self_name = outer_self
                positional = [*nested.args.posonlyargs, *nested.args.args]
                if nested in hooks and len(positional) == 3 and positional[2].annotation is None:
                    _type_hook_arguments(evaluator, positional[1], positional[2])
                elif nested in backward and len(positional) == 3 and positional[2].annotation is None:
                    # `hook(module, grad_input, grad_output)`: tuples of the gradients of the layer's inputs and outputs
                    for gradients in positional[1:]:
                        evaluator.env[gradients.arg] = Value(Kind.SEQUENCE, HOOK_GRADIENTS)
                walker = self._walker(evaluator)
                if self.walker is not None:
                    walker.containers.update(self.walker.containers)  # `self.maps = {}` in __init__, `self.maps[k] = output` here
                walker.walk(nested.body)
                label = f"{self.cls.name}.{method.name}{INNER_FUNCTION}{nested.name}()"
                for event in walker.events:
                    result.setdefault(event.attr, []).append((label, event))

    def called_elsewhere(self, name: str) -> bool:
        """Whether a method other than __init__ and its helpers calls self.<name>, or any code
        of the repository calls <name> on another object (`model._init_hidden_state(n)` in a
        training script, `self.layer.reset_mask()` in a parent)."""
        return self._called_elsewhere(self.cls, name, self.init) or self._called_through_another_object(name)

    def _called_through_another_object(self, name: str) -> bool:
        # One search of the repository per method name and run: each class that asks would
        # otherwise parse every file mentioning it again.  The answer depends on every file.
        key = ("called_through_another_object", name)
        found = self.index.memo.get(key)
        if found is not None:
            self.index.scanned_repository = True
            return found
        found = self.index.memo[key] = any(
            _call_through_another_object(tree, name)
            for _path, tree in self.index.parsed_files_mentioning(f".{name}(") if tree is not None
        )
        return found

    def _called_elsewhere(self, cls: ast.ClassDef, name: str, init) -> bool:
        """Whether a method other than __init__ and its helpers mentions self.<name>."""
        lines = self.symbols.source_lines
        needle = f".{name}"
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt is not init and stmt.name not in self.constructor_helpers:
                if needle in "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno]):
                    return True
        return False


def empty_container(node: ast.expr | None) -> bool:
    """`[]`, `{}`, `()`, `list()`, `dict()`, `tuple()`."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return not node.elts
    if isinstance(node, ast.Dict):
        return not node.keys
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "dict", "tuple")
            and not node.args and not node.keywords)


def _type_hook_arguments(evaluator: Evaluator, inputs: ast.arg, output: ast.arg) -> None:
    """A forward hook's last two arguments: the tuple of the layer's inputs (unless annotated)
    and the layer's output."""
    evaluator.env[output.arg] = Value(Kind.TENSOR, "data passed in (the output a forward hook receives)")
    if inputs.annotation is None:
        evaluator.env[inputs.arg] = Value(Kind.SEQUENCE, HOOK_INPUTS)


def _hook_functions(method: FunctionNode, named: set[str], factory: bool) -> list[ast.AST]:
    """The functions defined in `method` that are handed to a hook registration (forward or
    backward): those `named` there, and those a factory returns: a function named there, called
    with the layer's name (`register_forward_hook(get_hook(name))`), or `method` itself when the
    class hands what it returns to the registration (`factory`)."""
    hooks: list[ast.AST] = [method] if factory else []
    for nested in ast.walk(method):
        if nested is not method and isinstance(nested, (ast.FunctionDef, ast.AsyncFunctionDef)) and nested.name in named:
            hooks.append(nested)
    for function in list(hooks):
        returned = {n.value.id for n in ast.walk(function) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
        hooks += [inner for inner in function.body if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner.name in returned]
    return [hook for hook in hooks if hook is not method]


def _call_through_another_object(tree: ast.AST, name: str) -> bool:
    """Whether `tree` calls <name> on an object other than self, cls or super()."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name:
            receiver = node.func.value
            if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
                continue
            if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
                continue  # a subclass's override handing on to this one: its own constructor path
            return True
    return False


def _statement_blocks(function: FunctionNode) -> dict[int, list]:
    """id(statement) -> the statement list (a body, an orelse, a handler's body) holding it."""
    blocks: dict[int, list] = {}
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                for stmt in statements:
                    if isinstance(stmt, ast.stmt):
                        blocks[id(stmt)] = statements
    return blocks


def _moved_to_a_device(node: ast.expr | None) -> bool:
    """`x.cuda()`, `x.to(device)`, `x.to("cuda:0")`; not `length.to("m")` (a unit's
    conversion: pint's quantities have `.to` too)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr != "to":
        return node.func.attr in ("cuda", "cpu")
    strings = [a.value for a in (*node.args, *(k.value for k in node.keywords))
               if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return all(re.fullmatch(r"cpu|cuda(?::\d+)?|mps|meta|xpu", value) for value in strings)


def _scalar_parameters(init: FunctionNode) -> set[str]:
    """The parameters whose default is a number, a string or a bool (`size_average=True`), or
    whose annotation is a scalar, a string or a config: no tensor by their signature."""
    args = init.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    found = set()
    for parameter in [*positional, *args.kwonlyargs]:
        default = defaults.get(parameter.arg)
        if isinstance(default, ast.UnaryOp):
            default = default.operand
        if isinstance(default, ast.Constant) and default.value is not None:
            found.add(parameter.arg)
        elif parameter.annotation is not None and NOT_A_TENSOR_ANNOTATION.search(ast.unparse(parameter.annotation)):
            found.add(parameter.arg)
    return found


def _open_arguments(init: FunctionNode, events) -> set[str]:
    """Attributes kept as a parameter (`self.mask = mask`, `self.comp_mask = competition_mask`,
    `self.const = const.to(device)`) that the signature does not show to be something else: no
    number, string or bool default, no scalar, string or config annotation, not named like a configuration object
    (segments.CONFIG_NAMES).  Only these are worth reading the calls for when forward merely
    combines them with an input (the text pre-filter, segments._maybe_tensor_arguments, admits
    the same)."""
    args = init.args
    parameters = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} | set(keywords_taken(init))
    scalars = _scalar_parameters(init)
    found = set()
    for event in events:
        node = moved_operand(bound_node(event)) if event.kind == "assign" else None
        keyword = keyword_taken(event.value_node, init) if event.kind == "assign" and event.value_node is not None else None
        if keyword is not None:
            node = ast.Name(id=keyword, ctx=ast.Load())  # `kwargs.get("mean")`: the keyword `mean`
        if not isinstance(node, ast.Name):
            continue
        name = node.id
        if name in parameters and name not in CONFIG_NAMES and name not in scalars and event.attr not in CONFIG_NAMES:
            found.add(event.attr)
    return found


# What a forward hook's second argument holds: the tuple of the layer's positional inputs.
HOOK_INPUTS = "data passed in (the inputs a forward hook receives)"
HOOK_GRADIENTS = "data passed in (the gradients a backward hook receives)"
# `layer.register_full_backward_hook(hook)` and the older `register_backward_hook`
_BACKWARD_HOOK = r"register_(?:full_)?backward_hook"


class AttributeFacts:
    """One attribute of a class: its bindings in the constructor and elsewhere."""

    def __init__(
        self,
        cls: ClassFacts,
        attr: str,
        events: list[AttrEvent],
        outside: list[tuple[str, AttrEvent]],
        base_helper: tuple[str, AttrEvent, int] | None = None,
    ) -> None:
        self.cls = cls
        self.attr = attr
        self.events = events  # in the constructor (its helpers included), in call order
        self.outside = outside  # (where, event) in other methods, bases and subclasses
        self.base_helper = base_helper  # bound by a base class's method that __init__ calls (ClassFacts.base_helper_bindings)

    @cached_property
    def raw(self) -> list[AttrEvent]:
        """The bindings that make work: a tensor (or list of them) assigned, set, unpacked or
        filled in, or a buffer registered from a tensor that requires grad."""
        return [e for e in self.events if is_raw_binding(e)]

    @property
    def anchor(self) -> ast.stmt:
        """The statement a finding points at (for a base helper's binding: the call in __init__)."""
        if self.raw:
            return self.raw[0].stmt
        if self.events:
            return self.events[0].stmt
        if self.base_helper is not None and self.cls.init is not None:
            line = self.base_helper[2]
            return next(s for s in self.cls.init.body if s.lineno <= line <= (s.end_lineno or s.lineno))
        return self.outside[0][1].stmt

    @cached_property
    def tensor_bindings(self) -> list[AttrEvent]:
        """Assignments and registrations of a tensor in the constructor."""
        return [e for e in self.events if e.kind in ("assign", "register_buffer") and e.value is not None and e.value.is_tensor]

    def exclusive(self, a: AttrEvent, b: AttrEvent) -> bool:
        """Whether two statements sit in different arms of one if/match (never both run)."""
        paths = self.cls.branch_paths
        return id(a.stmt) in paths and id(b.stmt) in paths and branches.exclusive(paths[id(a.stmt)], paths[id(b.stmt)])

    @cached_property
    def registered_by_base(self) -> bool:
        """A repository base class registers it (`register_buffer` in its constructor or a method
        it calls), or a torch.nn base does (`_WeightedLoss`: weight), or __init__ does through a
        helper method (ClassFacts.registered_through_helpers): assigning a tensor to it keeps it
        that buffer."""
        if self.attr in self.cls.registered_through_helpers or self.attr in self.cls.torch_base_buffers:
            return True
        return any(label.startswith("base ") and e.kind in ("register_buffer", "registered") for label, e in self.outside)

    @cached_property
    def considered(self) -> bool:
        """Whether the attribute is a raw tensor to decide about at all: bound raw in the
        constructor and not registered (as a buffer or parameter) before that."""
        if self.registered_by_base:
            return False
        events = self.events
        if not events:
            return bool(self.outside) or self.base_helper is not None
        if not self.raw:
            return False
        first = events[0]
        # Already registered before any raw assignment: later tensors land in the buffer anyway.
        if first.kind == "registered" or (
            first.kind == "assign" and first.value is not None and first.value.kind in (Kind.PARAMETER, Kind.BUFFER)
        ):
            if not (first.kind == "assign" and first.value.kind is Kind.PARAMETER and self.raw_beside_parameters):
                return False
        if first.kind == "register_buffer" and not (first.value and first.value.is_tensor and first.value.requires_grad):
            # registered first; a raw binding after it lands in the buffer, unless it sits in
            # another arm of an `if` than every registration (`if keep: register_buffer(...)`
            # / `else: self.table = t`), where it is a plain attribute
            registrations = [e for e in events if e.kind == "register_buffer"]
            if not any(all(self.exclusive(raw, r) for r in registrations) for raw in self.raw):
                return False
        if self.replaced_by_parameter:
            return False
        if self.registered_where_it_exists:
            return False
        return True

    @cached_property
    def registered_where_it_exists(self) -> bool:
        """Each raw binding sits in the arm of an `if` that finds the attribute already there, and
        the author registers it in the other arm (`if hasattr(self, "A"): self.A = t` / `else:
        self.register_buffer("A", t)`): the assignment lands in the buffer registered before."""
        registrations = [e for e in self.events if e.kind == "register_buffer"]
        if not registrations or not self.raw:
            return False
        tests = self.cls.if_tests
        paths = self.cls.branch_paths
        for raw in self.raw:
            guarded = False
            for registration in registrations:
                if not self.exclusive(raw, registration):
                    continue
                arms = dict(paths.get(id(registration.stmt), ()))
                for node, arm in paths.get(id(raw.stmt), ()):
                    if node in arms and arms[node] != arm and arm == 0 and _finds_attribute(tests.get(node), self.attr):
                        guarded = True
            if not guarded:
                return False
        return True

    def forward_input_refuted(self, bindings: list[tuple[str, AttrEvent]]) -> bool:
        """Every binding keeps one of forward's unannotated inputs (assumed a tensor), and an
        element of the attribute has an attribute no tensor has (`self.meshes[i].edges_count`):
        the input is a list of objects (call_sites.elements_used_as_objects)."""
        if not bindings or not all(e.value is not None and FORWARD_INPUT in (e.value.stateful or "") for _, e in bindings):
            return False
        method = self.cls.own_methods.get(bindings[0][0].rpartition(".")[2])
        if method is None or not method.args.args:
            return False
        return elements_used_as_objects(self.cls.cls, method.args.args[0].arg, self.attr) is not None

    def own_tensor_binding(self, kinds: tuple[str, ...] = ("assign",), through_inner_functions: bool = True
                           ) -> tuple[str, AttrEvent] | None:
        """(where, event) of the first binding of a tensor (or of a tensor-or-None) to the attribute by a method of the
        class itself (not of a base or a subclass) outside __init__; without the functions
        defined inside a method (hooks, callbacks) when `through_inner_functions` is False."""
        own = f"{self.cls.cls.name}."
        for label, event in self.outside:
            if (
                label.startswith(own)
                and (through_inner_functions or INNER_FUNCTION not in label)
                and event.kind in kinds
                and event.value is not None
                # `h if self.keep else None`: a tensor or None, both of which an empty buffer slot holds
                and event.value.kind in (Kind.TENSOR, Kind.TENSOR_OR_NONE)
            ):
                return label, event
        return None

    @cached_property
    def replaced_by_parameter(self) -> bool:
        """Every raw binding is followed by an nn.Parameter assignment that always runs (a
        statement of __init__'s own body, not inside an if/for/try): the raw tensor is a step
        of the construction, and the attribute ends as a parameter (`self.xy = torch.cat(...)`
        then `self.xy = nn.Parameter(self.xy, requires_grad=False)`)."""
        init = self.cls.init
        if init is None or not self.raw:
            return False
        top_level = {id(s) for s in init.body}
        # a helper's statement always runs too where the helper's call is a statement of its own
        # in __init__'s body (`self.reset_parameters()`) and the statement one of the helper's own
        statements = {id(s.value) for s in init.body if isinstance(s, ast.Expr)}
        own = {name: method for name, method in self.cls.own_methods.items() if name != "__init__"}
        for call, helper in constructor_helpers.helper_calls(init, self.cls.self_name, own):
            if id(call) in statements and call.func.attr == helper.name:  # type: ignore[union-attr]
                top_level |= {id(s) for s in helper.body}
        last_raw = max(self.events.index(e) for e in self.raw)
        if any(
            e.kind == "assign" and e.value is not None and e.value.kind is Kind.PARAMETER and id(e.stmt) in top_level
            for e in self.events[last_raw + 1 :]
        ):
            return True
        # `if cosine: self.w = torch.Tensor(n, d); self.w = nn.Parameter(init(self.w))`: each raw
        # binding followed, in its own block, by a Parameter assignment that runs whenever it does
        blocks = _statement_blocks(init)
        for raw in self.raw:
            block = blocks.get(id(raw.stmt))
            start = self.events.index(raw)
            if block is None or not any(
                e.kind == "assign" and e.value is not None and e.value.kind is Kind.PARAMETER
                and blocks.get(id(e.stmt)) is block for e in self.events[start + 1 :]
            ):
                return False
        return True

    @cached_property
    def raw_beside_parameters(self) -> bool:
        """Raw tensors and nn.Parameter(...) assigned to one name, each raw one either in
        another arm of an `if` than every Parameter or before it.  Registering the raw one as
        a buffer is then safe: assigning an nn.Parameter to a buffer's name moves it from
        `_buffers` to `_parameters` (torch-facts §3)."""
        assigned = [e for e in self.events if e.kind == "assign" and e.value is not None]
        parameters = [e for e in assigned if e.value.kind is Kind.PARAMETER]
        raw = [e for e in assigned if e.value.is_tensor]
        if not parameters or not raw:
            return False
        return all(self.exclusive(r, p) or r.stmt.lineno < p.stmt.lineno for r in raw for p in parameters)

    @cached_property
    def trained(self) -> str | None:
        """Why the attribute is meant to be trained, if it is.  A later rebinding to a value
        computed from the trainable tensor (`self.t = self.t.repeat(10, 1, 1)`) leaves a
        result, not the leaf: nothing trains it, and as a parameter it would train apart."""
        reason = None
        for event in self.events:
            if event.kind == "requires_grad":
                return f"self.{event.attr}.requires_grad set at line {event.stmt.lineno}"
            if event.value is not None and event.value.is_tensor and event.value.requires_grad:
                if event.kind == "register_buffer":
                    return "registered buffer created with requires_grad=True; an optimizer never updates a buffer"
                if event.value.moved_parameter:
                    return "nn.Parameter(...) followed by a device move is a copy, not a parameter"
                reason = reason or event.value.requires_grad
            elif (reason and event.kind == "assign" and event.value is not None and event.value.is_tensor
                  and event.value_node is not None and mentions_self_attribute(event.value_node, self.cls.self_name, self.attr)):
                reason = None
        return reason

    def reads_in_constructor(self, after_line: int) -> int | None:
        """The first line after `after_line` where construction reads self.<attr>: __init__,
        a method it calls (followed recursively), or `self` handed to a function or class
        that may read it; None when nothing does."""
        return constructor_read(self.attr, after_line, self.cls)


def constructor_read(attr: str, after_line: int, facts: ClassFacts) -> int | None:
    """See AttributeFacts.reads_in_constructor."""
    init, self_name = facts.init, facts.self_name
    if init is None or self_name is None:
        return None
    seen: set[str] = set()

    def visit(function: ast.AST, name: str | None, minimum: int) -> int | None:
        found: int | None = None
        calls = {id(n.func) for n in ast.walk(function) if isinstance(n, ast.Call)}
        attribute_values = {id(n.value) for n in ast.walk(function) if isinstance(n, ast.Attribute)}
        for n in ast.walk(function):
            line = getattr(n, "lineno", 0)
            if line <= minimum or (found is not None and line >= found):
                continue
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
                if n.attr == attr and isinstance(n.ctx, ast.Load):
                    found = line
                elif id(n) in calls and n.attr not in seen:
                    seen.add(n.attr)
                    method = facts.own_method(n.attr)
                    if method is None:
                        if n.attr not in _MODULE_METHODS_THAT_READ_NOTHING:
                            found = line  # a method of a base outside the repository: may read anything
                    elif method.args.args and visit(method, method.args.args[0].arg, 0) is not None:
                        found = line
            elif isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and id(n) not in attribute_values:
                found = line  # self handed to something that may read the attribute
        return found

    return visit(init, self_name, after_line)


# nn.Module methods a constructor calls that read no attribute of its own.
_MODULE_METHODS_THAT_READ_NOTHING = frozenset(
    {"register_buffer", "register_parameter", "add_module", "register_module", "register_forward_hook",
     "register_forward_pre_hook", "register_full_backward_hook", "register_backward_hook",
     "register_load_state_dict_post_hook", "_register_load_state_dict_pre_hook", "_register_state_dict_hook"}
)


def is_raw_binding(event: AttrEvent) -> bool:
    """A tensor (or list of them) assigned, set or unpacked, or filled in; or a buffer
    registered from a tensor that requires grad.  Mutations and plain buffers do not count."""
    value = event.value
    if value is None:
        return False
    if event.kind in ("assign", "setattr", "unpack"):
        return value.is_tensor or (value.kind is Kind.SEQUENCE and not references_registered(event))
    if event.kind == "fill":
        return True
    return event.kind == "register_buffer" and value.is_tensor and bool(value.requires_grad)


def references_registered(event: AttrEvent) -> bool:
    """A list or tuple written of the module's own registered parameters and buffers
    (`self.means = [self.weight_mean, self.bias_mean]`): the same objects, which `.to()` moves
    in place and `state_dict()` saves under their own names, so nothing in it is a raw tensor."""
    node = event.value_node
    elements = event.value.elements if event.value is not None else None
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts or elements is None or len(elements) != len(node.elts):
        return False
    return all(isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id == "self"
               and value.kind in (Kind.PARAMETER, Kind.BUFFER) for element, value in zip(node.elts, elements))


def class_text(symbols: ModuleSymbols, cls: ast.ClassDef) -> str:
    return "\n".join(symbols.source_lines[cls.lineno - 1 : cls.end_lineno])


def _in_call_order(events: list[AttrEvent], helper_events: list[tuple[ast.Call, AttrEvent]]) -> list[AttrEvent]:
    """__init__'s events with each helper's events placed where __init__ calls it."""
    keyed = [((e.stmt.lineno, e.stmt.col_offset), 0, i, e) for i, e in enumerate(events)]
    keyed += [((call.lineno, call.col_offset), 1, i, e) for i, (call, e) in enumerate(helper_events)]
    keyed.sort(key=lambda item: item[:3])
    return [e for *_, e in keyed]


def _is_base_init(call: ast.Call, self_name: str | None) -> bool:
    return is_base_init(call, lambda node: isinstance(node, ast.Name) and node.id == self_name)


def _finds_attribute(test: ast.expr | None, attr: str) -> bool:
    """Whether an `if` test asks whether the module already holds ``attr``: `hasattr(self,
    "attr")`, `getattr(self, "attr", ...)`, `"attr" in self._buffers`."""
    if test is None:
        return False
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "getattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == attr:
            return True
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and node.left.value == attr \
                and any(isinstance(c, ast.Attribute) and c.attr in ("_buffers", "__dict__") for c in node.comparators):
            return True
    return False
