"""CDataType: opaque pointers in capsules, freed exactly once (as in Theano)."""

from __future__ import annotations

import ctypes
import datetime
import gc
import pickle

import pytest

from c_toys import fgraph, needs_cc
from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, CLinkerOp, Op
from tensortypes.link.c import CDataType
from tensortypes.types.primitives import INT

# A box remembers where to count its release: the test reads the counter with ctypes.
BOX_CODE = """
#include <stdlib.h>
typedef struct { long* counter; long value; } tt_box;
static void tt_box_free(tt_box* box) { box->counter[0] += 1; free(box); }
"""
BOX = CDataType("tt_box *", freefunc="tt_box_free", extra_support_code=BOX_CODE, version=1)

# Releasing one of these writes a mark into the pointed-to memory (which ctypes owns).
MARK_CODE = "static void tt_mark_released(long* p) { p[0] = 4242; }\n"
MARKED = CDataType("long *", freefunc="tt_mark_released", extra_support_code=MARK_CODE)


def test_constructor_validates_what_reaches_c():
    t = CDataType("struct foo*", "free", headers="<stdlib.h>", version=(1, 2))
    assert t.ctype == "struct foo *" and t.headers == ("<stdlib.h>",) and t.version == (1, 2)
    with pytest.raises(ValueError, match="pointer"):
        CDataType("int")
    with pytest.raises(ValueError, match="C type"):
        CDataType("int *; evil()")
    with pytest.raises(ValueError, match="C identifier"):
        CDataType("void *", freefunc="free(p); x")
    with pytest.raises(TypeError):
        CDataType("void *", headers=["a.h\n#include <evil.h>"])
    with pytest.raises(TypeError):
        CDataType("void *", extra_support_code=None)
    with pytest.raises(TypeError):
        CDataType("void *", version=[1])


def test_equality_hash_pickle_and_str():
    a = CDataType("void *", "free", ("<stdlib.h>",), version=2)
    b = CDataType("void *", "free", ["<stdlib.h>"], version=2)
    assert a == b and hash(a) == hash(b)
    assert a != CDataType("void *", "free", ("<stdlib.h>",), version=3)
    assert a != CDataType("char *", "free", ("<stdlib.h>",), version=2)
    assert pickle.loads(pickle.dumps(a)) == a
    assert str(a) == "CDataType{void *}"
    with pytest.raises(AttributeError, match="immutable"):
        a.ctype = "int *"
    assert a.c_code_cache_version() == (3, 2) and CDataType("void *").c_code_cache_version()


def test_filter_takes_none_or_a_capsule_of_its_c_type():
    assert MARKED.filter(None) is None
    with pytest.raises(TypeCheckError, match="expected None or a PyCapsule"):
        MARKED.filter(5)
    with pytest.raises(TypeCheckError, match="datetime"):
        MARKED.filter(datetime.datetime_CAPI)  # a capsule of another kind
    assert not MARKED.is_valid_value(5)


@needs_cc
def test_make_value_wraps_a_pointer_freed_when_the_capsule_dies():
    memory = (ctypes.c_long * 2)(0, 7)
    capsule = MARKED.make_value(ctypes.addressof(memory))
    assert MARKED.filter(capsule) is capsule
    assert memory[0] == 0
    del capsule
    gc.collect()
    assert memory[0] == 4242 and memory[1] == 7
    with pytest.raises(TypeError, match="int address"):
        MARKED.make_value("0x10")


@needs_cc
def test_make_value_of_null_is_none():
    assert MARKED.make_value(0) is None


class NewBox(Op, CLinkerOp):
    """A fresh box (malloc) counting its release in ``counter`` (an address)."""

    def make_node(self, counter):
        return Apply(self, [INT.filter_variable(counter)], [BOX()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"""{outputs[0]} = (tt_box*)malloc(sizeof(tt_box));
if ({outputs[0]} == NULL) {{ PyErr_NoMemory(); {sub["fail"]} }}
{outputs[0]}->counter = (long*)(uintptr_t){inputs[0]};
{outputs[0]}->value = 41;"""

    def c_headers(self, **kwargs):
        return ["<stdint.h>"]

    def c_code_cache_version(self):
        return (1,)


class BoxValue(Op, CLinkerOp):
    """The value in a box, plus one."""

    def make_node(self, box):
        return Apply(self, [box], [INT()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]}->value + 1;"

    def c_code_cache_version(self):
        return (1,)


def test_an_intermediate_pointer_is_freed_by_the_cleanup(linker):
    counter = (ctypes.c_long * 1)(0)
    a = INT("a")
    f = linker.make_function(fgraph([a], [BoxValue()(NewBox()(a))]))
    for i in range(1, 4):
        assert f([ctypes.addressof(counter)]) == [42]
        assert counter[0] == i  # freed once per call, never leaked, never twice


def test_a_returned_pointer_is_owned_by_its_capsule(linker):
    counter = (ctypes.c_long * 1)(0)
    a = INT("a")
    box = NewBox()(a)
    f = linker.make_function(fgraph([a], [box, BoxValue()(box)]))
    capsule, value = f([ctypes.addressof(counter)])
    assert value == 42 and BOX.filter(capsule) is capsule and counter[0] == 0
    b = BOX("b")
    g = linker.make_function(fgraph([b], [BoxValue()(b)]))
    assert g([capsule]) == [42] and counter[0] == 0  # extracted, not owned by C
    del capsule
    gc.collect()
    assert counter[0] == 1
    with pytest.raises(TypeCheckError, match="expected None or a capsule"):
        g([3])
