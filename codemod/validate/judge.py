"""Turn the evidence of both sides into verdicts (worker side, imports torch).

``judge`` compares one build of a class; ``merge`` turns the builds of a class
into one verdict per rewrite.  A check *fails* only when the rewritten class
disagrees with the original or with the planned rewrite.  Device problems that
the original has too (a tensor created in ``forward`` without a device, a raw
attribute the codemod skipped) are reported in ``details`` but do not block a
correct rewrite.  New ``state_dict`` keys that are the rewrite's own are not a
failure but a change of the checkpoint format, and a rewrite no forward was
compared for is checked without forward, never passed.
"""

from __future__ import annotations

import re
from typing import Any

import torch

from codemod.validate.checks import CASTS
from codemod.validate.compare import (
    compare_cast,
    compare_leaves,
    compare_specs,
    describe,
    exact_difference,
    without_values,
)

Index = dict[str, dict[str, tuple[str, "bool | None"]]]


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def rewritten_names(rew: dict[str, Any], orig: dict[str, Any], index: Index) -> dict[str, tuple[str, bool | None]]:
    """Every rewritten attribute in the model tree, by qualified name.

    Nested modules whose classes are rewritten in the same run count too:
    their new buffers and parameters show up in this model's state_dict.
    Only attributes the original actually held as raw tensors are included.
    """
    found: dict[str, tuple[str, bool | None]] = {}
    original_buffers = {name for name, _ in orig.get("buffers", ())}
    for path, module, qualname in rew["modules"]:
        for attr, plan in index.get(f"{module}.{qualname}", {}).items():
            full = _join(path, attr)
            owner, _, leaf = full.rpartition(".")
            if leaf in orig["raw"].get(owner, ()):
                found[full] = (plan[0], plan[1])
            elif plan[0] == "parameter" and full in original_buffers:
                # a buffer created with requires_grad=True, made a parameter so that it is trained
                found[full] = (plan[0], plan[1])
    return found


class _Judgement:
    """The comparison of one build of the class: the original's evidence against the rewritten's."""

    def __init__(self, device_label: str) -> None:
        self.device_label = device_label
        self.failed: list[tuple[str, str, str | None]] = []  # (check, message, attribute it concerns)
        self.details: list[str] = []
        self.notes: list[str] = []  # compatibility notes: not failures, but a user must know them
        self.compared: list[str] = []
        self.error: str | None = None
        self.max_abs_diff: float | None = None
        self.original_failure: str | None = None
        self.left_behind: list[str] = []
        self.checkpoint_compatible: bool | None = None
        self.missing_keys: list[str] = []
        self.parameter_order_changed = False
        self.forward_compared = False  # forward:cpu outputs compared
        self.read: list[str] = []  # the rewritten attributes the rewritten forwards read
        # each cast: "compared" (outputs agree), "original raises" (and the rewritten runs),
        # "both raise", or "not run" (no forward); a difference is a failure instead
        self.casts: dict[str, str] = {}
        # attribute -> why its value was never compared (no tensor with these arguments)
        self.uncompared: dict[str, str] = {}
        # the rewrite's own new state_dict keys, which strict loading of old checkpoints lacks:
        # not a failure but a change of the checkpoint format (see merge)
        self.new_keys: dict[str, list[str]] = {}

    @property
    def failures(self) -> list[str]:
        return [f"{check}: {message}" for check, message, _ in self.failed]

    def fail(self, check: str, message: str, attr: str | None = None) -> None:
        self.failed.append((check, message, attr))

    def diff(self, value: float | None) -> None:
        if value is not None:
            self.max_abs_diff = value if self.max_abs_diff is None else max(self.max_abs_diff, value)

    def forward_with_casts(self) -> bool:
        """A forward compared in float32 and after every cast (``both raise`` and ``the original
        raises`` count: the cast model's behaviour was seen on both sides)."""
        return self.forward_compared and bool(self.casts) and all(v != "not run" for v in self.casts.values())

    def result(self, findings: list[list[Any]], coverage: dict[str, list[int]] | None, detail: str) -> dict[str, Any]:
        return {
            "detail": detail,
            "device": self.device_label,
            "failed": [list(f) for f in self.failed],
            "error": self.error,
            "details": list(self.details),
            "notes": list(self.notes),
            "compared": list(self.compared),
            "max_abs_diff": self.max_abs_diff,
            "original_failure": self.original_failure,
            "left_behind": list(self.left_behind),
            "checkpoint_compatible": self.checkpoint_compatible,
            "missing_keys": list(self.missing_keys),
            "parameter_order_changed": self.parameter_order_changed,
            "forward": self.forward_compared,
            "forward_with_casts": self.forward_with_casts(),
            "read": list(self.read),
            "casts": dict(self.casts),
            "uncompared": dict(self.uncompared),
            "new_keys": {k: list(v) for k, v in self.new_keys.items()},
            "coverage": None if coverage is None else {k: list(v) for k, v in coverage.items()},
        }


def judge(
    orig: dict[str, Any],
    rew: dict[str, Any],
    findings: list[list[Any]],
    index: Index,
    device: torch.device | None,
    device_label: str,
) -> dict[str, Any]:
    """The comparison of one build (see merge for the verdicts over all builds of a class)."""
    j = _Judgement(device_label)
    j.details.append(orig["source_detail"])
    j.details.extend(orig.get("notes") or [])
    rewritten = rewritten_names(rew, orig, index)
    _attributes(j, orig, rew, findings)
    _state_dict(j, orig, rew, rewritten)
    _checkpoint(j, rew, rewritten, orig.get("checkpoint_self"))
    _parameters(j, orig, rew, rewritten)
    if device is not None:
        _device_movement(j, orig, rew, rewritten, device)
    _forward(j, orig, rew, rewritten, device)
    j.read = list(rew.get("forward_reads") or [])
    o_checks, r_checks = orig.get("checks") or {}, rew.get("checks") or {}
    _round_trip(j, o_checks.get("round_trip"), r_checks.get("round_trip"), findings)
    _casts(j, o_checks.get("casts"), r_checks.get("casts"), findings)
    if o_checks.get("casts_after_forward") or r_checks.get("casts_after_forward"):
        _casts_after_forward(j, o_checks.get("casts_after_forward"), r_checks.get("casts_after_forward"), findings,
                             " after a first forward")
    _training(j, o_checks.get("training"), r_checks.get("training"), findings, rewritten)
    _meta(j, o_checks.get("meta"), r_checks.get("meta"))
    _pretrained(j, o_checks.get("pretrained"), r_checks.get("pretrained"))
    result = j.result(findings, orig.get("coverage"), orig["source_detail"])
    result["method"] = (orig.get("source_spec") or {}).get("method")  # run in place of forward
    result["dtype"] = (orig.get("source_spec") or {}).get("dtype")  # the repository's own cast of the class
    result["unread"] = orig.get("unread")  # reads of rewritten attributes no forward ran
    return result


