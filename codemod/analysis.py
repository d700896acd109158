"""Decide, per nn.Module class, which attributes become buffers or parameters.

Input: a module's `ast` and the repository index.  Output: a `FilePlan` of
findings and position-keyed edits that `rewrite.py` applies with libcst.
Every rule that would make the rewritten code raise where the original did
not turns into a skip with a reason instead.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codemod.edits import char_col
from codemod.facts import AttributeFacts, ClassFacts
from codemod.ftypes import Action, Finding, PersistentPolicy
from codemod.plans import ClassPlan, FilePlan
from codemod.repo_index import RepoIndex
from codemod.rules import external_bases, registry, size_limits
from codemod.rules.base import Decision
from codemod.selection import RuleSelection, covers, suppressed
from codemod.segments import Hints, import_bindings, may_hold_finding, mentions, split
from codemod.symbols import ModuleSymbols, resolve_relative


# -- entry point --------------------------------------------------------------------------------


def plan_module(
    index: RepoIndex,
    symbols: ModuleSymbols,
    display_path: str,
    persistent_policy: PersistentPolicy = "never",
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
        if marked and class_codes is None:
            continue
        unseen_base = None
        if not index.is_module_class(symbols, cls):
            # a base from a package outside the repository: reported only, if it looks like a module
            unseen_base = external_bases.unseen_module_base(index, symbols, cls)
            if unseen_base is None:
                continue
        oversized = _oversized_statements(cls, lines, display_path)
        if oversized:
            # Not analysed at all: the rules walk expressions, so their cost follows the size.
            plan.classes.append(ClassPlan(cls.name, cls.lineno, findings=oversized))
            continue
        class_plan = plan_class(
            index, symbols, cls, display_path, persistent_policy, spelling is not None, file_facts, selection,
            class_codes or frozenset(),
        )
        if unseen_base is not None:
            class_plan = external_bases.as_reports(class_plan, unseen_base)
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
    limit = size_limits.MAX_STATEMENT_CHARS
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
                column=char_col(lines, stmt.lineno, stmt.col_offset) + 1,
                class_name=cls.name,
                attribute=attribute,
                action=Action.SKIP,
                persistent=None,
                reason=size_limits.REASON.format(line=stmt.lineno, size=size, limit=limit),
                code=size_limits.RULE.code,
            )
        )
    found.sort(key=lambda f: (f.line, f.column))
    return found


def _bound_statement_size(class_plan: ClassPlan, lines: list[str]) -> None:
    """A class with an edit in an oversized statement is reported, not rewritten (size_limits.py)."""
    limit = size_limits.MAX_STATEMENT_CHARS
    for edit in class_plan.edits:
        size = _statement_chars(lines, edit.line, edit.end[0])
        if size <= limit:
            continue
        reason = size_limits.REASON.format(line=edit.line, size=size, limit=limit)
        for finding in class_plan.findings:
            if finding.action is not Action.SKIP:
                finding.action = Action.SKIP
                finding.persistent = None
                finding.reason = reason
                finding.suggestion = None
                finding.code = size_limits.RULE.code
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


# `NAME = value` on one line at the top level of a module.
_TOP_LEVEL_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)[ \t]*([^\n]+)$", re.MULTILINE)


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
            elif local.isupper():
                names.add(local)  # `from consts import MEAN`: a constant, perhaps a tensor (Evaluator._module_constant)
    frozen_torch = {local: frozenset(targets) for local, targets in torch.items()}
    # `MEAN = torch.tensor([...])` at the top level: a tensor wherever a class reads it
    hints = Hints(frozenset(), frozenset(calls), frozen_torch, frozenset(modules))
    names.update(m.group(1) for m in _TOP_LEVEL_ASSIGNMENT.finditer(text) if mentions(m.group(2), hints))
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


_STATIC_METHOD = re.compile(r"^([ \t]+)@staticmethod[ \t]*\n(?:\1@.*\n)*\1def[ \t]+(\w+)", re.M)


def _static_body(text: str, match: re.Match[str]) -> str:
    """The text of a static method, up to the next line indented no deeper than its def."""
    indent = match.group(1)
    end = re.compile(rf"^(?!{re.escape(indent)}[ \t])[ \t]*\S", re.M).search(text, match.end())
    return text[match.end(): end.start() if end else len(text)]


def scan_text(index: RepoIndex, path, text: str) -> TextScan:
    """Which top-level statements can hold a finding (see segments.may_hold_finding)."""
    pieces = split(text)
    if pieces is None:
        return TextScan(None, None)
    if "\r" in text:
        # The text checks match line ends as `\n` (`self.w = w$`): decide on the text with
        # `\n` line ends, whose statements start on the same lines, and parse the file's own.
        decided = scan_text(index, path, text.replace("\r\n", "\n").replace("\r", "\n"))
        if decided.segments is not None and [p.start for p in decided.segments] == [p.start for p in pieces]:
            return TextScan(pieces, decided.holders)
    holders = [p for p in pieces if p.kind == "class" or (p.kind in ("other", "def") and "class " in p.text)]
    if not holders:
        return TextScan(pieces, set())
    functions = {p.name: p.text for p in pieces if p.kind == "def" and p.name}
    for piece in pieces:
        if piece.kind == "class":
            # a static method, called through its class's name (`Table.build(n)`), is a helper
            # like a module-level function
            functions.update((m.group(2), _static_body(piece.text, m)) for m in _STATIC_METHOD.finditer(piece.text)
                             if m.group(2) not in functions)
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


# -- one class ----------------------------------------------------------------------------------


def plan_class(
    index: RepoIndex,
    symbols: ModuleSymbols,
    cls: ast.ClassDef,
    display_path: str,
    policy: PersistentPolicy,
    can_spell_parameter: bool,
    file_facts: dict,
    selection: RuleSelection,
    class_codes: frozenset[str],
) -> ClassPlan:
    """Gather the facts of the class and of each attribute, ask the rules, collect what they decide."""
    facts = ClassFacts(index, symbols, cls, display_path, policy, can_spell_parameter, file_facts)
    plan = ClassPlan(cls.name, cls.lineno, body_starts=tuple(_first_line(stmt) for stmt in cls.body))
    own_outside = facts.outside_events(set())
    candidates = set()
    for attr, events in facts.init_events.items():
        attribute = AttributeFacts(facts, attr, events, own_outside.get(attr, []))
        if registry.considers(attribute):
            candidates.add(attr)
    outside = facts.outside_events(candidates) if candidates else own_outside
    attributes = [AttributeFacts(facts, attr, facts.init_events[attr], outside.get(attr, [])) for attr in facts.init_events if attr in candidates]
    attributes += [AttributeFacts(facts, attr, [], events) for attr, events in outside.items() if attr not in facts.init_events]
    attributes += [
        AttributeFacts(facts, attr, [], outside.get(attr, []), base_helper=found)
        for attr, found in facts.base_helper_bindings.items()
        if attr not in facts.init_events and attr not in outside
    ]
    decided: dict[str, tuple[AttributeFacts, Decision]] = {}
    for attribute in attributes:
        if not registry.considers(attribute):
            continue
        bindings = attribute.events or [e for _, e in attribute.outside[:1]]
        if any(_line_has_marker(facts.lines, e.stmt.lineno, e.stmt.end_lineno) for e in bindings):
            continue  # `# codemod: ignore`
        decision = registry.decide(attribute)
        if decision is not None:
            decided[attribute.attr] = (attribute, decision)
    registry.refine_class(facts, decided)
    for attr, (attribute, decision) in decided.items():
        bindings = attribute.events or [e for _, e in attribute.outside[:1]]
        if not _reported(decision.code, bindings, facts.lines, selection, class_codes):
            continue  # neither reported nor rewritten
        plan.findings.append(_finding(facts, attribute, decision))
        plan.edits.extend(decision.edits)
        for annotation in decision.annotations:
            if annotation not in plan.annotations:
                plan.annotations.append(annotation)
    plan.findings.sort(key=lambda f: (f.line, f.column))
    return plan


def _finding(facts: ClassFacts, attribute: AttributeFacts, decision: Decision) -> Finding:
    anchor = attribute.anchor
    return Finding(
        path=facts.display_path,
        line=anchor.lineno,
        column=char_col(facts.lines, anchor.lineno, anchor.col_offset) + 1,
        class_name=facts.cls.name,
        attribute=attribute.attr,
        action=decision.action,
        persistent=decision.persistent if decision.action is Action.BUFFER else None,
        reason=decision.reason,
        suggestion=decision.suggestion,
        code=decision.code,
        statically_safe=decision.statically_safe,
    )


def _reported(code: str, bindings, lines: list[str], selection: RuleSelection, class_codes: frozenset[str]) -> bool:
    """Whether a decision stands: its code is selected and no `# codemod: ignore[CODE]`
    on the class line or on a statement binding the attribute names it."""
    if not selection.enabled(code) or covers_any(class_codes, code):
        return False
    for event in bindings:
        _, codes = suppressed(lines, event.stmt.lineno, event.stmt.end_lineno)
        if codes and covers(codes, code):
            return False
    return True


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno
