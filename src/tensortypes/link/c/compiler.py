"""The system C compiler: finding it, its flags, and running it (layer 6, ``link``).

``Compiler`` is an immutable description of one compiler command and the
flags the C back end uses with it; ``Compiler.build`` turns one C source file
into a loadable CPython extension module or raises ``CompileError`` with the
compiler's message and the source path. ``default_compiler()`` finds the
compiler the way Python's own extension builds do: ``$CC``, else
``sysconfig``'s ``CC``; it returns None when no compiler is installed (the C
back end is then unavailable and its tests skip).

Include and link flags come from ``sysconfig`` (Python's headers, ``CCSHARED``,
``LDSHARED``) and ``numpy.get_include()``. ``Compiler.key`` names everything
that changes the produced binary (command, version, flags, target CPU), for
the module cache.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import numpy as np

from tensortypes.errors import CompileError
from tensortypes.link.c.trust import entry_problem, write_private

__all__ = ["Compiler", "default_compiler", "python_abi"]

# -O3 with -fno-math-errno lets the compiler inline and vectorise math calls
# without changing any result; the -Wno flags silence what generated code
# legitimately does (labels of the failure ladder that a graph never jumps to).
_BASE_FLAGS = (
    "-O3",
    "-fno-math-errno",
    "-fvisibility=hidden",
    "-Wall",
    "-Wno-unused-label",
    "-Wno-unused-variable",
    "-Wno-unused-function",
    "-Wno-unused-but-set-variable",
)

# A program that links only where the compiler can call glibc's vector math
# library (libmvec) for the simd declarations the module preamble makes.
_VECTOR_MATH_PROBE = """
#include <math.h>
#pragma omp declare simd notinbranch
extern double exp(double);
double out[64], in[64];
int main(void) { for (int i = 0; i < 64; i++) out[i] = exp(in[i]); return (int)out[3]; }
"""


class Compiler:
    """One C compiler command and the flags used with it.

    >>> cc = Compiler(["cc"], version="cc (test) 1.0", flags=("-O2",))
    >>> cc.key()[:2]
    ('cc', 'cc (test) 1.0')
    """

    __slots__ = ("command", "version", "flags", "link_flags", "vector_math", "_key")

    def __init__(
        self, command, version: str, flags=_BASE_FLAGS, link_flags=None, vector_math: bool = False
    ):
        command = [command] if isinstance(command, str) else list(command)
        if not command or not all(isinstance(c, str) and c for c in command):
            raise ValueError(f"a compiler command is a non-empty list of words, got {command!r}")
        self.command = tuple(command)
        self.version = str(version)
        self.flags = tuple(flags)
        self.link_flags = tuple(_link_flags() if link_flags is None else link_flags)
        self.vector_math = bool(vector_math)
        self._key = None

    def __repr__(self) -> str:
        return f"Compiler({' '.join(self.command)!r}, {self.version.splitlines()[0]!r})"

    def key(self) -> tuple:
        """What makes two builds of the same source differ: command, version, flags, CPU."""
        if self._key is None:
            self._key = (
                " ".join(self.command),
                self.version,
                self.flags,
                self.link_flags,
                self.vector_math,
                _cpu_signature() if _uses_native(self.flags) else "",
            )
        return self._key

    def include_dirs(self) -> list[str]:
        """Python's and NumPy's header directories."""
        paths = sysconfig.get_paths()
        dirs = [paths["include"], paths.get("platinclude", paths["include"]), np.get_include()]
        return list(dict.fromkeys(dirs))

    def command_line(
        self,
        source: str,
        output: str,
        include_dirs=(),
        lib_dirs=(),
        libraries=(),
        extra_args=(),
        no_args=(),
    ) -> list[str]:
        """The full command that builds ``source`` into the shared object ``output``."""
        drop = set(no_args)
        flags = [f for f in (*self.flags, *extra_args) if f not in drop]
        cmd = [*self.command, *flags]
        cmd += [f"-I{d}" for d in (*include_dirs, *self.include_dirs())]
        cmd += ["-o", output, source]
        cmd += [f for f in self.link_flags if f not in drop]
        cmd += [f"-L{d}" for d in lib_dirs]
        cmd += [f"-l{lib}" for lib in (*libraries, "m")]
        return cmd

    def build(self, source: str, output: str, **settings) -> None:
        """Compile the C file ``source`` into the extension module ``output``.

        ``settings`` are ``command_line``'s keyword arguments. A failure raises
        ``CompileError`` carrying the compiler's output and ``source``.
        """
        cmd = self.command_line(source, output, **settings)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        except OSError as exc:
            raise CompileError(
                f"could not run the C compiler {self.command[0]!r}: {exc}", source
            ) from None
        if proc.returncode != 0 or not os.path.exists(output):
            message = (proc.stderr or proc.stdout).strip()
            raise CompileError(
                f"the C compiler failed (exit status {proc.returncode}): {shlex.join(cmd)}",
                source,
                message,
            )


def _link_flags() -> list[str]:
    # LDSHARED is "<compiler> <flags>"; its flags make a loadable extension on this
    # platform (-shared on Linux, -bundle -undefined dynamic_lookup on macOS).
    words = shlex.split(sysconfig.get_config_var("LDSHARED") or "cc -shared")
    flags = [w for w in words[1:] if not w.startswith(("-L", "-Wl,-rpath"))]
    return [*shlex.split(sysconfig.get_config_var("CCSHARED") or "-fPIC"), *flags]


def _uses_native(flags) -> bool:
    return any(f in ("-march=native", "-mcpu=native", "-mtune=native") for f in flags)


@functools.lru_cache(maxsize=1)
def _cpu_signature() -> str:
    """A digest of this CPU's model and features: -march=native code is built for it."""
    text = platform.machine() + platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("model name", "flags", "Features", "CPU part")):
                    text += line
                elif not line.strip() and "flags" in text:
                    break  # the first processor describes them all
    except OSError:
        pass
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def python_abi() -> tuple:
    """The Python and NumPy binary interfaces a compiled module depends on.

    >>> python_abi()[0] == sys.implementation.cache_tag
    True
    """
    return (
        sys.implementation.cache_tag,
        sysconfig.get_config_var("EXT_SUFFIX") or "",
        sys.version,
        np.__version__,
        _numpy_c_abi(),
    )


