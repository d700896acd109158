"""Parent side: worker processes, timeouts, crash recovery, scheduling.

Nothing here imports torch.  Each worker pair is one original-side and one
rewritten-side process; the original side of class N+1 runs while the
rewritten side judges class N.  A worker that hangs is killed after the
timeout and one that dies is restarted; either way only the class it was
working on loses its verdict.
"""

from __future__ import annotations

import json
import os
import queue
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the codemod package

# Load the codemod package from its directory without executing its
# __init__ and without putting its parent on sys.path (which could shadow
# the repository's own top-level modules), then run the worker.
_BOOT = (
    "import sys, importlib.util\n"
    "spec = importlib.util.spec_from_file_location('codemod', sys.argv[2] + '/__init__.py',"
    " submodule_search_locations=[sys.argv[2]])\n"
    "sys.modules['codemod'] = importlib.util.module_from_spec(spec)\n"
    "from codemod.validate.worker import main\n"
    "main(sys.argv[1], int(sys.argv[3]) if len(sys.argv) > 3 else None)\n"
)

# The same for the zygote (zygote.py), which forks the workers from one warm interpreter.
_ZYGOTE_BOOT = (
    "import sys, importlib.util\n"
    "sys.path[:] = [p for p in sys.path if p not in ('', '.')]\n"
    "spec = importlib.util.spec_from_file_location('codemod', sys.argv[1] + '/__init__.py',"
    " submodule_search_locations=[sys.argv[1]])\n"
    "sys.modules['codemod'] = importlib.util.module_from_spec(spec)\n"
    "from codemod.validate.zygote import serve\n"
    "serve(int(sys.argv[2]), int(sys.argv[3]))\n"
)

STARTUP_TIMEOUT = 300.0
_EOF = object()


def forking_supported() -> bool:
    """Workers are forked from a warm zygote on Linux; elsewhere each starts its own interpreter
    (macOS frameworks are not fork-safe once loaded; Windows has no fork)."""
    return sys.platform.startswith("linux") and hasattr(socket, "send_fds") and hasattr(socket, "SOCK_SEQPACKET")


# A caller that validates many times in one process (a test session) may keep one zygote per
# interpreter for every run (keep_zygotes); otherwise each run starts and stops its own.
_kept: dict[str, "Zygote"] = {}
_keep_in: list[Path] = []


def keep_zygotes(logs: Path) -> None:
    """From now on, runs share one zygote per interpreter, logging to ``logs``, until release_zygotes()."""
    _keep_in[:] = [logs]


def release_zygotes() -> None:
    for zygote in _kept.values():
        zygote.close()
    _kept.clear()
    _keep_in.clear()


# Zygotes launched before validation was asked for (prestart), by interpreter; the first pool
# for that interpreter takes its zygote over, and release_prestarted() ends any left unused.
_prestarted: dict[str, "Zygote"] = {}


def prestart(python: str, env: dict[str, str]) -> None:
    """Launch the zygote for ``python`` now, without waiting for it: torch is imported while the
    tool still analyses the repository (on another core), not after."""
    if not forking_supported():
        return
    if _keep_in:
        zygote = _zygote_for(python, env, _keep_in[0])
    elif python in _prestarted:
        return
    else:
        zygote = _prestarted[python] = Zygote(python, env, None)
    if zygote is not None:
        zygote.launch()


def release_prestarted() -> None:
    """End the zygotes prestart() launched that no validation took over."""
    while _prestarted:
        _, zygote = _prestarted.popitem()
        zygote.close()


def _zygote_for(python: str, env: dict[str, str], workdir: Path) -> "Zygote | None":
    if not forking_supported():
        return None
    if not _keep_in:
        prestarted = _prestarted.pop(python, None)
        if prestarted is not None and not prestarted.failed:
            return prestarted
        if prestarted is not None:
            prestarted.close()
        return Zygote(python, env, workdir)
    if python not in _kept or _kept[python].failed:
        _kept[python] = Zygote(python, env, _keep_in[0])
    return _kept[python]


