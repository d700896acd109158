"""A whole run over files and directories: discover, analyse, validate, write.

The command line calls `run()`; so can anyone who wants the results as data.
"""

from __future__ import annotations

import contextlib
import gc
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codemod.config import find_project_root, project_scope
from codemod.discovery import Discovery, discover, display_path, module_map
from codemod.cache import Entry, ResultCache, cache_base, file_digest, repository_digest
from codemod.fileio import SourceError, SourceFile, read_source, write_source_atomic
from codemod.write_policy import WritePolicy, held_back_hint, may_write
from codemod.ftypes import (
    Action,
    AnalysisOptions,
    FileAnalysis,
    FileResult,
    Finding,
    PersistentPolicy,
    RewriteError,
    Style,
    Summary,
    Validation,
    Verdict,
)
from codemod.selection import RuleSelection
from codemod.torch_version import too_old_torch

if TYPE_CHECKING:
    from codemod.repo_index import RepoIndex

# The analysis, the process pool and libcst are imported where they are first needed: a
# re-run whose every result comes from the cache needs none of them, and their imports
# would be most of its time.


@dataclass
class RunOptions:
    persistent: PersistentPolicy = "never"
    write: bool = True  # False for --dry-run and --check
    validate: bool = True
    require_validated: bool = False
    unsafe_fixes: bool = False  # also write failed, errored, timed-out and unproven rewrites
    allow_new_keys: bool = False  # write rewrites whose only difference is new state_dict keys
    excludes: Sequence[str] = ()
    respect_gitignore: bool = True
    jobs: int | None = None
    use_cache: bool = True
    device: str = "auto"
    examples: Path | None = None
    timeout: float = 60.0
    root: Path | None = None  # the project root; found from the paths when None
    # Index every file of the project, whatever paths are given: a single file is then
    # decided with its base classes, subclasses, helpers and call sites, as in a run over
    # the whole repository.  Only the given files are reported and rewritten.
    index_project: bool = True
    prefilter: bool = True  # parse only what can hold a finding (see segments.py)
    selection: RuleSelection = field(default_factory=RuleSelection)  # --select / --ignore
    cache_dir: Path | None = None  # default: $CODEMOD_CACHE_DIR, else the user's cache directory (cache.py)
    # Take path arguments that are or pass through symlinks, or resolve outside the root.
    follow_symlinks: bool = False
    style: Style = Style()  # how rewritten statements are laid out (see wrap.py)
    formatter: str | None = None  # "black" or "ruff": run over the changed files (see formatter.py)
    python: str | None = None  # interpreter for the validation workers (default: the project's venv)
    # called with (classes done, classes to validate) as validation proceeds
    validation_progress: Callable[[int, int], None] | None = None

    def analysis_options(self) -> AnalysisOptions:
        return AnalysisOptions(persistent=self.persistent, selection=self.selection, style=self.style)


@dataclass
class RunReport:
    root: Path
    files: list[FileResult] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (display path, message): paths never read, formatter failures
    summary: Summary = field(default_factory=Summary)
    hints: list[str] = field(default_factory=list)  # what would let validation prove more
    warnings: list[str] = field(default_factory=list)  # what the run saw happen that the user should check
    analyses: list[FileAnalysis] = field(default_factory=list)  # plans of the changed files (for editors)

    @property
    def findings(self):
        return [f for r in self.files for f in r.findings]

    @property
    def changed_files(self) -> list[FileResult]:
        return [r for r in self.files if r.changed]

    @property
    def has_errors(self) -> bool:
        return bool(self.errors) or any(r.error for r in self.files)

    @property
    def held_back(self) -> list:
        """Rewrites the write policy kept out of the files: still pending."""
        return [f for f in self.findings if f.held_back and f.action is not Action.SKIP]

    @property
    def pending(self) -> bool:
        """Whether a rewrite is left for the files: proposed (--check, --dry-run) or held back."""
        return bool(self.held_back) or (not self.summary.writing and bool(self.changed_files))


Progress = Callable[[int, int], None]


def files_to_analyse(paths: Sequence[Path | str], options: RunOptions, root: Path | None = None) -> Discovery:
    """The files a run over `paths` covers (and the paths that could not be read)."""
    root = root or options.root or (find_project_root([Path(p) for p in paths]) if paths else None)
    return discover(paths, excludes=options.excludes, respect_gitignore=options.respect_gitignore, root=root,
                    follow_symlinks=options.follow_symlinks)


