"""Recording what a program's functions were called with (layer 7: ``annotator``).

:class:`Tracer` watches a run and records, for each function of the included
code, the kind, dtype and shape of every array argument and return value, and
the type (and small int value) of the other arguments. Records go to a SQLite
file (:class:`TraceStore`), one row per recorded call, as MonkeyType keeps its
traces.

Low overhead by design:

- Python 3.12+: ``sys.monitoring`` ``PY_START``/``PY_RETURN`` events, turned off
  (``DISABLE``) for every code object that is not included or has reached its cap,
  so a hot library function costs one callback in the whole run;
- Python 3.11: ``sys.settrace`` with a per-code-object cache: code that is not
  included gets no local trace function (no line or return events), and the
  frames that are traced have their line events switched off;
- at most ``cap`` calls are recorded per function, and only calls that differ from
  the ones recorded (a test suite calls a layer over and over with one shape; the
  variety is what the inference needs); at most ``cap * 4`` calls are looked at
  in full, then the function is sampled sparsely (:meth:`Tracer._sparse`): a call
  whose arguments are of types no looked-at call had is always looked at (a module
  passed where arrays were), the others at gaps that double up to ``cap * 4`` calls,
  so a late unusual call is still seen while a hot function costs a few dict
  operations per call; and
  arguments are described at once (kind, dtype, shape): no value is kept alive.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import weakref
from pathlib import Path

from tensortypes.core.arrays import array_info

__all__ = ["Tracer", "TraceStore", "describe", "DEFAULT_CAP", "DEFAULT_TRACE"]

DEFAULT_CAP = 64
DEFAULT_TRACE = "tensortypes-trace.sqlite3"
_GENERATOR_FLAGS = 0x20 | 0x100 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR
_MAX_SELF_ATTRS = 48
_MAX_TUPLE = 8
_LOOK = 4  # calls looked at per recorded call of the cap
_SPARSE_ROWS = _LOOK  # past the cap, rows recorded up to this many times the cap


def describe(value, nested: bool = False) -> dict:
    """A JSON-ready description of one value: an array's kind, dtype and shape, or a type.

    A plain tuple of at most ``_MAX_TUPLE`` items (``return logits, loss``) is described
    item by item, one level deep.

    >>> import numpy as np
    >>> describe(np.zeros((2, 3), np.float32))
    {'k': 'array', 'lib': 'numpy', 'dtype': 'float32', 'shape': [2, 3]}
    >>> describe(3), describe(None)
    ({'k': 'int', 'v': 3}, {'k': 'none'})
    >>> describe((np.zeros(2, np.int64), None))["items"][1]
    {'k': 'none'}
    """
    if type(value) is tuple and not nested and 0 < len(value) <= _MAX_TUPLE:
        return {"k": "tuple", "items": [describe(item, True) for item in value]}
    try:
        info = array_info(value)
    except Exception:  # noqa: BLE001 (a hostile value: record its type only)
        info = None
    if info is not None:
        kind, dtype, shape = info
        if all(type(d) is int for d in shape):
            return {"k": "array", "lib": kind, "dtype": str(dtype), "shape": list(shape)}
        return {"k": "type", "name": type(value).__qualname__}
    cls = type(value)
    if value is None:
        return {"k": "none"}
    if cls is bool:
        return {"k": "bool"}
    if cls is int:
        return {"k": "int", "v": value if -(1 << 53) < value < (1 << 53) else None}
    if cls in (float, str, bytes, complex):
        return {"k": cls.__name__}
    return {"k": "type", "name": f"{cls.__module__}.{cls.__qualname__}"}


def _self_ints(obj) -> dict:
    """The int attributes of ``self`` (a layer's sizes: ``self.d_model``), for naming."""
    try:
        items = vars(obj)
    except TypeError:
        return {}
    found = {}
    for name, value in list(items.items())[:256]:
        if type(value) is int and not name.startswith("__"):
            found[name] = value
            if len(found) >= _MAX_SELF_ATTRS:
                break
    return found


class TraceStore:
    """The SQLite trace file: one row per recorded call.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.sqlite3")
    >>> store = TraceStore(path)
    >>> store.add([("m", "f", "/m.py", 1, {"x": {"k": "int", "v": 2}}, {"k": "none"}, {})])
    >>> [row[1] for row in store.calls()]
    ['f']
    """

    def __init__(self, path) -> None:
        self.path = str(path)
        with sqlite3.connect(self.path) as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS calls (module TEXT, qualname TEXT, "
                "filename TEXT, lineno INTEGER, args TEXT, ret TEXT, self_ints TEXT)"
            )

    def add(self, rows) -> None:
        with sqlite3.connect(self.path) as db:
            db.executemany(
                "INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (m, q, f, n, json.dumps(a), json.dumps(r), json.dumps(s))
                    for m, q, f, n, a, r, s in rows
                ],
            )

    def calls(self):
        """Every recorded call: ``(module, qualname, filename, lineno, args, ret, self_ints)``."""
        with sqlite3.connect(self.path) as db:
            for m, q, f, n, a, r, s in db.execute("SELECT * FROM calls ORDER BY rowid"):
                yield m, q, f, n, json.loads(a), json.loads(r), json.loads(s)


