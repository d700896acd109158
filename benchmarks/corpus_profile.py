#!/usr/bin/env python3
"""Cost of the building blocks a fast `codemod run` could be made of, on one corpus.

Usage:
    python benchmarks/corpus_profile.py [--corpus transformers|timm] [--cache-dir DIR]
                                        [--repeat N] [--libcst] [--json OUT]

Prints, for the cached corpus (fetched like run_benchmark.py does):
* the ast.parse baseline in a fresh interpreter (what the ratios divide by);
* interpreter start and import times of the tool's likely dependencies;
* stat-only, read-only and read+hash times over all files (a warm run's floor);
* how many files / what share of bytes contain a few prefilter substrings;
* ast.parse time of all files vs only the prefiltered ones;
* a MULTILINE regex scan for class headers over all files;
* with --libcst, libcst.parse_module time on the prefiltered files.
In-process timings are the best of --repeat runs (default 3) on files already
in the page cache.  Nothing is written anywhere except --json OUT.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import statistics
import sys
import time
import zlib
from pathlib import Path

sys.dont_write_bytecode = True  # importing the sibling module must not leave a __pycache__ in the repository
sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_benchmark as rb  # noqa: E402

CLASS_RE = re.compile(rb"^[ \t]*class\s+(\w+)\s*(\(([^)]*)\))?\s*:", re.MULTILINE)
NEEDLES = [b"torch", b"self.", b"register_buffer", b"__init__", b"nn.Module", b"torch.tensor(", b"torch.zeros("]


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def fresh_python(code: str, repeat: int) -> float:
    """Median wall time of `python -c code` (interpreter start included)."""
    times = []
    for _ in range(repeat):
        res = rb.run_child([sys.executable, "-c", code], Path.cwd())
        if res.returncode != 0:
            return float("nan")
        times.append(res.wall_s)
    return statistics.median(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", choices=list(rb.CORPORA), default="transformers")
    p.add_argument("--cache-dir")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--libcst", action="store_true", help="also time libcst.parse_module (slow)")
    p.add_argument("--json", dest="json_out")
    args = p.parse_args(argv)
    rep = max(1, args.repeat)

    root = rb.fetch_corpus(args.corpus, rb.resolve_cache_dir(args.cache_dir))
    paths = rb.list_py_files(root)
    out: dict = {"corpus": args.corpus, "path": str(root), "files": len(paths)}

    # Baseline in a fresh interpreter, exactly as run_benchmark.py runs it.
    base = [rb.run_child(rb.baseline_command(root), root, capture_stdout=True).wall_s for _ in range(rep + 2)]
    out["baseline_s_median"] = statistics.median(base[1:])  # first run warms the page cache
    out["python_start_s"] = fresh_python("pass", rep + 2)
    for mod in ("ast", "libcst", "click", "pathspec", "torch"):
        out[f"import_{mod}_s"] = fresh_python(f"import {mod}", rep + 2)

    out["stat_all_s"] = best_of(rep, lambda: [os.stat(q) for q in paths])
    data: dict[Path, bytes] = {}
    out["read_all_s"] = best_of(rep, lambda: data.update((q, q.read_bytes()) for q in paths))
    total = sum(map(len, data.values()))
    out["bytes"] = total
    out["lines"] = sum(b.count(b"\n") for b in data.values())
    for algo in ("sha1", "blake2b", "sha256"):
        out[f"read_{algo}_s"] = best_of(rep, lambda a=algo: [hashlib.new(a, q.read_bytes()).digest() for q in paths])
    out["read_crc32_s"] = best_of(rep, lambda: [zlib.crc32(q.read_bytes()) for q in paths])

    counts = {}
    for needle in NEEDLES:
        hits = [b for b in data.values() if needle in b]
        counts[needle.decode()] = {"files": len(hits), "file_share": len(hits) / len(data),
                                   "byte_share": sum(map(len, hits)) / total}
    both = [b for b in data.values() if b"torch" in b and b"self." in b]
    counts["torch AND self."] = {"files": len(both), "file_share": len(both) / len(data),
                                 "byte_share": sum(map(len, both)) / total}
    out["substring_hits"] = counts
    out["substring_scan_s"] = best_of(rep, lambda: [(b"torch" in b and b"self." in b) for b in data.values()])

    def parse(srcs):
        for b in srcs:
            try:
                ast.parse(b)
            except SyntaxError:
                pass

    out["ast_parse_all_inproc_s"] = best_of(rep, lambda: parse(data.values()))
    out["ast_parse_torch_self_s"] = best_of(rep, lambda: parse(both))

    classes = []
    out["class_regex_s"] = best_of(rep, lambda: classes.__setitem__(
        slice(None), [m for b in data.values() for m in CLASS_RE.finditer(b)]))
    out["class_regex_matches"] = len(classes)
    out["class_regex_files"] = sum(1 for b in data.values() if CLASS_RE.search(b))

    if args.libcst:
        import libcst

        def cst(srcs):
            for b in srcs:
                try:
                    libcst.parse_module(b)
                except Exception:  # parser errors are not what is measured here
                    pass

        out["libcst_parse_torch_self_s"] = best_of(1, lambda: cst(both))

    for k, v in out.items():
        if k == "substring_hits":
            print("substring hits:")
            for needle, c in v.items():
                print(f"  {needle!r:20} {c['files']:6d} files ({c['file_share']:.1%}), {c['byte_share']:.1%} of bytes")
        elif isinstance(v, float):
            print(f"{k:28} {v:.3f}")
        else:
            print(f"{k:28} {v}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
