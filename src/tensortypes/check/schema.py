"""Instance schemas: what attributes a checked class's instances have (layer 6: ``check``).

TorchScript's constructors rule: the schema of a class is what ``__init__``
assigns (the value each attribute has where ``__init__`` ends), plus dataclass
fields, class attributes, attributes ``register_buffer`` makes, and declared
attributes (``self.x: T = ...`` or ``x: T`` in the class body, whose type wins).
:class:`SchemaMixin` gives the walker that schema and attribute resolution on
instances: an attribute outside a complete schema is an ``attr`` error (see
``check.defs.ClassInfo.has_attr``).

Another method sees less than ``__init__`` left: an attribute reassigned outside
``__init__``, a list (which may grow) or one ``__init__`` set to None (filled in
later) keeps only its kind (:func:`widened`).
"""

from __future__ import annotations

import ast

from tensortypes.core.dims import Dim

from .host import CheckerHost
from .binding import Binder
from .defs import MODULE_ATTRS, ClassInfo, setup_calls
from .expr import Labels
from .frame import Frame, valid_guard
from .joins import element_of, join_values, strip_none
from .symbolic import (
    UNKNOWN,
    anonymized,
    Arr,
    BoolV,
    FloatV,
    InstV,
    IntV,
    LayerV,
    LibV,
    ListV,
    MethodV,
    NoneV,
    StrV,
    TupleV,
    UnionV,
    Value,
    field_size,
    inputs,
    is_field_size,
)

__all__ = ["SchemaMixin", "widened", "fields_forgotten"]


