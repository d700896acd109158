"""Lay out a rewritten statement the way the project's formatter would.

A rewrite turns `self.x = <value>` into `self.register_buffer("x", <value>, ...)` or
`self.x = nn.Parameter(<value>)`: longer lines, inside a new pair of brackets.  Only
that new call is laid out here, as black (and ruff's formatter, which follows it) lays
out a call: all on one line when it fits; else the arguments on one indented line and
the closing bracket on its own line; else one argument per line with a trailing comma.
The value itself keeps its text: it is joined onto one line only where the formatter
would join it (no comment, no magic trailing comma, no multi-line string inside), and
otherwise keeps its own line breaks, shifted to its new indentation.
"""

from __future__ import annotations

import io
import tokenize
import unicodedata
from dataclasses import dataclass

DEFAULT_LINE_LENGTH = 88
INDENT = "    "
MAX_GROWTH = 4  # a laid-out statement at most this many times the size of the one-line one

_OPENING = "([{"
_CLOSING = ")]}"
_KEYWORDS_BEFORE_BRACKET = set(
    "and or not in is if else for return yield lambda await assert del elif while with from import as raise async".split()
)


@dataclass(frozen=True)
class Style:
    """How the project formats code (read by `codemod.config.load_style`)."""

    line_length: int = DEFAULT_LINE_LENGTH
    quote: str | None = None  # '"' or "'"; None: the dominant quote of each file
    magic_trailing_comma: bool = True

    def fingerprint(self) -> str:
        return f"line_length={self.line_length},quote={self.quote},magic={self.magic_trailing_comma}"


def str_width(text: str) -> int:
    """Columns a line takes, as the formatters count them (wide characters take two)."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def dominant_quote(source: str, default: str = '"') -> str:
    """The quote most of the file's one-line strings use (docstrings do not count)."""
    counts = {'"': 0, "'": 0}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.STRING:
                continue
            body = token.string.lstrip("rRbBuUfF")
            if body[:3] in ('"""', "'''"):
                continue
            if body[:1] in counts:
                counts[body[0]] += 1
    except (tokenize.TokenError, SyntaxError):
        pass
    if counts["'"] > counts['"']:
        return "'"
    if counts['"'] > counts["'"]:
        return '"'
    return default



# -- laying out one statement ------------------------------------------------------------------
#
# The statement is cut into leaves (tokens) that remember the comments after them; a
# line is a run of leaves at an indentation depth.  A line that fits (and holds no
# magic trailing comma nor, inside brackets, a comment of its own line) stays whole.
# Else, inside brackets, it is split at its delimiters of the highest priority (commas
# first, then `if`/`else`, `and`/`or`, comparisons, arithmetic, method calls); failing
# that, at its last pair of brackets ("right hand split": the head up to the opening
# bracket, the body indented below it, the closing bracket and what follows).  Each
# resulting line is laid out again in the same way.  These are the rules black
# documents as its style, which ruff's formatter shares.

