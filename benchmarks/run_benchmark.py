#!/usr/bin/env python3
"""Benchmark `codemod run` against a plain `ast.parse` of the same corpus.

Usage:
    python benchmarks/run_benchmark.py [--runs N] [--corpus transformers|timm|all]
                                       [--cache-dir DIR] [--jobs N] [--json OUT] [--check]

For every corpus (the sources of a pinned transformers / timm wheel) it times,
alternating within one run so that machine noise hits both sides alike:

* baseline: a fresh `python -c` that reads and `ast.parse`s every `.py` file;
* cold: `python -m codemod run --dry-run --no-validate --no-cache COPY`;
* warm: the same without `--no-cache`, after one untimed run filled the cache;

and the peak RSS of each tool run (largest single process of the tool's process
tree).  It prints medians, ratios to the baseline and PASS/FAIL against the
targets.  The corpora live in a cache folder outside the repository and the tool
only ever sees a scratch copy; nothing is written inside the repository.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

REPO_ROOT = Path(__file__).resolve().parents[1]

# name -> pinned version; the wheel's top-level package has the same name.
CORPORA: dict[str, str] = {
    "transformers": "5.23.0",
    "timm": "1.0.31",
}

TARGET_COLD_RATIO = 0.6
COLD_TARGET_CORPORA = ("transformers",)  # the cold target is set for the largest corpus only
TARGET_WARM_RATIO = 0.1
TARGET_PEAK_MB = 400.0

DEFAULT_CACHE = Path("~/.cache/codemod-bench")
CACHE_ENV = "CODEMOD_BENCH_CACHE"
CHILD_TIMEOUT_S = 1800.0
PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>

# Runs in a fresh interpreter: interpreter start is part of what a user pays
# for, so it is part of the baseline as it is part of the tool's time.  The
# walk must pick the same files as `list_py_files` below.
BASELINE_CODE = r"""
import ast, os, sys
n = bad = 0
for dirpath, dirnames, filenames in os.walk(sys.argv[1]):
    dirnames[:] = sorted(d for d in dirnames if not d.startswith('.') and d != '__pycache__')
    for name in sorted(filenames):
        if name.endswith('.py'):
            path = os.path.join(dirpath, name)
            with open(path, 'rb') as fh:
                src = fh.read()
            try:
                ast.parse(src, path)
            except (SyntaxError, ValueError):
                bad += 1
            n += 1
