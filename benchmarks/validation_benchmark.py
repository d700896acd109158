#!/usr/bin/env python3
"""Benchmark validation: a validated run against a bare ``import torch``, the tool's own cost per
validated class, and the warm re-run.

Usage:
    python benchmarks/validation_benchmark.py [--only ratio|overhead] [--classes 4,16] [--runs 3] [--jobs N]
                                              [--json OUT] [--check]

**Ratio** (target: at most 2x).  For the shipped example (examples/research_repo, with its
examples file) and for an eleven-class repository written in a temporary directory (no
examples file, no records: every class is built and fed with no setup; a sequence model, an
image model, a graph model, losses, a time embedding, a class built as its ``__main__`` block
does, ...), it times, alternating within each round, ``python -c "import torch"`` and
``codemod run --dry-run --no-cache --format json REPO`` (a cold validated run), and reports
the ratio of the medians.  From the run's JSON it reports how the rewrites were judged: the
share passed, and the share passed with a forward compared (in float32 and after each cast).

**Overhead.**  For two sizes of a synthetic repository (small module classes that build
with no arguments, each with one raw tensor to rewrite), it times, alternating within each
round:

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
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

TARGET_RATIO = 2.0  # a cold validated run, relative to a bare `import torch`
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


# Eleven classes of the kinds research code is made of, none with an example or a record.
ELEVEN = {
    "zoo/__init__.py": "",
    "pyproject.toml": "[project]\nname = 'zoo'\nversion = '0'\n",
    "zoo/config.py": '''
from dataclasses import dataclass


@dataclass
class TextConfig:
    vocab_size: int = 20
    hidden_size: int = 16
    max_len: int = 64
''',
    "zoo/text.py": '''
import torch
import torch.nn as nn

from zoo.config import TextConfig


class TokenEncoder(nn.Module):
    def __init__(self, config: TextConfig):
        super().__init__()
        self.emb = nn.Embedding(config.vocab_size, config.hidden_size)
        self.positions = torch.arange(config.max_len)
        self.pos = nn.Embedding(config.max_len, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size)

    def forward(self, tokens):
        return self.norm(self.emb(tokens) + self.pos(self.positions[: tokens.size(1)]))


class CausalAttention(nn.Module):
    def __init__(self, dim=16, max_len=32):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.mask = torch.tril(torch.ones(max_len, max_len, dtype=torch.bool))

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        t = x.size(1)
        scores = (q @ k.transpose(-2, -1)).masked_fill(~self.mask[:t, :t], float("-inf"))
        return scores.softmax(-1) @ v


class Recurrent(nn.Module):
    def __init__(self, input_size, hidden_size, bidirectional=False):
        super().__init__()
        self.rnn = nn.GRU(input_size, hidden_size, batch_first=True, bidirectional=bidirectional)
        directions = 2 if bidirectional else 1
        self.h0 = torch.zeros(directions, 1, hidden_size)

    def forward(self, x):
        out, _ = self.rnn(x, self.h0.expand(-1, x.size(0), -1).contiguous())
        return out
''',
    "zoo/vision.py": '''
import torch
import torch.nn as nn


class ConvNet(nn.Module):
    def __init__(self, in_channels=3, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(in_channels, 8, 3, stride=2), nn.ReLU(),
                                      nn.Conv2d(8, 8, 3, stride=2), nn.ReLU())
        self.head = nn.Linear(8, classes)
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

    def forward(self, image):
        x = self.features((image - self.mean) / self.std)
        return self.head(x.mean((2, 3)))


class Patches(nn.Module):
    def __init__(self, patch, dim):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(patch * patch * 3, dim)
        self.pos = torch.linspace(0, 1, dim)

    def forward(self, images):
        b, c, h, w = images.shape
        p = self.patch
        x = images.unfold(2, p, p).unfold(3, p, p).reshape(b, -1, c * p * p)
        return self.proj(x) + self.pos


if __name__ == "__main__":
    model = Patches(patch=4, dim=8)
    print(model(torch.randn(2, 3, 12, 12)).shape)
''',
    "zoo/graph.py": '''
import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, num_nodes, dim):
        super().__init__()
        self.adj = torch.eye(num_nodes) + torch.ones(num_nodes, num_nodes) / num_nodes
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return self.adj @ self.lin(x)


class Gated(nn.Module):
    def __init__(self, dim=16, gated=False):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        if gated:
            self.gate = torch.linspace(0, 1, dim)
        else:
            self.gate = torch.ones(dim)

    def forward(self, x):
        return self.lin(x) * self.gate
''',
    "zoo/losses.py": '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0):
        super().__init__()
        self.gamma = torch.tensor(gamma)

    def forward(self, input, target):
        p = torch.sigmoid(input)
        return ((1 - p) ** self.gamma * F.binary_cross_entropy_with_logits(input, target, reduction="none")).mean()


class SpectralLoss(nn.Module):
    def __init__(self, n_fft=16):
        super().__init__()
        self.n_fft = n_fft
        self.window = torch.hann_window(n_fft)

    def forward(self, pred, gt):
        a = torch.stft(pred, self.n_fft, window=self.window, return_complex=True).abs()
        b = torch.stft(gt, self.n_fft, window=self.window, return_complex=True).abs()
        return F.l1_loss(a, b)
''',
    "zoo/time.py": '''
import math

import torch
import torch.nn as nn


class TimeEmbedding(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        half = dim // 2
        self.freqs = torch.exp(-math.log(10000.0) * torch.arange(half) / half)
        self.proj = nn.Linear(dim, dim)

    def forward(self, t):
        args = t[:, None] * self.freqs[None]
        return self.proj(torch.cat([args.sin(), args.cos()], dim=-1))
''',
}


def make_eleven(root: Path) -> Path:
    for name, text in ELEVEN.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def evidence(document: dict) -> dict:
    """How a run's rewrites were judged, from its JSON document."""
    rewrites = [f for f in document["findings"] if f["action"] != "skip" and "verdict" in f]
    verdicts: dict[str, int] = {}
    for finding in rewrites:
        verdicts[finding["verdict"]] = verdicts.get(finding["verdict"], 0) + 1
    passed = [f for f in rewrites if f["verdict"] == "passed"]
    forward = [f for f in passed if f.get("forward") == "compared"]
    return {"rewrites": len(rewrites), "verdicts": verdicts, "passed": len(passed), "passed_with_forward": len(forward)}


