"""Walks the statements of a function body in order, tracking local tensors and
recording every event that touches an attribute of `self`."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, replace

from codemod import torch_names as tn
from codemod.tensors import (
    NON_TENSOR,
    NONE,
    UNKNOWN,
    Evaluator,
    Kind,
    Value,
    combine_state,
    dotted_path,
    is_built_module,
    is_false,
    merge_branches,
    target_names,
)


def tested_tensor(test: ast.expr, evaluator: Evaluator) -> tuple[str | None, bool, bool]:
    """The local name a condition proves a tensor, whether in its body (True) or its else
    branch (False), and whether an nn.Parameter passes the test too: `type(x) == torch.Tensor`
    (`is`) excludes one, `isinstance(x, torch.Tensor)` and `torch.is_tensor(x)` do not; their
    negations (`not ...`, `!=`, `is not`) prove it in the else branch.  The name is None when
    the condition proves nothing."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        name, in_body, parameter = tested_tensor(test.operand, evaluator)
        return name, not in_body, parameter
    if isinstance(test, ast.Call) and test.args and isinstance(test.args[0], ast.Name):
        called = evaluator.qualify(test.func)
        if called == "isinstance" and len(test.args) == 2:
            types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
            if types and all(evaluator.qualify(t) in tn.TENSOR_ANNOTATIONS for t in types):
                return test.args[0].id, True, True
        if called == "torch.is_tensor" and len(test.args) == 1:
            return test.args[0].id, True, True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Call):
        call, op, other = test.left, test.ops[0], test.comparators[0]
        if (isinstance(call.func, ast.Name) and call.func.id == "type" and len(call.args) == 1
                and isinstance(call.args[0], ast.Name) and evaluator.qualify(other) in tn.TENSOR_ANNOTATIONS):
            if isinstance(op, (ast.Eq, ast.Is)):
                return call.args[0].id, True, False
            if isinstance(op, (ast.NotEq, ast.IsNot)):
                return call.args[0].id, False, False
    return None, True, False


@dataclass
class AttrEvent:
    """Something a statement does to `self.<attr>`."""

    attr: str
    kind: str  # assign | register_buffer | registered | setattr | mutate | requires_grad | delete | unpack | fill
    stmt: ast.stmt  # the small statement
    value: Value | None
    value_node: ast.expr | None
    top_index: int  # index of the enclosing top-level statement of the body
    nested: bool  # inside an if/for/with/try
    annotation: ast.expr | None = None
    env: dict | None = None  # the local variables when the statement ran (for reading its value later)
    # `self.a, self.b = value`: the events of every target of the statement bound to self, in
    # order (this one among them), and whether the target is a flat tuple the rewrite can
    # split (no starred or nested target holding an attribute of self)
    unpacked: list[AttrEvent] | None = None
    flat_unpacking: bool = True
    # run by a torch.nn base's constructor (`reset_parameters` inside `super().__init__()`),
    # after nn.Module.__init__: register_buffer works there
    in_base_init: bool = False