print(n, bad)
"""

# Builds the tool's argv for one corpus directory; `cache` False means a cold run.
ToolCommand = Callable[[Path, bool], list[str]]


class BenchError(RuntimeError):
    """A step of the benchmark failed; the message says which and why."""


# --------------------------------------------------------------------------- paths


def is_inside(path: Path, root: Path) -> bool:
    path, root = Path(path).resolve(), Path(root).resolve()
    return path == root or root in path.parents


def resolve_cache_dir(arg: str | None, environ: dict[str, str] | None = None) -> Path:
    """--cache-dir wins over $CODEMOD_BENCH_CACHE, which wins over the default."""
    environ = os.environ if environ is None else environ
    raw = arg or environ.get(CACHE_ENV) or str(DEFAULT_CACHE)
    cache = Path(raw).expanduser().resolve()
    if is_inside(cache, REPO_ROOT):
        raise BenchError(f"cache dir {cache} is inside the repository {REPO_ROOT}; pick one outside it")
    return cache


def list_py_files(root: Path) -> list[Path]:
    """Every `.py` file under root, skipping hidden dirs (the tool's `.codemod/`) and __pycache__."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        out.extend(Path(dirpath, n) for n in sorted(filenames) if n.endswith(".py"))
    return out


@dataclass
class CorpusStats:
    files: int
    lines: int
    bytes: int


def corpus_stats(root: Path) -> CorpusStats:
    files = lines = size = 0
    for path in list_py_files(root):
        data = path.read_bytes()
        files += 1
        size += len(data)
        # A last line without a trailing newline still counts.
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return CorpusStats(files, lines, size)


# --------------------------------------------------------------------------- fetching


def pip_download(requirement: str, dest: Path) -> None:
    """Fetch one wheel with the interpreter's own pip (honours the user's pip config)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--quiet", "--dest", str(dest), requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"`{_show(cmd)}` failed:\n{proc.stderr.strip()}")


def extract_package(wheel: Path, package: str, dest: Path) -> None:
    """Unzip only `package/` from the wheel into dest (dist-info and the rest are dropped)."""
    prefix = package + "/"
    dest_resolved = dest.resolve()
    with zipfile.ZipFile(wheel) as zf:
        members = [m for m in zf.namelist() if m.startswith(prefix)]
        if not members:
            raise BenchError(f"{wheel.name} has no {prefix} directory")
        for m in members:
            # Refuse entries that would land outside dest (absolute or `..` paths).
            if not is_inside(dest_resolved / m, dest_resolved):
                raise BenchError(f"{wheel.name}: unsafe member path {m!r}")
        zf.extractall(dest, members)


def corpus_dir(cache: Path, name: str, version: str | None = None) -> Path:
    version = version or CORPORA[name]
    return cache / f"{name}-{version}" / name


def fetch_corpus(
    name: str,
    cache: Path,
    version: str | None = None,
    downloader: Callable[[str, Path], None] = pip_download,
) -> Path:
    """Return the package source dir of `name==version`, downloading it once into cache."""
    version = version or CORPORA[name]
    final = corpus_dir(cache, name, version)
    if final.is_dir():
        return final
    cache.mkdir(parents=True, exist_ok=True)
    # Download and unpack in a private temp dir, then rename: an interrupted
    # fetch never leaves a half-extracted corpus that later runs would trust.
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=cache) as tmp:
        tmp_path = Path(tmp)
        dl = tmp_path / "wheels"
        dl.mkdir()
        downloader(f"{name}=={version}", dl)
        wheels = sorted(dl.glob(f"{name}-{version}-*.whl"))
        if not wheels:
            raise BenchError(f"no wheel for {name}=={version} was downloaded (got {sorted(p.name for p in dl.iterdir())})")
        unpacked = tmp_path / "src"
        extract_package(wheels[0], name, unpacked)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(unpacked / name, final)
    return final


# --------------------------------------------------------------------------- running children


@dataclass
class ChildResult:
    wall_s: float
    peak_mb: float  # largest RSS of the child or any descendant it reaped
    returncode: int
    stdout: str
    stderr: str
    tree_peak_mb: float | None = None  # largest sampled PSS sum of the whole tree (sample_tree)


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    # An installed tool runs from cached bytecode; recompiling codemod's own
    # modules on every run would bias the warm time.  Bytecode goes to a
    # scratch prefix (see bench_corpus), never into the repository.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Import the working tree's codemod, not some installed copy.
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_child(
    cmd: Sequence[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    capture_stdout: bool = False,
    timeout: float = CHILD_TIMEOUT_S,
    sample_tree: bool = False,
) -> ChildResult:
    """Run cmd, returning its wall time and the peak RSS of its process tree.

    os.wait4 hands back the child's rusage merged with that of every descendant
    it waited for (RUSAGE_BOTH in the kernel), so ru_maxrss is the largest
    single process of the tree: for a process pool that is the max over the
    main process and its workers, not their sum.  Descendants it did not wait
    for are added when we are a subreaper.

    With `sample_tree` (Linux), a thread also adds up the PSS of every process
    of the tree every few milliseconds: the memory the whole run holds at once,
    pages shared between a pool's forked workers counted once.  Reading it costs
    CPU, so timed runs do not sample.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(cmd), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=out if capture_stdout else subprocess.DEVNULL, stderr=err,
            start_new_session=True,  # lets a timeout kill the whole tree
        )
        timer = threading.Timer(timeout, _kill_group, args=(proc.pid,))
        timer.start()
        sampler = TreeSampler(proc.pid) if sample_tree else None
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM): the child has its own session, so
            # it would outlive us unless its group is killed here.
            _kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            timer.cancel()
            tree_peak_kib = sampler.stop() if sampler is not None else None
        wall = time.perf_counter() - start
        # We reaped it ourselves; tell Popen so it does not wait again.
        proc.returncode = os.waitstatus_to_exitcode(status)
        maxrss_kib = max(usage.ru_maxrss, _reap_orphans(proc.pid))
        out.seek(0)
        err.seek(0)
        return ChildResult(
            wall_s=wall,
            peak_mb=maxrss_kib * 1024 / 1e6,  # Linux reports KiB; decimal MB
            returncode=proc.returncode,
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
            tree_peak_mb=None if tree_peak_kib is None else tree_peak_kib * 1024 / 1e6,
        )


