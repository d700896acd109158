#!/usr/bin/env bash
# The GitHub Action's step (action.yml): install torch-buffer-codemod into a virtual environment
# of its own, then run `codemod run --check --output-format github` on the inputs' paths.
#
# Inputs, as action.yml passes them: INPUT_PATHS (default "."), INPUT_VALIDATE ("true" or
# "false", the default), INPUT_ARGS (more options), INPUT_PYTHON (default python3),
# INPUT_VERSION (a version from the package index; default: the action's own copy).
# Exit status: codemod's (0 nothing pending, 1 rewrites pending, 2 errors).
set -euo pipefail

python="${INPUT_PYTHON:-python3}"
if ! interpreter="$(command -v "$python")"; then
    echo "::error title=codemod::no Python interpreter '$python' (set up Python first, or set the python input)"
    exit 2
fi
action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}"
if [ -n "${INPUT_VERSION:-}" ]; then
    requirement="torch-buffer-codemod==${INPUT_VERSION}"
else
    requirement="$action_path"
fi

args=(run --check --output-format github)
case "${INPUT_VALIDATE:-false}" in
    true)
        # The models run under the job's interpreter, where torch and the project are installed;
        # the tool itself stays in its own environment.
        args+=(--validate --python "$interpreter") ;;
    false)
        args+=(--no-validate) ;;
    *)
        echo "::error title=codemod::the validate input must be true or false (got '${INPUT_VALIDATE}')"
        exit 2 ;;
esac
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    args+=(--report "$GITHUB_STEP_SUMMARY")  # the Markdown summary on the run's page
fi
read -r -a extra <<< "${INPUT_ARGS:-}"
read -r -a paths <<< "${INPUT_PATHS:-.}"
[ "${#paths[@]}" -gt 0 ] || paths=(.)

venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/torch-buffer-codemod-venv"
"$interpreter" -m venv "$venv"
bin="$venv/bin"
[ -d "$bin" ] || bin="$venv/Scripts"  # Windows runners
echo "::group::Install torch-buffer-codemod"
"$bin/python" -m pip install --disable-pip-version-check --quiet "$requirement"
echo "::endgroup::"

exec "$bin/codemod" "${args[@]}" "${extra[@]+"${extra[@]}"}" -- "${paths[@]}"
