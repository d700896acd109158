"""Runtime validation: prove each rewritten class behaves like the original.

For every rewritten class, two worker subprocesses build it (the original
source in one, the rewritten source in the other, both under the
repository's real package names) after the same ``torch.manual_seed(0)``,
and compare attributes, state_dict, checkpoint loading, parameters, device
movement and forward outputs (inputs known, read from the repository's own calls
or made up); then what breaks in real use (``checks.py``): a checkpoint round
trip, dtype casts each followed by a forward, one training step, meta-device
materialisation, ``from_pretrained``, and whether each rewritten statement ran at
all.  A class may be built several times (side.py: variants of its arguments
while they add evidence); each build is judged and the verdicts merge them
(judge.merge).  Each rewrite gets its own verdict (``Validation.rewrites``):
passed, checked without forward, changes the checkpoint format, failed, not
validated, error or timeout.
Without a GPU, device movement is shown on the meta device with a dispatch-mode
checker; with one, on the GPU itself.

**Validation executes the repository's code** (module imports, constructors,
forward, the examples file, recorded arguments, which are pickles).  Only run
it on code you would run anyway.

Importing this package does not import torch; only the workers do.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from codemod.ftypes import ClassRewrite, Validation, Verdict
from codemod.validate import calls, imports, runner, scratch
from codemod.validate.record import RecordedClass, RecordResult, default_records_dir, record, record_file
from codemod.validate.runner import Pool, Task
from codemod.validate.verdict_cache import VerdictCache

__all__ = [
    "ValidationOptions",
    "validate_rewrites",
    "record",
    "RecordResult",
    "RecordedClass",
    "missing_examples",
    "EXAMPLES_FILE",
    "worker_pairs",
]

EXAMPLES_FILE = "codemod_examples.py"
# Each pair is two processes holding torch (about half a GB together), so more
# pairs than this cost memory without much gain on typical class counts.
MAX_JOBS = 8


@dataclass
class ValidationOptions:
    device: str = "auto"  # auto|cpu|meta|cuda|cuda:N ; auto = cuda if available else cpu values + meta evidence
    jobs: int = 1  # parallel worker pairs
    timeout: float = 60.0  # seconds per class and side
    examples: Path | None = None  # examples file; default <root>/codemod_examples.py if it exists
    records_dir: Path | None = None  # default: records/<project> in the cache directory (record.default_records_dir)
    # called as each class finishes, from a worker thread
    progress: Callable[[ClassRewrite, Validation], None] | None = None
    python: str | None = None  # the project's interpreter; default: see imports.project_python
    zero_setup: bool = True  # build classes through their parents and with made-up arguments
    cache: bool = False  # reuse verdicts while nothing they depended on changed (verdict_cache.py)
    cache_dir: Path | None = None  # the cache directory (cache.py's base); default: as for the analysis cache
    parent_budget_s: float = 20.0  # CPU seconds a worker may spend building parents to learn arguments


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_pairs(requested: int, classes: int, available: int | None = None) -> int:
    """Pairs of workers to run: each pair keeps about two cores busy (one side builds the next
    class while the other judges), so more pairs than half the cores only compete for them."""
    available = cores() if available is None else available
    return max(1, min(int(requested), classes, max(1, available // 2), MAX_JOBS))


def prestart(root: Path, python: str | None = None) -> None:
    """Launch the workers' warm interpreter now (runner.prestart): it imports torch while the
    tool is still analysing, and the validation that follows takes it over.  Nothing happens
    where workers are not forked or the interpreter cannot be found (validation says why)."""
    try:
        interpreter = imports.project_python(Path(root).resolve(), python)
    except imports.InterpreterError:
        return
    runner.prestart(interpreter, worker_environment(os.environ))


def release_prestarted() -> None:
    """End a warm interpreter prestart() launched that no validation took over."""
    runner.release_prestarted()


def validate_rewrites(
    root: Path, rewrites: list[ClassRewrite], overlay: dict[Path, str], options: ValidationOptions
) -> dict[tuple[Path, str], Validation]:
    """Validate ``rewrites`` and return a :class:`Validation` per ``(path, class_name)``.

    ``root`` is the repository root (first on ``sys.path`` in both workers);
    ``overlay`` maps the absolute path of every changed file to its rewritten
    text; the rewritten worker imports those texts instead of the files.
    """
    unique: dict[tuple[Path, str], ClassRewrite] = {}
    for rewrite in rewrites:
        unique.setdefault((rewrite.path, rewrite.class_name), rewrite)
    if not unique:
        return {}
    local = {key: _local_class_message(rewrite) for key, rewrite in unique.items()}
    local = {key: message for key, message in local.items() if message}
    if local:
        # A class defined in a function is no attribute of its module: the workers would
        # build another class of that name, or none.  (Two classes of one name in one file
        # share a key: a local one holds both back.)
        results = {key: Validation(Verdict.NOT_VALIDATED, message=message) for key, message in local.items()}
        rest = [r for r in rewrites if (r.path, r.class_name) not in local]
        results.update(validate_rewrites(root, rest, overlay, options) if rest else {})
        return results
    groups = _without_name_clashes(list(unique.values()))
    if len(groups) > 1:
        # `Deblurring/losses.py` and `Denoising/losses.py` are both the module `losses`, each
        # under its own import root: one worker pair cannot import both, so each group of
        # files whose names are distinct gets workers of its own.
        results: dict[tuple[Path, str], Validation] = {}
        for group in groups:
            results.update(validate_rewrites(root, group, overlay, options))
        return results
    root = Path(root).resolve()
    examples = _examples_path(root, options)
    if isinstance(examples, Validation):
        return {key: examples for key in unique}
    try:
        python = imports.project_python(root, options.python)
    except imports.InterpreterError as exc:
        return {key: Validation(Verdict.NOT_VALIDATED, message=str(exc)) for key in unique}
    records_dir = Path(options.records_dir) if options.records_dir else default_records_dir(root, options.cache_dir)
    roots = imports.import_roots(root, [r.path for r in unique.values()])
    results: dict[tuple[Path, str], Validation] = {}
    lock = threading.Lock()
    callback_errors: list[BaseException] = []

    def report(key: tuple[Path, str], validation: Validation) -> None:
        with lock:
            results[key] = validation
        if options.progress is not None and not callback_errors:
            try:
                options.progress(unique[key], validation)
            except Exception as exc:  # the caller's bug: raise it once the workers are gone
                callback_errors.append(exc)

    record_paths = {key: record_file(records_dir, root, r.path, r.class_name) for key, r in unique.items()}
    # How the repository's own code builds and calls each class (__main__ blocks, docstrings,
    # tests), read statically: arguments and inputs for more builds, part of each cache key.
    usages: dict[tuple[Path, str], list[dict]] = {key: [] for key in unique}
    if options.zero_setup:
        found = calls.find(root, [f"{r.module}.{r.class_name}" for r in unique.values()], roots)
        # a call whose callee resolves to another file (a same-named class in another directory) is not this class's
        usages = {key: [u for u in found.usages.get(f"{r.module}.{r.class_name}", [])
                        if u.get("file") in (None, str(Path(r.path).resolve()))] for key, r in unique.items()}
    cache = VerdictCache(root, options.cache_dir) if options.cache else None
    requests: dict[tuple[Path, str], dict] = {}
    todo: dict[tuple[Path, str], ClassRewrite] = {}
    if cache is not None:
        from codemod.cache import tool_fingerprint

        cache.load()
        tool = tool_fingerprint("validation")  # once: it reads the tool's own files
        for key, rewrite in unique.items():
            requests[key] = _request(rewrite, overlay, examples, record_paths[key], options, python, roots, cache,
                                     tool, usages[key])
            hit = cache.get(requests[key], str(rewrite.path))
            if hit is not None:
                report(key, hit)
            else:
                todo[key] = rewrite
    else:
        todo = dict(unique)

    site_dirs: list[str] = []

    def finish(key: tuple[Path, str], side: str, outcome: dict) -> None:
        validation = _to_validation(side, outcome)
        if cache is not None and key in requests and site_dirs:
            files = list(outcome.get("imported") or []) + list(outcome.get("imported_original") or [])
            files += [str(p) for p in (examples, record_paths[key], key[0]) if p]
            with lock:
                cache.put(requests[key], validation, files, site_dirs)
        report(key, validation)

    if todo:
        with scratch.folder() as workdir:  # removed on SIGTERM too, and after a SIGKILL by the next run
            jobs = worker_pairs(options.jobs, len(todo))
            configs = _write_configs(workdir, root, roots, list(unique.values()), overlay, examples, options, jobs)
            tasks = []
            for number, (key, rewrite) in enumerate(todo.items()):
                record_path = record_paths[key]
                tasks.append(
                    Task(
                        key,
                        {
                            "op": "class",
                            "id": number,
                            "module": rewrite.module,
                            "class_name": rewrite.class_name,
                            "findings": _findings(rewrite),
                            "file": str(rewrite.path),
                            "record": str(record_path) if record_path else None,
                            "usages": usages[key],
                            "data": str(workdir / f"class-{number}.pt"),
                        },
                    )
                )
            env = worker_environment(os.environ)
            env["CODEMOD_DISPLAY_CWD"] = os.getcwd()  # paths in messages as the report shows them
            pool = Pool(jobs, root, configs, env, workdir, float(options.timeout), python)
            pool.on_hello = lambda hello: site_dirs.__setitem__(slice(None), list(hello.get("site_dirs") or []))
            try:
                if options.zero_setup:
                    parents = _harvest(pool, tasks, options)
                    for task in tasks:
                        task.request["parents"] = parents
                pool.run(tasks, finish)
            finally:
                pool.close()
    if cache is not None:
        cache.save()
    if callback_errors:
        raise callback_errors[0]
    for key in unique:
        results.setdefault(key, Validation(Verdict.ERROR, message="validation did not produce a verdict"))
    return results


def _local_class_message(rewrite: ClassRewrite) -> str | None:
    """Why a class defined inside a function cannot be validated; None for a class its
    module defines (the class holding the rewritten lines is a module-level one)."""
    import ast

    from codemod.fileio import SourceError, read_source

    try:
        tree = ast.parse(read_source(rewrite.path).text)
    except (SourceError, SyntaxError, ValueError):
        return None  # the workers report what they meet
    lines = [f.line for f in rewrite.findings]
    # a function at any depth: `def build(self)` of a class defines one as much as `def main()`
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ClassDef) and node.name == rewrite.class_name \
                    and all(node.lineno <= line <= (node.end_lineno or node.lineno) for line in lines):
                return (f"{rewrite.class_name} is defined inside the function {function.name}(), so no import "
                        f"can build it; validation builds the classes a module defines (suggestion: move the "
                        f"class to module level, or review the rewrite and write it with --unsafe-fixes)")
    return None


# Package installers read these; a repository that installs what it misses on import
# (``os.system("pip install ...")``) must not change the project's environment during validation.
_INSTALLER_SETTINGS = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
                       "UV_FIND_LINKS", "UV_INDEX")


def worker_environment(environ: dict[str, str] | os._Environ) -> dict[str, str]:
    """The workers' environment: no bytecode in the working tree, no package installation."""
    env = {k: v for k, v in environ.items() if k not in _INSTALLER_SETTINGS}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ behind in the working tree
    # the same iteration order of sets of strings in every run: a model built from one builds
    # its layers (and draws their random weights) in the same order
    env["PYTHONHASHSEED"] = "0"
    env["PIP_NO_INDEX"] = "1"
    env["PIP_CONFIG_FILE"] = os.devnull  # no index or find-links from pip's configuration files
    env["UV_OFFLINE"] = "1"
    env["UV_NO_INDEX"] = "1"
    return env