class Tracer:
    """Record the calls of the included functions while it is active (``with Tracer(...):``).

    ``include``: module names or path prefixes whose functions are recorded (a
    module is included when its name is one of them or starts with one of them
    plus a dot; a file when its path is under one of the paths). ``cap``: calls
    recorded per function.
    """

    def __init__(self, include=(), cap: int = DEFAULT_CAP, root: str | None = None) -> None:
        self.modules = tuple(m for m in include if os.sep not in m and not m.endswith(".py"))
        self.paths = tuple(
            os.path.abspath(p)
            for p in include
            if os.sep in p or p.endswith(".py") or os.path.isdir(p)
        )
        self.root = os.path.abspath(root or os.getcwd())
        self.cap = cap
        self.rows: list = []
        self.counts: dict = {}  # code -> calls recorded
        self.examined: dict = {}  # code -> calls looked at
        self.limit = cap * _LOOK
        self.signatures: dict = {}  # code -> the recorded calls' descriptions
        self.kinds: dict = {}  # code -> the argument types of the looked-at calls
        self.sparse: dict = {}  # code -> [calls past the cap, next look, gap]
        self.names: dict = {}  # code -> its parameter names
        self.wanted: dict = {}
        self.init_ints: dict = {}  # id(object) -> (weak reference or None, its ints)
        self.lock = threading.Lock()
        self._ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self._tool = None

    # -- which code is recorded ------------------------------------------------------------
    def included(self, code, module: str | None) -> bool:
        if code.co_flags & _GENERATOR_FLAGS or code.co_name.startswith("<"):
            return False
        filename = code.co_filename
        if not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        if path.startswith(self._ours + os.sep):
            return False
        if self.modules and module is not None:
            if any(module == m or module.startswith(m + ".") for m in self.modules):
                return True
        if self.paths:
            return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in self.paths)
        if self.modules:
            return False
        # Default: code under the working directory that is no installed package.
        parts = path.split(os.sep)
        return (
            path.startswith(self.root + os.sep)
            and "site-packages" not in parts
            and not any(p.startswith(".") for p in parts)
            and "dist-packages" not in parts
        )

    def _wanted(self, frame) -> bool:
        """Whether this call is looked at (an included function, under its cap or sampled)."""
        code = frame.f_code
        state = self.wanted.get(code)
        if state is None:
            state = self.included(code, frame.f_globals.get("__name__"))
            self.wanted[code] = state
        if not state:
            return False
        if self.counts.get(code, 0) < self.cap and self.examined.get(code, 0) < self.limit:
            return True
        return self._sparse(frame, code)

    def _arg_names(self, code) -> list:
        names = self.names.get(code)
        if names is None:
            n = code.co_argcount + code.co_kwonlyargcount
            names = list(code.co_varnames[:n])
            if code.co_flags & 0x04:  # *args
                names.append(code.co_varnames[n])
                n += 1
            if code.co_flags & 0x08:  # **kwargs
                names.append(code.co_varnames[n])
            self.names[code] = names
        return names

    def _sparse(self, frame, code) -> bool:
        """Past a function's cap: whether to look at this call all the same.

        A call whose argument types (``type()`` of each, ``self`` aside) no looked-at
        call of the function had is looked at, up to ``cap * 4`` such types; the
        other calls at gaps that double (1, 2, 4, ...) up to ``cap * 4`` calls. Rows
        are still recorded only for calls unlike the recorded ones, at most
        ``cap * 4`` per function.
        """
        if code.co_name == "__init__":
            # (A constructor's ints name the sizes of its object's later calls.)
            self._remember_init(frame, code)
        if self.counts.get(code, 0) >= self.cap * _SPARSE_ROWS:
            if code.co_name != "__init__":
                self.wanted[code] = False  # enough variety: the function is left alone
            return False
        with self.lock:
            state = self.sparse.get(code)
            if state is None:
                state = self.sparse[code] = [0, 1, 1]
            state[0] += 1
            if state[0] >= state[1]:
                state[2] = min(state[2] * 2, self.limit)
                state[1] = state[0] + state[2]
                return True
        kinds = self.kinds.get(code)
        if kinds is None or len(kinds) >= self.limit:
            return False
        return self._kind(frame, code) not in kinds

    def _init_ints_of(self, obj) -> dict:
        """The int arguments ``obj``'s constructor was called with (none for an object
        built without ``__init__``, a ``deepcopy``)."""
        entry = self.init_ints.get(id(obj))
        if entry is None or (entry[0] is not None and entry[0]() is not obj):
            return {}  # (another object that lived at this address)
        return entry[1]

    def _remember_init(self, frame, code) -> None:
        """Keep the int arguments of a constructor's call (every call, looked at or not):
        ``__init__(self, dim)`` gives ``dim``; a layer built from a config object
        (``GPT(config)``) gets its int fields too, after the constructor's own ints."""
        names = self._arg_names(code)
        local = frame.f_locals
        if not names or names[0] != "self" or names[0] not in local:
            return
        obj = local[names[0]]
        ints: dict = {}
        fields: dict = {}
        for name in names[1:]:
            value = local.get(name)
            if type(value) is int:
                ints[name] = value
            elif value is not None and type(value) not in (bool, float, str, bytes, tuple, list):
                for k, v in _self_ints(value).items():
                    fields.setdefault(k, v)
        found = {**fields, **ints}
        if not found:
            return
        try:
            ref = weakref.ref(obj)
        except TypeError:
            ref = None
        with self.lock:
            entry = self.init_ints.get(id(obj))
            if entry is None or (entry[0] is not None and entry[0]() is not obj):
                if len(self.init_ints) >= 65536:
                    return
                entry = self.init_ints[id(obj)] = (ref, {})
            entry[1].update(found)

    def _kind(self, frame, code) -> tuple:
        local = frame.f_locals
        names = self._arg_names(code)
        if names and names[0] in ("self", "cls"):
            names = names[1:]
        return tuple(type(local.get(name)) for name in names)

    # -- recording -------------------------------------------------------------------------
    def _enter(self, frame):
        code = frame.f_code
        names = self._arg_names(code)
        local = frame.f_locals
        args = {}
        self_ints = {}
        owner = None
        for i, name in enumerate(names):
            if name not in local:
                continue
            value = local[name]
            if i == 0 and name in ("self", "cls"):
                if name == "self":
                    owner = value
                    # The constructor's int arguments (a layer's d_model), then the
                    # instance's own int attributes.
                    self_ints = {**self._init_ints_of(value), **_self_ints(value)}
                continue
            args[name] = describe(value)
        if owner is not None and code.co_name == "__init__":
            self._remember_init(frame, code)
        kind = self._kind(frame, code)
        with self.lock:
            self.examined[code] = self.examined.get(code, 0) + 1
            kinds = self.kinds.setdefault(code, set())
            if len(kinds) < self.limit:
                kinds.add(kind)
        module = frame.f_globals.get("__name__", "")
        qualname = getattr(code, "co_qualname", code.co_name)
        return [module, qualname, code.co_filename, code.co_firstlineno, args, None, self_ints]

    def _leave(self, row, value, code) -> None:
        """Keep the call ``row`` returning ``value`` unless one like it is recorded."""
        row[5] = describe(value)
        signature = json.dumps(row[4:], sort_keys=True)
        with self.lock:
            seen = self.signatures.setdefault(code, set())
            if signature in seen:
                return
            seen.add(signature)
            self.counts[code] = self.counts.get(code, 0) + 1
            self.rows.append(tuple(row))

    # -- Python 3.11: settrace ----------------------------------------------------------------
    def _make_global_trace(self):
        """The global trace function: called on every new frame, so it is kept minimal.

        A code object that is not recorded (not included) answers False from one
        dict lookup and gets no local trace function; one past its cap is sampled
        (:meth:`_sparse`).
        """
        wanted = self.wanted
        counts = self.counts
        examined = self.examined
        cap = self.cap
        limit = self.limit
        included = self.included
        sparse = self._sparse
        enter = self._enter
        leave = self._leave

        def global_trace(frame, event, arg):
            code = frame.f_code
            state = wanted.get(code)
            if state is None:
                state = wanted[code] = included(code, frame.f_globals.get("__name__"))
            if not state:
                return None
            if (counts.get(code, 0) >= cap or examined.get(code, 0) >= limit) and not sparse(
                frame, code
            ):
                return None
            frame.f_trace_lines = False
            row = enter(frame)
            raised = [False]

            def local(frame, event, arg):
                if event == "exception":
                    raised[0] = True
                elif event == "return":
                    if raised[0] and arg is None:
                        return None  # the call raised: no return value to record
                    leave(row, arg, code)
                return local

            return local

        return global_trace

    # -- Python 3.12+: sys.monitoring ---------------------------------------------------------
    def _start_monitoring(self) -> bool:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is None:
            return False
        for tool in (monitoring.PROFILER_ID, monitoring.OPTIMIZER_ID, 3, 4):
            if monitoring.get_tool(tool) is None:
                break
        else:
            return False
        monitoring.use_tool_id(tool, "tensortypes annotate")
        self._tool = tool
        events = monitoring.events
        pending: dict = {}

        def on_start(code, offset):
            frame = sys._getframe(1)
            if not self._wanted(frame):
                # Code past its cap stays sampled; other code is switched off.
                return None if self.wanted.get(code) else monitoring.DISABLE
            pending.setdefault(id(frame), []).append(self._enter(frame))
            return None

        def on_return(code, offset, value):
            if not self.wanted.get(code):
                return monitoring.DISABLE
            frame = sys._getframe(1)
            stack = pending.get(id(frame))
            if stack:
                self._leave(stack.pop(), value, code)
                if not stack:
                    del pending[id(frame)]
            return None

        monitoring.register_callback(tool, events.PY_START, on_start)
        monitoring.register_callback(tool, events.PY_RETURN, on_return)
        monitoring.set_events(tool, events.PY_START | events.PY_RETURN)
        return True

    def __enter__(self) -> Tracer:
        if not self._start_monitoring():
            trace = self._make_global_trace()
            threading.settrace(trace)
            sys.settrace(trace)
        return self

    def __exit__(self, *exc) -> None:
        if self._tool is not None:
            monitoring = sys.monitoring
            monitoring.set_events(self._tool, 0)
            monitoring.free_tool_id(self._tool)
            self._tool = None
        else:
            sys.settrace(None)
            threading.settrace(None)

    def save(self, path) -> int:
        """Append the recorded calls to the trace file ``path``; the number written."""
        rows = list(self.rows)
        TraceStore(path).add(rows)
        return len(rows)


def trace_path(path: str | None = None) -> Path:
    return Path(path or os.environ.get("TENSORTYPES_TRACE", DEFAULT_TRACE))
