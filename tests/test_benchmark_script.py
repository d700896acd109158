"""Fast checks of benchmarks/run_benchmark.py on a tiny synthetic corpus.

The real tool and the real corpora are not needed: the tool command is a
stand-in script that behaves like `codemod run` with respect to its cache.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "run_benchmark.py"


def _load():
    spec = importlib.util.spec_from_file_location("run_benchmark", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    # Loading by path would otherwise drop a __pycache__ into benchmarks/.
    old, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        sys.modules["run_benchmark"] = mod
        spec.loader.exec_module(mod)
    finally:
        sys.dont_write_bytecode = old
    return mod


rb = _load()

# Stand-in for `codemod run`: reads the corpus, logs whether it found a
# `.codemod/` cache (and makes one unless cold), imports a module from the repository (which
# would write a __pycache__ there unless the harness redirects it) and has a
# grandchild allocate ~80 MB so the peak must come from the process tree (held for 0.3 s: the
# whole-tree sampler looks every 10 ms, and a loaded machine may delay a look by more).
FAKE_TOOL = r"""
import os, subprocess, sys
target, mode, log = sys.argv[1:4]
for d, _, fs in os.walk(target):
    for f in fs:
        if f.endswith('.py'):
            open(os.path.join(d, f), 'rb').read()
cache = os.path.join(target, '.codemod')
seen = 'hit' if os.path.isdir(cache) else 'miss'
with open(log, 'a') as fh:
    fh.write(f'{mode}:{seen}\n')
if mode != 'cold':
    os.makedirs(cache, exist_ok=True)
    open(os.path.join(cache, 'state'), 'w').write('x')
import benchmarks.run_benchmark
subprocess.run([sys.executable, '-c', 'import time; b = b"x" * 80_000_000; time.sleep(0.3)'], check=True)
if mode == 'fail':
    sys.exit(2)
