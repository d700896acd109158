"""Golden cases: every folder of ``golden/`` is one documented example of the codemod.

A case folder holds:

* ``input.py``     the module as a user wrote it;
* ``expected.py``  the module the codemod must produce (equal to input.py when
                   there is nothing to rewrite), byte for byte, encoding and
                   line endings included;
* ``report.txt``   the finding lines the codemod must print, one per line,
                   with the file shown as ``input.py``;
* ``examples.py``  (optional) how to build classes whose constructors need
                   arguments, written with ``codemod.examples``; the module
                   under test is importable as ``input``;
* ``repo/``        (optional) other files of the same repository, importable
                   by their path under ``repo/`` (``repo/masks.py`` is ``masks``).
* ``pyproject.toml`` (optional) the project's formatter settings (line length,
                   quotes), read as ``codemod run`` reads them.

For each case the tests check that the rewrite matches ``expected.py``, that
the findings match ``report.txt``, that a second run over ``expected.py``
changes nothing, and that both files import and build (in one separate
interpreter, as the module ``input``).  Every module class that has an example
or a zero-argument constructor is built from both files; for ``expected.py``
each attribute that ``report.txt`` says was rewritten must be a buffer (with
the reported persistence) or a parameter, and the built module must hold the
same tensors, with the same values, as the one built from ``input.py`` (and
give the same ``forward`` output when the example has inputs).

``pytest --update-golden`` rewrites ``expected.py`` and ``report.txt`` from
the tool's current output instead of comparing; review the diff before
keeping it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
DISPLAY_PATH = Path("input.py")
RUN_TIMEOUT_S = 900

_FINDING_RE = re.compile(
    r"^input\.py:(?P<line>\d+):(?P<col>\d+): (?P<cls>[^.\s]+)\.(?P<attr>\S+) -> "
    r"(?P<target>register_buffer|nn\.Parameter) \((?P<reason>.*)\)$"
)


def _case_dirs() -> list[Path]:
    if not GOLDEN.is_dir():
        return []
    return sorted(p for p in GOLDEN.iterdir() if p.is_dir() and (p / "input.py").is_file())


CASES = _case_dirs()
CASE_IDS = [p.name for p in CASES]


# -- running the codemod the way the tool does ---------------------------------------------------


def _repo_files(case: Path) -> list[tuple[Path, str]]:
    """(path, dotted module name) of the other repository files of a case."""
    repo = case / "repo"
    if not repo.is_dir():
        return []
    found = []
    for path in sorted(repo.rglob("*.py")):
        parts = list(path.relative_to(repo).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            found.append((path, ".".join(parts)))
    return found


def _index(case: Path):
    from codemod.fileio import read_source
    from codemod.repo_index import RepoIndex

    index = RepoIndex(root=case)  # the case is the repository: its requirements.txt, if any, is read
    for path, name in _repo_files(case):
        # shown as the tool shows a project's files: relative to the root, where input.py is
        index.add_file(path.relative_to(case), text=read_source(path).text, name=name)
    return index


def _transform(case: Path, file_name: str):
    """Read ``case/file_name`` as the tool does and transform it as ``input.py``."""
    from codemod.api import transform_source
    from codemod.config import load_style
    from codemod.fileio import read_source

    source = read_source(case / file_name)
    style = load_style(case) if (case / "pyproject.toml").is_file() else None
    result = transform_source(source.text, path=DISPLAY_PATH, persistent=_persistent(case), index=_index(case), style=style)
    return source, result


def _persistent(case: Path) -> str:
    """The case's `[tool.codemod] persistent`, as a run over the case would read it; else the default."""
    import tomllib

    pyproject = case / "pyproject.toml"
    if not pyproject.is_file():
        return "never"
    return tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("codemod", {}).get("persistent", "never")


def _report_lines(findings) -> list[str]:
    from codemod.report import finding_line

    return [finding_line(f) for f in findings]


def _read_report(case: Path) -> list[str]:
    path = case / "report.txt"
    if not path.exists():
        return []
    return path.read_text(encoding="utf-8").splitlines()


