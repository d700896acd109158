"""Device movement evidence, run inside a validation worker (imports torch).

Without a GPU, the evidence comes from the meta device: ``model.to("meta")``
moves parameters and buffers but leaves raw tensor attributes on the CPU.
Meta kernels are lenient (``F.embedding(cpu_idx, meta_weight)`` succeeds), so
the forward runs under :class:`DeviceMixChecker`, a dispatch mode that raises
as soon as one aten op sees non-0-dim tensors on two devices.
"""

from __future__ import annotations

import re
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

aten = torch.ops.aten

# Ops that take index tensors: the indexed tensor's device, or the CPU, for the indices.
INDEX_PACKETS = {aten.index, aten.index_put, aten.index_put_, aten._index_put_impl_}

# Ops that legitimately take index tensors or copy across devices.
ALLOWED_PACKETS = INDEX_PACKETS | {aten._to_copy, aten.copy_}

# Ops whose CPU argument is part of their contract: a failure there says
# nothing about the rewrite, so it is reported as "could not check".
FALSE_POSITIVE_PACKETS = {aten._pack_padded_sequence}

_DEVICE_WORDS = re.compile(r"(same device|expected device|on device|different device|devices)", re.I)


class MixedDeviceError(RuntimeError):
    """One aten op received tensors on more than one device."""

    def __init__(self, message: str, op: str, false_positive: bool) -> None:
        super().__init__(message)
        self.op = op
        self.false_positive = false_positive


class DeviceMixChecker(TorchDispatchMode):
    """Raise when an aten op mixes non-0-dim tensors from several devices.

    ``names`` maps ``id(tensor)`` to a label (the raw attributes of the model),
    so the message can say which attribute stayed behind.
    """

    def __init__(self, names: dict[int, str] | None = None, storages: dict[int, str] | None = None) -> None:
        super().__init__()
        self.names = names or {}
        self.storages = storages or {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func.overloadpacket in INDEX_PACKETS:
            self._check_indices(func, args)
        elif func.overloadpacket not in ALLOWED_PACKETS:
            flat, _ = tree_flatten((args, kwargs))
            tensors = [a for a in flat if isinstance(a, torch.Tensor) and a.dim() > 0]
            devices = sorted({str(t.device) for t in tensors})
            if len(devices) > 1:
                labels = sorted({label for t in tensors if (label := self._label(t))})
                message = f"mixed devices {devices} in {func}"
                if labels:
                    message += f" (plain attribute {', '.join(labels)})"
                raise MixedDeviceError(message, str(func), func.overloadpacket in FALSE_POSITIVE_PACKETS)
        return func(*args, **kwargs)

    def _check_indices(self, func, args: tuple) -> None:
        """A CUDA tensor takes CPU indices, but a CPU tensor refuses CUDA ones ("indices should
        be either on cpu or on the same device as the indexed tensor"), where a meta index into
        a CPU tensor returns garbage without a word."""
        indexed, indices = args[0], args[1] if len(args) > 1 else ()
        elsewhere = [i for i in indices if isinstance(i, torch.Tensor) and i.dim() > 0
                     and i.device.type != "cpu" and i.device != indexed.device]
        if elsewhere:
            devices = sorted({str(indexed.device)} | {str(i.device) for i in elsewhere})
            message = f"mixed devices {devices} in {func}: indices on {elsewhere[0].device} into a tensor on {indexed.device}"
            if label := self._label(indexed):
                message += f" (plain attribute {label})"
            raise MixedDeviceError(message, str(func), False)

    def _label(self, tensor: torch.Tensor) -> str | None:
        if id(tensor) in self.names:
            return self.names[id(tensor)]
        # a slice such as self.pe[:T] is a view sharing the attribute's storage
        return self.storages.get(_storage_key(tensor)) if self.storages else None


def _storage_key(tensor: torch.Tensor) -> int:
    if tensor.device.type == "meta":
        return 0
    try:
        return tensor.untyped_storage().data_ptr()
    except Exception:
        return 0


def target_device(spec: str) -> torch.device:
    device = torch.device(spec)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


def raw_tensors(model: torch.nn.Module) -> dict[str, list[str]]:
    """Tensors kept in each submodule's instance ``__dict__``, by module path."""
    found: dict[str, list[str]] = {}
    for path, module in model.named_modules(remove_duplicate=False):
        names = [name for name, value in vars(module).items() if isinstance(value, torch.Tensor)]
        if names:
            found.setdefault(path, names)
    return found


def raw_tensor_checker(model: torch.nn.Module) -> DeviceMixChecker:
    """A checker that can name the model's raw tensor attributes in its message."""
    names: dict[int, str] = {}
    storages: dict[int, str] = {}
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if isinstance(value, torch.Tensor):
                label = f"{path}.{name}" if path else name
                names.setdefault(id(value), label)
                key = _storage_key(value)
                if key:
                    storages.setdefault(key, label)
    return DeviceMixChecker(names, storages)


def left_behind(model: torch.nn.Module, device: torch.device) -> list[tuple[str, str]]:
    """``(qualified name, device)`` of the raw tensors not on ``device``."""
    left: list[tuple[str, str]] = []
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if isinstance(value, torch.Tensor) and value.device != device:
                left.append((f"{path}.{name}" if path else name, str(value.device)))
    return left


def move(value: Any, device: torch.device) -> Any:
    """Move the tensors of plain nested containers to ``device``."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(move(v, device) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(move(v, device) for v in value)
    if isinstance(value, dict):
        return {k: move(v, device) for k, v in value.items()}
    return value


def classify_meta_error(exc: BaseException) -> str:
    """``"mixed"`` when the error is the device bug, ``"unchecked"`` otherwise.

    ``"unchecked"`` covers what the meta device cannot run: ``.item()``,
    copies out of meta tensors, data-dependent shapes, and known false
    positives such as ``pack_padded_sequence``'s CPU lengths.
    """
    if isinstance(exc, MixedDeviceError):
        return "unchecked" if exc.false_positive else "mixed"
    text = str(exc)
    if "meta" in text and "cpu" in text and _DEVICE_WORDS.search(text):
        return "mixed"
    return "unchecked"


def classify_device_error(exc: BaseException) -> str:
    """On a real accelerator: ``"mixed"`` for the device bug, else ``"other"``."""
    text = str(exc)
    if _DEVICE_WORDS.search(text) or "must be on the current device" in text:
        return "mixed"
    return "other"