def measure_ratio(name: str, repo: Path, runs: int, scratch: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["CODEMOD_CACHE_DIR"] = str(scratch / f"cache-{name}")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    tool = [sys.executable, "-m", "codemod", "run", "--dry-run", "--no-cache", "--format", "json", str(repo)]
    samples: dict[str, list[float]] = {"import_torch": [], "validated_run": []}
    document = None
    for round_ in range(runs):
        sys.stderr.write(f"  {name}, round {round_ + 1}/{runs}\n")
        samples["import_torch"].append(timed([sys.executable, "-c", "import torch"], env, scratch))
        started = time.perf_counter()
        result = subprocess.run(tool, cwd=str(scratch), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        samples["validated_run"].append(time.perf_counter() - started)
        if result.returncode not in (0, 1):
            sys.stderr.write(result.stderr.decode("utf-8", "replace")[-2000:])
            raise SystemExit(f"{' '.join(tool)} exited {result.returncode}")
        document = json.loads(result.stdout)
    medians = {k: statistics.median(v) for k, v in samples.items()}
    return {"name": name, "samples": samples, "median": medians,
            "ratio": medians["validated_run"] / medians["import_torch"], "evidence": evidence(document or {})}


def ratios(runs: int, scratch: Path) -> list[dict]:
    example = scratch / "research_repo"
    shutil.copytree(REPO_ROOT / "examples" / "research_repo", example)
    eleven = make_eleven(scratch / "eleven")
    return [measure_ratio("examples/research_repo", example, runs, scratch),
            measure_ratio("eleven classes, no setup", eleven, runs, scratch)]


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
    parser.add_argument("--only", choices=("ratio", "overhead"), default=None, help="measure only one of the two")
    parser.add_argument("--classes", default="4,16", help="two repository sizes, in classes (default 4,16)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="passed to codemod run -j (default: its own)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    options = parser.parse_args(argv)
    small, large = (int(x) for x in options.classes.split(","))
    if large <= small:
        parser.error("--classes needs a small and a larger size")
    verdicts: dict[str, bool] = {}
    record: dict = {"cpus": os.cpu_count(), "python": sys.version.split()[0], "machine": platform.platform(),
                    "load_before": _load()}
    with tempfile.TemporaryDirectory(prefix="codemod-validation-bench-") as temporary:
        scratch = Path(temporary)
        if options.only in (None, "ratio"):
            measured = ratios(options.runs, scratch)
            print(f"{'repository':<26}  {'import torch s':>14}  {'validated run s':>15}  {'ratio':>5}  "
                  f"{'rewrites':>8}  {'passed':>6}  {'with a forward':>14}")
            for result in measured:
                m, e = result["median"], result["evidence"]
                print(f"{result['name']:<26}  {m['import_torch']:>14.2f}  {m['validated_run']:>15.2f}  "
                      f"{result['ratio']:>5.2f}  {e['rewrites']:>8}  {e['passed']:>6}  {e['passed_with_forward']:>14}")
                verdicts[f"ratio {result['name']}"] = result["ratio"] <= TARGET_RATIO
            for result in measured:
                e = result["evidence"]
                share = e["passed_with_forward"] / e["passed"] if e["passed"] else 0.0
                print(f"{result['name']}: ratio {result['ratio']:.2f} (target <= {TARGET_RATIO}) "
                      f"{'PASS' if result['ratio'] <= TARGET_RATIO else 'FAIL'}; verdicts {e['verdicts']}; "
                      f"{share:.0%} of the passes compared a forward "
                      f"({e['passed_with_forward']} of {e['rewrites']} rewrites passed with a forward)")
            record["ratios"] = measured
        if options.only in (None, "overhead"):
            results = [measure(n, options.runs, options.jobs, scratch) for n in (small, large)]
            a, b = results[0]["median"], results[1]["median"]
            per_class = (b["overhead"] - a["overhead"]) / (large - small)
            fixed = a["overhead"] - per_class * small
            warm = b["warm"]
            verdicts.update({
                "per_class": per_class <= TARGET_PER_CLASS_S,
                "warm_s": warm <= TARGET_WARM_S,
                "warm_ratio": warm / b["cold"] <= TARGET_WARM_RATIO,
            })
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
            record.update({"results": results, "per_class_s": per_class, "fixed_s": fixed, "warm_s": warm})
    record["load_after"] = _load()
    print(f"load average before and after: {record['load_before']} / {record['load_after']} on {os.cpu_count()} cpus")
    if options.json:
        options.json.write_text(json.dumps(dict(record, verdicts=verdicts), indent=2) + "\n")
    return 1 if options.check and not all(verdicts.values()) else 0


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


if __name__ == "__main__":
    sys.exit(main())