class SchemaMixin(CheckerHost):
    """Class schemas for the walker (needs ``check_function``, ``annotation_value``...)."""

    def ensure_schema(self, info) -> None:
        """Fill ``info.attrs``: bases' schemas, dataclass fields, then a walk of ``__init__``."""
        if info.ready:
            return
        if info.walker is not None and info.walker is not self:
            info.walker.ensure_schema(info)  # a class of another module: walked there
            return
        info.ready = True
        for base in self.base_infos(info):
            self.ensure_schema(base)
            info.attrs.update(base.attrs)
        for field in info.fields:
            info.attrs[field.target.id] = self.annotation_value(field.annotation)
        init = info.methods.get("__init__")
        if init is not None:
            self.check_function(init, building=info)
        self.build_by_setup(info)
        for name in info.assigned:
            if name not in info.attrs:
                info.attrs[name] = UNKNOWN

    def base_infos(self, info) -> list:
        """The checked classes ``info`` derives from directly, of this module or (through
        the project) of another: ``class StandardSAE(SAE[Config])`` with ``SAE`` imported."""
        if info.walker is not None and info.walker is not self:
            return info.walker.base_infos(info)  # its bases are named in its module
        found = []
        for base in info.bases:
            local = self.module.classes.get(base)
            cls = local if local is not None else self.foreign_class(base)
            if cls is not None and cls is not info:
                found.append(cls)
        return found

    def bound_instance(self, node):
        """What an attribute declared with a ``TypeVar`` that has a bound holds: an
        instance of the bound (``cfg: T_SAE_CONFIG`` with ``bound=SAEConfig``)."""
        owner = self.owner_of(node)
        bound = owner.typevars.get(node.id)
        if bound is None:
            return UNKNOWN
        self.owners.setdefault(id(bound), owner)
        value = self.annotation_value(bound)
        return value if type(value) is InstV else UNKNOWN

    def mro(self, info) -> list:
        """The checked classes of ``info``'s method resolution order (C3, as Python
        orders them: ``TensorConstant(TensorVariable, Constant)`` finds ``Constant``'s
        ``__init__`` before that of their common base); classes of libraries left out."""
        found = self.mros.get(id(info))
        if found is not None:
            return found
        self.mros[id(info)] = [info]  # a class among its own bases ends here
        seqs = [list(self.mro(b)) for b in self.base_infos(info)]
        seqs.append(list(self.base_infos(info)))
        order = [info]
        while any(seqs) and len(order) < 64:
            for seq in seqs:
                if seq and not any(seq[0] in other[1:] for other in seqs):
                    head = seq[0]
                    break
            else:  # no consistent order (Python would refuse the class): depth first
                order += [c for seq in seqs for c in seq if c not in order]
                break
            order.append(head)
            seqs = [[c for c in seq if c is not head] for seq in seqs]
        self.mros[id(info)] = order
        return order

    def nested_instance(self, info, name: str):
        """An instance of the class ``name`` nested in ``info`` or in a base of it (the
        subclass's first, as ``self.Config`` finds it): what ``cfg: Config`` in a class
        body declares (threestudio's ``@dataclass class Config`` inside each module);
        unknown when there is none."""
        todo: list = [info]
        seen: set = set()
        while todo and len(seen) < 32:
            cls = todo.pop(0)
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            for stmt in cls.node.body:
                if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                    return InstV(self._nested_info(cls, stmt))
            todo.extend(self.base_infos(cls))
        return UNKNOWN

    def _nested_info(self, outer, node):
        """The ``ClassInfo`` of class ``node`` nested in ``outer`` (made once)."""
        found = self.nested_classes.get(id(node))
        if found is None:
            walker = outer.walker if outer.walker is not None else None
            module = walker.module if walker is not None else self.module
            found = ClassInfo(node, module)
            found.walker = walker
            self.nested_classes[id(node)] = found
        return found

    def build_by_setup(self, info) -> None:
        """Walk, as part of the construction, the methods of ``info`` itself that an
        ``__init__`` of it or of a base calls on ``self`` (threestudio's
        ``BaseModule.__init__`` calls ``self.configure()``, which each subclass
        defines): what they assign and register is the instance's from then on, and
        an attribute no other method assigns is not mutated. A class is an
        ``nn.Module`` when a base of any module of the project is one."""
        names: list = []
        seen: set = set()
        todo = [info]
        has_init = False
        while todo and len(seen) < 32:
            cls = todo.pop()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            if cls.is_module:
                info.is_module = True  # an nn.Module through a base of another module
            init = cls.methods.get("__init__")
            if init is not None:
                has_init = True
                names += [n for n in setup_calls(init.node) if n not in names]
            todo.extend(self.base_infos(cls))
        if not has_init and info.walker in (None, self):
            # A mixin without ``__init__`` (threestudio's ``SingleImageDataBase``): the
            # methods of it that its subclasses' ``__init__`` (in its module) call on
            # ``self`` (``self.setup(cfg, split)``) build it.
            for other in list(self.module.classes.values())[:64]:
                init = other.methods.get("__init__")
                if other is not info and init is not None and info in self.base_infos(other):
                    names += [
                        n for n in setup_calls(init.node) if n in info.methods and n not in names
                    ]
        # a setup method's own setup calls build the instance too (threestudio's
        # ``configure`` calls ``self.prepare_embeddings(path)``), each after it
        for name in list(names):
            method = info.methods.get(name)
            if method is not None and name != "__init__":
                for inner in setup_calls(method.node):
                    if inner not in names and len(names) < 16:
                        names.append(inner)
        walked = [
            n
            for n in names
            if n != "__init__"
            and n in info.methods
            and (n in info.by_method or _passes_self(info.methods[n].node))
        ]
        for name in walked:
            # Quietly: the method's own check reports what is wrong in it.
            method = info.methods[name]
            frame = Frame(method, info)
            self.quiet += 1
            try:
                self.bind_params(method, frame)
                with inputs(frame.where):
                    end = self.exec_block(method.node.body, frame)
            finally:
                self.quiet -= 1
            if not end.terminated and method.params:
                self.settle_schema(info, method.params[0][0], end)
        info.built_by = frozenset(walked)
        if walked:
            info.mutated = {
                attr
                for method, attrs in info.by_method.items()
                if method not in walked
                for attr in attrs
            }

    def settle_schema(self, info, me: str, end: Frame) -> None:
        """Each attribute's value where ``__init__`` ends (not the join of all its values)."""
        prefix = me + "."
        for key, value in end.vars.items():
            if key.startswith(prefix) and key.count(".") == 1:
                info.attrs[key[len(prefix) :]] = anonymized(value)
            elif (
                key.startswith(prefix)
                and key.count(".") == 2
                and type(value) is not NoneV
                and not (type(value) is UnionV and any(type(v) is NoneV for v in value.items))
            ):
                info.chains.add(key[len(prefix) :])
        if not end.guards:
            return
        # A flag that __init__ stores unchanged (``self.use_bias = use_bias``) names the
        # same condition as the attribute in every method.
        stored = {}
        for key, value in end.vars.items():
            if key.startswith(prefix) and key.count(".") == 1:
                for name, held in end.vars.items():
                    if (
                        "." not in name
                        and held is value
                        and type(value) is not NoneV
                        and _assigned_from(info, key[len(prefix) :], name)
                    ):
                        stored[name] = key[len(prefix) :]
        for key in end.guards:
            if not (key.startswith(prefix) and key.count(".") == 1):
                continue
            conds = frozenset(
                (cond[len(prefix) :] if cond.startswith(prefix) else stored.get(cond), truth)
                for cond, truth in valid_guard(end, key)
            )
            conds = frozenset(c for c in conds if c[0] is not None and "." not in c[0])
            if conds:
                info.guards[key[len(prefix) :]] = conds

    def named_items(self, value, node, frame):
        """A named tuple's instance as the tuple of its fields' values (``a, b = pair``,
        ``pair[0]``); any other value as it is."""
        if type(value) is not InstV or not value.info.is_named_tuple:
            return value
        info = value.info
        positional, _ = info.init_fields(self.module if info.walker is None else info.walker.module)
        if positional is None:
            return value
        return TupleV(tuple(self.instance_attribute(value, n, node, frame) for n in positional))

    def instance_attribute(self, inst: InstV, attr: str, node, frame):
        """``inst.attr``: its declared type, its schema value, a method, or an ``attr`` error."""
        info = inst.info
        if info.walker is not None and info.walker is not self:
            # Another module's class: an Optional attribute is read as set, since what
            # makes it None (a flag of the call that built it) is out of sight here.
            return strip_none(info.walker.instance_attribute(inst, attr, node, frame))
        self.ensure_schema(info)
        declared = self.declared_attribute(info, attr)
        if declared is not None:
            value = self.annotation_value(declared)
            if value is UNKNOWN and type(declared) is ast.Name:
                value = self.bound_instance(declared)
            if value is UNKNOWN and type(declared) is ast.Name:
                value = self.nested_instance(info, declared.id)
            value = self.declared_refined(info, inst, attr, value)
            if value is not UNKNOWN:
                return self.env_value(inst, value)
        if attr in info.attrs:
            value = info.attrs[attr]
            if type(value) in (ListV, NoneV):
                value = widened(value)  # None in __init__: a value set later, elsewhere
            elif self.is_mutated(info, attr, type(value) is Arr):
                value = self.reassigned_value(info, attr, value)
            return self.came_in(inst, self.env_value(inst, value), frame)
        method = self.find_method(info, attr)
        if method is not None:
            if method.is_property:
                return self.call_function(method, [], {}, node, frame, Labels({}), inst, False)
            return MethodV(inst, attr)
        if attr in info.class_attrs:
            return self.eval(info.class_attrs[attr], Frame())
        if info.is_module and attr in MODULE_ATTRS:
            return BoolV() if attr == "training" else MethodV(inst, attr)
        known = info.has_attr(attr, self.module)
        if known is False:
            names = ", ".join(sorted(info.attrs)[:8])
            self.report(
                node,
                "attr",
                f"{info.name} has no attribute {attr!r}",
                [f"attributes set in __init__: {names}"] if names else [],
            )
        return UNKNOWN

    def came_in(self, inst: InstV, value, frame):
        """An attribute array of an instance that comes in (a parameter, a value of a
        ``dict[str, Components]``), read outside its class's methods: the sizes its
        ``__init__`` parameters name are that instance's, not known here, as a
        configuration's fields are (:func:`~.symbolic.field_size`): compared with
        each other and with sizes of their names, never with a constant (a test that
        built it with 3 rows)."""
        if (
            type(value) is not Arr
            or value.shape is None
            or inst.env
            or inst.made
            or frame is None
            or frame.func is None
        ):
            return value
        own = frame.func.cls
        if own is not None and (
            own is inst.info or inst.info in self.mro(own) or own in self.mro(inst.info)
        ):
            return value  # the instance a method is walked on: its own sizes
        names = self.init_names(inst.info)
        mapping = {}
        for d in value.shape:
            for name in d.free_symbols if type(d) is Dim else ():
                if name in names and name not in mapping:
                    found = field_size(name, inst.info.name, names)
                    if found is not None:
                        mapping[name] = found
        if not mapping:
            return value
        return value.with_(shape=Binder(mapping).substitute(value.shape))

    def reassigned_value(self, info, attr: str, value):
        """What a method sees of an attribute the construction made ``value`` and other
        methods assign again (``self.directions = self.directions_by_size[i]`` in an
        ``update_step``): for an array, its join with each value those methods assign,
        evaluated in the method with its own names unknown (a rank every assignment
        keeps stays known); for an attribute no construction sets (``value`` is
        UNKNOWN), the join of what the methods assign, arrays or library models; else,
        or when one of them is not such a value or not a plain ``self.x = ...``,
        :func:`widened`."""
        if info.walker is not None and info.walker is not self:
            return info.walker.reassigned_value(info, attr, value)
        if attr in info.reassigned:
            return info.reassigned[attr]
        unbuilt = value is UNKNOWN and self._unbuilt(info, attr)
        if not unbuilt and (type(value) is not Arr or value.shape is None):
            return widened(value)
        if _REASSIGNING[0] >= 4:
            return widened(value)  # attributes read through others' methods: bounded
        info.reassigned[attr] = widened(value)  # while its assignments are read
        _REASSIGNING[0] += 1
        try:
            joined = self._joined_assignments(info, attr, value)
        finally:
            _REASSIGNING[0] -= 1
        if (type(joined) is Arr and joined.shape is not None) or (unbuilt and type(joined) is LibV):
            info.reassigned[attr] = joined
        return info.reassigned[attr]

    def _unbuilt(self, info, attr: str) -> bool:
        """Whether no construction of ``info`` sets ``attr``: not its ``__init__``, nor
        a method walked as part of it, nor a base's construction (an attribute only a
        method sets: ``configure_text_encoder``'s ``self.text_encoder``)."""
        for name in ("__init__", *info.built_by):
            method = info.methods.get(name)
            if method is not None and _assignments(method, attr) != []:
                return False
        return not any(attr in base.attrs for base in self.base_infos(info))

    def _joined_assignments(self, info, attr: str, value):
        """``value`` joined with what each other method assigns to ``attr`` (what they
        assign, when ``value`` is UNKNOWN: no construction sets it); UNKNOWN when one of
        them does not assign it plainly, or assigns no array (nor library model)."""
        joined: Value | None = value.with_(origin=None) if type(value) is Arr else None
        for name, attrs in info.by_method.items():
            method = info.methods.get(name)
            if attr not in attrs or name in info.built_by or name == "__init__":
                continue
            found = _assignments(method, attr) if method is not None else None
            if not found:
                return UNKNOWN
            frame = Frame(method, info)
            for local in _local_names(method):
                frame.vars[local] = UNKNOWN
            frame.vars[method.params[0][0]] = InstV(info)
            self.quiet += 1
            try:
                for expr in found[:8]:
                    got = self.eval(expr, frame)
                    if not ((type(got) is Arr and got.shape is not None) or type(got) is LibV):
                        return UNKNOWN
                    joined = got if joined is None else join_values(joined, got)
            finally:
                self.quiet -= 1
        return UNKNOWN if joined is None else joined

    def is_mutated(self, info, attr: str, array: bool = False) -> bool:
        """Whether a method other than ``__init__`` (of ``info`` or a base) assigns
        ``attr``; for an ``array``, other than in place (``self.counts += x`` keeps
        the shape ``__init__`` gave it)."""
        if attr in info.mutated and not (array and attr in info.in_place):
            return True
        if info.walker is not None and info.walker is not self:
            return info.walker.is_mutated(info, attr, array)
        return any(self.is_mutated(base, attr, array) for base in self.base_infos(info))

    def declared_refined(self, info, inst: InstV, attr: str, value):
        """A declared attribute's value, made more precise by what it holds.

        - ``W_enc: nn.Parameter`` in the class body, and an array of a known shape
          assigned where the instance is built: the declared type of that shape.
        - ``d_in: int`` (or ``Optional[int]``): the size ``__init__`` stored there,
          else, on an instance that comes in (not one the checked code constructs),
          the size the field's name stands for (:func:`~.symbolic.field_size`); a
          constructed one's is the int its construction gave, when known.
        """
        held = info.attrs.get(attr)
        t = type(value)
        if t is Arr and value.shape is None:
            if (
                type(held) is Arr
                and held.shape is not None
                and not self.is_mutated(info, attr, array=True)
            ):
                return value.with_(shape=held.shape)  # the declared dtype stays
            return value
        if t is IntV and value.dim is None:
            return self._field_int(info, inst, attr, held)
        if t is UnionV and any(type(v) is IntV and v.dim is None for v in value.items):
            return UnionV(
                tuple(
                    self._field_int(info, inst, attr, held)
                    if type(v) is IntV and v.dim is None
                    else v
                    for v in value.items
                )
            )
        return value

    def _field_int(self, info, inst: InstV, attr: str, held):
        if type(held) is IntV and held.dim is not None and not self.is_mutated(info, attr):
            return held
        if inst.made:
            found = inst.env.get(attr)
            return IntV(found if type(found) is Dim else None)
        owner, siblings = self.int_fields(info, attr)
        return IntV(field_size(attr, owner, siblings))

    def int_fields(self, info, attr: str) -> tuple:
        """``(name of the class that declares attr, the int fields of info and its
        bases)``, for :func:`~.symbolic.field_size`."""
        key = (id(info), attr)
        found = self.field_tables.get(key)
        if found is not None:
            return found
        owner, names = None, set()
        todo, seen = [info], set[int]()
        while todo and len(seen) < 32:
            cls = todo.pop(0)
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            for name, node in cls.declared.items():
                value = self._declared_value(cls, node)
                if type(value) is IntV or (
                    type(value) is UnionV and any(type(v) is IntV for v in value.items)
                ):
                    names.add(name)
                    if name == attr and owner is None:
                        owner = cls.name
            todo.extend(self.base_infos(cls))
        found = (owner or info.name, frozenset(names))
        self.field_tables[key] = found
        return found

    def _declared_value(self, cls, node):
        return (cls.walker if cls.walker is not None else self).annotation_value(node)

    @staticmethod
    def env_value(inst: InstV, value):
        """An attribute's value with the instance's constructor sizes substituted; on an
        instance the checked code constructs, a size of a field left (``d_in`` of the
        configuration it was given) is not known here."""
        if inst.env and type(value) is Arr:
            value = value.with_(shape=Binder(inst.env).substitute(value.shape))
        elif inst.env and type(value) is LayerV:
            value = _layer_with(value, Binder(inst.env))
        if inst.made:
            return fields_forgotten(value)
        return value