def build_failure(orig: dict[str, Any], device_label: str, message: str, findings: list[list[Any]]) -> dict[str, Any]:
    """A build the rewritten class cannot make where the original could: a failure of the rewrite
    the error names, else of every rewrite of the class."""
    j = _Judgement(device_label)
    j.details.append(orig["source_detail"])
    j.fail("build", message, _named(message, findings))
    return j.result(findings, orig.get("coverage"), orig["source_detail"])


# -- the verdicts over every build of a class ---------------------------------------------------

# The class's verdict is the worst of its rewrites', in this order.
ORDER = ("failed", "error", "timeout", "not validated", "checked without forward", "changes the checkpoint format",
         "passed")
CAST_LABELS = tuple(label for label, _, _ in CASTS)


def merge(builds: list[dict[str, Any]], findings: list[list[Any]], forward_reads: dict[str, bool],
          tried: int = 0, handed_on: list[str] | tuple[str, ...] = (),
          unrun_readers: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Each rewrite's verdict from the builds of its class (judge results, the first build first).

    * **failed**: any build shows a difference that concerns the rewrite (a failure naming
      no attribute, such as different outputs, concerns every rewrite of the class);
    * **not validated**: a statement of the rewrite ran in no build (coverage is merged: a
      rewrite spanning both arms of an ``if`` is proven once each arm ran in some build), or
      its attribute held no tensor in any build;
    * **checked without forward**: no build compared a forward, in float32 and after each
      cast, with the attribute holding a tensor, while some forward of the class reads it
      (for an attribute in ``handed_on``, which forward reaches only through what ``__init__``
      handed it to, any such forward counts), or where no forward reads it but a method that
      validation does not run does (``unrun_readers``: `get_action`);
    * **changes the checkpoint format**: the only difference is new ``state_dict`` keys;
    * **passed**: none of the above.
    """
    attrs = [attr for attr, *_ in findings]
    first = builds[0]
    several = len(builds) > 1

    def where(i: int) -> str:
        return f" (build {i + 1}: {builds[i]['detail']})" if several else ""

    rewrites: dict[str, dict[str, Any]] = {}
    spans_total = spans_run = 0
    for attr, _action, _persistent, *rest in findings:
        spans = rest[1] if len(rest) > 1 else []
        own = [(i, c, m) for i, b in enumerate(builds) for c, m, a in b["failed"] if a == attr or a not in attrs]
        covered = [b["coverage"] for b in builds if b.get("coverage") is not None]
        unrun: set[int] | None = None
        for coverage in covered:
            lines = set(coverage.get(attr) or [])
            unrun = lines if unrun is None else unrun & lines
        if covered:
            spans_total += len(spans) or 1
            spans_run += (len(spans) or 1) - len(unrun or ())
        checks: list[str] = []
        for b in builds:
            for check in b["compared"]:
                if check not in checks:
                    checks.append(check)
        if covered and not unrun:
            checks.append("coverage")
        tensor_builds = [i for i, b in enumerate(builds) if attr not in b["uncompared"] and not b["error"]]
        # a forward counts for a rewrite when it read the rewritten tensor, or ran what holds it
        forward_builds = [i for i in tensor_builds if builds[i]["forward_with_casts"]
                          and (attr in builds[i]["read"] or attr in handed_on)]
        keys = sorted({k for b in builds for k in b["new_keys"].get(attr, [])})
        # reads of the attribute that no compared forward ran (another branch of forward)
        unread = _unread(attr, [builds[i] for i in forward_builds])
        readers = (unrun_readers or {}).get(attr) or []
        entry: dict[str, Any] = {"checks": checks, "builds": [i + 1 for i in tensor_builds],
                                 "forward": "compared" if forward_builds else (
                                     "not used" if not forward_reads.get(attr, True) and not readers else None)}
        if own:
            i, check, message = own[0]
            text = "; ".join(f"{c}: {m}" for _, c, m in own[:3])
            entry.update(verdict="failed", message=text + where(i))
        elif first["error"]:
            entry.update(verdict="error", message=first["error"])
        elif unrun:
            lines = ", ".join(str(n) for n in sorted(unrun))
            entry.update(verdict="not validated",
                         message=f"branch not taken {_in_builds(len(covered), tried, 'with these arguments')}: the "
                         f"rewritten statement (line {lines}) never ran")
        elif not tensor_builds:
            entry.update(verdict="not validated", message=first["uncompared"].get(attr) or next(
                (b["uncompared"][attr] for b in builds if attr in b["uncompared"]), "no tensor was compared"))
        elif entry["forward"] is None and readers and not forward_reads.get(attr, True):
            named = ", ".join(f"{name}()" for name in readers)
            entry.update(verdict="checked without forward",
                         message=f"structure, checkpoint and meta checks agree, but no forward reads {attr}: {named} "
                         f"{'reads' if len(readers) == 1 else 'read'} it, which validation does not run, so what a "
                         "cast or a device move of the buffer does there is not compared")
        elif entry["forward"] is None:
            entry.update(verdict="checked without forward",
                         message=_without_forward(attr, builds, tensor_builds, keys))
        elif unread:
            entry.update(verdict="not validated", message=_unread_message(attr, unread, len(covered), tried))
        elif keys:
            entry.update(verdict="changes the checkpoint format", message=_new_keys_message(keys, entry["forward"]))
        else:
            entry.update(verdict="passed", message=_proof(attr, builds, forward_builds, entry["forward"],
                                                          attr in handed_on and attr not in builds[forward_builds[0]]["read"]
                                                          if forward_builds else False))
        rewrites[attr] = entry

    verdict = min((r["verdict"] for r in rewrites.values()), key=ORDER.index, default="passed")
    failures: list[str] = []
    details: list[str] = []
    notes: list[str] = []
    compared: list[str] = []
    for i, b in enumerate(builds):
        prefix = f"build {i + 1}: " if several and i else ""
        failures += [prefix + f"{c}: {m}" for c, m, _ in b["failed"]]
        details += [prefix + d for d in b["details"]]
        notes += [n for n in b["notes"] if n not in notes]
        compared += [c for c in b["compared"] if c not in compared]
    if verdict == "failed":
        message = "; ".join(failures[:4]) + (f"; and {len(failures) - 4} more" if len(failures) > 4 else "")
    elif verdict == "error":
        message = first["error"]
    elif verdict == "passed":
        message = "matches the original: " + ", ".join(compared)
    else:
        odd = [attr for attr, r in rewrites.items() if r["verdict"] == verdict]
        said = "change the checkpoint format" if verdict == "changes the checkpoint format" else verdict
        message = f"{len(odd)} of {len(rewrites)} rewrites {said} ({', '.join(odd)}): " + rewrites[odd[0]]["message"]
    diffs = [b["max_abs_diff"] for b in builds if b["max_abs_diff"] is not None]
    return {
        "verdict": verdict,
        "device": first["device"],
        "compared": compared,
        "max_abs_diff": max(diffs) if diffs else None,
        "message": message,
        "original_failure": first["original_failure"],
        "left_behind": first["left_behind"],
        "checkpoint_compatible": all(b["checkpoint_compatible"] is not False for b in builds)
        if any(b["checkpoint_compatible"] is not None for b in builds) else None,
        "missing_keys": sorted({k for b in builds for k in b["missing_keys"]}),
        "parameter_order_changed": any(b["parameter_order_changed"] for b in builds),
        "details": failures + details,
        "failures": failures,
        "notes": notes,
        "rewrites": rewrites,
        "builds": [b["detail"] for b in builds],
        "forward_compared": any(b["forward"] for b in builds),
        "branches": [spans_run, spans_total],
    }


def _in_builds(builds: int, tried: int, alone: str) -> str:
    """Where a branch was not taken: in the builds kept (``alone`` for one) and those tried."""
    said = f"in any of the {builds} builds" if builds > 1 else alone
    if tried:
        said += f" nor in {tried} other {'build' if tried == 1 else 'builds'} tried"
    return said


def _unread(attr: str, builds: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """The read sites of ``attr`` that none of ``builds`` ran (each build's ``unread``); none
    where a build does not say (a class whose source was not read)."""
    left: set[tuple[str, int]] | None = None
    for b in builds:
        if b.get("unread") is None:
            return []
        sites = {(method, line) for method, line in b["unread"].get(attr, [])}
        left = sites if left is None else left & sites
    return sorted(left or (), key=lambda site: site[1])


def _unread_message(attr: str, unread: list[tuple[str, int]], builds: int, tried: int) -> str:
    where = ", ".join(f"line {line} in {method}()" for method, line in unread[:4])
    more = f" and {len(unread) - 4} more" if len(unread) > 4 else ""
    in_builds = _in_builds(builds, tried, "with these arguments and inputs")
    return (f"branch not taken {in_builds}: the forwards compared read {attr}, but the "
            f"{'read' if len(unread) == 1 else 'reads'} at {where}{more} never ran, so what a cast or a device move "
            "of the buffer does there is not compared")


def _without_forward(attr: str, builds: list[dict[str, Any]], tensor_builds: list[int], keys: list[str]) -> str:
    reasons = []
    for i in tensor_builds:
        b = builds[i]
        if b["forward_with_casts"] and attr not in b["read"]:
            reasons.append(f"the forward compared never read {attr} (it takes another path with these arguments and "
                           "inputs)")
        elif not b["forward"]:
            reason = next((d for d in b["details"] if d.startswith("forward not compared")), "")
            reason = reason or next((d.partition(": ")[2] for d in b["details"] if d.startswith("forward: ")), "")
            reasons.append(reason or "no forward was compared")
        else:
            missing = [label for label, status in b["casts"].items() if status == "not run"] or list(CAST_LABELS)
            reasons.append("no forward ran after " + ", ".join(f"model.{label}" for label in missing))
    text = "structure, checkpoint and meta checks agree, but " + (reasons[0] if reasons else "no forward ran")
    if keys:
        text += f"; it also adds the state_dict keys {', '.join(keys)}"
    return text


def _new_keys_message(keys: list[str], forward: str) -> str:
    names = ", ".join(keys)
    return (f"the only difference is new state_dict keys ({names}): a checkpoint saved before the rewrite loads only "
            f"with model.load_state_dict(state, strict=False), which reports them as missing_keys=[{names}] "
            "(written only with --allow-new-keys)")


def _proof(attr: str, builds: list[dict[str, Any]], forward_builds: list[int], forward: str, through: bool) -> str:
    if forward == "not used":
        if any(b["forward"] for b in builds):
            # the class's forward ran and was compared: it simply never reads the attribute
            return (f"proven by running; no forward of the class reads {attr}, so the forward compared says "
                    "nothing about it (the attribute, checkpoint, cast and meta checks do)")
        return (f"proven by running; no forward of the class reads {attr}, so no forward was compared "
                "(the attribute, checkpoint, cast and meta checks were)")
    i = forward_builds[0]
    shown = {"compared": "", "original raises": " (where the original raises)", "both raise": " (both raise)"}
    casts = ", ".join(f"model.{label}{shown.get(status, '')}" for label, status in builds[i]["casts"].items())
    method = builds[i].get("method")
    ran = f"{method}(), which reads it where no forward does," if method else "forward"
    dtype = builds[i].get("dtype") or "float32"
    if dtype != "float32":
        dtype += " (the repository casts the class to it)"
    text = f"proven by running: {ran} compared in {dtype} and after {casts}"
    if len(builds) > 1:
        text += f" (build {i + 1})"
    if through:
        text += (f"; no forward reads {attr} itself: it reaches the forward only through what __init__ handed it to, "
                 "which holds the same tensor before and after the rewrite")
    return text


def _unchanged(n: int, noun: str) -> str:
    if n == 0:
        return f"the original has no {noun}s"
    return f"the original {noun} is unchanged" if n == 1 else f"all {n} original {noun}s are unchanged"


def _kind(state: dict[str, Any]) -> str:
    if state["where"] == "buffer":
        return "persistent buffer" if state["persistent"] else "non-persistent buffer"
    return state["where"]


def _attributes(j: _Judgement, orig: dict[str, Any], rew: dict[str, Any], findings: list[list[Any]]) -> None:
    compared = False
    for attr, action, persistent, *rest in findings:
        values_comparable = rest[0] if rest else True
        o, r = orig["attrs"].get(attr, {"where": "missing"}), rew["attrs"].get(attr, {"where": "missing"})
        after_o = (orig.get("attrs_after_forward") or {}).get(attr)
        after_r = (rew.get("attrs_after_forward") or {}).get(attr)
        if o.get("type") == "NoneType" and after_o and after_r and after_o.get("where") == "dict":
            # a lazy slot: None after construction on both sides, a tensor once forward ran
            j.details.append(f"attributes: {attr} holds None after construction; compared as the first forward "
                             "left it")
            o, r = after_o, after_r
        if o["where"] == "missing":
            if r["where"] != "missing":
                j.fail("attributes", f"the original does not set {attr} with these arguments, the rewritten does", attr)
            else:
                j.details.append(f"attributes: {attr} is not set with these constructor arguments; not compared")
                j.uncompared[attr] = f"{attr} is not set with these constructor arguments: no tensor was compared"
            continue
        if o["where"] != "dict":
            kind = o.get("type")
            j.details.append(f"attributes: the original holds a {kind} in {attr}, not a plain tensor; not compared")
            # The statement ran, but its tensor branch did not (`torch.tensor(m) if m else None`):
            # nothing about the tensor is proven.
            if kind == "NoneType":
                j.uncompared[attr] = f"{attr} holds None, not a tensor, with these arguments: no tensor was compared"
            continue
        compared = True
        if r["where"] == "missing":
            j.fail("attributes", f"the rewritten class no longer sets {attr}", attr)
            continue
        if r["where"] == "dict":
            j.fail("attributes", f"{attr} is still a plain attribute in the rewritten class", attr)
            continue
        if r["where"] == "other":
            j.fail("attributes", f"the rewritten class holds a {r.get('type')} in {attr}, not a tensor", attr)
            continue
        if r["where"] != action:
            j.fail("attributes", f"{attr} should be a {action} but the rewritten class makes it a {r['where']}", attr)
            continue
        if r["in_dict"]:
            j.fail("attributes", f"{attr} is registered but a plain attribute still shadows it in __dict__", attr)
            continue
        if r.get("tensor") is None:
            j.fail("attributes", f"{attr} is registered as None", attr)
            continue
        if values_comparable:
            difference = exact_difference(o["tensor"], r["tensor"])
        else:
            same = o["tensor"].dtype == r["tensor"].dtype and o["tensor"].shape == r["tensor"].shape
            difference = None if same else "dtype or shape differs"
            j.details.append(f"attributes: {attr} is uninitialised memory; only its dtype and shape are compared")
        if difference:
            j.fail("attributes", f"{attr} holds a different tensor than the original: {difference}", attr)
            continue
        if o["requires_grad"] != r["requires_grad"]:
            j.fail("attributes", f"{attr} has requires_grad={r['requires_grad']}, the original {o['requires_grad']}", attr)
            continue
        if action == "buffer" and persistent is not None and r["persistent"] != persistent:
            j.fail(
                "attributes",
                f"{attr} is registered with persistent={r['persistent']} "
                f"but the rewrite planned persistent={persistent}",
                attr,
            )
            continue
        j.details.append(f"attributes: {attr} holds the same tensor ({describe(o['tensor'])}), now a {_kind(r)}")
    if compared:
        j.compared.append("attributes")


def _state_dict(j: _Judgement, orig: dict[str, Any], rew: dict[str, Any], rewritten: dict[str, Any]) -> None:
    j.compared.append("state_dict")
    o_keys = [k for k, _ in orig["state_dict"]]
    r_map = dict(rew["state_dict"])
    r_keys = [k for k, _ in rew["state_dict"]]
    o_set, r_set = set(o_keys), set(r_keys)
    gone = [k for k in o_keys if k not in r_set]
    if gone:
        j.fail("state_dict", f"keys of the original are gone: {', '.join(gone[:8])}")
    for key, value in orig["state_dict"]:
        if key not in r_map:
            continue
        other = r_map[key]
        if isinstance(value, torch.Tensor) and isinstance(other, torch.Tensor):
            difference = exact_difference(value, other)
        else:
            difference = None if type(value) is type(other) else "type differs"
        if difference:
            j.fail("state_dict", f"{key} differs from the original: {difference}", key)
    kept = [k for k in r_keys if k in o_set]
    if kept != [k for k in o_keys if k in r_set]:
        j.fail("state_dict", "the original keys are in a different order")
    expected = {n for n, (action, p) in rewritten.items() if action == "parameter" or p is True}
    either = {n for n, (action, p) in rewritten.items() if action == "buffer" and p is None}
    new = [k for k in r_keys if k not in o_set]
    for key in new:
        if key in expected or key in either:
            continue
        plan = rewritten.get(key)
        if plan and plan[0] == "buffer" and plan[1] is False:
            j.fail("state_dict", f"{key} is saved although the rewrite planned a non-persistent buffer", key)
        else:
            j.fail("state_dict", f"unexpected new key {key}", key)
    absent = sorted(k for k in expected if k not in r_set)
    if absent:
        j.fail("state_dict", f"expected new keys are missing: {', '.join(absent)}")
    if not gone:
        j.details.append(
            f"state_dict: {_unchanged(len(o_keys), 'key')}, in the same order; "
            + (f"new keys: {', '.join(new)}" if new else "no new keys")
        )


def _checkpoint(j: _Judgement, rew: dict[str, Any], rewritten: dict[str, Any], own: dict[str, Any] | None = None) -> None:
    """Pre-rewrite checkpoints: the original's state_dict must load with strict=True.

    When the only keys it lacks are the rewrites' own new ones (a persistent buffer, a new
    parameter), the rewrite changes the checkpoint format (merge); anything else fails,
    unless the original's state_dict does not load into the original either (``own``: a
    custom hook refuses it), which the rewrite is not the cause of."""
    result = rew.get("checkpoint")
    if not result:
        return
    if not result["compatible"] and own is not None and not own["compatible"] and own["error"] == result["error"]:
        j.details.append(f"checkpoint: not compared: the original's state_dict does not load into the original "
                         f"either ({own['error']})")
        return
    j.compared.append("checkpoint")
    j.checkpoint_compatible = bool(result["compatible"])
    j.missing_keys = list(result["missing"])
    if j.checkpoint_compatible:
        j.details.append("checkpoint: a state_dict saved from the original loads with strict=True")
        return
    # A key with a dot belongs to a submodule: its class's own rewrite added it, and that
    # rewrite is judged (and written or held back) on its own, so here it is a note.
    theirs = [k for k in j.missing_keys if "." in k]
    own = [k for k in j.missing_keys if "." not in k]
    if theirs:
        j.notes.append(
            f"checkpoint: a state_dict saved from the original lacks {', '.join(theirs)}, added by the rewrites "
            "of submodule classes, which are judged on their own"
        )
    if result.get("only_missing") and all(k in rewritten for k in own):
        for key in own:
            j.new_keys.setdefault(key, []).append(key)
        if own:
            names = ", ".join(own)
            j.details.append(f"checkpoint: a state_dict saved from the original lacks {names}: it loads with "
                             f"strict=False (missing_keys=[{names}]), not with strict=True")
        return
    text = f"a state_dict saved from the original does not load: {result['error']}"
    keys = [k for k in own if k in rewritten] or [None]
    for key in keys:
        j.fail("checkpoint", text, key)


def _parameters(j: _Judgement, orig: dict[str, Any], rew: dict[str, Any], rewritten: dict[str, Any]) -> None:
    j.compared.append("parameters")
    o_names = [n for n, _ in orig["params"]]
    o_grad = dict(orig["params"])
    r_names = [n for n, _ in rew["params"]]
    r_grad = dict(rew["params"])
    r_all = set(rew["param_names_all"])
    o_set = set(o_names)
    expected = {n for n, (action, _) in rewritten.items() if action == "parameter"}
    gone = [n for n in o_names if n not in r_all]
    if gone:
        j.fail("parameters", f"parameters of the original are gone: {', '.join(gone[:8])}")
    new = [n for n in r_names if n not in o_set]
    unexpected = [n for n in new if n not in expected]
    if unexpected:
        j.fail("parameters", f"unexpected new parameters: {', '.join(unexpected)}")
    absent = sorted(n for n in expected if n not in r_all)
    if absent:
        j.fail("parameters", f"expected new parameters are missing: {', '.join(absent)}")
    changed = [n for n in o_names if n in r_grad and r_grad[n] != o_grad[n]]
    if changed:
        j.fail("parameters", f"requires_grad changed for {', '.join(changed)}")
    if [n for n in r_names if n in o_set] != [n for n in o_names if n in set(r_names)]:
        j.fail("parameters", "the original parameters are in a different order")
    if new:
        last_existing = max((i for i, n in enumerate(r_names) if n in o_set), default=-1)
        j.parameter_order_changed = any(r_names.index(n) < last_existing for n in new)
        trainable = [n for n in new if r_grad[n]]
        text = f"parameters: new parameters {', '.join(new)}"
        if trainable:
            text += f" ({', '.join(trainable)} trainable)"
        text += "; optimizer state saved before the rewrite no longer matches the parameter group"
        if j.parameter_order_changed:
            text += ", and the new ones come before existing parameters, shifting their positions"
        j.details.append(text)
    elif not gone:
        j.details.append(f"parameters: {_unchanged(len(o_names), 'parameter')}, no new ones")


def _device_movement(
    j: _Judgement, orig: dict[str, Any], rew: dict[str, Any], rewritten: dict[str, Any], device: torch.device
) -> None:
    od, rd = orig.get("device"), rew.get("device")
    if not od or not rd:
        return
    if rd["status"] == "unchecked" and rd["error"] and rd["error"].startswith("model.to("):
        j.details.append(f"device: {rd['error']}; movement not checked")
        return
    j.compared.append("device_movement")
    j.left_behind = [f"{name} ({where})" for name, where in od["left"]]
    stuck = [f"{name} ({where})" for name, where in rd["left"] if name in rewritten]
    others = [f"{name} ({where})" for name, where in rd["left"] if name not in rewritten]
    if stuck:
        j.fail("device", f"after .to({str(device)!r}) the rewritten model still leaves {', '.join(stuck)} behind")
    if j.left_behind:
        j.details.append(
            f"device: after .to({str(device)!r}) the original leaves {', '.join(j.left_behind)} behind; "
            "that is the bug this rewrite fixes"
        )
    if others:
        j.details.append(f"device: the rewritten model still leaves {', '.join(others)} behind (not rewritten)")


def _forward(
    j: _Judgement, orig: dict[str, Any], rew: dict[str, Any], rewritten: dict[str, Any], device: torch.device | None
) -> None:
    if not orig.get("has_inputs"):
        j.details.append(
            "forward: not compared, no inputs known that run it (give the example inputs=..., or run `codemod record`)"
        )
        return
    if orig["forward_error"]:
        j.error = f"the original forward raised with the example inputs: {orig['forward_error']}"
        return
    if rew["forward_error"]:
        j.fail("forward", f"the rewritten forward raised on cpu: {rew['forward_error']}")
        return
    problems, worst = compare_leaves(orig["outputs"], rew["outputs"], "cpu")
    j.compared.append("forward:cpu")
    if without_values(orig["outputs"]):
        # both run, and outputs of NaN agree with anything of NaN: no value was compared
        j.details.append("forward: every output of the original is NaN or infinite where both models ran (a tensor "
                         "the constructor kept holds uninitialised memory, or overflows, with these arguments), so no "
                         "value was compared and the forward does not count as compared")
    else:
        j.forward_compared = True
    j.diff(worst)
    for problem in problems[:5]:
        j.fail("forward", f"on cpu {problem}")
    if device is None:
        return
    od, rd = orig.get("device"), rew.get("device")
    if not od or not rd or rd["status"] is None:
        return
    where = str(device)
    if od["status"] in ("mixed", "other"):
        j.original_failure = od["error"]
    elif od["status"] == "unchecked":
        j.details.append(f"forward: the original could not be checked on {where}: {od['error']}")
    status = rd["status"]
    if status == "ok":
        if device.type == "meta":
            problems = compare_specs(orig["outputs"], rd["outputs"])
        elif od.get("outputs") is not None:
            # the original's own forward there, where it runs: the same kernels and random streams
            problems, worst = compare_leaves(od["outputs"], rd["outputs"], device.type)
            j.diff(worst)
        elif rd.get("draws_random"):
            problems = compare_specs(orig["outputs"], rd["outputs"], where)
            j.details.append(
                f"forward: on {where} compared by shape and dtype only: it draws random numbers there, from "
                "another stream than the CPU's, and the original gives no output there to compare with"
            )
        else:
            # the original fails there: its first forward on the CPU
            problems, worst = compare_leaves(orig["outputs"], rd["outputs"], device.type)
            j.diff(worst)
        j.compared.append(f"forward:{where}")
        for problem in problems[:5]:
            j.fail("forward", f"on {where} {problem}")
        if od["status"] == "ok":
            j.details.append(
                f"forward: the original also runs on {where}; its raw tensors never meet a device-checked op "
                "(indexing, 0-dim use or an explicit .to())"
            )
        elif j.original_failure:
            j.details.append(f"forward: on {where} the original fails ({j.original_failure}) and the rewritten runs")
        return
    if status == "unchecked":
        j.details.append(
            f"forward: could not check on {where} (a limit of that device, not the rewrite): {rd['error']}"
        )
        return
    leftovers = [name for name, _ in rd["left"] if name not in rewritten]
    if od["status"] != "ok" or leftovers:
        reason = (
            f"tensors the codemod did not rewrite stay behind ({', '.join(leftovers)})"
            if leftovers
            else "the original fails there too, so something besides the rewritten attributes mixes devices"
        )
        j.details.append(f"forward: the rewritten forward still fails on {where} ({rd['error']}); {reason}")
        return
    j.fail("forward", f"the rewritten forward fails on {where} where the original runs: {rd['error']}")


# -- the checks of what breaks in real use (evidence from checks.py) -------------------------


def _named(text: str, findings: list[list[Any]]) -> str | None:
    """The rewritten attribute an error message names, if exactly one."""
    named = [attr for attr, *_ in findings if re.search(rf"(?<![\w.]){re.escape(attr)}(?!\w)", text)]
    return named[0] if len(named) == 1 else None


def _saved(r: dict[str, Any]) -> str:
    """When the round trip's state_dict was taken: after a forward only where one ran."""
    return r.get("saved") or "after construction (no forward ran)"