_COMPREHENSION, _COMMA, _TERNARY, _LOGIC, _STRING, _COMPARATOR, _DOT = 20, 18, 16, 14, 12, 10, 1
_MATH = {"|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5, "*": 4, "/": 4, "//": 4, "%": 4, "@": 4, "**": 2}
_COMPARISON_OPERATORS = {"<", ">", "==", "!=", "<=", ">=", "<>"}
_PAIRS = {")": "(", "]": "[", "}": "{"}
_OPEN = {"(", "[", "{"}
# Keywords after which an operator is unary and a bracket opens a display, not a call.
_KEYWORDS = set(
    "and or not in is if else elif for while return yield lambda await assert del from import as raise async with".split()
)


class CannotLayOut(Exception):
    """The statement holds something this layout does not handle (a backslash, a multi-line string)."""


class _CannotSplit(Exception):
    pass


class _Leaf:
    __slots__ = ("value", "kind", "prefix", "opening", "before", "after", "magic", "trailer", "invisible")

    def __init__(self, value: str, kind: str, prefix: str = ""):
        self.value = value
        self.kind = kind  # "name", "number", "string", "op" or "comment" (a comment on its own line)
        self.prefix = prefix  # the space before it when it follows another leaf on a line
        self.opening: _Leaf | None = None  # of a closing bracket
        self.before = 0  # priority of a line break before this leaf (an operator, `if`, ...)
        self.after = 0  # priority of a line break after this leaf (a comma)
        self.magic = False  # a closing bracket after a comma that keeps the brackets exploded
        self.trailer = False  # an opening bracket of a call or a subscript (not of a display)
        self.invisible = False  # a bracket the formatter adds, shown only where it splits there

    def shown(self) -> str:
        return "" if self.invisible else self.value


class _Line:
    __slots__ = ("depth", "leaves", "comments", "inside", "tracked", "should_split")

    def __init__(self, depth: int, inside: bool = False, tracked: str = "all"):
        self.depth = depth  # in indentation levels below the statement
        self.leaves: list[_Leaf] = []
        self.comments: dict[int, list[str]] = {}  # id(leaf) -> the comments after it
        self.inside = inside  # the body of a pair of brackets (or a part of one)
        self.tracked = tracked  # whose brackets count: "all", "matched" (a head) or "none" (a tail)
        self.should_split = False

    def add(self, leaf: _Leaf, source: _Line) -> None:
        self.leaves.append(leaf)
        comments = source.comments.get(id(leaf))
        if comments:
            self.comments.setdefault(id(leaf), []).extend(comments)

    def text(self) -> str:
        if not self.leaves:
            return ""
        out = [self.leaves[0].shown()]
        out.extend(leaf.prefix + leaf.shown() for leaf in self.leaves[1:])
        out.extend("  " + comment for comments in self.comments.values() for comment in comments)
        return "".join(out)

    def has_own_line_comment(self) -> bool:
        return any(leaf.kind == "comment" for leaf in self.leaves)

    def magic_trailing_comma(self) -> bool:
        if self.tracked == "none":
            return False
        members = {id(leaf) for leaf in self.leaves}
        for position, leaf in enumerate(self.leaves):
            if leaf.magic and position and self.leaves[position - 1].value == ",":
                if self.tracked == "all" or (leaf.opening is not None and id(leaf.opening) in members):
                    return True
        return False

    def delimiters(self) -> dict[int, int]:
        """Index of a leaf -> priority of a line break right after it (leaves at depth 0)."""
        found: dict[int, int] = {}
        if self.tracked == "none":
            return found
        depth = 0
        fors: list[int] = []
        lambdas: list[int] = []
        previous: int | None = None
        for position, leaf in enumerate(self.leaves):
            if fors and fors[-1] == depth and leaf.value == "in" and leaf.kind == "name":
                depth -= 1
                fors.pop()
            if lambdas and lambdas[-1] == depth and leaf.value == ":":
                depth -= 1
                lambdas.pop()
            if leaf.kind == "op" and leaf.value in _PAIRS:
                if depth == 0:
                    continue  # closes a bracket opened on an earlier line
                depth -= 1
            if depth == 0:
                if leaf.before and previous is not None:
                    found[previous] = leaf.before
                elif leaf.after:
                    found[position] = leaf.after
            if leaf.kind == "op" and leaf.value in _OPEN:
                depth += 1
            previous = position
            if leaf.kind == "name" and leaf.value == "lambda":
                depth += 1
                lambdas.append(depth)
            if leaf.kind == "name" and leaf.value == "for":
                depth += 1
                fors.append(depth)
        return found


def layout_statement(code: str, column: int, trailing_comment: str | None, style: Style) -> str:
    """`code` (one simple statement) laid out for a line that starts at `column`.

    `trailing_comment` is the comment that ends the statement's last line, if any; it
    counts in that line's width but is not part of the text returned.  Lines after the
    first are indented relative to the first.
    """
    line = _statement_line(code, style)
    marker = None
    if trailing_comment:
        marker = _Leaf("", "op")  # carries the comment at the end of the statement
        line.leaves.append(marker)
        line.comments[id(marker)] = [trailing_comment]
    lines = _lay_out(line, column, style)
    if marker is not None:
        if marker not in lines[-1].leaves:
            raise CannotLayOut("the statement's comment would move")
        lines[-1].leaves.remove(marker)
        del lines[-1].comments[id(marker)]
    text = "\n".join(INDENT * line.depth + line.text() for line in lines)
    # Deep nesting splits once per bracket, each line indented further: 190 nested
    # parentheses would take 150 kB.  Past a few times its size, the statement keeps its layout.
    if len(text) + column * text.count("\n") > MAX_GROWTH * (len(code) + column):
        raise CannotLayOut(f"the layout would make the statement more than {MAX_GROWTH} times larger")
    if _essence(text) != _essence(code):
        raise CannotLayOut("the layout would change the code")  # a safeguard: never expected
    return text


def _essence(code: str) -> tuple[list[str], list[str]]:
    """The tokens of `code` but for layout, trailing commas and parentheses, and its comments
    (a comment that swallowed code, or code lost, shows here)."""
    tokens, comments = [], []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code, newline="").readline):
            if token.type == tokenize.COMMENT:
                comments.append(token.string)
            elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                if token.string in _PAIRS and tokens and tokens[-1] == ",":
                    tokens.pop()
                if token.string not in ("(", ")"):  # a split conditional expression gains some
                    tokens.append(token.string)
    except (tokenize.TokenError, SyntaxError):
        return ["<unreadable>"], []
    return tokens, sorted(comments)