def fields_forgotten(value):
    """``value`` with each size that involves a field's size (``field_size``) unknown."""
    t = type(value)
    if t is Arr and value.shape is not None and any(is_field_size(d) for d in value.shape):
        return value.with_(shape=tuple(None if is_field_size(d) else d for d in value.shape))
    if t is IntV and is_field_size(value.dim):
        return IntV()
    if t is TupleV:
        return TupleV(tuple(fields_forgotten(v) for v in value.items))
    return value


_REASSIGNING = [0]  # reassigned_value calls under way (one walks another's method)


def _assignments(method, attr: str):
    """The values a method assigns to ``self.<attr>`` (``self`` its first parameter), or
    None when it sets it otherwise too (a tuple target, ``setattr``, a nested function)."""
    if not method.params or method.is_static or "classmethod" in method.decorators:
        return None
    me = method.params[0][0]
    found = []
    for node in ast.walk(method.node):
        if node is not method.node and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        ):
            return None
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        for target in targets:
            for sub in ast.walk(target):
                if (
                    isinstance(sub, ast.Attribute)
                    and sub.attr == attr
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == me
                ):
                    if target is not sub or not isinstance(node, ast.Assign):
                        return None  # ``self.x += y``, ``self.x, y = ...``, ``self.x[i] = ...``
                    found.append(node.value)
    return found


