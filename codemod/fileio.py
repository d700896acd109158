"""Reading and writing source files without ever corrupting or losing them.

A file is read as bytes and decoded exactly as Python would (PEP 263 cookie
or BOM), with line endings left untouched.  Writes go to a temporary file in
the same directory that is fsynced and then renamed over the original, so a
crash or a full disk leaves either the old file or the new one, never half
of each.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import re
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from codemod.tempfiles import Journal

__all__ = ["SourceError", "SourceFile", "encode_check", "read_source", "source_lines", "write_source_atomic"]

# How much of the start of a file is searched for a NUL byte; Python source
# never contains one, binary formats almost always do early on.
BINARY_SNIFF_BYTES = 8192

# Larger files are not analysed (generated code, data saved as .py): the cost of a parse
# grows with the size, and no hand-written module is this large.
MAX_FILE_BYTES = 10 * 1024 * 1024


def _too_large(size: int) -> str:
    return (
        f"skipped: {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit for one file"
        " (split it, or --exclude it)"
    )


_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
_NEWLINE_BYTES_RE = re.compile(rb"\r\n|\r|\n")


# Where str.splitlines breaks a line and Python's parser does not (both break at \n, \r\n, \r).
_OTHER_LINE_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_LINE_WITH_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def source_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of source text as Python's parser numbers them.

    Only \\n, \\r\\n and \\r end a line; str.splitlines also breaks at form feeds and other
    separators, which would shift every line after one by one.
    """
    if not any(separator in text for separator in _OTHER_LINE_BREAKS):
        return text.splitlines(keepends)  # the same here, and faster
    if keepends:
        return _LINE_WITH_END.findall(text)
    lines = _NEWLINE_RE.split(text)
    if lines and not lines[-1]:
        lines.pop()  # text ending with a newline has no empty last line, as with splitlines
    return lines


class SourceError(Exception):
    """A file cannot be read or written; the message is a one-line reason without the path."""


@dataclass(frozen=True)
class SourceFile:
    path: Path
    text: str  # decoded, BOM stripped, newlines exactly as on disk
    encoding: str  # codec name as tokenize reports it ("utf-8", "utf-8-sig", "iso-8859-1", ...)
    bom: bool
    newline: str  # the first line ending in the file, "\n" when there is none
    raw: bytes  # the bytes that were read, to detect changes made behind our back
    mode: int  # st_mode at read time
    device: int = 0  # st_dev and st_ino of the file read: a write replaces that very file
    inode: int = 0


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    if isinstance(exc, IsADirectoryError):
        return "is a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return (exc.strerror or str(exc) or type(exc).__name__).lower()


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _line_of(text: str, index: int) -> int:
    return len(_NEWLINE_RE.findall(text, 0, index)) + 1


