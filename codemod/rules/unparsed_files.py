"""Raw tensor attributes in a file that does not parse (Python 2 code) are reported, by line.

A file with a syntax error is left alone: nothing can be rewritten in it.  Old research code
is often Python 2 (`print x`, `except E, e`, tabs mixed with spaces), and its modules hold the
same raw tensors as any other.  So such a file is analysed as any other in a tolerant reading
(codemod/tolerant.py: the statements Python 3 cannot read set aside, tabs expanded), and what
the analysis finds there is reported, with the syntax error, never rewritten: a line set aside
may read the attribute.  Where no reading parses, or a binding sits on a line set aside, the
text is read line by line (`scan` below) for what plainly builds a tensor on `self` inside a
class deriving from `nn.Module` (`self.h = Variable(torch.zeros(1, n))`, `self.w =
torch.ones(n)`, `self.h = Variable(None)`).  Nothing here is proven: the report says so, and
what to do (port the file, then run again).

Torch fact (torch 2.13): a tensor in a plain attribute is neither moved by `.to()` nor saved
in `state_dict()`.
"""

from __future__ import annotations

import re

from codemod.rules.base import Rule

RULE = Rule(
    "BUF314",
    "unparsed-file",
    "in a file that does not parse (Python 2 code, a syntax error): what the analysis finds in the file read with "
    "the statements Python 3 cannot read set aside, or a line inside an nn.Module class that plainly binds a tensor "
    "to self; nothing is rewritten, and the file is reported with its syntax error",
    fact="A tensor in a plain attribute is not moved by .to() nor saved in state_dict().",
    before="class VidLoc(nn.Module):\n    def __init__(self, n):\n        super(VidLoc, self).__init__()\n"
    "        self.h = Variable(torch.zeros(1, n))\n        print 'built'",
)
RULES = (RULE,)

# `class VidLoc(nn.Module):`, `class Net(torch.nn.Module, Mixin):`, `class Net(Module):`
_CLASS = re.compile(r"^([ \t]*)class[ \t]+(\w+)[ \t]*\(([^)]*)\)[ \t]*:")
_MODULE_BASE = re.compile(r"(?:^|[\s,(])(?:torch\.)?(?:nn\.)?Module\s*(?:,|$)")
# `self.h = Variable(torch.zeros(...))`, `self.w = torch.ones(n).cuda()`, `self.m = torch.from_numpy(a)`
# `self.h = Variable(None)`: the old autograd wrapper holds a tensor (or is a slot for one).
_BINDS_TENSOR = re.compile(
    r"^([ \t]+)self\.(\w+)[ \t]*=[ \t]*(?:(?:autograd\.)?(Variable)\(|torch\.(?:cuda\.)?"
    r"(zeros|ones|randn|rand|randint|arange|eye|empty|full|linspace|tensor|from_numpy|Tensor|FloatTensor|"
    r"LongTensor|ByteTensor|DoubleTensor|IntTensor|BoolTensor|zeros_like|ones_like|tril|triu)\()"
)


# `self.scale = (self.high - self.low) / 2.0`: any other binding on self, whose value is read
# from an attribute found above unless it is made a number, a size or a list.
_BINDS_VALUE = re.compile(r"^([ \t]+)self\.(\w+)[ \t]*=(?!=)[ \t]*(.+)$")
_SELF_READ = re.compile(r"\bself\.(\w+)\b(?![ \t]*\()")
# what is no tensor, or may not be: a number, a size, a list or dict, a call of anything but
# torch (a function or method may return anything)
_NOT_A_TENSOR = re.compile(r"^(?:[\[{]|(?!torch\.)[\w.]+[ \t]*\()|\.(?:item|tolist|numpy|size|dim|numel)\("
                           r"|\.shape\b|\bfor\b|\blambda\b")


def scan(text: str) -> list[tuple[int, int, str, str, str]]:
    """(line, column, class, attribute, what builds it) for each plain tensor binding on self
    inside a class that names nn.Module among its bases, the first binding of each: a call
    that builds a tensor (`torch.zeros(...)`), or arithmetic on a tensor found so far in the
    same class (`a value computed from self.high`)."""
    found: list[tuple[int, int, str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    stack: list[tuple[int, str | None]] = []  # (indent of a class line, its name if a module)
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        while stack and indent <= stack[-1][0]:
            stack.pop()
        header = _CLASS.match(line)
        if header:
            bases = header.group(3)
            stack.append((indent, header.group(2) if _MODULE_BASE.search(bases) else None))
            continue
        if not stack or stack[-1][1] is None:
            continue
        owner = stack[-1][1]
        binding = _BINDS_TENSOR.match(line)
        if binding:
            key = (owner, binding.group(2))
            if key not in seen:
                seen.add(key)
                call = binding.group(3) or f"torch.{binding.group(4)}"
                found.append((number, len(binding.group(1)) + 1, owner, binding.group(2), f"{call}(...)"))
            continue
        derived = _BINDS_VALUE.match(line)
        if derived and (owner, derived.group(2)) not in seen and not _NOT_A_TENSOR.search(derived.group(3)):
            tensors = {attr for cls, attr in seen if cls == owner}
            read = next((m.group(1) for m in _SELF_READ.finditer(derived.group(3)) if m.group(1) in tensors), None)
            if read is not None and read != derived.group(2):
                seen.add((owner, derived.group(2)))
                found.append((number, len(derived.group(1)) + 1, owner, derived.group(2),
                              f"a value computed from self.{read}"))
    return found