def _round_trip(j: _Judgement, o: dict | None, r: dict | None, findings: list[list[Any]]) -> None:
    if not o or not r:
        return
    if r["status"] == "unchecked":
        j.details.append(f"round trip: not checked: {r['error']}")
        return
    if r["status"] == "failed":
        if o["status"] == "failed":
            j.details.append(f"round trip: the original's own state_dict does not load into a fresh original either: {o['error']}")
            return
        j.compared.append("round_trip")
        error = r["error"]
        j.fail("round_trip", f"a state_dict saved {_saved(r)} does not load with strict=True into a freshly built "
               f"model: {error}", _named(error.partition(":")[2] or error, findings))
        return
    j.compared.append("round_trip")
    text = f"round trip: a state_dict saved {_saved(r)} loads with strict=True into a freshly built model"
    if o.get("outputs") is not None and r.get("outputs") is not None:
        problems, worst = compare_leaves(o["outputs"], r["outputs"], "cpu")
        j.diff(worst)
        for problem in problems[:3]:
            j.fail("round_trip", f"the reloaded model's outputs differ from the reloaded original's: {problem}")
        text += ", and the reloaded model gives the original's outputs"
    elif r.get("forward_error") and not o.get("forward_error"):
        j.fail("round_trip", f"the reloaded model's forward raises {r['forward_error']}; the reloaded original's runs")
    j.details.append(text)