def run_source(text: str, path: Path, shown: str, options: RunOptions) -> RunReport:
    """Analyse `text` as if it were the file `path` (source read from standard input).

    The rest of the project is read from disk as in any run; nothing is written, cached
    or validated (validation imports the project's files from disk, which do not hold
    this text).
    """
    from dataclasses import replace

    options = replace(options, write=False, validate=False, use_cache=False)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run([path], options, None, stdin=(Path(path), shown, text))
    finally:
        if gc_was_enabled:
            gc.enable()


def run(paths: Sequence[Path | str], options: RunOptions, progress: Progress | None = None) -> RunReport:
    # Syntax trees hold millions of objects but no reference cycles (the analysis is
    # written not to create any), so reference counting frees them; the cyclic collector
    # would only rescan them all on every pass (3x slower runs).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(paths, options, progress)
    finally:
        if gc_was_enabled:
            gc.enable()


class Interrupted(Exception):
    """Ctrl-C stopped a run: while doing what, and the files whose rewrite it left unwritten."""

    def __init__(self, stage: str, writing: bool, written: list[str], unwritten: list[str] | None):
        super().__init__(stage)
        self.stage = stage  # "analysing", "validating" or "writing"
        self.writing = writing  # whether the run was to write files
        self.written = written  # display paths written before the interruption
        self.unwritten = unwritten  # display paths with a rewrite left unwritten; None: not known yet

    def message(self) -> str:
        if not self.writing:
            return f"interrupted while {self.stage}; nothing was written (this run writes nothing)"
        if self.unwritten is None:
            return f"interrupted while {self.stage}; nothing was written (the rewrites were not yet decided)"
        text = f"interrupted while {self.stage}; "
        if self.written:
            text += f"written: {', '.join(self.written)}; "
        if self.unwritten:
            return text + f"left unwritten: {', '.join(self.unwritten)}"
        return text + "nothing was left unwritten"


def _run(
    paths: Sequence[Path | str], options: RunOptions, progress: Progress | None, stdin: tuple[Path, str, str] | None = None
) -> RunReport:
    state: dict = {"stage": "analysing", "results": None}
    try:
        return _run_stages(paths, options, progress, stdin, state)
    except KeyboardInterrupt:
        raise _interrupted(state, options) from None
    except Exception as exc:
        if _caused_by_interrupt(exc):
            raise _interrupted(state, options) from None
        raise


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether a Ctrl-C is what this error wraps: an interrupt that lands in a class body
    being imported comes out of `abc` or `__set_name__` as another error raised from it."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _interrupted(state: dict, options: RunOptions) -> Interrupted:
    """What a Ctrl-C left: the files are compared with their rewrites on disk, since the
    interruption may have come at any point of a write."""
    results = state["results"]
    if results is None:
        return Interrupted(state["stage"], options.write, [], None)
    written, unwritten = [], []
    for analysis in results:
        result = analysis.result
        if not result.changed:
            continue
        try:
            done = read_source(result.path).text == result.rewritten
        except (SourceError, OSError):
            done = False
        (written if done else unwritten).append(result.display_path)
    return Interrupted(state["stage"], options.write, written, unwritten)


