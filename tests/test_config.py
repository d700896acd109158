from __future__ import annotations

from pathlib import Path

import pytest

from codemod.config import KNOWN_KEYS, ConfigError, find_project_root, load_config, project_scope


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(root: Path, text: str) -> None:
    (root / "pyproject.toml").write_text(text, encoding="utf-8")


def test_no_file_or_no_table(project: Path) -> None:
    assert load_config(project) == {}
    write(project, "[project]\nname = 'x'\n")
    assert load_config(project) == {}
    write(project, "[tool.black]\nline-length = 100\n")
    assert load_config(project) == {}


def test_full_table_dashed_and_underscored(project: Path) -> None:
    write(
        project,
        """
[tool.codemod]
persistent = "never"
exclude = ["tests/", "legacy/*.py"]
format = "json"
validate = true
jobs = 4
device = "cuda:0"
examples = "tools/examples.py"
timeout = 30
require-validated = true
cache = false
color = false
""",
    )
    config = load_config(project)
    assert config == {
        "persistent": "never",
        "exclude": ["tests/", "legacy/*.py"],
        "output_format": "json",
        "validate": True,
        "jobs": 4,
        "device": "cuda:0",
        "examples": project / "tools" / "examples.py",
        "timeout": 30.0,
        "require_validated": True,
        "cache": False,
        "color": False,
    }
    assert isinstance(config["timeout"], float)

    write(project, "[tool.codemod]\nrequire_validated = false\ntimeout = 2.5\n")
    assert load_config(project) == {"require_validated": False, "timeout": 2.5}


def test_known_keys_are_underscored() -> None:
    assert "require_validated" in KNOWN_KEYS
    assert all("-" not in key for key in KNOWN_KEYS)


def test_wrong_choice_message(project: Path) -> None:
    write(project, '[tool.codemod]\npersistent = "sometimes"\n')
    with pytest.raises(ConfigError) as info:
        load_config(project)
    assert str(info.value) == (
        "pyproject.toml: [tool.codemod] persistent must be one of never, state (got 'sometimes')"
    )


@pytest.mark.parametrize(
    ("line", "key", "expected"),
    [
        ('format = "yaml"', "format", "must be one of text, json, json-lines, github, sarif"),
        ('validate = "yes"', "validate", "must be true or false"),
        ("jobs = 0", "jobs", "must be an integer >= 1"),
        ("jobs = true", "jobs", "must be an integer >= 1"),
        ("jobs = 2.0", "jobs", "must be an integer >= 1"),
        ("timeout = 0", "timeout", "must be a number > 0"),
        ("timeout = -1.5", "timeout", "must be a number > 0"),
        ("timeout = nan", "timeout", "must be a number > 0"),
        ('timeout = "10"', "timeout", "must be a number > 0"),
        ('exclude = "tests/"', "exclude", "must be a list of strings"),
        ("exclude = [1, 2]", "exclude", "must be a list of strings"),
        ("device = 0", "device", "must be auto, cpu, meta, cuda or cuda:N"),
        ('device = "gpu"', "device", "must be auto, cpu, meta, cuda or cuda:N"),
        ('device = "cuda:x"', "device", "must be auto, cpu, meta, cuda or cuda:N"),
        ("timeout = inf", "timeout", "must be a number > 0"),
        ('quiet = "yes"', "quiet", "must be true or false"),
        ("examples = []", "examples", "must be a non-empty string"),
        ("require-validated = 1", "require-validated", "must be true or false"),
        ("cache = 0", "cache", "must be true or false"),
        ('color = "auto"', "color", "must be true or false"),
    ],
)
def test_wrong_types(project: Path, line: str, key: str, expected: str) -> None:
    write(project, f"[tool.codemod]\n{line}\n")
    with pytest.raises(ConfigError) as info:
        load_config(project)
    message = str(info.value)
    assert message.startswith(f"pyproject.toml: [tool.codemod] {key} {expected} (got ")
    assert "\n" not in message


