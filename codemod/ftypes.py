"""Plain data types that flow between the stages of a run.

discover -> analyse -> plan -> rewrite -> validate -> report.  Every stage
takes and returns these; nothing here imports torch or libcst.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from codemod.selection import RuleSelection
from codemod.wrap import Style

if TYPE_CHECKING:
    from codemod.plans import FilePlan

PersistentPolicy = Literal["never", "state"]
OutputFormat = Literal["text", "json", "json-lines", "github", "sarif"]


class RewriteError(Exception):
    """A planned rewrite could not be applied; the file is left alone."""


class Action(str, enum.Enum):
    """What the codemod does with one attribute."""

    BUFFER = "buffer"
    PARAMETER = "parameter"
    SKIP = "skip"

    def __str__(self) -> str:
        return self.value


class Verdict(str, enum.Enum):
    """Outcome of validating one rewrite (and, the worst of its rewrites', one class)."""

    PASSED = "passed"  # the statement ran, its tensor was compared, and a forward (float32 and each cast)
    CHECKED_WITHOUT_FORWARD = "checked without forward"  # everything agrees, but no forward ran
    CHANGES_CHECKPOINT = "changes the checkpoint format"  # the only difference: new state_dict keys
    FAILED = "failed"
    NOT_VALIDATED = "not validated"
    ERROR = "error"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return self.value


@dataclass
class Validation:
    """What running the original and the rewritten class proved."""

    verdict: Verdict
    device: str | None = None
    compared: list[str] = field(default_factory=list)  # "attributes", "state_dict", "forward", ...
    max_abs_diff: float | None = None
    message: str = ""  # why it failed / could not be validated
    original_failure: str | None = None  # the original's error on the target device
    left_behind: list[str] = field(default_factory=list)  # raw tensors the original leaves behind
    checkpoint_compatible: bool | None = None  # old state_dict loads with strict=True
    missing_keys: list[str] = field(default_factory=list)
    parameter_order_changed: bool = False
    snippet: str | None = None  # what to add to the examples file
    details: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # "check: what went wrong", when failed
    # compatibility notes: not failures, but what a user of the rewritten class must know
    notes: list[str] = field(default_factory=list)
    # attribute -> {"verdict": Verdict value, "checks": [...], "message": str, "forward": "compared" |
    # "not used" | None, "builds": [numbers of the builds where it held a tensor]}: each rewrite's own verdict
    rewrites: dict[str, dict[str, Any]] = field(default_factory=dict)
    builds: list[str] = field(default_factory=list)  # how each build of the class was made, the first first
    forward_compared: bool = False  # some build compared a forward of both models
    branches: list[int] = field(default_factory=list)  # [rewritten statements that ran in some build, all of them]

    def verdict_for(self, attribute: str) -> Verdict:
        """The verdict of one rewritten attribute (the class's when it was never judged apart)."""
        own = self.rewrites.get(attribute)
        return Verdict(own["verdict"]) if own else self.verdict

    def checks_for(self, attribute: str) -> list[str]:
        own = self.rewrites.get(attribute)
        return list(own["checks"]) if own else list(self.compared)

    def message_for(self, attribute: str) -> str:
        own = self.rewrites.get(attribute)
        return own["message"] if own else self.message

    def forward_for(self, attribute: str) -> str | None:
        """"compared", "not used" (no forward of the class reads it) or None."""
        own = self.rewrites.get(attribute)
        return own.get("forward") if own else None

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "device": self.device,
            "compared": list(self.compared),
            "max_abs_diff": self.max_abs_diff,
            "message": self.message,
            "original_failure": self.original_failure,
            "left_behind": list(self.left_behind),
            "checkpoint_compatible": self.checkpoint_compatible,
            "missing_keys": list(self.missing_keys),
            "parameter_order_changed": self.parameter_order_changed,
            "snippet": self.snippet,
            "details": list(self.details),
            "failures": list(self.failures),
            "notes": list(self.notes),
            "rewrites": {attr: dict(v) for attr, v in self.rewrites.items()},
            "builds": list(self.builds),
            "forward_compared": self.forward_compared,
            "branches": list(self.branches),
        }


@dataclass
class Finding:
    """One attribute of one class: rewritten, or skipped with a reason."""

    path: str  # display path (relative to the working directory when possible)
    line: int  # 1-based
    column: int  # 1-based, in characters
    class_name: str
    attribute: str
    action: Action
    persistent: bool | None  # only meaningful for buffers
    reason: str
    suggestion: str | None = None
    validation: Validation | None = None
    code: str = ""  # stable rule code of the rule that decided this finding
    # The rewrite is safe without running the model: a non-persistent buffer of an integer
    # or bool tensor (no checkpoint key; no float cast can change it), set by the analysis.
    statically_safe: bool = False
    held_back: str = ""  # why a rewrite is not written (codemod.write_policy); "" when it is

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "class": self.class_name,
            "attribute": self.attribute,
            "action": self.action.value,
            "persistent": self.persistent,
            "reason": self.reason,
            "suggestion": self.suggestion,
            "code": self.code,
            "statically_safe": self.statically_safe,
        }
        if self.action is not Action.SKIP:
            # Whether it is written (or would be, in a run that writes nothing) depends on the
            # run: report.py adds "written" or "would_be_written".
            record["held_back"] = self.held_back or None
        if self.validation is not None:
            record["verdict"] = self.validation.verdict_for(self.attribute).value
            record["checks"] = self.validation.checks_for(self.attribute)
            record["verdict_message"] = self.validation.message_for(self.attribute)
            record["forward"] = self.validation.forward_for(self.attribute)
            record["validation"] = self.validation.to_json()
        return record


