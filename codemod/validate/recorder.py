"""The recording hook, loaded by ``sitecustomize`` in every child Python process.

Stdlib only at import time, and compatible with older interpreters, since it
runs inside whatever Python the recorded command starts.  torch is never
imported here: a meta path finder waits for the program to import torch, then
patches ``torch.nn.Module`` so that, for every subclass defined under the
repository root, the first instance that reaches ``forward`` leaves a record
of its constructor arguments and of those forward inputs.

Configuration comes from the environment (set by ``codemod.validate.record``):
``CODEMOD_RECORD_ROOT``, ``CODEMOD_RECORD_STAGING``, ``CODEMOD_RECORD_MAX_BYTES``.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import io
import os
import pickle
import sys
import threading
import time
import weakref

ROOT = os.path.realpath(os.environ.get("CODEMOD_RECORD_ROOT", "."))
STAGING = os.environ.get("CODEMOD_RECORD_STAGING", "")
MAX_BYTES = int(os.environ.get("CODEMOD_RECORD_MAX_BYTES", str(8 * 1024 * 1024)))
MAX_PENDING_PER_CLASS = 8  # instances waiting for a first forward, per class
MAX_INPUT_ATTEMPTS = 3  # forward calls tried per class when the inputs cannot be stored

_lock = threading.RLock()
_class_keys = {}  # class -> record key, for classes under the root
_complete = set()  # keys that already have constructor args + inputs
_init_written = set()  # keys whose constructor-only record is written
_pending = {}  # id(instance) -> (weakref, key, args blob)
_pending_count = {}  # key -> number of instances waiting
_failures = {}  # key -> forward calls whose inputs could not be stored
_argless = {}  # class -> key, for classes that inherit nn.Module.__init__ (no constructor arguments)
_constructing = threading.local()
_seq = [0]


def _warn(message):
    try:
        sys.stderr.write(f"codemod record: {message}\n")
    except Exception:
        pass


def _source_path(cls):
    module = sys.modules.get(cls.__module__)
    filename = getattr(module, "__file__", None)
    if not filename:
        return None
    path = os.path.realpath(filename)
    if not path.startswith(ROOT + os.sep):
        return None
    relative = os.path.relpath(path, ROOT).replace(os.sep, "/")
    parts = relative.split("/")
    # virtual environments and tool folders inside the repository are not the user's code
    if any(p.startswith(".") or p in ("site-packages", "dist-packages", "__pycache__") for p in parts[:-1]):
        return None
    return relative


def record_key(relative_path, qualname):
    return f"{relative_path}::{qualname}"


def record_filename(key):
    relative, _, qualname = key.partition("::")
    dotted = relative[:-3] if relative.endswith(".py") else relative
    dotted = dotted.replace("/", ".")
    if dotted.endswith(".__init__"):
        dotted = dotted[: -len(".__init__")]
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in f"{dotted}.{qualname}")
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:8]
    return f"{safe}-{digest}.pkl"


# -- serialization -------------------------------------------------------------------------------


class _TooBig(Exception):
    pass


def _prepare(value, torch, budget):
    """Detach tensors (and shrink views of larger storages) inside plain containers."""
    if isinstance(value, torch.Tensor):
        size = value.numel() * value.element_size()
        budget[0] += size
        if budget[0] > MAX_BYTES:
            raise _TooBig()  # before any copy: the point is not to touch huge tensors
        tensor = value.detach()
        try:
            if tensor.untyped_storage().nbytes() > size:
                tensor = tensor.clone()
        except Exception:
            pass
        return tensor
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_prepare(v, torch, budget) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_prepare(v, torch, budget) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _prepare(v, torch, budget)) for k, v in value.items())
    return value


def _serialize(args, kwargs, torch, what):
    """``(blob, note)``: the blob is None when the value is too big or not picklable."""
    budget = [0]
    try:
        prepared = (_prepare(tuple(args), torch, budget), _prepare(dict(kwargs), torch, budget))
    except _TooBig:
        return None, f"{what} not recorded: over {MAX_BYTES / 1e6:.1f} MB of tensors (the cap)"
    except Exception as exc:
        return None, f"{what} not recorded: {type(exc).__name__}: {exc}"
    buffer = io.BytesIO()
    try:
        torch.save(prepared, buffer)
    except Exception as exc:
        return None, f"{what} not recorded: not picklable ({type(exc).__name__}: {exc})"
    blob = buffer.getvalue()
    if len(blob) > 2 * MAX_BYTES:
        return None, f"{what} not recorded: {len(blob) / 1e6:.1f} MB pickled, over the cap"
    return blob, None


def _write(key, cls, args_blob, inputs_blob, notes, kind):
    """Stage one record; the parent merges the staged files after the command ends."""
    if not STAGING:
        return
    with _lock:
        _seq[0] += 1
        seq = _seq[0]
    relative, _, qualname = key.partition("::")
    record = {
        "version": 1,
        "key": key,
        "path": relative,
        "qualname": qualname,
        "module": cls.__module__,
        "kind": kind,
        "args": args_blob,
        "inputs": inputs_blob,
        "notes": list(notes),
        "time": time.time_ns(),
        "pid": os.getpid(),
    }
    name = f"{hashlib.sha1(key.encode('utf-8')).hexdigest()[:16]}-{os.getpid()}-{seq}.{kind}"
    temporary = os.path.join(STAGING, name + ".tmp")
    try:
        with open(temporary, "wb") as handle:
            pickle.dump(record, handle, protocol=4)
        os.replace(temporary, os.path.join(STAGING, name))
    except Exception as exc:
        _warn(f"could not stage a record for {key}: {exc}")


# -- hooks -----------------------------------------------------------------------------------------


def _key_for(cls):
    try:
        return _class_keys.get(cls)
    except TypeError:
        return None


def _on_init(self, args, kwargs, torch):
    cls = type(self)
    key = _key_for(cls)
    if key is None or key in _complete:
        return
    with _lock:
        if _pending_count.get(key, 0) >= MAX_PENDING_PER_CLASS:
            return
        _pending_count[key] = _pending_count.get(key, 0) + 1
    # serialized before __init__ runs: a constructor may mutate its config
    blob, note = _serialize(args, kwargs, torch, "constructor arguments")
    notes = [note] if note else []
    if key not in _init_written:
        _init_written.add(key)
        _write(key, cls, blob, None, notes, "init")
    if blob is None:
        return

    def forget(_ref, ident=id(self), key=key):
        with _lock:
            if _pending.pop(ident, None) is not None:
                _pending_count[key] = max(0, _pending_count.get(key, 1) - 1)

    try:
        _pending[id(self)] = (weakref.ref(self, forget), key, blob)
    except TypeError:
        pass


def _on_call(self, args, kwargs, torch):
    entry = _pending.get(id(self))
    if entry is None or entry[0]() is not self:
        key = _argless.get(type(self))
        if key is None or key in _complete:
            return
        # nn.Module.__init__ takes no arguments, so there is nothing else to know
        entry = (None, key, _serialize((), {}, torch, "constructor arguments")[0])
    ref, key, args_blob = entry
    with _lock:
        _pending.pop(id(self), None)
        _pending_count[key] = max(0, _pending_count.get(key, 1) - 1)
        if key in _complete:
            return
    blob, note = _serialize(args, kwargs, torch, "forward inputs")
    if blob is None:
        # a later, smaller call may still succeed, but do not pay for this on every step
        with _lock:
            _failures[key] = _failures.get(key, 0) + 1
            if _failures[key] >= MAX_INPUT_ATTEMPTS:
                _argless.pop(type(self), None)
                _complete.add(key)
        _write(key, type(self), args_blob, None, [note], "note")
        return
    with _lock:
        if key in _complete:
            return
        _complete.add(key)
        _argless.pop(type(self), None)
        for ident in [i for i, e in _pending.items() if e[1] == key]:
            _pending.pop(ident, None)
        _pending_count[key] = 0
    _write(key, type(self), args_blob, blob, [], "full")


def patch_torch(torch):
    """Patch ``torch.nn.Module`` once torch is importable."""
    module_cls = torch.nn.Module
    if getattr(module_cls, "_codemod_recording", False):
        return
    module_cls._codemod_recording = True
    previous_init_subclass = module_cls.__dict__.get("__init_subclass__")
    module_init = module_cls.__init__

    def wrap_init(cls, original):
        def __init__(self, *args, **kwargs):
            active = getattr(_constructing, "ids", None)
            if active is None:
                active = _constructing.ids = set()
            outermost = id(self) not in active
            if outermost:
                active.add(id(self))
                try:
                    _on_init(self, args, kwargs, torch)
                except Exception as exc:
                    _warn(f"recording {cls.__qualname__} failed: {exc}")
            try:
                return original(self, *args, **kwargs)
            finally:
                if outermost:
                    active.discard(id(self))

        for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
            try:
                setattr(__init__, attribute, getattr(original, attribute))
            except (AttributeError, TypeError):
                pass
        __init__.__wrapped__ = original
        return __init__

    def __init_subclass__(cls, **kwargs):
        if previous_init_subclass is not None:
            previous_init_subclass.__func__(cls, **kwargs)
        else:
            super(module_cls, cls).__init_subclass__(**kwargs)
        try:
            if "<locals>" in cls.__qualname__:
                return
            relative = _source_path(cls)
            if relative is None:
                return
            key = _class_keys[cls] = record_key(relative, cls.__qualname__)
            original = cls.__dict__.get("__init__")
            if original is not None and callable(original):
                cls.__init__ = wrap_init(cls, original)
            elif cls.__init__ is module_init:
                _argless[cls] = key
            # other classes without their own __init__ are seen through their base's wrapper
        except Exception as exc:
            _warn(f"could not watch {cls!r}: {exc}")

    module_cls.__init_subclass__ = classmethod(__init_subclass__)

    original_call = module_cls.__call__

    def __call__(self, *args, **kwargs):
        if _pending or _argless:
            try:
                _on_call(self, args, kwargs, torch)
            except Exception as exc:
                _warn(f"recording inputs of {type(self).__qualname__} failed: {exc}")
        return original_call(self, *args, **kwargs)

    module_cls.__call__ = __call__


class _TorchWatcher(importlib.abc.MetaPathFinder):
    """Finds ``torch`` like everyone else, but patches it right after it executes."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "torch":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec

        class _Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                _remove_watcher()
                # hand the module back to its real loader (importlib.resources and friends ask it)
                module.__loader__ = loader
                if getattr(module, "__spec__", None) is not None:
                    module.__spec__.loader = loader
                try:
                    patch_torch(module)
                except Exception as exc:
                    _warn(f"could not install the recording hooks: {exc}")

        spec.loader = _Loader()
        return spec


_watcher = _TorchWatcher()


def _remove_watcher():
    try:
        sys.meta_path.remove(_watcher)
    except ValueError:
        pass


def install():
    if not STAGING:
        return
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "nn"):
        patch_torch(torch)
    else:
        sys.meta_path.insert(0, _watcher)
