"""Builds that open a file named relative to their module's folder are retried from it."""

from __future__ import annotations

import importlib.util
import os

import pytest

from codemod.validate import own_folder


def _raiser(root, relative_file: str, opened: str):
    """A function defined in ``root/relative_file`` that opens ``opened`` from the cwd."""
    path = root / relative_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"def build():\n    return open({opened!r}).read()\n")
    spec = importlib.util.spec_from_file_location(f"raiser_{abs(hash(str(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build


def test_a_file_beside_the_module_is_read_from_its_folder_and_the_root_is_restored(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "cfg.yaml").write_text("depth: 3")
    build = _raiser(tmp_path, "models/yolo.py", "cfg.yaml")
    with pytest.raises(FileNotFoundError) as raised:
        build()
    seen = []
    again = own_folder.retried(lambda: (seen.append(own_folder.repository_root()), build())[1], raised.value)
    assert again == ("depth: 3", os.path.realpath(tmp_path / "models"))
    assert seen == [str(tmp_path)]  # the root stays known while the build runs elsewhere
    assert os.getcwd() == str(tmp_path)
    assert "models/ (which holds cfg.yaml)" in own_folder.note(own_folder.used() - 1)


def test_a_folder_above_the_module_inside_the_root_is_searched(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "vocab.txt").write_text("a b")
    build = _raiser(tmp_path, "src/nets/deep/net.py", "vocab.txt")
    with pytest.raises(FileNotFoundError) as raised:
        build()
    assert own_folder.holding_folder(raised.value) == os.path.realpath(tmp_path / "src")


@pytest.mark.parametrize("opened", ["missing.yaml", "/nowhere/cfg.yaml"])
def test_a_file_no_folder_holds_or_an_absolute_path_is_no_retry(tmp_path, monkeypatch, opened):
    monkeypatch.chdir(tmp_path)
    build = _raiser(tmp_path, "models/yolo.py", opened)
    with pytest.raises(FileNotFoundError) as raised:
        build()
    assert own_folder.retried(build, raised.value) is None


def test_a_folder_outside_the_root_is_never_searched(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "cfg.yaml").write_text("x")
    build = _raiser(tmp_path, "elsewhere/yolo.py", "cfg.yaml")
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    with pytest.raises(FileNotFoundError) as raised:
        build()
    assert own_folder.holding_folder(raised.value) is None


def test_other_errors_are_no_retry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert own_folder.holding_folder(ValueError("No such file or directory: 'cfg.yaml'")) is None
    assert own_folder.holding_folder(PermissionError(13, "denied", "cfg.yaml")) is None