def _run_stages(
    paths: Sequence[Path | str],
    options: RunOptions,
    progress: Progress | None,
    stdin: tuple[Path, str, str] | None,
    state: dict,
) -> RunReport:
    cwd = Path.cwd()
    root = options.root or (find_project_root([Path(p) for p in paths]) if paths else cwd)
    texts: dict[Path, str] = {}
    if stdin is not None:
        # The real path, as the project's walk finds it: the text stands in for that file.
        stdin_path = Path(os.path.realpath(stdin[0]))
        found = Discovery(files=[stdin_path])
        texts[stdin_path] = stdin[2]
    else:
        found = files_to_analyse(paths, options, root)
    report = RunReport(root=root, errors=list(found.errors))
    files = found.files  # reported and rewritten
    scope = project_scope([Path(p) for p in paths], root)
    index_files = _project_files(scope, root, files, options) if options.index_project and files else files
    index_root = Path(os.path.realpath(root))  # the files are real paths too
    shown = [stdin[1]] if stdin is not None else [display_path(path, cwd) for path in files]
    analyses: list[FileAnalysis | None] = [None] * len(files)

    cache = digests = None
    stats: dict[str, tuple[int, int]] = {}
    # Which file each path is (device, inode), taken before anything is read: a write goes
    # only to that very file, never to one (or a symlink) swapped in during the run.
    identities: dict[str, tuple[int, int]] = {}
    started_ns = time.time_ns()  # digests are taken after this moment
    repo_digest = ""
    if options.use_cache and files:
        key = options.analysis_options().fingerprint() + f"|prefilter={options.prefilter}|torch={too_old_torch(index_root)}"
        cache = ResultCache(root, key, cache_base(options.cache_dir))
        cache.load()
        # Every file of the project: an analysis may have read any of them.
        digests = _digests(index_files, cache, stats, identities)
        repo_digest = repository_digest(digests)
        modules: list[dict[str, tuple[str, ...]]] = []  # built on first use

        def module_paths(name: str) -> tuple[str, ...]:
            if not modules:
                modules.append(module_map(index_files, index_root))
            return modules[0].get(name, ())

        for i, path in enumerate(files):
            analyses[i] = cache.get(str(path), digests, repo_digest, module_paths, shown[i])

    elif options.write:
        for path in files:
            _identify(str(path), identities)
    todo = [i for i, a in enumerate(analyses) if a is None]
    done = len(files) - len(todo)
    # Files to analyse: likely rewrites whose verdicts are not cached either; the workers'
    # interpreter imports torch on another core meanwhile.
    with _validation_prestarted(root, options, bool(todo) and stdin is None):
        for i, analysis, dependencies, scanned in _analyse_all(files, index_files, shown, todo, index_root, options, texts):
            analyses[i] = analysis
            done += 1
            if progress is not None:
                progress(done, len(files))
            if cache is not None and digests is not None and str(files[i]) in digests and dependencies is not None:
                files_read, lookups = dependencies
                cache.put(
                    str(files[i]),
                    Entry(
                        digests[str(files[i])],
                        tuple((d, digests.get(d, "")) for d in sorted(files_read) if d != str(files[i])),
                        tuple(sorted(lookups)),
                        repo_digest if scanned else None,
                        analysis,
                        stats.get(str(files[i]), (-1, -1)),
                        started_ns,
                    ),
                )
        if cache is not None:
            cache.save()
        results = [a for a in analyses if a is not None]
        report.analyses = results
        state["results"] = results
        if options.validate:
            state["stage"] = "validating"
            report.warnings += _validate(root, results, options)
    _apply_policy(results, options)
    # Files are written only inside what the user asked for (resolved: no symlink leads out).
    roots = [os.path.realpath(p) for p in paths]
    state["stage"] = "writing" if options.write else "reporting"
    _finalise(report, results, options, roots, identities)
    if options.validate:
        from codemod.validate.coverage_hint import record_hint

        hint = record_hint(root, results)
        if hint:
            report.hints.append(hint)
    return report


@contextlib.contextmanager
def _validation_prestarted(root: Path, options: RunOptions, likely: bool):
    """Launch the validation workers' interpreter before the analysis when validation is likely
    to need it; end it afterwards if it was not used."""
    if not (options.validate and likely):
        yield
        return
    from codemod.validate import prestart, release_prestarted

    prestart(root, options.python)
    try:
        yield
    finally:
        release_prestarted()


def _project_files(scope: Path, root: Path, given: list[Path], options: RunOptions) -> list[Path]:
    """Every file of the project in ``scope`` (walked as a run over it would), and the given ones."""
    project = discover([scope], excludes=options.excludes, respect_gitignore=options.respect_gitignore, root=root)
    known = set(project.files)
    extra = [path for path in given if path not in known]  # named explicitly, outside the walk
    return sorted(project.files + extra) if extra else project.files


def _identify(key: str, identities: dict[str, tuple[int, int]]) -> os.stat_result | None:
    try:
        info = os.lstat(key)
    except OSError:
        return None
    identities[key] = (info.st_dev, info.st_ino)
    return info


def _digests(
    files: list[Path], cache: ResultCache, stats: dict[str, tuple[int, int]], identities: dict[str, tuple[int, int]]
) -> dict[str, str]:
    digests: dict[str, str] = {}
    for path in files:
        key = str(path)
        try:
            info = _identify(key, identities)
            if info is None:
                continue
            stats[key] = (info.st_size, info.st_mtime_ns)
            digest = cache.known_digest(key, stats[key])
            digests[key] = digest if digest is not None else file_digest(path.read_bytes())
        except OSError:
            pass  # reported when the file is read for analysis
    return digests


