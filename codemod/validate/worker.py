"""A validation worker: one subprocess, one side (original or rewritten).

The parent starts it with the repository root on ``sys.path``; the rewritten
side also installs the import overlay.  torch is imported once, then the
worker answers one JSON request per class on its protocol pipe until told to
stop.  User code may print freely: file descriptor 1 is pointed at stderr and
the protocol travels on a private duplicate of the original stdout.

The original side saves what it saw (attributes, state_dict, parameters,
outputs, device evidence) to a file with ``torch.save``; the rewritten side
loads it, gathers the same evidence from the rewritten class and judges.
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import sys
import threading
import time
from typing import Any, TextIO

_proto: TextIO | None = None


def send(message: dict[str, Any]) -> None:
    assert _proto is not None
    _proto.write(json.dumps(message) + "\n")
    _proto.flush()


def phase(name: str) -> None:
    send({"type": "phase", "phase": name})


def warm_import(name: str) -> None:
    """Import a module torch would import lazily on first use, and tell the parent how long
    it took, so that the class's timeout does not pay for it.

    Meta kernels import sympy (about a second, once per worker).
    """
    if name in sys.modules:
        return
    started = time.perf_counter()
    import importlib

    importlib.import_module(name)
    send({"type": "extend", "seconds": round(time.perf_counter() - started, 3)})


_DYNAMO_SKIPPED = False


def skip_dynamo_disable() -> None:
    """Let torch's ``_disable_dynamo`` wrappers call their function directly.

    torch wraps internal functions (decompositions, ``TorchDispatchMode.__torch_dispatch__``,
    ...) in ``torch._compile._disable_dynamo``, whose first call imports ``torch._dynamo``
    (about two thirds of the time of ``import torch`` itself) only to wrap the function so
    that a ``torch.compile`` in progress does not trace it.  Validation compiles nothing, so
    each wrapper is given its function as the already-disabled one (the attribute it caches
    it in): the meta-device run, dispatch modes, casts and backward passes then never
    import torch._dynamo.  A wrapper created later (a dispatch mode defined by the
    repository) still imports it on its first call, as torch intends.
    """
    global _DYNAMO_SKIPPED
    if _DYNAMO_SKIPPED or "torch._dynamo" in sys.modules:
        return
    _DYNAMO_SKIPPED = True
    import gc
    import types

    import torch._compile

    source = torch._compile._disable_dynamo.__code__.co_filename
    for obj in gc.get_objects():
        if type(obj) is not types.FunctionType:
            continue
        code = obj.__code__
        if code.co_name != "inner" or code.co_filename != source or not obj.__closure__:
            continue
        for cell in obj.__closure__:
            try:
                function = cell.cell_contents
            except ValueError:
                continue
            if callable(function) and not isinstance(function, bool):
                try:
                    setattr(function, "__dynamo_disable", function)
                except (AttributeError, TypeError):
                    pass


def _take_stdio() -> tuple[TextIO, TextIO]:
    """Keep private copies of stdin/stdout for the protocol; give user code stderr."""
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return proto_in, proto_out


def _exit_with_parent(watch_fd: int | None) -> None:
    """Leave, with everything this worker started, when the parent disappears.

    On POSIX a small watchdog process is forked before any user code runs; it blocks
    reading a pipe whose only write end the parent holds.  When the parent exits, however
    it exits (killed, crashed), the read returns and the watchdog kills the worker's whole
    process group (the worker runs in a session of its own), user code's children
    included.  Being a separate process, it works even while user code holds the GIL.
    """
    if watch_fd is not None and hasattr(os, "fork") and hasattr(os, "killpg"):
        pid = os.fork()
        if pid == 0:  # the watchdog: no Python cleanup, no other descriptors held open
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                os.closerange(0, watch_fd)
                os.closerange(watch_fd + 1, 65536)
                while True:
                    try:
                        if not os.read(watch_fd, 1):
                            break
                    except InterruptedError:
                        continue
                os.killpg(0, signal.SIGKILL)
            finally:
                os._exit(0)
        os.close(watch_fd)
        return
    parent = os.getppid()

    def watch() -> None:  # elsewhere: a thread polling for the parent (needs the GIL)
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, daemon=True, name="codemod-parent-watch").start()


def _holds_python(directory: str) -> bool:
    """A `.py` file in the directory itself, or a regular package (a folder with __init__.py)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return False
    return any(
        (e.is_file() and e.name.endswith(".py")) or (e.is_dir() and os.path.exists(os.path.join(e.path, "__init__.py")))
        for e in entries
    )