"""


def fake_tool(log: Path, modes=("cold", "warm")):
    def build(target: Path, cache: bool) -> list[str]:
        return [sys.executable, "-c", FAKE_TOOL, str(target), modes[1] if cache else modes[0], str(log)]

    return build


def make_corpus(root: Path) -> Path:
    src = root / "timm-1.0.31" / "timm"
    (src / "models").mkdir(parents=True)
    (src / "__init__.py").write_text("from .models import *\n")
    (src / "models" / "__init__.py").write_text("")
    (src / "models" / "bench_probe_net.py").write_text(
        "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.scale = torch.tensor(1.0)"  # no trailing newline
    )
    (src / "BENCH_PROBE.txt").write_text("not python\n")
    return src


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git"]
        for name in dirs + files:
            p = Path(d, name)
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_size if p.is_file() else 0, st.st_mtime_ns if p.is_file() else 0)
    return out


def harness_traces(before: dict, after: dict) -> list[str]:
    """New or changed repository paths that this harness or the stand-in tool could have made.

    Other files may legitimately change while the test runs (the tree is being
    worked on), so only look for what a leak would look like: pycache of the
    imported benchmarks module, a tool cache, or a copy of the corpus.
    """
    changed = [p for p, v in after.items() if before.get(p) != v]
    return [p for p in changed
            if p.startswith("benchmarks" + os.sep) or {".codemod", "timm"} & set(Path(p).parts)
            or Path(p).name in {"bench_probe_net.py", "BENCH_PROBE.txt"}]


def test_corpus_stats_counts_py_files_and_lines(tmp_path):
    src = make_corpus(tmp_path)
    stats = rb.corpus_stats(src)
    assert stats.files == 3
    assert stats.lines == 1 + 0 + 6  # the unterminated last line counts


def test_cache_dir_resolution_and_repo_guard(tmp_path, monkeypatch):
    env = {rb.CACHE_ENV: str(tmp_path / "env")}
    assert rb.resolve_cache_dir(str(tmp_path / "arg"), env) == (tmp_path / "arg").resolve()
    assert rb.resolve_cache_dir(None, env) == (tmp_path / "env").resolve()
    assert rb.resolve_cache_dir(None, {}) == Path("~/.cache/codemod-bench").expanduser().resolve()
    with pytest.raises(rb.BenchError):
        rb.resolve_cache_dir(str(REPO / "corpora"), {})


def test_fetch_keeps_only_the_package_and_skips_when_present(tmp_path):
    wheel_src = tmp_path / "timm-1.0.31-py3-none-any.whl"
    with zipfile.ZipFile(wheel_src, "w") as zf:
        zf.writestr("timm/__init__.py", "x = 1\n")
        zf.writestr("timm/layers/a.py", "y = 2\n")
        zf.writestr("timm-1.0.31.dist-info/METADATA", "Name: timm\n")
    calls = []

    def downloader(req, dest):
        calls.append(req)
        (dest / wheel_src.name).write_bytes(wheel_src.read_bytes())

    cache = tmp_path / "cache"
    src = rb.fetch_corpus("timm", cache, downloader=downloader)
    assert calls == ["timm==1.0.31"]
    assert src == cache / "timm-1.0.31" / "timm"
    assert sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()) == [
        "timm-1.0.31/timm/__init__.py", "timm-1.0.31/timm/layers/a.py"]
    assert rb.fetch_corpus("timm", cache, downloader=downloader) == src
    assert calls == ["timm==1.0.31"]  # second call found it and did not download


def test_fetch_refuses_unsafe_wheel_members(tmp_path):
    wheel = tmp_path / "timm-1.0.31-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("timm/../../escape.py", "")
    with pytest.raises(rb.BenchError):
        rb.fetch_corpus("timm", tmp_path / "cache",
                        downloader=lambda req, dest: (dest / wheel.name).write_bytes(wheel.read_bytes()))
    assert not (tmp_path / "escape.py").exists()


def test_default_tool_command_flags():
    cold = rb.default_tool_command()(Path("/c"), False)
    assert cold[1:] == ["-m", "codemod", "run", "--dry-run", "--no-validate", "--no-cache", "/c"]
    warm = rb.default_tool_command(jobs=3)(Path("/c"), True)
    assert warm[1:] == ["-m", "codemod", "run", "--dry-run", "--no-validate", "--jobs", "3", "/c"]


def test_run_child_peak_covers_grandchildren(tmp_path):
    code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'b = b\"x\" * 120_000_000'])"
    res = rb.run_child([sys.executable, "-c", code], tmp_path)
    assert res.returncode == 0
    assert res.peak_mb >= 120
    assert res.wall_s > 0


def test_run_child_peak_covers_orphans_under_subreaper(tmp_path):
    # The tool exits without waiting for its child, as an unjoined pool would.
    code = ("import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
            "'import time; b = b\"x\" * 150_000_000; time.sleep(0.3)'])")
    with rb.subreaper() as ok:
        res = rb.run_child([sys.executable, "-c", code], tmp_path)
    assert ok  # Linux
    assert res.returncode == 0
    assert res.peak_mb >= 150


def test_run_child_samples_the_whole_tree_at_once(tmp_path):
    # Parent and child hold their memory at the same time: the tree holds their sum.
    code = ("import subprocess, sys; b = b'x' * 100_000_000; "
            "subprocess.run([sys.executable, '-c', 'import time; b = b\"x\" * 120_000_000; time.sleep(0.3)'])")
    res = rb.run_child([sys.executable, "-c", code], tmp_path, sample_tree=True)
    assert res.returncode == 0
    assert res.peak_mb >= 120  # the largest single process
    assert res.tree_peak_mb is not None and res.tree_peak_mb >= 220
    assert rb.run_child([sys.executable, "-c", "pass"], tmp_path).tree_peak_mb is None  # not sampled


def test_verdicts_medians_and_table():
    r = rb.CorpusResult("transformers", "5.23.0", 304, 141127, 1,
                        baseline_s=[1.0, 3.0, 2.0], cold_s=[1.2, 5.0, 1.1], warm_s=[0.2, 0.1, 0.3],
                        cold_peak_mb=[100.0, 450.0, 90.0], warm_peak_mb=[80.0, 70.0, 60.0], tree_peak_mb=300.0)
    assert r.median_baseline == 2.0 and r.median_cold == 1.2 and r.median_warm == 0.2
    assert r.cold_ratio == pytest.approx(0.6) and r.warm_ratio == pytest.approx(0.1)
    assert r.peak_mb == 450.0
    assert r.verdicts() == {"cold": True, "warm": True, "peak": False}  # limits are inclusive
    table = rb.format_table([r])
    header, _, row = table.splitlines()
    assert header.split()[:9] == ["corpus", "files", "lines", "base", "s", "cold", "s", "cold", "x"]
    assert row.split() == ["transformers", "304", "141,127", "2.00", "1.20", "0.60", "0.20", "0.100", "450", "300",
                           "PASS", "PASS", "FAIL"]
    # The whole tree counts too: largest process within the limit, the tree over it.
    r.cold_peak_mb, r.tree_peak_mb = [100.0], 401.0
    assert r.verdicts()["peak"] is False
    r.tree_peak_mb = None  # not measurable here
    assert r.verdicts()["peak"] is True
    assert rb.format_table([r]).splitlines()[2].split()[9] == "n/a"
    # The cold target is set for transformers only; the others show their ratio, not a verdict.
    r.corpus = "timm"
    r.cold_s = [9.0]
    assert r.verdicts()["cold"] is None
    assert rb.format_table([r]).splitlines()[2].split()[10] == "n/a"


def test_main_end_to_end_on_synthetic_corpus(tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    src = make_corpus(cache)
    before_src = snapshot(src)
    before_repo = snapshot(REPO)

    order = []
    real_run_child = rb.run_child

    def recording_run_child(cmd, *a, **kw):
        order.append("baseline" if cmd[2] == rb.BASELINE_CODE else "interpreter" if cmd == rb.INTERPRETER_COMMAND else cmd[-2])
        return real_run_child(cmd, *a, **kw)

    monkeypatch.setattr(rb, "run_child", recording_run_child)
    out_json = tmp_path / "out.json"
    rc = rb.main(["--corpus", "timm", "--runs", "1", "--cache-dir", str(cache), "--json", str(out_json)],
                 tool_command=fake_tool(tmp_path / "tool.log"), downloader=lambda *a: pytest.fail("corpus was cached"))
    captured = capsys.readouterr()
    assert rc == 0, captured.err

    # Warm-up (baseline + cache-filling run), then baseline, a bare interpreter, cold, warm
    # alternating, then one untimed cold and warm run that sample the whole tree's memory.
    assert order == ["baseline", "warm", "baseline", "interpreter", "cold", "warm", "cold", "warm"]
    # Cold runs saw no cache; warm runs saw the one the first run made.
    assert (tmp_path / "tool.log").read_text().split() == ["warm:miss", "cold:miss", "warm:hit", "cold:miss", "warm:hit"]
    assert snapshot(src) == before_src  # the tool only ever saw a copy
    assert harness_traces(before_repo, snapshot(REPO)) == []  # nothing written into the repository

    report = json.loads(out_json.read_text())
    (r,) = report["results"]
    assert (r["corpus"], r["files"], r["lines"]) == ("timm", 3, 7)
    assert len(r["baseline_s"]) == len(r["cold_s"]) == len(r["warm_s"]) == 1
    assert r["cold_ratio"] == pytest.approx(r["cold_s"][0] / r["baseline_s"][0])
    assert r["warm_ratio"] == pytest.approx(r["warm_s"][0] / r["baseline_s"][0])
    assert r["peak_mb"] >= 80  # the grandchild's allocation is seen
    assert r["tree_peak_mb"] >= 80
    assert set(r["passed"]) == {"cold", "warm", "peak"}
    assert len(r["interpreter_s"]) == 1
    assert r["interpreter_ratio"] == pytest.approx(r["interpreter_s"][0] / r["baseline_s"][0])
    assert "a bare interpreter start" in captured.out
    assert report["targets"] == {"cold_ratio": 0.6, "warm_ratio": 0.1, "peak_mb": 400.0}
    assert "timm" in captured.out and ("PASS" in captured.out or "FAIL" in captured.out)


def test_main_reports_tool_failure(tmp_path, capsys):
    cache = tmp_path / "cache"
    make_corpus(cache)
    rc = rb.main(["--corpus", "timm", "--runs", "1", "--cache-dir", str(cache)],
                 tool_command=fake_tool(tmp_path / "tool.log", ("cold", "fail")))
    assert rc == 2
    assert "exited with 2" in capsys.readouterr().err
