"""Runtime validation: prove each rewritten class behaves like the original.

For every rewritten class, two worker subprocesses build it (the original
source in one, the rewritten source in the other, both under the
repository's real package names) after the same ``torch.manual_seed(0)``,
and compare attributes, state_dict, checkpoint loading, parameters, device
movement and, when inputs are known, forward outputs; then what breaks in real
use (``checks.py``): a checkpoint round trip, dtype casts, one training step,
meta-device materialisation, ``from_pretrained``, and whether each rewritten
statement ran at all.  Each rewrite gets its own verdict (``Validation.rewrites``).
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
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from codemod.ftypes import ClassRewrite, Validation, Verdict
from codemod.validate.record import RecordedClass, RecordResult, default_records_dir, record, record_file
from codemod.validate.runner import Pool, Task

__all__ = [
    "ValidationOptions",
    "validate_rewrites",
    "record",
    "RecordResult",
    "RecordedClass",
    "missing_examples",
    "EXAMPLES_FILE",
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
    allow_new_keys: bool = False  # a rewrite that breaks strict loading of old checkpoints is not failed
    examples: Path | None = None  # examples file; default <root>/codemod_examples.py if it exists
    records_dir: Path | None = None  # default <root>/.codemod/records
    # called as each class finishes, from a worker thread
    progress: Callable[[ClassRewrite, Validation], None] | None = None


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
    root = Path(root).resolve()
    examples = _examples_path(root, options)
    if isinstance(examples, Validation):
        return {key: examples for key in unique}
    records_dir = Path(options.records_dir) if options.records_dir else default_records_dir(root)
    results: dict[tuple[Path, str], Validation] = {}
    lock = threading.Lock()
    callback_errors: list[BaseException] = []

    def finish(key: tuple[Path, str], side: str, outcome: dict) -> None:
        validation = _to_validation(side, outcome)
        with lock:
            results[key] = validation
        if options.progress is not None and not callback_errors:
            try:
                options.progress(unique[key], validation)
            except Exception as exc:  # the caller's bug: raise it once the workers are gone
                callback_errors.append(exc)

    with tempfile.TemporaryDirectory(prefix="codemod-validate-") as temporary:
        workdir = Path(temporary)
        jobs = max(1, min(int(options.jobs), len(unique), os.cpu_count() or 1, MAX_JOBS))
        configs = _write_configs(workdir, root, list(unique.values()), overlay, examples, options, jobs)
        tasks = []
        for number, (key, rewrite) in enumerate(unique.items()):
            record_path = record_file(records_dir, root, rewrite.path, rewrite.class_name)
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
                        "data": str(workdir / f"class-{number}.pt"),
                    },
                )
            )
        env = dict(os.environ)
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ behind in the working tree
        pool = Pool(jobs, root, configs, env, workdir, float(options.timeout))
        try:
            pool.run(tasks, finish)
        finally:
            pool.close()
    if callback_errors:
        raise callback_errors[0]
    for key in unique:
        results.setdefault(key, Validation(Verdict.ERROR, message="validation did not produce a verdict"))
    return results


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


def _write_configs(
    workdir: Path,
    root: Path,
    rewrites: list[ClassRewrite],
    overlay: dict[Path, str],
    examples: Path | None,
    options: ValidationOptions,
    jobs: int,
) -> dict[str, Path]:
    overlay_path = workdir / "overlay.json"
    overlay_path.write_text(json.dumps({str(Path(p).resolve()): text for p, text in overlay.items()}), "utf-8")
    threads = max(1, (os.cpu_count() or 2) // (2 * jobs))
    common = {
        "root": str(root),
        "examples": str(examples) if examples else None,
        "device": options.device,
        "threads": threads,
        "allow_new_keys": bool(options.allow_new_keys),
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
