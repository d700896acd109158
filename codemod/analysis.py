"""Decide, per nn.Module class, which attributes become buffers or parameters.

Input: a module's `ast` and the repository index.  Output: a `FilePlan` of
findings and position-keyed edits that `rewrite.py` applies with libcst.
Every rule that would make the rewritten code raise where the original did
not turns into a skip with a reason instead.
"""

from __future__ import annotations

import ast
import builtins
from keyword import iskeyword
import re
from dataclasses import dataclass

from codemod import rules as R
from codemod import torch_names as tn
from codemod import unpacking
from codemod.call_sites import argument_values, kept_arguments, used_as_tensor
from codemod.ftypes import Action, Finding, PersistentPolicy
from codemod.plans import ClassPlan, FilePlan, SpineEdit, StmtEdit
from codemod.repo_index import RepoIndex
from codemod.selection import RuleSelection, covers, suppressed
from codemod.segments import Hints, import_bindings, may_hold_finding, mentions, split, tensor_used_attributes
from codemod.symbols import ModuleSymbols, resolve_relative
from codemod.tensors import (
    Evaluator,
    Kind,
    Value,
    device_move_args,
    is_false,
    is_true,
    keyword,
)
from codemod.walker import AttrEvent, BodyWalker


# Names a buffer can never take: nn.Module's own attributes.
RESERVED_NAMES = frozenset(
    {"training", "forward", "to", "cuda", "cpu", "float", "double", "half", "type", "state_dict", "parameters",
     "buffers", "modules", "children", "apply", "eval", "train", "dump_patches", "call_super_init"}
)


@dataclass
class _Decision:
    action: Action
    reason: str
    persistent: bool | None = None
    suggestion: str | None = None
    code: str = ""  # the deciding rule's code (codemod.rules)
    statically_safe: bool = False  # see Finding.statically_safe


# -- entry point --------------------------------------------------------------------------------


def plan_module(
    index: RepoIndex,
    symbols: ModuleSymbols,
    display_path: str,
    persistent_policy: PersistentPolicy = "auto",
    holders: set[int] | None = None,
    selection: RuleSelection = RuleSelection(),
) -> FilePlan:
    plan = FilePlan()
    spelling = parameter_spelling(symbols)
    plan.parameter_spelling = spelling[0] if spelling else ""
    plan.add_nn_import = bool(spelling and spelling[1])
    lines = symbols.source_lines
    file_facts: dict[str, str | None] = {}  # what the safety rules learn once per file
    for cls in symbols.classes_to_analyse(holders):
        marked, class_codes = suppressed(lines, cls.lineno)
        if (marked and class_codes is None) or not index.is_module_class(symbols, cls):
            continue
        oversized = _oversized_statements(cls, lines, display_path)
        if oversized:
            # Not analysed at all: the rules walk expressions, so their cost follows the size.
            plan.classes.append(ClassPlan(cls.name, cls.lineno, findings=oversized))
            continue
        analyser = _ClassAnalyser(index, symbols, cls, display_path, persistent_policy, spelling is not None)
        analyser.file_facts = file_facts
        analyser.selection = selection
        analyser.class_codes = class_codes or frozenset()
        class_plan = analyser.run()
        _bound_statement_size(class_plan, lines)
        if class_plan.findings:
            plan.classes.append(class_plan)
    return plan


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)
if hasattr(ast, "TryStar"):
    _COMPOUND += (ast.TryStar,)


def _statement_chars(lines: list[str], first: int, last: int) -> int:
    last = min(max(first, last), len(lines))
    return sum(len(lines[number - 1]) + 1 for number in range(first, last + 1)) - 1


def _oversized_statements(cls: ast.ClassDef, lines: list[str], display_path: str) -> list[Finding]:
    """A finding for each simple statement in the class's methods over the size limit.

    Only statements are visited, never the expressions inside them, so this costs the
    same on a class holding a 300,000-element literal as on any other.
    """
    limit = R.size_limits.MAX_STATEMENT_CHARS
    found: list[Finding] = []
    pending: list[ast.stmt] = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(stmt, _COMPOUND):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(stmt, field, ()) or ():
                    if isinstance(child, ast.stmt):
                        pending.append(child)
                    else:  # an except handler or a match case holds statements in its body
                        pending.extend(c for c in getattr(child, "body", ()) if isinstance(c, ast.stmt))
            continue
        if isinstance(stmt, ast.ClassDef):
            continue
        end = getattr(stmt, "end_lineno", None) or stmt.lineno
        size = _statement_chars(lines, stmt.lineno, end)
        if size <= limit:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        target = next((t for t in targets if t is not None), None)
        if isinstance(target, ast.Attribute):
            attribute = target.attr
        elif isinstance(target, ast.Name):
            attribute = target.id
        else:
            attribute = "<statement>"
        found.append(
            Finding(
                path=display_path,
                line=stmt.lineno,
                column=_char_col(lines, stmt.lineno, stmt.col_offset) + 1,
                class_name=cls.name,
                attribute=attribute,
                action=Action.SKIP,
                persistent=None,
                reason=R.size_limits.REASON.format(line=stmt.lineno, size=size, limit=limit),
                code=R.TOO_LARGE.code,
            )
        )
    found.sort(key=lambda f: (f.line, f.column))
    return found


def _bound_statement_size(class_plan: ClassPlan, lines: list[str]) -> None:
    """A class with an edit in an oversized statement is reported, not rewritten (size_limits.py)."""
    limit = R.size_limits.MAX_STATEMENT_CHARS
    for edit in class_plan.edits:
        size = _statement_chars(lines, edit.line, edit.end[0])
        if size <= limit:
            continue
        reason = R.size_limits.REASON.format(line=edit.line, size=size, limit=limit)
        for finding in class_plan.findings:
            if finding.action is not Action.SKIP:
                finding.action = Action.SKIP
                finding.persistent = None
                finding.reason = reason
                finding.suggestion = None
                finding.code = R.TOO_LARGE.code
        class_plan.edits = []
        class_plan.annotations = []
        return


def parameter_spelling(symbols: ModuleSymbols) -> tuple[str, bool] | None:
    """How this file spells nn.Parameter, and whether `from torch import nn` must be added."""
    for local, qualname in symbols.imports.items():
        if qualname == "torch.nn":
            return f"{local}.Parameter", False
    for local, qualname in symbols.imports.items():
        if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return local, False
    if symbols.imports.get("torch") == "torch":
        return "torch.nn.Parameter", False
    if "nn" not in symbols.imports and "nn" not in symbols.local_names and "nn" not in symbols.global_names:
        return "nn.Parameter", True
    return None


