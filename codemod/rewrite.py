"""Apply a `FilePlan` to source text with libcst, keeping formatting and comments.

Edits are keyed by the position of the statement they change, which `ast`
(where the analysis ran) and libcst's PositionProvider agree on.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
from collections.abc import Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from codemod.budget import MAX_LIBCST_TOKENS, TooLarge, check_tokens
from codemod.fileio import source_lines
from codemod.ftypes import RewriteError
from codemod.plans import ClassPlan, FilePlan, SpineEdit, StmtEdit
from codemod.segments import Segment, split
from codemod.symbols import mangled
from codemod.wrap import CannotLayOut, Style, dominant_quote, layout_statement, str_width


def apply_plan(
    source: str, plan: FilePlan, only_classes: Iterable[str] | None = None, style: Style | None = None
) -> str:
    """Rewrite `source` with the edits of `plan` (of the named classes only, if given).

    The rewritten statements are laid out to `style` (the project's line length and
    quotes; see `codemod.wrap`).

    Only the edited statements go through libcst (it is several times slower than the
    parser the analysis uses), or a wider part when they cannot be cut out simply (see
    `_transform_piece`); the rest of the text is kept byte for byte.  The whole result
    must parse, or nothing is rewritten.
    """
    wanted = set(only_classes) if only_classes is not None else None
    classes = [c for c in plan.classes if c.changed and (wanted is None or c.name in wanted)]
    if not classes:
        return source
    style = style or Style()
    layout = _Layout(style, style.quote or dominant_quote(source), plan.parameter_spelling)
    pieces = split(source)
    changed: list[str] = []  # the top-level statements that changed, when the file is cut
    if pieces is None:
        code = _transform(source, classes, layout, 0)
        needs_import = plan.add_nn_import and _adds_parameter(classes)
        code = _add_nn_import(code) if needs_import else code
    else:
        code = _apply_by_statement(source, pieces, classes, plan, layout, changed)
    _check_parses(source, code, changed if pieces is not None else None)
    return code


def _check_parses(source: str, code: str, changed: list[str] | None) -> None:
    """Never write code that does not parse: the whole file, or, when it is over the
    parse budget, each top-level statement that changed (the rest is the text as read)."""
    try:
        check_tokens(code, "the rewritten file")
        texts = [code]
    except TooLarge as exc:
        if changed is None:
            raise RewriteError(f"not checked: {exc.msg}") from None
        texts = changed
    for text in texts:
        try:
            check_tokens(text, "a rewritten statement")
            ast.parse(text)
        except TooLarge as exc:
            raise RewriteError(f"not checked: {exc.msg}") from None
        except SyntaxError as exc:
            try:
                check_tokens(source, "the file")
                ast.parse(source)
            except TooLarge:
                pass
            except SyntaxError as original:  # the file was broken already, in a part the analysis skipped
                newer = later_python_syntax(source)
                raise RewriteError(f"syntax error: {original.msg} (line {original.lineno})"
                                   + (f"; {newer}" if newer else "")) from original
            raise RewriteError(f"the rewritten code would not parse: {exc.msg} (line {exc.lineno})") from exc


def later_python_syntax(text: str) -> str | None:
    """What to say of a file this interpreter's parser refuses where libcst's reads it: the
    grammar of a later Python (f-strings that nest their own quotes, Python 3.12), not an error
    of the file's; None for a file neither reads (Python 2 code, a real syntax error), and for
    one too large or too deeply nested for libcst's parser to be handed safely (its native
    parser recurses: thousands of nested brackets crash the process)."""
    if _bracket_depth(text) > MAX_LIBCST_NESTING:
        return None
    try:
        check_tokens(text, "the file", MAX_LIBCST_TOKENS)
        cst.parse_module(text)
    except Exception:
        return None
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    return f"it is a later Python's syntax, which this Python ({running}) does not read"


# The deepest bracket nesting a file that does not parse may have to be handed to libcst
# (CPython's own parser stops at 200).
MAX_LIBCST_NESTING = 100


def _bracket_depth(text: str) -> int:
    """The deepest nesting of brackets in the text, counting those in strings and comments too:
    an upper bound, cheap to take."""
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(0, depth - 1)
    return deepest


@dataclasses.dataclass(frozen=True)
class _Layout:
    """How new code is written: the project's style, the file's quote, the spelling of nn.Parameter."""

    style: Style
    quote: str
    parameter_spelling: str


def _apply_by_statement(
    source: str, pieces: list[Segment], classes: list[ClassPlan], plan: FilePlan, layout: _Layout, changed: list[str]
) -> str:
    owners: dict[int, list[ClassPlan]] = {}
    for class_plan in classes:
        owner = next((i for i, p in enumerate(pieces) if p.start <= class_plan.line <= p.end), None)
        if owner is None:
            raise RewriteError(f"could not locate class {class_plan.name}")
        owners.setdefault(owner, []).append(class_plan)
    texts = [p.text for p in pieces]
    for index, owned in owners.items():
        texts[index] = _transform_piece(pieces[index], owned, layout)
        changed.append(texts[index])
    if plan.add_nn_import and _adds_parameter(classes):
        # The imports live before the first class or function: only that part is re-read.
        first_definition = next((i for i, p in enumerate(pieces) if p.kind in ("class", "def")), len(pieces))
        header = "".join(texts[:first_definition])
        texts[:first_definition] = [_add_nn_import(header)] if header else []
        if not header:
            texts.insert(0, _add_nn_import(""))
        changed.append(texts[0])
    prefix = source[: len(source) - len("".join(p.text for p in pieces))]  # blank lines before the first statement
    return prefix + "".join(texts)


def _transform_piece(piece: Segment, classes: list[ClassPlan], layout: _Layout) -> str:
    """One top-level statement with the edits of its classes applied.

    A class can be thousands of lines long while its edits are a few statements of
    `__init__`, and libcst's cost grows with what it reads.  So, narrowest first: each
    edited statement alone (when none moves), or each edited method of a class alone
    (when a statement moves within `__init__`), or the whole top-level statement (when a
    declaration goes on the class itself, or the text cannot be cut simply).
    """
    narrower = []
    if not any(c.annotations for c in classes):
        if not any(e.move_after for c in classes for e in c.edits):
            narrower.append(_transform_statements)
        if len(classes) == 1 and classes[0].body_starts:
            narrower.append(lambda piece, classes, layout: _transform_methods(piece, classes[0], layout))
    for transform in narrower:
        try:
            return transform(piece, classes, layout)
        except (RewriteError, _CannotCut):
            continue
    return _transform(piece.text, classes, layout, piece.start - 1)


class _CannotCut(Exception):
    pass


def _transform_methods(piece: Segment, plan: ClassPlan, layout: _Layout) -> str:
    lines = source_lines(piece.text, keepends=True)
    starts = sorted(set(plan.body_starts))
    first, last = piece.start, piece.start + len(lines) - 1
    if not (first <= plan.line < starts[0] <= last) or not lines[plan.line - first].startswith("class "):
        raise _CannotCut  # a nested class, or a body on the class line
    bounds = [*starts, last + 1]  # each body statement runs up to the next (comments included)
    texts = ["".join(lines[: starts[0] - first])]
    placed = 0
    for begin, end in zip(bounds, bounds[1:]):
        chunk = "".join(lines[begin - first : end - first])
        edits = [e for e in plan.edits if begin <= e.line < end]
        if edits:
            if any(e.move_after and not begin <= e.move_after[0] < end for e in edits):
                raise _CannotCut
            chunk = _transform_indented(chunk, dataclasses.replace(plan, edits=edits), layout, begin)
            placed += len(edits)
        texts.append(chunk)
    if placed != len(plan.edits):
        raise _CannotCut
    return "".join(texts)


# After a statement on its last line: nothing but blanks and a comment.
_REST_OF_LINE = re.compile(r"[ \t]*(?:#[^\r\n]*)?\r?\n?")


def _transform_statements(piece: Segment, classes: list[ClassPlan], layout: _Layout) -> str:
    lines = source_lines(piece.text, keepends=True)
    first = piece.start
    grouped: dict[tuple[int, int], tuple[list[StmtEdit], ClassPlan]] = {}
    for c in classes:
        for e in c.edits:
            grouped.setdefault((e.line, e.col), ([], c))[0].append(e)  # the unpack edits of one statement go together
    edits = sorted(grouped.values(), key=lambda pair: pair[0][0].line, reverse=True)
    for same, owner in edits:  # from the bottom up, so that earlier line numbers stay valid
        edit = same[0]
        (line, col), (end_line, end_col) = (edit.line, edit.col), edit.end
        if not first <= line <= end_line < first + len(lines):
            raise _CannotCut
        head, tail = lines[line - first], lines[end_line - first]
        before = lines[line - first - 1].rstrip("\r\n") if line > first else ""
        if head[:col].strip(" \t") or before.endswith("\\") or _REST_OF_LINE.fullmatch(tail, end_col) is None:
            raise _CannotCut  # shares its line with other code
        plan = dataclasses.replace(owner, edits=same, annotations=[])
        text = _transform_indented("".join(lines[line - first : end_line - first + 1]), plan, layout, line)
        lines[line - first : end_line - first + 1] = [text]
    return "".join(lines)


def _transform_indented(chunk: str, plan: ClassPlan, layout: _Layout, first_line: int) -> str:
    """Indented statements (of a class body, or a method's), parsed under a stand-in header."""
    newline = "\r\n" if chunk.find("\r\n") == chunk.find("\n") - 1 >= 0 else "\n"
    header = "class _:" + newline
    code = _transform(header + chunk, [plan], layout, first_line - 2)
    if not code.startswith(header):
        raise _CannotCut
    return code[len(header) :]


def _transform(text: str, classes: list[ClassPlan], layout: _Layout, line_offset: int) -> str:
    try:
        check_tokens(text, "the code to rewrite", MAX_LIBCST_TOKENS, line=line_offset + 1)
    except TooLarge as exc:
        raise RewriteError(exc.msg) from None
    if "\x0c" in text:
        # libcst drops a form feed that indents a statement, and cannot parse some
        # (before a `def` in a class): they are taken out, and put back afterwards.
        classes = _libcst_columns(text, classes, line_offset)
        stripped, feeds = _without_form_feeds(text)
        return _with_form_feeds(stripped, _libcst_transform(stripped, classes, layout, line_offset), feeds)
    return _libcst_transform(text, classes, layout, line_offset)


def _libcst_transform(text: str, classes: list[ClassPlan], layout: _Layout, line_offset: int) -> str:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise RewriteError(f"libcst cannot parse the file: {str(exc).splitlines()[0]}") from exc
    transformer = _Rewriter(classes, layout, line_offset, module.default_indent)
    new_module = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    missing = transformer.unapplied()
    if missing:
        raise RewriteError(f"could not locate {len(missing)} statement(s) to rewrite (first at line {missing[0][0]})")
    code = new_module.code
    # libcst drops the last line ending of a file whose lines end with a lone \r.
    ending = _LAST_ENDING.search(text)
    if ending and not code.endswith(("\n", "\r")):
        code += ending.group(0)
    return code


_LAST_ENDING = re.compile(r"(?:\r\n|\r|\n)\Z")


def _without_form_feeds(text: str) -> tuple[str, dict[int, str]]:
    """`text` without what precedes the last form feed of each line's indentation (for
    Python, a form feed resets the indentation: the rest of the line means the same);
    and what was taken out, by line index."""
    lines = source_lines(text, keepends=True)
    feeds: dict[int, str] = {}
    for index, line in enumerate(lines):
        if "\x0c" in line:
            body = line.lstrip(" \t\x0c")
            cut = line.rfind("\x0c", 0, len(line) - len(body)) + 1
            if cut:
                feeds[index], lines[index] = line[:cut], line[cut:]
    return "".join(lines), feeds


def _with_form_feeds(stripped: str, code: str, feeds: dict[int, str]) -> str:
    """`code` (the rewrite of `stripped`) with the form feeds put back on the lines they
    were taken from; a rewritten statement's first line gets that statement's."""
    import difflib

    before = source_lines(stripped, keepends=True)
    after = source_lines(code, keepends=True)
    placed = 0
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                if i1 + k in feeds:
                    after[j1 + k] = feeds[i1 + k] + after[j1 + k]
                    placed += 1
        elif tag == "replace" and i1 in feeds and not any(i in feeds for i in range(i1 + 1, i2)):
            after[j1] = feeds[i1] + after[j1]
            placed += 1
    if placed != len(feeds):
        raise RewriteError("a form feed inside a rewritten statement would be lost")
    return "".join(after)


def _libcst_columns(text: str, classes: list[ClassPlan], line_offset: int) -> list[ClassPlan]:
    """The edits' positions as libcst counts columns: from the last form feed before
    them on their line (`ast` counts the form feed and what precedes it)."""
    lines = source_lines(text)

    def column(line: int, col: int) -> int:
        index = line - line_offset - 1
        if not 0 <= index < len(lines):
            return col
        return col - (lines[index].rfind("\x0c", 0, col) + 1)

    moved = []
    for plan in classes:
        edits = [
            dataclasses.replace(
                e,
                col=column(e.line, e.col),
                move_after=None if e.move_after is None else (e.move_after[0], column(*e.move_after)),
            )
            for e in plan.edits
        ]
        moved.append(dataclasses.replace(plan, edits=edits))
    return moved


def _adds_parameter(classes: list[ClassPlan]) -> bool:
    return any(e.op in ("parameter", "buffer_to_parameter") for c in classes for e in c.edits)


def _add_nn_import(text: str) -> str:
    try:
        check_tokens(text, "the module's imports", MAX_LIBCST_TOKENS)
    except TooLarge as exc:
        raise RewriteError(exc.msg) from None
    # libcst's codemod package takes longer to import than the rest of libcst: only here.
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, "torch", "nn")
    return AddImportsVisitor(context).transform_module(cst.parse_module(text)).code


