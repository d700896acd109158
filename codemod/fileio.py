"""Reading and writing source files without ever corrupting or losing them.

A file is read as bytes and decoded exactly as Python would (PEP 263 cookie
or BOM), with line endings left untouched.  Writes go to a temporary file in
the same directory that is fsynced and then renamed over the original, so a
crash or a full disk leaves either the old file or the new one, never half
of each.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SourceError", "SourceFile", "encode_check", "read_source", "source_lines", "write_source_atomic"]

# How much of the start of a file is searched for a NUL byte; Python source
# never contains one, binary formats almost always do early on.
BINARY_SNIFF_BYTES = 8192

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
    if not stat.S_ISREG(st.st_mode):
        # Opening a FIFO or device could block or never end.
        raise SourceError("not a regular file")
    try:
        with open(path, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            raw = handle.read()
    except OSError as exc:
        raise SourceError(_os_reason(exc)) from None
    return decode_source(raw, path, mode)


def decode_source(raw: bytes, path: Path, mode: int = 0) -> SourceFile:
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
    return SourceFile(path=path, text=text, encoding=encoding, bom=bom, newline=newline, raw=raw, mode=mode)


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


def _fsync_directory(directory: str) -> None:
    # Makes the rename itself durable; not possible on every platform.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _check_unchanged(target: str, source: SourceFile) -> os.stat_result:
    try:
        with open(target, "rb") as handle:
            current = handle.read()
            st = os.fstat(handle.fileno())
    except FileNotFoundError:
        raise SourceError("deleted since it was read") from None
    except OSError as exc:
        raise SourceError(f"cannot re-read before writing: {_os_reason(exc)}") from None
    if current != source.raw:
        raise SourceError("changed on disk since it was read")
    return st


def write_source_atomic(source: SourceFile, new_text: str) -> None:
    """Replace the file of ``source`` with ``new_text``, atomically, or leave it untouched."""
    data = encode_check(source, new_text)
    # Write through symlinks to their target rather than replacing the link with a file.
    target = os.path.realpath(source.path)
    directory = os.path.dirname(target)
    current = _check_unchanged(target, source)

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".codemod-tmp", dir=directory)
    except OSError as exc:
        raise SourceError(f"cannot create temporary file: {_os_reason(exc)}") from None
    try:
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
            os.chmod(tmp, stat.S_IMODE(source.mode))
            # Narrow the window for a concurrent edit as far as possible.
            _check_unchanged(target, source)
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except SourceError:
        raise
    except OSError as exc:
        raise SourceError(f"cannot write: {_os_reason(exc)}") from None
    _fsync_directory(directory)