def _statement_line(code: str, style: Style) -> _Line:
    lines = io.StringIO(code, newline="").readlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code, newline="").readline))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise CannotLayOut(str(exc)) from None
    line = _Line(0, tracked="all")
    stack: list[_Leaf] = []
    end: tuple[int, int] | None = None  # where the previous token ended
    for token in tokens:
        if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if token.type == tokenize.ERRORTOKEN or token.start[0] != token.end[0]:
            raise CannotLayOut("a backslash, a multi-line string or an unknown token")
        if end is not None and end[0] != token.start[0]:
            if lines[end[0] - 1].rstrip("\r\n").endswith("\\"):
                raise CannotLayOut("a backslash continuation")
        if token.type == tokenize.COMMENT:
            if line.leaves and end is not None and end[0] == token.start[0]:
                line.comments.setdefault(id(line.leaves[-1]), []).append(token.string)
            else:
                line.leaves.append(_Leaf(token.string, "comment"))
            end = token.end
            continue
        kind = {tokenize.NAME: "name", tokenize.NUMBER: "number", tokenize.STRING: "string"}.get(token.type, "op")
        if kind == "op" and token.type != tokenize.OP:
            raise CannotLayOut(f"token {tokenize.tok_name[token.type]}")
        if end is not None and end[0] == token.start[0]:
            prefix = lines[token.start[0] - 1][end[1] : token.start[1]]
        else:
            prefix = None  # decided below, once the neighbours are known
        leaf = _Leaf(token.string, kind, prefix or "")
        if prefix is None and line.leaves:
            leaf.prefix = _joining_space(_last_leaf(line), leaf)
        if kind == "op" and token.string in _OPEN:
            stack.append(leaf)
        elif kind == "op" and token.string in _PAIRS and stack:
            leaf.opening = stack.pop()
        line.leaves.append(leaf)
        end = token.end
    _mark_roles(line.leaves)
    _parenthesize_conditionals(line.leaves)
    if not style.magic_trailing_comma:
        _drop_magic_commas(line)
    return line


def _last_leaf(line: _Line) -> _Leaf:
    return next(leaf for leaf in reversed(line.leaves) if leaf.kind != "comment")


