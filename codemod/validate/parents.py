"""Find a parent that builds a class nobody wrote an example for.

Before the classes are validated, one original-side worker gets a
``harvest`` request naming the classes that no example, record or default
constructor builds.  It builds candidate parents once each, under
:class:`hooks.Capture`: every example, then every module class of the
repository that builds with no arguments or with made-up ones (and runs its
forward when inputs are known or can be made up).  Each repository class
built inside one of them remembers the first parent that built it, and a
parent that also ran its forward is preferred.  The answer maps each class to
a JSON spec that both sides follow to rebuild the same parent.

The harvest is a request of its own, so a candidate parent that hangs, exits
or crashes the worker costs the harvest, never another class's verdict; each
candidate gets a few seconds at most and the whole search a budget.  Both are
counted in CPU time of the worker (an interval timer on its CPU time), so that
a busy machine, which stretches wall-clock time, finds the same parents as an
idle one and every run gives the same verdicts; a wall-clock limit, several
times longer, still ends a parent that sleeps or waits.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any, Iterator

import torch

from codemod.validate import hooks, synth
from codemod.validate.build import Context, ExamplesFile, NotBuildable, build, make_inputs, resolve_source, seed_all

MAX_PARENTS = 40
PER_PARENT_S = 5.0  # CPU seconds
WALL_FACTOR = 6.0  # a parent that waits instead of computing: ended after this many times as long


class ParentTooSlow(BaseException):
    """Raised by the interval timer inside a candidate parent that takes too long."""


class Known:
    """The harvest's answer, as the class requests receive it."""

    def __init__(self, found: dict[str, dict[str, Any]] | None) -> None:
        self.found = dict(found or {})

    def find(self, target: str) -> dict[str, Any] | None:
        return self.found.get(target)


def needs_parent(cls: Any, target: str, examples: ExamplesFile, has_record: bool) -> bool:
    from codemod.validate.build import forwarded_base, required_parameters

    examples.load()
    # a `*args, **kwargs` subclass of a torch.nn layer requires the layer's arguments
    return target not in examples.entries and not has_record and bool(required_parameters(cls) or forwarded_base(cls))


class Parents:
    def __init__(self, examples: ExamplesFile, context: Context, budget_s: float) -> None:
        self.examples = examples
        self.context = context
        self.budget_s = budget_s
        self.found: dict[str, dict[str, Any]] = {}  # class key -> parent spec
        self._search: Iterator[None] | None = None
        self._deadline: float | None = None

    def find(self, target: str) -> dict[str, Any] | None:
        if target in self.found and self.found[target].get("inputs"):
            return self.found[target]
        if self._search is None:
            self._search = self._harvest()
            self._deadline = time.process_time() + self.budget_s
        while not (target in self.found and self.found[target].get("inputs")):
            if self._deadline is not None and time.process_time() > self._deadline:
                break
            try:
                next(self._search)
            except StopIteration:
                break
        return self.found.get(target)

    def _candidates(self) -> list[str]:
        self.examples.load()
        names = sorted(self.examples.entries)
        names += [n for n in (hooks.class_key(c) for c in hooks.repository_classes(self.context.roots))
                  if n not in names]
        return names[:MAX_PARENTS]

    def harvest(self, targets: list[str]) -> dict[str, dict[str, Any]]:
        for target in targets:
            self.find(target)
        return {t: self.found[t] for t in targets if t in self.found}

    def _harvest(self) -> Iterator[None]:
        for parent in self._candidates():
            limit = PER_PARENT_S
            if self._deadline is not None:
                limit = max(0.1, min(limit, self._deadline - time.process_time()))
            try:
                with _time_limit(limit):
                    self._try_parent(parent)
            except BaseException as exc:  # noqa: BLE001 - SystemExit and hangs included: a parent teaches nothing
                if isinstance(exc, KeyboardInterrupt):
                    raise
            yield None

    def _try_parent(self, parent: str) -> None:
        cls = self.context.importer(parent)
        if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
            return
        try:
            source = resolve_source(cls, parent, self.examples, None)  # no parent search: context=None
        except NotBuildable:
            return
        spec: dict[str, Any] = {"parent": parent, "kind": source.kind, "spec": source.spec, "detail": source.detail}
        with hooks.Capture(self.context.roots, skip=cls) as result:
            model = build(cls, source)
        if not result.classes:
            return
        inputs = make_inputs(source) if source.make_inputs is not None else None
        if inputs is None:
            for candidate in synth.input_candidates(model):
                try:
                    seed_all(1)
                    trial = synth.make_inputs(candidate)
                    with torch.no_grad():
                        model(*trial[0], **trial[1])
                except Exception:
                    continue
                spec["parent_inputs"] = candidate
                inputs = trial
                break
        del model
        # capture again with the forward: what each submodule was built with and called with
        from codemod.validate.build import capture_in_parent

        captured = capture_in_parent(spec, self.examples, self.context) if inputs is not None else result.classes
        for key, value in captured.items():
            has_inputs = value.inputs is not None
            known = self.found.get(key)
            if known is None or (has_inputs and not known.get("inputs")):
                self.found[key] = dict(spec, inputs=has_inputs)


class _time_limit:
    """Interrupt the block after ``seconds`` of the process's CPU time, or ``WALL_FACTOR`` times
    as long on the clock (main thread, POSIX); otherwise no limit."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.active = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()

    def __enter__(self) -> None:
        if self.active:
            def expire(_signum: int, _frame: Any) -> None:
                raise ParentTooSlow()

            self.previous = {number: signal.signal(number, expire) for number in (signal.SIGPROF, signal.SIGALRM)}
            signal.setitimer(signal.ITIMER_PROF, self.seconds)
            signal.setitimer(signal.ITIMER_REAL, self.seconds * WALL_FACTOR)

    def __exit__(self, *exc: Any) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            for number, handler in self.previous.items():
                signal.signal(number, handler)
