"""errors and config: the classes of docs/architecture.md's table and the config object."""

import os
import subprocess
import sys

import pytest

import tensortypes
from tensortypes import (
    AnnotationError,
    CacheError,
    CompileError,
    MethodNotDefined,
    TypeCheckError,
    config,
)
from tensortypes._config import Config


@pytest.mark.parametrize(
    "cls,base",
    [
        (AnnotationError, ValueError),
        (TypeCheckError, TypeError),
        (MethodNotDefined, NotImplementedError),
        (CompileError, RuntimeError),
        (CacheError, OSError),
    ],
)
def test_error_bases(cls, base):
    assert issubclass(cls, base)
    assert getattr(tensortypes, cls.__name__) is cls


def test_annotation_error_caret():
    err = AnnotationError("unexpected '*'", text="n + * 2", position=4)
    lines = str(err).splitlines()
    assert lines[0] == "unexpected '*'"
    assert lines[1].strip() == "n + * 2"
    assert lines[2].index("^") - lines[1].index("n") == 4
    assert err.position == 4 and err.text == "n + * 2"


def test_compile_error_carries_source():
    err = CompileError("gcc failed", source_path="/tmp/x.c", compiler_output="x.c:1: error")
    assert err.source_path == "/tmp/x.c" and "x.c:1: error" in str(err)


class TestConfig:
    def test_defaults(self):
        c = Config()
        assert c.floatX in ("float16", "float32", "float64")
        assert c.container_check == "all" and c.numeric_tower is True

    @pytest.mark.parametrize(
        "attr,value",
        [
            ("floatX", "float128"),
            ("disable", "yes"),
            ("container_check", "some"),
            ("numeric_tower", 1),
            ("cache_dir", ""),
        ],
    )
    def test_validation(self, attr, value):
        with pytest.raises(ValueError):
            setattr(Config(), attr, value)

    def test_update_accepts_jaxtyping_names(self):
        c = Config()
        c.update("jaxtyping_disable", True)
        assert c.disable is True
        c.update("floatX", "float32")
        assert c.floatX == "float32"
        with pytest.raises(ValueError):
            c.update("no_such_option", 1)

    def test_cache_dir_expanded(self, tmp_path):
        c = Config()
        c.cache_dir = str(tmp_path / "x")
        assert c.cache_dir == str(tmp_path / "x")

    @pytest.mark.parametrize(
        "env,attr,expected",
        [
            ({"TENSORTYPES_FLOATX": "float32"}, "floatX", "float32"),
            ({"TENSORTYPES_DISABLE": "1"}, "disable", True),
            ({"JAXTYPING_DISABLE": "true"}, "disable", True),
            ({"TENSORTYPES_CACHE_DIR": "/tmp/tt-cache-test"}, "cache_dir", "/tmp/tt-cache-test"),
        ],
    )
    def test_environment(self, env, attr, expected):
        code = f"import tensortypes; print(repr(tensortypes.config.{attr}))"
        out = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert out == repr(expected)

    def test_single_object(self):
        from tensortypes._config import config as same

        assert same is config