def _harvest(pool: Pool, tasks: list[Task], options: ValidationOptions) -> dict:
    """Which parent builds each class nothing else builds; {} when the search fails."""
    request = {
        "op": "harvest",
        "id": -1,
        "classes": [{"module": t.request["module"], "class_name": t.request["class_name"],
                     "record": t.request["record"]} for t in tasks],
    }
    outcome = pool.prepare(request, options.parent_budget_s + max(10.0, float(options.timeout)))
    found = outcome.get("parents") if outcome.get("status") == "ok" else None
    return found if isinstance(found, dict) else {}


def _request(rewrite: ClassRewrite, overlay: dict[Path, str], examples: Path | None, record: Path | None,
             options: ValidationOptions, python: str, roots: list[Path], cache: VerdictCache, tool: str,
             usages: list[dict]) -> dict:
    """Everything a verdict depends on besides the files the workers import: the exact
    content validated (the class's file and its rewritten text) and the repository's own
    calls of the class among it."""
    text = overlay.get(rewrite.path)
    if text is None:
        text = next((t for p, t in overlay.items() if Path(p).resolve() == Path(rewrite.path).resolve()), "")
    return {
        "tool": tool,
        "python": python,
        "roots": [str(r) for r in roots],
        "module": rewrite.module,
        "class": rewrite.class_name,
        "findings": _findings(rewrite),
        "original": cache.digests.of(str(rewrite.path)),
        "rewritten": cache.digests.of_text(text),
        "examples": cache.digests.of(str(examples)) if examples else None,
        "record": cache.digests.of(str(record)) if record else None,
        "options": [options.device, options.timeout, options.zero_setup, options.parent_budget_s],
        "usages": usages,
    }


