"""The newest torch a repository declares it runs on, when that is older than a rewrite needs.

`register_buffer(name, tensor, persistent=False)` exists since torch 1.6.  A repository that
pins an older torch (`torch==1.0.1` in requirements.txt, `pytorch=1.0.1` in environment.yml,
`conda install pytorch=0.3.1` in its README) would raise TypeError at the rewritten statement
on the torch its users install, so the rewrite is not made there (rules/old_torch.py).

Only what the repository declares counts: requirement files, environment files, setup.py,
setup.cfg, pyproject.toml, install commands in its README and the files those commands
install from (`conda env create -f docker/environment.yml`); where none of them gives a
version, the versions its README says the code was written for ("we used PyTorch 1.0.0").  A
requirement with no upper bound (`torch>=1.0`) allows a current torch and says nothing here;
torch named with no version says nothing against another file's old pin.  Parsing uses
`packaging`, the reference implementation of Python's version specifiers.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

# `torch==1.0.1`, `torch<=0.4.1`, `torch >=1.0, <1.5`, `pytorch=1.0.1=py3.7_cuda9.0` (conda),
# `torch==1.0.1.post2`: the package name, then its constraints up to the end of the item.
_REQUIREMENT = re.compile(
    r"""(?<![\w.-])(?:py)?torch(?![\w.-])\s*(?:\[[^\]]*\])?[ \t]*((?:[=<>!~]=?=?[ \t]*[\w.*+!-]+[ \t]*,?[ \t]*)+)""",
    re.IGNORECASE,
)
# A README's install command: `pip install torch==1.0.1`, `conda install pytorch=0.3.1 cuda90`.
_INSTALL = re.compile(r"(?:pip3?|conda)\s+install\b[^\n`]*", re.IGNORECASE)
_FILES = ("requirements*.txt", "requirements/*.txt", "environment*.yml", "environment*.yaml", "env*.yml",
          "setup.py", "setup.cfg", "pyproject.toml")
_MAX_BYTES = 1 << 20
_DEPENDENCIES = re.compile(r"^dependencies\s*:", re.MULTILINE)
# Conda's pin, `=1.0.1` or `=1.0.1=py3.7_cuda9.0...` (with a build string): that version.
_CONDA_PIN = re.compile(r"=([\d.*]+)(?:=\S*)?")


def too_old_torch(root: Path | None) -> str | None:
    """`"torch==1.0.1 (environment.yml)"` when every torch the repository at ``root`` declares
    is older than 1.6, or None (nothing declared, or a current torch allowed)."""
    if root is None:
        return None
    root = Path(root)
    found: list[tuple[str, str]] = []  # (constraint as written, file)
    declared = {path for pattern in _FILES for path in root.glob(pattern)}  # `environment.yml` matches twice
    # a conda environment file under any name (`if-net_env.yml`): a YAML file with `dependencies:`
    declared |= {path for pattern in ("*.yml", "*.yaml") for path in root.glob(pattern)
                 if path not in declared and _DEPENDENCIES.search(_read(path) or "")}
    for path in sorted(declared):
        found += _declared_in(path, path.name)
    for path in sorted(root.glob("README*")):
        text = _read(path)
        if text is not None:
            for named in _named_files(text, root):  # `conda env create -f docker/environment.yml`
                found += _declared_in(named, named.relative_to(root.resolve()).as_posix())
            for command in _INSTALL.findall(text):
                found += [(c, path.name) for c in _constraints(command)]
                if _BARE_INSTALL.search(command):
                    found.append(("", path.name))
    # torch named with no version (`- pytorch` in an environment file) installs whatever is
    # current, but says nothing against a file that pins an old one: users who install from
    # that file get the old torch
    pinned = [(constraint, where) for constraint, where in found if constraint]
    if not pinned:
        # no version declared anywhere: what the README says the code was written for ("we
        # used PyTorch 1.0.0", "written in Pytorch 0.2"), which an unpinned install command
        # (`conda install pytorch torchvision cuda90`) does not contradict
        pinned = [(c, path.name) for path in sorted(root.glob("README*")) for c in _prose_versions(_read(path) or "")]
    if not pinned:
        return None  # nothing, or torch with no version only: a current torch
    verdicts = [(constraint, where, _allows_current(constraint)) for constraint, where in pinned]
    if any(allowed is not False for _, _, allowed in verdicts):
        return None  # one declaration allows a current torch, or cannot be read: nothing proven
    constraint, where, _ = verdicts[0]
    conda = _CONDA_PIN.fullmatch(constraint)  # `=1.0.1=py3.7_cuda9.0...`: the build is noise here
    return f"torch{'=' + conda.group(1) if conda else constraint} ({where})"


# torch required with no version: a line of its own in a requirements file, a quoted
# requirement in setup.py / pyproject.toml, `- pytorch` among an environment's dependencies.
_BARE_LINE = re.compile(r"^\s*(?:-\s*)?(?:py)?torch\s*(?:\[[^\]]*\])?\s*(?:;.*)?$", re.IGNORECASE | re.MULTILINE)
_BARE_QUOTED = re.compile(r"""["'](?:py)?torch["']""", re.IGNORECASE)
# `pip install torch torchvision`; not the channel of `conda install ... -c pytorch`
_BARE_INSTALL = re.compile(r"(?<!-c )(?<!--channel )(?<![\w.=-])(?:py)?torch(?![\w.=<>~!-])", re.IGNORECASE)


def _declared_in(path: Path, where: str) -> list[tuple[str, str]]:
    """(constraint, where) for each torch a declaration file names; `("", where)` where it
    names torch with no version (a current torch allowed)."""
    text = _read(path)
    if text is None:
        return []
    text = _without_comments(text, path)
    found = [(c, where) for c in _constraints(text)]
    if _unconstrained(text, path):
        found.append(("", where))
    return found


# A README's command that installs from a file: `conda env create -f docker/environment.yml`,
# `pip install -r requirements/base.txt`; the file's path.
_FROM_FILE = re.compile(
    r"(?:conda\s+env\s+(?:create|update)|conda\s+install|pip3?\s+install)\b[^\n`]*?(?:\s-f|\s--file|\s-r|\s--requirement)"
    r"[\s=]+([\w./-]+\.(?:ya?ml|txt))",
    re.IGNORECASE,
)


def _named_files(text: str, root: Path) -> list[Path]:
    """The declaration files a README's install commands name, inside the repository and not
    already among those read for every repository (requirements.txt at the root)."""
    found = []
    for name in _FROM_FILE.findall(text):
        path = (root / name).resolve()
        if root.resolve() not in path.parents or path.parent == root.resolve():
            continue  # outside the repository, or a root file the patterns already read
        if path not in found:
            found.append(path)
    return found


def _unconstrained(text: str, path: Path) -> bool:
    if path.suffix in (".yml", ".yaml"):
        dependencies = re.split(r"^dependencies\s*:", text, maxsplit=1, flags=re.MULTILINE)
        if len(dependencies) < 2:
            return False
        section = re.split(r"^\S", dependencies[1], maxsplit=1, flags=re.MULTILINE)[0]  # up to the next key
        return bool(_BARE_LINE.search(section))
    if path.suffix == ".txt":
        return bool(_BARE_LINE.search(text))
    return bool(_BARE_QUOTED.search(text))


# "PyTorch 1.0.0", "Pytorch version 0.4", "torch v1.2", with what follows when it opens the
# range upwards ("PyTorch 1.4 or higher", "PyTorch 1.4+").
_PROSE = re.compile(
    r"(?<![\w.-])(?:py)?torch\s*(?:version\s*|v\.?\s*)?(\d+\.\d+(?:\.\d+)?)(?![\d.]*\d)"
    r"(\s*\+|\s*(?:or|and)\s+(?:higher|later|newer|above|greater|up))?",
    re.IGNORECASE,
)


def _prose_versions(text: str) -> list[str]:
    """The torch versions a README's text names, as constraints: `==1.0.0`, or `>=1.4` where
    the text opens the range upwards."""
    return [(">=" if m.group(2) else "==") + m.group(1) for m in _PROSE.finditer(text)]


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _without_comments(text: str, path: Path) -> str:
    if path.suffix in (".txt", ".yml", ".yaml", ".cfg", ".toml"):
        return "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return text


def _constraints(text: str) -> list[str]:
    """The version constraints after each mention of torch (`==1.0.1`, `>=1.0,<1.5`)."""
    return [re.sub(r"\s+", "", m.group(1)).rstrip(",") for m in _REQUIREMENT.finditer(text)]


def _allows_current(constraint: str) -> bool | None:
    """Whether the constraint allows a torch that has non-persistent buffers; None when it
    cannot be read.  Conda's `=1.0.1` (and `=1.0.1=build`) pins that version."""
    conda = _CONDA_PIN.fullmatch(constraint)
    if conda is not None:
        constraint = "==" + conda.group(1)
    constraint = re.sub(r"\+[\w.]+", "", constraint)  # `==1.8.1+cu111`: the build does not change the release
    try:
        specifiers = SpecifierSet(constraint)
    except InvalidSpecifier:
        return None
    if any(s.operator in ("==", "===") and "*" not in s.version and Version(s.version).release >= (1, 6)
           for s in specifiers):
        return True  # `==2.0.0.dev20221212`: a pre-release of a torch that has them
    return any(specifiers.contains(version, prereleases=True) for version in _CURRENT)


# Releases with non-persistent buffers: 1.6 to 1.13, then 2.0 to 2.13 (and later minors and
# patches, which a bound that admits none of these does not admit either).
_CURRENT = [Version(f"1.{minor}.{patch}") for minor in range(6, 14) for patch in range(0, 3)] + [
    Version(f"{major}.{minor}.{patch}") for major in (2, 3) for minor in range(0, 14) for patch in range(0, 3)]
