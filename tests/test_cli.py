"""The `codemod run` command line: exit codes, output formats, configuration and file handling."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli_support import tool_env
from codemod.cli import main

REPO_ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
SUMMARY = re.compile(r"^\d+ files? scanned, \d+ (changed|would change), \d+ buffers?, \d+ parameters?, \d+ skipped(, \d+ errors?)?(; .*)?$")

ENCODER = """\
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.proj = nn.Linear(size, size)
        self.mask = torch.ones(size)

    def forward(self, x):
        return self.proj(x) * self.mask
"""
ENCODER_REWRITTEN = ENCODER.replace(
    "self.mask = torch.ones(size)", 'self.register_buffer("mask", torch.ones(size), persistent=False)'
)
ENCODER_FINDING = "models/encoder.py:9:9: Encoder.mask -> register_buffer (persistent=False: derived from constructor arguments; rebuilt on each construction)"

NOISY = """\
import torch
import torch.nn as nn


class Noisy(nn.Module):
    def __init__(self, dim=3):
        super().__init__()
        self.noise = torch.randn(dim)
        self.scale = torch.ones(dim, requires_grad=True)

    def forward(self, x):
        return x * self.scale + self.noise
"""
NOISY_REWRITTEN = NOISY.replace(
    "self.noise = torch.randn(dim)", 'self.register_buffer("noise", torch.randn(dim), persistent=False)'
).replace("self.scale = torch.ones(dim, requires_grad=True)", "self.scale = nn.Parameter(torch.ones(dim))")
_RANDOM = "random initialisation (torch.randn); a rebuilt model cannot reproduce it"
NOISY_FINDING = (
    f"models/noisy.py:8:9: Noisy.noise -> register_buffer (persistent=False: {_RANDOM}; kept out of checkpoints, as the "
    'attribute was) (suggestion: persistent = "state" saves it in checkpoints; checkpoints saved before then lack the '
    "key: load them with strict=False)"
)
NOISY_STATE_FINDING = (
    f"models/noisy.py:8:9: Noisy.noise -> register_buffer (persistent: {_RANDOM}; checkpoints saved before this change "
    "lack the key: load them with strict=False)"
)

PLAIN = """\
import torch


def make_batch(n):
    return torch.zeros(n, 3)


class Config:
    def __init__(self):
        self.table = torch.ones(3)
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree) -> Path:
    """A small project: two model files with rewrites, one file without; cwd is its root."""
    root = tmp_path / "proj"
    write_tree(
        root,
        {
            "pyproject.toml": '[project]\nname = "proj"\nversion = "0.1"\n',
            "models/__init__.py": "",
            "models/encoder.py": ENCODER,
            "models/noisy.py": NOISY,
            "data.py": PLAIN,
        },
    )
    monkeypatch.chdir(root)
    return root


def invoke(*args: str):
    return CliRunner().invoke(main, ["run", *args], catch_exceptions=False)