class _Rewriter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, classes: list[ClassPlan], layout: _Layout, line_offset: int = 0, default_indent: str = "    "):
        super().__init__()
        self.layout = layout
        self.line_offset = line_offset  # the parsed text starts at this line of the file
        self.default_indent = default_indent
        self.indents: list[str] = []  # of the blocks the visit is in
        # One edit decides what a statement becomes; a statement several attributes read through
        # locals (`self.grid_X, self.grid_Y = np.meshgrid(...)`, both localised) gets every
        # localise edit of its position, applied on top of that one.
        self.edits: dict[tuple[int, int], StmtEdit] = {}
        self.localised: dict[tuple[int, int], list[StmtEdit]] = {}
        for e in (e for c in classes for e in c.edits):
            key = (e.line, e.col)
            if e.op == "localise":
                self.localised.setdefault(key, []).append(e)
            if key not in self.edits or (self.edits[key].op == "localise" and e.op != "localise"):
                self.edits[key] = e
        # the class each edit is in: `self.__x` is stored as `_Cls__x`, and register_buffer must name it so
        self.class_of: dict[tuple[int, int], str] = {(e.line, e.col): c.name.rpartition(".")[2] for c in classes for e in c.edits}
        self.unpacks: dict[tuple[int, int], list[StmtEdit]] = {}  # every unpack edit of a statement
        for c in classes:
            for e in c.edits:
                if e.op == "unpack":
                    self.unpacks.setdefault((e.line, e.col), []).append(e)
        self.applied: set[tuple[int, int]] = set()
        self.annotations: dict[int, list[tuple[str, str]]] = {c.line: c.annotations for c in classes if c.annotations}
        self.parameter = cst.parse_expression(layout.parameter_spelling)
        self.anchors: dict[tuple[int, int], int] = {}  # super() statement position -> id of its node
        self.movers: dict[int, tuple[int, int]] = {}  # id of a statement to move -> anchor position
        self.anchor_positions = {e.move_after for e in self.edits.values() if e.move_after}

    def unapplied(self) -> list[tuple[int, int]]:
        return sorted(set(self.edits) - self.applied)

    # statements ------------------------------------------------------------------------------

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        self.indents.append(self.default_indent if node.indent is None else node.indent)
        return True

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        body = list(updated.body)
        move_to: tuple[int, int] | None = None
        moved_key: tuple[int, int] | None = None
        is_anchor = False
        for i, small in enumerate(original.body):
            start = self.get_metadata(PositionProvider, small).start
            key = (start.line + self.line_offset, start.column)
            if key in self.anchor_positions:
                is_anchor = True
            edit = self.edits.get(key)
            if edit is None:
                continue
            if edit.op == "unpack":
                split_out = self._unpack(self.unpacks[key], body[i])
                self.applied.add(key)
                if len(body) == 1:  # alone on its line: one statement a line
                    return self._unpack_lines(original, updated, split_out, edit.move_after)
                body[i : i + 1] = _with_semicolons(split_out, body[i].semicolon)
                if edit.move_after:
                    self.applied.discard(key)  # shares its line with other statements: not moved, reported
                continue
            body[i] = self._apply(edit, body[i])
            if len(body) == 1 and edit.op in ("buffer", "parameter", "buffer_to_parameter"):
                body[i] = self._wrap(body[i], updated.trailing_whitespace)
            self.applied.add(key)
            if edit.move_after:
                move_to, moved_key = edit.move_after, key
        result = updated.with_changes(body=body)
        if is_anchor:
            start = self.get_metadata(PositionProvider, original.body[0]).start
            for anchor in self.anchor_positions:
                if anchor[0] == start.line + self.line_offset:
                    self.anchors[anchor] = id(result)
        if move_to is not None:
            if len(body) != 1:
                self.applied.discard(moved_key)  # shares its line with other statements: not moved, reported
            else:
                self.movers[id(result)] = move_to
        return result

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite) -> cst.SimpleStatementSuite:
        """`if cond: self.x = t` — statements on the line of their block's header.  They are
        rewritten in place; one that must move after super().__init__() stays unapplied
        (and the file is reported, not rewritten)."""
        body: list[cst.BaseSmallStatement] = []
        for small, current in zip(original.body, updated.body):
            start = self.get_metadata(PositionProvider, small).start
            key = (start.line + self.line_offset, start.column)
            edit = self.edits.get(key)
            if edit is None or edit.move_after:
                body.append(current)
                continue
            if edit.op == "unpack":
                body.extend(_with_semicolons(self._unpack(self.unpacks[key], current), current.semicolon))
            else:
                body.append(self._apply(edit, current))
            self.applied.add(key)
        return updated.with_changes(body=body)

    # tuple unpacking ---------------------------------------------------------------------------

    def _unpack(self, edits: list[StmtEdit], small: cst.BaseSmallStatement) -> list[cst.BaseSmallStatement]:
        """`self.a, self.b = v` -> `a, b = v` and one register_buffer call per attribute split out."""
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, (cst.Tuple, cst.List))):
            raise RewriteError("expected an assignment unpacking into attributes of self")
        by_attr = {e.attr: e for e in edits}
        target = small.targets[0].target
        owners: dict[str, cst.BaseExpression] = {}
        elements = []
        for element in target.elements:
            value = element.value
            if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.attr.value in by_attr and value.attr.value not in owners:
                owners[value.attr.value] = value.value
                value = cst.Name(by_attr[value.attr.value].target_local, lpar=value.lpar, rpar=value.rpar)
            elements.append(element.with_changes(value=value))
        if len(owners) != len(by_attr):
            raise RewriteError("an attribute to split out of an unpacking is not one of its targets")
        value = small.value
        for e in edits:
            if e.local:
                value = value.visit(_Localise(e.owner, e.attr, e.local))
        assign = small.with_changes(targets=[small.targets[0].with_changes(target=target.with_changes(elements=elements))], value=value, semicolon=cst.MaybeSentinel.DEFAULT)
        quote = self.layout.quote
        out: list[cst.BaseSmallStatement] = [assign]
        ordered = [e for element in target.elements for e in edits if isinstance(element.value, cst.Attribute) and element.value.attr.value == e.attr]
        for e in ordered:
            call = cst.parse_expression(
                f"__self__.register_buffer({quote}{self._stored_name(e)}{quote}, {e.target_local}"
                + (", persistent=False)" if e.persistent is False else ")")
            )
            call = call.with_changes(func=call.func.with_changes(value=owners[e.attr]))
            out.append(cst.Expr(value=call))
        return out

    def _unpack_lines(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, smalls: list[cst.BaseSmallStatement], move_to):
        first = updated.with_changes(body=[smalls[0]])
        lines = [first]
        for small in smalls[1:]:
            lines.append(cst.SimpleStatementLine(body=[self._wrap(small, cst.TrailingWhitespace())]))
        if move_to is not None:
            for line in lines:
                self.movers[id(line)] = move_to
        start = self.get_metadata(PositionProvider, original.body[0]).start
        for anchor in self.anchor_positions:
            if anchor[0] == start.line + self.line_offset:
                self.anchors[anchor] = id(first)
        return cst.FlattenSentinel(lines)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self.indents.pop()
        ids = {id(s) for s in updated.body}
        if not any(i in ids for i in self.movers):
            return updated
        movers = [s for s in updated.body if id(s) in self.movers]
        rest = [s for s in updated.body if id(s) not in self.movers]
        inserted: dict[int, int] = {}  # anchor id -> statements already placed after it
        for stmt in movers:  # in source order, so they keep their relative order
            anchor_id = self.anchors.get(self.movers[id(stmt)])
            position = next((i for i, s in enumerate(rest) if id(s) == anchor_id), None)
            if position is None or anchor_id is None:
                continue  # leaves the edit unapplied: reported as an error
            offset = inserted.get(anchor_id, 0)
            rest.insert(position + 1 + offset, stmt)  # its comments travel with it
            inserted[anchor_id] = offset + 1
            del self.movers[id(stmt)]
        return updated.with_changes(body=rest)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        start = self.get_metadata(PositionProvider, original).start
        declarations = self.annotations.get(start.line + self.line_offset)
        if not declarations or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        body = list(updated.body.body)
        position = 0
        if body and _is_docstring(body[0]):
            position = 1
        while position < len(body) and _is_annotation(body[position]):
            position += 1
        new = [cst.parse_statement(f"{attr}: {annotation}\n") for attr, annotation in declarations]
        following = body[position] if position < len(body) else None
        if isinstance(following, (cst.FunctionDef, cst.ClassDef)) and not following.leading_lines:
            # Keep the blank line that separates class attributes from methods.
            body[position] = following.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        body[position:position] = new
        return updated.with_changes(body=updated.body.with_changes(body=body))

    # one statement ---------------------------------------------------------------------------

    def _stored_name(self, edit: StmtEdit) -> str:
        """The name the attribute is stored under: Python mangles a private `self.__x` written in
        class `Cls` to `_Cls__x`, which is what reads of `self.__x` in the class look up."""
        return mangled(edit.attr, self.class_of.get((edit.line, edit.col), ""))

    def _apply(self, edit: StmtEdit, small: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
        applied = self._apply_one(edit, small)
        for other in self.localised.get((edit.line, edit.col), ()):
            if other is not edit:
                applied = applied.visit(_Localise(other.owner, other.attr, other.local))
        return applied

    def _apply_one(self, edit: StmtEdit, small: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
        spine = {s.index: s for s in edit.spine}
        if edit.op == "localise":
            return small.visit(_Localise(edit.owner, edit.attr, edit.local))
        if edit.op == "buffer":
            target, value = _assignment_parts(small)
            value = _rebuild(value, spine)
            if edit.local:
                value = value.visit(_Localise(edit.owner, edit.attr, edit.local))
            quote = self.layout.quote
            call = cst.parse_expression(
                f"__self__.register_buffer({quote}{self._stored_name(edit)}{quote}, __value__"
                + (", persistent=False)" if edit.persistent is False else ")")
            )
            args = list(call.args)
            args[1] = args[1].with_changes(value=_bare(value))
            call = call.with_changes(func=call.func.with_changes(value=target.value), args=args)
            return cst.Expr(value=call, semicolon=small.semicolon)
        if edit.op in ("parameter", "unmove"):
            _, value = _assignment_parts(small)
            value = _rebuild(value, spine)
            if edit.op == "parameter":
                value = cst.Call(func=self.parameter, args=[cst.Arg(value=_bare(value))])
            return small.with_changes(value=value)
        if edit.op == "buffer_to_parameter":
            assert isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
            call = small.value
            owner = call.func.value  # type: ignore[attr-defined]
            value = call.args[1].value
            wrapped = cst.Call(func=self.parameter, args=[cst.Arg(value=value)])
            target = cst.AssignTarget(target=cst.Attribute(value=owner, attr=cst.Name(edit.attr)))
            return cst.Assign(targets=[target], value=wrapped, semicolon=small.semicolon)
        raise RewriteError(f"unknown edit {edit.op}")


    def _wrap(self, small: cst.BaseSmallStatement, trailing: cst.TrailingWhitespace) -> cst.BaseSmallStatement:
        """A rewritten statement alone on its line, laid out to the project's style."""
        indent = "".join(self.indents)
        if "\t" in indent:
            return small  # formatters indent with spaces; a tab-indented file keeps one line
        code = cst.Module(body=[]).code_for_node(small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT))
        comment = trailing.comment.value if trailing.comment else None
        try:
            text = layout_statement(code, str_width(indent), comment, self.layout.style)
        except CannotLayOut:
            return small
        if text == code:
            return small
        statement = cst.parse_statement(text + "\n")
        assert isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
        return statement.body[0].with_changes(semicolon=small.semicolon)


class _Localise(cst.CSTTransformer):
    """`self.table` -> `table`: a value built in a local before it is registered once."""

    def __init__(self, owner: str, attr: str, local: str):
        super().__init__()
        self.owner, self.attr, self.local = owner, attr, local

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if isinstance(updated.value, cst.Name) and updated.value.value == self.owner and updated.attr.value == self.attr:
            return cst.Name(self.local, lpar=updated.lpar, rpar=updated.rpar)
        return updated


def _with_semicolons(smalls: list[cst.BaseSmallStatement], last: cst.MaybeSentinel | cst.Semicolon) -> list[cst.BaseSmallStatement]:
    """Small statements sharing a line: each but the last ends with `; `, the last as the original did."""
    separator = cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))
    return [s.with_changes(semicolon=separator) for s in smalls[:-1]] + [smalls[-1].with_changes(semicolon=last)]