# -- analysis, in this process or in a pool of workers ---------------------------------------

_MIN_FILES_PER_WORKER = 16
_BATCH = 24
_worker: dict = {}


def _analyse_all(files, index_files, shown, todo, root, options, texts):
    """Yield (index, analysis, dependencies, scanned_repository) for each file in `todo`, in order."""
    if not todo:
        return
    jobs = max(1, min(options.jobs or os.cpu_count() or 1, len(todo) // _MIN_FILES_PER_WORKER))
    if jobs == 1:
        from codemod import limits

        _init_worker(files, index_files, shown, root, options, texts)
        try:
            for i in todo:
                with limits.capped():  # lifted between files: the caller's work is not capped
                    item = _analyse_one(i)
                yield (i, *item)
        finally:
            # Free the parsed modules now, while the cyclic collector is off: left to the
            # interpreter's exit, a collection would first walk all of them (about 1 s on
            # transformers).
            _worker.clear()
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    import codemod.api  # noqa: F401  (imported once here; forked workers inherit it)

    # Batches of neighbouring files (they share imports, so a worker's memos serve the
    # whole batch), the heaviest batches first so that workers finish together.
    sizes = {i: _size(files[i]) for i in todo}
    batches = [todo[k : k + _BATCH] for k in range(0, len(todo), _BATCH)]
    batches.sort(key=lambda batch: -sum(sizes[i] for i in batch))
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pending: dict[int, tuple] = {}
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_pool_worker,
                             initargs=(files, index_files, shown, root, options, texts, True)) as pool:
        futures = {pool.submit(_analyse_batch, batch): batch for batch in batches}
        # Results are yielded in file order, whatever order the workers finish in.
        position = 0
        try:
            for future in as_completed(futures):
                try:
                    items = future.result()
                except BrokenProcessPool:  # a worker was killed (by the kernel, or by a signal)
                    items = [(i, _died(files[i], shown[i]), None, False) for i in futures[future]]
                for item in items:
                    pending[item[0]] = item
                while position < len(todo) and todo[position] in pending:
                    yield pending.pop(todo[position])
                    position += 1
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)  # the batches not started are dropped
            raise


def _died(path: Path, shown: str) -> FileAnalysis:
    return FileAnalysis(FileResult(path=path, display_path=shown, error="not analysed: the analysis worker died"))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _init_worker(files, index_files, shown, root, options, texts, pooled: bool = False) -> None:
    from codemod.repo_index import RepoIndex

    gc.disable()  # see run()
    _worker.update(
        files=files,
        shown=shown,
        options=options,
        texts=texts,  # source given as text (standard input) instead of read from disk
        new_index=lambda: RepoIndex(index_files, root=root, texts=texts, lazy=options.prefilter),
    )
    _worker["index"] = _worker["new_index"]()
    if pooled:
        from codemod import limits

        limits.enter_worker()


def _init_pool_worker(*args) -> None:
    import signal

    # Ctrl-C is the main process's to handle (it stops the run); tracebacks of the pool's
    # workers would only clutter the terminal.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init_worker(*args)


def _analyse_batch(batch: list[int]) -> list[tuple]:
    return [(i, *_analyse_one(i)) for i in batch]


def _analyse_one(i: int) -> tuple[FileAnalysis, tuple[set[str], set[tuple]] | None, bool]:
    from codemod.repo_index import MODULE_LOOKUP

    from codemod import limits

    index: RepoIndex = _worker["index"]
    path = _worker["files"][i]
    index.begin_tracking()
    try:
        with limits.one_file():
            analysis = _analyse_path(index, path, _worker["shown"][i], _worker["options"], _worker["texts"].get(path))
    except (limits.OverBudget, MemoryError) as exc:
        # Stopped anywhere: the index's memos may be half built, so the next file gets a new one.
        _worker["index"] = _worker["new_index"]()
        reason = str(exc) if isinstance(exc, limits.OverBudget) else f"over the {limits.MEMORY_BYTES / 2**30:g} GiB memory limit for analysing one file"
        # Not cached (dependencies None): another run may have the room.
        return FileAnalysis(FileResult(path=path, display_path=_worker["shown"][i], error=f"skipped: {reason}")), None, False
    finally:
        dependencies = index.end_tracking()
    if not analysis.result.changed:
        # Only changed files need their text and plan again (to drop a rewrite that fails
        # validation); the rest stay small in the cache.
        analysis.result.original = None
        analysis.plan = None
    files_read = {str(d) for d in dependencies if not isinstance(d, tuple)}
    lookups = {(d[1], d[2]) for d in dependencies if isinstance(d, tuple) and d[0] == MODULE_LOOKUP}
    return analysis, (files_read, lookups), index.scanned_repository