class ForkedProcess:
    """A worker forked by the zygote, with the part of subprocess.Popen's interface the Worker uses.

    It is the zygote's child, not ours: its exit status comes from the zygote."""

    def __init__(self, zygote: "Zygote", pid: int, stdin, stdout) -> None:
        self.zygote = zygote
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.exit_status(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0.0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode


class Zygote:
    """The tool's end of zygote.py: started on first use, one per pool (one interpreter)."""

    def __init__(self, python: str, env: dict[str, str], logs: Path | None) -> None:
        self.python = python
        self.env = env
        # where its log goes; None: a directory of its own, removed when it is closed
        self.own_logs = logs is None
        self.logs = Path(tempfile.mkdtemp(prefix="codemod-zygote-")) if logs is None else logs
        self.proc: subprocess.Popen[bytes] | ForkedProcess | None = None
        self.sock: socket.socket | None = None
        self.watch_write: int | None = None
        self.failed = False
        self.exits: dict[int, int] = {}
        self.replies: queue.Queue[Any] = queue.Queue()
        self.lock = threading.Lock()
        self.gone = threading.Event()
        self.ready = False  # its "ready" message (torch imported) was read

    def launch(self) -> None:
        """Start the process (it imports torch in the background); start() waits for it."""
        if self.failed or self.sock is not None:
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        watch_read, self.watch_write = os.pipe()
        try:
            with open(self.logs / "zygote.log", "wb") as log:
                self.proc = subprocess.Popen(
                    [self.python, "-c", _ZYGOTE_BOOT, str(PACKAGE_DIR), str(theirs.fileno()), str(watch_read)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    # not the repository: `python -c` puts the working directory first on sys.path,
                    # and a repository's `sympy/` must not stand in for the one torch imports
                    cwd=str(self.logs),
                    env=self.env,
                    start_new_session=True,
                    pass_fds=(theirs.fileno(), watch_read),
                )
        except OSError:
            ours.close()
            self._fail()
            return
        finally:
            theirs.close()
            os.close(watch_read)
        self.sock = ours
        self.ready = False
        threading.Thread(target=self._read, daemon=True).start()

    def start(self) -> bool:
        """Start it (if launch() did not) and wait until torch is imported; False (and never
        again) when it cannot start."""
        self.launch()
        if self.failed:
            return False
        if self.ready:
            return True
        try:
            ready = self.replies.get(timeout=STARTUP_TIMEOUT)
        except queue.Empty:
            ready = None
        if not (isinstance(ready, dict) and ready.get("type") == "ready"):
            self.close()
            self._fail()
            return False
        self.ready = True
        return True

    def _fail(self) -> None:
        self.failed = True
        if self.watch_write is not None:
            os.close(self.watch_write)
            self.watch_write = None

    def _read(self) -> None:
        assert self.sock is not None
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            try:
                message = json.loads(data)
            except ValueError:
                continue
            if message.get("type") == "exit":
                self.exits[int(message["pid"])] = int(message["status"])
            else:
                self.replies.put(message)
        self.gone.set()
        self.replies.put(None)

    def spawn(self, config: Path, log_path: Path, watch_read: int, env: dict[str, str], cwd: Path) -> ForkedProcess | None:
        """A worker for ``config``, forked; None when the zygote is not there (start one instead)."""
        with self.lock:  # workers of several threads (restarts) ask one at a time
            if not self.start():
                return None
            stdin_read, stdin_write = os.pipe()
            stdout_read, stdout_write = os.pipe()
            log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            theirs = [stdin_read, stdout_write, log, watch_read]
            try:
                assert self.sock is not None
                request = {"op": "spawn", "config": str(config), "env": env, "cwd": str(cwd)}
                socket.send_fds(self.sock, [json.dumps(request).encode()], theirs)
                reply = self.replies.get(timeout=30)
            except (OSError, queue.Empty, AssertionError):
                reply = None
            finally:
                for fd in theirs[:3]:
                    os.close(fd)
            if not (isinstance(reply, dict) and reply.get("type") == "spawned"):
                os.close(stdin_write)
                os.close(stdout_read)
                self.close()
                self._fail()
                return None
        return ForkedProcess(self, int(reply["pid"]), os.fdopen(stdin_write, "wb"), os.fdopen(stdout_read, "rb"))

    def exit_status(self, pid: int) -> int | None:
        if pid in self.exits:
            return self.exits[pid]
        if self.gone.is_set():
            # No zygote to say how it ended: whoever reaped it, it is gone or going.
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return self.exits.setdefault(pid, -signal.SIGKILL)
            except PermissionError:
                pass
        return None

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.send(b'{"op": "exit"}')
            except OSError:
                pass
        if self.proc is not None:
            if self.ready:  # still importing torch, it reads no request: killed at once
                try:
                    self.proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            self.proc = None
        if self.watch_write is not None:
            os.close(self.watch_write)
            self.watch_write = None
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.own_logs:
            shutil.rmtree(self.logs, ignore_errors=True)


@dataclass
class Reply:
    kind: str  # "result" | "timeout" | "crash"
    result: dict[str, Any] = field(default_factory=dict)
    phase: str = ""
    message: str = ""


class WorkerStartError(Exception):
    pass


_FRAME = re.compile(r'File "([^"]+)", line (\d+) in (\S+)')


def _frame_from_dump(text: str, root: Path | None = None) -> str:
    """The innermost frame of the repository's code in a faulthandler dump, as ``file:line in func``.

    Only the thread that crashed (or was dumped) counts: other threads (a parent watch, a
    data loader) sit in the standard library.  A frame under ``root`` wins; else the
    innermost one that is neither the validator's nor the standard library's.
    """
    blocks = re.split(r"\n(?=(?:Current thread|Thread) 0x)", text)
    current = [b for b in blocks if b.lstrip().startswith("Current thread")]
    chosen = current[-1] if current else text
    frames = [(f, line, func) for f, line, func in _FRAME.findall(chosen)]
    prefix = str(root).replace("\\", "/").rstrip("/") + "/" if root is not None else None
    candidates = []
    for filename, line, func in frames:
        normalized = filename.replace("\\", "/")
        if "/codemod/validate/" in normalized or normalized.startswith("<"):
            continue
        if prefix is not None and normalized.startswith(prefix):
            return f"{filename}:{line} in {func}"
        candidates.append((filename, line, func, _is_standard_library(normalized)))
    for filename, line, func, standard in candidates:
        if not standard:
            return f"{filename}:{line} in {func}"
    return f"{candidates[0][0]}:{candidates[0][1]} in {candidates[0][2]}" if candidates else ""


def _is_standard_library(path: str) -> bool:
    import sysconfig

    library = sysconfig.get_paths()["stdlib"].replace("\\", "/").rstrip("/") + "/"
    return path.startswith(library) and "/site-packages/" not in path


def _put_line(lines: queue.Queue[Any], raw: bytes) -> None:
    try:
        lines.put(json.loads(raw))
    except ValueError:
        pass  # not a protocol line


def _wait_briefly(proc: subprocess.Popen[bytes] | ForkedProcess, seconds: float = 5.0) -> int | None:
    """Its exit status once its protocol pipe ended; None when it still runs (it is killed next)."""
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None


def _describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "stopped answering"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


class Worker:
    """One worker subprocess for one side, restarted on demand."""

    def __init__(self, side: str, config_path: Path, root: Path, env: dict[str, str], logs: Path, label: str,
                 python: str = sys.executable, zygote: Zygote | None = None) -> None:
        self.side = side
        self.zygote = zygote  # forks this worker warm when it can (see zygote.py)
        self.python = python  # the project's interpreter (imports.project_python)
        self.config_path = config_path
        self.root = root
        self.env = env
        self.logs = logs
        self.label = label
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[Any] = queue.Queue()
        self.stop_reading = threading.Event()
        self.hello: dict[str, Any] | None = None
        self.starts = 0
        self.log_path: Path | None = None
        self.busy = False  # inside call(): user code may be running
        self.watch_write: int | None = None  # closing it (or our death) makes the worker's watchdog kill its group

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        self.starts += 1
        self.hello = None
        self.log_path = self.logs / f"{self.label}-{self.side}-{self.starts}.log"
        if self.zygote is not None and os.name == "posix":
            watch_read, self.watch_write = os.pipe()
            try:
                forked = self.zygote.spawn(self.config_path, self.log_path, watch_read, self.env, self.root)
            finally:
                os.close(watch_read)
            if forked is not None:
                self.proc = forked
                self._start_reader()
                return
            self._close_watch()
        log = open(self.log_path, "wb")
        watch_read = None
        argv = [self.python, "-c", _BOOT, str(self.config_path), str(PACKAGE_DIR)]
        if os.name == "posix":
            # The worker's watchdog reads the other end; only this process holds this end
            # (it is not inherited by anything else we start).
            watch_read, self.watch_write = os.pipe()
            argv.append(str(watch_read))
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                cwd=str(self.root),
                env=self.env,
                # Its own session and process group: everything it starts is killed with it.
                start_new_session=os.name == "posix",
                pass_fds=(watch_read,) if watch_read is not None else (),
            )
        except BaseException:
            self._close_watch()
            raise
        finally:
            log.close()
            if watch_read is not None:
                os.close(watch_read)
        self._start_reader()

    def _start_reader(self) -> None:
        self.lines = queue.Queue()
        self.stop_reading = threading.Event()
        threading.Thread(target=self._read, args=(self.proc, self.lines, self.stop_reading), daemon=True).start()

    @staticmethod
    def _read(proc: subprocess.Popen[bytes] | ForkedProcess, lines: queue.Queue[Any], stop: threading.Event) -> None:
        """Protocol lines into ``lines`` until EOF or ``stop``.

        Never a blocking read to EOF: a daemon the model started (double fork, setsid)
        inherits the protocol pipe and can hold it open forever after the worker is gone, so
        the reader polls, and it is the one that closes the pipe (closing a file object that
        another thread is reading blocks the closer)."""
        assert proc.stdout is not None
        try:
            if os.name != "posix":
                for raw in proc.stdout:
                    _put_line(lines, raw)
                return
            fd = proc.stdout.fileno()
            pending = b""
            while not stop.is_set():
                ready, _, _ = select.select([fd], [], [], 0.25)
                if not ready:
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                *complete, pending = (pending + chunk).split(b"\n")
                for raw in complete:
                    _put_line(lines, raw)
        except (OSError, ValueError):
            pass
        finally:
            lines.put(_EOF)
            try:
                proc.stdout.close()
            except OSError:
                pass

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ready(self) -> dict[str, Any]:
        """Start if needed and wait for the hello; raises WorkerStartError."""
        if not self.alive():
            self.start()
        if self.hello is not None:
            return self.hello
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            try:
                item = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                raise WorkerStartError(f"the {self.side} worker did not start within {STARTUP_TIMEOUT:.0f} s")
            if item is _EOF:
                returncode = _wait_briefly(self.proc) if self.proc else None
                raise WorkerStartError(
                    f"the {self.side} worker could not start ({_describe_exit(returncode)}): {self.tail(600)}"
                )
            if item.get("type") == "hello":
                self.hello = item
                return item

    def _close_watch(self) -> None:
        if self.watch_write is not None:
            try:
                os.close(self.watch_write)
            except OSError:
                pass
            self.watch_write = None

    def kill(self) -> None:
        proc = self.proc
        if proc is None:
            return
        # The whole group, even when the worker itself has exited: what user code started
        # (a DataLoader's workers, a forked server) lives on in it.  The watchdog keeps
        # the group, and so its number, alive until the pipe below is closed.
        try:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            elif proc.poll() is None:
                proc.kill()
        except (ProcessLookupError, PermissionError):
            if isinstance(proc, ForkedProcess):
                try:  # forked a moment ago, not yet the leader of its own group
                    os.kill(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        self._close_watch()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.stop_reading.set()  # the reader closes stdout (see _read)
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None and not self.busy:
            try:
                assert proc.stdin is not None
                proc.stdin.write(b'{"op": "exit"}\n')
                proc.stdin.flush()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired, AssertionError):
                pass
        self.kill()
        self.proc = None

    def tail(self, limit: int = 4000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode("utf-8", "replace").strip()

    # -- one request ------------------------------------------------------------------------

    def call(self, request: dict[str, Any], timeout: float) -> Reply:
        self.busy = True
        try:
            return self._call(request, timeout)
        finally:
            self.busy = False

    def _call(self, request: dict[str, Any], timeout: float) -> Reply:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass  # the reader reports the death below
        current = "start"
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                # short waits: a forked grandchild can hold the pipe open after the worker died
                item = self.lines.get(timeout=max(0.0, min(remaining, 0.5)))
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    item = _EOF
                elif remaining <= 0:
                    return self._timed_out(current, timeout)
                else:
                    continue
            if item is _EOF:
                returncode = _wait_briefly(self.proc)
                tail = self.tail()
                frame = _frame_from_dump(tail, self.root)
                fatal = next((ln for ln in tail.splitlines() if ln.startswith("Fatal Python error")), "")
                message = f"the {self.side} side crashed the worker ({_describe_exit(returncode)}) during {current}"
                if fatal:
                    message += f": {fatal}"
                if frame:
                    message += f" at {frame}"
                self.kill()
                return Reply("crash", phase=current, message=message)
            if item.get("type") == "phase":
                current = item["phase"]
            elif item.get("type") == "extend":
                # a one-time import of torch's own (see worker.warm_import): not the class's time
                deadline += min(float(item.get("seconds", 0.0)), STARTUP_TIMEOUT)
            elif item.get("type") == "result":
                return Reply("result", result=item["result"], phase=current)

    def _timed_out(self, current: str, timeout: float) -> Reply:
        frame = ""
        if self.proc is not None and self.proc.poll() is None and hasattr(signal, "SIGUSR1"):
            # ask faulthandler for a stack dump to say where the code hung
            offset = self.log_path.stat().st_size if self.log_path and self.log_path.exists() else 0
            try:
                os.kill(self.proc.pid, signal.SIGUSR1)
                time.sleep(0.3)
                assert self.log_path is not None
                with open(self.log_path, "rb") as handle:
                    handle.seek(offset)
                    frame = _frame_from_dump(handle.read(200_000).decode("utf-8", "replace"), self.root)
            except (OSError, AssertionError):
                pass
        self.kill()
        message = f"the {self.side} side did not finish within {timeout:g} s (during {current})"
        if frame:
            message += f" at {frame}"
        return Reply("timeout", phase=current, message=message)


@dataclass
class Task:
    key: Any
    request: dict[str, Any]


class Pool:
    """``jobs`` pairs of workers; runs tasks and calls ``finish(key, outcome)``."""

    def __init__(
        self,
        jobs: int,
        root: Path,
        configs: dict[str, Path],
        env: dict[str, str],
        workdir: Path,
        timeout: float,
        python: str = sys.executable,
    ) -> None:
        self.timeout = timeout
        self.hellos: list[dict[str, Any]] = []
        self.on_hello: Callable[[dict[str, Any]], None] | None = None
        self.workdir = workdir
        self.stopped = threading.Event()
        self.zygote = _zygote_for(python, env, workdir)
        self.pairs = [
            (
                Worker("original", configs["original"], root, env, workdir, f"w{i}", python, self.zygote),
                Worker("rewritten", configs["rewritten"], root, env, workdir, f"w{i}", python, self.zygote),
            )
            for i in range(jobs)
        ]

    def run(self, tasks: list[Task], finish: Callable[[Any, str, dict[str, Any]], None]) -> None:
        """``finish(key, side, outcome)``; outcome is a result dict or {"reply": kind, "message": ...}."""
        pending: queue.Queue[Task] = queue.Queue()
        for task in tasks:
            pending.put(task)
        for original, rewritten in self.pairs:
            for worker in (original, rewritten):
                if not worker.alive():  # the first original may be running since the parent harvest
                    worker.start()
        threads = []
        for original, rewritten in self.pairs:
            handoff: queue.Queue[Any] = queue.Queue(maxsize=2)
            threads.append(
                threading.Thread(target=self._original_loop, args=(original, pending, handoff, finish), daemon=True)
            )
            threads.append(threading.Thread(target=self._rewritten_loop, args=(rewritten, handoff, finish), daemon=True))
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.2)  # short joins keep Ctrl-C responsive
        except BaseException:
            self.stopped.set()
            raise

    def close(self) -> None:
        self.stopped.set()
        for original, rewritten in self.pairs:
            original.close()
            rewritten.close()
        if self.zygote is not None and _kept.get(self.zygote.python) is not self.zygote:
            self.zygote.close()

    def prepare(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One request to the first original-side worker before the classes (the parent harvest)."""
        return self._serve(self.pairs[0][0], request, timeout)

    def _serve(self, worker: Worker, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """One request with restart-on-death; never raises."""
        if self.stopped.is_set():
            return {"status": "error", "message": "validation was interrupted"}
        try:
            hello = worker.ready()
        except WorkerStartError as exc:
            from codemod.validate.imports import explain_start_failure

            return {"status": "worker_error", "message": explain_start_failure(worker.python, str(exc))}
        if not any(h is hello for h in self.hellos):
            self.hellos.append(hello)
            if self.on_hello is not None:
                self.on_hello(hello)
        if hello.get("device_error"):
            return {"status": "device_error", "message": hello["device_error"], "device": hello.get("device")}
        reply = worker.call(request, self.timeout if timeout is None else timeout)
        if reply.kind == "result":
            outcome = dict(reply.result)
            if outcome.pop("restart", False):
                worker.kill()  # e.g. a CUDA device-side assert: that process's context is unusable now
        else:
            outcome = {"status": reply.kind, "message": reply.message}
        outcome.setdefault("device", hello.get("device"))
        return outcome

    def _original_loop(self, worker: Worker, pending: queue.Queue[Task], handoff: queue.Queue[Any], finish) -> None:
        start_failures = 0
        try:
            while not self.stopped.is_set():
                try:
                    task = pending.get_nowait()
                except queue.Empty:
                    break
                try:
                    outcome = self._serve(worker, task.request)
                    if outcome["status"] == "worker_error":
                        start_failures += 1
                        if start_failures >= 2:
                            # the environment is broken: stop restarting, fail the rest quickly
                            _finish(finish, task.key, "original", outcome)
                            self._drain(pending, finish, outcome)
                            break
                    else:
                        start_failures = 0
                    if outcome["status"] == "ok":
                        handoff.put((task, outcome))
                    else:
                        finish(task.key, "original", outcome)
                except Exception as exc:  # keep the loop (and the hand-off) alive whatever happens
                    _finish(finish, task.key, "original", _internal_error(exc))
        finally:
            handoff.put(None)

    def _drain(self, pending: queue.Queue[Task], finish, outcome: dict[str, Any]) -> None:
        while True:
            try:
                task = pending.get_nowait()
            except queue.Empty:
                return
            _finish(finish, task.key, "original", outcome)

    def _rewritten_loop(self, worker: Worker, handoff: queue.Queue[Any], finish) -> None:
        while True:
            item = handoff.get()
            if item is None:
                return
            task, original = item
            try:
                outcome = self._serve(worker, task.request)
                outcome.setdefault("source", original.get("source"))
                outcome["imported_original"] = original.get("imported") or []
                finish(task.key, "rewritten", outcome)
            except Exception as exc:
                _finish(finish, task.key, "rewritten", _internal_error(exc))
            finally:
                try:
                    Path(task.request["data"]).unlink()
                except OSError:
                    pass


def _internal_error(exc: Exception) -> dict[str, Any]:
    return {"status": "error", "message": f"validator error: {type(exc).__name__}: {exc}"}


def _finish(finish, key: Any, side: str, outcome: dict[str, Any]) -> None:
    try:
        finish(key, side, outcome)
    except Exception:
        pass  # a failing progress callback must not stop the pool; the verdict is already stored