def test_unknown_key(project: Path) -> None:
    write(project, "[tool.codemod]\npersistant = 'auto'\n")
    with pytest.raises(ConfigError, match=r"unknown key 'persistant' \(did you mean 'persistent'\?\)"):
        load_config(project)
    write(project, "[tool.codemod]\nfrobnicate = 1\n")
    with pytest.raises(ConfigError, match=r"^pyproject.toml: \[tool.codemod\] unknown key 'frobnicate' \(known: "):
        load_config(project)


def test_same_key_in_both_spellings(project: Path) -> None:
    write(project, "[tool.codemod]\nrequire-validated = true\nrequire_validated = false\n")
    with pytest.raises(ConfigError, match="require_validated given twice"):
        load_config(project)


def test_invalid_toml(project: Path) -> None:
    write(project, "[tool.codemod\npersistent = 'auto'\n")
    with pytest.raises(ConfigError, match=r"^pyproject.toml: invalid TOML: .*line 1"):
        load_config(project)


def test_not_utf8(project: Path) -> None:
    (project / "pyproject.toml").write_bytes(b"[tool.codemod]\ndevice = '\xff'\n")
    with pytest.raises(ConfigError, match=r"^pyproject.toml: not valid UTF-8"):
        load_config(project)


def test_table_must_be_a_table(project: Path) -> None:
    write(project, "[tool]\ncodemod = 3\n")
    with pytest.raises(ConfigError, match=r"\[tool.codemod\] must be a table"):
        load_config(project)


def test_file_outside_cwd_is_named_in_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    write(root, "[tool.codemod]\njobs = -1\n")
    with pytest.raises(ConfigError, match=f"^{(root / 'pyproject.toml').as_posix()}: "):
        load_config(root)


def test_find_project_root_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    a = tmp_path / "src" / "pkg" / "a.py"
    a.write_text("")
    assert find_project_root([a]) == tmp_path
    assert find_project_root([tmp_path / "src" / "pkg", tmp_path / "tests"]) == tmp_path


def test_find_project_root_nearest_marker_wins(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "libs" / "inner"
    sub.mkdir(parents=True)
    (sub / "pyproject.toml").write_text("")
    (sub / "m.py").write_text("")
    assert find_project_root([sub / "m.py"]) == sub
    # Two projects: the common ancestor with a marker is the repository.
    other = tmp_path / "libs" / "other"
    other.mkdir()
    assert find_project_root([sub, other]) == tmp_path


def test_find_project_root_without_markers(tmp_path: Path) -> None:
    here = tmp_path / "a" / "b"
    here.mkdir(parents=True)
    (here / "m.py").write_text("")
    if any((p / "pyproject.toml").is_file() or (p / ".git").exists() for p in here.parents):
        pytest.skip("the temporary directory lies inside a project")
    assert find_project_root([here / "m.py"]) == here
    assert find_project_root([here / "m.py", tmp_path / "a"]) == tmp_path / "a"


def test_find_project_root_of_missing_file_uses_its_directory(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    assert find_project_root([tmp_path / "not_yet.py"]) == tmp_path


def test_a_project_without_markers_is_read_from_its_outermost_package_not_its_neighbours(tmp_path: Path) -> None:
    downloads = tmp_path / "downloads"
    repo = downloads / "repo"
    (repo / "models").mkdir(parents=True)
    for folder in (repo, repo / "models"):
        (folder / "__init__.py").write_text("")
    (downloads / "other").mkdir()
    if any((p / "pyproject.toml").is_file() or (p / ".git").exists() for p in downloads.parents):
        pytest.skip("the temporary directory lies inside a project")
    root = find_project_root([repo / "models"])
    assert root == downloads, "the import root: the folder above the outermost package"
    assert project_scope([repo / "models"], root) == repo
    assert project_scope([repo / "models" / "net.py"], root) == repo
    assert project_scope([downloads], find_project_root([downloads])) == downloads, "asked for the folder above"
    (repo / "setup.py").write_text("")
    assert project_scope([repo / "models"], find_project_root([repo / "models"])) == repo