def _assignment_parts(small: cst.BaseSmallStatement) -> tuple[cst.Attribute, cst.BaseExpression]:
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Attribute):
        return small.targets[0].target, small.value  # type: ignore[return-value]
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Attribute) and small.value is not None:
        return small.target, small.value
    raise RewriteError("expected an assignment to self.<attr>")


def _rebuild(node: cst.BaseExpression, edits: dict[int, SpineEdit], index: int = 0) -> cst.BaseExpression:
    """Apply spine edits along the call chain of a value (see analysis.SpineEdit)."""
    if not edits:
        return node
    if isinstance(node, cst.Call):
        node = node.with_changes(func=_rebuild(node.func, edits, index + 1))
    elif isinstance(node, cst.Attribute):
        node = node.with_changes(value=_rebuild(node.value, edits, index + 1))
    elif isinstance(node, cst.Subscript):
        node = node.with_changes(value=_rebuild(node.value, edits, index + 1))
    edit = edits.get(index)
    if edit is None or not isinstance(node, cst.Call):
        return node
    if edit.op == "drop" and isinstance(node.func, cst.Attribute):
        inner = node.func.value
        if node.lpar and not inner.lpar:
            inner = inner.with_changes(lpar=node.lpar, rpar=node.rpar)
        return inner
    if edit.op == "keep_args":
        kept = []
        position = 0
        for arg in node.args:
            if arg.keyword is None and not arg.star:
                if position in edit.args:
                    kept.append(arg)
                position += 1
            elif arg.keyword is not None and arg.keyword.value in edit.keywords:
                kept.append(arg)
        return node.with_changes(args=_fix_commas(kept))
    if edit.op == "drop_kwarg":
        kept = [a for a in node.args if not (a.keyword is not None and a.keyword.value == edit.kwarg)]
        return node.with_changes(args=_fix_commas(kept))
    if edit.op == "unwrap" and node.args:
        return node.args[0].value
    if edit.op == "sink" and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Call) and node.func.value.args:
        # nn.Parameter(t).to(device) -> nn.Parameter(t.to(device)): the move applied to the value inside
        inner = node.func.value
        value = inner.args[0].value
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        moved = cst.Call(func=cst.Attribute(value=value, attr=node.func.attr), args=node.args)
        return inner.with_changes(args=[inner.args[0].with_changes(value=moved), *inner.args[1:]])
    return node


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """Drop the parentheses around a value that becomes a call argument, where they are
    redundant (a call's own parentheses already allow line breaks)."""
    if getattr(node, "lpar", None) and not isinstance(node, (cst.Tuple, cst.GeneratorExp, cst.Yield, cst.NamedExpr)):
        return node.with_changes(lpar=[], rpar=[])
    return node


def _fix_commas(args: list[cst.Arg]) -> list[cst.Arg]:
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_annotation(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.AnnAssign) and stmt.body[0].value is None