def _casts_after_forward(j: _Judgement, o: dict | None, r: dict | None, findings: list[list[Any]], when: str) -> None:
    """The cast checks again, for a lazy slot a first forward filled: their failures and
    details are added to the first pass's, labelled ``when``; a cast the first pass did not run
    takes this pass's status."""
    first, j.casts = j.casts, {}
    details, failed, compared = len(j.details), len(j.failed), list(j.compared)
    try:
        _casts(j, o, r, findings)
    finally:
        second, j.casts = j.casts, first
        j.compared = compared  # "casts" is in it already when the first pass ran any
        j.details[details:] = [d.replace("casts:", f"casts{when}:", 1) for d in j.details[details:]]
        j.failed[failed:] = [(c, m.replace("after model.", f"{when.strip()}, after model.", 1), a)
                             for c, m, a in j.failed[failed:]]
    for label, status in second.items():
        if j.casts.get(label, "not run") == "not run":
            j.casts[label] = status


def _casts(j: _Judgement, o: dict | None, r: dict | None, findings: list[list[Any]]) -> None:
    """After each cast, the rewritten tensors' values and the forward of both models.

    A cast changes what a buffer holds; only a forward shows what the model then does with
    it (a float window cast to half fed to an FFT that has no half kernel).  Without a
    forward the cast check is reported as not run, though a value it spoils still fails."""
    if not o or not r:
        return
    if "error" in r or "error" in o:
        j.details.append(f"casts: not checked: {r.get('error') or o.get('error')}")
        return
    for label, dtype, _ in CASTS:
        oe, re_ = o.get(label), r.get(label)
        if not oe or not re_:
            continue
        if oe.get("copy_error") or re_.get("copy_error"):
            # the validator's own copy failed, on one side or both: the cast was never applied,
            # and "both raise" would claim a comparison that did not happen
            j.casts[label] = "not run"
            j.details.append(f"casts: model.{label} not run: {re_.get('copy_error') or oe.get('copy_error')}")
            continue
        again = re_.get("built_again") or oe.get("built_again")
        if again and not any(d.startswith("casts: applied to models built again") for d in j.details):
            j.details.append(f"casts: applied to models built again, seeded alike, one per cast ({again})")
        if re_["error"]:
            if oe["error"]:
                j.casts[label] = "both raise"
                j.details.append(f"casts: model.{label} raises on both models: {re_['error']}")
            else:
                j.casts[label] = "compared"
                j.fail("casts", f"model.{label} raises on the rewritten model and not on the original: {re_['error']}")
            continue
        for attr, _action, _persistent, *rest in findings:
            oa, ra = oe["attrs"].get(attr), re_["attrs"].get(attr)
            if not oa or not ra or oa.get("tensor") is None or ra.get("tensor") is None:
                continue
            if rest and not rest[0]:
                continue  # uninitialised memory: its values mean nothing
            ot, rt = oa["tensor"], ra["tensor"]
            if ot.is_complex() and not rt.is_complex():
                j.fail("casts", f"after model.{label} {attr} is {ra['dtype']}: its imaginary part is discarded "
                       f"(the original keeps it {oa['dtype']})", attr)
            elif ot.shape == rt.shape and int(torch.isfinite(rt).sum()) < int(torch.isfinite(ot).sum()):
                j.fail("casts", f"after model.{label} values of {attr} become inf or nan (beyond the range of "
                       f"{ra['dtype']}); the original keeps them finite in {oa['dtype']}", attr)
        if oe["outputs"] is not None and re_["outputs"] is not None:
            j.casts[label] = "compared"
            for problem in compare_cast(oe["outputs"], re_["outputs"], dtype)[:3]:
                j.fail("casts", f"after model.{label} the outputs differ from the original's beyond "
                       f"{str(dtype).replace('torch.', '')} rounding: {problem}")
            promoted = _output_dtypes(oe["outputs"], re_["outputs"])
            if promoted:
                # the buffer follows the cast where the plain tensor promoted the result back
                j.details.append(f"casts: after model.{label} the rewritten forward returns {promoted}: the "
                                 "rewritten tensors follow the cast, as the model's parameters do")
        elif re_["forward_error"] and not oe["forward_error"]:
            j.casts[label] = "compared"
            j.fail("casts", f"after model.{label} the rewritten forward raises {re_['forward_error']}; the original's runs")
        elif oe["forward_error"] and not re_["forward_error"]:
            j.casts[label] = "original raises"
            j.details.append(f"casts: after model.{label} the original forward raises ({oe['forward_error']}) and "
                             "the rewritten runs: the original's plain tensors were not cast")
        elif oe["forward_error"] and re_["forward_error"]:
            j.casts[label] = "both raise"
            j.details.append(f"casts: after model.{label} the forward raises on both models: {re_['forward_error']}")
        else:
            j.casts[label] = "not run"
    run = [label for label, status in j.casts.items() if status != "not run"]
    if run:
        j.compared.append("casts")
        j.details.append("casts: " + ", ".join(f"model.{label}" for label in run)
                         + ", each with a forward of both models")
    elif j.casts:
        # only what _casts compared without a forward: no value turned inf/nan, no imaginary part lost
        j.details.append("casts: not run (no forward); after " + ", ".join(
            f"model.{label}" for label in j.casts) + " only checked that no rewritten tensor becomes inf or nan, or "
            "loses an imaginary part, where the original's does not; their dtypes and rounded values are not "
            "compared with the original's" + _cast_dtypes(o, r, findings))


def _output_dtypes(original: list[tuple[str, Any]], rewritten: list[tuple[str, Any]]) -> str:
    """``"output float16 where the original's is float32"``: the outputs whose dtype the rewrite
    changes under a cast (a raw float32 tensor promoted the original's result); "" for none."""
    changed = [f"{path or 'output'} {str(b.dtype).replace('torch.', '')} where the original's is "
               f"{str(a.dtype).replace('torch.', '')}"
               for (path, a), (_, b) in zip(original, rewritten)
               if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype != b.dtype]
    return ", ".join(changed[:3])


def _cast_dtypes(o: dict, r: dict, findings: list[list[Any]]) -> str:
    """``" (under model.half(): n_ becomes float16, the original keeps float32)"``: what a cast does
    to a rewritten tensor that it does not do to the original's plain attribute."""
    changes = []
    for label, _dtype, _ in CASTS:
        oe, re_ = o.get(label) or {}, r.get(label) or {}
        moved = []
        for attr, *_ in findings:
            oa, ra = (oe.get("attrs") or {}).get(attr), (re_.get("attrs") or {}).get(attr)
            if oa and ra and oa.get("dtype") != ra.get("dtype"):
                moved.append(f"{attr} becomes {ra['dtype']}, the original keeps {oa['dtype']}")
        if moved:
            changes.append(f"under model.{label}: " + ", ".join(moved))
    return f" ({'; '.join(changes)})" if changes else ""