def missing_examples(results: dict[tuple[Path, str], Validation]) -> str | None:
    """An examples-file fragment with the snippets of every class that could not be built."""
    snippets = sorted({v.snippet for v in results.values() if v.snippet})
    if not snippets:
        return None
    return "from codemod.examples import example\n\n" + "\n".join(snippets) + "\n"


def _examples_path(root: Path, options: ValidationOptions) -> Path | None | Validation:
    if options.examples is not None:
        path = Path(options.examples)
        path = path if path.is_absolute() else Path.cwd() / path
        if not path.is_file():
            return Validation(Verdict.NOT_VALIDATED, message=f"examples file {path} does not exist")
        return path.resolve()
    default = root / EXAMPLES_FILE
    return default if default.is_file() else None


def _findings(rewrite: ClassRewrite) -> list[list]:
    """[attribute, action, persistent, values comparable, [[first, last line] of each edited statement]]."""
    spans: dict[str, list[list[int]]] = {}
    for attr, first, last in getattr(rewrite, "statements", ()):
        spans.setdefault(attr, []).append([first, last])
    out = []
    for finding in rewrite.findings:
        action = getattr(finding.action, "value", finding.action)
        if action in ("buffer", "parameter"):
            # Uninitialised memory (torch.empty, torch.FloatTensor(n)) differs from build to
            # build: only its dtype and shape can be compared.
            values_comparable = "uninitialised memory" not in finding.reason
            lines = spans.get(finding.attribute) or [[finding.line, finding.line]]
            out.append([finding.attribute, action, finding.persistent, values_comparable, lines])
    return out