class TreeSampler:
    """Samples the summed PSS of a process and all its descendants until stopped (Linux)."""

    INTERVAL_S = 0.01

    def __init__(self, pid: int):
        self.pid = pid
        self.peak_kib = 0
        self.samples = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> int | None:
        """The peak in KiB, or None where /proc cannot tell it."""
        self._done.set()
        self._thread.join()
        return self.peak_kib if self.samples else None

    def _run(self) -> None:
        while not self._done.is_set():
            pids = _tree_pids(self.pid)
            sizes = [_pss_kib(pid) for pid in pids]
            if pids and sizes[0] is not None:
                self.samples += 1
                self.peak_kib = max(self.peak_kib, sum(s or 0 for s in sizes))
            self._done.wait(self.INTERVAL_S)


def _tree_pids(root: int) -> list[int]:
    pids, pending = [], [root]
    while pending:
        pid = pending.pop()
        pids.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as fh:
                    pending.extend(int(child) for child in fh.read().split())
        except OSError:
            continue  # gone already, or no /proc
    return pids


def _pss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _reap_orphans(pgid: int, grace_s: float = 5.0) -> int:
    """Reap processes of the child's group that outlived it; return their max ru_maxrss (KiB).

    They are our children only while we are a subreaper (see `subreaper`):
    e.g. workers left behind by a pool that was not joined, or a forkserver.
    Otherwise they went to init and there is nothing to wait for here.
    """
    peak = 0
    deadline = time.monotonic() + grace_s
    while True:
        try:
            pid, _, usage = os.wait4(-pgid, os.WNOHANG)
        except ChildProcessError:
            return peak
        if pid:
            peak = max(peak, usage.ru_maxrss)
        elif time.monotonic() < deadline:
            time.sleep(0.005)
        else:
            _kill_group(pgid)  # still running after the grace: it is not part of this run any more
            deadline = float("inf")


