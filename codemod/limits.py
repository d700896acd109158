"""Caps on what analysing one file may cost: CPU time and memory, set with setrlimit.

The token budget (budget.py) keeps every parse small; these caps stop whatever else a
crafted file could make expensive.  They hold in the process that analyses: each
worker of the pool, or the tool's own process with one job, where they are lifted
again once the analysis is done (validation's workers must not inherit them).

- CPU: the soft RLIMIT_CPU is set to the time used so far plus FILE_CPU_S before each
  file; the kernel's SIGXCPU then ends that file's analysis with an error.
- Memory: RLIMIT_AS is set to what the process holds when the analysis starts plus
  MEMORY_BYTES; an allocation beyond it fails (MemoryError), and the file with it.

POSIX only (no `resource` module elsewhere); the memory cap needs Linux's /proc to
know the process's size.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

FILE_CPU_S = 30
MEMORY_BYTES = 2 << 30

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]


class OverBudget(Exception):
    """One file's analysis went over a cap; the message says which."""


_state: dict = {"armed": False, "cpu": False}


def _over_cpu(signum, frame) -> None:
    if _state["armed"]:
        _state["armed"] = False
        raise OverBudget(f"over the {FILE_CPU_S} s CPU limit for analysing one file")


def _address_space() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


@contextlib.contextmanager
def capped() -> Iterator[None]:
    """Caps for the analysis done inside; the previous limits and handler come back after."""
    if resource is None:
        yield
        return
    restore: list = []
    size = _address_space()
    if size is not None and hasattr(resource, "RLIMIT_AS"):
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        wanted = size + MEMORY_BYTES
        if hard == resource.RLIM_INFINITY or wanted < hard:
            if soft == resource.RLIM_INFINITY or wanted < soft:
                resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
                restore.append(lambda: resource.setrlimit(resource.RLIMIT_AS, (soft, hard)))
    # Signal handlers can only be set from the main thread (an API user's thread goes without).
    if hasattr(signal, "SIGXCPU") and threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGXCPU, _over_cpu)
        _state["cpu"] = True

        def back() -> None:
            _state["cpu"] = False
            signal.signal(signal.SIGXCPU, previous)

        restore.append(back)
    try:
        yield
    finally:
        for undo in reversed(restore):
            undo()


def enter_worker() -> None:
    """Caps for the rest of a pool worker's life."""
    caps = capped()
    caps.__enter__()
    _state["worker"] = caps  # kept: a collected context manager would lift the caps


@contextlib.contextmanager
def one_file() -> Iterator[None]:
    """FILE_CPU_S of CPU time for the analysis of one file (inside `capped`)."""
    if resource is None or not _state["cpu"]:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    limit = int(usage.ru_utime + usage.ru_stime) + 1 + FILE_CPU_S
    if (hard != resource.RLIM_INFINITY and limit >= hard) or (soft != resource.RLIM_INFINITY and limit >= soft):
        yield  # a lower limit is set already (ulimit -t): it applies as it is
        return
    resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    _state["armed"] = True
    try:
        yield
    finally:
        _state["armed"] = False
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
