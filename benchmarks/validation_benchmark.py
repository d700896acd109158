#!/usr/bin/env python3
"""Benchmark validation: the tool's own cost per validated class, and the warm re-run.

Usage:
    python benchmarks/validation_benchmark.py [--classes 4,16] [--runs 3] [--jobs N] [--json OUT] [--check]

For two sizes of a synthetic repository (small module classes that build
with no arguments, each with one raw tensor to rewrite), it times, alternating
within each round:

* models: a fresh interpreter that imports torch and the repository, then
  builds every class twice and runs its forward twice (what any validation must
  do at the least, in one process);
* static: ``codemod run --check --no-validate --no-cache`` (the analysis alone);
* cold: ``codemod run --check --no-cache`` (analysis + validation, no verdict cache);
* warm: ``codemod run --check`` after one untimed run filled the verdict cache.

The overhead of validation is ``cold - static - models``; its growth between
the two sizes, divided by the number of added classes, is the tool's own cost
per validated class (worker protocol, evidence gathering, comparison,
scheduling); what is left at the small size is the fixed cost (the second
worker process, start-up, hand-offs).  Medians are reported; the targets are
in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

TARGET_PER_CLASS_S = 0.4  # the tool's own seconds per validated class, beyond building and running it
TARGET_WARM_S = 1.0  # a re-run on an unchanged repository, validation on
TARGET_WARM_RATIO = 0.1  # ... and relative to the cold run of the same repository

CLASS = '''
class Model{i}(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)
        self.norm = nn.LayerNorm(16)
        self.table = torch.arange(16.0) * {i}

    def forward(self, x):
        return self.norm(self.lin(x)) + self.table
'''

MODELS = textwrap.dedent('''
    import importlib, sys, time
    import torch
    sys.path.insert(0, sys.argv[1])
    names = sys.argv[2:]
    for name in names:
        module_name, _, cls_name = name.rpartition(".")
        cls = getattr(importlib.import_module(module_name), cls_name)
        for _ in range(2):  # the original and the rewritten side
            torch.manual_seed(0)
            model = cls().eval()
            model.state_dict()
            torch.manual_seed(1)
            model(torch.randn(2, 7, 16))
''')


def make_repository(root: Path, classes: int, per_file: int = 4) -> list[str]:
    names = []
    (root / "bench").mkdir(parents=True)
    (root / "bench" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    for start in range(0, classes, per_file):
        body = "import torch\nimport torch.nn as nn\n\n" + "".join(
            CLASS.format(i=i) for i in range(start, min(classes, start + per_file)))
        module = f"m{start // per_file}"
        (root / "bench" / f"{module}.py").write_text(body)
        names += [f"bench.{module}.Model{i}" for i in range(start, min(classes, start + per_file))]
    return names


def timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=str(cwd), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        sys.stderr.write(result.stderr.decode("utf-8", "replace")[-2000:])
        raise SystemExit(f"{' '.join(command)} exited {result.returncode}")
    return elapsed


def measure(classes: int, runs: int, jobs: int | None, scratch: Path) -> dict:
    root = scratch / f"repo-{classes}"
    names = make_repository(root, classes)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["CODEMOD_CACHE_DIR"] = str(scratch / f"cache-{classes}")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    tool = [sys.executable, "-m", "codemod", "run", "--check", "-q", str(root)] + (["-j", str(jobs)] if jobs else [])
    samples: dict[str, list[float]] = {"models": [], "static": [], "cold": [], "warm": []}
    subprocess.run(tool, cwd=str(scratch), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fill
    for round_ in range(runs):
        sys.stderr.write(f"  {classes} classes, round {round_ + 1}/{runs}\n")
        samples["models"].append(timed([sys.executable, "-c", MODELS, str(root), *names], env, scratch))
        samples["static"].append(timed(tool + ["--no-validate", "--no-cache"], env, scratch))
        samples["cold"].append(timed(tool + ["--no-cache"], env, scratch))
        samples["warm"].append(timed(tool, env, scratch))
    medians = {k: statistics.median(v) for k, v in samples.items()}
    medians["overhead"] = medians["cold"] - medians["static"] - medians["models"]
    return {"classes": classes, "samples": samples, "median": medians}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", default="4,16", help="two repository sizes, in classes (default 4,16)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="passed to codemod run -j (default: its own)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    options = parser.parse_args(argv)
    small, large = (int(x) for x in options.classes.split(","))
    if large <= small:
        parser.error("--classes needs a small and a larger size")
    with tempfile.TemporaryDirectory(prefix="codemod-validation-bench-") as temporary:
        scratch = Path(temporary)
        results = [measure(n, options.runs, options.jobs, scratch) for n in (small, large)]
    a, b = results[0]["median"], results[1]["median"]
    per_class = (b["overhead"] - a["overhead"]) / (large - small)
    fixed = a["overhead"] - per_class * small
    warm = b["warm"]
    verdicts = {
        "per_class": per_class <= TARGET_PER_CLASS_S,
        "warm_s": warm <= TARGET_WARM_S,
        "warm_ratio": warm / b["cold"] <= TARGET_WARM_RATIO,
    }
    print(f"{'classes':>7}  {'models s':>8}  {'static s':>8}  {'cold s':>7}  {'overhead s':>10}  {'warm s':>7}")
    for result in results:
        m = result["median"]
        print(f"{result['classes']:>7}  {m['models']:>8.2f}  {m['static']:>8.2f}  {m['cold']:>7.2f}  "
              f"{m['overhead']:>10.2f}  {m['warm']:>7.2f}")
    print(f"overhead per validated class: {per_class:.3f} s (target <= {TARGET_PER_CLASS_S}) "
          f"{'PASS' if verdicts['per_class'] else 'FAIL'}")
    print(f"fixed overhead of a validation run: {fixed:.2f} s")
    print(f"warm re-run: {warm:.2f} s (target <= {TARGET_WARM_S} s) {'PASS' if verdicts['warm_s'] else 'FAIL'}; "
          f"{warm / b['cold']:.3f} x the cold run (target <= {TARGET_WARM_RATIO}) "
          f"{'PASS' if verdicts['warm_ratio'] else 'FAIL'}")
    if options.json:
        options.json.write_text(json.dumps({
            "results": results, "per_class_s": per_class, "fixed_s": fixed, "warm_s": warm,
            "verdicts": verdicts, "cpus": os.cpu_count(), "python": sys.version.split()[0],
            "machine": platform.platform(),
        }, indent=2) + "\n")
    return 1 if options.check and not all(verdicts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
