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

import bisect
import functools
import re
from dataclasses import dataclass

_TOP_LEVEL = re.compile(r"^[^\s#)\]}]", re.MULTILINE)
_TRIPLE_QUOTE = re.compile(r'"""|\'\'\'')
_HEAD = re.compile(r"(?:async[ \t]+)?(class|def)[ \t]+(\w+)|(import|from)\b")
_DEF_LINE = re.compile(r"^([ \t]+)(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.MULTILINE)


@dataclass
class Segment:
    start: int  # 1-based first line (decorators included)
    end: int  # 1-based last line, inclusive
    kind: str  # class | def | import | other
    name: str | None
    text: str


def split(text: str) -> list[Segment] | None:
    """The top-level statements of `text`, or None when the cut would be a guess."""
    quotes = [m.start() for m in _TRIPLE_QUOTE.finditer(text)]
    if len(quotes) % 2:
        return None
    starts: list[int] = []
    for match in _TOP_LEVEL.finditer(text):
        offset = match.start()
        if bisect.bisect_left(quotes, offset) % 2:
            continue  # inside a triple-quoted string
        starts.append(offset)
    if not starts:
        return []
    # A decorator line begins the statement it decorates.
    merged: list[int] = []
    previous_is_decorator = False
    for offset in starts:
        if not previous_is_decorator:
            merged.append(offset)
        previous_is_decorator = text.startswith("@", offset)
    segments: list[Segment] = []
    line = 1 + text.count("\n", 0, merged[0])
    for i, offset in enumerate(merged):
        stop = merged[i + 1] if i + 1 < len(merged) else len(text)
        chunk = text[offset:stop]
        lines_in_chunk = chunk.count("\n")
        body = chunk
        while body.startswith("@"):
            body = body[body.find("\n") + 1 :] if "\n" in body else ""
        head = _HEAD.match(body)
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
    """Names whose mention lets code produce a tensor.

    `names` count wherever they appear (`torch`, `F`, `Tensor`, local tensor helpers);
    `calls` only when called or dereferenced (`make_mask(`, `utils.make_mask(`): names
    imported from the repository, which also appear as annotations and base classes.
    """

    names: frozenset[str]
    calls: frozenset[str]


def may_hold_finding(segment: Segment, hints: Hints) -> bool:
    """Could a class (or any class inside this statement) produce a finding?

    Findings come from constructors and from methods that bind attributes of self; both
    must mention something that can produce a tensor.  Forward code that only reads
    attributes cannot, and is what this check lets the analysis skip.
    """
    text = segment.text
    quotes = [m.start() for m in _TRIPLE_QUOTE.finditer(text)]
    defs = [(m.start(), len(m.group(1)), m.group(2), m.end()) for m in _DEF_LINE.finditer(text)]
    checked: set[int] = set()
    for start, indent, name, head_end in defs:
        if name == "__init__":
            checked.add(start)
            if mentions(_without_registrations(text[start : _block_end(text, head_end, indent, quotes)]), hints):
                return True
    # Other methods matter only where they bind an attribute of self.
    starts = [d[0] for d in defs]
    for match in _BINDS_SELF.finditer(text):
        depth = len(match.group(1))
        i = bisect.bisect_right(starts, match.start()) - 1
        while i >= 0 and defs[i][1] >= depth:
            i -= 1  # the def that encloses this line is indented less than it
        if i < 0 or defs[i][0] in checked:
            continue
        start, indent, _, head_end = defs[i]
        checked.add(start)
        if mentions(text[start : _block_end(text, head_end, indent, quotes)], hints):
            return True
    return False


# A call of a method of self: a helper that may build a tensor (`self.mask = ~self._causal(n)`).
_SELF_HELPER = re.compile(r"\bself\.\w+\s*\(")
_BINDS_SELF = re.compile(r"^([ \t]+)(?:self\.\w+[ \t]*(?::[^=\n]*)?=(?!=)|setattr\(\s*self\b)", re.MULTILINE)


_REGISTRATION = re.compile(r"\b(?:Parameter|register_buffer)\(")


def _without_registrations(block: str) -> str:
    """The block with the arguments of `nn.Parameter(...)` and `self.register_buffer(...)`
    blanked out: a tensor made there is registered already, whatever torch call makes it.

    Kept: a registration followed by a method call (`nn.Parameter(t).to(device)` is not a
    parameter), one whose arguments mention requires_grad (a buffer meant to be trained), or
    bind a name (`:=`), or whose parentheses cannot be matched simply.
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
        after = block[end + 1 : end + 2]
        if after == "." or "requires_grad" in inner or ":=" in inner:
            continue
        pieces.append(block[position : match.end()])
        pieces.append(" " * len(inner))
        position = end
    pieces.append(block[position:])
    return "".join(pieces)


def _closing_paren(text: str, start: int) -> int | None:
    """Index of the parenthesis closing the one just before `start`; None if strings or
    comments inside make that uncertain."""
    depth = 1
    for i in range(start, min(len(text), start + 2000)):
        char = text[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return i
        elif char in "\"'#":
            return None
    return None


def mentions(text: str, hints: Hints) -> bool:
    for match in _SELF_HELPER.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text[line_start : match.start()].strip():
            return True  # a value built by a method of self, not a bare `self.post_init()`
    # A substring test first (fast, in C); the word-boundary check only for the names found.
    if any(name in text and _word(name).search(text) for name in hints.names):
        return True
    return bool(hints.calls) and not hints.calls.isdisjoint(_CALLED.findall(text))


@functools.lru_cache(maxsize=4096)
def _word(name: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(name) + r"\b")


_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*[(.]")


def _block_end(text: str, position: int, indent: int, quotes: list[int]) -> int:
    """Offset where the block of a `def` at `indent` ends (the next line indented no deeper)."""
    length = len(text)
    position = text.find("\n", position)
    while 0 <= position < length:
        line_start = position + 1
        line_end = text.find("\n", line_start)
        if line_end < 0:
            line_end = length
        line = text[line_start:line_end]
        stripped = line.lstrip(" \t")
        if stripped and not stripped.startswith(("#", ")", "]", "}")):
            depth = len(line) - len(stripped)
            if depth <= indent and bisect.bisect_left(quotes, line_start) % 2 == 0:
                return line_start
        position = line_end if line_end < length else -1
    return length




_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.MULTILINE)
_PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)


def import_bindings(text: str) -> list[tuple[str, str, int, str]] | None:
    """(local name, module, level, imported name) for every import line, wherever it is.

    Read from the text, without parsing: a superset of what the module binds (imports
    inside functions count too).  The imported name is "*" for a star import.  None when
    a line continues with a backslash, which the expression cannot follow.
    """
    bindings: list[tuple[str, str, int, str]] = []
    for match in _FROM_IMPORT.finditer(text):
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
    for match in _PLAIN_IMPORT.finditer(text):
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