def _joining_space(previous: _Leaf, leaf: _Leaf) -> str:
    """The space between two leaves that stood on different lines, once joined."""
    if previous.value in ("(", "[", "{", ".") or leaf.value in (")", "]", "}", ",", "."):
        return ""
    return " "


def _operand_end(leaf: _Leaf | None) -> bool:
    """Whether `leaf` ends an operand (so that an operator after it is binary)."""
    if leaf is None:
        return False
    if leaf.kind in ("number", "string"):
        return True
    if leaf.kind == "name":
        return leaf.value not in _KEYWORDS
    return leaf.value in _PAIRS


def _mark_roles(leaves: list[_Leaf]) -> None:
    """The delimiter priority of each leaf, and which closing brackets a comma makes magic."""
    code = [leaf for leaf in leaves if leaf.kind != "comment"]
    depth = 0
    comprehension: set[int] = set()  # depths where a `for` was seen (an `if` there filters)
    for_target: set[int] = set()  # depths where a `for` still waits for its `in`
    for position, leaf in enumerate(code):
        previous = code[position - 1] if position else None
        following = code[position + 1] if position + 1 < len(code) else None
        value = leaf.value
        if leaf.kind == "op":
            if value in _PAIRS:
                comprehension.discard(depth)
                for_target.discard(depth)
                depth -= 1
            elif value == ",":
                leaf.after = _COMMA
            elif value == "." and previous is not None and previous.value in _PAIRS:
                leaf.before = _DOT
            elif value in _MATH and _operand_end(previous):
                leaf.before = _MATH[value]
            elif value in _COMPARISON_OPERATORS:
                leaf.before = _COMPARATOR
            if value in _OPEN:
                leaf.trailer = value != "{" and _operand_end(previous)
                depth += 1
        elif leaf.kind == "string" and previous is not None and previous.kind == "string":
            leaf.before = _STRING
        elif leaf.kind == "name":
            if value == "for":
                leaf.before = _COMPREHENSION
                comprehension.add(depth)
                for_target.add(depth)
            elif value == "if":
                leaf.before = _COMPREHENSION if depth in comprehension else _TERNARY
            elif value == "else":
                leaf.before = _TERNARY
            elif value == "is":
                leaf.before = _COMPARATOR
            elif value == "in":
                if depth in for_target:
                    for_target.discard(depth)
                elif not (previous is not None and previous.value == "not"):
                    leaf.before = _COMPARATOR
            elif value == "not":
                if following is not None and following.value == "in" and not (previous is not None and previous.value == "is"):
                    leaf.before = _COMPARATOR
            elif value in ("and", "or"):
                leaf.before = _LOGIC
    # A comma before a closing bracket keeps it exploded, except that of a one-element
    # tuple `(x,)` or of a subscript `x[a,]`.
    for position, leaf in enumerate(code):
        if leaf.kind != "op" or leaf.value not in _PAIRS or position == 0 or code[position - 1].value != ",":
            continue
        opening = leaf.opening
        if opening is None:
            continue
        start = next(i for i, other in enumerate(code) if other is opening)
        before = code[start - 1] if start else None
        follows_value = _operand_end(before)
        commas = _commas_between(code, start, position)
        if leaf.value == "}":
            leaf.magic = True
        elif leaf.value == "]":
            leaf.magic = not (follows_value and commas == 1)
        else:
            leaf.magic = follows_value or commas != 1  # the arguments of a call, or not a one-element tuple