@dataclass
class TransformResult:
    """Result of transforming one source text."""

    code: str  # rewritten text (equal to the input when nothing changed)
    findings: list[Finding]

    @property
    def changed(self) -> bool:
        return any(f.action is not Action.SKIP for f in self.findings)


@dataclass
class ClassRewrite:
    """The rewrites of one class, the unit that validation proves or rejects."""

    path: Path  # absolute path of the source file
    module: str  # dotted module name under the repository root ("pkg.models")
    class_name: str
    findings: list[Finding]  # the non-skip findings of this class
    # (attribute, first line, last line) of every statement the rewrite edits, in the
    # original text; validation checks that each ran.  Empty: the findings' own lines.
    statements: tuple[tuple[str, int, int], ...] = ()


@dataclass
class FileResult:
    """Everything a run learned about one file."""

    path: Path
    display_path: str
    findings: list[Finding] = field(default_factory=list)
    original: str | None = None  # decoded text, when read
    rewritten: str | None = None  # new text when there is a change to write
    error: str | None = None  # one-line error, file left alone
    classes: list[ClassRewrite] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.rewritten is not None and self.rewritten != self.original


def plural(count: int, noun: str) -> str:
    """`1 file`, `2 files`, `0 files`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


@dataclass
class Summary:
    files_scanned: int = 0
    files_changed: int = 0  # written, or in a run that writes nothing (--dry-run, --check), proposed
    files_proposed: int = 0  # rewrites the run proposes (after validation)
    files_written: int = 0  # files actually written
    writing: bool = False  # whether the run writes
    buffers: int = 0
    parameters: int = 0
    skipped: int = 0  # findings that are no rewrite (safety skips and reports)
    held_back: int = 0  # rewrites the write policy keeps out of the files (codemod.write_policy)
    held_back_hint: str = ""  # what writes them: "--unsafe-fixes writes them"
    errors: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)  # per class
    rewrite_verdicts: dict[str, int] = field(default_factory=dict)  # per rewrite, its own verdict
    rewrites_validated: int = 0  # rewrites (findings) that went through validation
    rewrites_proven: int = 0  # of those, the ones whose own verdict is passed
    rewrites_forward: int = 0  # of those, the ones passed with a forward compared (not "no forward reads it")

    def line(self, pending: bool = False) -> str:
        """One line for the end of a run; `pending` (--check, --dry-run) says what would change."""
        changed = "would change" if pending else "changed"
        text = (
            f"{plural(self.files_scanned, 'file')} scanned, {self.files_changed} {changed}, "
            f"{plural(self.buffers, 'buffer')}, {plural(self.parameters, 'parameter')}, {self.skipped} skipped"
        )
        if self.held_back:
            text += f", {self.held_back} held back" + (f" ({self.held_back_hint})" if self.held_back_hint else "")
        if self.writing and self.files_proposed > self.files_written:
            text += f", {self.files_proposed - self.files_written} not written"
        if self.errors:
            text += f", {plural(self.errors, 'error')}"
        if self.rewrites_validated:
            text += f"; {self.rewrites_proven} of {self.rewrites_validated} rewrites proven by running"
        if self.verdicts:
            classes = sum(self.verdicts.values())
            text += f"; validation of {classes} {'class' if classes == 1 else 'classes'}: " + ", ".join(
                f"{n} {v}" for v, n in sorted(self.verdicts.items()))
        return text


# -- what a run keeps of one file (cached between runs) ---------------------------------------


@dataclass
class AnalysisOptions:
    """Options that change what the static pass produces (and so are part of cache keys)."""

    persistent: PersistentPolicy = "never"
    selection: RuleSelection = field(default_factory=RuleSelection)  # --select / --ignore
    style: Style = Style()  # how rewritten statements are laid out

    def fingerprint(self) -> str:
        return f"persistent={self.persistent}" + self.selection.fingerprint() + f"|{self.style.fingerprint()}"


@dataclass
class FileAnalysis:
    """One file's plan and rewritten text, kept so that failed classes can be dropped later."""

    result: FileResult
    plan: FilePlan | None = None  # codemod.plans; kept for changed files only
    module: str = ""