def _local_names(method) -> set:
    """The parameters of a method and the names its body binds."""
    names = {p[0] for p in method.params}
    for node in ast.walk(method.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def widened(value):
    """What another method may see of an attribute that is reassigned or mutated.

    The kind stays (an int, a str, an array of its library and dtypes); what a
    reassignment may change goes (the size an int denotes, a shape, the items of
    a list or tuple). Anything else is unknown.
    """
    t = type(value)
    if t is Arr:
        return value.with_(shape=None, origin=None)
    if t is ListV:
        return ListV(None, element_of(value) if value.items is not None else value.elem)
    if t in (IntV, FloatV, BoolV, StrV):
        return t()
    if t is UnionV:
        items = tuple(widened(v) for v in value.items)
        return UNKNOWN if any(v is UNKNOWN for v in items) else UnionV(items)
    return UNKNOWN


def _assigned_from(info, attr: str, name: str) -> bool:
    """Whether ``__init__`` has ``self.attr = name`` (a flag stored as it was given)."""
    init = info.methods.get("__init__")
    if init is None:
        return False
    for node in ast.walk(init.node):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr == attr
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            return True
    return False


def _layer_with(layer, binder: Binder):
    """A layer built in ``__init__`` with the sizes of one construction substituted
    (``Block(8).fc`` is ``nn.Linear(8, 4)`` for ``nn.Linear(dim, 4)``)."""
    args = {}
    for name, v in layer.args.items():
        if type(v) is IntV and v.dim is not None:
            found = binder.substitute((v.dim,))
            v = IntV(found[0] if found and type(found[0]) is Dim else None)
        elif type(v) is LayerV:
            v = _layer_with(v, binder)
        elif type(v) in (ListV, TupleV) and v.items is not None:
            items = tuple(_layer_with(i, binder) if type(i) is LayerV else i for i in v.items)
            v = TupleV(items) if type(v) is TupleV else ListV(items, v.elem, v.kind)
        args[name] = v
    return LayerV(layer.rule, args, layer.site, layer.dtype)


def _passes_self(node) -> bool:
    """Whether a method gives ``self`` to a call (``_init_weights_standard(self)``),
    which may assign its attributes."""
    me = node.args.args[0].arg if node.args.args else None
    return me is not None and any(
        isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == me for a in n.args)
        for n in ast.walk(node)
    )