def finding_hints(
    index: RepoIndex, text: str, module: str, is_package: bool, function_texts: dict[str, str]
) -> Hints | None:
    """What a class must mention to be worth parsing (see segments.may_hold_finding).

    Computed from the text alone, so that a file none of whose classes can hold a
    finding is never parsed.  None when it cannot be told (a star import of torch or
    of a repository module binds names no text shows).
    """
    bindings = import_bindings(text)
    if bindings is None:
        return None
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    # Unbound `Tensor` is typed as an annotation, and `torch` is often bound by the text
    # of another file (`from models.common import *` is handled above, a `torch` global
    # set some other way is not): both count where they are not bound.
    torch: dict[str, set[str]] = {"torch": {"torch"}, "Tensor": {"Tensor"}}
    calls: set[str] = set()
    modules: set[str] = set()  # the calls bound to repository modules
    for local, source, level, name in bindings:
        absolute = resolve_relative(package, source or None, level) if level else source
        if absolute is None:
            continue
        torch_bound = absolute == "torch" or absolute.startswith("torch.")
        repository = level > 0 or index.is_repository_name(absolute)
        if name == "*":
            if torch_bound or repository:
                return None
            continue
        if torch_bound:
            torch.setdefault(local, set()).add(f"{absolute}.{name}" if name else absolute)
        elif repository:
            calls.add(local)
            if not name or index.is_module(f"{absolute}.{name}"):
                modules.add(local)
    frozen_torch = {local: frozenset(targets) for local, targets in torch.items()}
    changed = True
    while changed:  # a helper calling a tensor helper is a tensor helper too
        changed = False
        hints = Hints(frozenset(names), frozenset(calls), frozen_torch, frozenset(modules))
        for name, body in function_texts.items():
            if name not in names and (not body or mentions(body, hints)):
                names.add(name)
                changed = True
    return Hints(frozenset(names), frozenset(calls), frozen_torch, frozenset(modules))


@dataclass
class TextScan:
    """What the text of a file tells before any parsing."""

    segments: list | None  # its top-level statements; None when the cut is in doubt
    holders: set[int] | None  # first lines of the statements that may hold a finding; None: all may

    @property
    def nothing_to_find(self) -> bool:
        return self.holders is not None and not self.holders


def scan_text(index: RepoIndex, path, text: str) -> TextScan:
    """Which top-level statements can hold a finding (see segments.may_hold_finding)."""
    pieces = split(text)
    if pieces is None:
        return TextScan(None, None)
    holders = [p for p in pieces if p.kind == "class" or (p.kind in ("other", "def") and "class " in p.text)]
    if not holders:
        return TextScan(pieces, set())
    functions = {p.name: p.text for p in pieces if p.kind == "def" and p.name}
    header = "".join(p.text for p in pieces if p.kind in ("import", "other"))
    hints = finding_hints(index, header, index.module_name(path), path.name == "__init__.py", functions)
    if hints is None:
        return TextScan(pieces, None)
    return TextScan(pieces, {p.start for p in holders if p.kind == "other" or may_hold_finding(p, hints)})


def _line_has_marker(lines: list[str], lineno: int, end: int | None = None) -> bool:
    """A bare `# codemod: ignore` on the statement (or alone on the line above it)."""
    marked, codes = suppressed(lines, lineno, end)
    return marked and codes is None


def covers_any(codes: frozenset[str], code: str) -> bool:
    return bool(codes) and covers(codes, code)


