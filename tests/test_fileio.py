from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from codemod import fileio
from codemod.fileio import SourceError, encode_check, read_source, source_lines, write_source_atomic


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".codemod-tmp" in p.name)


@pytest.mark.parametrize(
    ("newline", "expected"),
    [("\n", "\n"), ("\r\n", "\r\n"), ("\r", "\r")],
    ids=["lf", "crlf", "cr"],
)
def test_round_trip_keeps_line_endings(tmp_path: Path, newline: str, expected: str) -> None:
    path = tmp_path / "m.py"
    original = newline.join(["import torch", "x = 1", "y = 2", ""]).encode()
    path.write_bytes(original)

    source = read_source(path)
    assert source.newline == expected
    assert source.text == original.decode()  # no newline translation
    assert source.raw == original
    assert source.encoding == "utf-8"
    assert not source.bom

    new_text = source.text.replace("x = 1", "x = 10")
    write_source_atomic(source, new_text)
    assert path.read_bytes() == original.replace(b"x = 1", b"x = 10")
    assert _leftovers(tmp_path) == []


def test_unchanged_round_trip_is_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    original = b"a = 1\r\nb = 2\n\rc = 3"  # mixed endings, no final newline
    path.write_bytes(original)
    source = read_source(path)
    assert source.newline == "\r\n"
    write_source_atomic(source, source.text)
    assert path.read_bytes() == original


def test_default_newline_without_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1")
    assert read_source(path).newline == "\n"