def _update_requested(request) -> bool:
    return bool(request.config.getoption("--update-golden", default=False))


def _short_diff(expected: str, actual: str, name: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        f"{name} (expected)",
        f"{name} (codemod)",
    )
    return "".join(repr(l)[1:-1] + "\n" if "\r" in l else l for l in lines)


# -- (a) the rewritten file --------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_rewrite_matches_expected(case: Path, request):
    from codemod.fileio import encode_check

    source, result = _transform(case, "input.py")
    produced = encode_check(source, result.code)
    expected_path = case / "expected.py"
    if _update_requested(request):
        if not expected_path.exists() or expected_path.read_bytes() != produced:
            expected_path.write_bytes(produced)
        return
    expected = expected_path.read_bytes()
    if produced != expected:
        text_expected = expected.decode(source.encoding, errors="replace")
        text_produced = produced.decode(source.encoding, errors="replace")
        diff = _short_diff(text_expected, text_produced, "expected.py")
        pytest.fail(f"rewrite of {case.name}/input.py differs from expected.py:\n{diff or '(bytes differ: encoding, BOM or line endings)'}")


# -- (b) the findings --------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_report_matches(case: Path, request):
    _, result = _transform(case, "input.py")
    produced = _report_lines(result.findings)
    if _update_requested(request):
        text = "".join(line + "\n" for line in produced)
        path = case / "report.txt"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return
    expected = _read_report(case)
    if produced != expected:
        diff = _short_diff("".join(l + "\n" for l in expected), "".join(l + "\n" for l in produced), "report.txt")
        pytest.fail(f"findings of {case.name} differ from report.txt:\n{diff}")


# -- (c) idempotence ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_second_run_changes_nothing(case: Path):
    from codemod.ftypes import Action

    source, result = _transform(case, "expected.py")
    rewrites = [line for f, line in zip(result.findings, _report_lines(result.findings)) if f.action is not Action.SKIP]
    assert not rewrites, "a second run over expected.py still rewrites:\n" + "\n".join(rewrites)
    if result.code != source.text:
        pytest.fail("a second run over expected.py changes it:\n" + _short_diff(source.text, result.code, "expected.py"))


# -- (d) the files import and their modules build ------------------------------------------------


@dataclass(frozen=True)
class _Expectation:
    class_name: str
    attribute: str
    action: str  # "buffer" | "parameter"
    persistent: bool
    line: int  # of the rewritten statement: which of two same-named classes it is in


def _expectations(case: Path) -> list[_Expectation]:
    found = []
    for line in _read_report(case):
        match = _FINDING_RE.match(line)
        if match is None:
            continue
        buffer = match["target"] == "register_buffer"
        found.append(
            _Expectation(
                match["cls"],
                match["attr"],
                "buffer" if buffer else "parameter",
                not match["reason"].startswith("persistent=False"),
                int(match["line"]),
            )
        )
    return found


def _uninitialised(case: Path) -> list[str]:
    """``Class.attr`` of tensors made from uninitialised memory: their values cannot be compared."""
    names = []
    for line in _read_report(case):
        match = _FINDING_RE.match(line)
        if match is not None and "uninitialised memory" in match["reason"]:
            names.append(f"{match['cls']}.{match['attr']}")
    return names


