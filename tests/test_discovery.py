from __future__ import annotations

import os
from pathlib import Path

import pytest

from codemod.discovery import (
    DEFAULT_EXCLUDED_DIRS,
    Discovery,
    discover,
    display_path,
    is_default_excluded_dir,
    module_name_for,
)


def make(root: Path, *files: str, content: str = "x = 1\n") -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


def rel(result: Discovery, root: Path) -> list[str]:
    base = root.resolve()
    return [p.relative_to(base).as_posix() for p in result.files]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_only_py_files_sorted_absolute(in_tmp: Path) -> None:
    make(in_tmp, "b.py", "a.py", "pkg/z.py", "pkg/__init__.py", "notes.txt", "stub.pyi", "pkg/data.json")
    result = discover([in_tmp])
    assert rel(result, in_tmp) == ["a.py", "b.py", "pkg/__init__.py", "pkg/z.py"]
    assert all(p.is_absolute() for p in result.files)
    assert result.files == sorted(result.files)
    assert result.errors == []


def test_deduplicates_overlapping_paths(in_tmp: Path) -> None:
    make(in_tmp, "pkg/a.py", "pkg/b.py")
    result = discover(["pkg", in_tmp / "pkg" / "a.py", "./pkg/../pkg", in_tmp])
    assert rel(result, in_tmp) == ["pkg/a.py", "pkg/b.py"]


def test_default_excluded_dirs(in_tmp: Path) -> None:
    keep = ["src/m.py"]
    skipped = [f"{name}/x.py" for name in sorted(DEFAULT_EXCLUDED_DIRS)]
    skipped += ["src/codemod.egg-info/x.py", "src/sub/__pycache__/x.py", "lib/node_modules/pkg/x.py"]
    make(in_tmp, *keep, *skipped)
    result = discover([in_tmp], respect_gitignore=False)
    assert rel(result, in_tmp) == keep


