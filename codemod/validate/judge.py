"""Turn the evidence of both sides into a verdict (worker side, imports torch).

A check *fails* only when the rewritten class disagrees with the original or
with the planned rewrite.  Device problems that the original has too (a
tensor created in ``forward`` without a device, a raw attribute the codemod
skipped) are reported in ``details`` but do not block a correct rewrite.
"""

from __future__ import annotations

from typing import Any

import torch

from codemod.validate.compare import compare_leaves, compare_specs, describe, exact_difference

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
    def __init__(self, device_label: str) -> None:
        self.device_label = device_label
        self.failures: list[str] = []
        self.details: list[str] = []
        self.compared: list[str] = []
        self.error: str | None = None
        self.max_abs_diff: float | None = None
        self.original_failure: str | None = None
        self.left_behind: list[str] = []
        self.checkpoint_compatible: bool | None = None
        self.missing_keys: list[str] = []
        self.parameter_order_changed = False
        self.forward_compared = False

    def fail(self, check: str, message: str) -> None:
        self.failures.append(f"{check}: {message}")

    def diff(self, value: float | None) -> None:
        if value is not None:
            self.max_abs_diff = value if self.max_abs_diff is None else max(self.max_abs_diff, value)

    def result(self) -> dict[str, Any]:
        if self.failures:
            verdict = "failed"
            message = "; ".join(self.failures[:4])
            if len(self.failures) > 4:
                message += f"; and {len(self.failures) - 4} more"
        elif self.error:
            verdict, message = "error", self.error
        else:
            verdict = "passed"
            message = "matches the original: " + ", ".join(self.compared)
            if not self.forward_compared:
                message += "; forward not compared (no inputs known)"
        return {
            "verdict": verdict,
            "device": self.device_label,
            "compared": self.compared,
            "max_abs_diff": self.max_abs_diff,
            "message": message,
            "original_failure": self.original_failure,
            "left_behind": self.left_behind,
            "checkpoint_compatible": self.checkpoint_compatible,
            "missing_keys": self.missing_keys,
            "parameter_order_changed": self.parameter_order_changed,
            "details": self.failures + self.details,
        }


def judge(
    orig: dict[str, Any],
    rew: dict[str, Any],
    findings: list[list[Any]],
    index: Index,
    device: torch.device | None,
    device_label: str,
) -> dict[str, Any]:
    j = _Judgement(device_label)
    j.details.append(orig["source_detail"])
    j.details.extend(orig.get("notes") or [])
    rewritten = rewritten_names(rew, orig, index)
    _attributes(j, orig, rew, findings)
    _state_dict(j, orig, rew, rewritten)
    _checkpoint(j, rew, rewritten)
    _parameters(j, orig, rew, rewritten)
    if device is not None:
        _device_movement(j, orig, rew, rewritten, device)
    _forward(j, orig, rew, rewritten, device)
    return j.result()


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
        if o["where"] == "missing":
            if r["where"] != "missing":
                j.fail("attributes", f"the original does not set {attr} with these arguments, the rewritten does")
            else:
                j.details.append(f"attributes: {attr} is not set with these constructor arguments; not compared")
            continue
        if o["where"] != "dict":
            kind = o.get("type")
            j.details.append(f"attributes: the original holds a {kind} in {attr}, not a plain tensor; not compared")
            continue
        compared = True
        if r["where"] == "missing":
            j.fail("attributes", f"the rewritten class no longer sets {attr}")
            continue
        if r["where"] == "dict":
            j.fail("attributes", f"{attr} is still a plain attribute in the rewritten class")
            continue
        if r["where"] == "other":
            j.fail("attributes", f"the rewritten class holds a {r.get('type')} in {attr}, not a tensor")
            continue
        if r["where"] != action:
            j.fail("attributes", f"{attr} should be a {action} but the rewritten class makes it a {r['where']}")
            continue
        if r["in_dict"]:
            j.fail("attributes", f"{attr} is registered but a plain attribute still shadows it in __dict__")
            continue
        if r.get("tensor") is None:
            j.fail("attributes", f"{attr} is registered as None")
            continue
        if values_comparable:
            difference = exact_difference(o["tensor"], r["tensor"])
        else:
            same = o["tensor"].dtype == r["tensor"].dtype and o["tensor"].shape == r["tensor"].shape
            difference = None if same else "dtype or shape differs"
            j.details.append(f"attributes: {attr} is uninitialised memory; only its dtype and shape are compared")
        if difference:
            j.fail("attributes", f"{attr} holds a different tensor than the original: {difference}")
            continue
        if o["requires_grad"] != r["requires_grad"]:
            j.fail("attributes", f"{attr} has requires_grad={r['requires_grad']}, the original {o['requires_grad']}")
            continue
        if action == "buffer" and persistent is not None and r["persistent"] != persistent:
            j.fail(
                "attributes",
                f"{attr} is registered with persistent={r['persistent']} "
                f"but the rewrite planned persistent={persistent}",
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
            j.fail("state_dict", f"{key} differs from the original: {difference}")
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
            j.fail("state_dict", f"{key} is saved although the rewrite planned a non-persistent buffer")
        else:
            j.fail("state_dict", f"unexpected new key {key}")
    absent = sorted(k for k in expected if k not in r_set)
    if absent:
        j.fail("state_dict", f"expected new keys are missing: {', '.join(absent)}")
    if not gone:
        j.details.append(
            f"state_dict: {_unchanged(len(o_keys), 'key')}, in the same order; "
            + (f"new keys: {', '.join(new)}" if new else "no new keys")
        )


def _checkpoint(j: _Judgement, rew: dict[str, Any], rewritten: dict[str, Any]) -> None:
    result = rew.get("checkpoint")
    if not result:
        return
    j.compared.append("checkpoint")
    j.checkpoint_compatible = bool(result["compatible"])
    j.missing_keys = list(result["missing"])
    if j.checkpoint_compatible:
        j.details.append("checkpoint: a state_dict saved from the original loads with strict=True")
    elif j.missing_keys:
        names = ", ".join(j.missing_keys)
        hint = "load old checkpoints with strict=False"
        if any(rewritten.get(k, ("",))[0] == "buffer" for k in j.missing_keys):
            hint += ", or register the buffers with persistent=False"
        j.details.append(f"checkpoint: a state_dict saved from the original lacks {names}; {hint}")
    else:
        j.details.append(f"checkpoint: a state_dict saved from the original does not load: {result['error']}")


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
            "forward: not compared, no inputs known (give the example inputs=..., or run `codemod record`)"
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
        else:
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
