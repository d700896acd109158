"""``codemod record -- <command>``: learn how the repository builds its modules.

:func:`record` runs the command with a ``sitecustomize.py`` (in a temporary
directory prepended to ``PYTHONPATH``) that loads :mod:`codemod.validate.recorder`
into every Python process the command starts.  For each ``nn.Module``
subclass defined under the repository root, the first instance that reaches
``forward`` leaves its constructor arguments and those forward inputs.  The
records land in ``<root>/.codemod/records/`` and ``codemod run`` uses them
to build and call classes that the examples file does not cover.

The CLI should call ``record(root, command, cwd=Path.cwd())``, print
``result.summary_lines()`` to stderr (one line per recorded class, saying
whether forward inputs were captured or why not, then where the records
went, or why nothing was recorded) and exit with ``result.returncode``.

Records are pickles: loading one executes code, like running the repository.
This module does not import torch.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from codemod.validate import recorder

DEFAULT_MAX_BYTES = 8 * 1024 * 1024

_SITECUSTOMIZE = '''\
# Installed by `codemod record` for the duration of one command.
import importlib.machinery
import importlib.util
import os
import sys


def _codemod_record_install():
    spec = importlib.util.spec_from_file_location("_codemod_recorder", {recorder!r})
    module = importlib.util.module_from_spec(spec)
    sys.modules["_codemod_recorder"] = module
    spec.loader.exec_module(module)
    module.install()


try:
    _codemod_record_install()
except Exception as exc:
    sys.stderr.write("codemod record: hooks not installed: %s\\n" % (exc,))


def _codemod_chain():
    # run the sitecustomize this one shadows, if any
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_codemod_chain()
'''


@dataclass
class RecordedClass:
    key: str  # "pkg/model.py::TypeCls"
    path: str  # relative to the root
    qualname: str
    module: str  # the module name in the recorded process
    has_inputs: bool
    file: Path
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        dotted = self.path[:-3] if self.path.endswith(".py") else self.path
        dotted = dotted.replace("/", ".").removesuffix(".__init__")
        return f"{dotted}.{self.qualname}"


@dataclass
class RecordResult:
    exit_code: int
    records_dir: Path
    recorded: list[RecordedClass] = field(default_factory=list)

    @property
    def returncode(self) -> int:
        return self.exit_code

    def summary_lines(self) -> list[str]:
        """What ``codemod record`` prints to stderr."""
        lines = []
        for item in self.recorded:
            if item.has_inputs:
                lines.append(f"recorded {item.name} (constructor + forward inputs)")
            else:
                why = "; ".join(item.notes) or "no forward call"
                lines.append(f"recorded {item.name} (constructor only: {why})")
        if self.recorded:
            lines.append(f"{len(self.recorded)} classes recorded in {self.records_dir}")
        else:
            lines.append(
                "no class recorded: the command built no nn.Module defined under the repository root "
                "(is it a Python program that imports the repository's code?)"
            )
        return lines


def default_records_dir(root: Path) -> Path:
    return root / ".codemod" / "records"


def record_file(records_dir: Path, root: Path, path: Path, qualname: str) -> Path | None:
    """The record for class ``qualname`` of file ``path``, when one exists."""
    try:
        relative = Path(os.path.realpath(path)).relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        return None
    candidate = records_dir / recorder.record_filename(recorder.record_key(relative, qualname))
    return candidate if candidate.is_file() else None


def record(
    root: Path,
    command: list[str],
    records_dir: Path | None = None,
    *,
    cwd: Path | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> RecordResult:
    """Run ``command`` (in ``cwd``, default ``root``) and record the modules it builds.

    Returns the command's exit code and the classes recorded.  A class keeps
    the first record of this run (an instance's constructor arguments plus
    its first forward inputs, or only the constructor arguments when no
    instance ran forward); records of classes this run did not see are kept.
    Tensors over ``max_bytes`` (per constructor call or forward call) are not
    stored; the record says so.
    """
    root = Path(root).resolve()
    records_dir = Path(records_dir) if records_dir is not None else default_records_dir(root)
    with tempfile.TemporaryDirectory(prefix="codemod-record-") as temporary:
        hook_dir = Path(temporary) / "hook"
        staging = Path(temporary) / "staging"
        hook_dir.mkdir()
        staging.mkdir()
        (hook_dir / "sitecustomize.py").write_text(
            _SITECUSTOMIZE.format(recorder=str(Path(recorder.__file__).resolve())), encoding="utf-8"
        )
        env = os.environ.copy()
        # The repository root goes on the path too (after the user's entries), as
        # `python -m pytest` does: a bare `pytest tests/` could not import the repository's
        # packages, and validation imports them from the root in the same way.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(hook_dir), env.get("PYTHONPATH", ""), str(root)) if p)
        env["CODEMOD_RECORD_ROOT"] = str(root)
        env["CODEMOD_RECORD_STAGING"] = str(staging)
        env["CODEMOD_RECORD_MAX_BYTES"] = str(max_bytes)
        try:
            exit_code = subprocess.call(command, cwd=str(cwd or root), env=env)
        except OSError as exc:
            sys.stderr.write(f"codemod record: cannot run {command[0]!r}: {exc}\n")
            exit_code = 127
        recorded = _merge(staging, records_dir, command)
    return RecordResult(exit_code=exit_code, records_dir=records_dir, recorded=recorded)


def _merge(staging: Path, records_dir: Path, command: list[str]) -> list[RecordedClass]:
    staged: dict[str, list[dict]] = {}
    for item in staging.iterdir():
        if item.suffix == ".tmp":
            continue
        try:
            with open(item, "rb") as handle:
                data = pickle.load(handle)
        except Exception:
            continue
        staged.setdefault(data["key"], []).append(data)
    if not staged:
        return []
    records_dir.mkdir(parents=True, exist_ok=True)
    index_path = records_dir / "index.json"
    try:
        index = json.loads(index_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        index = {}
    recorded = []
    for key, items in sorted(staged.items()):
        items.sort(key=lambda d: d["time"])
        full = [d for d in items if d["kind"] == "full"]
        if full:
            chosen = dict(full[0])
            notes: list[str] = []
        else:
            inits = [d for d in items if d["kind"] == "init"] or items
            chosen = dict(inits[0])
            notes = []
            for d in items:
                notes.extend(n for n in d["notes"] if n not in notes)
            if chosen.get("args") is not None and not any(d["kind"] == "note" for d in items):
                notes.append("no instance ran forward, so no inputs were recorded")
        chosen["notes"] = notes
        chosen["command"] = list(command)
        target = records_dir / recorder.record_filename(key)
        temporary = target.with_suffix(".tmp")
        with open(temporary, "wb") as handle:
            pickle.dump(chosen, handle, protocol=4)
        os.replace(temporary, target)
        entry = RecordedClass(
            key=key,
            path=chosen["path"],
            qualname=chosen["qualname"],
            module=chosen["module"],
            has_inputs=chosen.get("inputs") is not None,
            file=target,
            notes=notes,
        )
        index[key] = {
            "file": target.name,
            "class": entry.name,
            "constructor": chosen.get("args") is not None,
            "inputs": entry.has_inputs,
            "notes": notes,
            "command": list(command),
        }
        recorded.append(entry)
    index_path.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return recorded