class BodyWalker:
    def __init__(self, evaluator: Evaluator):
        self.ev = evaluator
        self.events: list[AttrEvent] = []
        self.returns: list[Value] = []
        self.super_index: int | None = None  # top-level index of super().__init__()
        self.super_nested = False
        self._top = 0
        self._nested = False
        self._containers: set[str] = set()  # self.<attr> last bound to a list / dict / set display
        self._local_containers: set[str] = set()  # locals last bound to one (`tmp = []` ... `tmp.append(t)`)
        # self.<attr> that a method of the class hands whole to torch.cat / torch.stack, which
        # take only tensors: what is appended to it is a tensor however its value is typed here
        self.concatenated: set[str] = set()

    @property
    def containers(self) -> set[str]:
        """Attributes of self last bound to a list / dict / set display."""
        return self._containers

    def walk(self, body: list[ast.stmt]) -> None:
        for index, stmt in enumerate(body):
            self._top, self._nested = index, False
            self._stmt(stmt)

    def _loop_targets(self, target: ast.expr, iterated: ast.expr) -> dict[str, Value]:
        """name -> value for a `for` loop's targets: `for k, l in zip(kernels, led_kernels)` binds
        a row of each, `for i, x in enumerate(xs)` a number and an item; a sequence of tensors
        binds tensors to every name, as before."""
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and not iterated.keywords \
                and iterated.func.id in ("zip", "enumerate") and iterated.func.id not in self.ev.env \
                and isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(a, ast.Starred) for a in iterated.args):
            pairs = []
            if iterated.func.id == "zip" and len(target.elts) == len(iterated.args):
                pairs = list(zip(target.elts, iterated.args))
            elif iterated.func.id == "enumerate" and len(target.elts) == 2 and iterated.args:
                pairs = [(target.elts[0], None), (target.elts[1], iterated.args[0])]
            if pairs:
                found: dict[str, Value] = {}
                for element, argument in pairs:
                    row = _row_of(self.ev.eval(argument)) if argument is not None else UNKNOWN
                    for name in target_names(element):
                        found[name] = row if isinstance(element, ast.Name) else UNKNOWN
                return found
        value = self.ev.eval(iterated)
        row = _row_of(value) if isinstance(target, ast.Name) or value.kind is Kind.SEQUENCE else UNKNOWN
        return {name: row for name in target_names(target)}

    def _block(self, body: list[ast.stmt]) -> None:
        saved = self._nested
        self._nested = True
        for stmt in body:
            self._stmt(stmt)
        self._nested = saved

    def _narrowed_block(self, body: list[ast.stmt], name: str | None, parameter: bool) -> None:
        """A branch that a type test proves `name` a tensor in (`if isinstance(w, torch.Tensor):`,
        the else of `if type(w) != torch.Tensor:`): the name holds data passed in there, which
        may be an nn.Parameter unless the test excludes one (it then must stay a parameter)."""
        previous = self.ev.env.get(name) if name is not None else None
        if name is None or previous is None or previous.is_tensor:
            self._block(body)
            return
        narrowed = Value(Kind.TENSOR, previous.stateful or "data passed in (a tensor, by the type test)", maybe_parameter=parameter)
        self.ev.env[name] = narrowed
        self._block(body)
        if self.ev.env.get(name) is narrowed:
            self.ev.env[name] = previous

    def _event(self, attr: str, kind: str, stmt: ast.stmt, value: Value | None = None, node: ast.expr | None = None, annotation: ast.expr | None = None) -> AttrEvent:
        env = dict(self.ev.env) if node is not None else None
        event = AttrEvent(attr, kind, stmt, value, node, self._top, self._nested, annotation, env)
        self.events.append(event)
        if kind == "register_buffer" and value is not None and not (value.is_tensor or value.kind is Kind.NONE):
            # register_buffer raises TypeError for anything but a tensor or None: from here on the
            # attribute holds a tensor (`self.register_buffer("aabb", aabb)`, then `1.0 / self.aabb`)
            self.ev.self_attrs[attr] = Value(Kind.TENSOR, "data passed in (registered buffer)")
        elif kind in ("assign", "register_buffer", "fill") and value is not None:
            self.ev.self_attrs[attr] = value
        elif kind == "registered":
            self.ev.self_attrs[attr] = NON_TENSOR
        return event

    # -- statements ----------------------------------------------------------------------------

    def _stmt(self, stmt: ast.stmt) -> None:
        self._nested_requires_grad(stmt)
        if isinstance(stmt, ast.Assign):
            value = self.ev.eval(stmt.value)
            multi = len(stmt.targets) > 1
            for target in stmt.targets:
                self._assign(stmt, target, value, stmt.value, multi=multi)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                return
            value = self.ev.eval(stmt.value)
            self._assign(stmt, stmt.target, value, stmt.value, annotation=stmt.annotation)
        elif isinstance(stmt, ast.AugAssign):
            self._augassign(stmt)
        elif isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Call):
                self._call_statement(stmt, stmt.value)
            else:
                self.ev.eval(stmt.value)
        elif isinstance(stmt, ast.Return):
            self.returns.append(self.ev.eval(stmt.value) if stmt.value is not None else Value(Kind.NONE))
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                attr = self.ev.self_attr(target)
                if attr is not None:
                    self._event(attr, "delete", stmt)
                elif isinstance(target, ast.Name):
                    self.ev.env.pop(target.id, None)
        elif isinstance(stmt, ast.If):
            self.ev.eval(stmt.test)
            name, in_body, parameter = tested_tensor(stmt.test, self.ev)
            self._narrowed_block(stmt.body, name if in_body else None, parameter)
            self._narrowed_block(stmt.orelse, name if not in_body else None, parameter)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            for name, value in self._loop_targets(stmt.target, stmt.iter).items():
                self.ev.env[name] = value
            self._block(stmt.body)
            self._block(stmt.orelse)
        elif isinstance(stmt, ast.While):
            self._block(stmt.body)
            self._block(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in target_names(item.optional_vars):
                        self.ev.env[name] = UNKNOWN
            self._block(stmt.body)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self._block(stmt.body)
            for handler in stmt.handlers:
                if handler.name:
                    self.ev.env[handler.name] = UNKNOWN
                self._block(handler.body)
            self._block(stmt.orelse)
            self._block(stmt.finalbody)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                self._block(case.body)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.decorator_list:
            self.ev.env[stmt.name] = Value(Kind.NON_TENSOR, function=stmt)  # a local helper: calls are typed from its body
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.ev.env[stmt.name] = UNKNOWN
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                name = alias.asname or alias.name.partition(".")[0]
                self.ev.env.pop(name, None)  # the evaluator's import table already knows it

    def _nested_requires_grad(self, stmt: ast.stmt) -> None:
        """`self.x.requires_grad_()` inside an expression (`self.params = [self.E.requires_grad_(),
        ...]`): the tensor is made trainable as surely as by a statement of its own."""
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Return)) else (
            stmt.value if isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Call) else None)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            value = ast.Tuple([*stmt.value.args, *(k.value for k in stmt.value.keywords)])  # the call itself is _call_statement's
        if value is None:
            return
        todo: list[ast.AST] = [value]
        while todo:
            node = todo.pop()
            if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue  # run later, if ever
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_" \
                    and not (node.args and is_false(node.args[0])):
                attr = self.ev.self_attr(node.func.value)
                if attr is not None:
                    self._event(attr, "requires_grad", stmt)
            todo.extend(ast.iter_child_nodes(node))

    def _assign(self, stmt: ast.stmt, target: ast.expr, value: Value, value_node: ast.expr, *, multi: bool = False, annotation: ast.expr | None = None) -> None:
        attr = self.ev.self_attr(target)
        if attr is not None:
            self._event(attr, "unpack" if multi else "assign", stmt, value, value_node, annotation)
            if _is_container_display(value_node):
                self._containers.add(attr)
            else:
                self._containers.discard(attr)
            return
        if isinstance(target, ast.Name):
            previous = self.ev.env.get(target.id)
            if self._nested and previous is not None and is_built_module(previous) and is_built_module(value):
                # `net = ResnetGenerator(...)` under one if, `net = UnetGenerator(...)` under its
                # elif: after them the name holds one of the two, which the arms' merge says
                value = merge_branches(previous, value)
            self.ev.env[target.id] = value
            _forget_paths(self.ev.env, target.id)
            if _is_container_display(value_node):
                self._local_containers.add(target.id)
            else:
                self._local_containers.discard(target.id)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            group: list[AttrEvent] = []
            flat = self._unpack(stmt, target, value, value_node, group, multi)
            for event in group:
                event.unpacked, event.flat_unpacking = group, flat
            return
        if isinstance(target, ast.Subscript):
            if isinstance(target.value, ast.Name) and target.value.id in self._local_containers and (value.is_tensor or value.kind is Kind.SEQUENCE):
                self.ev.env[target.value.id] = Value(Kind.SEQUENCE, value.stateful)  # tables[k] = t
                return
            container = self.ev.self_attr(target.value)
            if container in self._containers and (value.is_tensor or value.kind is Kind.SEQUENCE):
                self._event(container, "fill", stmt, Value(Kind.SEQUENCE, value.stateful), None)  # self.d[k] = t
                return
            self._mutate(stmt, target.value, value)
            return
        if isinstance(target, ast.Attribute):
            # self.x.requires_grad = True / self.x.data = ...
            attr = self.ev.self_attr(target.value)
            if attr is not None:
                if target.attr == "requires_grad":
                    if not is_false(value_node):
                        self._event(attr, "requires_grad", stmt, value, value_node)
                else:
                    self._event(attr, "mutate", stmt, value, value_node)
            elif isinstance(target.value, ast.Name) and target.value.id in self.ev.env and target.attr == "requires_grad":
                local = self.ev.env[target.value.id]
                if local.is_tensor and not is_false(value_node):
                    self.ev.env[target.value.id] = replace(local, requires_grad=".requires_grad = True")
            else:
                path = dotted_path(target)
                if path is not None and not path.startswith(f"{self.ev.self_name}."):
                    # `args.gso = torch.tensor(...)`: read back as `args.gso` (Evaluator._eval_Attribute)
                    _forget_paths(self.ev.env, path)
                    self.ev.env[path] = value

    def _unpack(self, stmt: ast.stmt, target: ast.Tuple | ast.List, value: Value, value_node: ast.expr | None, group: list[AttrEvent], multi: bool, nested: bool = False) -> bool:
        """`self.a, self.b = value`: each target gets the value of its item.  An attribute of
        self is bound ("assign"; "unpack" in a chained assignment, which binds one value to
        several names).  Returns whether every attribute of self is a direct item of a flat
        target (no starred or nested target holds one)."""
        elements = target.elts
        starred = next((i for i, e in enumerate(elements) if isinstance(e, ast.Starred)), None)
        parts: list[Value] | None = None
        if starred is None:
            parts = value.unpacked(len(elements))
        elif value.elements is None:
            items = value.unpacked(1)  # `head, *rest = t.unbind(0)`: every item alike
            parts = items * len(elements) if items is not None and not value.integer_items else None
        nodes = None
        if isinstance(value_node, (ast.Tuple, ast.List)) and starred is None and len(value_node.elts) == len(elements):
            if not any(isinstance(e, ast.Starred) for e in value_node.elts):
                nodes = value_node.elts
        flat = True
        for i, element in enumerate(elements):
            part = parts[i] if parts is not None else UNKNOWN
            node = nodes[i] if nodes is not None else None
            if part.kind is Kind.UNKNOWN and isinstance(node, ast.Constant) and node.value is None:
                part = NONE  # `self.a, self.b = None, None`: each item is None
            if isinstance(element, ast.Starred):
                element, node = element.value, None
                # a starred target takes a list of the remaining items
                items = value.unpacked(1)
                part = Value(Kind.SEQUENCE, value.stateful) if items is not None and items[0].is_tensor else UNKNOWN
                if self.ev.self_attr(element) is not None:
                    flat = False
            attr = self.ev.self_attr(element)
            if attr is not None:
                if nested:
                    flat = False
                group.append(self._event(attr, "unpack" if multi else "assign", stmt, part, node))
                # `self.H, self.C = [], []`: each is a list display, filled like `self.H = []`
                if node is not None and _is_container_display(node):
                    self._containers.add(attr)
                else:
                    self._containers.discard(attr)
            elif isinstance(element, ast.Name):
                self.ev.env[element.id] = part
                # `shift, scale = [], []`: each a list display the code fills, as `shift = []`
                if node is not None and _is_container_display(node):
                    self._local_containers.add(element.id)
                else:
                    self._local_containers.discard(element.id)
            elif isinstance(element, (ast.Tuple, ast.List)):
                flat = self._unpack(stmt, element, part, node, group, multi, nested=True) and flat
        return flat

    def _mutate(self, stmt: ast.stmt, receiver: ast.expr, value: Value, overwrite: bool = False) -> None:
        """An in-place change of a local tensor or of self.<attr>.

        `overwrite`: the whole tensor is replaced (fill_, zero_, nn.init.*), so its new
        state is the value's; otherwise (an indexed write) the old state is kept.
        """
        while True:
            if self.ev.self_attr(receiver) is not None:
                break
            if isinstance(receiver, ast.Subscript) or (isinstance(receiver, ast.Attribute) and receiver.attr == "data"):
                receiver = receiver.value
            elif (
                isinstance(receiver, ast.Call)
                and isinstance(receiver.func, ast.Attribute)
                and receiver.func.attr.endswith("_")
                and not receiver.func.attr.startswith("_")
            ):
                receiver = receiver.func.value  # x.mul_(a).add_(b): in-place calls return x itself
            else:
                break
        attr = self.ev.self_attr(receiver)
        if attr is not None:
            self._event(attr, "mutate", stmt, value, None)
            return
        if isinstance(receiver, ast.Name) and receiver.id in self.ev.env:
            local = self.ev.env[receiver.id]
            if local.is_tensor:
                if overwrite:
                    state = value.stateful
                else:
                    state = local.stateful or combine_state(value)
                    if value.kind is Kind.UNKNOWN and not local.stateful:
                        state = None  # an index or scalar we cannot type does not make the tensor stateful
                self.ev.env[receiver.id] = replace(local, stateful=state)

    def _augassign(self, stmt: ast.AugAssign) -> None:
        value = self.ev.eval(stmt.value)
        attr = self.ev.self_attr(stmt.target)
        if attr is not None:
            self._event(attr, "mutate", stmt, value, stmt.value)
            return
        if isinstance(stmt.target, ast.Name) and stmt.target.id in self.ev.env:
            local = self.ev.env[stmt.target.id]
            if local.is_tensor:
                self.ev.env[stmt.target.id] = replace(local, stateful=local.stateful or combine_state(value))
            elif value.is_tensor:
                self.ev.env[stmt.target.id] = Value(Kind.TENSOR, value.stateful, None, value.integer, integer_guessed=value.integer_guessed)
        elif isinstance(stmt.target, ast.Subscript):
            self._mutate(stmt, stmt.target.value, value)

    def _call_statement(self, stmt: ast.Expr, call: ast.Call) -> None:
        func = call.func
        if self._is_super_init(call):
            if self.super_index is None:
                self.super_index = self._top
                self.super_nested = self._nested
            if self.ev.on_call is not None:
                self.ev.on_call(call, self.ev)  # call_sites: a subclass handing arguments to its base
            return
        if isinstance(func, ast.Attribute) and self.ev.is_self(func.value):
            name = _constant_string(call.args[0]) if call.args else None
            if func.attr == "register_buffer" and name is not None:
                value_node = call.args[1] if len(call.args) > 1 else _keyword(call, "tensor")
                value = self.ev.eval(value_node) if value_node is not None else UNKNOWN
                self._event(name, "register_buffer", stmt, value, value_node)
                return
            if func.attr in ("register_parameter", "add_module", "register_module") and name is not None:
                # register_parameter(name, None) keeps its value: None there declares an absent parameter.
                value = None
                if func.attr == "register_parameter" and len(call.args) > 1:
                    value = self.ev.eval(call.args[1])
                self._event(name, "registered", stmt, value)
                return
        if isinstance(func, ast.Name) and func.id == "setattr" and len(call.args) >= 3 and self.ev.is_self(call.args[0]):
            name = _constant_string(call.args[1]) or "<dynamic name>"
            self._event(name, "setattr", stmt, self.ev.eval(call.args[2]), call.args[2])
            return
        if isinstance(func, ast.Attribute) and func.attr in _FILLING_METHODS and isinstance(func.value, ast.Name) and func.value.id in self._local_containers:
            # tmp.append(t) on a local list: a list of tensors, whatever it is bound to next
            values = [self.ev.eval(a) for a in [*call.args, *(k.value for k in call.keywords)]]
            if any(v.is_tensor or v.kind is Kind.SEQUENCE for v in values):
                self.ev.env[func.value.id] = Value(Kind.SEQUENCE, combine_state(*values))
                return
        # `self.saved[g].append(t)`: an inner list of a list of lists the attribute holds
        filled = func.value.value if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript) else \
            func.value if isinstance(func, ast.Attribute) else None
        container = self.ev.self_attr(filled) if filled is not None else None
        if isinstance(func, ast.Attribute) and func.attr in _FILLING_METHODS and container in self._containers:
            # self.kernels.append(t), self.tables.update(...): tensors put in a list or dict attribute;
            # also parameters made there (`self.ws.append(nn.Parameter(...))`), which a plain list
            # hides from model.parameters() (not the module's own, `self.ws.append(self.weight)`)
            arguments = [*call.args, *(k.value for k in call.keywords)]
            values = [self.ev.eval(a) for a in arguments]
            concatenated = container in self.concatenated and func.attr in ("append", "extend") and all(
                v.kind is Kind.UNKNOWN for v in values)
            made_parameters = any(v.kind is Kind.PARAMETER and isinstance(a, ast.Call) for a, v in zip(arguments, values))
            if concatenated or made_parameters or any(v.is_tensor or v.kind is Kind.SEQUENCE for v in values):
                self._event(container, "fill", stmt, Value(Kind.SEQUENCE, combine_state(*values)), None)
                return
        if isinstance(func, ast.Attribute):
            qualname = self.ev.qualify(func)
            if qualname is not None and tn.classify_call(qualname) is tn.CallKind.INIT and call.args:
                name = qualname.rpartition(".")[2]
                state = f"random initialisation (nn.init.{name})" if tn.init_is_random(name) else None
                self._mutate(stmt, call.args[0], Value(Kind.TENSOR, state), overwrite=True)
                return
            # In-place tensor methods: x.uniform_(), self.x.requires_grad_(), x.copy_(y), ...
            method = func.attr
            receiver = func.value
            attr = self.ev.self_attr(receiver)
            if method == "requires_grad_" and not (call.args and is_false(call.args[0])):
                if attr is not None:
                    self._event(attr, "requires_grad", stmt)
                    return
                if isinstance(receiver, ast.Name) and receiver.id in self.ev.env and self.ev.env[receiver.id].is_tensor:
                    self.ev.env[receiver.id] = replace(self.ev.env[receiver.id], requires_grad=".requires_grad_()")
                    return
            if method.endswith("_") and not method.startswith("_"):
                if method in tn.RANDOM_INPLACE_METHODS:
                    value = Value(Kind.TENSOR, f"random initialisation (.{method}())")
                else:
                    values = [self.ev.eval(a) for a in call.args]
                    value = Value(Kind.TENSOR, _args_state(values, call))
                overwrite = method in tn.RANDOM_INPLACE_METHODS or method in tn.OVERWRITING_METHODS
                self._mutate(stmt, receiver, value, overwrite=overwrite)
                return
        # A call made for its effect (`self.post_init()`, `print(...)`): its value is unused,
        # so only its arguments are read (they may bind names with `:=`).
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            self.ev.eval(argument)

    def _is_super_init(self, call: ast.Call) -> bool:
        return is_base_init(call, self.ev.is_self)


