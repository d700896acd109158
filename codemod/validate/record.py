"""``codemod record -- <command>``: learn how the repository builds its modules.

:func:`record` runs the command with a ``sitecustomize.py`` (in a temporary
directory prepended to ``PYTHONPATH``) that loads :mod:`codemod.validate.recorder`
into every Python process the command starts.  For each ``nn.Module``
subclass defined under the repository root, the first instance that reaches
``forward`` leaves its constructor arguments and those forward inputs.  The
records land in the user cache directory, like the other caches (``records/`` under
cache.py's base: ``--cache-dir``, ``$CODEMOD_CACHE_DIR`` or the platform's user cache
directory), one folder per project named like its analysis cache, never inside the
repository; ``codemod run`` finds them there to build and call classes that the examples
file does not cover, and ``codemod clean`` removes them (:func:`clean`).

The CLI should call ``record(root, command, cwd=Path.cwd())``, print
``result.summary_lines()`` to stderr (one line per recorded class, saying
whether forward inputs were captured or why not, then where the records
went, or why nothing was recorded) and exit with ``result.returncode``.

Records are pickles: loading one executes code, like running the repository.
This module does not import torch.
"""

from __future__ import annotations

import collections
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

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
    cause: str | None = None  # why the command failed, from its last lines of output

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
        elif self.exit_code != 0:
            lines.append(
                f"no class recorded: the command failed (exit status {self.exit_code}) before building any model"
                + (f": {self.cause}" if self.cause else "")
            )
        else:
            lines.append(
                "no class recorded: the command built no nn.Module defined under the repository root "
                "(is it a Python program that imports the repository's code?)"
            )
        return lines


RECORDS_FOLDER = "records"
_RECORD_FILE = re.compile(r"[A-Za-z0-9._-]+-[0-9a-f]{8}\.(?:pkl|tmp)\Z")
_INDEX = "index.json"


def default_records_dir(root: Path, cache_dir: Path | str | None = None) -> Path:
    """Where the records of project ``root`` live: ``records/<project>`` in the cache directory
    (``cache_dir``, else ``$CODEMOD_CACHE_DIR``, else the user's), outside the repository."""
    from codemod.cache import cache_base, project_directory

    return project_directory(cache_base(cache_dir) / RECORDS_FOLDER, Path(root))


def clean(cache_dir: Path | str | None, root: Path | None) -> list[Path]:
    """Remove the records of project ``root`` (of every project when None); return the folders
    removed.  Only files named as this module names them, only from folders it tagged."""
    from codemod.cache import cache_base, remove_own_files

    base = cache_base(cache_dir) / RECORDS_FOLDER
    if root is not None:
        folders = [default_records_dir(root, cache_dir)]
    else:
        try:
            folders = [base / name for name in sorted(os.listdir(base))]
        except OSError:
            return []
    removed = [folder for folder in folders if remove_own_files(folder, _owned)]
    try:
        base.rmdir()  # only when nothing else is left
    except OSError:
        pass
    return removed


def _owned(name: str) -> bool:
    return name == _INDEX or bool(_RECORD_FILE.match(name))


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
    cache_dir: Path | str | None = None,
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
    records_dir = Path(records_dir) if records_dir is not None else default_records_dir(root, cache_dir)
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
        tail: collections.deque[str] = collections.deque(maxlen=400)
        cause = None
        try:
            exit_code = _run_teed(command, cwd or root, env, tail)
        except OSError as exc:
            cause = f"cannot run {command[0]!r}: {exc.strerror or exc}"
            exit_code = 127
        recorded = _merge(staging, records_dir, command)
    if exit_code != 0 and cause is None:
        cause = failure_cause(list(tail))
    return RecordResult(exit_code=exit_code, records_dir=records_dir, recorded=recorded, cause=cause)


def _run_teed(command: list[str], cwd: Path, env: dict[str, str], tail: collections.deque[str]) -> int:
    """Run the command, passing its output through while keeping its last lines."""
    process = subprocess.Popen(command, cwd=str(cwd), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lock = threading.Lock()

    def pump(source: IO[bytes], target: IO[bytes]) -> None:
        for raw in iter(source.readline, b""):
            try:
                target.write(raw)
                target.flush()
            except (OSError, ValueError):
                pass
            with lock:
                tail.append(raw.decode("utf-8", "replace").rstrip("\n"))

    threads = [
        threading.Thread(target=pump, args=(process.stdout, _binary(sys.stdout)), daemon=True),
        threading.Thread(target=pump, args=(process.stderr, _binary(sys.stderr)), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        code = process.wait()
    except KeyboardInterrupt:
        process.terminate()
        code = process.wait()
    for thread in threads:
        thread.join(5)
    return code


def _binary(stream: IO[str]) -> IO[bytes]:
    return getattr(stream, "buffer", stream)  # type: ignore[return-value]


_EXCEPTION_LINE = re.compile(r"^(?:E\s+)?((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt)\b.*)$")


def failure_cause(lines: list[str]) -> str | None:
    """The most telling line of a failed command's output: its last exception, else pytest's verdict."""
    for line in reversed(lines):
        match = _EXCEPTION_LINE.match(line.strip())
        if match:
            return match.group(1).strip()[:300]
    for line in reversed(lines):
        text = line.strip()
        if text.startswith(("ERROR:", "error:", "ERROR ")) or "no tests ran" in text or "No module named" in text:
            return text.strip("= ")[:300]
    return None


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
    from codemod.cache import ensure_own_directory

    ensure_own_directory(records_dir)  # tagged as this tool's: `codemod clean` may remove it
    index_path = records_dir / _INDEX
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
