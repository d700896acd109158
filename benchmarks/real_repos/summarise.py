"""Per repository and in all: rewrites, and their verdicts with no setup and with records.

    python benchmarks/real_repos/summarise.py OUT

OUT is the folder run.sh wrote (NAME.nosetup.json, NAME.record.json per repository).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def verdicts(path: Path) -> tuple[int, Counter]:
    findings = json.loads(path.read_text())["findings"]
    rewrites = [f for f in findings if f["action"] in ("buffer", "parameter")]
    return len(rewrites), Counter(f["verdict"] for f in rewrites)


def main(out: Path) -> None:
    total: Counter = Counter()
    for nosetup in sorted(out.glob("*.nosetup.json")):
        name = nosetup.name[: -len(".nosetup.json")]
        rewrites, before = verdicts(nosetup)
        _, after = verdicts(out / f"{name}.record.json")
        total.update(rewrites=rewrites, nosetup=before["passed"], record=after["passed"], failed=after["failed"])
        print(f"{name:28} {rewrites:3} rewrites  no setup {dict(before)}  with records {dict(after)}")
    n = total["rewrites"]
    print(f"{n} rewrites: proven with no setup {total['nosetup']}/{n}, with records {total['record']}/{n}, failed {total['failed']}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
