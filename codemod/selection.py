"""Which rule codes a run reports: `--select` / `--ignore` and `# codemod: ignore[...]`.

A selector is a rule code (`BUF101`) or a prefix of one (`BUF1`, `BUF`).  The most
specific selector that matches a code decides (`--select BUF1 --ignore BUF101` keeps
every rewrite rule but BUF101); on a tie, ignore wins.  Without `--select`, every code
is selected.

Leaving a code out never turns a decision into another one: an unselected rewrite
(BUF1xx) is neither written nor reported, an unselected skip or report (BUF2xx, BUF3xx)
is only not reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


def known_codes() -> tuple[str, ...]:
    from codemod.rules.registry import REGISTRY  # the rule modules, imported when a selector is checked

    return tuple(REGISTRY)


class UnknownCode(ValueError):
    """A selector that is no rule code nor a prefix of one."""


def parse_selectors(values: Iterable[str]) -> tuple[str, ...]:
    """Selectors from command-line or configuration values; "BUF1,BUF2" splits on commas.

    Raises UnknownCode naming the first selector that matches no rule.
    """
    codes = known_codes()
    selectors: list[str] = []
    for value in values:
        for part in value.split(","):
            selector = part.strip().upper()
            if not selector:
                continue
            if not any(code.startswith(selector) for code in codes) or len(selector) < 3:
                raise UnknownCode(f"unknown rule code {part.strip()!r} (codes are {codes[0]}..{codes[-1]}; see README, Rules and codes)")
            if selector not in selectors:
                selectors.append(selector)
    return tuple(selectors)


def _best(code: str, selectors: Iterable[str]) -> int:
    """Length of the longest selector that is a prefix of `code` (-1 when none is)."""
    return max((len(s) for s in selectors if code.startswith(s)), default=-1)


@dataclass(frozen=True)
class RuleSelection:
    select: tuple[str, ...] | None = None  # None: every code
    ignore: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        if not code:
            return True  # a finding without a code is never filtered out
        ignored = _best(code, self.ignore)
        if self.select is None:
            return ignored < 0
        selected = _best(code, self.select)
        return selected > ignored

    @property
    def is_default(self) -> bool:
        return self.select is None and not self.ignore

    def fingerprint(self) -> str:
        """Part of the result cache's key: another selection gives other results."""
        if self.is_default:
            return ""
        select = "ALL" if self.select is None else ",".join(sorted(self.select))
        return f"|select={select}|ignore={','.join(sorted(self.ignore))}"


# -- suppression comments -------------------------------------------------------------------

# `# codemod: ignore` or `# codemod: ignore[BUF101, BUF2]`, anywhere in a comment.
_MARKER = re.compile(r"#.*?codemod:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")
ALL = None  # what a bare marker suppresses


def marker_codes(line: str) -> tuple[bool, tuple[str, ...] | None]:
    """(found, codes) for one source line: codes is None (ALL) for a bare marker."""
    if "codemod:" not in line:
        return False, ()
    match = _MARKER.search(line)
    if match is None:
        return False, ()
    codes = match.group("codes")
    if codes is None:
        return True, ALL
    return True, tuple(c.strip().upper() for c in codes.split(",") if c.strip())


def check_markers(text: str) -> str | None:
    """A one-line error for the first `# codemod: ignore[...]` naming an unknown code."""
    if "codemod:" not in text:
        return None
    for number, line in enumerate(text.splitlines(), 1):
        found, codes = marker_codes(line)
        if not found or codes is ALL:
            continue
        if not codes:
            return f"line {number}: '# codemod: ignore[]' names no rule code (write the codes, or a bare '# codemod: ignore')"
        try:
            parse_selectors(codes)
        except UnknownCode as exc:
            return f"line {number}: {exc} in '# codemod: ignore[...]'"
    return None


def suppressed(lines: list[str], first: int, last: int | None = None) -> tuple[bool, frozenset[str] | None]:
    """What markers suppress for the statement on lines first..last (1-based).

    A marker counts on any line of the statement, or alone on the line just above it (a
    comment line).  Returns (any marker, codes): codes is None when a bare marker
    suppresses everything.
    """
    found_any = False
    codes: set[str] = set()
    numbers = list(range(first, (last or first) + 1))
    if first > 1 and lines[first - 2].lstrip().startswith("#"):
        numbers.insert(0, first - 1)
    for number in numbers:
        if not 0 < number <= len(lines):
            continue
        found, line_codes = marker_codes(lines[number - 1])
        if not found:
            continue
        found_any = True
        if line_codes is ALL:
            return True, None
        codes.update(line_codes)
    return found_any, frozenset(codes)


def covers(codes: frozenset[str] | None, code: str) -> bool:
    """Whether suppressed codes (None: all) cover a finding's code (prefixes count)."""
    return codes is None or any(code.startswith(c) for c in codes)