def test_virtualenv_under_any_name_is_skipped(in_tmp: Path) -> None:
    make(in_tmp, "app.py", "my-env-3.11/lib/python3.11/site-packages/torch/x.py", "my-env-3.11/bin/tool.py")
    (in_tmp / "my-env-3.11" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert is_default_excluded_dir(in_tmp / "my-env-3.11")
    assert not is_default_excluded_dir(in_tmp)
    assert rel(discover([in_tmp]), in_tmp) == ["app.py"]


def test_explicit_excluded_dir_is_walked(in_tmp: Path) -> None:
    # Naming the directory is asking for it.
    make(in_tmp, "build/gen.py", "build/__pycache__/x.py")
    assert rel(discover(["build"]), in_tmp) == ["build/gen.py"]


def test_root_gitignore(in_tmp: Path) -> None:
    (in_tmp / ".git").mkdir()
    (in_tmp / ".gitignore").write_text("# generated\ngenerated/\n*_pb2.py\n/top_only.py\n")
    make(in_tmp, "a.py", "generated/x.py", "pkg/msg_pb2.py", "top_only.py", "pkg/top_only.py")
    assert rel(discover([in_tmp]), in_tmp) == ["a.py", "pkg/top_only.py"]


def test_gitignore_can_be_disabled(in_tmp: Path) -> None:
    (in_tmp / ".gitignore").write_text("*.py\n")
    make(in_tmp, "a.py")
    assert rel(discover([in_tmp]), in_tmp) == []
    assert rel(discover([in_tmp], respect_gitignore=False), in_tmp) == ["a.py"]


def test_nested_gitignore_is_relative_to_its_directory(in_tmp: Path) -> None:
    (in_tmp / ".git").mkdir()
    make(in_tmp, "a/local.py", "a/sub/local.py", "b/local.py", "a/keep.py")
    # Anchored pattern: only a/local.py, not a/sub/local.py, and nothing in b/.
    (in_tmp / "a" / ".gitignore").write_text("/local.py\n")
    assert rel(discover([in_tmp]), in_tmp) == ["a/keep.py", "a/sub/local.py", "b/local.py"]


def test_negation_and_nested_override(in_tmp: Path) -> None:
    (in_tmp / ".git").mkdir()
    (in_tmp / ".gitignore").write_text("gen_*.py\n!gen_keep.py\n")
    (in_tmp / "sub").mkdir()
    # A deeper .gitignore overrides a shallower one.
    (in_tmp / "sub" / ".gitignore").write_text("!gen_sub.py\n")
    make(in_tmp, "gen_a.py", "gen_keep.py", "main.py", "sub/gen_sub.py", "sub/gen_b.py")
    assert rel(discover([in_tmp]), in_tmp) == ["gen_keep.py", "main.py", "sub/gen_sub.py"]


def test_ignored_directory_cannot_be_reincluded(in_tmp: Path) -> None:
    # As in git: a file inside an excluded directory cannot be re-included.
    (in_tmp / ".gitignore").write_text("out/\n!out/keep.py\n")
    make(in_tmp, "out/keep.py", "m.py")
    assert rel(discover([in_tmp]), in_tmp) == ["m.py"]


def test_ancestor_gitignore_applies_to_subdirectory_argument(in_tmp: Path) -> None:
    (in_tmp / ".git").mkdir()
    (in_tmp / ".gitignore").write_text("src/pkg/generated/\n")
    make(in_tmp, "src/pkg/m.py", "src/pkg/generated/g.py")
    assert rel(discover(["src"]), in_tmp) == ["src/pkg/m.py"]


def test_git_info_exclude(in_tmp: Path) -> None:
    (in_tmp / ".git" / "info").mkdir(parents=True)
    (in_tmp / ".git" / "info" / "exclude").write_text("scratch/\n")
    make(in_tmp, "scratch/s.py", "pkg/m.py")
    assert rel(discover([in_tmp]), in_tmp) == ["pkg/m.py"]
    # Also from a subdirectory of the repository.
    make(in_tmp, "pkg/scratch/t.py")
    assert rel(discover(["pkg"]), in_tmp) == ["pkg/m.py"]


def test_gitignore_of_other_repository_does_not_leak(in_tmp: Path) -> None:
    (in_tmp / ".git").mkdir()
    (in_tmp / ".gitignore").write_text("vendor/\n")
    nested = in_tmp / "vendor"
    (nested / ".git").mkdir(parents=True)
    make(in_tmp, "vendor/lib.py")
    # Walking the nested repository on its own: the outer .gitignore is not its business.
    assert rel(discover(["vendor"]), in_tmp) == ["vendor/lib.py"]


def test_explicit_files_bypass_gitignore_but_not_excludes(in_tmp: Path) -> None:
    (in_tmp / ".gitignore").write_text("ignored.py\n")
    make(in_tmp, "ignored.py", "script", "skip_me.py")
    result = discover(["ignored.py", "script", "skip_me.py"], excludes=["skip_*.py"])
    assert rel(result, in_tmp) == ["ignored.py", "script"]


def test_excludes_on_files_and_directories(in_tmp: Path) -> None:
    make(in_tmp, "pkg/a.py", "pkg/legacy/old.py", "pkg/tests/test_a.py", "tests/test_b.py", "pkg/b.py")
    result = discover([in_tmp], excludes=["tests/", "pkg/legacy", "b.py"])
    assert rel(result, in_tmp) == ["pkg/a.py"]
    # An explicitly named file inside an excluded directory is excluded too.
    assert discover(["pkg/legacy/old.py"], excludes=["legacy/"]).files == []
    # And an explicitly named excluded directory yields nothing.
    assert discover(["pkg/legacy"], excludes=["pkg/legacy"]).files == []


def test_excludes_are_relative_to_root(in_tmp: Path) -> None:
    make(in_tmp, "proj/gen/x.py", "proj/src/gen/y.py")
    result = discover([in_tmp / "proj"], excludes=["/gen/"], root=in_tmp / "proj")
    assert rel(result, in_tmp) == ["proj/src/gen/y.py"]
    # Anchored to the cwd when no root is given: nothing matches /gen/ there.
    assert rel(discover(["proj"], excludes=["/gen/"]), in_tmp) == ["proj/gen/x.py", "proj/src/gen/y.py"]


def test_missing_path_reported_and_others_processed(in_tmp: Path) -> None:
    make(in_tmp, "a.py", "pkg/b.py")
    result = discover(["missing.py", "a.py", "nope/", "pkg", in_tmp.parent / "gone.py"])
    assert rel(result, in_tmp) == ["a.py", "pkg/b.py"]
    assert result.errors == [
        ("missing.py", "no such file or directory"),
        ("nope", "no such file or directory"),
        ((in_tmp.parent / "gone.py").as_posix(), "no such file or directory"),
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_special_file_is_an_error(in_tmp: Path) -> None:
    os.mkfifo(in_tmp / "pipe")
    result = discover(["pipe"])
    assert result.files == []
    assert result.errors == [("pipe", "not a regular file or directory")]


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_symlinked_directories_not_followed(in_tmp: Path) -> None:
    make(in_tmp, "pkg/a.py", "elsewhere/e.py")
    (in_tmp / "pkg" / "loop").symlink_to(in_tmp / "pkg", target_is_directory=True)
    (in_tmp / "pkg" / "ext").symlink_to(in_tmp / "elsewhere", target_is_directory=True)
    (in_tmp / "pkg" / "link.py").symlink_to(in_tmp / "elsewhere" / "e.py")
    assert rel(discover(["pkg"]), in_tmp) == ["pkg/a.py"]
    # Named explicitly, a symlink (or a path through one) is refused...
    for named in ("pkg/link.py", "pkg/ext", "pkg/ext/e.py"):
        result = discover([named])
        assert result.files == [] and len(result.errors) == 1
        assert result.errors[0][1].endswith("not followed (--follow-symlinks takes it)")
    assert discover(["pkg/ext/e.py"]).errors[0][1].startswith("passes through the symlink pkg/ext")
    # ...unless asked: then it is resolved to its target.
    assert rel(discover(["pkg/link.py"], follow_symlinks=True), in_tmp) == ["elsewhere/e.py"]


def test_deterministic_order(in_tmp: Path) -> None:
    names = [f"d{i % 3}/m{i}.py" for i in range(12)]
    make(in_tmp, *names)
    first = discover([in_tmp]).files
    second = discover(["d2", "d0", "d1"]).files
    assert first == second == sorted(first)


def test_display_path(tmp_path: Path) -> None:
    inside = tmp_path / "pkg" / "m.py"
    assert display_path(inside, tmp_path) == "pkg/m.py"
    assert display_path(tmp_path, tmp_path) == "."
    outside = tmp_path.parent / "other.py"
    assert display_path(outside, tmp_path) == outside.as_posix()
    assert display_path(Path("rel/x.py"), Path.cwd()) == "rel/x.py"


def test_module_name_for(tmp_path: Path) -> None:
    make(
        tmp_path,
        "src/pkg/__init__.py",
        "src/pkg/sub/__init__.py",
        "src/pkg/sub/m.py",
        "src/pkg/top.py",
        "scripts/run.py",
    )
    src = tmp_path / "src"
    assert module_name_for(src / "pkg" / "sub" / "m.py") == (src, "pkg.sub.m")
    assert module_name_for(src / "pkg" / "__init__.py") == (src, "pkg")
    assert module_name_for(src / "pkg" / "sub" / "__init__.py") == (src, "pkg.sub")
    assert module_name_for(src / "pkg" / "top.py") == (src, "pkg.top")
    assert module_name_for(tmp_path / "scripts" / "run.py") == (tmp_path / "scripts", "run")


def test_module_name_for_gap_in_packages(tmp_path: Path) -> None:
    # No __init__.py in "mid", inside the package "a": a namespace portion of it, as Python
    # imports it (`a.mid.b.m`, whose `from ... import x` names `a`)
    make(tmp_path, "a/__init__.py", "a/mid/b/__init__.py", "a/mid/b/m.py")
    assert module_name_for(tmp_path / "a" / "mid" / "b" / "m.py") == (tmp_path, "a.mid.b.m")
    # A folder without __init__.py outside any package is an import root of its own.
    make(tmp_path, "top/b/__init__.py", "top/b/m.py")
    assert module_name_for(tmp_path / "top" / "b" / "m.py") == (tmp_path / "top", "b.m")


def test_explicit_directory_inside_ignored_tree_is_walked(in_tmp: Path) -> None:
    (in_tmp / ".git").mkdir()
    (in_tmp / ".gitignore").write_text("vendor/\n*_pb2.py\n")
    make(in_tmp, "vendor/lib/a.py", "vendor/lib/b_pb2.py", "main.py")
    (in_tmp / "vendor" / "lib" / ".gitignore").write_text("skip.py\n")
    make(in_tmp, "vendor/lib/skip.py")
    assert rel(discover([in_tmp]), in_tmp) == ["main.py"]
    # Named explicitly, the ignored tree is walked, with only its own ignore files.
    assert rel(discover(["vendor/lib"]), in_tmp) == ["vendor/lib/a.py", "vendor/lib/b_pb2.py"]


# -- tracked files are never ignored (git's own rule) ----------------------------------------------


def _track(root: Path, *files: str) -> None:
    """Make `root` a git work tree whose index tracks `files` (written by dulwich, as git would)."""
    from dulwich.repo import Repo

    root.mkdir(parents=True, exist_ok=True)
    repo = Repo.init(str(root)) if not (root / ".git").exists() else Repo(str(root))
    paths = [name.encode() for name in files]
    if hasattr(repo, "get_worktree"):
        repo.get_worktree().stage(paths)
    else:  # dulwich before 0.23
        repo.stage(paths)
    repo.close()


def test_tracked_files_in_an_ignored_directory_are_taken(in_tmp: Path) -> None:
    # `models/` in .gitignore while models/*.py are committed: git ignores only untracked files
    make(in_tmp, "main.py", "models/net.py", "models/sub/layers.py", "models/scratch.py", "logs/run.py")
    (in_tmp / ".gitignore").write_text("models/\nlogs/\n")
    _track(in_tmp, "main.py", "models/net.py", "models/sub/layers.py", ".gitignore")
    assert rel(discover([in_tmp]), in_tmp) == ["main.py", "models/net.py", "models/sub/layers.py"]
    # named from inside the repository, and through an ignored file pattern, alike
    assert rel(discover(["models/sub"]), in_tmp) == ["models/sub/layers.py"]
    (in_tmp / ".gitignore").write_text("*_gen.py\n")
    make(in_tmp, "a_gen.py", "b_gen.py")
    _track(in_tmp, "a_gen.py")
    assert "a_gen.py" in rel(discover([in_tmp]), in_tmp) and "b_gen.py" not in rel(discover([in_tmp]), in_tmp)


def test_an_unreadable_index_leaves_the_ignore_rules_as_written(in_tmp: Path) -> None:
    make(in_tmp, "main.py", "models/net.py")
    (in_tmp / ".gitignore").write_text("models/\n")
    _track(in_tmp, "main.py", "models/net.py")
    (in_tmp / ".git" / "index").write_bytes(b"DIRC garbage")
    assert rel(discover([in_tmp]), in_tmp) == ["main.py"]
    (in_tmp / ".git" / "index").unlink()
    assert rel(discover([in_tmp]), in_tmp) == ["main.py"]


def test_a_worktree_reads_the_index_its_git_file_names(in_tmp: Path) -> None:
    # `.git` is a file in a worktree or a submodule: `gitdir: <the repository's directory>`
    store = in_tmp / "store"
    tree = in_tmp / "tree"
    make(tree, "models/net.py", "models/untracked.py")
    make(store, "models/net.py")
    (tree / ".gitignore").write_text("models/\n")
    _track(store, "models/net.py")  # an index listing the tree's file
    (tree / ".git").write_text(f"gitdir: {store / '.git'}\n")
    assert rel(discover([tree]), tree) == ["models/net.py"]


def test_jupyter_checkpoint_copies_are_skipped(in_tmp: Path) -> None:
    make(in_tmp, "kan/model.py", "kan/.ipynb_checkpoints/model-checkpoint.py")
    assert rel(discover([in_tmp]), in_tmp) == ["kan/model.py"]