def _without_name_clashes(rewrites: list[ClassRewrite]) -> list[list[ClassRewrite]]:
    """The rewrites in groups where a module name stands for one file only (first fit, in order)."""
    groups: list[tuple[dict[str, Path], list[ClassRewrite]]] = []
    for rewrite in rewrites:
        path = Path(rewrite.path).resolve()
        for files, members in groups:
            if files.get(rewrite.module, path) == path:
                files[rewrite.module] = path
                members.append(rewrite)
                break
        else:
            groups.append(({rewrite.module: path}, [rewrite]))
    return [members for _, members in groups]


def _write_configs(
    workdir: Path,
    root: Path,
    roots: list[Path],
    rewrites: list[ClassRewrite],
    overlay: dict[Path, str],
    examples: Path | None,
    options: ValidationOptions,
    jobs: int,
) -> dict[str, Path]:
    overlay_path = workdir / "overlay.json"
    overlay_path.write_text(json.dumps({str(Path(p).resolve()): text for p, text in overlay.items()}), "utf-8")
    threads = max(1, cores() // (2 * jobs))
    common = {
        "root": str(root),
        "roots": [str(r) for r in roots],
        "zero_setup": options.zero_setup,
        "parent_budget_s": options.parent_budget_s,
        "examples": str(examples) if examples else None,
        "device": options.device,
        "threads": threads,
        "timeout": float(options.timeout),
        "rewrites": [
            {"module": r.module, "class_name": r.class_name, "findings": _findings(r)} for r in rewrites
        ],
    }
    configs = {}
    for side in ("original", "rewritten"):
        config = dict(common, side=side)
        if side == "rewritten":
            config["overlay"] = str(overlay_path)
        path = workdir / f"{side}.json"
        path.write_text(json.dumps(config), "utf-8")
        configs[side] = path
    return configs


def _to_validation(side: str, outcome: dict) -> Validation:
    status = outcome.get("status")
    device = outcome.get("device")
    message = outcome.get("message", "")
    if status == "judged":
        data = outcome["validation"]
        return Validation(
            verdict=Verdict(data["verdict"]),
            device=data["device"],
            compared=list(data["compared"]),
            max_abs_diff=data["max_abs_diff"],
            message=data["message"],
            original_failure=data["original_failure"],
            left_behind=list(data["left_behind"]),
            checkpoint_compatible=data["checkpoint_compatible"],
            missing_keys=list(data["missing_keys"]),
            parameter_order_changed=bool(data["parameter_order_changed"]),
            details=list(data["details"]),
            failures=list(data.get("failures", [])),
            notes=list(data.get("notes", [])),
            rewrites={attr: dict(v) for attr, v in (data.get("rewrites") or {}).items()},
            builds=list(data.get("builds") or []),
            forward_compared=bool(data.get("forward_compared")),
            branches=list(data.get("branches") or []),
        )
    if status == "timeout":
        return Validation(Verdict.TIMEOUT, device=device, message=message)
    if status in ("not_validated", "device_error"):
        return Validation(Verdict.NOT_VALIDATED, device=device, message=message, snippet=outcome.get("snippet"))
    if status == "failed":
        return Validation(Verdict.FAILED, device=device, message=message)
    # "error", "crash", "worker_error", and anything unexpected
    return Validation(Verdict.ERROR, device=device, message=message or f"{side} side: {status}",
                      snippet=outcome.get("snippet"))
