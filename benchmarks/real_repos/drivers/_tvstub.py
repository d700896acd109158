# The torchvision 0.28.0 wheel that pip finds for torch 2.13.0 is a CUDA build: its operators need
# libc10_cuda.so, which the CPU build of torch lacks, so `import torchvision` fails. Drivers of
# repositories whose packages import torchvision install this stand-in first: every torchvision
# module and attribute exists, and calling anything raises.
import importlib.abc, importlib.machinery, sys, types


class _Stub(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Attr(f"{self.__name__}.{name}")


class _Attr:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        return _Attr(f"{self._name}.{name}")

    def __call__(self, *a, **k):
        raise RuntimeError(f"{self._name} called, but torchvision is a stub (not installed)")

    def __mro_entries__(self, bases):
        return (object,)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname == "torchvision" or fullname.startswith("torchvision."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _Stub(spec.name)

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Finder())