def is_base_init(call: ast.Call, is_self: Callable[[ast.expr], bool]) -> bool:
    """`super().__init__(...)`, `super(Cls, self).__init__(...)`, or `Base.__init__(self, ...)`
    (`nn.Module.__init__(self)`), `is_self` telling the instance."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
        return False
    owner = func.value
    if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
        return True
    return bool(call.args) and is_self(call.args[0])


def _args_state(values: list[Value], call: ast.Call) -> str | None:
    """The state an in-place call brings in: that of its tensor arguments."""
    state = combine_state(*values)
    if state is None and any(v.kind is Kind.UNKNOWN for v in values) and any(
        isinstance(a, (ast.Name, ast.Attribute)) for a in call.args
    ):
        # x.copy_(data): data we cannot type is data passed in.
        if isinstance(call.func, ast.Attribute) and call.func.attr == "copy_":
            return "data passed in (.copy_())"
    return state


_FILLING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
_CONTAINER_CALLS = frozenset({"list", "dict", "set", "tuple", "OrderedDict", "defaultdict"})


def _is_container_display(node: ast.expr | None) -> bool:
    """`[]`, `{}`, `[...]`, a comprehension, `list()`, `dict()`, `OrderedDict()`: a plain Python
    container (nn.ModuleList / nn.ParameterList register what they hold, so they are not)."""
    if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        return name in _CONTAINER_CALLS
    return False


def _forget_paths(env: dict, name: str) -> None:
    """`args = ...` or `args.model = ...`: what was known of `args.<...>` is gone."""
    prefix = name + "."
    for key in [k for k in env if k.startswith(prefix)]:
        del env[key]


def _constant_string(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _row_of(iterated: Value) -> Value:
    """What a loop over a value binds: a row of a tensor (`for kernel in kernels`), an item of a
    sequence of tensors; UNKNOWN for anything else."""
    if iterated.kind is Kind.TENSOR and not iterated.is_guess:
        return Value(Kind.TENSOR, iterated.stateful, None, iterated.integer, integer_guessed=iterated.integer_guessed)
    if iterated.kind is Kind.SEQUENCE:
        elements = iterated.elements or ((iterated.items,) if iterated.items is not None else ())
        if elements and all(e.kind is Kind.PARAMETER for e in elements):
            return elements[0]  # `for name, p in zip(names, (w_ih, w_hh))`: parameters, not plain tensors
        if elements and not all(e.is_tensor for e in elements):
            return UNKNOWN
        return Value(Kind.TENSOR, iterated.stateful)
    if iterated.kind is Kind.NON_TENSOR and iterated.module is not None \
            and iterated.module.rpartition(".")[2] in ("ModuleList", "Sequential"):
        # `for layer in self.layers`: one layer of the container, whichever; calling it gives
        # what a module returns, a tensor by a guess fit for reports (as `self.layers[i](x)`)
        return Value(Kind.NON_TENSOR, module=tn.SOME_REPOSITORY_MODULE)
    return UNKNOWN

