"""The GitHub Action: action.yml (a composite action) and its step, .github/action/run.sh.

The fast tests run the script as the runner does, with a stand-in interpreter that records
how it is called (the venv and pip steps) and runs this checkout's `codemod`; the slow one
installs the committed tree for real into a fresh virtual environment and runs it."""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from cli_support import ENCODER, REPO_ROOT, make_project

ACTION = REPO_ROOT / "action.yml"
SCRIPT = REPO_ROOT / ".github" / "action" / "run.sh"


def test_action_is_a_composite_action_running_the_script_with_inputs_as_environment():
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"paths", "validate", "args", "python", "version"}
    assert action["inputs"]["validate"]["default"] == "false"  # static by default
    assert action["inputs"]["paths"]["default"] == "."
    [step] = action["runs"]["steps"]
    assert step["shell"] == "bash" and step["run"] == '"$GITHUB_ACTION_PATH/.github/action/run.sh"'
    # inputs go through the environment, never into the command line (no script injection)
    assert "${{" not in step["run"]
    assert step["env"] == {f"INPUT_{name.upper()}": f"${{{{ inputs.{name} }}}}" for name in action["inputs"]}
    assert os.access(SCRIPT, os.X_OK)


STAND_IN = """\
#!/usr/bin/env bash
# A stand-in for python3: records its calls; `-m venv DIR` makes a venv whose python records
# pip's calls and whose codemod is this checkout's.
echo "python3 $*" >> "$ACTION_LOG"
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin"
    printf '#!/usr/bin/env bash\\necho "venv-python $*" >> "$ACTION_LOG"\\n' > "$3/bin/python"
    printf '#!/usr/bin/env bash\\necho "codemod $*" >> "$ACTION_LOG"\\nexec "$REAL_PYTHON" -m codemod "$@"\\n' > "$3/bin/codemod"
    chmod +x "$3/bin/python" "$3/bin/codemod"
fi
"""


@pytest.fixture
def runner(tmp_path: Path, write_tree):
    project = make_project(tmp_path / "repo", write_tree)
    stand_ins = tmp_path / "bin"
    stand_ins.mkdir()
    python3 = stand_ins / "python3"
    python3.write_text(STAND_IN)
    python3.chmod(python3.stat().st_mode | stat.S_IXUSR)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    log = tmp_path / "calls.log"

    def run(**inputs: str) -> tuple[subprocess.CompletedProcess, list[str]]:
        log.write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("INPUT_")}
        env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
        env.update(
            PATH=f"{stand_ins}{os.pathsep}{env['PATH']}", ACTION_LOG=str(log), REAL_PYTHON=sys.executable,
            PYTHONPATH=str(REPO_ROOT), GITHUB_ACTION_PATH=str(REPO_ROOT), RUNNER_TEMP=str(temp),
            GITHUB_STEP_SUMMARY=str(temp / "summary.md"),
        )
        completed = subprocess.run([str(SCRIPT)], cwd=project, env=env, capture_output=True, text=True, timeout=120)
        return completed, log.read_text().splitlines()

    return run, project, stand_ins, temp


def test_static_check_with_annotations_and_a_summary(runner):
    run, project, stand_ins, temp = runner
    completed, calls = run(paths=".", validate="false", args="", python="", version="")
    venv = temp / "torch-buffer-codemod-venv"
    assert calls == [
        f"python3 -m venv {venv}",
        f"venv-python -m pip install --disable-pip-version-check --quiet {REPO_ROOT}",  # the action's own copy
        f"codemod run --check --output-format github --no-validate --report {temp / 'summary.md'} -- .",
    ]
    assert completed.returncode == 1, completed.stdout + completed.stderr  # rewrites pending
    lines = completed.stdout.splitlines()
    assert lines[0] == "::group::Install torch-buffer-codemod" and lines[1] == "::endgroup::"
    assert any(line.startswith("::warning file=models/encoder.py,line=9,col=9,title=BUF101::") for line in lines)
    assert (temp / "summary.md").read_text().startswith("# Raw tensor attributes")
    assert (project / "models" / "encoder.py").read_text() == ENCODER  # a check writes nothing


