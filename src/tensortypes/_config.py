"""The single configuration object, ``tensortypes.config`` (layer 1).

Attributes (validated on assignment):

- ``floatX``: the dtype that ``"floatX"`` means when a type is built
  (``"float16"``, ``"float32"`` or ``"float64"``; default ``"float64"``;
  environment ``TENSORTYPES_FLOATX``).
- ``disable``: runtime checking off; decorators return the function itself
  (environment ``TENSORTYPES_DISABLE`` or ``JAXTYPING_DISABLE``).
- ``cache_dir``: where compiled C modules are cached (environment
  ``TENSORTYPES_CACHE_DIR``; default ``$XDG_CACHE_HOME/tensortypes`` or
  ``~/.cache/tensortypes``).
- ``numeric_tower``: PEP 484's numeric tower at run time (an ``int`` passes
  ``float``, an ``int`` or ``float`` passes ``complex``); default on, the
  meaning of the static checker, typeguard, mypy and pyright. Off gives
  Python's bare ``isinstance`` (beartype's strictness), and a value refused
  only because of it says so, naming this setting.
- ``container_check``: ``"all"`` checks every element of a container, ``"one"``
  samples one, as beartype does.

``config.update(name, value)`` is jaxtyping's spelling, and accepts jaxtyping's
option names (``jaxtyping_disable``) as well as ours.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["Config", "config"]

_FLOATX = ("float16", "float32", "float64")
_CONTAINER_CHECK = ("all", "one")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")

# jaxtyping's option names mapped to ours.
_ALIASES = {
    "jaxtyping_disable": "disable",
    "tensortypes_disable": "disable",
    "tensortypes_floatx": "floatX",
    "floatx": "floatX",
}


def _env_bool(name: str) -> bool | None:
    raw = os.environ.get(name)
    if raw is None:
        return None
    raw = raw.strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ValueError(
        f"environment variable {name}={os.environ[name]!r} is not a boolean "
        f"(use one of {', '.join(_TRUE + _FALSE[1:])})"
    )


def _default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tensortypes")


class Config:
    """Process-wide settings. See the module docstring for each attribute."""

    __slots__ = ("_floatX", "_disable", "_cache_dir", "_numeric_tower", "_container_check")

    def __init__(self) -> None:
        self._floatX = "float64"
        self._disable = False
        self._cache_dir = _default_cache_dir()
        self._numeric_tower = True
        self._container_check = "all"
        self.reload_environment()

    def reload_environment(self) -> None:
        """Read the ``TENSORTYPES_*`` (and ``JAXTYPING_DISABLE``) environment variables."""
        floatx = os.environ.get("TENSORTYPES_FLOATX")
        if floatx:
            self.floatX = floatx
        disable = _env_bool("TENSORTYPES_DISABLE")
        if disable is None:
            disable = _env_bool("JAXTYPING_DISABLE")
        if disable is not None:
            self.disable = disable
        cache_dir = os.environ.get("TENSORTYPES_CACHE_DIR")
        if cache_dir:
            self.cache_dir = cache_dir

    # -- validated attributes -------------------------------------------------
    @property
    def floatX(self) -> str:  # noqa: N802 (the name every array user knows)
        return self._floatX

    @floatX.setter
    def floatX(self, value: str) -> None:  # noqa: N802
        if value not in _FLOATX:
            raise ValueError(f"config.floatX must be one of {_FLOATX}, got {value!r}")
        self._floatX = value

    @property
    def disable(self) -> bool:
        return self._disable

    @disable.setter
    def disable(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"config.disable must be a bool, got {value!r}")
        self._disable = value

    @property
    def cache_dir(self) -> str:
        return self._cache_dir

    @cache_dir.setter
    def cache_dir(self, value: str | os.PathLike) -> None:
        if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
            raise ValueError(f"config.cache_dir must be a non-empty path, got {value!r}")
        self._cache_dir = os.path.abspath(os.path.expanduser(os.fspath(value)))

    @property
    def numeric_tower(self) -> bool:
        return self._numeric_tower

    @numeric_tower.setter
    def numeric_tower(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"config.numeric_tower must be a bool, got {value!r}")
        self._numeric_tower = value

    @property
    def container_check(self) -> str:
        return self._container_check

    @container_check.setter
    def container_check(self, value: str) -> None:
        if value not in _CONTAINER_CHECK:
            raise ValueError(
                f"config.container_check must be one of {_CONTAINER_CHECK}, got {value!r}"
            )
        self._container_check = value

    # -- jaxtyping's interface -------------------------------------------------
    def update(self, name: str, value: Any) -> None:
        """Set option ``name`` (ours, or jaxtyping's such as ``"jaxtyping_disable"``)."""
        key = _ALIASES.get(name.lower() if isinstance(name, str) else name, name)
        if key not in ("floatX", "disable", "cache_dir", "numeric_tower", "container_check"):
            raise ValueError(f"unknown configuration option {name!r}")
        if key == "disable" and isinstance(value, str):
            lowered = value.strip().lower()
            if lowered not in _TRUE + _FALSE:
                raise ValueError(f"config option {name!r} takes a bool, got {value!r}")
            value = lowered in _TRUE
        setattr(self, key, value)

    def __repr__(self) -> str:
        return (
            f"Config(floatX={self.floatX!r}, disable={self.disable!r}, "
            f"cache_dir={self.cache_dir!r}, numeric_tower={self.numeric_tower!r}, "
            f"container_check={self.container_check!r})"
        )


config = Config()