def _parenthesize_conditionals(leaves: list[_Leaf]) -> None:
    """Put (invisible) brackets around each conditional expression that is not alone in a
    pair of parentheses: where it must be split, the formatter splits it inside them."""
    depths = []
    depth = 0
    for leaf in leaves:
        if leaf.kind == "op" and leaf.value in _PAIRS:
            depth -= 1
        depths.append(depth)
        if leaf.kind == "op" and leaf.value in _OPEN:
            depth += 1
    spans = []
    for position, leaf in enumerate(leaves):
        if not (leaf.kind == "name" and leaf.value == "if" and leaf.before == _TERNARY):
            continue
        level = depths[position]
        start = position
        while start > 0:
            other = leaves[start - 1]
            if depths[start - 1] < level:
                break
            if depths[start - 1] == level and other.value in (",", "=", ":", "else", "lambda", "return"):
                break
            start -= 1
        end = position + 1
        while end < len(leaves):
            other = leaves[end]
            if depths[end] < level or (depths[end] == level and other.value in (",", ":", "for")):
                break
            end += 1
        before = leaves[start - 1] if start else None
        after = leaves[end] if end < len(leaves) else None
        if before is not None and before.value == "(" and after is not None and after.opening is before:
            continue  # already the sole content of parentheses
        spans.append((leaves[start], after))
    for first, after in spans:
        opening = _Leaf("(", "op", first.prefix)
        opening.invisible = opening.trailer = True
        closing = _Leaf(")", "op")
        closing.invisible = True
        closing.opening = opening
        first.prefix = ""
        leaves.insert(_index(leaves, first), opening)
        leaves.insert(len(leaves) if after is None else _index(leaves, after), closing)


def _index(leaves: list[_Leaf], leaf: _Leaf) -> int:
    return next(i for i, other in enumerate(leaves) if other is leaf)


def _commas_between(code: list[_Leaf], start: int, stop: int) -> int:
    depth = 0
    commas = 0
    for leaf in code[start + 1 : stop]:
        if leaf.kind == "op" and leaf.value in _OPEN:
            depth += 1
        elif leaf.kind == "op" and leaf.value in _PAIRS:
            depth -= 1
        elif leaf.value == "," and depth == 0:
            commas += 1
    return commas


def _drop_magic_commas(line: _Line) -> None:
    """Where the project ignores magic trailing commas, the formatter removes them."""
    kept: list[_Leaf] = []
    for leaf in line.leaves:
        if leaf.magic and kept and kept[-1].value == ",":
            comma = kept.pop()
            moved = line.comments.pop(id(comma), [])
            if moved and kept:
                line.comments.setdefault(id(kept[-1]), []).extend(moved)
            leaf.magic = False
        kept.append(leaf)
    line.leaves = kept


def _fits(line: _Line, column: int, style: Style) -> bool:
    if line.has_own_line_comment():
        return False
    return column + len(INDENT) * line.depth + str_width(line.text()) <= style.line_length


def _lay_out(line: _Line, column: int, style: Style) -> list[_Line]:
    if len(line.leaves) == 1 and line.leaves[0].kind == "comment":
        return [line]
    if (
        not line.should_split
        and not line.magic_trailing_comma()
        and _fits(line, column, style)
        and not (line.inside and line.has_own_line_comment())
    ):
        return [line]
    splits = [_delimiter_split, _comment_split, _right_hand_split] if line.inside else [_right_hand_split]
    before = line.text()
    for split in splits:
        try:
            pieces = split(line, column, style)
        except _CannotSplit:
            continue
        if any(piece.text() == before and piece.depth == line.depth for piece in pieces):
            continue  # no progress
        result: list[_Line] = []
        for piece in pieces:
            result.extend(_lay_out(piece, column, style))
        return result
    return [line]


