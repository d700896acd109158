"""Whether validation can run here at all, checked before any work (a usage error otherwise).

Validation runs the models with torch in worker processes; the static scan never needs it,
so the tool installs without torch.  Asking for validation where torch is missing, or for a
CUDA device this machine does not have, would otherwise leave every class "not validated"
while the files are still written.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

# Said once by a run that falls back to the static scan (the static-only install).
NO_TORCH_NOTE = ("validation needs torch, which is not installed here (the `validate` extra: "
                 "pip install 'torch-buffer-codemod[validate]'); running statically: only statically safe "
                 "rewrites are written (--unsafe-fixes writes the others)")
INSTALL_HINT = "pip install 'torch-buffer-codemod[validate]' (see the README for the CPU build of torch), or pass --no-validate"


def validation_problem(device: str, python: str = sys.executable) -> str | None:
    """A one-line reason validation cannot run with `device` under the workers' interpreter
    `python`, or None.  Another interpreter's torch is its own affair: a worker that cannot
    import it says so in its verdict (imports.explain_start_failure)."""
    if torch_missing(python):
        return f"validation needs torch, which is not installed for {sys.executable}: {INSTALL_HINT}"
    if not device.startswith("cuda"):
        return None
    # Asked in a separate interpreter: importing torch here would cost seconds to every run
    # and initialise CUDA before the validation workers start.
    probe = "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)"
    try:
        completed = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=120)
        count = int(completed.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return f"--device {device}: could not ask torch which CUDA devices exist"
    index = int(device.partition(":")[2] or 0)
    if count == 0:
        return f"--device {device}: no CUDA device is available (torch.cuda.is_available() is False); use --device auto, cpu or meta"
    if index >= count:
        return f"--device {device}: only {count} CUDA device(s) are visible"
    return None


def torch_missing(python: str) -> bool:
    """Whether validation would need torch where it is not installed: the tool's own
    interpreter without torch (the static-only install)."""
    return python == sys.executable and importlib.util.find_spec("torch") is None