def _training(j: _Judgement, o: dict | None, r: dict | None, findings: list[list[Any]], rewritten: dict[str, Any]) -> None:
    if not o or not r:
        return
    for attr, action, *_ in findings:
        oa, ra = (o.get("attrs") or {}).get(attr), (r.get("attrs") or {}).get(attr)
        # a leaf that requires grad is meant to be trained; a result computed from one (`t.repeat(10, 1, 1)`)
        # is trained by nothing, as a raw attribute or as a buffer
        if oa and ra and oa["requires_grad"] and oa.get("leaf", True) and ra["where"] == "buffer":
            j.fail("training", f"{attr} requires grad in the original (a tensor meant to be trained, by an "
                   "optimizer it is handed to), but as a buffer a cast or a move to another device replaces it "
                   "with a copy that such an optimizer never updates, where the original's stays the tensor it "
                   "trains: it should be an nn.Parameter, or stay as it is", attr)
    expected = set(o.get("optimizer") or []) | {n for n, (action, _) in rewritten.items() if action == "parameter"}
    got = set(r.get("optimizer") or [])
    if o.get("optimizer") is not None and r.get("optimizer") is not None:
        missing, extra = sorted(expected - got), sorted(got - expected)
        if missing:
            j.fail("training", f"an optimizer over model.parameters() no longer gets {', '.join(missing)}")
        if extra:
            j.fail("training", f"an optimizer over model.parameters() also gets {', '.join(extra)}, "
                   "which the rewrite does not report")
    if r["status"] != "ok":
        if o["status"] == "ok":
            j.compared.append("training")
            j.fail("training", f"one backward pass in train() mode fails on the rewritten model: {r['error']}")
        else:
            j.details.append(f"training: no backward pass ({r['error']}); optimizer parameters compared only")
        return
    if o["status"] != "ok":
        j.details.append(f"training: the original fails in train() mode ({o['error']}); not compared")
        return
    j.compared.append("training")
    o_grads = dict(o["grads"])
    for name, grad in r["grads"]:
        if name not in o_grads:
            continue
        other = o_grads[name]
        if (grad is None) != (other is None):
            j.fail("training", f"parameter {name} {'gets no gradient' if grad is None else 'gets a gradient'} "
                   "in the rewritten model, unlike the original")
        elif grad is not None:
            problems, _ = compare_leaves([(name, other)], [(name, grad)], "cpu")
            for problem in problems:
                j.fail("training", f"gradient of the existing parameter {problem}")
    for attr, action, *_ in findings:
        oa, ra = o["attrs"].get(attr), r["attrs"].get(attr)
        if action != "parameter" or not ra or ra["where"] != "parameter":
            continue
        if ra["grad"] is None:
            if oa and oa.get("grad") is not None:
                j.fail("training", f"the new parameter {attr} receives no gradient; the original tensor did", attr)
            else:
                j.details.append(f"training: the new parameter {attr} receives no gradient from this forward")
        elif oa and oa.get("grad") is not None:
            problems, _ = compare_leaves([(attr, oa["grad"])], [(attr, ra["grad"])], "cpu")
            for problem in problems:
                j.fail("training", f"gradient of the new parameter {problem}", attr)
    new = sorted(got - set(o.get("optimizer") or []))
    j.details.append(
        "training: one backward pass in train() mode gives the existing parameters the original's gradients; "
        f"an optimizer over model.parameters() gets {len(got)} tensors" + (f" (new: {', '.join(new)})" if new else "")
    )