def _delimiter_split(line: _Line, column: int, style: Style) -> list[_Line]:
    delimiters = line.delimiters()
    last = len(line.leaves) - 1
    priorities = [p for i, p in delimiters.items() if i != last]
    if not priorities:
        raise _CannotSplit
    top = max(priorities)
    if top == _DOT and priorities.count(_DOT) == 1:
        raise _CannotSplit  # a single attribute split from its owner looks wrong
    migrate = top in (_COMMA, _STRING)
    pieces: list[_Line] = []
    current = _Line(line.depth, line.inside)
    trailing_comma_safe = True
    depth = 0
    last_code = max((i for i, leaf in enumerate(line.leaves) if leaf.kind != "comment"), default=-1)
    for position, leaf in enumerate(line.leaves):
        if depth == 0 and leaf.kind == "comment" and current.leaves:
            pieces.append(current)
            current = _Line(line.depth, line.inside)
        if depth == 0 and current.leaves and current.leaves[-1].kind == "comment":
            pieces.append(current)
            current = _Line(line.depth, line.inside)
        current.leaves.append(leaf)
        if leaf.kind == "op" and leaf.value in _OPEN:
            depth += 1
        elif leaf.kind == "op" and leaf.value in _PAIRS and depth:
            depth -= 1
        if depth == 0 and leaf.kind == "op" and leaf.value in ("*", "**") and not _operand_end(
            line.leaves[position - 1] if position else None
        ):
            trailing_comma_safe = False  # unpacking: a trailing comma needs a newer Python
        if line.leaves[-1].kind == "comment" and position == last_code:
            _add_trailing_comma(current, trailing_comma_safe and top == _COMMA)
        previous_priority = delimiters.get(position - 1) if position else None
        if previous_priority != top or migrate:
            _carry_comments(current, line, leaf)
        if delimiters.get(position) == top:
            if position + 1 < len(line.leaves) and not migrate:
                _carry_comments(current, line, line.leaves[position + 1])
            pieces.append(current)
            current = _Line(line.depth, line.inside)
    if current.leaves:
        _add_trailing_comma(current, trailing_comma_safe and top == _COMMA)
        pieces.append(current)
    for piece in pieces:
        if piece.leaves:
            piece.leaves[0].prefix = ""
    return pieces


def _add_trailing_comma(line: _Line, wanted: bool) -> None:
    if wanted and line.leaves and line.leaves[-1].value != "," and line.leaves[-1].kind != "comment":
        line.leaves.append(_Leaf(",", "op"))


def _carry_comments(target: _Line, source: _Line, leaf: _Leaf) -> None:
    comments = source.comments.get(id(leaf))
    if comments:
        target.comments.setdefault(id(leaf), []).extend(comments)


def _comment_split(line: _Line, column: int, style: Style) -> list[_Line]:
    if not line.has_own_line_comment():
        raise _CannotSplit
    pieces: list[_Line] = []
    current = _Line(line.depth, line.inside)
    depth = 0
    for leaf in line.leaves:
        if depth == 0 and current.leaves and (leaf.kind == "comment" or current.leaves[-1].kind == "comment"):
            pieces.append(current)
            current = _Line(line.depth, line.inside)
        current.add(leaf, line)
        if leaf.kind == "op" and leaf.value in _OPEN:
            depth += 1
        elif leaf.kind == "op" and leaf.value in _PAIRS and depth:
            depth -= 1
    pieces.append(current)
    for piece in pieces:
        piece.leaves[0].prefix = ""
    return pieces


def _right_hand_split(line: _Line, column: int, style: Style) -> list[_Line]:
    """Split at the last pair of brackets, or, where the head would not fit, at an earlier
    pair, keeping the trailers after it (`.float()`, `[0]`) on the closing line."""
    first: list[_Line] | None = None
    starts = _start_columns(line, column)
    for omit in _trailers_to_omit(line, column, style):
        if omit:
            target = next((leaf for leaf in reversed(line.leaves) if leaf.value in _PAIRS and id(leaf) not in omit), None)
            if target is not None and target.opening is not None and not target.opening.invisible and starts.get(id(target.opening), 0) > style.line_length:
                continue
        pieces = _bracket_split(line, omit)
        if first is None and not omit:
            first = pieces
        if _fits(pieces[0], column, style):
            return pieces
    return first if first is not None else _bracket_split(line, set())


