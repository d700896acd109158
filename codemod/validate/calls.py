"""Calls of a class read statically from the repository's own code (tool side, no torch).

An ``if __name__ == "__main__":`` block, a docstring example (``>>> model = Net(4)``) or a
test often shows how a class is built and called::

    if __name__ == "__main__":
        net = Net(3, num_classes=10)
        x = torch.randn(4, 3, 32, 32)
        print(net(x).shape)

Those calls are the best arguments and inputs validation can have with no setup.  After
them come the calls in the repository's own functions and constructors (`self.loss =
MultiTaskLoss(is_regression=torch.Tensor([False, True]))` in another class), which show the
arguments the class is built with, seldom its inputs.

They are read, never run: a call counts when each argument is a literal, arithmetic on
literals, a torch factory with literal sizes (``torch.randn(4, 3, 32, 32)``,
``torch.randint(0, 10, (2, 7))``, ``torch.eye(5)``), a name bound to such a value earlier in
the same block or test, a namespace or dict of them, or an instance of a repository class
(a config) built the same way.  Each becomes a JSON description (synth.py's value specs) that the workers
rebuild; the forward inputs are those of the first call of the instance (``net(x)``,
``net.forward(x)``, ``Net(3)(x)``).  Device strings become ``"cpu"`` (validation builds on
the CPU and checks devices itself).
"""

from __future__ import annotations

import ast
import doctest
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

MAX_FILES = 3000
MAX_FILE_BYTES = 1 << 20
MAX_USAGES = 4  # per class
_SKIP_DIRS = {".git", ".hg", ".venv", "venv", "env", "node_modules", "build", "dist", "__pycache__", ".tox",
              ".codemod", "site-packages", ".mypy_cache", ".pytest_cache"}
_TENSOR_FACTORIES = {"randn", "rand", "ones", "zeros", "empty"}
_DTYPE_NAMES = {"float", "float32", "float64", "double", "float16", "half", "bfloat16", "long", "int64", "int",
                "int32", "int16", "int8", "uint8", "bool"}
_MODEL_METHODS = {"eval", "train", "to", "cuda", "cpu", "float", "double", "half", "bfloat16", "requires_grad_"}


@dataclass
class Found:
    """The calls found for each class, and the files they were read from."""

    usages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # "module.Class" -> usages
    files: set[str] = field(default_factory=set)


# The floating dtypes a model is cast to, by method and by `torch.<name>` given to `.to(...)`.
_CAST_METHODS = {"double": "float64", "half": "float16", "float": "float32", "bfloat16": "bfloat16"}
_CAST_DTYPES = {"float64": "float64", "double": "float64", "float16": "float16", "half": "float16",
                "bfloat16": "bfloat16", "float32": "float32", "float": "float32"}


def _cast_dtype(call: ast.Call) -> str | None:
    """The floating dtype a model method call casts to (``.double()``, ``.to(torch.float64)``,
    ``.to(dtype=torch.half)``), or None."""
    method = call.func.attr  # type: ignore[attr-defined]
    if method in _CAST_METHODS:
        return _CAST_METHODS[method]
    if method != "to":
        return None
    for argument in [*call.args, *(k.value for k in call.keywords if k.arg == "dtype")]:
        if isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name) \
                and argument.value.id == "torch" and argument.attr in _CAST_DTYPES:
            return _CAST_DTYPES[argument.attr]
    return None


def find(root: Path, targets: Iterable[str], roots: list[Path]) -> Found:
    """The calls of ``targets`` (``"pkg.module.Class"``) in the repository under ``root``."""
    targets = sorted(set(targets))
    found = Found()
    if not targets:
        return found
    names = {t.rpartition(".")[2] for t in targets}
    later: list[tuple[dict[str, list[dict[str, Any]]], Path]] = []
    for path in _python_files(Path(root)):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not any(name in text for name in names):
            continue
        test_file = _is_test_file(path, root)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        module = _module_name(path, roots)
        reader = _Reader(module, path, root, targets, roots)
        reader.read_module(tree, test_file)
        _keep(found, reader.usages, path)
        later.append((reader.code_usages, path))
    # calls in the repository's own functions and constructors come after every example of
    # a main block, a test or a docstring, which show how the class is meant to be used
    for usages, path in later:
        _keep(found, usages, path)
    return found