@contextlib.contextmanager
def subreaper():
    """Make this process the Linux child subreaper while benchmarking.

    Descendants orphaned by the tool are then re-parented to us instead of
    init, so their memory is still counted (see `_reap_orphans`).
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: orphans go to init, as before
        ok = False
    try:
        yield ok
    finally:
        if ok:
            libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def default_tool_command(jobs: int | None = None) -> ToolCommand:
    def build(target: Path, cache: bool) -> list[str]:
        cmd = [sys.executable, "-m", "codemod", "run", "--dry-run", "--no-validate"]
        if not cache:
            cmd.append("--no-cache")
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
        cmd.append(str(target))
        return cmd

    return build


def baseline_command(target: Path) -> list[str]:
    return [sys.executable, "-c", BASELINE_CODE, str(target)]


# A bare interpreter start: the floor under any run of a Python tool, timed for reference.
INTERPRETER_COMMAND = [sys.executable, "-c", "pass"]


# --------------------------------------------------------------------------- benchmarking


@dataclass
class CorpusResult:
    corpus: str
    version: str
    files: int
    lines: int
    bytes: int
    baseline_s: list[float] = field(default_factory=list)
    cold_s: list[float] = field(default_factory=list)
    warm_s: list[float] = field(default_factory=list)
    populate_s: float | None = None  # the untimed-for-ratio run that filled the warm cache
    baseline_peak_mb: list[float] = field(default_factory=list)
    cold_peak_mb: list[float] = field(default_factory=list)
    warm_peak_mb: list[float] = field(default_factory=list)
    tree_peak_mb: float | None = None  # whole process tree, PSS summed (Linux), from untimed runs
    interpreter_s: list[float] = field(default_factory=list)  # `python -c pass`, for reference
    baseline_syntax_errors: int = 0

    @property
    def median_baseline(self) -> float:
        return statistics.median(self.baseline_s)

    @property
    def median_cold(self) -> float:
        return statistics.median(self.cold_s)

    @property
    def median_warm(self) -> float:
        return statistics.median(self.warm_s)

    @property
    def interpreter_ratio(self) -> float | None:
        """A bare interpreter start over the baseline: no run of a Python tool can be below it."""
        if not self.interpreter_s:
            return None
        return ratio(statistics.median(self.interpreter_s), self.median_baseline)

    @property
    def cold_ratio(self) -> float:
        return ratio(self.median_cold, self.median_baseline)

    @property
    def warm_ratio(self) -> float:
        return ratio(self.median_warm, self.median_baseline)

    @property
    def peak_mb(self) -> float:
        # The target is about the worst run, so take the max, not a median.
        return max(self.cold_peak_mb + self.warm_peak_mb)

    def verdicts(self) -> dict[str, bool | None]:
        """PASS (True) or FAIL (False) per target; None where a target is not set for this corpus."""
        # Memory passes only if the largest process and the whole tree both fit.
        return {
            "cold": self.cold_ratio <= TARGET_COLD_RATIO if self.corpus in COLD_TARGET_CORPORA else None,
            "warm": self.warm_ratio <= TARGET_WARM_RATIO,
            "peak": max(self.peak_mb, self.tree_peak_mb or 0.0) <= TARGET_PEAK_MB,
        }

    def to_json(self) -> dict:
        d = asdict(self)
        d.update(
            median_baseline_s=self.median_baseline,
            median_cold_s=self.median_cold,
            median_warm_s=self.median_warm,
            cold_ratio=self.cold_ratio,
            warm_ratio=self.warm_ratio,
            peak_mb=self.peak_mb,
            interpreter_ratio=self.interpreter_ratio,
            passed=self.verdicts(),
        )
        return d


def ratio(value: float, base: float) -> float:
    return value / base if base > 0 else float("inf")


def _stash_tool_caches(work: Path, stash: Path, keep: Sequence[Path] = ()) -> list[tuple[Path, Path]]:
    """Move every `.codemod/` under work (but not under stash or keep) into stash.

    Returns (original, stashed) pairs for `_restore_tool_caches`.
    """
    moved = []
    skip = {stash, *keep}
    for dirpath, dirnames, _ in os.walk(work):
        dirnames[:] = [d for d in dirnames if Path(dirpath, d) not in skip]
        if ".codemod" in dirnames:
            dirnames.remove(".codemod")
            src = Path(dirpath, ".codemod")
            dst = stash / f"{len(moved)}"
            os.replace(src, dst)
            moved.append((src, dst))
    return moved


def _restore_tool_caches(moved: list[tuple[Path, Path]]) -> None:
    for src, dst in moved:
        if src.exists():  # a --no-cache run should not make one, but never merge two caches
            shutil.rmtree(src)
        os.replace(dst, src)


def _show(cmd: Sequence[str]) -> str:
    # Inline `-c` programs would swamp the message; name them instead.
    return " ".join("<code>" if "\n" in a else a for a in cmd)


def _check(res: ChildResult, what: str, cmd: Sequence[str]) -> ChildResult:
    if res.returncode != 0:
        if res.wall_s >= CHILD_TIMEOUT_S:
            what += f" (killed after {CHILD_TIMEOUT_S:.0f} s)"
        tail = "\n".join(res.stderr.strip().splitlines()[-30:])
        raise BenchError(f"{what} exited with {res.returncode}: {_show(cmd)}\n{tail}")
    return res


def bench_corpus(
    name: str,
    source: Path,
    runs: int,
    tool_command: ToolCommand,
    version: str = "",
    log: Callable[[str], None] = lambda msg: None,
    env: dict[str, str] | None = None,
) -> CorpusResult:
    """Time baseline / cold / warm `runs` times each, interleaved, on a scratch copy of source."""
    if runs < 1:
        raise ValueError("runs must be >= 1")
    stats = corpus_stats(source)
    result = CorpusResult(name, version, stats.files, stats.lines, stats.bytes)
    env = child_env() if env is None else env
    work = Path(tempfile.mkdtemp(prefix=f"codemod-bench-{name}-"))
    try:
        if is_inside(work, REPO_ROOT):
            raise BenchError(f"scratch dir {work} is inside the repository; set TMPDIR elsewhere")
        # The tool's cache may land in the copy, its parent or the working
        # directory (work): all of that is ours and searched before cold runs.
        copy = work / "tree" / source.name
        stash = work / "stash"  # never handed to the tool
        stash.mkdir()
        shutil.copytree(source, copy)
        # Pycache goes to the scratch dir: importing codemod from the working
        # tree would otherwise write codemod/__pycache__ into the repository.
        # The tool's result cache too (by default it lives in the user's cache directory).
        env = {**env, "PYTHONPYCACHEPREFIX": str(work / "pycache"), "CODEMOD_CACHE_DIR": str(work / "tool-cache")}

        def baseline() -> None:
            cmd = baseline_command(copy)
            res = _check(run_child(cmd, work, env, capture_stdout=True), "baseline", cmd)
            parsed, bad = (int(x) for x in res.stdout.split())
            if parsed != stats.files:
                raise BenchError(f"baseline parsed {parsed} files, expected {stats.files}")
            result.baseline_syntax_errors = bad
            result.baseline_s.append(res.wall_s)
            result.baseline_peak_mb.append(res.peak_mb)

        def tool(cache: bool, sample_tree: bool = False) -> ChildResult:
            cmd = tool_command(copy, cache)
            res = run_child(cmd, work, env, sample_tree=sample_tree)
            return _check(res, "cold tool run" if not cache else "warm tool run", cmd)

        def cold_tool(sample_tree: bool = False) -> ChildResult:
            # Cold: no tool cache anywhere in the tree.  The warm cache is moved
            # aside, not deleted, so the warm run sees exactly what the populate
            # run left and nothing changed in between.
            moved = _stash_tool_caches(work, stash, keep=[work / "pycache"])
            try:
                return tool(cache=False, sample_tree=sample_tree)
            finally:
                _restore_tool_caches(moved)

        # Untimed warm-up: fills the page cache and pycache so run 1 is not an outlier.
        log(f"{name}: warm-up")
        _check(run_child(baseline_command(copy), work, env, capture_stdout=True), "baseline", baseline_command(copy))
        result.populate_s = tool(cache=True).wall_s  # also fills the warm cache

        for i in range(runs):
            baseline()
            interpreter = _check(run_child(INTERPRETER_COMMAND, work, env), "interpreter", INTERPRETER_COMMAND)
            result.interpreter_s.append(interpreter.wall_s)
            cold = cold_tool()
            result.cold_s.append(cold.wall_s)
            result.cold_peak_mb.append(cold.peak_mb)
            warm = tool(cache=True)
            result.warm_s.append(warm.wall_s)
            result.warm_peak_mb.append(warm.peak_mb)
            log(f"{name}: run {i + 1}/{runs}: baseline {result.baseline_s[-1]:.2f}s "
                f"cold {cold.wall_s:.2f}s warm {warm.wall_s:.2f}s peak {max(cold.peak_mb, warm.peak_mb):.0f} MB")
        # Untimed: the memory of the whole process tree, sampled (which costs CPU).
        trees = [r.tree_peak_mb for r in (cold_tool(sample_tree=True), tool(cache=True, sample_tree=True))]
        if all(t is not None for t in trees):
            result.tree_peak_mb = max(trees)  # type: ignore[type-var]
            log(f"{name}: whole tree peak {result.tree_peak_mb:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


# --------------------------------------------------------------------------- reporting


def _mark(ok: bool | None) -> str:
    return "n/a" if ok is None else "PASS" if ok else "FAIL"


def format_table(results: Sequence[CorpusResult]) -> str:
    headers = ["corpus", "files", "lines", "base s", "cold s", "cold x", "warm s", "warm x", "peak MB", "tree MB",
               f"cold<={TARGET_COLD_RATIO}x", f"warm<={TARGET_WARM_RATIO}x", f"peak<={TARGET_PEAK_MB:.0f}MB"]
    rows = []
    for r in results:
        v = r.verdicts()
        rows.append([
            r.corpus, f"{r.files:,}", f"{r.lines:,}",
            f"{r.median_baseline:.2f}", f"{r.median_cold:.2f}", f"{r.cold_ratio:.2f}",
            f"{r.median_warm:.2f}", f"{r.warm_ratio:.3f}", f"{r.peak_mb:.0f}",
            "n/a" if r.tree_peak_mb is None else f"{r.tree_peak_mb:.0f}",
            _mark(v["cold"]), _mark(v["warm"]), _mark(v["peak"]),
        ])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    # Text columns left-aligned, numbers right-aligned.
    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 or i >= 10 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))
    lines = [fmt(headers), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]
    return "\n".join(lines)


def build_report(results: Sequence[CorpusResult], runs: int, jobs: int | None, cmd_example: list[str]) -> dict:
    return {
        "meta": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "runs": runs,
            "jobs": jobs,
            "tool_command": cmd_example,
            "peak_mb_means": "max ru_maxrss over the tool process and its reaped descendants (largest single process, not a sum), 1 MB = 1e6 bytes",
            "tree_peak_mb_means": "max over one untimed cold and one untimed warm run of the PSS of every process of the tool's tree added up, sampled every 10 ms (Linux)",
        },
        "targets": {"cold_ratio": TARGET_COLD_RATIO, "warm_ratio": TARGET_WARM_RATIO, "peak_mb": TARGET_PEAK_MB},
        "results": [r.to_json() for r in results],
    }


# --------------------------------------------------------------------------- CLI


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="timed runs of each kind (median reported); default 5")
    p.add_argument("--corpus", choices=[*CORPORA, "all"], default="all")
    p.add_argument("--cache-dir", help=f"where the corpora live (default ${CACHE_ENV} or {DEFAULT_CACHE})")
    p.add_argument("--jobs", type=int, help="passed to `codemod run --jobs`; default: the tool's own default")
    p.add_argument("--json", dest="json_out", help="also write the numbers to this JSON file")
    p.add_argument("--check", action="store_true", help="exit 1 when any target fails")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be >= 1")
    return args


def main(
    argv: Sequence[str] | None = None,
    tool_command: ToolCommand | None = None,
    downloader: Callable[[str, Path], None] = pip_download,
) -> int:
    args = parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731 - stdout carries the table
    tool_command = tool_command or default_tool_command(args.jobs)
    names = list(CORPORA) if args.corpus == "all" else [args.corpus]
    try:
        cache = resolve_cache_dir(args.cache_dir)
        results = []
        with subreaper():
            for name in names:
                source = fetch_corpus(name, cache, downloader=downloader)
                log(f"{name}: corpus at {source}")
                results.append(bench_corpus(name, source, args.runs, tool_command, CORPORA[name], log))
    except BenchError as exc:
        log(f"error: {exc}")
        return 2
    print(format_table(results))
    print(f"\nmedians of {args.runs} run(s); peak MB = largest single process of the tool's tree "
          "(pool workers included), max over all runs;\ntree MB = the whole tree at once (PSS of every "
          "process added up, sampled in one untimed cold and one warm run); the memory target holds both")
    for r in results:
        if r.interpreter_ratio is not None:
            print(f"{r.corpus}: a bare interpreter start (`python -c pass`) takes "
                  f"{statistics.median(r.interpreter_s):.3f} s, {r.interpreter_ratio:.3f}x of the baseline")
    if args.json_out:
        report = build_report(results, args.runs, args.jobs, tool_command(Path("CORPUS"), False))
        Path(args.json_out).write_text(json.dumps(report, indent=2) + "\n")
    if args.check and any(ok is False for r in results for ok in r.verdicts().values()):
        return 1
    return 0


if __name__ == "__main__":
    # Turn SIGTERM into SystemExit so the running child is killed and the
    # scratch copy removed on the way out, as with Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    sys.exit(main())