def _char_col(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast columns count UTF-8 bytes; findings and libcst count characters."""
    if 0 < lineno <= len(lines):
        line = lines[lineno - 1]
        if not line.isascii():
            return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
    return byte_col


# -- one class ----------------------------------------------------------------------------------


class _ClassAnalyser:
    def __init__(self, index: RepoIndex, symbols: ModuleSymbols, cls: ast.ClassDef, display_path: str, policy: PersistentPolicy, can_spell_parameter: bool):
        self.index = index
        self.symbols = symbols
        self.cls = cls
        self.display_path = display_path
        self.policy = policy
        self.can_spell_parameter = can_spell_parameter
        self.lines = symbols.source_lines
        self.plan = ClassPlan(cls.name, cls.lineno, body_starts=tuple(_first_line(stmt) for stmt in cls.body))
        self._bases: list[tuple[ModuleSymbols, ast.ClassDef]] | None = None
        self._subclasses: list[tuple[ModuleSymbols, ast.ClassDef]] | None = None
        self._branch_paths: dict[int, tuple] | None = None
        self.file_facts: dict[str, str | None] = {}
        self._constructor_helpers: set[str] = set()
        self._overrides: set[str] | None = None
        self._rule_cache: dict = {}  # what the rules compute once per class
        self.selection = RuleSelection()
        self.class_codes: frozenset[str] = frozenset()  # `# codemod: ignore[...]` on the class line

    # lookups -----------------------------------------------------------------------------------

    @property
    def bases(self) -> list[tuple[ModuleSymbols, ast.ClassDef]]:
        """Repository base classes, parsed only when a lookup needs them (they can be large:
        a framework's base model class is thousands of lines)."""
        if self._bases is None:
            self._bases = self.index.base_classes(self.symbols, self.cls)
        return self._bases

    def _lineage(self):
        """This class, then its repository bases (parsed only if the search gets that far)."""
        yield self.symbols, self.cls
        yield from self.bases

    def method(self, name: str):
        for symbols, cls in self._lineage():
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                    return symbols, stmt
        return None

    def subclasses(self) -> list[tuple[ModuleSymbols, ast.ClassDef]]:
        if self._subclasses is None:
            self._subclasses = self.index.subclasses_of(self.symbols, self.cls)
        return self._subclasses

    def class_level_names(self) -> dict[str, str]:
        """Names bound in the class body (or a repository base's): attributes, methods, properties."""
        names: dict[str, str] = {}
        for _, cls in self._lineage():
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

    def finding(self, event_stmt: ast.stmt, attr: str, decision: _Decision) -> Finding:
        return Finding(
            path=self.display_path,
            line=event_stmt.lineno,
            column=_char_col(self.lines, event_stmt.lineno, event_stmt.col_offset) + 1,
            class_name=self.cls.name,
            attribute=attr,
            action=decision.action,
            persistent=decision.persistent if decision.action is Action.BUFFER else None,
            reason=decision.reason,
            suggestion=decision.suggestion,
            code=decision.code,
            statically_safe=decision.statically_safe,
        )

    # analysis ----------------------------------------------------------------------------------

    def run(self) -> ClassPlan:
        init = next(
            (s for s in self.cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"),
            None,
        )
        init_attrs: dict[str, list[AttrEvent]] = {}
        walker = None
        final_attrs: dict[str, Value] = {}
        if init is not None:
            evaluator = Evaluator(self.index, self.symbols, init, self.method)
            walker = BodyWalker(evaluator)
            walker.walk(init.body)
            typed = self._typed_arguments(init, walker)
            if typed:
                evaluator = Evaluator(self.index, self.symbols, init, self.method)
                evaluator.env.update(typed)
                walker = BodyWalker(evaluator)
                walker.walk(init.body)
            events = walker.events
            final_attrs = dict(evaluator.self_attrs)
            helper_events = self._helper_events(init, evaluator, walker)
            if helper_events:
                events = _in_call_order(events, helper_events)
            for event in events:
                init_attrs.setdefault(event.attr, []).append(event)
            final_attrs.update(evaluator.self_attrs)
            self.init_evaluator = evaluator
        candidates = {attr for attr, events in init_attrs.items() if _relevant(events)}
        outside = self._outside_events(init, final_attrs, candidates)
        for attr in init_attrs:
            if attr not in candidates:
                continue
            decision_and_edits = self._decide(attr, init_attrs[attr], walker, outside.get(attr, []))
            if decision_and_edits is None:
                continue
            anchor, decision, edits = decision_and_edits
            if not self._reported(decision.code, init_attrs[attr]):
                continue  # neither reported nor rewritten
            self.plan.findings.append(self.finding(anchor, attr, decision))
            self.plan.edits.extend(edits)
        self._report_outside_only(init_attrs, outside)
        self.init_evaluator = None  # it refers back to this analyser: break the cycle
        return self.plan

    def _typed_arguments(self, init, walker: BodyWalker) -> dict[str, Value]:
        """Constructor arguments kept as attributes and used as tensors, typed from the
        repository's calls of this class (see call_sites)."""
        if walker.ev.self_name is None:
            return {}
        text = "\n".join(self.lines[self.cls.lineno - 1 : self.cls.end_lineno])
        # The text first: walking the constructor and every method costs more.
        kept = kept_arguments(init, walker.events, walker.ev, lambda attrs: tensor_used_attributes(text, attrs))
        if not kept:
            return {}
        used = used_as_tensor(self.cls, walker.ev.self_name, set(kept))
        if not used:
            return {}
        values = argument_values(self.index, self.symbols, self.cls, init, {kept[a] for a in used})
        return {name: v for name, v in values.items() if v.is_tensor or v.kind is Kind.SEQUENCE}

    def _helper_events(self, init, evaluator: Evaluator, walker: BodyWalker) -> list[tuple[ast.Call, AttrEvent]]:
        """Events of the methods __init__ calls (rules/constructor_helpers.py): constructor code.

        Each comes with the call in __init__ that runs it.  A helper that another method
        also calls keeps its events among the other methods' too (see _collect_method_events).
        """
        own = {
            stmt.name: stmt
            for stmt in self.cls.body
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            and stmt.name not in ("forward", "__call__")  # a dry run in __init__ does not make forward constructor code
            and not stmt.name.startswith("__")
        }
        if not own:
            return []
        found = R.constructor_helpers.helper_calls(init, evaluator.self_name, own)
        if not found:
            return []
        tops = [(stmt.lineno, stmt.end_lineno or stmt.lineno) for stmt in init.body]
        result: list[tuple[ast.Call, AttrEvent]] = []
        for call, method in found:
            helper_evaluator = Evaluator(self.index, self.symbols, method, self.method, self_attrs=dict(evaluator.self_attrs))
            if helper_evaluator.self_name is None:
                continue
            helper_walker = BodyWalker(helper_evaluator)
            helper_walker.walk(method.body)
            top = next((i for i, (a, b) in enumerate(tops) if a <= call.lineno <= b), len(tops))
            for event in helper_walker.events:
                event.top_index = top
                event.nested = True  # never moved after super().__init__() from another method
                result.append((call, event))
            evaluator.self_attrs.update(helper_evaluator.self_attrs)
        self._constructor_helpers = {method.name for _, method in found}
        return result

    def _outside_events(self, init, final_attrs: dict[str, Value], candidates: set[str]) -> dict[str, list[tuple[str, AttrEvent]]]:
        """Events on self.<attr> in the other methods of the class, its repository bases and subclasses.

        Own methods are read for every attribute they assign (to report tensors set only
        outside __init__); bases and subclasses only matter for the attributes to rewrite.
        """
        result: dict[str, list[tuple[str, AttrEvent]]] = {}
        self._collect_method_events(self.symbols, self.cls, init, final_attrs, result, "own", candidates)
        if candidates:
            for symbols, cls in self.bases:
                self._collect_method_events(symbols, cls, None, final_attrs, result, "base", candidates)
            for symbols, cls in self.subclasses():
                self._collect_method_events(symbols, cls, None, final_attrs, result, "subclass", candidates)
        return result

    def _collect_method_events(self, symbols, cls, own_init, final_attrs, result, relation: str, candidates: set[str]) -> None:
        lines = symbols.source_lines
        helpers = self._constructor_helpers if relation == "own" else set()
        for stmt in cls.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or stmt is own_init:
                continue
            if stmt.name in helpers and not self._called_elsewhere(cls, stmt.name, own_init):
                continue  # constructor code, read with __init__
            # Reading a method costs far more than this text check, and most methods never touch these attributes.
            text = "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])
            mentions = any(attr in text for attr in candidates)
            if not mentions and (relation != "own" or not _ASSIGNS_ATTRIBUTE.search(text)):
                continue
            evaluator = Evaluator(self.index, symbols, stmt, self.method, self_attrs=dict(final_attrs))
            if evaluator.self_name is None:
                continue
            walker = BodyWalker(evaluator)
            walker.walk(stmt.body)
            label = f"{cls.name}.{stmt.name}"
            if relation == "base":
                label = f"base {label}"
            elif relation == "subclass":
                label = f"subclass {label}"
            for event in walker.events:
                if relation == "own" or event.attr in candidates:
                    result.setdefault(event.attr, []).append((label, event))

    def _reached_from_overrides(self) -> set[str]:
        """Own methods that override a repository base's method, and those they call: a base
        constructor may run them before this class's __init__ body."""
        if self._overrides is None:
            base_names = {
                stmt.name
                for _, cls in self.bases
                for stmt in cls.body
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name != "__init__"
            }
            own = {
                stmt.name: stmt
                for stmt in self.cls.body
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name != "__init__"
            }
            found: set[str] = set()
            for name in sorted(set(own) & base_names):
                found.add(name)
                for _, method in R.constructor_helpers.helper_calls(own[name], own[name].args.args[0].arg if own[name].args.args else None, own):
                    found.add(method.name)
            self._overrides = found
        return self._overrides

    def _called_elsewhere(self, cls: ast.ClassDef, name: str, init) -> bool:
        """Whether a method other than __init__ and its helpers mentions self.<name>."""
        lines = self.symbols.source_lines
        needle = f".{name}"
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt is not init and stmt.name not in self._constructor_helpers:
                if needle in "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno]):
                    return True
        return False

    def _report_outside_only(self, init_attrs, outside) -> None:
        """Tensors assigned only outside the constructor: reported, never rewritten."""
        for attr, events in outside.items():
            if attr in init_attrs:
                continue
            own = [
                (label, e)
                for label, e in events
                if label.startswith(f"{self.cls.name}.") and e.kind == "assign" and e.value is not None and e.value.kind is Kind.TENSOR
            ]
            if not own or any(label.startswith("base ") for label, _ in events):
                continue
            label, event = own[0]
            if _line_has_marker(self.lines, event.stmt.lineno, event.stmt.end_lineno):
                continue
            base_texts = [_class_text(symbols, cls) for symbols, cls in self.bases]
            if R.reported.set_by_base(attr, base_texts):
                continue  # the base's buffer or attribute: assigning it keeps it one
            overrides = label.partition(".")[2] in self._reached_from_overrides()
            extra, suggestion = R.reported.outside_suggestion(attr, _class_text(self.symbols, self.cls), overrides)
            decision = _Decision(
                Action.SKIP,
                f"tensor assigned only outside __init__ (in {label}); it is not moved by .to() nor saved{extra}",
                suggestion=suggestion,
                code=R.OUTSIDE_CONSTRUCTOR.code,
            )
            if self._reported(decision.code, [event]):
                self.plan.findings.append(self.finding(event.stmt, attr, decision))

    def _reported(self, code: str, events) -> bool:
        """Whether a decision stands: its code is selected and no `# codemod: ignore[CODE]`
        on the class line or on a statement binding the attribute names it."""
        if not self.selection.enabled(code) or covers_any(self.class_codes, code):
            return False
        for event in events:
            _, codes = suppressed(self.lines, event.stmt.lineno, event.stmt.end_lineno)
            if codes and covers(codes, code):
                return False
        return True

    # the decision for one attribute ------------------------------------------------------------

    def _decide(self, attr: str, events: list[AttrEvent], walker: BodyWalker, outside: list[tuple[str, AttrEvent]]):
        stmts_lines = [(e.stmt.lineno, e.stmt.end_lineno) for e in events]
        if any(_line_has_marker(self.lines, a, b) for a, b in stmts_lines):
            return None
        first = events[0]
        # Already registered before any raw assignment: later tensors land in the buffer anyway.
        if first.kind == "registered" or (first.kind == "assign" and first.value is not None and first.value.kind in (Kind.PARAMETER, Kind.BUFFER)):
            if not (first.kind == "assign" and first.value.kind is Kind.PARAMETER and _raw_beside_parameters(events, self._paths())):
                return None
        if first.kind == "register_buffer" and not (first.value and first.value.is_tensor and first.value.requires_grad):
            return None

        relevant = [e for e in events if _is_raw_binding(e)]
        if not relevant:
            return None
        anchor = relevant[0].stmt

        def skip(reason: str, suggestion: str | None = None, code: str = ""):
            return anchor, _Decision(Action.SKIP, reason, suggestion=suggestion, code=code), []

        # Shapes the codemod reports but never rewrites.
        for event in events:
            if event.kind == "setattr" and event.value is not None and event.value.is_tensor:
                return skip(
                    "tensor set with setattr(self, ...); the name is not a plain attribute",
                    f'self.register_buffer({_quote(attr) if attr != "<dynamic name>" else "name"}, <tensor>)',
                    R.SETATTR.code,
                )
        sequence = next((e for e in events if e.value is not None and e.value.kind is Kind.SEQUENCE and e.kind in ("assign", "fill")), None)
        if sequence is not None and not any(e.value is not None and e.value.is_tensor for e in events if e.kind == "assign"):
            return skip(
                "a list, tuple or dict of tensors; its tensors are not moved by .to() nor saved",
                "register each tensor as a buffer, or use nn.ParameterList / nn.ParameterDict for trained tensors",
                R.CONTAINER.code,
            )
        unpacked = unpacking.skip_reason(attr, events)  # codemod/unpacking.py
        if unpacked is not None:
            return skip(unpacked, code=R.UNPACKED.code)
        passed = next((e for e in events if e.kind == "assign" and e.value is not None and e.value.maybe_parameter), None)
        if passed is not None:
            return skip(f"bound at line {passed.stmt.lineno} to an argument annotated as an nn.Parameter or a tensor; a Parameter passed in must stay a parameter", code=R.NOT_A_TENSOR.code)
        for event in events:
            if event.kind == "delete":
                return skip(f"deleted with `del self.{attr}` at line {event.stmt.lineno}", code=R.DELETED.code)

        # `self.t = np.load(p)` ... `self.t = torch.from_numpy(self.t)`: built in a local instead.
        localised = self._localise_prefix(attr, events, walker)
        if localised is not None:
            events = events[localised[2]:]

        # Every binding inside __init__ must be a tensor or None, except in an arm of an
        # if/match that never runs with a tensor binding (rules/branches.py).
        seen_tensor = False
        tensor_events = [e for e in events if e.kind in ("assign", "register_buffer") and e.value is not None and e.value.is_tensor]
        other_arms: list[int] = []
        for event in events:
            if event.kind in ("assign", "register_buffer"):
                value = event.value
                if value is None:
                    continue
                if value.is_tensor or value.kind is Kind.NONE:
                    seen_tensor = seen_tensor or value.is_tensor
                    continue
                if value.kind is Kind.PARAMETER and _raw_beside_parameters(events, self._paths()):
                    continue
                if value.kind in (Kind.NON_TENSOR, Kind.UNKNOWN) and event.kind == "assign" and self._exclusive_with_all(event, tensor_events):
                    other_arms.append(event.stmt.lineno)
                    continue
                if value.kind in (Kind.PARAMETER, Kind.BUFFER):
                    return skip(f"also bound to a registered {value.kind.value} at line {event.stmt.lineno}", code=R.MIXED_REGISTERED.code)
                where = "first bound" if not seen_tensor else "also bound"
                what = "a non-tensor" if value.kind is Kind.NON_TENSOR else ("a sequence" if value.kind is Kind.SEQUENCE else "a value the codemod cannot type")
                return skip(
                    f"{where} to {what} at line {event.stmt.lineno}; register_buffer would raise (KeyError or TypeError)",
                    "convert the value to a tensor before the first assignment" if where == "first bound" else None,
                    R.NOT_A_TENSOR.code,
                )
            if event.kind == "registered":
                if _absent_parameter(event, events):
                    continue
                return skip(f"also registered as a parameter or submodule at line {event.stmt.lineno}", code=R.COLLISION.code)

        class_names = self.class_level_names()
        if attr in class_names:
            return skip(f"'{attr}' is also {class_names[attr]}; register_buffer would raise KeyError", code=R.COLLISION.code)
        if attr in RESERVED_NAMES:
            return skip(f"'{attr}' is an attribute of nn.Module itself", code=R.COLLISION.code)
        for label, event in outside:
            if label.startswith("base ") and event.kind in ("assign", "setattr"):
                if label.endswith(".__init__"):
                    return skip(f"also set in {label} before this constructor runs; register_buffer would raise KeyError", code=R.COLLISION.code)
                return skip(
                    f"also bound in {label} (line {event.stmt.lineno}), a base-class method that may run before or after "
                    "this constructor; register_buffer here, or that assignment, would raise KeyError or TypeError",
                    code=R.CONSTRUCTOR_HELPER.code,
                )

        safety = self._safety_skip(attr, events)
        if safety is not None:
            return anchor, safety, []

        trained = self._trained_reason(events)
        if trained is not None and localised is not None:
            return skip(f"first bound to a non-tensor at line {localised[1][0].line if localised[1] else anchor.lineno}; build the trained tensor in a local, then assign nn.Parameter once", code=R.NOT_A_TENSOR.code)
        if trained is not None:
            if other_arms:
                return skip(f"meant to be trained, but another branch binds a non-tensor (line {other_arms[0]})", code=R.NOT_A_TENSOR.code)
            return self._plan_parameter(attr, events, walker, outside, trained, anchor)
        planned = self._plan_buffer(attr, events, walker, outside, anchor)
        decision = planned[1]
        if localised is not None and decision.action is Action.BUFFER:
            local, local_edits, _ = localised
            for edit in planned[2]:
                edit.local, edit.owner = local, walker.ev.self_name or "self"
            planned[2].extend(local_edits)
            decision.reason += f"; first built in the local `{local}`, then registered once"
            decision.code = R.LOCAL_FIRST.code
        if other_arms and decision.action is Action.BUFFER:
            lines = ", ".join(str(n) for n in other_arms)
            decision.reason += f"; the value bound in the other branch (line {lines}), not proven a tensor, stays a plain attribute"
        return planned

    def _localise_prefix(self, attr: str, events: list[AttrEvent], walker: BodyWalker):
        """(local name, edits, number of events) that turn the non-tensor bindings before the
        first tensor one into a local (rules/local_first.py); None when that is not plainly safe:
        every statement involved at the top level of __init__, no method of self called and
        self not passed along in between, and every use of the attribute in a simple statement."""
        first_tensor = next((i for i, e in enumerate(events) if e.kind == "assign" and e.value is not None and e.value.is_tensor), None)
        if not first_tensor:
            return None
        prefix, converted = events[:first_tensor], events[first_tensor]
        if prefix[0].kind != "assign" or prefix[0].nested or converted.nested:
            return None  # both run on every path: the local is bound, and the attribute is registered
        for event in prefix:
            if event.kind not in ("assign", "mutate", "fill") or event.value is None and event.kind == "assign":
                return None
            if event.kind == "assign" and (event.value.is_tensor or event.value.kind in (Kind.PARAMETER, Kind.BUFFER, Kind.NONE)):
                return None
        if not (isinstance(converted.stmt, ast.Assign) and len(converted.stmt.targets) == 1):
            return None
        owner = walker.ev.self_name
        init = next(s for s in self.cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__")
        taken = {n.id for n in ast.walk(init) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(init.args) if isinstance(a, ast.arg)}
        local = next((n for n in (attr, f"{attr}_") if n.isidentifier() and not iskeyword(n) and n not in taken and not hasattr(builtins, n)), None)
        if local is None or owner is None:
            return None
        span = init.body[prefix[0].top_index : converted.top_index + 1]
        uses = 0
        for stmt in span:
            attribute_values = {id(n.value) for n in ast.walk(stmt) if isinstance(n, ast.Attribute)}
            called = {id(n.func) for n in ast.walk(stmt) if isinstance(n, ast.Call)}
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and node.id == owner and id(node) not in attribute_values:
                    return None  # self handed to something that may read the attribute
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == owner:
                    if id(node) in called:
                        return None  # a method of self may read the attribute
                    if node.attr == attr:
                        uses += 1
        edits: list[StmtEdit] = []
        in_simple = 0
        for stmt in span:
            for node in ast.walk(stmt):
                if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) or node is converted.stmt:
                    continue
                count = sum(1 for n in ast.walk(node) if self._is_attr(n, owner, attr))
                if count:
                    in_simple += count
                    edits.append(StmtEdit(*self._position(node), "localise", attr, end=self._end(node), local=local, owner=owner))
        if in_simple + sum(1 for n in ast.walk(converted.stmt) if self._is_attr(n, owner, attr)) != uses:
            return None  # a use in an if/for header: not a statement the rewrite can edit
        return local, edits, first_tensor

    @staticmethod
    def _is_attr(node: ast.AST, owner: str, attr: str) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) and node.value.id == owner

    def _paths(self) -> dict:
        if self._branch_paths is None:
            self._branch_paths = R.branches.branch_paths(_init_body(self.cls))
        return self._branch_paths

    def _safety_skip(self, attr: str, events: list[AttrEvent]) -> _Decision | None:
        """The safety rules (codemod/rules) that leave a raw tensor alone."""
        tensors = [e for e in events if e.kind == "assign" and e.value is not None and e.value.is_tensor and e.value_node is not None]
        init = _init_function(self.cls)
        self_name = self.init_evaluator.self_name
        if any(R.complex_values.complex_value(e.value_node, init, self_name, self._function_of, self._rule_cache) for e in tensors):
            return _Decision(Action.SKIP, R.complex_values.REASON, suggestion=R.complex_values.SUGGESTION, code=R.COMPLEX.code)
        readers = R.off_device.off_device_readers(attr, self.cls)
        if readers is not None:
            names = ", ".join(f"{self.cls.name}.{r}" for r in readers)
            return _Decision(Action.SKIP, R.off_device.REASON.format(methods=names), suggestion=R.off_device.SUGGESTION, code=R.OFF_DEVICE.code)
        if not any(e.value.integer for e in tensors):
            moved = R.placed_where_read.device_moving_readers(attr, self.cls)
            if moved is not None:
                return _Decision(
                    Action.SKIP,
                    R.placed_where_read.REASON.format(where="; ".join(moved)),
                    suggestion=R.placed_where_read.SUGGESTION,
                    code=R.PLACED_WHERE_READ.code,
                )
        model = self._transformers_reason()
        if model is not None:
            return _Decision(
                Action.SKIP,
                f"{model}: transformers' from_pretrained builds on the meta device and fills a buffer the checkpoint "
                "lacks with uninitialised memory unless _init_weights re-creates it",
                suggestion=R.transformers_models.SUGGESTION_TEMPLATE.format(cls=self.cls.name, attr=attr),
                code=R.TRANSFORMERS_MODEL.code,
            )
        return None

    def _transformers_reason(self) -> str | None:
        if "transformers" not in self.file_facts:
            self.file_facts["transformers"] = R.transformers_models.file_reason(self.symbols)
        # the class itself first (the clearer reason), then the file it is defined in
        return R.transformers_models.class_reason(self._lineage(), _unsub) or self.file_facts["transformers"]

    def _own_method(self, name: str):
        found = self.method(name)
        return found[1] if found is not None else None

    def _function_of(self, func: ast.expr):
        """The definition a call's function refers to: a method of self, a function of this
        file or of the repository; None when unknown."""
        self_name = self.init_evaluator.self_name if self.init_evaluator is not None else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self_name:
            found = self.method(func.attr)
            return found[1] if found is not None else None
        if isinstance(func, ast.Name) and func.id in self.symbols.functions:
            return self.symbols.functions[func.id]
        qualname = self.symbols.qualify(func)
        if qualname is None or qualname.startswith("torch."):
            return None
        resolved = self.index.resolve(qualname, self.symbols.path)
        if resolved.kind == "function" and resolved.module is not None:
            return resolved.node
        return None

    def _exclusive_with_all(self, event: AttrEvent, tensor_events: list[AttrEvent]) -> bool:
        """Whether `event` sits in an if/match arm that no tensor binding shares (rules/branches.py)."""
        if not tensor_events:
            return False
        paths = self._paths()
        mine = paths.get(id(event.stmt))
        if mine is None:
            return False
        return all(
            paths.get(id(t.stmt)) is not None and R.branches.exclusive(mine, paths[id(t.stmt)])
            for t in tensor_events
        )

    def _trained_reason(self, events: list[AttrEvent]) -> str | None:
        for event in events:
            if event.kind == "requires_grad":
                return f"self.{event.attr}.requires_grad set at line {event.stmt.lineno}"
            if event.value is not None and event.value.is_tensor and event.value.requires_grad:
                if event.kind == "register_buffer":
                    return "registered buffer created with requires_grad=True; an optimizer never updates a buffer"
                if event.value.moved_parameter:
                    return "nn.Parameter(...) followed by a device move is a copy, not a parameter"
                return event.value.requires_grad
        return None

    # buffers ---------------------------------------------------------------------------------

    def _plan_buffer(self, attr, events, walker, outside, anchor):
        for label, event in outside:
            if event.kind in ("assign", "setattr") and event.value is not None:
                kind = event.value.kind
                if kind in (Kind.NON_TENSOR, Kind.SEQUENCE):
                    return anchor, _Decision(Action.SKIP, f"bound to a non-tensor in {label} (line {event.stmt.lineno}); assigning it to a buffer raises TypeError", code=R.REBOUND.code), []
                if kind is Kind.UNKNOWN:
                    return anchor, _Decision(Action.SKIP, f"reassigned in {label} (line {event.stmt.lineno}) to a value the codemod cannot type; a non-tensor there would raise TypeError", code=R.REBOUND.code), []
        persistent, reason = self._persistence(attr, events, outside)
        edits: list[StmtEdit] = []
        registered_at: int | None = None  # top-level statement that registers the buffer on every path
        for event in events:
            if event.kind != "assign" or event.value is None:
                continue
            if not (event.value.is_tensor or event.value.kind is Kind.NONE):
                continue
            if registered_at is not None and event.top_index > registered_at and _uses_attr(event.stmt.value, walker.ev.self_name, attr):
                # `self.x = self.x.bool()` updates the buffer registered above: assigning a
                # tensor to a buffer name replaces the buffer and keeps its persistence.
                continue
            if not event.nested:
                registered_at = event.top_index if registered_at is None else registered_at
            move = self._placement(attr, event, walker)
            if isinstance(move, str):
                return anchor, _Decision(Action.SKIP, move, code=R.BEFORE_SUPER.code), []
            edit = self._stmt_edit(event, "buffer", attr, persistent, parameter=False)
            if edit.spine:
                used = R.device_moves.later_use(attr, event.stmt.end_lineno or event.stmt.lineno, _init_function(self.cls), self.init_evaluator.self_name, self._own_method)
                if used is not None:
                    # rules/device_moves.py: the constructor reads it on the device it was moved to
                    edit.spine = ()
                    kept = f"; the device move is kept: __init__ uses self.{attr} at line {used}"
                    if kept not in reason:
                        reason += kept
            edit.move_after = move
            edits.append(edit)
            if isinstance(event.stmt, ast.AnnAssign):
                self._declare(attr, event.stmt.annotation)
        code = R.PERSISTENT.code if persistent else R.NON_PERSISTENT.code
        # Float casts (model.half(), .to(torch.bfloat16)) never touch an integer or bool buffer,
        # and a non-persistent one adds no checkpoint key: nothing can tell it from the attribute.
        tensors = [e.value for e in events if e.kind == "assign" and e.value is not None and e.value.is_tensor]
        safe = not persistent and bool(tensors) and all(v.integer for v in tensors)
        return anchor, _Decision(Action.BUFFER, reason, persistent, code=code, statically_safe=safe), edits

    def _persistence(self, attr, events, outside) -> tuple[bool, str]:
        if self.policy == "always":
            return True, "persistent: --persistent always"
        if self.policy == "never":
            return False, "persistent=False: --persistent never"
        init = next((s for s in self.cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
        return R.persistence.decide(attr, events, outside, init, self.init_evaluator.self_name, self._rule_cache)

    def _placement(self, attr: str, event: AttrEvent, walker: BodyWalker) -> tuple[int, int] | None | str:
        """None when the statement can stay; the super() statement to move after; or a skip reason."""
        if walker.super_index is None:
            return "no super().__init__() call in __init__; register_buffer needs nn.Module.__init__ to have run"
        if event.top_index > walker.super_index:
            return None
        if event.nested or event.top_index == walker.super_index:
            return "assigned before super().__init__() inside a block; it cannot be moved safely"
        body = _init_body(self.cls)
        between = body[event.top_index + 1 : walker.super_index + 1]
        super_stmt = body[walker.super_index]
        if any(_uses_attr(stmt, walker.ev.self_name, attr) for stmt in between):
            return "assigned before super().__init__() and used before it; move the assignment after super().__init__()"
        if any(_uses_bare_self(stmt, walker.ev.self_name) for stmt in between if stmt is not super_stmt):
            return "assigned before super().__init__() and `self` is used before it; move it by hand"
        value_names = {n.id for n in ast.walk(event.stmt) if isinstance(n, ast.Name)}
        if any(_rebinds(stmt, value_names) for stmt in between):
            return "assigned before super().__init__() from names rebound before it; move it by hand"
        if event.value is not None and event.value.stateful and "random" in event.value.stateful:
            only_module = all(self.symbols.qualify(_unsub(b)) in ("torch.nn.Module", "torch.nn.modules.module.Module") for b in self.cls.bases)
            if not only_module:
                return "random value created before super().__init__(), which may draw random numbers too; moving it would change the values"
        return (super_stmt.lineno, _char_col(self.lines, super_stmt.lineno, super_stmt.col_offset))

    # parameters ------------------------------------------------------------------------------

    def _plan_parameter(self, attr, events, walker, outside, trained: str, anchor):
        def skip(reason: str, code: str = R.CANNOT_BE_PARAMETER.code):
            return anchor, _Decision(Action.SKIP, reason, code=code), []

        if not self.can_spell_parameter:
            return skip("meant to be trained, but the file has no way to name nn.Parameter ('nn' is taken)")
        tensors = [e for e in events if e.value is not None and e.value.is_tensor and e.kind in ("assign", "register_buffer")]
        if any(e.value.integer for e in tensors):
            return skip("meant to be trained, but an integer or bool tensor cannot be an nn.Parameter (only floating point and complex tensors can require gradients)")
        if any(e.kind == "register_buffer" for e in tensors) and any(e.kind == "assign" for e in tensors):
            return skip("both registered as a buffer and assigned directly; rewrite by hand")
        for label, event in outside:
            if event.kind in ("assign", "setattr") and event.value is not None and event.value.kind not in (Kind.PARAMETER, Kind.NONE):
                return skip(f"reassigned in {label} (line {event.stmt.lineno}) to something that is not an nn.Parameter; that would raise TypeError", code=R.REBOUND.code)
        handed_out = R.captured_reference.read_between(
            attr, [e.stmt for e in tensors if e.kind == "assign"], _init_function(self.cls), self.init_evaluator.self_name
        )
        if handed_out is not None:
            # rules/captured_reference.py: each nn.Parameter(...) would be a new leaf
            return anchor, _Decision(
                Action.SKIP,
                f"meant to be trained, but read at line {handed_out[0]} (e.g. handed to an optimizer) before it is bound "
                f"again at line {handed_out[1]}; as nn.Parameter the holder would keep a leaf that forward never uses",
                suggestion=R.captured_reference.SUGGESTION,
                code=R.HANDED_OUT.code,
            ), []
        edits: list[StmtEdit] = []
        for event in tensors:
            value = event.value
            move = self._placement(attr, event, walker)
            if isinstance(move, str):
                return skip(move, code=R.BEFORE_SUPER.code)
            if event.kind == "register_buffer":
                edit = StmtEdit(*self._position(event.stmt), "buffer_to_parameter", attr, end=self._end(event.stmt))
            elif value.moved_parameter:
                edit = self._stmt_edit(event, "unmove", attr, None, parameter=True)
            elif value.requires_grad == "nn.Parameter":
                return skip("a cast of an nn.Parameter is not a parameter; move the cast inside nn.Parameter(...)")
            else:
                edit = self._stmt_edit(event, "parameter", attr, None, parameter=True)
            edit.move_after = move
            edits.append(edit)
        return anchor, _Decision(Action.PARAMETER, trained, code=_trained_code(events)), edits

    # helpers ---------------------------------------------------------------------------------

    def _position(self, stmt: ast.stmt) -> tuple[int, int]:
        return stmt.lineno, _char_col(self.lines, stmt.lineno, stmt.col_offset)

    def _end(self, stmt: ast.stmt) -> tuple[int, int]:
        line = stmt.end_lineno or stmt.lineno
        return line, _char_col(self.lines, line, stmt.end_col_offset or 0)

    def _stmt_edit(self, event: AttrEvent, op: str, attr: str, persistent: bool | None, *, parameter: bool) -> StmtEdit:
        if event.unpacked is not None and not parameter:  # `self.a, self.b = v`: codemod/unpacking.py
            return unpacking.edit(event, unpacking.function_of(self.cls, event.stmt), self._position(event.stmt), self._end(event.stmt), persistent)
        spine: tuple[SpineEdit, ...] = ()
        if event.value_node is not None:
            evaluator = self.init_evaluator
            saved, evaluator.env = evaluator.env, (event.env or {})
            try:
                spine = spine_edits(evaluator, event.value_node, parameter)
            finally:
                evaluator.env = saved
        return StmtEdit(*self._position(event.stmt), op, attr, persistent, spine, end=self._end(event.stmt))

    def _declare(self, attr: str, annotation: ast.expr) -> None:
        for stmt in self.cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                return
        text = ast.get_source_segment("\n".join(self.lines), annotation) or ast.unparse(annotation)
        if (attr, text) not in self.plan.annotations:
            self.plan.annotations.append((attr, text))


# A method that binds an attribute of self (`self.x = ...`, `self.x: T = ...`, setattr(self, ...)).
_ASSIGNS_ATTRIBUTE = re.compile(r"^[ \t]*self\.\w+[ \t]*(?::[^=\n]*)?=(?!=)|setattr\(\s*self\b", re.MULTILINE)


def _in_call_order(events: list[AttrEvent], helper_events: list[tuple[ast.Call, AttrEvent]]) -> list[AttrEvent]:
    """__init__'s events with each helper's events placed where __init__ calls it."""
    keyed = [((e.stmt.lineno, e.stmt.col_offset), 0, i, e) for i, e in enumerate(events)]
    keyed += [((call.lineno, call.col_offset), 1, i, e) for i, (call, e) in enumerate(helper_events)]
    keyed.sort(key=lambda item: item[:3])
    return [e for *_, e in keyed]


def _trained_code(events: list[AttrEvent]) -> str:
    """Which rule made the attribute a parameter (see _trained_reason)."""
    for event in events:
        if event.kind == "requires_grad":
            return R.TRAINED_TENSOR.code
        value = event.value
        if value is not None and value.is_tensor and value.requires_grad:
            if event.kind == "register_buffer":
                return R.BUFFER_REQUIRES_GRAD.code
            if value.moved_parameter:
                return R.MOVED_PARAMETER.code
            return R.TRAINED_TENSOR.code
    return R.TRAINED_TENSOR.code


def _is_raw_binding(event: AttrEvent) -> bool:
    """What makes work: a tensor (or list of them) assigned, set or unpacked, or a buffer
    registered from a tensor that requires grad.  Mutations and plain buffers do not."""
    value = event.value
    if value is None:
        return False
    if event.kind in ("assign", "setattr", "unpack"):
        return value.is_tensor or value.kind is Kind.SEQUENCE
    if event.kind == "fill":
        return True
    return event.kind == "register_buffer" and value.is_tensor and bool(value.requires_grad)


def _raw_beside_parameters(events: list[AttrEvent], paths: dict) -> bool:
    """Raw tensors and nn.Parameter(...) assigned to one name, each raw one either in
    another arm of an `if` than every Parameter or before it.  Registering the raw one as
    a buffer is then safe: assigning an nn.Parameter to a buffer's name moves it from
    `_buffers` to `_parameters` (torch-facts §3)."""
    parameters = [e for e in events if e.kind == "assign" and e.value is not None and e.value.kind is Kind.PARAMETER]
    raw = [e for e in events if e.kind == "assign" and e.value is not None and e.value.is_tensor]
    if not parameters or not raw:
        return False
    def exclusive(a: AttrEvent, b: AttrEvent) -> bool:
        return id(a.stmt) in paths and id(b.stmt) in paths and R.branches.exclusive(paths[id(a.stmt)], paths[id(b.stmt)])

    return all(exclusive(r, p) or r.stmt.lineno < p.stmt.lineno for r in raw for p in parameters)


def _absent_parameter(event: AttrEvent, events: list[AttrEvent]) -> bool:
    """`register_parameter(name, None)` beside a trained tensor that becomes an nn.Parameter:
    torch accepts a Parameter assigned to a name registered as a None parameter, and
    register_parameter on a name that already holds a Parameter."""
    if event.value is None or event.value.kind is not Kind.NONE:
        return False
    return any(e.kind == "assign" and e.value is not None and e.value.is_tensor and e.value.requires_grad for e in events)


def _relevant(events: list[AttrEvent]) -> bool:
    return any(_is_raw_binding(e) for e in events)


def spine_edits(evaluator: Evaluator, node: ast.expr, parameter: bool) -> tuple[SpineEdit, ...]:
    """Device moves to drop (and, for parameters, requires_grad markers) along a value's call chain."""
    edits: list[SpineEdit] = []
    index = 0
    current = node
    while True:
        if isinstance(current, ast.Call):
            func = current.func
            if isinstance(func, ast.Attribute):
                receiver = evaluator.eval(func.value)
                if func.attr in tn.DEVICE_METHODS and (receiver.is_tensor or receiver.kind is Kind.PARAMETER):
                    how = device_move_args(evaluator, func.attr, current)
                    if how == "drop":
                        edits.append(SpineEdit(index, "drop"))
                    elif isinstance(how, tuple):
                        edits.append(SpineEdit(index, "keep_args", how[0], keywords=how[1]))
                elif parameter and func.attr == "requires_grad_" and receiver.is_tensor:
                    edits.append(SpineEdit(index, "drop"))
            qualname = evaluator.qualify(func)
            if qualname is not None and tn.classify_call(qualname) is tn.CallKind.VARIABLE and current.args:
                if parameter or _variable_is_plain(evaluator, current):
                    edits.append(SpineEdit(index, "unwrap"))
                break
            if parameter:
                if is_true(keyword(current, "requires_grad")):
                    edits.append(SpineEdit(index, "drop_kwarg", kwarg="requires_grad"))
            current = func
        elif isinstance(current, (ast.Attribute, ast.Subscript)):
            current = current.value
        else:
            break
        index += 1
    return tuple(edits)


def _variable_is_plain(evaluator: Evaluator, call: ast.Call) -> bool:
    """`Variable(t)`, `Variable(t, requires_grad=False)`, `Variable(t, volatile=True)`: since
    torch 0.4 each returns a tensor sharing t's storage (volatile only warns that it has no
    effect), so for a buffer it is `t` itself.  Not when t requires grad: Variable detaches it."""
    inner = evaluator.eval(call.args[0])
    if not inner.is_tensor or inner.requires_grad:
        return False
    if len(call.args) > 1:
        return False
    return all(
        (kw.arg == "requires_grad" and is_false(kw.value)) or (kw.arg == "volatile" and isinstance(kw.value, ast.Constant))
        for kw in call.keywords
    )


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


def _class_text(symbols: ModuleSymbols, cls: ast.ClassDef) -> str:
    return "\n".join(symbols.source_lines[cls.lineno - 1 : cls.end_lineno])


def _init_function(cls: ast.ClassDef) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
            return stmt
    return None


def _init_body(cls: ast.ClassDef) -> list[ast.stmt]:
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
            return stmt.body
    return []


def _unsub(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Subscript) else node


def _uses_attr(stmt: ast.stmt, self_name: str | None, attr: str) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name) and n.value.id == self_name
        for n in ast.walk(stmt)
    )


def _uses_bare_self(stmt: ast.stmt, self_name: str | None) -> bool:
    """`self` used other than as `self.<name> = ...`: passed along, a method called, or an
    attribute read (which may be a property reading the attribute being moved)."""
    stores = {id(n.value) for n in ast.walk(stmt) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    return any(isinstance(n, ast.Name) and n.id == self_name and id(n) not in stores for n in ast.walk(stmt))


def _rebinds(stmt: ast.stmt, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names for n in ast.walk(stmt))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