def _keep(found: Found, usages: dict[str, list[dict[str, Any]]], path: Path) -> None:
    for target, listed in usages.items():
        known = found.usages.setdefault(target, [])
        for usage in listed:
            if usage not in known and len(known) < MAX_USAGES:
                known.append(usage)
                found.files.add(str(path))


def _python_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                out.append(Path(directory) / name)
                if len(out) >= MAX_FILES:
                    return out
    return out


def _is_test_file(path: Path, root: Path) -> bool:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return path.name.startswith("test_") or path.name.endswith("_test.py") or any(
        p in ("tests", "test") for p in parts[:-1])


def _module_name(path: Path, roots: list[Path]) -> str:
    return module_name_under(path, roots) or path.stem


def module_name_under(path: Path, roots: list[Path]) -> str | None:
    """The dotted name ``path`` imports as from the root of ``roots`` nearest to it; None when
    no root holds it."""
    best = None
    for root in roots:
        try:
            relative = path.resolve().relative_to(Path(root).resolve())
        except ValueError:
            continue
        if best is None or len(relative.parts) < len(best.parts):
            best = relative
    if best is None:
        return None
    parts = list(best.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class Unreadable(Exception):
    """An expression whose value cannot be told without running code."""


class _Reader:
    def __init__(self, module: str, path: Path, root: Path, targets: list[str], roots: list[Path]) -> None:
        self.module = module
        self.path = path
        self.package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        self.where = os.path.relpath(path, root)
        self.targets = targets
        self.by_name: dict[str, list[str]] = {}
        for target in targets:
            self.by_name.setdefault(target.rpartition(".")[2], []).append(target)
        self.roots = roots
        self.imports: dict[str, str] = {}  # local name -> dotted name it stands for
        self.classes: set[str] = set()  # classes defined in this file
        self.usages: dict[str, list[dict[str, Any]]] = {}
        # calls in the module's own functions and methods (`self.loss = MultiTaskLoss(
        # is_regression=torch.Tensor([False, True]))` in another class's constructor)
        self.code_usages: dict[str, list[dict[str, Any]]] = {}

    # -- what names stand for ------------------------------------------------------------------

    def read_module(self, tree: ast.Module, test_file: bool) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        self.imports[alias.name.split(".")[0]] = alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(node.module, node.level)
                for alias in node.names:
                    if alias.name != "*":
                        self.imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
            elif isinstance(node, ast.ClassDef):
                self.classes.add(node.name)
        for node in tree.body:
            if isinstance(node, ast.If) and _is_main_test(node.test):
                self.read_block(node.body, f"{self.where}:{node.lineno}")
            elif test_file and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                self.read_block(node.body, f"{self.where}:{node.lineno}")
            elif test_file and isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                        self.read_block(item.body, f"{self.where}:{item.lineno}")
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                docstring = ast.get_docstring(node, clean=True)
                if docstring and ">>>" in docstring:
                    self._read_docstring(docstring, node)
        if test_file:
            return
        examples, self.usages = self.usages, {}
        # a script's own top-level code (`lstm = LSTM(input_size=INPUT_SIZE).double()` in
        # train.py), then the functions' bodies
        self.read_block([node for node in tree.body if not (isinstance(node, ast.If) and _is_main_test(node.test))],
                        f"{self.where}:1")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.read_block(node.body, f"{self.where}:{node.lineno}")
        for listed in self.usages.values():
            for usage in listed:
                usage["in_code"] = True
        self.code_usages, self.usages = self.usages, examples

    def _absolute(self, module: str | None, level: int) -> str:
        if not level:
            return module or ""
        parts = self.package.split(".") if self.package else []
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join(parts + ([module] if module else []))

    def _read_docstring(self, docstring: str, node: ast.AST) -> None:
        try:
            examples = doctest.DocTestParser().get_examples(docstring)
        except ValueError:
            return
        source = "".join(example.source for example in examples)
        try:
            body = ast.parse(source).body
        except SyntaxError:
            return
        line = getattr(node, "lineno", 1)
        self.read_block(body, f"{self.where}:{line} (docstring)")

    def _dotted(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for (``nn.Linear`` -> ``torch.nn.Linear``)."""
        if isinstance(node, ast.Name):
            if node.id in self.imports:
                return self.imports[node.id]
            if node.id in self.classes:
                return f"{self.module}.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self._dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def _target(self, func: ast.AST) -> str | None:
        """The validated class a call's callee is, if it is one."""
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name not in self.by_name:
            return None
        dotted = self._dotted(func)
        candidates = self.by_name[name]
        if dotted in candidates:
            return dotted
        if dotted is not None:
            # re-exported by a package above it: `from eventx import CasEE`
            prefix = dotted.rpartition(".")[0]
            matching = [t for t in candidates if t.startswith(prefix + ".") or not prefix]
            return matching[0] if len(matching) == 1 else None
        return candidates[0] if len(candidates) == 1 and isinstance(func, ast.Name) else None

    def _defining_file(self, func: ast.AST) -> str | None:
        """The file the callee's module is where Python would import it from (the calling
        script's own directory first, then the import roots), or None where that cannot be
        told: two directories may each hold a `model.py` with a class of the same name."""
        dotted = self._dotted(func)
        if dotted is None:
            return None
        module = dotted.rpartition(".")[0]
        if module == self.module:
            return str(self.path.resolve())
        parts = module.split(".") if module else []
        if not parts:
            return None
        for base in (self.path.parent, *self.roots):
            candidate = Path(base).joinpath(*parts).with_suffix(".py")
            if candidate.is_file():
                return str(candidate.resolve())
            if Path(base).joinpath(*parts).is_dir():
                return None  # a package: the class may be re-exported from its __init__
        return None

    # -- one block of statements, in order -----------------------------------------------------

    def read_block(self, body: list[ast.stmt], where: str) -> None:
        env: dict[str, dict[str, Any]] = {}
        instances: dict[str, dict[str, Any]] = {}
        self._statements(body, env, instances, where)

    def _statements(self, body: list[ast.stmt], env: dict, instances: dict, where: str) -> None:
        for statement in body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            self._calls(statement, env, instances, where)
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                value = statement.value
                if value is not None and len(targets) == 1 and isinstance(targets[0], (ast.Attribute, ast.Subscript)):
                    self._instance(value, env, instances, where)  # `self.loss = Loss(...)`: a call of the class
                    continue
                if value is None or len(targets) != 1 or not isinstance(targets[0], ast.Name):
                    continue
                name = targets[0].id
                instance = self._instance(value, env, instances, where)
                if instance is not None:
                    instances[name] = instance
                    env.pop(name, None)
                    continue
                instances.pop(name, None)
                try:
                    env[name] = self.spec(value, env)
                except Unreadable:
                    env.pop(name, None)
            for child in ("body", "orelse", "finalbody"):
                inner = getattr(statement, child, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) and not isinstance(
                        statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self._statements(inner, env, instances, where)

    def _instance(self, value: ast.AST, env: dict, instances: dict, where: str) -> dict[str, Any] | None:
        """The usage an expression builds (``Net(3)``, ``Net(3).eval().to(device)``), or None.
        A cast in the chain (``Net(3).double()``) is the floating dtype the class is used in."""
        dtype = None
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in _MODEL_METHODS:
            dtype = dtype or _cast_dtype(value)  # the outermost cast is the one the model keeps
            value = value.func.value
        usage = None
        if isinstance(value, ast.Name) and value.id in instances:
            usage = instances[value.id]
        elif isinstance(value, ast.Call):
            target = self._target(value.func)
            if target is not None:
                usage = self._usage(target, value, env, where)
        if usage is not None and dtype is not None and "dtype" not in usage:
            usage["dtype"] = dtype
        return usage

    def _usage(self, target: str, call: ast.Call, env: dict, where: str) -> dict[str, Any] | None:
        try:
            args, kwargs = self._arguments(call, env)
        except Unreadable:
            return None
        line = where if where.endswith("(docstring)") else f"{where.rpartition(':')[0]}:{call.lineno}"
        usage = {"where": line, "args": args, "kwargs": kwargs, "inputs": None, "file": self._defining_file(call.func)}
        known = self.usages.setdefault(target, [])
        for other in known:
            if (other["args"], other["kwargs"]) == (args, kwargs):
                return other
        known.append(usage)
        return usage

    def _calls(self, statement: ast.stmt, env: dict, instances: dict, where: str) -> None:
        """Constructor calls and instance calls inside one statement (not those of an assignment's
        own value, which _statements reads)."""
        skip = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        for node in _own_nodes(statement):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            usage = None
            if isinstance(func, ast.Attribute) and func.attr == "forward":
                usage = self._instance(func.value, env, instances, where)
            elif isinstance(func, ast.Name) and func.id in instances:
                usage = instances[func.id]
            elif isinstance(func, ast.Call):
                usage = self._instance(func, env, instances, where)
            elif node is not skip and self._target(func) is not None:
                self._usage(self._target(func), node, env, where)  # type: ignore[arg-type]
                continue
            if usage is not None and usage["inputs"] is None:
                try:
                    args, kwargs = self._arguments(node, env)
                except Unreadable:
                    continue
                usage["inputs"] = {"args": args, "kwargs": kwargs}

    def _arguments(self, call: ast.Call, env: dict) -> tuple[list[dict], dict[str, dict]]:
        args = []
        for argument in call.args:
            if isinstance(argument, ast.Starred):
                inner = self.spec(argument.value, env)
                if inner["op"] not in ("tuple", "list"):
                    raise Unreadable
                args.extend(inner["items"])
            else:
                args.append(self.spec(argument, env))
        kwargs: dict[str, dict] = {}
        for keyword in call.keywords:
            if keyword.arg is None:
                inner = self.spec(keyword.value, env)
                if inner["op"] != "dict" or not all(isinstance(k, str) for k, _ in inner["items"]):
                    raise Unreadable
                kwargs.update({k: v for k, v in inner["items"]})
            else:
                kwargs[keyword.arg] = self.spec(keyword.value, env)
        return args, kwargs

    # -- values ----------------------------------------------------------------------------------

    def spec(self, node: ast.AST, env: dict) -> dict[str, Any]:
        """The JSON description of an expression's value; Unreadable when it needs running code."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
            value = node.value
            if isinstance(value, str) and (value == "cuda" or value.startswith("cuda:") or value == "mps"):
                value = "cpu"
            return {"op": "value", "value": value}
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            raise Unreadable
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
            inner = self._number(self.spec(node.operand, env))
            result = -inner if isinstance(node.op, ast.USub) else (not inner if isinstance(node.op, ast.Not) else inner)
            return {"op": "value", "value": result}
        if isinstance(node, ast.BinOp):
            left, right = self._number(self.spec(node.left, env)), self._number(self.spec(node.right, env))
            operations = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
                          ast.FloorDiv: lambda a, b: a // b, ast.Div: lambda a, b: a / b,
                          ast.Pow: lambda a, b: a ** b if abs(b) < 64 else None, ast.Mod: lambda a, b: a % b}
            operation = operations.get(type(node.op))
            try:
                result = operation(left, right) if operation else None
            except (ZeroDivisionError, OverflowError, TypeError):
                result = None
            if result is None:
                raise Unreadable
            return {"op": "value", "value": result}
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [self.spec(item, env) for item in node.elts]
            if all(item["op"] == "value" for item in items):
                values = [item["value"] for item in items]
                return {"op": "value", "value": values} if isinstance(node, ast.List) else {
                    "op": "tuple", "items": items}
            return {"op": "tuple" if isinstance(node, ast.Tuple) else "list", "items": items}
        if isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):
                raise Unreadable
            keys = [self.spec(key, env) for key in node.keys]  # type: ignore[arg-type]
            if not all(k["op"] == "value" and isinstance(k["value"], (str, int)) for k in keys):
                raise Unreadable
            return {"op": "dict", "items": [[k["value"], self.spec(v, env)] for k, v in zip(keys, node.values)]}
        if isinstance(node, ast.IfExp):
            return self.spec(node.orelse, env)  # `"cuda" if torch.cuda.is_available() else "cpu"`
        if isinstance(node, ast.Call):
            return self._call_spec(node, env)
        raise Unreadable

    @staticmethod
    def _number(spec: dict[str, Any]) -> Any:
        if spec["op"] != "value" or isinstance(spec["value"], (str, list)) or spec["value"] is None:
            raise Unreadable
        return spec["value"]

    def _call_spec(self, node: ast.Call, env: dict) -> dict[str, Any]:
        func = node.func
        # a tensor method that keeps the values: .to(device), .cuda(), .float(), .long(), ...
        if isinstance(func, ast.Attribute) and func.attr in ("to", "cuda", "cpu", "float", "double", "long", "half",
                                                              "int", "bool", "contiguous", "detach", "clone"):
            inner = self.spec(func.value, env)
            if inner["op"] not in ("randn", "rand", "ones", "zeros", "randint", "arange", "eye", "tensor"):
                raise Unreadable
            if func.attr in ("float", "double", "long", "half", "int", "bool"):
                inner = dict(inner, dtype={"float": "float32", "double": "float64"}.get(func.attr, func.attr))
                if inner["op"] in ("randn", "rand") and inner["dtype"] in ("long", "int", "bool"):
                    raise Unreadable
            return inner
        dotted = self._dotted(func)
        if dotted is None:
            raise Unreadable
        if dotted.startswith("torch.") and dotted.count(".") == 1:
            return self._torch_spec(dotted.partition(".")[2], node, env)
        if dotted in ("torch.device", "torch.cuda.device"):
            return {"op": "value", "value": "cpu"}
        if dotted in ("argparse.Namespace", "types.SimpleNamespace", "easydict.EasyDict", "addict.Dict"):
            if node.args:
                raise Unreadable
            return {"op": "namespace", "kwargs": self._arguments(node, env)[1]}
        if dotted in ("dict", "builtins.dict"):
            if node.args:
                raise Unreadable
            return {"op": "dict", "items": [[k, v] for k, v in self._arguments(node, env)[1].items()]}
        if dotted in ("tuple", "list") and len(node.args) == 1:
            inner = self.spec(node.args[0], env)
            if inner["op"] == "value" and isinstance(inner["value"], list):
                return inner if dotted == "list" else {"op": "tuple", "items": [
                    {"op": "value", "value": v} for v in inner["value"]]}
            raise Unreadable
        if self._repository(dotted) or dotted.startswith("torch.nn."):
            args, kwargs = self._arguments(node, env)
            return {"op": "call", "target": dotted, "args": args, "kwargs": kwargs}
        raise Unreadable

    def _torch_spec(self, name: str, node: ast.Call, env: dict) -> dict[str, Any]:
        args = [self.spec(a, env) for a in node.args if not isinstance(a, ast.Starred)]
        if len(args) != len(node.args):
            raise Unreadable
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        dtype = self._dtype(keywords.get("dtype"))
        extra = {"dtype": dtype} if dtype else {}
        if name in _TENSOR_FACTORIES or name in ("FloatTensor", "LongTensor") and args and _all_ints(args):
            if name in ("FloatTensor", "LongTensor"):
                extra = {"dtype": "float32" if name == "FloatTensor" else "long"}
                op = "zeros"
            else:
                op = "zeros" if name == "empty" else name
            shape = _shape(args)
            if "size" in keywords:
                shape = _shape([self.spec(keywords["size"], env)])
            return {"op": op, "shape": shape, **extra}
        if name == "randint":
            if "size" in keywords:
                args.append(self.spec(keywords["size"], env))
            if len(args) == 2:
                low, high, size = 0, self._number(args[0]), args[1]
            elif len(args) == 3:
                low, high, size = self._number(args[0]), self._number(args[1]), args[2]
            else:
                raise Unreadable
            return {"op": "randint", "low": int(low), "high": int(high), "shape": _shape([size])}
        if name == "arange" and 1 <= len(args) <= 2:
            numbers = [self._number(a) for a in args]
            start, end = (0, numbers[0]) if len(numbers) == 1 else numbers
            return {"op": "arange", "start": start, "end": end, **extra}
        if name == "eye" and len(args) == 1:
            return {"op": "eye", "n": int(self._number(args[0])), **extra}
        if name in ("tensor", "as_tensor", "Tensor", "FloatTensor", "LongTensor", "BoolTensor") and len(args) == 1:
            data = args[0]
            if data["op"] == "tuple":
                data = {"op": "value", "value": [self._number(i) for i in data["items"]]}
            if data["op"] != "value" or isinstance(data["value"], str):
                raise Unreadable
            if name == "Tensor" and isinstance(data["value"], int):
                raise Unreadable  # torch.Tensor(n): uninitialised memory of size n
            # torch.Tensor([False, True]) is float32, as FloatTensor is; torch.tensor's follows the data
            dtype = {"Tensor": "float32", "FloatTensor": "float32", "LongTensor": "long", "BoolTensor": "bool"}.get(
                name, dtype)
            return {"op": "tensor", "data": data["value"], **({"dtype": dtype} if dtype else {})}
        raise Unreadable

    def _dtype(self, node: ast.AST | None) -> str | None:
        if node is None:
            return None
        dotted = self._dotted(node)
        if dotted and dotted.startswith("torch.") and dotted.partition(".")[2] in _DTYPE_NAMES:
            return dotted.partition(".")[2]
        raise Unreadable

    def _repository(self, dotted: str) -> bool:
        """Whether a dotted name lives in a module of the repository (a config class)."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            relative = Path(*parts[:cut])
            for root in self.roots:
                if (Path(root) / relative).with_suffix(".py").is_file() or (Path(root) / relative / "__init__.py").is_file():
                    return True
        return False


def _own_nodes(statement: ast.stmt) -> list[ast.AST]:
    """The nodes of a statement, without the statements nested in it (a loop's or a with's body:
    those are read in their turn)."""
    out: list[ast.AST] = []
    for name, value in ast.iter_fields(statement):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, ast.AST):
                out.extend(ast.walk(item))
    return out


def _is_main_test(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    constants = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and constants)


def _all_ints(args: list[dict[str, Any]]) -> bool:
    return all(a["op"] == "value" and isinstance(a["value"], int) and not isinstance(a["value"], bool) for a in args)


def _shape(args: list[dict[str, Any]]) -> list[int]:
    """Sizes given as ``f(2, 3)`` or ``f((2, 3))`` / ``f([2, 3])``."""
    if len(args) == 1 and args[0]["op"] == "value" and isinstance(args[0]["value"], list):
        values = args[0]["value"]
    elif len(args) == 1 and args[0]["op"] == "tuple":
        values = [_Reader._number(item) for item in args[0]["items"]]
    else:
        values = [_Reader._number(a) for a in args]
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 4096 for v in values):
        raise Unreadable
    total = 1
    for v in values:
        total *= v
    if total > 1 << 22:
        raise Unreadable  # larger than a validation should allocate
    return [int(v) for v in values]