@pytest.fixture(scope="session")
def golden_runs(tmp_path_factory) -> dict:
    """Import and build every case's input.py and expected.py, all in one fresh interpreter."""
    jobs = []
    for case in CASES:
        for variant in ("input", "expected"):
            jobs.append(
                {
                    "key": f"{case.name}:{variant}",
                    "case_dir": str(case),
                    "file": str(case / f"{variant}.py"),
                    "checks": [e.__dict__ for e in _expectations(case)] if variant == "expected" else [],
                    "uninitialised": _uninitialised(case),
                }
            )
    work = tmp_path_factory.mktemp("golden_runs")
    spec = work / "jobs.json"
    out = work / "results.json"
    spec.write_text(json.dumps({"jobs": jobs, "work": str(work)}), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("PYTHONHASHSEED", "0")
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--run-golden", str(spec), str(out)],
        cwd=str(work),
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )
    if not out.exists():
        pytest.fail(f"the golden runner died (rc={completed.returncode}):\n{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def _check_run(golden_runs: dict, key: str) -> None:
    record = golden_runs.get(key)
    assert record is not None, f"no result for {key}"
    if not record["ok"]:
        pytest.fail(f"{key} does not import/build:\n{record['error']}")
    if record["problems"]:
        pytest.fail(f"{key}:\n" + "\n".join(record["problems"]))


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_input_imports_and_builds(case: Path, golden_runs):
    raises = case / "input_raises.txt"
    if raises.is_file():
        # an input that is broken as written (the rewrite is the fix): it must fail as the file says
        record = golden_runs.get(f"{case.name}:input")
        assert record is not None and not record["ok"], f"{case.name}: the input was expected to raise"
        assert raises.read_text(encoding="utf-8").strip() in record["error"], record["error"]
        return
    _check_run(golden_runs, f"{case.name}:input")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_expected_imports_and_builds(case: Path, golden_runs):
    _check_run(golden_runs, f"{case.name}:expected")


def test_there_are_golden_cases():
    assert len(CASES) >= 45


# -- the runner, executed in a subprocess: python tests/test_golden.py --run-golden SPEC OUT ------


def _zero_argument(cls) -> bool:
    import inspect

    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return False
    for i, param in enumerate(signature.parameters.values()):
        if i == 0 or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is param.empty:
            return False
    return True


def _check_registration(instance, checks: list[dict], class_name: str) -> list[str]:
    """Every attribute the report says was rewritten is a buffer/parameter of the built module
    (a class the module defines: a same-named class defined in a function is not built)."""
    import inspect

    lines, first = inspect.getsourcelines(type(instance))
    problems = []
    for check in checks:
        if check["class_name"] != class_name or not first <= check["line"] < first + len(lines):
            continue
        attr = check["attribute"]
        buffers = instance.__dict__.get("_buffers", {})
        parameters = instance.__dict__.get("_parameters", {})
        if check["action"] == "buffer":
            if attr in buffers:
                non_persistent = attr in instance.__dict__.get("_non_persistent_buffers_set", set())
                if non_persistent == check["persistent"]:
                    want = "persistent" if check["persistent"] else "non-persistent"
                    problems.append(f"{class_name}.{attr} is a buffer but not {want}")
            elif attr in parameters or attr in instance.__dict__:
                problems.append(f"{class_name}.{attr} should be a buffer, is {type(getattr(instance, attr)).__name__}")
        else:
            if attr not in parameters and (attr in buffers or attr in instance.__dict__):
                problems.append(f"{class_name}.{attr} should be an nn.Parameter, is {type(getattr(instance, attr)).__name__}")
    return problems


def _tensors_of(instance) -> dict:
    """The module's own tensors by attribute name: raw attributes, buffers and parameters."""
    import torch

    found = {}
    for name, value in instance.__dict__.items():
        if isinstance(value, torch.Tensor):
            found[name] = value
    for table in ("_buffers", "_parameters"):
        for name, value in instance.__dict__.get(table, {}).items():
            if value is not None:
                found[name] = value
    return found


def _flatten_output(value) -> list:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _flatten_output(item)]
    if isinstance(value, dict):
        return [t for key in sorted(value) for t in _flatten_output(value[key])]
    return []


def _same(a, b) -> bool:
    import torch

    a, b = a.detach(), b.detach()
    if a.layout != b.layout:
        return False
    if a.layout is not torch.strided:  # sparse: torch.equal has no sparse kernel
        a, b = a.to_dense(), b.to_dense()
    return a.dtype == b.dtype and a.shape == b.shape and a.device == b.device and torch.equal(a, b)