def _start_columns(line: _Line, column: int) -> dict[int, int]:
    starts: dict[int, int] = {}
    width = column + len(INDENT) * line.depth
    for leaf in line.leaves:
        starts[id(leaf)] = width
        width += len(leaf.prefix) + len(leaf.shown())
    return starts


def _trailers_to_omit(line: _Line, column: int, style: Style):
    omit: set[int] = set()
    if not line.magic_trailing_comma():
        yield omit
    length = column + len(INDENT) * line.depth
    opening: _Leaf | None = None
    closing: _Leaf | None = None
    inner: set[int] = set()
    for position in range(len(line.leaves) - 1, -1, -1):
        leaf = line.leaves[position]
        comments = line.comments.get(id(leaf), [])
        length += len(leaf.prefix) + len(leaf.shown()) + sum(2 + len(c) for c in comments)
        if length > style.line_length:
            break
        if leaf.kind == "comment" or comments:
            break
        previous = line.leaves[position - 1] if position else None
        if opening is not None:
            if leaf is opening:
                opening = None
            elif leaf.value in _PAIRS and leaf.kind == "op":
                if previous is not None and previous.value == "," and leaf.magic:
                    break  # never glue brackets that a trailing comma explodes
                inner.add(id(leaf))
        elif leaf.value in _PAIRS and leaf.kind == "op":
            if previous is not None and previous.value in _OPEN and previous.kind == "op":
                inner.add(id(leaf))  # empty brackets cannot be split
                continue
            if closing is not None:
                omit.add(id(closing))
                omit.update(inner)
                inner.clear()
                yield set(omit)
            if previous is not None and previous.value == "," and leaf.magic:
                break
            if not leaf.invisible:
                opening, closing = leaf.opening, leaf


def _bracket_split(line: _Line, omit: set[int]) -> list[_Line]:
    tail: list[_Leaf] = []
    body: list[_Leaf] = []
    head: list[_Leaf] = []
    current = tail
    opening: _Leaf | None = None
    for leaf in reversed(line.leaves):
        if current is body and leaf is opening:
            current = head if body else tail
        current.append(leaf)
        if current is tail and leaf.kind == "op" and leaf.value in _PAIRS and id(leaf) not in omit and leaf.opening is not None:
            opening = leaf.opening
            current = body
    if opening is None or not head:
        raise _CannotSplit
    if opening.invisible:
        # Brackets the formatter added around a conditional expression: they show
        # where the split is made (`if` and `else` are two delimiters, so they stay).
        opening.invisible = False
        closer = next(leaf for leaf in tail if leaf.opening is opening)
        closer.invisible = False
    head.reverse()
    body.reverse()
    tail.reverse()
    head_line = _Line(line.depth, tracked="matched")
    body_line = _Line(line.depth + 1, inside=True)
    tail_line = _Line(line.depth, tracked="none")
    for leaves, target in ((head, head_line), (body, body_line), (tail, tail_line)):
        for leaf in leaves:
            target.add(leaf, line)
    if not body:
        tail_width = len(tail_line.text().strip())
        if tail_width < 3:
            raise _CannotSplit  # nothing gained
    body_line.should_split = _explodes(body_line, opening)
    if body_line.leaves:
        body_line.leaves[0].prefix = ""
    if tail_line.leaves:
        tail_line.leaves[0].prefix = ""
    return [piece for piece in (head_line, body_line, tail_line) if piece.leaves]


def _explodes(body: _Line, opening: _Leaf) -> bool:
    """Whether a bracket's body goes one element per line at once: a collection (not the
    arguments of a call) with commas, or a body that ends with a magic trailing comma."""
    if not body.leaves or opening.value not in _OPEN:
        return False
    delimiters = body.delimiters()
    trailing = body.leaves[-1].value == ","
    last = len(body.leaves) - 1
    priorities = [p for i, p in delimiters.items() if not (trailing and i == last)]
    if not priorities or max(priorities) != _COMMA:
        return False
    return trailing or not opening.trailer