def _meta(j: _Judgement, o: dict | None, r: dict | None) -> None:
    if not r:
        return
    if r["status"] != "ok":
        j.details.append(f"meta init: not checked: {r['error']}")
        return
    j.compared.append("meta_init")
    o_attrs = (o or {}).get("attrs") or {}
    for attr, state in r["attrs"].items():
        if state not in ("uninitialised", "meta"):
            continue
        text = (f"{attr} comes back uninitialised when the model is built on the meta device, materialised "
                "with to_empty() and re-initialised as large-model loaders do")
        if o_attrs.get(attr) == "ok":
            # the original's plain attribute keeps its value on that path: a user relying on it must know
            j.notes.append(f"meta init: {text}, where the original's plain attribute keeps its value; "
                           "re-create it in reset_parameters() or _init_weights() if such loaders are used")
        else:
            j.details.append(f"meta init: {text}; the original's plain attribute is no better there "
                             f"({o_attrs.get(attr, 'not checked')})")
    if not any(state in ("uninitialised", "meta") for state in r["attrs"].values()):
        j.details.append("meta init: after building on meta, to_empty() and re-initialisation, the rewritten tensors hold their values")


def _pretrained(j: _Judgement, o: dict | None, r: dict | None) -> None:
    if not r:
        return
    if r["status"] != "ok":
        if o and o.get("status") == "ok":
            j.compared.append("from_pretrained")
            j.fail("from_pretrained", f"save_pretrained/from_pretrained fails on the rewritten model: {r['error']}")
        else:
            j.details.append(f"from_pretrained: not checked: {r['error']}")
        return
    j.compared.append("from_pretrained")
    o_attrs = (o or {}).get("attrs") or {}
    for attr, state in r["attrs"].items():
        if state == "ok":
            continue
        # Even where the original's plain attribute is left on the meta device (a loud error in
        # forward), silent uninitialised memory is worse: the rewrite is not proven.
        original = {"ok": "keeps its value", "meta": "is left on the meta device (forward fails loudly)"}.get(
            o_attrs.get(attr, ""), "is not right either")
        j.fail("from_pretrained", f"after save_pretrained/from_pretrained {attr} holds uninitialised memory "
               f"(the original's plain attribute {original}); re-create it in the model's _init_weights", attr)
    if o and o.get("outputs") is not None and r.get("outputs") is not None:
        problems, worst = compare_leaves(o["outputs"], r["outputs"], "cpu")
        j.diff(worst)
        for problem in problems[:3]:
            j.fail("from_pretrained", f"the model loaded with from_pretrained gives other outputs: {problem}")
    j.details.append("from_pretrained: a save_pretrained/from_pretrained round trip in a temporary directory")