def _analyse_path(index: RepoIndex, path: Path, shown: str, options: RunOptions, text: str | None = None) -> FileAnalysis:
    if text is None:
        try:
            text = read_source(path).text
        except SourceError as exc:
            return FileAnalysis(FileResult(path=path, display_path=shown, error=str(exc)))
    from codemod.api import analyse_text

    from codemod.budget import TooLarge

    try:
        for _ in range(_OTHER_UNPARSED_FILES):
            try:
                return analyse_text(index, path, text, shown, options.analysis_options())
            except SyntaxError as exc:
                # Another file the analysis read (a caller's class, a base) does not parse: that
                # file is reported on its own; this one is analysed again without it.
                other = exc.filename and os.path.abspath(exc.filename) != os.path.abspath(path)
                if not other or not os.path.isfile(exc.filename):
                    raise
                index.forget_unparsed(Path(exc.filename))
        return analyse_text(index, path, text, shown, options.analysis_options())
    except TooLarge as exc:
        elsewhere = exc.filename and os.path.abspath(exc.filename) != os.path.abspath(path)
        message = f"skipped: {exc.filename + ': ' if elsewhere else ''}{exc.msg} (split it, or --exclude the file)"
    except SyntaxError as exc:
        first = _first_syntax_error(text, exc)
        message = f"syntax error: {first.msg} (line {first.lineno})"
        from codemod.rewrite import later_python_syntax  # libcst: imported only for such a file

        newer = later_python_syntax(text)
        if newer:
            message += f"; {newer}"
        # What a tolerant reading finds, then what the line scan finds besides (a binding on a
        # line the reading had to set aside).
        findings = _tolerant_findings(index, path, text, shown, options, f"line {first.lineno}", bool(newer))
        read = {(f.class_name, f.attribute) for f in findings}
        findings += [f for f in _unparsed_findings(text, shown, message, bool(newer))
                     if (f.class_name, f.attribute) not in read]
        return FileAnalysis(FileResult(path=path, display_path=shown, original=text, error=message, findings=findings))
    except (ValueError, RecursionError) as exc:
        message = f"cannot parse: {exc}"
    return FileAnalysis(FileResult(path=path, display_path=shown, original=text, error=message))


# How many other files that do not parse one file's analysis may step over.
_OTHER_UNPARSED_FILES = 8


def _porting_advice(newer: bool) -> str:
    return ("run codemod under the later Python the repository is written for"
            if newer else "port the file to Python 3 (or fix the syntax error)")


def _tolerant_findings(index: RepoIndex, path: Path, text: str, shown: str, options: RunOptions, where: str,
                       newer: bool) -> list[Finding]:
    """The analysis's findings in a tolerant reading of a file that does not parse (tolerant.py),
    each only reported: nothing of such a file is written."""
    from codemod.api import findings_of_text
    from codemod.budget import TooLarge
    from codemod.rules import unparsed_files
    from codemod.tolerant import python3_reading

    reading = python3_reading(text)
    if reading is None:
        return []
    with index.reading_as(path, reading.text):
        try:
            found = findings_of_text(index, path, reading.text, shown, options.analysis_options())
        except (SyntaxError, ValueError, RecursionError, TooLarge):
            return []
    return [
        Finding(
            path=shown, line=f.line, column=f.column, class_name=f.class_name, attribute=f.attribute,
            action=Action.SKIP, persistent=None, code=unparsed_files.RULE.code,
            reason=f"the file does not parse (syntax error at {where}), so nothing in it is rewritten; read with "
            f"{reading.describe()}, the analysis finds: {_as_found(f)}",
            suggestion=f"{_porting_advice(newer)} and run again"
            + (f"; then: {f.suggestion}" if f.suggestion else ""),
        )
        for f in found
    ]