def read_source(path: Path) -> SourceFile:
    """Read and decode ``path``; raise SourceError when it is not usable Python source."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise SourceError(_os_reason(exc)) from None
    if stat.S_ISDIR(st.st_mode):
        raise SourceError("is a directory")
    if st.st_size > MAX_FILE_BYTES:
        raise SourceError(_too_large(st.st_size))
    if not stat.S_ISREG(st.st_mode):
        # Opening a FIFO or device could block or never end.
        raise SourceError("not a regular file")
    try:
        with open(path, "rb") as handle:
            opened = os.fstat(handle.fileno())
            if not stat.S_ISREG(opened.st_mode):
                raise SourceError("not a regular file")
            if opened.st_size > MAX_FILE_BYTES:
                raise SourceError(_too_large(opened.st_size))
            mode = opened.st_mode
            raw = handle.read(MAX_FILE_BYTES + 1)
            if len(raw) > MAX_FILE_BYTES:
                raise SourceError(_too_large(len(raw)))
    except OSError as exc:
        raise SourceError(_os_reason(exc)) from None
    return decode_source(raw, path, mode, device=opened.st_dev, inode=opened.st_ino)


def decode_source(raw: bytes, path: Path, mode: int = 0, device: int = 0, inode: int = 0) -> SourceFile:
    """Decode the bytes of a source file (or of standard input) as Python reads them."""
    if b"\0" in raw[:BINARY_SNIFF_BYTES]:
        raise SourceError("binary file, not Python source")

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:
        message = exc.msg if isinstance(exc.msg, str) else str(exc)
        if "invalid or missing encoding declaration" in message:
            # No cookie and the first lines are not UTF-8: report the real decode error.
            encoding = "utf-8"
        else:
            raise SourceError(f"bad coding cookie: {_one_line(message)}") from None

    try:
        # bytes.decode never translates newlines, unlike text-mode open().
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = len(_NEWLINE_BYTES_RE.findall(raw, 0, exc.start)) + 1
        raise SourceError(
            f"cannot decode as {encoding}: {exc.reason} (byte 0x{raw[exc.start]:02x} on line {line})"
        ) from None
    except LookupError as exc:  # pragma: no cover - detect_encoding already validated the codec
        raise SourceError(f"bad coding cookie: {_one_line(str(exc))}") from None

    bom = raw.startswith(codecs.BOM_UTF8)
    if bom and text.startswith("\ufeff"):
        text = text[1:]
    match = _NEWLINE_RE.search(text)
    newline = match.group(0) if match else "\n"
    return SourceFile(
        path=path, text=text, encoding=encoding, bom=bom, newline=newline, raw=raw, mode=mode,
        device=device, inode=inode,
    )


def encode_check(source: SourceFile, new_text: str) -> bytes:
    """Return ``new_text`` encoded as ``source`` was; raise SourceError if it cannot be."""
    try:
        data = new_text.encode(source.encoding)
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start]
        raise SourceError(
            f"cannot encode {char!r} (U+{ord(char):04X}) on line {_line_of(new_text, exc.start)}"
            f" as {source.encoding}"
        ) from None
    except LookupError:
        raise SourceError(f"unknown encoding {source.encoding!r}") from None
    if source.bom and not data.startswith(codecs.BOM_UTF8):
        # "utf-8-sig" adds the BOM itself; a plain "utf-8" codec with bom=True does not.
        data = codecs.BOM_UTF8 + data
    return data


def _fsync_directory(dir_fd: int | None, directory: str) -> None:
    # Makes the rename itself durable; not possible on every platform.
    try:
        fd = os.dup(dir_fd) if dir_fd is not None else os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FD = os.open in os.supports_dir_fd and os.replace in getattr(os, "supports_dir_fd", set())
def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


def _open_directory(target: str, roots: Sequence[str] | None) -> int | None:
    """A descriptor of the directory of `target`, reached from the given root holding it
    without following any symlink (None where the platform has no dir_fd calls).
    Raises SourceError when `target` is outside the roots."""
    directory = os.path.dirname(target)
    base = directory
    if roots is not None:
        containing = [r for r in roots if _inside(target, r)]
        if not containing:
            raise SourceError("outside the paths given to the run")
        root = max(containing, key=len)
        if root != target:  # a directory given: walk down from it; a file given: its own directory
            base = root
    if not _DIR_FD:
        return None
    try:
        fd = os.open(base, os.O_RDONLY | _DIRECTORY)
        relative = directory[len(base) :].strip(os.sep)
        for part in relative.split(os.sep) if relative else ():
            try:
                next_fd = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            finally:
                os.close(fd)
            fd = next_fd
        return fd
    except OSError as exc:
        raise SourceError(f"cannot open its directory without following a symlink: {_os_reason(exc)}") from None


def _check_unchanged(name: str, dir_fd: int | None, source: SourceFile) -> os.stat_result:
    """The file to replace is still the very file that was read: same device and inode
    (no symlink or other file swapped in), same bytes."""
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=dir_fd)
    except FileNotFoundError:
        raise SourceError("deleted since it was read") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            raise SourceError("replaced by a symlink since it was read") from None
        raise SourceError(f"cannot re-read before writing: {_os_reason(exc)}") from None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if source.inode and (st.st_dev, st.st_ino) != (source.device, source.inode):
            raise SourceError("replaced by another file since it was read")
        if not stat.S_ISREG(st.st_mode):
            raise SourceError("not a regular file")
        current = handle.read()
    if current != source.raw:
        raise SourceError("changed on disk since it was read")
    return st


def _read_only(st: os.stat_result, name: str, dir_fd: int | None) -> bool:
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return True  # even for root, who may write anything: the owner marked it read-only
    try:
        return not os.access(name, os.W_OK, dir_fd=dir_fd)
    except (NotImplementedError, OSError):
        return False


def write_source_atomic(
    source: SourceFile, new_text: str, roots: Sequence[str] | None = None, journal: Journal | None = None
) -> None:
    """Replace the file of ``source`` with ``new_text``, atomically, or leave it untouched.

    The file written is the file that was read (a symlink named by the user is written
    through; one swapped in since is refused), and, when ``roots`` (resolved paths) are
    given, only inside them.  A read-only file is left alone.  The temporary file is
    recorded in ``journal``, which also removes those of this file that a killed run
    left (see tempfiles.py).
    """
    from codemod.tempfiles import Journal, new_token, temp_name

    journal = journal or Journal(None)
    data = encode_check(source, new_text)
    target = os.path.realpath(source.path)
    directory, name = os.path.split(target)
    dir_fd = _open_directory(target, [os.path.realpath(r) for r in roots] if roots is not None else None)
    at = (lambda n: n) if dir_fd is not None else (lambda n: os.path.join(directory, n))
    try:
        current = _check_unchanged(at(name), dir_fd, source)
        if _read_only(current, at(name), dir_fd):
            raise SourceError("read-only file: left alone (make it writable to rewrite it)")
        journal.remove_leftovers(directory, name, dir_fd)
        token = new_token()
        tmp = temp_name(name, token)
        journal.record(token, os.path.join(directory, tmp), data)
        try:
            fd = os.open(at(tmp), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=dir_fd)
        except OSError as exc:
            journal.forget(token)
            raise SourceError(f"cannot create temporary file: {_os_reason(exc)}") from None
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                if hasattr(os, "fchown") and (current.st_uid, current.st_gid) != (os.getuid(), os.getgid()):
                    try:
                        os.fchown(handle.fileno(), current.st_uid, current.st_gid)
                    except OSError:
                        pass  # only root can give files away; keeping our ownership is acceptable
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), stat.S_IMODE(source.mode))
                else:  # pragma: no cover - Windows
                    os.chmod(at(tmp), stat.S_IMODE(source.mode))
            # Narrow the window for a concurrent edit (or a swap) as far as possible.
            _check_unchanged(at(name), dir_fd, source)
            os.replace(at(tmp), at(name), src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(at(tmp), dir_fd=dir_fd)
            except OSError:
                pass
            journal.forget(token)
            raise
        _fsync_directory(dir_fd, directory)
        journal.forget(token)
    except SourceError:
        raise
    except OSError as exc:
        raise SourceError(f"cannot write: {_os_reason(exc)}") from None
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
