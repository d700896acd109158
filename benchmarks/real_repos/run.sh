#!/usr/bin/env bash
# Validation on real repositories: the fraction of rewrites proven with no setup, then with `codemod record`.
#
#   benchmarks/real_repos/run.sh CHECKOUTS VENVS OUT [NAME...]
#
# CHECKOUTS/NAME is a checkout of each repository of repos.tsv at its commit (`record` keeps its records
# in the user cache directory; `codemod clean` removes those of an earlier run first). VENVS/NAME is a virtual environment with the CPU build of torch 2.13.0
# and the repository's dependencies (make_venv below does it). OUT gets, per repository, the JSON and
# Markdown reports of both runs and the output of the record command. Only dry runs: nothing is rewritten.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checkouts="$(cd "$1" && pwd)"; venvs="$(cd "$2" && pwd)"; mkdir -p "$3"; out="$(cd "$3" && pwd)"; shift 3
codemod=("${CODEMOD_PYTHON:-python}" -m codemod)  # the tool's interpreter

make_venv() {  # make_venv NAME SPEC... : one package at a time, so one that cannot be installed leaves the rest
    local venv="$venvs/$1"; shift
    echo "torch==2.13.0" > "$venvs/constraints.txt"  # nothing may replace the CPU build
    [ -x "$venv/bin/python" ] || { python -m venv "$venv" \
        && "$venv/bin/pip" install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu; }
    for spec in "$@"; do
        "$venv/bin/pip" install -q -c "$venvs/constraints.txt" --only-binary :all: "$spec" \
            || "$venv/bin/pip" install -q -c "$venvs/constraints.txt" --prefer-binary "${spec%%[<>=!~]*}" \
            || echo "not installed: $spec"
    done
    # torchvision, when a dependency pulls it in from PyPI, is a CUDA build that cannot load next to the
    # CPU torch; the measurement below was made without it (the workers stand in for it).
    "$venv/bin/pip" uninstall -y -q torchvision 2>/dev/null
}

grep -v '^#' "$here/repos.tsv" | while IFS=$'\t' read -r name repository field specs command; do
    [ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
    repo="$checkouts/$name"; python_="$venvs/$name/bin/python"
    [ -x "$python_" ] || eval make_venv "$name" $(printf "'%s' " $specs)
    "${codemod[@]}" clean "$repo" > /dev/null  # no records of an earlier run
    "${codemod[@]}" run --dry-run --no-cache --python "$python_" --format json --report "$out/$name.nosetup.md" "$repo" > "$out/$name.nosetup.json"
    record="${command/#python /$python_ }"
    (cd "$repo" && eval "${codemod[*]} record -- ${record//DRIVERS/$here/drivers}") > "$out/$name.record.out" 2>&1
    "${codemod[@]}" run --dry-run --no-cache --python "$python_" --format json --report "$out/$name.record.md" "$repo" > "$out/$name.record.json"
    echo "$name done"
done
"${CODEMOD_PYTHON:-python}" "$here/summarise.py" "$out"