def _as_found(finding: Finding) -> str:
    """`a raw tensor it would register as a buffer (BUF101: ...)`"""
    if finding.action is Action.SKIP:
        return f"{finding.reason} ({finding.code})" if finding.code else finding.reason
    what = "as a buffer" if finding.action is Action.BUFFER else "as an nn.Parameter"
    return f"a raw tensor it would register {what} ({finding.code}: {finding.reason})"


def _unparsed_findings(text: str, shown: str, error: str, newer: bool = False) -> list[Finding]:
    """Reports for the tensors a file that does not parse plainly binds (rules/unparsed_files.py)."""
    from codemod.rules import unparsed_files

    suggestion = _porting_advice(newer)
    return [
        Finding(
            path=shown, line=line, column=column, class_name=owner, attribute=attr, action=Action.SKIP,
            persistent=None, code=unparsed_files.RULE.code,
            reason=f"the file does not parse ({error}), so nothing in it is analysed or rewritten; this line binds "
            f"{call} to self in a class deriving from nn.Module, which looks like a raw tensor attribute",
            suggestion=f"{suggestion} and run again; a raw tensor then gets its rewrite or its reason",
        )
        for line, column, owner, attr, call in unparsed_files.scan(text)
    ]


def _first_syntax_error(text: str, found: SyntaxError) -> SyntaxError:
    """The file's first syntax error: the analysis parses only the parts it reads (a class, a
    constructor), so the one it met may come after another."""
    import ast

    try:
        ast.parse(text)
    except SyntaxError as first:
        if first.lineno is not None and (found.lineno is None or first.lineno <= found.lineno):
            return first
    except (ValueError, RecursionError, MemoryError):
        pass
    return found


def _validate(root: Path, analyses: list[FileAnalysis], options: RunOptions) -> list[str]:
    """Give every rewrite its verdict; the warnings to print (files the repository's code wrote)."""
    rewrites = [c for a in analyses for c in a.result.classes]
    if not rewrites:
        return []
    from codemod.validate import ValidationOptions, validate_rewrites  # imports torch only in workers
    from codemod.validate import footprint

    overlay = {a.result.path: a.result.rewritten for a in analyses if a.result.rewritten is not None}
    total = len({(r.path, r.class_name) for r in rewrites})
    done = [0]

    def progress(_rewrite, _validation) -> None:
        done[0] += 1
        if options.validation_progress is not None:
            options.validation_progress(done[0], total)

    before = footprint.snapshot(root)
    verdicts = validate_rewrites(
        root,
        rewrites,
        overlay,  # type: ignore[arg-type]
        ValidationOptions(device=options.device, jobs=options.jobs or 1, timeout=options.timeout, examples=options.examples,
                          python=options.python, cache=options.use_cache, cache_dir=options.cache_dir,
                          progress=progress),
    )
    changed = footprint.changes(before, footprint.snapshot(root))
    for analysis in analyses:
        for rewrite in analysis.result.classes:
            validation = verdicts.get((rewrite.path, rewrite.class_name)) or Validation(Verdict.NOT_VALIDATED, message="no verdict")
            for finding in analysis.result.findings:
                if finding.class_name == rewrite.class_name and finding.action is not Action.SKIP:
                    finding.validation = validation
    return [footprint.warning(changed)] if changed else []


def _apply_policy(analyses: list[FileAnalysis], options: RunOptions) -> None:
    """Hold back the classes with a rewrite the write policy does not let through
    (write_policy.py); with validation, each finding carries its verdict by now."""
    policy = _policy(options)
    for analysis in analyses:
        rejected: set[str] = set()
        for rewrite in analysis.result.classes:
            findings = [
                f for f in analysis.result.findings if f.class_name == rewrite.class_name and f.action is not Action.SKIP
            ]
            reasons = {f.attribute: may_write(f, policy)[1] for f in findings}
            if any(reasons.values()):
                # a class is written whole or not at all (see write_policy)
                rejected.add(rewrite.class_name)
                blocking = ", ".join(attr for attr, reason in reasons.items() if reason)
                for finding in findings:
                    finding.held_back = reasons[finding.attribute] or f"held back with {blocking} of the same class"

        if rejected:
            try:
                from codemod.api import rewrite_without

                analysis.result.rewritten = rewrite_without(analysis, rejected, options.style)
            except RewriteError as exc:
                analysis.result.rewritten = None
                analysis.result.error = str(exc)
            analysis.result.classes = [c for c in analysis.result.classes if c.class_name not in rejected]


