"""On a machine without a GPU, `.cuda()` stands for the CPU in the validation workers.

Research code often moves tensors and modules to the GPU in the constructor
(`self.grid = torch.from_numpy(g).cuda()`, `torch.zeros(n, device="cuda")`,
`torch.cuda.FloatTensor(...)`).  On a CPU build of torch that raises ("Torch not compiled
with CUDA enabled"), so neither side can be built and nothing is learned.  Both workers
install the same stand-in: `.cuda()` and `.to("cuda")` leave the tensor or module on the
CPU, tensor factories given `device="cuda"` make CPU tensors, and so do the legacy
`torch.cuda.*Tensor` types; `torch.cuda.current_device()` names device 0 and
`torch.cuda.set_device` / `synchronize` do nothing.  The original and the rewrite then run the same code on the
same device, so comparing them still tells whether the rewrite changed anything; where a
tensor lives when it is read is still checked on the meta device, which the stand-in
leaves alone.  The verdict says when the stand-in was used.

Where there is a GPU, the stand-in is installed too, so that the CPU stages give the same
evidence on every machine; the stage on the GPU builds a fresh model with it suspended
(:func:`suspended`), where the constructor's `.cuda()` calls and the forward's reach the GPU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch

# Tensor factories that take a device= keyword
_FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "full", "empty", "arange", "linspace", "logspace", "eye", "rand",
              "randn", "randint", "randperm", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like",
              "randn_like", "randint_like", "tril_indices", "triu_indices", "sparse_coo_tensor", "complex", "polar")
_LEGACY = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
_calls = 0
# Whether this machine has a GPU, asked of torch itself: a build that reports one
# (reporting_a_gpu) answers True to the repository's code, never to the stand-in's own checks.
_gpu_here = torch.cuda.is_available


def used() -> int:
    """How many GPU moves or GPU tensor types ran on the CPU so far in this worker."""
    return _calls


def _is_cuda(device: Any) -> bool:
    if isinstance(device, torch.device):
        return device.type == "cuda"
    if isinstance(device, str):
        return device == "cuda" or device.startswith("cuda:")
    # `t.to(0)`: a bare index names a device of the accelerator (cuda:0 on a CUDA machine)
    return isinstance(device, int) and not isinstance(device, bool)


def _count() -> None:
    global _calls
    _calls += 1


# What the stand-in replaced, (owner, name, original), restored while it is suspended.
_replaced: list[tuple[Any, str, Any]] = []
_suspended = False


def install() -> bool:
    """Install the stand-in (once); whether it was installed now."""
    if _replaced:
        return False
    tensor_to, module_to = torch.Tensor.to, torch.nn.Module.to

    def tensor_cuda(self, device=None, non_blocking=False, memory_format=torch.preserve_format):  # noqa: ARG001
        _count()
        return self

    def module_cuda(self, device=None):  # noqa: ARG001
        _count()
        return self

    def _cpu_arguments(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        if args and _is_cuda(args[0]):
            _count()
            args = ("cpu", *args[1:])
        if _is_cuda(kwargs.get("device")):
            _count()
            kwargs = dict(kwargs, device="cpu")
        return args, kwargs

    def tensor_to_cpu(self, *args, **kwargs):
        args, kwargs = _cpu_arguments(args, kwargs)
        return tensor_to(self, *args, **kwargs)

    def module_to_cpu(self, *args, **kwargs):
        args, kwargs = _cpu_arguments(args, kwargs)
        return module_to(self, *args, **kwargs)

    _replace(torch.Tensor, "cuda", tensor_cuda)
    _replace(torch.nn.Module, "cuda", module_cuda)
    _replace(torch.Tensor, "to", tensor_to_cpu)
    _replace(torch.nn.Module, "to", module_to_cpu)
    for name in _LEGACY:
        cpu_type = getattr(torch, f"{name}Tensor", None)
        if cpu_type is not None:
            _replace(torch.cuda, f"{name}Tensor", _legacy(cpu_type))
    if not _gpu_here():
        # `torch.cuda.current_device()` at a module's top level (a driver work-around), or
        # `torch.cuda.set_device(0)` in a constructor: device 0 stands for the CPU
        _replace(torch.cuda, "current_device", _device_zero)
        # one function per name: torch.compile tells torch's functions apart by identity
        _replace(torch.cuda, "set_device", _does_nothing("set_device"))
        _replace(torch.cuda, "synchronize", _does_nothing("synchronize"))
    return True


def _device_zero() -> int:
    _count()
    return 0


def _does_nothing(name: str) -> Callable[..., None]:
    def call(*args: Any, **kwargs: Any) -> None:  # noqa: ARG001
        _count()

    call.__name__ = name
    return call


def _replace(owner: Any, name: str, value: Any) -> None:
    _replaced.append((owner, name, getattr(owner, name, None)))
    setattr(owner, name, value)


def can_report_a_gpu() -> bool:
    """Whether a build may report a GPU that is not there (reporting_a_gpu): none here, and the
    stand-in installed to run its arm on the CPU."""
    return bool(_replaced) and not _suspended and not _gpu_here()


@contextlib.contextmanager
def reporting_a_gpu() -> Iterator[None]:
    """`torch.cuda.is_available()` answering True while a constructor runs on a machine without
    a GPU, the stand-in installed: the arm of `if torch.cuda.is_available():` that moves a tensor
    to the GPU runs, on the CPU, on both sides alike.  Without it a rewrite in that arm never
    runs here, and stays unproven."""
    if not can_report_a_gpu():
        yield
        return
    real = torch.cuda.is_available

    def is_available() -> bool:
        _count()
        return True

    torch.cuda.is_available = is_available
    try:
        yield
    finally:
        torch.cuda.is_available = real


@contextlib.contextmanager
def suspended() -> Iterator[None]:
    """The real `.cuda()`, `.to()`, factories and torch.cuda types, for the stage on the GPU."""
    global _suspended
    current = [(owner, name, getattr(owner, name, None)) for owner, name, _ in _replaced]
    for owner, name, original in reversed(_replaced):
        setattr(owner, name, original)
    _suspended = True
    try:
        yield
    finally:
        _suspended = False
        for owner, name, value in current:
            setattr(owner, name, value)


def holds_cuda_tensors(model: Any) -> bool:
    """Whether a model built under the stand-in still holds a tensor on the GPU (a factory
    given device="cuda", which the stand-in leaves alone until a constructor needs it)."""
    if _suspended or not _replaced or not _gpu_here() or not isinstance(model, torch.nn.Module):
        return False
    for module in model.modules():
        for value in (*module._parameters.values(), *module._buffers.values(), *vars(module).values()):
            if isinstance(value, torch.Tensor) and value.device.type == "cuda":
                return True
    return False


_factories_installed = False


def needs_cuda(exc: BaseException) -> bool:
    """Whether a constructor failed for want of CUDA (a factory given device="cuda"): a CPU
    build says "Torch not compiled with CUDA enabled", a CUDA build on a machine without a
    GPU "Found no NVIDIA driver on your system"."""
    text = str(exc)
    return "CUDA" in text or "cuda" in text or "NVIDIA driver" in text


def install_factories() -> bool:
    """The tensor factories with device="cuda" made the CPU; whether that is new.

    Installed only once a constructor failed for want of CUDA: wrapping torch.zeros and
    friends for every class would change code that keeps or compares them (model loaders
    that patch the factories while they build)."""
    global _factories_installed
    if _factories_installed or _suspended or (_gpu_here() and not _replaced):
        return False
    for name in _FACTORIES:
        factory = getattr(torch, name, None)
        if factory is not None:
            _replace(torch, name, _on_cpu(factory))
    _factories_installed = True
    return True


def _on_cpu(factory: Any) -> Any:
    """`torch.zeros(n, device="cuda")`: the factory with the device made the CPU."""
    def make(*args: Any, **kwargs: Any) -> Any:
        if _is_cuda(kwargs.get("device")):
            _count()
            kwargs["device"] = "cpu"
        return factory(*args, **kwargs)

    make.__name__ = getattr(factory, "__name__", "factory")
    make.__doc__ = getattr(factory, "__doc__", None)
    return make


def _legacy(cpu_type: Any) -> Any:
    def make(*args: Any, **kwargs: Any) -> torch.Tensor:
        _count()
        return cpu_type(*args, **kwargs)

    return make


def note() -> str:
    if _gpu_here():
        return ("the constructor's .cuda() / .to('cuda') calls and torch.cuda tensor types ran on the CPU in the "
                "CPU stages, the same on both sides, and on the GPU in the stage there")
    return ("no GPU here: the constructor's .cuda() / .to('cuda') calls and torch.cuda tensor types ran on the CPU, "
            "the same on both sides")