def test_inputs_paths_args_version_and_validate(runner):
    run, project, stand_ins, temp = runner
    completed, calls = run(paths="models/encoder.py models/pair.py", validate="true", args="--show-settings --select BUF1",
                           version="0.1.0")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert calls[1].endswith("pip install --disable-pip-version-check --quiet torch-buffer-codemod==0.1.0")
    assert shlex.split(calls[2]) == [
        "codemod", "run", "--check", "--output-format", "github", "--validate", "--python", str(stand_ins / "python3"),
        "--report", str(temp / "summary.md"), "--show-settings", "--select", "BUF1", "--", "models/encoder.py", "models/pair.py",
    ]
    # the settings the run resolved: validation on, under the job's interpreter
    assert "validate = true  # command line" in completed.stdout
    assert f'python = "{stand_ins / "python3"}"  # command line' in completed.stdout
    assert 'select = ["BUF1"]  # command line' in completed.stdout


def test_a_wrong_validate_input_fails_before_installing(runner):
    run, *_ = runner
    completed, calls = run(validate="yes")
    assert completed.returncode == 2
    assert completed.stdout.strip() == "::error title=codemod::the validate input must be true or false (got 'yes')"
    assert calls == []


def test_the_readme_workflow_uses_the_action():
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"^```yaml\n(.*?)^```$", readme, flags=re.S | re.M)
    workflows = [yaml.safe_load(block) for block in blocks if "jobs:" in block]
    assert workflows, "the README shows a workflow"
    steps = [step for workflow in workflows for job in workflow["jobs"].values() for step in job["steps"]]
    uses = [step for step in steps if "torch-buffer-codemod" in str(step.get("uses", ""))]
    assert uses and any(step.get("with", {}).get("validate") in (True, "true") for step in uses)
    assert any("with" not in step or "validate" not in step["with"] for step in uses)  # static by default


@pytest.mark.slow
def test_the_action_installs_the_committed_tree_and_checks(tmp_path: Path, write_tree):
    """As on a runner: the action's directory is a checkout of the committed tree; the step
    installs it into a fresh virtual environment (pip from its configured index) and runs."""
    checkout = tmp_path / "action"
    archive = tmp_path / "head.tar"
    subprocess.run(["git", "-C", str(REPO_ROOT), "archive", "--format=tar", "-o", str(archive), "HEAD"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(checkout, filter="data")
    assert (checkout / "action.yml").is_file(), "commit action.yml first"
    project = make_project(tmp_path / "repo", write_tree)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(GITHUB_ACTION_PATH=str(checkout), RUNNER_TEMP=str(tmp_path), INPUT_PYTHON=sys.executable,
               INPUT_VALIDATE="false", INPUT_PATHS=".")
    script = checkout / ".github" / "action" / "run.sh"
    static = subprocess.run([str(script)], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert static.returncode == 1, static.stdout + static.stderr
    assert "::warning file=models/encoder.py,line=9,col=9,title=BUF101::Encoder.mask" in static.stdout
    installed = tmp_path / "torch-buffer-codemod-venv"
    assert subprocess.run([str(installed / "bin" / "python"), "-c", "import torch"], capture_output=True).returncode != 0
    # validate: true runs the models under the job's interpreter (this one has torch)
    env["INPUT_VALIDATE"] = "true"
    validated = subprocess.run([str(script), ], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert validated.returncode == 1, validated.stdout + validated.stderr
    assert "title=BUF101::Encoder.mask -> register_buffer" in validated.stdout
    assert "[passed" in validated.stdout  # validated
    assert (project / "models" / "encoder.py").read_text() == ENCODER