def _numpy_c_abi() -> str:
    try:
        from numpy._core._multiarray_umath import _get_ndarray_c_version
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import _get_ndarray_c_version
    return hex(_get_ndarray_c_version())


def _find_command() -> list[str] | None:
    raw = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    command = shlex.split(raw)
    for candidate in (command, ["cc"], ["gcc"], ["clang"]):
        if candidate and shutil.which(candidate[0]):
            return candidate
    return None


def _probe_vector_math(command: list[str]) -> bool:
    with tempfile.TemporaryDirectory(prefix="tensortypes-probe-") as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as fh:
            fh.write(_VECTOR_MATH_PROBE)
        cmd = [
            *command,
            "-O3",
            "-fno-math-errno",
            "-fopenmp-simd",
            "-o",
            os.path.join(tmp, "probe"),
            src,
            "-lm",
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return proc.returncode == 0


def _read_probe(path: str) -> bool | None:
    """The remembered probe answer, or None unless the file is ours, private and valid.

    Anything else (garbage, another user's file, a directory) is probed again and
    replaced: a damaged file must not silently change the compile flags.
    """
    try:
        if entry_problem(os.path.dirname(path), (os.path.basename(path),)) is not None:
            return None
        with open(path, encoding="ascii") as fh:
            text = fh.read(16).strip()
    except (OSError, ValueError):
        return None
    return {"1": True, "0": False}.get(text)


def _vector_math(command: list[str], version: str, probe_dir: str | None) -> bool:
    """Whether ``command`` links glibc's vector math; remembered in ``probe_dir``."""
    if probe_dir is None:
        return _probe_vector_math(command)
    digest = hashlib.sha256(repr((command, version)).encode()).hexdigest()[:24]
    path = os.path.join(probe_dir, f"probe-vector-math-{digest}")
    remembered = _read_probe(path)
    if remembered is not None:
        return remembered
    result = _probe_vector_math(command)
    tmp = f"{path}.{os.getpid()}"
    try:
        if os.path.lexists(tmp):
            os.unlink(tmp)  # left by a killed process that had this pid
        write_private(tmp, "1\n" if result else "0\n")
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the probe again next time
    return result


@functools.lru_cache(maxsize=8)
def default_compiler(probe_dir: str | None = None) -> Compiler | None:
    """The compiler of ``$CC`` or ``sysconfig`` with the back end's flags; None if absent.

    ``-march=native`` is added for gcc and clang on x86-64 (the cache key then
    names the CPU), and ``-fopenmp-simd`` where gcc can call glibc's vector
    math library (so ``exp`` over an array is vectorised). That is found by
    building a small program once; ``probe_dir`` (the module cache) remembers
    the answer across processes.

    >>> cc = default_compiler()
    >>> cc is None or cc.command[0] != ""
    True
    """
    command = _find_command()
    if command is None:
        return None
    try:
        proc = subprocess.run(
            [*command, "--version"],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        version = proc.stdout.strip() or proc.stderr.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    flags = list(_BASE_FLAGS)
    lowered = version.lower()
    family = (
        "clang"
        if "clang" in lowered
        else "gcc"
        if ("gcc" in lowered or "free software foundation" in lowered)
        else "other"
    )
    if family in ("gcc", "clang") and platform.machine() in ("x86_64", "AMD64"):
        flags.append("-march=native")
    vector_math = (
        family == "gcc"
        and sys.platform.startswith("linux")
        and _vector_math(command, version, probe_dir)
    )
    if vector_math:
        flags.append("-fopenmp-simd")
    return Compiler(command, version, tuple(flags), vector_math=vector_math)