def _run_one(job: dict, tmp: Path, original: dict | None) -> tuple[dict, dict]:
    """Import ``input``, build its modules; compare with the original's values when given."""
    import copy
    import importlib
    import runpy

    import torch

    from codemod import examples as examples_api

    module = importlib.import_module("input")
    examples_api.clear()
    examples_file = Path(job["case_dir"]) / "examples.py"
    if examples_file.exists():
        runpy.run_path(str(examples_file), run_name="golden_examples")
    registered = examples_api.registered()
    built, problems = [], []
    observed: dict = {}
    for obj in list(vars(module).values()):
        if not (isinstance(obj, type) and issubclass(obj, torch.nn.Module) and obj.__module__ == "input"):
            continue
        name = obj.__qualname__
        entry = registered.get(f"input.{name}")
        torch.manual_seed(0)
        if entry is not None:
            if entry.factory is not None:
                instance = entry.factory()
            else:
                instance = obj(*copy.deepcopy(entry.args), **copy.deepcopy(entry.kwargs))
        elif _zero_argument(obj):
            instance = obj()
        else:
            continue
        built.append(name)
        outputs = None
        if entry is not None and entry.has_inputs:
            torch.manual_seed(1)
            args, kwargs = entry.make_inputs()
            with torch.no_grad():
                outputs = _flatten_output(instance(*args, **kwargs))
        observed[name] = {"tensors": _tensors_of(instance), "outputs": outputs}
        problems.extend(_check_registration(instance, job["checks"], name))
        if original is not None and name in original:
            before = original[name]
            skip = set(job.get("uninitialised", []))
            for attr, value in before["tensors"].items():
                if f"{name}.{attr}" in skip:
                    continue
                after = observed[name]["tensors"].get(attr)
                if after is None:
                    problems.append(f"{name}.{attr}: the original has this tensor, the rewritten module does not")
                elif not _same(value, after):
                    problems.append(f"{name}.{attr}: value differs from the original's (dtype/shape/device/values)")
            if before["outputs"] is not None and outputs is not None:
                if len(before["outputs"]) != len(outputs) or not all(
                    _same(a, b) for a, b in zip(before["outputs"], outputs)
                ):
                    problems.append(f"{name}: forward output differs from the original's")
    unknown = sorted(set(t for t in registered if t.rpartition(".")[2] not in built))
    problems.extend(f"examples.py names {t}, which was not built" for t in unknown)
    return {"ok": True, "built": built, "problems": problems, "error": None}, observed


def _runner_main(spec_path: str, out_path: str) -> int:
    import importlib
    import shutil
    import traceback

    from codemod.validate import cuda_standin

    # Values are compared here, devices by the validation tests: .cuda() in a constructor runs
    # on the CPU on every machine, so a dropped move gives the same value where there is a GPU.
    cuda_standin.install()
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    work = Path(spec["work"])
    results: dict[str, dict] = {}
    originals: dict[str, dict] = {}  # case -> what its input.py built, to compare expected.py with
    for number, job in enumerate(spec["jobs"]):
        tmp = work / f"job{number}"
        tmp.mkdir(parents=True, exist_ok=True)
        case_dir = Path(job["case_dir"])
        if (case_dir / "repo").is_dir():
            shutil.copytree(case_dir / "repo", tmp, dirs_exist_ok=True)
        shutil.copyfile(job["file"], tmp / "input.py")
        before = set(sys.modules)
        sys.path.insert(0, str(tmp))
        importlib.invalidate_caches()
        original = originals.get(job["case_dir"]) if job["key"].endswith(":expected") else None
        try:
            results[job["key"]], observed = _run_one(job, tmp, original)
            if job["key"].endswith(":input"):
                originals[job["case_dir"]] = observed
        except BaseException:  # noqa: BLE001 - reported per case
            results[job["key"]] = {"ok": False, "built": [], "problems": [], "error": traceback.format_exc(limit=8)}
        finally:
            sys.path.remove(str(tmp))
            for name in set(sys.modules) - before:
                module_file = getattr(sys.modules.get(name), "__file__", None) or ""
                if name == "input" or module_file.startswith(str(tmp)):
                    del sys.modules[name]
    Path(out_path).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--run-golden":
    sys.exit(_runner_main(sys.argv[2], sys.argv[3]))