def subprocess_run(args: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = tool_env()
    return subprocess.run(
        [sys.executable, "-m", "codemod", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, **kwargs
    )


def python_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*.py"))
        if ".codemod" not in p.relative_to(root).parts
    }


def stdout_lines(result) -> list[str]:
    return result.stdout.splitlines()


# -- exit codes ----------------------------------------------------------------------------------


def test_clean_repository_exits_0(repo: Path):
    (repo / "models" / "encoder.py").write_text(ENCODER_REWRITTEN)
    (repo / "models" / "noisy.py").write_text(NOISY_REWRITTEN)
    before = python_files(repo)
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 0, result.output
    assert stdout_lines(result) == ["4 files scanned, 0 changed, 0 buffers, 0 parameters, 0 skipped"]
    assert result.stderr == ""
    assert python_files(repo) == before


def test_check_exits_1_when_pending_and_0_after_fixing(repo: Path):
    before = python_files(repo)
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert result.exit_code == 1, result.output
    assert ENCODER_FINDING in stdout_lines(result)
    assert python_files(repo) == before, "--check must not write"

    fixed = invoke("--no-validate", "--unsafe-fixes", ".")
    assert fixed.exit_code == 0, fixed.output
    assert (repo / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN

    again = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert again.exit_code == 0, again.output
    assert stdout_lines(again)[-1] == "4 files scanned, 0 would change, 0 buffers, 0 parameters, 0 skipped"


def test_missing_path_exits_2_and_the_other_paths_are_processed(repo: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "models", "nowhere.py", "data.py")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == ["nowhere.py: error: no such file or directory"]
    assert ENCODER_FINDING in stdout_lines(result)
    assert (repo / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN
    assert (repo / "models" / "noisy.py").read_text() == NOISY_REWRITTEN
    assert stdout_lines(result)[-1] == "4 files scanned, 2 changed, 2 buffers, 1 parameter, 0 skipped, 1 error"


def test_missing_path_with_check_still_exits_2(repo: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".", "nowhere")
    assert result.exit_code == 2
    assert "nowhere: error:" in result.stderr
    assert ENCODER_FINDING in stdout_lines(result)


BROKEN_FILES = {
    # a script whose only function does not parse
    "syntax_error_in_function": b"import os\n\n\ndef main(:\n    print(os.getcwd())\n",
    # a module class whose forward does not parse
    "syntax_error_in_module_class": (
        b"import torch\nfrom torch import nn\n\n\nclass Broken(nn.Module):\n    def __init__(self):\n"
        b"        super().__init__()\n        self.w = torch.ones(2)\n\n    def forward(self, x):\n"
        b"        return x +* self.w\n"
    ),
    "syntax_error_at_top_level": b"import torch\n\nVALUES = [1, 2\nprint(VALUES)\n",
    # a Python 2 script: no module class, yet its print statement is reported without --parse-all
    "python_2_script": b"import os\n\n\ndef main():\n    print os.getcwd()\n",
    "binary": b"\x7fELF\x02\x01\x01\x00\x00\x00import torch\n\x00\x00\x00",
    "undecodable": b"import torch\n\nNAME = '\xff\xfe caf\xe9'\n",
    "bad_coding_cookie": b"# -*- coding: klingon -*-\nimport torch\n",
}


# Syntax errors in code that cannot hold a rewrite are found only when every file is parsed.
NEEDS_PARSE_ALL = {"syntax_error_in_function", "syntax_error_at_top_level"}


@pytest.mark.parametrize("name", BROKEN_FILES.keys())
def test_unprocessable_file_exits_2_with_one_line_error_and_the_rest_is_rewritten(repo: Path, name: str):
    content = BROKEN_FILES[name]
    (repo / "broken.py").write_bytes(content)
    result = invoke("--no-validate", "--unsafe-fixes", *(["--parse-all"] if name in NEEDS_PARSE_ALL else []), ".")
    assert result.exit_code == 2, f"exit {result.exit_code}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    errors = result.stderr.splitlines()
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("broken.py: error: "), errors
    assert len(errors[0]) > len("broken.py: error: ")
    assert (repo / "broken.py").read_bytes() == content
    assert (repo / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN
    assert (repo / "models" / "noisy.py").read_text() == NOISY_REWRITTEN
    assert stdout_lines(result)[-1].endswith(", 1 error")


@pytest.mark.parametrize("name", sorted(NEEDS_PARSE_ALL))
def test_default_run_does_not_parse_files_that_cannot_hold_a_rewrite(repo: Path, name: str):
    (repo / "broken.py").write_bytes(BROKEN_FILES[name])
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert (repo / "broken.py").read_bytes() == BROKEN_FILES[name]
    assert (repo / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN


def test_a_syntax_error_names_the_first_broken_line_of_the_file(repo: Path):
    # Python 2 code: `async` as a parameter name at line 4 (a function the analysis never
    # reads), then again in a module class's forward at line 13, which is where it stopped
    source = (
        b"import torch\nfrom torch import nn\n\n\ndef maybe_cuda(t, async=False):\n    return t\n\n\n"
        b"class Broken(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.w = torch.ones(2)\n\n"
        b"    def forward(self, x):\n        return x.cuda(async=True) + self.w\n"
    )
    (repo / "broken.py").write_bytes(source)
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == ["broken.py: error: syntax error: invalid syntax (line 5)"], result.stderr
    # the file is left alone, and the tensor its module class plainly binds is reported (BUF314)
    assert (repo / "broken.py").read_bytes() == source
    reported = [line for line in result.stdout.splitlines() if line.startswith("broken.py:")]
    assert len(reported) == 1 and reported[0].startswith("broken.py:12:9: Broken.w skipped: the file does not parse"), reported


def test_a_file_in_a_later_python_s_syntax_says_so_where_this_python_cannot_read_it(repo: Path):
    # f-strings that nest their own quotes (PEP 701) parse from Python 3.12 on: in a function the
    # analysis skips, and in the module class's own forward
    agent = (
        "import torch\nfrom torch import nn\n\n\nclass Agent(nn.Module):\n    def __init__(self, high=1.0):\n"
        "        super().__init__()\n        self.high = torch.tensor([high])\n\n"
        "    def forward(self, x):\n        return x * self.high\n"
    )
    sources = {
        "report.py": agent + "\n\ndef report(info):\n    print(f\"time={info[\"time\"]}\")\n",
        "logged.py": agent.replace("return x * self.high", "print(f\"x={x[\"a\"]}\")\n        return x * self.high"),
    }
    for name, source in sources.items():
        (repo / name).write_text(source)
    result = invoke("--no-validate", "--unsafe-fixes", "--format", "json", ".")
    document = json.loads(result.stdout)
    found = {(f["path"].rpartition("/")[2], f["attribute"]): f for f in document["findings"]}
    errors = {e["path"].rpartition("/")[2]: e["message"] for e in document["errors"]}
    if sys.version_info >= (3, 12):  # read as any other file
        assert not errors and found[("logged.py", "high")]["action"] == "buffer", result.output
        return
    assert result.exit_code == 2, result.output
    note = f"; it is a later Python's syntax, which this Python ({sys.version_info.major}.{sys.version_info.minor}) does not read"
    assert errors == {"report.py": "syntax error: f-string: unmatched '[' (line 15)" + note,
                      "logged.py": "syntax error: f-string: unmatched '[' (line 11)" + note}, errors
    # the class that holds the line is reported by its text, with what to do
    logged = found[("logged.py", "high")]
    assert logged["code"] == "BUF314" and logged["action"] == "skip"
    assert logged["suggestion"].startswith("run codemod under the later Python the repository is written for")
    assert {name: (repo / name).read_text() for name in sources} == sources


def test_tensors_of_python_2_module_classes_are_reported_by_line_and_nothing_else(repo: Path):
    source = (
        "import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n\n\n"
        "class VidLoc(nn.Module):\n    def __init__(self, n=4):\n        super(VidLoc, self).__init__()\n"
        "        self.fc_h = Variable(torch.zeros(1, n))\n        self.lin = nn.Linear(n, n)\n"
        "        self.fc_h = Variable(torch.zeros(2, n))\n        print 'built'\n\n"
        "    def forward(self, x):\n        self.out = torch.zeros(1)\n        return self.lin(x)\n\n\n"
        "class Helper(object):\n    def __init__(self):\n        self.t = torch.zeros(3)\n\n\n"
        "class Outer(nn.Module):\n    class Inner(object):\n        def __init__(self):\n            self.u = torch.ones(1)\n"
        "    def __init__(self):\n        self.v = torch.ones(1)\n"
    )
    (repo / "vidloc.py").write_text(source)
    result = invoke("--no-validate", "--format", "json", ".")
    assert result.exit_code == 2
    found = [(f["line"], f["class"], f["attribute"], f["code"], f["action"]) for f in json.loads(result.stdout)["findings"]
             if f["path"].endswith("vidloc.py")]
    # the first binding of each; a plain object's and a nested plain class's tensors are not reported
    assert found == [(9, "VidLoc", "fc_h", "BUF314", "skip"), (15, "VidLoc", "out", "BUF314", "skip"),
                     (29, "Outer", "v", "BUF314", "skip")], found
    # no later Python reads Python 2 code: it is to be ported
    findings = [f for f in json.loads(result.stdout)["findings"] if f["path"].endswith("vidloc.py")]
    assert all(f["suggestion"].startswith("port the file to Python 3") for f in findings)
    # each is what the analysis finds in the file read with the print statement set aside
    reasons = {f["attribute"]: f["reason"] for f in findings}
    assert all("read with 1 statement Python 3 cannot read set aside (line 12), the analysis finds: " in r
               for r in reasons.values()), reasons
    assert "would register as a buffer (BUF101" in reasons["fc_h"] and "(BUF303)" in reasons["out"], reasons
    assert "no super().__init__() call" in reasons["v"], reasons
    assert (repo / "vidloc.py").read_text() == source


def test_a_python_2_file_is_read_as_the_analysis_reads_any_file_with_what_python_3_cannot_read_set_aside(repo: Path):
    # Tabs mixed with spaces and print statements: what a constructor stores from its caller,
    # and tuples a helper method builds, are found as in any file, and only reported.
    legacy = (
        "import torch\nfrom torch import nn\n\n\nclass Pool(nn.Module):\n    def __init__(self, indices):\n"
        "        super(Pool, self).__init__()\n        self.indices = indices\n\tprint 'pool', indices.shape\n\n"
        "    def forward(self, x):\n        return torch.index_select(x, 1, self.indices)\n\n\n"
        "class Tagger(nn.Module):\n    def __init__(self, n):\n        super(Tagger, self).__init__()\n"
        "        self.pool = Pool(torch.arange(n).long())\n        self.hidden = self.init_hidden(n)\n\n"
        "    def init_hidden(self, n):\n        return (torch.zeros(1, n), torch.zeros(1, n))\n\n"
        "    def forward(self, x):\n        try:\n            y = self.pool(x)\n        except IndexError, e:\n"
        "            print e\n            raise\n        return y + self.hidden[0]\n"
    )
    (repo / "legacy.py").write_text(legacy)
    alone = json.loads(invoke("--no-validate", "--format", "json", "models").stdout)["findings"]
    result = invoke("--no-validate", "--format", "json", ".")
    assert result.exit_code == 2, result.output
    document = json.loads(result.stdout)
    assert [e["path"] for e in document["errors"]] == ["legacy.py"], document["errors"]
    found = {(f["class"], f["attribute"]): f for f in document["findings"] if f["path"] == "legacy.py"}
    assert sorted(found) == [("Pool", "indices"), ("Tagger", "hidden")], found
    assert all(f["code"] == "BUF314" and f["action"] == "skip" for f in found.values())
    assert ("leading tabs read as Python 2 reads them and 3 statements Python 3 cannot read set aside (lines 9, 27, 28)"
            in found[("Pool", "indices")]["reason"]), found
    assert "would register as a buffer" in found[("Pool", "indices")]["reason"]
    assert "(BUF301)" in found[("Tagger", "hidden")]["reason"]
    assert (repo / "legacy.py").read_text() == legacy
    # the reading is this file's alone: the other files' findings are those of a run without it
    others = [f for f in document["findings"] if f["path"].startswith("models")]
    assert others == alone and others


def test_unprocessable_file_is_reported_under_check_and_dry_run(repo: Path):
    (repo / "broken.py").write_bytes(BROKEN_FILES["undecodable"])
    for mode in ("--check", "--dry-run"):
        result = invoke("--no-validate", "--unsafe-fixes", mode, ".")
        assert result.exit_code == 2, (mode, result.output)
        assert result.stderr.startswith("broken.py: error: cannot decode")


def test_usage_errors_exit_2(repo: Path):
    assert invoke("--no-validate", "--unsafe-fixes", "--persistent", "sometimes", ".").exit_code == 2
    assert invoke("--no-validate", "--unsafe-fixes", "--jobs", "0", ".").exit_code == 2
    assert invoke("--no-validate", "--unsafe-fixes").exit_code == 2  # PATHS is required
    assert python_files(repo)["models/encoder.py"] == ENCODER.encode()


# -- --dry-run -----------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["git", "patch"])
def test_dry_run_writes_nothing_and_prints_a_diff_that_applies(repo: Path, tmp_path: Path, tool: str):
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is needed to check that the diff applies")
    (repo / "models" / "crlf.py").write_bytes(ENCODER.replace("Encoder", "Crlf").replace("\n", "\r\n").encode())
    (repo / "models" / "no_newline.py").write_text(ENCODER.replace("Encoder", "Tail").rstrip("\n"))
    before = python_files(repo)
    result = invoke("--no-validate", "--unsafe-fixes", "--dry-run", "--no-color", ".")
    assert result.exit_code == 0, result.output
    assert python_files(repo) == before
    # Result.stdout folds CRLF into LF; the diff of the CRLF file needs the real bytes.
    raw = result.stdout_bytes
    diff_bytes = raw[: raw.index(ENCODER_FINDING.encode())]
    diff = diff_bytes.decode()
    assert "--- a/models/encoder.py\n+++ b/models/encoder.py\n" in diff
    assert "-        self.mask = torch.ones(size)\n" in diff
    assert '+        self.register_buffer("mask", torch.ones(size), persistent=False)\n' in diff

    # The diff applied to a copy gives exactly what an in-place run writes.
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".codemod"))
    patch_file = tmp_path / "change.diff"
    patch_file.write_bytes(diff_bytes)
    assert b'+        self.register_buffer("mask", torch.ones(size), persistent=False)\r\n' in diff_bytes
    if tool == "git":
        check = subprocess.run(["git", "apply", "--check", str(patch_file)], cwd=copy, capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        applied = subprocess.run(["git", "apply", str(patch_file)], cwd=copy, capture_output=True, text=True)
    else:
        check = subprocess.run(["patch", "--dry-run", "-p1", "-i", str(patch_file)], cwd=copy, capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        applied = subprocess.run(["patch", "-p1", "-i", str(patch_file)], cwd=copy, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr

    written = invoke("--no-validate", "--unsafe-fixes", ".")
    assert written.exit_code == 0
    assert python_files(copy) == python_files(repo)
    assert python_files(repo) != before


# -- colour ---------------------------------------------------------------------------------------


def test_no_color_gives_no_ansi_and_color_forces_it(repo: Path):
    plain = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--no-color", "."], cwd=repo)
    assert plain.returncode == 0, plain.stderr
    assert "+        self.register_buffer" in plain.stdout
    assert "\x1b[" not in plain.stdout + plain.stderr

    default = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "."], cwd=repo)
    assert "\x1b[" not in default.stdout, "output to a pipe is not coloured by default"

    coloured = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--color", "."], cwd=repo)
    assert coloured.returncode == 0, coloured.stderr
    assert "\x1b[" in coloured.stdout
    assert re.search(r"\x1b\[[0-9;]*m\+        self\.register_buffer", coloured.stdout)
    # Apart from the escapes the output is the same.
    assert ANSI.sub("", coloured.stdout) == plain.stdout


def test_color_in_config_and_flag_override(repo: Path):
    with open(repo / "pyproject.toml", "a") as handle:
        handle.write("\n[tool.codemod]\ncolor = true\n")
    configured = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "."], cwd=repo)
    assert "\x1b[" in configured.stdout
    overridden = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--no-color", "."], cwd=repo)
    assert "\x1b[" not in overridden.stdout


# -- output formats -------------------------------------------------------------------------------


def test_text_finding_lines_and_summary(repo: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert stdout_lines(result) == [
        ENCODER_FINDING,
        NOISY_FINDING,
        "models/noisy.py:9:9: Noisy.scale -> nn.Parameter (torch.ones(..., requires_grad=True); adds the state_dict"
        " key 'scale': checkpoints saved before lack it, load them with strict=False)",
        "would rewrite models/encoder.py",
        "would rewrite models/noisy.py",
        "4 files scanned, 2 would change, 2 buffers, 1 parameter, 0 skipped",
    ]
    assert SUMMARY.match(stdout_lines(result)[-1])


def test_skipped_findings_are_reported_with_their_reason(repo: Path, write_tree):
    write_tree(
        repo,
        {
            "models/pair.py": """\
                import torch
                from torch import nn


                class Pair(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.weights = [torch.ones(2), torch.zeros(2)]
                """
        },
    )
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "models/pair.py")
    assert result.exit_code == 0, result.output  # nothing to rewrite, only a skip
    lines = stdout_lines(result)
    assert lines[0].startswith("models/pair.py:8:9: Pair.weights skipped: ")
    assert "(suggestion: " in lines[0]
    assert lines[-1] == "1 file scanned, 0 would change, 0 buffers, 0 parameters, 1 skipped"


def test_quiet_prints_the_findings_and_no_summary(repo: Path):
    # As ruff's --quiet: the findings (and the diff under --dry-run), no summary line.
    for extra in (["--dry-run"], ["--check"], []):
        loud = invoke("--no-validate", "--unsafe-fixes", "--dry-run", ".") if extra == [] else invoke("--no-validate", "--unsafe-fixes", *extra, ".")
        result = invoke("--no-validate", "--unsafe-fixes", "--quiet", *extra, ".")
        lines = stdout_lines(result)
        findings = [line for line in stdout_lines(loud) if line.startswith("models/") and ":" in line.split()[0]]
        assert [line for line in lines if line.startswith("models/") and ":" in line.split()[0]] == findings, extra
        assert not any(" scanned, " in line for line in lines) and not any(line.startswith("would rewrite") for line in lines)
        assert ("--- a/models/encoder.py" in lines) == (extra == ["--dry-run"])
        assert result.stderr == ""
    assert (repo / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN  # the run without flags wrote


def test_silent_prints_nothing_and_keeps_the_exit_code(repo: Path):
    checked = invoke("--no-validate", "--silent", "--check", ".")
    assert (checked.exit_code, checked.stdout, checked.stderr) == (1, "", "")
    errored = invoke("--no-validate", "-s", "--check", ".", "missing.py")
    assert (errored.exit_code, errored.stdout, errored.stderr) == (2, "", "")
    as_json = invoke("--no-validate", "-s", "--dry-run", "--format", "json", ".")
    assert (as_json.exit_code, as_json.stdout) == (0, "")


def test_quiet_still_reports_errors_on_stderr(repo: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "-q", "--check", ".", "missing.py")
    assert result.exit_code == 2
    assert result.stderr == "missing.py: error: no such file or directory\n"
    assert len(stdout_lines(result)) == 3  # the findings of the three rewrites, no summary


# -- progress ---------------------------------------------------------------------------------------


def _run_with_terminal_stderr(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run `codemod` with stderr on a pseudo-terminal (stdout on a pipe): (exit code, stdout, stderr)."""
    import pty

    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "codemod", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=terminal, stdin=subprocess.DEVNULL
    )
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed when the process exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    stdout = proc.stdout.read().decode()  # type: ignore[union-attr]
    code = proc.wait(timeout=120)
    os.close(controller)
    return code, stdout, b"".join(chunks).decode()


@pytest.fixture
def many_files(tmp_path: Path) -> Path:
    root = tmp_path / "many"
    root.mkdir()
    (root / "model.py").write_text(ENCODER)
    for i in range(60):
        (root / f"helper_{i:02}.py").write_text(f"def f{i}():\n    return {i}\n")
    return root


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_progress_bar_on_a_terminal_only(many_files: Path):
    code, stdout, stderr = _run_with_terminal_stderr(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--no-cache", "."], many_files)
    assert code == 0
    assert "/61 files" in stderr and "61/61 files" in stderr and "[" + "#" * 30 + "]" in stderr
    assert stderr.rstrip("\r\n").endswith("\r\x1b[K")  # the bar is erased before the report
    assert "files]" not in stdout and "/61 files" not in stdout
    assert stdout.splitlines()[-1] == "61 files scanned, 1 would change, 1 buffer, 0 parameters, 0 skipped"
    # --quiet: the diff and the findings only, no bar even on a terminal.
    code, stdout, stderr = _run_with_terminal_stderr(["run", "--no-validate", "--unsafe-fixes", "--dry-run", "--no-cache", "-q", "."], many_files)
    assert code == 0 and "/61 files" not in stderr
    assert stdout.splitlines()[0] == "--- a/model.py" and stdout.splitlines()[-1].startswith("model.py:9:9: Encoder.mask")


def test_no_progress_bar_when_stderr_is_not_a_terminal(many_files: Path):
    completed = subprocess.run(
        [sys.executable, "-m", "codemod", "run", "--no-validate", "--unsafe-fixes", "--dry-run", "--no-cache", "."],
        cwd=many_files, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 0
    assert completed.stderr == ""
    assert "/61 files" not in completed.stdout


def test_run_reports_progress_for_every_file_in_order(many_files: Path, monkeypatch: pytest.MonkeyPatch):
    from codemod.runner import RunOptions, run

    monkeypatch.chdir(many_files)
    for jobs in (1, 2):
        calls: list[tuple[int, int]] = []
        run([many_files], RunOptions(write=False, validate=False, unsafe_fixes=True, use_cache=False, jobs=jobs), progress=lambda d, t: calls.append((d, t)))
        assert calls == [(i, 61) for i in range(1, 62)], jobs


def test_json_format(repo: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--format", "json", ".", "missing.py")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    findings = document["findings"]
    required = {"path", "line", "column", "class", "attribute", "action", "persistent", "reason"}
    for record in findings:
        assert required <= set(record), record
    compact = [
        (r["path"], r["line"], r["column"], r["class"], r["attribute"], r["action"], r["persistent"], r["reason"])
        for r in findings
    ]
    assert compact == [
        ("models/encoder.py", 9, 9, "Encoder", "mask", "buffer", False, "persistent=False: derived from constructor arguments; rebuilt on each construction"),
        ("models/noisy.py", 8, 9, "Noisy", "noise", "buffer", False, "persistent=False: random initialisation (torch.randn); a rebuilt model cannot reproduce it; kept out of checkpoints, as the attribute was"),
        (
            "models/noisy.py", 9, 9, "Noisy", "scale", "parameter", None,
            "torch.ones(..., requires_grad=True); adds the state_dict key 'scale':"
            " checkpoints saved before lack it, load them with strict=False",
        ),
    ]
    assert {"path": "missing.py", "message": "no such file or directory"} in document["errors"]
    summary = document["summary"]
    assert (summary["files_scanned"], summary["files_changed"], summary["buffers"], summary["parameters"]) == (4, 2, 2, 1)
    assert summary["errors"] == 1


def test_json_dry_run_includes_diffs_and_writes_nothing(repo: Path):
    before = python_files(repo)
    result = invoke("--no-validate", "--unsafe-fixes", "--dry-run", "--color", "--format", "json", ".")
    assert result.exit_code == 0
    assert "\x1b[" not in result.stdout
    document = json.loads(result.stdout)
    diffs = {d["path"]: d["diff"] for d in document["diffs"]}
    assert set(diffs) == {"models/encoder.py", "models/noisy.py"}
    assert '+        self.register_buffer("mask", torch.ones(size), persistent=False)\n' in diffs["models/encoder.py"]
    assert python_files(repo) == before


def test_json_format_from_config(repo: Path):
    with open(repo / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\nformat = "json"\n')
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert len(json.loads(result.stdout)["findings"]) == 3
    text = invoke("--no-validate", "--unsafe-fixes", "--check", "--format", "text", ".")
    assert stdout_lines(text)[0] == ENCODER_FINDING


# -- persistence ----------------------------------------------------------------------------------


def test_persistent_never_by_default_and_state_on_request(repo: Path):
    default = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert NOISY_FINDING in stdout_lines(default)
    state = invoke("--no-validate", "--unsafe-fixes", "--check", "--persistent", "state", ".")
    assert NOISY_STATE_FINDING in stdout_lines(state)
    assert ENCODER_FINDING in stdout_lines(state)  # a value the constructor rebuilds stays out of checkpoints

    invoke("--no-validate", "--unsafe-fixes", "--persistent", "state", "models/noisy.py")
    assert 'self.register_buffer("noise", torch.randn(dim))\n' in (repo / "models" / "noisy.py").read_text()
    invoke("--no-validate", "--unsafe-fixes", "models/encoder.py")
    assert 'self.register_buffer("mask", torch.ones(size), persistent=False)\n' in (repo / "models" / "encoder.py").read_text()


def test_old_persistent_values_are_usage_errors(repo: Path):
    for value in ("auto", "always"):
        assert invoke("--no-validate", "--unsafe-fixes", "--persistent", value, ".").exit_code == 2
    with open(repo / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\npersistent = "auto"\n')
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert result.exit_code == 2
    assert "'auto' is no longer a value" in result.output


# -- configuration --------------------------------------------------------------------------------


def test_config_persistent_is_honoured_and_the_flag_wins(repo: Path):
    with open(repo / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\npersistent = "state"\n')
    configured = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert NOISY_STATE_FINDING in stdout_lines(configured)
    flagged = invoke("--no-validate", "--unsafe-fixes", "--check", "--persistent", "never", ".")
    assert NOISY_FINDING in stdout_lines(flagged)


def test_config_found_from_a_subdirectory(repo: Path, monkeypatch: pytest.MonkeyPatch):
    with open(repo / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\npersistent = "state"\n')
    monkeypatch.chdir(repo / "models")
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "noisy.py")
    assert NOISY_STATE_FINDING.replace("models/", "", 1) in stdout_lines(result)


def test_config_exclude_and_cli_exclude_add_up(repo: Path, write_tree):
    write_tree(repo, {"legacy/old.py": ENCODER.replace("Encoder", "Old"), "scripts/train_old.py": ENCODER.replace("Encoder", "Train")})
    with open(repo / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.codemod]\nexclude = ["legacy/"]\n')
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    out = result.stdout
    assert "legacy/old.py" not in out
    assert "scripts/train_old.py:9:9: Train.mask" in out
    both = invoke("--no-validate", "--unsafe-fixes", "--check", "--exclude", "*_old.py", ".")
    assert "legacy/" not in both.stdout and "scripts/" not in both.stdout
    assert stdout_lines(both)[-1].startswith("4 files scanned, 2 would change")


@pytest.mark.parametrize(
    "table, words",
    [
        ('persistent = "sometimes"', ["persistent", "sometimes"]),
        ("jobs = 0", ["jobs"]),
        ('exclude = "legacy/"', ["exclude"]),
        ("persistant = \"never\"", ["persistant", "persistent"]),
        ("cache = \"yes\"", ["cache"]),
    ],
)
def test_invalid_config_exits_2_with_a_clear_message(repo: Path, table: str, words: list[str]):
    with open(repo / "pyproject.toml", "a") as handle:
        handle.write(f"\n[tool.codemod]\n{table}\n")
    before = python_files(repo)
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 2, result.output
    assert "pyproject.toml" in result.stderr
    for word in words:
        assert word in result.stderr
    assert "Traceback" not in result.output
    assert python_files(repo) == before


def test_unparsable_pyproject_exits_2(repo: Path):
    (repo / "pyproject.toml").write_text("[tool.codemod\npersistent = 'never'\n")
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 2
    assert "pyproject.toml" in result.stderr and "TOML" in result.stderr


# -- discovery ------------------------------------------------------------------------------------


def test_exclude_option(repo: Path):
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "--exclude", "models/noisy.py", ".")
    assert "noisy" not in result.stdout
    assert stdout_lines(result)[-1] == "3 files scanned, 1 would change, 1 buffer, 0 parameters, 0 skipped"
    directory = invoke("--no-validate", "--unsafe-fixes", "--check", "--exclude", "models/", "--exclude", "*.txt", ".")
    assert stdout_lines(directory) == ["1 file scanned, 0 would change, 0 buffers, 0 parameters, 0 skipped"]


def test_gitignore_and_tool_directories_are_skipped(repo: Path, write_tree):
    model = ENCODER.replace("Encoder", "Hidden")
    write_tree(
        repo,
        {
            ".gitignore": "generated/\n*_tmp.py\n",
            "generated/auto.py": model,
            "models/scratch_tmp.py": model,
            "models/nested/.gitignore": "local.py\n",
            "models/nested/local.py": model,
            "models/nested/kept.py": ENCODER.replace("Encoder", "Kept"),
            ".git/hooks/hook.py": model,
            "venv/lib/site.py": model,
            ".venv/lib/site.py": model,
            "env311/pyvenv.cfg": "home = /usr/bin\n",
            "env311/lib/thing.py": model,
            "build/lib/models/encoder.py": model,
            "dist/x.py": model,
            "proj.egg-info/x.py": model,
            "node_modules/x.py": model,
            "__pycache__/x.py": model,
        },
    )
    result = invoke("--no-validate", "--unsafe-fixes", "--check", ".")
    assert "Hidden" not in result.stdout, result.stdout
    assert "models/nested/kept.py:9:9: Kept.mask" in result.stdout
    assert stdout_lines(result)[-1].startswith("5 files scanned, 3 would change")


def test_a_named_file_is_taken_even_in_an_ignored_directory(repo: Path, write_tree):
    write_tree(repo, {".gitignore": "generated/\n", "generated/auto.py": ENCODER.replace("Encoder", "Auto")})
    result = invoke("--no-validate", "--unsafe-fixes", "--check", "generated/auto.py")
    assert result.exit_code == 1
    assert "generated/auto.py:9:9: Auto.mask" in result.stdout


# -- writing files --------------------------------------------------------------------------------


def test_in_place_run_rewrites_files(repo: Path):
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 0, result.output
    assert (repo / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN
    assert (repo / "models" / "noisy.py").read_text() == NOISY_REWRITTEN
    assert (repo / "data.py").read_text() == PLAIN
    assert not list(repo.rglob("*.codemod-tmp")), "temporary files left behind"


def test_crlf_newlines_are_kept(repo: Path):
    path = repo / "models" / "encoder.py"
    path.write_bytes(ENCODER.replace("\n", "\r\n").encode())
    assert invoke("--no-validate", "--unsafe-fixes", "models/encoder.py").exit_code == 0
    assert path.read_bytes() == ENCODER_REWRITTEN.replace("\n", "\r\n").encode()


def test_latin1_file_with_coding_cookie_is_kept_in_latin1(repo: Path):
    source = "# -*- coding: latin-1 -*-\n# Modèle écrit par Stéphane\n" + ENCODER.replace(
        "super().__init__()", "super().__init__()  # réglé"
    )
    path = repo / "models" / "encoder.py"
    path.write_bytes(source.encode("latin-1"))
    result = invoke("--no-validate", "--unsafe-fixes", "models/encoder.py")
    assert result.exit_code == 0, result.output
    assert "models/encoder.py:11:9: Encoder.mask -> register_buffer" in result.stdout
    expected = source.replace("self.mask = torch.ones(size)", 'self.register_buffer("mask", torch.ones(size), persistent=False)')
    assert path.read_bytes() == expected.encode("latin-1")
    assert b"\xe9" in path.read_bytes()


def test_utf8_bom_is_kept(repo: Path):
    path = repo / "models" / "encoder.py"
    path.write_bytes(b"\xef\xbb\xbf" + ENCODER.encode())
    assert invoke("--no-validate", "--unsafe-fixes", "models/encoder.py").exit_code == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + ENCODER_REWRITTEN.encode()


def test_file_permissions_are_kept(repo: Path):
    path = repo / "models" / "encoder.py"
    path.write_text("#!/usr/bin/env python\n" + ENCODER)
    os.chmod(path, 0o755)
    other = repo / "models" / "noisy.py"
    os.chmod(other, 0o640)
    assert invoke("--no-validate", "--unsafe-fixes", ".").exit_code == 0
    assert path.read_text() == "#!/usr/bin/env python\n" + ENCODER_REWRITTEN
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert other.read_text() == NOISY_REWRITTEN
    assert stat.S_IMODE(other.stat().st_mode) == 0o640


def test_unchanged_files_keep_bytes_and_mtime(repo: Path, write_tree):
    write_tree(repo, {"models/skipped.py": """\
        import torch
        from torch import nn


        class Pair(nn.Module):
            def __init__(self):
                super().__init__()
                self.weights = [torch.ones(2), torch.zeros(2)]
        """, "crlf.py": PLAIN.replace("\n", "\r\n").encode()})
    untouched = [repo / "data.py", repo / "models" / "__init__.py", repo / "models" / "skipped.py", repo / "crlf.py"]
    old = 1_500_000_000_000_000_000
    for path in untouched:
        os.utime(path, ns=(old, old))
    before = {p: p.read_bytes() for p in untouched}
    result = invoke("--no-validate", "--unsafe-fixes", ".")
    assert result.exit_code == 0
    for path in untouched:
        assert path.read_bytes() == before[path], path
        assert path.stat().st_mtime_ns == old, f"{path} was rewritten"
    assert (repo / "models" / "encoder.py").read_text() == ENCODER_REWRITTEN


def test_second_run_changes_nothing(repo: Path):
    first = invoke("--no-validate", "--unsafe-fixes", ".")
    assert first.exit_code == 0
    after_first = python_files(repo)
    mtimes = {p: p.stat().st_mtime_ns for p in repo.rglob("*.py")}
    second = invoke("--no-validate", "--unsafe-fixes", ".")
    assert second.exit_code == 0
    assert stdout_lines(second) == ["4 files scanned, 0 changed, 0 buffers, 0 parameters, 0 skipped"]
    assert python_files(repo) == after_first
    assert {p: p.stat().st_mtime_ns for p in repo.rglob("*.py")} == mtimes
    assert invoke("--no-validate", "--unsafe-fixes", "--check", "--no-cache", ".").exit_code == 0


def test_file_changed_between_read_and_write_is_not_clobbered(repo: Path, monkeypatch: pytest.MonkeyPatch):
    import codemod.runner as runner_module

    real = runner_module._finalise
    path = repo / "models" / "encoder.py"

    def edit_then_finalise(*args, **kwargs):
        path.write_text(ENCODER + "\n# edited meanwhile\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(runner_module, "_finalise", edit_then_finalise)
    result = invoke("--no-validate", "--unsafe-fixes", "--no-cache", ".")
    assert result.exit_code == 2
    assert "models/encoder.py: error: " in result.stderr
    assert path.read_text() == ENCODER + "\n# edited meanwhile\n"
    assert (repo / "models" / "noisy.py").read_text() == NOISY_REWRITTEN


# -- help ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"]], ids=["codemod --help", "codemod run --help"])
def test_help_mentions_exit_codes_and_that_validation_executes_code(repo: Path, args: list[str]):
    result = subprocess_run(args, cwd=repo)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split()).lower()
    assert "exit code" in text, result.stdout
    for code in ("0", "1", "2"):
        assert re.search(rf"\b{code}\b", text)
    assert re.search(r"execut\w*\s+(the\s+)?repositor", text), result.stdout
    assert "--no-validate", "--unsafe-fixes" in text


def test_subprocess_exit_codes_match(repo: Path):
    check = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--check", "."], cwd=repo)
    assert check.returncode == 1, check.stderr
    assert ENCODER_FINDING in check.stdout.splitlines()
    missing = subprocess_run(["run", "--no-validate", "--unsafe-fixes", "--check", "nothing-here"], cwd=repo)
    assert missing.returncode == 2
    assert "nothing-here: error: no such file or directory" in missing.stderr
    usage = subprocess_run(["run", "--bogus-flag", "."], cwd=repo)
    assert usage.returncode == 2


def test_values_computed_from_a_tensor_a_file_that_does_not_parse_binds_are_reported_too():
    from codemod.rules import unparsed_files

    text = (
        "class Agent(nn.Module):\n    def __init__(self, env):\n        super().__init__()\n"
        "        self.high = torch.tensor(env.high[0])\n        self.low = torch.tensor(env.low[0])\n"
        "        self.scale = (self.high - self.low) / 2.0\n        self.bias = (self.high + self.low) / 2.0\n"
        "        self.size = int(self.high.shape[0])\n        self.n = self.high.item()\n"
        "        self.dims = [self.high, self.low]\n        self.net = self.make(self.high)\n"
        "        self.high = self.high * 2\n        print f'{x[\"a\"]}'\n"
    )
    found = [(line, attr, what) for line, _column, _owner, attr, what in unparsed_files.scan(text)]
    # arithmetic on a tensor found above; numbers, sizes, a list, a method's result and a
    # rebinding of the same attribute are not
    assert found == [(4, "high", "torch.tensor(...)"), (5, "low", "torch.tensor(...)"),
                     (6, "scale", "a value computed from self.high"), (7, "bias", "a value computed from self.high")], found