def test_latin1_with_cookie(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    original = "# -*- coding: latin-1 -*-\r\nname = 'café'\r\n".encode("latin-1")
    path.write_bytes(original)

    source = read_source(path)
    assert source.encoding == "iso-8859-1"
    assert "café" in source.text
    assert "\r\n" in source.text

    write_source_atomic(source, source.text.replace("café", "thé"))
    assert path.read_bytes() == "# -*- coding: latin-1 -*-\r\nname = 'thé'\r\n".encode("latin-1")


def test_utf8_bom_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    original = b"\xef\xbb\xbfx = 'h\xc3\xa9'\n"
    path.write_bytes(original)

    source = read_source(path)
    assert source.bom
    assert source.encoding == "utf-8-sig"
    assert source.text == "x = 'hé'\n"  # BOM not part of the text

    write_source_atomic(source, "x = 'hé!'\n")
    assert path.read_bytes() == b"\xef\xbb\xbfx = 'h\xc3\xa9!'\n"


def test_bom_flag_with_plain_utf8_encoding(tmp_path: Path) -> None:
    source = fileio.SourceFile(
        path=tmp_path / "m.py", text="", encoding="utf-8", bom=True, newline="\n", raw=b"", mode=0o100644
    )
    assert encode_check(source, "x = 1\n") == b"\xef\xbb\xbfx = 1\n"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_permissions_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "tool.py"
    path.write_text("#!/usr/bin/env python\nx = 1\n")
    path.chmod(0o755)
    source = read_source(path)
    write_source_atomic(source, "#!/usr/bin/env python\nx = 2\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert path.read_text() == "#!/usr/bin/env python\nx = 2\n"

    path.chmod(0o600)
    source = read_source(path)
    write_source_atomic(source, "x = 3\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_write_through_symlink_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text("x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    source = read_source(link)
    write_source_atomic(source, "x = 2\n")
    assert link.is_symlink()
    assert target.read_text() == "x = 2\n"


def test_unencodable_text_leaves_original(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    original = b"# coding: latin-1\nx = 1\n"
    path.write_bytes(original)
    source = read_source(path)

    new_text = "# coding: latin-1\nx = 1\ny = '\u2603'\n"
    with pytest.raises(SourceError, match=r"^cannot encode '\u2603' \(U\+2603\) on line 3 as iso-8859-1$"):
        encode_check(source, new_text)
    with pytest.raises(SourceError):
        write_source_atomic(source, new_text)
    assert path.read_bytes() == original
    assert _leftovers(tmp_path) == []


def test_failed_replace_leaves_original_and_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.py"
    original = b"x = 1\r\n"
    path.write_bytes(original)
    source = read_source(path)

    def broken_replace(src: str, dst: str, **dir_fds: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", broken_replace)
    with pytest.raises(SourceError, match="cannot write: no space left on device"):
        write_source_atomic(source, "x = 2\r\n")
    assert path.read_bytes() == original
    assert _leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


def test_failed_write_leaves_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(fileio.os, "fsync", broken_fsync)
    with pytest.raises(SourceError, match="cannot write: input/output error"):
        write_source_atomic(source, "x = 2\n")
    assert path.read_bytes() == b"x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


def test_changed_on_disk_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    source = read_source(path)
    path.write_text("x = 1  # edited meanwhile\n")

    with pytest.raises(SourceError, match="^changed on disk since it was read$"):
        write_source_atomic(source, "x = 2\n")
    assert path.read_text() == "x = 1  # edited meanwhile\n"
    assert _leftovers(tmp_path) == []


def test_deleted_since_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    source = read_source(path)
    path.unlink()
    with pytest.raises(SourceError, match="deleted since it was read"):
        write_source_atomic(source, "x = 2\n")
    assert not path.exists()


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "blob.py"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(SourceError, match="^binary file, not Python source$"):
        read_source(path)


def test_undecodable_utf8(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\ny = '\xff'\n")
    with pytest.raises(SourceError, match=r"^cannot decode as utf-8: .*line 2"):
        read_source(path)


def test_undecodable_first_line(tmp_path: Path) -> None:
    # tokenize reports this as a missing cookie; the user needs the decode error.
    path = tmp_path / "m.py"
    path.write_bytes(b"x = '\xe9'\n")
    with pytest.raises(SourceError, match=r"^cannot decode as utf-8: .*0xe9 on line 1"):
        read_source(path)


def test_bad_coding_cookie(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    with pytest.raises(SourceError, match="^bad coding cookie: unknown encoding: no-such-codec$"):
        read_source(path)


def test_bom_conflicting_with_cookie(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbf# coding: latin-1\nx = 1\n")
    with pytest.raises(SourceError, match="^bad coding cookie"):
        read_source(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="^no such file or directory$"):
        read_source(tmp_path / "nope.py")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="^is a directory$"):
        read_source(tmp_path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    path.chmod(0)
    try:
        with pytest.raises(SourceError, match="^permission denied$"):
            read_source(path)
    finally:
        path.chmod(0o644)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_fifo_is_not_opened(tmp_path: Path) -> None:
    path = tmp_path / "pipe.py"
    os.mkfifo(path)
    with pytest.raises(SourceError, match="^not a regular file$"):
        read_source(path)


def test_mode_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    assert read_source(path).mode == path.stat().st_mode


def test_permission_error_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Runs even as root, where chmod 0 does not stop reads.
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fileio, "open", denied, raising=False)
    with pytest.raises(SourceError, match="^permission denied$"):
        read_source(path)


@pytest.mark.parametrize(
    "text, lines",
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\r\nb\rc\nd", ["a", "b", "c", "d"]),
        ("a\x0cb\u2028c\x1cd\nnext\n", ["a\x0cb\u2028c\x1cd", "next"]),  # str.splitlines would give 5
        ("\n\n", ["", ""]),
    ],
)
def test_source_lines_end_only_where_the_parser_ends_them(text: str, lines: list[str]):
    assert source_lines(text) == lines
    with_ends = source_lines(text, keepends=True)
    assert "".join(with_ends) == text
    assert [line.rstrip("\r\n") for line in with_ends] == lines


def test_source_lines_number_lines_as_the_parser_does():
    import ast

    source = "a = 1  # \x0c \u2028 \x1c\rb = 2\r\n# \x85\nc = 3\n"
    lines = source_lines(source)
    for stmt in ast.parse(source).body:
        assert lines[stmt.lineno - 1].startswith(ast.unparse(stmt.targets[0]))
