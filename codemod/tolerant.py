"""A Python 3 reading of a file that does not parse, for reports only.

Old research code is often Python 2: `print x`, `except E, e:`, tabs mixed with spaces.  Such
a file cannot be rewritten, but the statements Python 3 cannot read are usually few and bind
nothing (a print, a raise), while the constructors around them hold the same raw tensors as
any other module.  So the file is read again with each statement the parser stops at set
aside: replaced by a neutral statement of the same indentation (`pass`, or a header that
keeps its block), line for line, so that every line keeps its number.  Leading tabs are
expanded as Python 2 expands them (to the next multiple of eight columns) before anything is
set aside.

What the analysis then finds in the reading is only reported, never written: a line set
aside may read or rebind an attribute.  `None` is the answer when the reading does not come
to parse within a bound number of steps.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

# Set aside at most this many statements: a file that needs more is not Python 2 with a few
# prints, and its reading would say little.  Each step parses the whole file again, so a
# large file gets fewer steps (about as many characters parsed in all as MAX_PARSED).
MAX_SET_ASIDE = 200
MAX_PARSED = 8_000_000

_HEADER_WORD = re.compile(r"(\w+)")
_DEF = re.compile(r"(async[ \t]+)?def[ \t]+(\w+)")
_CLASS = re.compile(r"class[ \t]+(\w+)")


@dataclass(frozen=True)
class Reading:
    text: str  # the file's text, with each statement Python 3 cannot read set aside
    set_aside: tuple[int, ...]  # the first line of each statement set aside (1-based)
    tabs_expanded: bool  # leading tabs were expanded to spaces (Python 2's eight columns)

    def describe(self) -> str:
        """`3 statements Python 3 cannot read (lines 12, 40, 41) set aside`"""
        parts = []
        if self.tabs_expanded:
            parts.append("leading tabs read as Python 2 reads them")
        if self.set_aside:
            lines = ", ".join(str(n) for n in self.set_aside[:5]) + (", ..." if len(self.set_aside) > 5 else "")
            count = len(self.set_aside)
            parts.append(f"{count} statement{'s' if count != 1 else ''} Python 3 cannot read set aside (line"
                         f"{'s' if count != 1 else ''} {lines})")
        return " and ".join(parts)


def python3_reading(text: str) -> Reading | None:
    """The file read as Python 3 with what does not parse set aside; None when it cannot be."""
    lines = text.splitlines(keepends=True)
    tabs_expanded = False
    set_aside: list[int] = []
    steps = max(8, min(MAX_SET_ASIDE, MAX_PARSED // (len(text) + 1)))
    while True:
        try:
            ast.parse("".join(lines))
        except SyntaxError as exc:
            if not tabs_expanded and any("\t" in _indentation(line) for line in lines):
                lines = [_expand_leading_tabs(line) for line in lines]
                tabs_expanded = True
                continue
            if len(set_aside) >= steps or exc.lineno is None or not 1 <= exc.lineno <= len(lines):
                return None
            first, last = _statement_around(lines, exc.lineno)
            neutral = _neutral_statement(lines[first - 1 : last])
            replaced = [neutral] + ["\n"] * (last - first)
            if replaced == lines[first - 1 : last]:
                return None  # setting it aside changes nothing: the error is elsewhere
            lines[first - 1 : last] = replaced
            set_aside.append(first)
        except (ValueError, RecursionError, MemoryError):
            return None
        else:
            if not set_aside and not tabs_expanded:
                return None  # it parses as it is: nothing to read tolerantly
            return Reading("".join(lines), tuple(sorted(set_aside)), tabs_expanded)


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _expand_leading_tabs(line: str) -> str:
    indentation = _indentation(line)
    return indentation.expandtabs(8) + line[len(indentation) :]


def _statement_around(lines: list[str], number: int) -> tuple[int, int]:
    """The first and last line of the logical line (a statement, or a block's header) that
    holds line `number`; that line alone where the tokenizer cannot tell."""
    start: int | None = None
    readline = io.StringIO("".join(lines)).readline
    try:
        for token in tokenize.generate_tokens(readline):
            kind, (row, _), (end_row, _) = token.type, token.start, token.end
            if kind in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
                continue
            if start is None:
                start = row
            if kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if start <= number <= end_row:
                    return start, max(start, min(end_row, len(lines)))
                if start > number:
                    break
                start = None
    except (tokenize.TokenError, SyntaxError):
        pass
    return number, number


def _neutral_statement(statement: list[str]) -> str:
    """What stands in for a statement set aside: `pass` at its indentation, or, for a block's
    header, a header of the same kind (a clause keeps its try, a def its name)."""
    first = statement[0]
    indentation = _indentation(first)
    code = "".join(statement).strip()
    if not _is_header(code):
        return f"{indentation}pass\n"
    head = code[len(indentation.strip()) :]
    word = _HEADER_WORD.match(head)
    keyword = word.group(1) if word else ""
    if keyword in ("except", "finally", "else"):
        return f"{indentation}{'except Exception' if keyword == 'except' else keyword}:\n"
    if keyword == "elif":
        return f"{indentation}elif True:\n"
    defined = _DEF.match(head)
    if defined:
        return f"{indentation}{defined.group(1) or ''}def {defined.group(2)}(*args, **kwargs):\n"
    named = _CLASS.match(head)
    if named:
        return f"{indentation}class {named.group(1)}:\n"
    return f"{indentation}if True:\n"


def _is_header(code: str) -> bool:
    """The statement opens a block: its last token (comments aside) is a colon."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(code + "\n").readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER,
                                    tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return code.rstrip().endswith(":")
    return bool(tokens) and tokens[-1].string == ":"
