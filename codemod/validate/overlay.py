"""Serve rewritten sources to ``import`` without touching the working tree.

The rewritten-side worker installs :class:`OverlayFinder` first on
``sys.meta_path``.  It locates modules exactly as the normal path finder
does (so the real package names, relative imports and absolute self-imports
all resolve as usual) and, for the files present in the overlay, swaps in a
loader that compiles the rewritten text under the real filename.  Nothing is
written to disk: the loader has no bytecode cache.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import linecache
import os
import sys
from typing import Mapping


def normalize(path: str | os.PathLike[str]) -> str:
    return os.path.normcase(os.path.realpath(os.fspath(path)))


class OverlayLoader(importlib.abc.SourceLoader):
    """Loads one module from an in-memory source text."""

    def __init__(self, fullname: str, path: str, text: str) -> None:
        self.name = fullname
        self.path = path
        self.text = text

    def get_filename(self, fullname: str | None = None) -> str:
        return self.path

    def get_data(self, path: str) -> bytes:
        if normalize(path) == normalize(self.path):
            return self.text.encode("utf-8")
        with open(path, "rb") as handle:
            return handle.read()

    def source_to_code(self, data, path, *, _optimize=-1):  # type: ignore[override]
        if normalize(path) == normalize(self.path):
            # inspect.getsource reads linecache, which may already hold the file on disk (read
            # before the worker forked) and keeps it while that file is unchanged: the rewritten
            # class's line numbers would pick lines of the original text.  An entry with no
            # mtime is never checked against the disk.
            linecache.cache[path] = (len(self.text), None, self.text.splitlines(True), path)
            # Compile the text itself: its coding declaration (latin-1, ...) then has no say,
            # where encoding it to bytes first would make Python decode it wrongly.
            return compile(self.text, path, "exec", dont_inherit=True, optimize=_optimize)
        return super().source_to_code(data, path, _optimize=_optimize)

    def get_source(self, fullname: str) -> str:
        # linecache and tracebacks then show the rewritten lines, not the file on disk
        return self.text

    # SourceLoader skips the bytecode cache when path_stats is not provided,
    # so no .pyc of the rewritten text can ever reach __pycache__.


class OverlayFinder(importlib.abc.MetaPathFinder):
    """A meta path finder that answers for the overlaid files only."""

    def __init__(self, overlay: Mapping[str, str]) -> None:
        self.overlay = {normalize(path): text for path, text in overlay.items()}
        self.served: list[str] = []

    def find_spec(self, fullname, path, target=None):  # type: ignore[override]
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not spec.has_location:
            return None
        text = self.overlay.get(normalize(spec.origin))
        if text is None:
            return None
        loader = OverlayLoader(fullname, spec.origin, text)
        self.served.append(fullname)
        return importlib.util.spec_from_file_location(
            fullname, spec.origin, loader=loader, submodule_search_locations=spec.submodule_search_locations
        )

    def invalidate_caches(self) -> None:
        pass


def install(overlay: Mapping[str, str]) -> OverlayFinder:
    finder = OverlayFinder(overlay)
    sys.meta_path.insert(0, finder)
    return finder


def overlaid_files() -> set[str]:
    """The (normalised) paths whose rewritten text the installed finders serve."""
    return {path for finder in sys.meta_path if isinstance(finder, OverlayFinder) for path in finder.overlay}