def _policy(options: RunOptions) -> WritePolicy:
    return WritePolicy(unsafe_fixes=options.unsafe_fixes, require_validated=options.require_validated,
                       allow_new_keys=options.allow_new_keys)


def _finalise(
    report: RunReport,
    analyses: list[FileAnalysis],
    options: RunOptions,
    roots: list[str],
    identities: dict[str, tuple[int, int]],
) -> None:
    summary = report.summary
    summary.writing = options.write
    verdicts: dict[tuple[Path, str], str] = {}
    journal = None
    if options.write and options.use_cache:
        from codemod.cache import cache_base, project_directory
        from codemod.tempfiles import Journal

        # Temporary files are recorded where the cache lives, outside the tree (tempfiles.py);
        # --no-cache touches no cache directory, so a killed run's temporary file then stays.
        journal = Journal(project_directory(cache_base(options.cache_dir), report.root))
    command = None
    if options.formatter and any(a.result.changed for a in analyses):
        from codemod.formatter import formatter_command

        command = formatter_command(options.formatter)
    for analysis in analyses:
        result = analysis.result
        if result.changed and result.error is None and command is not None:
            _format(result, command, options, report)
        proposed = result.changed and result.error is None
        written = proposed and options.write and _write(result, roots, identities.get(str(result.path)), journal)
        report.files.append(result)
        summary.files_scanned += 1
        summary.files_proposed += int(proposed)
        summary.files_written += int(written)
        # Counted as changed: what was written, or in a run that writes nothing, what it proposes.
        counted = written if options.write else proposed
        summary.files_changed += int(counted)
        written_classes = {c.class_name for c in result.classes} if counted else set()
        for finding in result.findings:
            if finding.action is Action.SKIP:
                summary.skipped += 1
            elif finding.held_back:
                summary.held_back += 1
            elif finding.class_name not in written_classes:
                pass  # a file that could not be written: counted as "not written"
            elif finding.action is Action.BUFFER:
                summary.buffers += 1
            else:
                summary.parameters += 1
            if finding.validation is not None:
                verdicts[(result.path, finding.class_name)] = finding.validation.verdict.value
                if finding.action is not Action.SKIP:
                    summary.rewrites_validated += 1
                    own = finding.validation.verdict_for(finding.attribute)
                    summary.rewrite_verdicts[own.value] = summary.rewrite_verdicts.get(own.value, 0) + 1
                    passed = own is Verdict.PASSED
                    summary.rewrites_proven += passed
                    summary.rewrites_forward += passed and finding.validation.forward_for(finding.attribute) == "compared"
        summary.errors += int(result.error is not None)
    if summary.held_back:
        summary.held_back_hint = held_back_hint(_policy(options))
    for verdict in verdicts.values():  # counted per class, not per attribute
        summary.verdicts[verdict] = summary.verdicts.get(verdict, 0) + 1
    summary.errors += len(report.errors)


def _format(result: FileResult, command: list[str], options: RunOptions, report: RunReport) -> None:
    """Pass the rewritten text through the project's formatter; on failure, keep it as it is."""
    from codemod.formatter import FormatterError, format_text

    try:
        if result.path.is_file():
            source = read_source(result.path)
        else:  # standard input: the text is all there is
            source = SourceFile(result.path, result.original or "", "utf-8", False, "\n", b"", 0)
        result.rewritten = format_text(command, options.formatter, source, result.rewritten, report.root)  # type: ignore[arg-type]
    except (FormatterError, SourceError) as exc:
        report.errors.append((result.display_path, f"{exc}; the rewrite is kept as codemod wrote it"))


def _write(result: FileResult, roots: list[str], identity: tuple[int, int] | None, journal=None) -> bool:
    try:
        try:
            now = os.lstat(result.path)
        except OSError:
            raise SourceError("deleted since it was read") from None
        if stat.S_ISLNK(now.st_mode):
            raise SourceError("replaced by a symlink since it was read")
        if identity is None or (now.st_dev, now.st_ino) != identity:
            raise SourceError("replaced by another file since it was read")
        source = read_source(result.path)
        if source.text != result.original:
            raise SourceError("changed on disk since it was read")
        write_source_atomic(source, result.rewritten, roots, journal)  # type: ignore[arg-type]
    except SourceError as exc:
        result.error = f"not written: {exc}"
        return False
    return True
