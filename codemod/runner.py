"""A whole run over files and directories: discover, analyse, validate, write.

The command line calls `run()`; so can anyone who wants the results as data.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codemod.api import AnalysisOptions, FileAnalysis, analyse_text, rewrite_without
from codemod.discovery import discover, display_path
from codemod.fileio import SourceError, SourceFile, read_source, write_source_atomic
from codemod.ftypes import Action, FileResult, PersistentPolicy, Summary, Validation, Verdict
from codemod.repo_index import RepoIndex
from codemod.rewrite import RewriteError


@dataclass
class RunOptions:
    persistent: PersistentPolicy = "auto"
    write: bool = True  # False for --dry-run and --check
    validate: bool = True
    require_validated: bool = False
    excludes: Sequence[str] = ()
    respect_gitignore: bool = True
    jobs: int | None = None
    use_cache: bool = True
    device: str = "auto"
    examples: Path | None = None
    timeout: float = 60.0
    root: Path | None = None
    prefilter: bool = True  # parse only what can hold a finding (see segments.py)

    def analysis_options(self) -> AnalysisOptions:
        return AnalysisOptions(persistent=self.persistent)


@dataclass
class RunReport:
    root: Path
    files: list[FileResult] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (display path, message) for paths never read
    summary: Summary = field(default_factory=Summary)

    @property
    def findings(self):
        return [f for r in self.files for f in r.findings]

    @property
    def changed_files(self) -> list[FileResult]:
        return [r for r in self.files if r.changed]

    @property
    def has_errors(self) -> bool:
        return bool(self.errors) or any(r.error for r in self.files)


Progress = Callable[[int, int], None]


def run(paths: Sequence[Path | str], options: RunOptions, progress: Progress | None = None) -> RunReport:
    # Syntax trees hold millions of objects but no reference cycles worth collecting;
    # the cyclic collector would rescan them all on every pass (3x slower runs).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(paths, options, progress)
    finally:
        if gc_was_enabled:
            gc.enable()


def _run(paths: Sequence[Path | str], options: RunOptions, progress: Progress | None) -> RunReport:
    cwd = Path.cwd()
    found = discover(paths, excludes=options.excludes, respect_gitignore=options.respect_gitignore, root=options.root)
    root = options.root or _common_root(found.files) or cwd
    report = RunReport(root=root, errors=list(found.errors))
    index = RepoIndex(found.files, root=root, lazy=options.prefilter)
    analyses: list[FileAnalysis] = []
    sources: dict[Path, SourceFile] = {}
    for number, path in enumerate(found.files, 1):
        shown = display_path(path, cwd)
        analysis = _analyse_path(index, path, shown, options, sources)
        analyses.append(analysis)
        if progress is not None:
            progress(number, len(found.files))
    if options.validate:
        _validate(root, analyses, options)
    _finalise(report, analyses, sources, options)
    return report


def _analyse_path(index: RepoIndex, path: Path, shown: str, options: RunOptions, sources: dict[Path, SourceFile]) -> FileAnalysis:
    try:
        source = read_source(path)
    except SourceError as exc:
        return FileAnalysis(FileResult(path=path, display_path=shown, error=str(exc)))
    sources[path] = source
    try:
        return analyse_text(index, path, source.text, shown, options.analysis_options())
    except SyntaxError as exc:
        message = f"syntax error: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError) as exc:
        message = f"cannot parse: {exc}"
    return FileAnalysis(FileResult(path=path, display_path=shown, original=source.text, error=message))


def _validate(root: Path, analyses: list[FileAnalysis], options: RunOptions) -> None:
    rewrites = [c for a in analyses for c in a.result.classes]
    if not rewrites:
        return
    from codemod.validate import ValidationOptions, validate_rewrites  # imports torch only in workers

    overlay = {a.result.path: a.result.rewritten for a in analyses if a.result.rewritten is not None}
    verdicts = validate_rewrites(
        root,
        rewrites,
        overlay,  # type: ignore[arg-type]
        ValidationOptions(device=options.device, jobs=options.jobs or 1, timeout=options.timeout, examples=options.examples),
    )
    for analysis in analyses:
        rejected: set[str] = set()
        for rewrite in analysis.result.classes:
            validation = verdicts.get((rewrite.path, rewrite.class_name)) or Validation(Verdict.NOT_VALIDATED, message="no verdict")
            for finding in analysis.result.findings:
                if finding.class_name == rewrite.class_name and finding.action is not Action.SKIP:
                    finding.validation = validation
            if validation.verdict is Verdict.FAILED or (
                options.require_validated and validation.verdict is not Verdict.PASSED
            ):
                rejected.add(rewrite.class_name)
        if rejected:
            try:
                analysis.result.rewritten = rewrite_without(analysis, rejected)
            except RewriteError as exc:
                analysis.result.rewritten = None
                analysis.result.error = str(exc)
            analysis.result.classes = [c for c in analysis.result.classes if c.class_name not in rejected]


def _finalise(report: RunReport, analyses: list[FileAnalysis], sources: dict[Path, SourceFile], options: RunOptions) -> None:
    summary = report.summary
    for analysis in analyses:
        result = analysis.result
        if result.changed and options.write:
            try:
                write_source_atomic(sources[result.path], result.rewritten)  # type: ignore[arg-type]
            except SourceError as exc:
                result.error = f"not written: {exc}"
        report.files.append(result)
        summary.files_scanned += 1
        summary.files_changed += int(result.changed and not (options.write and result.error))
        written_classes = {c.class_name for c in result.classes} if result.changed else set()
        for finding in result.findings:
            if finding.action is Action.SKIP:
                summary.skipped += 1
            elif finding.class_name not in written_classes:
                summary.skipped += 1  # rejected by validation
            elif finding.action is Action.BUFFER:
                summary.buffers += 1
            else:
                summary.parameters += 1
            if finding.validation is not None:
                verdict = finding.validation.verdict.value
                summary.verdicts[verdict] = summary.verdicts.get(verdict, 0) + 1
        summary.errors += int(result.error is not None)
    summary.errors += len(report.errors)


def _common_root(files: list[Path]) -> Path | None:
    if not files:
        return None
    from codemod.config import find_project_root

    try:
        return find_project_root([Path(os.path.commonpath([str(f.parent) for f in files]))])
    except ValueError:
        return None
