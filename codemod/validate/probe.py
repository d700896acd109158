"""Finding forward inputs a model runs on: the repository's own calls first, then inputs made
up from the model (synth.input_candidates), each failure's error asking for others
(synth.forward_repairs). Both the choice of a build (build.py) and a build's evidence
(side.py) ask this; it runs in a worker only."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import torch

from codemod.validate import compare, synth
from codemod.validate.build import FORWARD_SEED, format_exception, seed_all

# Inputs made again as failed forwards' errors asked, at most, per probe.
MAX_REPAIRED_INPUTS = 12


@dataclasses.dataclass
class Probe:
    inputs: dict[str, Any] | None = None  # the first candidate the model ran on
    known: bool = False  # whether those are the repository's own call
    valueless: bool = False  # whether every floating output it gave is NaN or infinite (compare.without_values)
    failures: list[tuple[dict[str, Any], BaseException]] = dataclasses.field(default_factory=list)
    made_again: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # candidates errors asked for

    def described(self, k: int) -> str:
        candidate, error = self.failures[k]
        return f"({synth.describe(candidate)}) raised {format_exception(error)}"

    def why_none_ran(self) -> str:
        """The first failure, and where inputs were made again as errors asked, the last one's:
        the reason no forward ran (`torch.stft` needing `return_complex` once the signal is
        long enough), not only the first input's shortcoming."""
        first = self.described(0)
        tried = [candidate for candidate, _ in self.failures]
        last = self.described(tried.index(self.made_again[-1])) if self.made_again else None
        if last is not None and last.split(" raised ", 1)[-1] == first.split(" raised ", 1)[-1]:
            last = None
        return first + (f"; made again as the errors asked, the last {last}" if last else "")


def first_inputs(model: torch.nn.Module, known: list[dict[str, Any]], importer: Callable[[str], Any] | None = None,
                 seen_run: dict[str, Any] | None = None) -> Probe:
    """The first input candidate ``model`` runs on (on itself: the caller hands a copy), with
    every failure before it; ``Probe()`` with no failures where no candidate is made at all.
    ``seen_run``: made-up inputs an earlier build of the same arguments ran on, tried first
    after the repository's own."""
    probe = Probe()
    candidates = synth.input_candidates(model, known)
    if seen_run is not None:
        ours = [c for c in candidates if c in known]
        candidates = [*ours, seen_run, *[c for c in candidates if c not in ours and c != seen_run]]
    valueless: dict[str, Any] | None = None  # the first candidate that ran to outputs of NaN only
    for candidate in candidates:  # grows: a failure's error may name the rank it needed
        try:
            seed_all(1)
            args, kwargs = synth.make_inputs(candidate, importer)
            seed_all(FORWARD_SEED)
            with torch.no_grad():
                outputs = model(*args, **kwargs)
        except (Exception, SystemExit) as exc:  # `else: sys.exit()` for inputs it does not expect
            probe.failures.append((candidate, exc))
            if candidate not in known and len(probe.made_again) < MAX_REPAIRED_INPUTS:
                for repaired in synth.forward_repairs(model, candidate, exc):
                    if repaired not in candidates and len(probe.made_again) < MAX_REPAIRED_INPUTS:
                        candidates.append(repaired)
                        probe.made_again.append(repaired)
            continue
        if compare.without_values(compare.flatten(outputs)) and candidate not in known:
            # `torch.sqrt(1 / x)` of normal draws: NaN spreads through the whole output; the
            # same inputs drawn in [0, 1) may give values
            # The first such candidate's redraws are tried whatever the repairs before it
            # used: an input that runs is worth more than another guess at one that raises.
            first_valueless = valueless is None
            valueless = valueless or candidate
            for positive in synth.positive_inputs(candidate):
                if positive not in candidates and (first_valueless or len(probe.made_again) < MAX_REPAIRED_INPUTS):
                    candidates.append(positive)
                    probe.made_again.append(positive)
            continue
        probe.inputs, probe.known = candidate, candidate in known
        break
    else:
        if valueless is not None:  # it runs, on NaN only: the checks of a run still apply
            probe.inputs, probe.valueless = valueless, True
    return probe
