"""A warm parent for validation workers (Linux): torch imported once, workers forked from it.

Importing torch and sympy costs seconds of CPU per process; two workers per run (more with
restarts) paid it each time.  The zygote pays it once: it imports them, then forks one
worker per request from the tool.  torch._dynamo, which torch imports on the first call of
many internal functions and which alone costs two thirds of ``import torch``, is never
imported (worker.skip_dynamo_disable).  It never imports repository code, never
runs a tensor operation (so no thread pool exists to be broken by fork) and never touches
CUDA (a CUDA context does not survive fork).

Protocol, over a SOCK_SEQPACKET Unix socket shared with the tool: the tool sends
``{"op": "spawn", "config": PATH, "env": {...}, "cwd": DIR}`` with four descriptors attached (the worker's stdin,
its stdout, its log for stderr, and the read end of its watch pipe); the zygote answers
``{"type": "spawned", "pid": N}``, and ``{"type": "exit", "pid": N, "status": S}`` when a
worker ends (it reaps them, being their parent).  Each worker starts a session of its own,
exactly as a worker started with ``subprocess.Popen(start_new_session=True)`` does, so
the tool kills it and what it starts as one process group.  The zygote has a watch pipe of
its own (see worker._exit_with_parent): it dies with the tool.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import sys

# Imported by torch on first use (sympy, by meta kernels); every class's checks reach them.
WARM_MODULES = ("torch", "torch.fx.experimental.symbolic_shapes", "codemod.validate.side")


def serve(sock_fd: int, watch_fd: int) -> None:
    from codemod.validate.worker import _exit_with_parent

    _exit_with_parent(watch_fd)
    sock = socket.socket(fileno=sock_fd)
    import importlib

    for name in WARM_MODULES:
        importlib.import_module(name)
    from codemod.validate.worker import skip_dynamo_disable

    skip_dynamo_disable()
    gc.collect()
    gc.freeze()  # the forked workers share these pages; collections would touch (and copy) them

    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sock.send(json.dumps({"type": "ready", "pid": os.getpid()}).encode())
    while True:
        try:
            readable, _, _ = select.select([sock, wake_read], [], [])
        except InterruptedError:
            readable = [wake_read]
        if wake_read in readable:
            try:
                os.read(wake_read, 512)
            except BlockingIOError:
                pass
            _reap(sock)
        if sock not in readable:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(sock, 65536, 4)
        except OSError:
            break
        if not message:
            break  # the tool is gone
        request = json.loads(message)
        if request.get("op") != "spawn" or len(fds) != 4:
            for fd in fds:
                os.close(fd)
            if request.get("op") == "exit":
                break
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _become_worker(request, fds, sock, (wake_read, wake_write))
        for fd in fds:
            os.close(fd)
        sock.send(json.dumps({"type": "spawned", "pid": pid}).encode())
    os._exit(0)


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        try:
            sock.send(json.dumps({"type": "exit", "pid": pid, "status": os.waitstatus_to_exitcode(status)}).encode())
        except OSError:
            return


def _become_worker(request: dict, fds: list[int], sock: socket.socket, wake: tuple[int, int]) -> None:
    """In the forked child: a session of its own, the run's environment and working directory,
    the given stdio, then the worker's loop."""
    try:
        os.setsid()
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        stdin, stdout, log, watch = fds
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        os.dup2(log, 2)
        for fd in (stdin, stdout, log, *wake):
            os.close(fd)
        sock.close()
        from codemod.validate.worker import main

        main(request["config"], watch)
    finally:
        os._exit(70)