def _keep_namespace_packages(roots: list[str]) -> None:
    """A directory without __init__.py at the repository root is a namespace package
    (`import modules.commons`), and Python prefers a regular module of the same name anywhere
    on sys.path to it: the script folder validation adds for a file inside that directory
    (`modules/`, which holds `modules/modules.py`) would shadow it.  Such a directory is
    registered as the namespace package it is when the repository runs from its root, where
    it holds Python code of its own: a folder that only wraps a project (`ANIDSC/src/ANIDSC/`,
    a `src/` layout one level down) is no package anyone imports, and its project's package
    is the one found further down the path."""
    import importlib.machinery
    import importlib.util

    top, later = roots[0], roots[1:]
    if not later:
        return
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.isidentifier() or name in sys.modules or not entry.is_dir() or os.path.exists(os.path.join(entry.path, "__init__.py")):
            continue
        shadowed = any(
            os.path.exists(os.path.join(other, name + ".py")) or os.path.exists(os.path.join(other, name, "__init__.py"))
            for other in later
        )
        if shadowed and _holds_python(entry.path):
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [entry.path]
            sys.modules[name] = importlib.util.module_from_spec(spec)


def main(config_path: str, watch_fd: int | None = None) -> None:
    global _proto
    _exit_with_parent(watch_fd)
    proto_in, _proto = _take_stdio()
    faulthandler.enable()
    if hasattr(signal, "SIGUSR1"):
        # the parent asks for a stack dump before killing a worker that timed out
        faulthandler.register(signal.SIGUSR1, all_threads=False)
    with open(config_path, encoding="utf-8") as handle:
        config = json.load(handle)
    root = config["root"]
    roots = list(config.get("roots") or [root])
    sys.path[:] = roots + [p for p in sys.path if p not in ("", ".", *roots)]
    _keep_namespace_packages(roots)
    os.chdir(root)
    # User modules that parse the command line on import (a config.py calling
    # argparse's parse_args()) see none, as in a script run bare, not the worker's own.
    del sys.argv[1:]
    if config["side"] == "rewritten":
        from codemod.validate import overlay

        with open(config["overlay"], encoding="utf-8") as handle:
            overlay.install(json.load(handle))

    started = time.perf_counter()
    import torch

    if config.get("threads"):
        torch.set_num_threads(int(config["threads"]))
    from codemod.validate import cuda_standin

    # .cuda() in a constructor runs on the CPU in the CPU stages on both sides, on every machine;
    # the stage on a GPU suspends it
    cuda_standin.install()
    from codemod.validate import compat

    compat.restore_removed_numpy_names()  # np.float and the like, on both sides alike
    compat.restore_removed_stdlib_names()  # `from collections import Iterable`, fractions.gcd
    from codemod.validate import side

    skip_dynamo_disable()  # done in the zygote already when forked from it
    state = side.WorkerState(config)
    # torch's own objects live as long as the worker: keep them out of the collections that run
    # after every class (a full collection over them costs about 0.1-0.2 s each time).
    import gc

    gc.collect()
    gc.freeze()
    send({"type": "hello", "torch": torch.__version__, "cuda": torch.cuda.is_available(),
          "python": sys.version.split()[0], "site_dirs": side.site_dirs(),
          "device": state.device_label, "device_error": state.device_error,
          "startup_s": round(time.perf_counter() - started, 3)})
    for line in proto_in:
        request = json.loads(line)
        if request.get("op") == "exit":
            break
        try:
            result = state.handle(request)
        except BaseException as exc:  # the worker must survive anything user code raises
            result = {"status": "error", "message": f"validator error: {type(exc).__name__}: {exc}"}
        send({"type": "result", "id": request.get("id"), "result": result})
    sys.stdout.flush()
    sys.stderr.flush()
    # Nothing is left to save: skip the interpreter's teardown of torch and the user's
    # objects, which takes seconds and would hold up the end of every run.
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1])
