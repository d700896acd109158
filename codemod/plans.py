"""What the analysis decides for a file: findings and position-keyed edits, which
`rewrite.py` applies.  Plain data; a cached result holds one for each changed file."""

from __future__ import annotations

from dataclasses import dataclass, field

from codemod.ftypes import Finding


@dataclass(frozen=True)
class SpineEdit:
    """A change to the call chain of a value, counted from the outermost node.

    The chain steps through Call.func, Attribute.value and Subscript.value, which
    have the same shape in `ast` and libcst, so the index addresses the same node.
    """

    index: int
    op: str  # drop (x.to(dev) -> x) | keep_args | drop_kwarg | unwrap (Variable(x, ...) -> x) | sink (P(x).to(d) -> P(x.to(d)))
    args: tuple[int, ...] = ()  # keep_args: the positional arguments kept
    kwarg: str = ""  # drop_kwarg: the keyword removed
    keywords: tuple[str, ...] = ()  # keep_args: the keywords kept


@dataclass
class StmtEdit:
    line: int  # 1-based line of the statement
    col: int  # 0-based column, in characters
    op: str  # buffer | parameter | buffer_to_parameter | unmove | localise | unpack
    attr: str
    persistent: bool | None = None
    spine: tuple[SpineEdit, ...] = ()
    move_after: tuple[int, int] | None = None  # the super().__init__() statement to move after
    end: tuple[int, int] = (0, 0)  # line and column (characters) where the statement ends
    local: str = ""  # read `<owner>.<attr>` as this local name (op localise; buffer: in the value)
    owner: str = "self"
    # unpack: `self.a, self.b = v` -> `a, self.b = v` then `self.register_buffer("a", a)`; the
    # local that takes the attribute's place (every unpack edit of a statement is applied at once)
    target_local: str = ""


@dataclass
class ClassPlan:
    name: str
    line: int
    findings: list[Finding] = field(default_factory=list)
    edits: list[StmtEdit] = field(default_factory=list)
    annotations: list[tuple[str, str]] = field(default_factory=list)  # (attr, annotation) to declare on the class
    # First line (decorators included) of each statement of the class body: lets the
    # rewrite hand libcst only the methods that change.
    body_starts: tuple[int, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.edits)


@dataclass
class FilePlan:
    classes: list[ClassPlan] = field(default_factory=list)
    parameter_spelling: str = "nn.Parameter"
    add_nn_import: bool = False

    @property
    def findings(self) -> list[Finding]:
        return [f for c in self.classes for f in c.findings]

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.classes)
