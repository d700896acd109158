"""How much one parse may cost, told from the text before parsing it.

A syntax tree costs memory in proportion to its tokens: Python's parser takes about
500 bytes per token, libcst about 1,500.  A 10 MB file holding one long list literal
would take 5 GB to parse with `ast`, and far more with libcst.  So every text is
counted before it is parsed, and refused when over the budget: the count is a few
passes over the bytes in C, and none at all for a text shorter than the budget
(a token is at least one character).
"""

from __future__ import annotations

# One `ast.parse`: about 0.5 GB and a few seconds at most; the largest file of
# transformers holds 48,000 tokens.
MAX_PARSE_TOKENS = 1_000_000
# One libcst parse (only the statements, methods or classes being rewritten).
MAX_LIBCST_TOKENS = 100_000

_WORD = bytes(range(ord("0"), ord("9") + 1)) + bytes(range(ord("A"), ord("Z") + 1)) + b"_"
_WORD += bytes(range(ord("a"), ord("z") + 1)) + bytes(range(0x80, 0x100))  # UTF-8 bytes of non-ASCII names
_SPACE = b" \t\n\r\x0b\x0c"
_WORD_OR_SPACE = _WORD + _SPACE
_MARK_WORDS = bytes.maketrans(bytes(range(256)), bytes(ord("a") if b in _WORD else ord(" ") for b in range(256)))


class TooLarge(SyntaxError):
    """A text over the budget for one parse; `msg` says how large, and what the limit is."""


def count_tokens(text: str) -> int:
    """Tokens of `text` as runs of word characters plus every other non-blank character:
    never fewer than Python's tokenizer finds (strings count by their words)."""
    data = text.encode("utf-8", "surrogatepass")
    marked = data.translate(_MARK_WORDS)
    words = marked.count(b" a") + (marked[:1] == b"a")
    return words + len(data.translate(None, _WORD_OR_SPACE))


def check_tokens(text: str, what: str, limit: int = MAX_PARSE_TOKENS, line: int | None = None, filename: str | None = None) -> None:
    """Raise TooLarge when `text` (described by `what`) holds more than `limit` tokens."""
    if len(text) <= limit:
        return
    tokens = count_tokens(text)
    if tokens > limit:
        where = f" (line {line})" if line is not None else ""
        message = f"{what}{where} holds about {tokens:,} tokens, over the {limit:,}-token limit for one parse"
        raise TooLarge(message, (filename, line or 1, 0, None))
