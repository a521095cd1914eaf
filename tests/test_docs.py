"""Every code block of README.md and the docs runs, or is checked against the code.

A page is read block by block, in order, with one namespace per page:

- ``python`` with ``>>>``: a doctest (README.md's are run per section by
  ``tests/test_readme.py`` and skipped here);
- ``python`` without ``>>>``: executed as if it were a user's file ``model.py``
  (module ``model``, so messages read as they would for the reader); when the next block is ``text``, that
  block is its expected output (what it prints, then ``ExceptionName: message``
  if it raises), compared as a doctest compares (``...`` matches anything);
- ``console``: ``$ command`` lines are run from the repository root and the
  lines after each are its expected output, compared the same way;
- ``bash``: commands a reader copies into a shell. Those that are cheap and
  safe run for real elsewhere (``make demo``/``make test`` in test_readme.py);
  here each is checked against the code: ``tensortypes ...`` parses with the
  command's own argument parser and names paths and demo sections that
  exist, ``pip install`` names extras ``pyproject.toml`` defines and files that
  exist, ``make T`` names a Makefile target, ``python benchmarks/x.py --opt``
  names a script that exists and takes that option, ``pytest --opt`` an option
  the plugin registers. A command this test does not know fails it, so a new
  kind of command must be taught here;
- ``toml``: parsed; a ``[tool.tensortypes]`` table is read by the checker's
  configuration loader;
- ``text`` anywhere else, or a block without a language: a failure (a sample
  output must sit under the code that prints it).

Examples that name a user's package (``my_package``, ``model.py``, ``src``)
run in a scratch folder holding small stand-ins for them.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def markdown_pages() -> list[Path]:
    """Every Markdown page of the repository (hidden folders, such as .venv, skipped):
    a page added anywhere has its blocks run without being listed here."""
    found = []
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith((".", "__")))
        found += [Path(folder) / f for f in files if f.endswith(".md")]
    return sorted(found)


PAGES = markdown_pages()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)

# Stand-ins for the user's code that examples name.
SCRATCH = {
    "my_package/__init__.py": (
        "import numpy as np\n"
        "from tensortypes import Float\n\n"
        "def double(x: Float[np.ndarray, 'n']) -> Float[np.ndarray, 'n']:\n"
        "    return 2 * x\n"
    ),
    "other/__init__.py": "",
    "other/sub.py": "def name(x: str) -> str:\n    return x\n",
    "model.py": (
        "import numpy as np\n"
        "from tensortypes import Float\n\n"
        "def project(x: Float[np.ndarray, 'b c'], w: Float[np.ndarray, 'd c']):\n"
        "    return x @ w\n"
    ),
    "src/pkg/__init__.py": "",
    "src/pkg/model.py": "import numpy as np\n\ndef f(x):\n    return np.zeros(3) + x\n",
}


class Block:
    __slots__ = ("lang", "body", "line")

    def __init__(self, lang: str, body: str, line: int):
        self.lang, self.body, self.line = lang, body, line

    def __repr__(self) -> str:
        return f"{self.lang or '(no language)'} block at line {self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    return [
        Block(m.group(1).strip(), m.group(2), text.count("\n", 0, m.start()) + 1)
        for m in FENCE.finditer(text)
    ]


def _matches(want: str, got: str) -> bool:
    return doctest.OutputChecker().check_output(want, got, FLAGS)


def _run_python(source: str, namespace: dict, filename: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (the docs' own code)
        except Exception as error:  # noqa: BLE001 (an error may be the documented result)
            print(f"{type(error).__name__}: {error}")
    return out.getvalue()


def _run_doctest(block: Block, namespace: dict, name: str, page: Path) -> str | None:
    test = doctest.DocTestParser().get_doctest(block.body, namespace, name, str(page), block.line)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=out.write, clear_globs=False)
    namespace.update(test.globs)  # DocTest copies its globals: carry them to the next block
    return out.getvalue() if runner.failures else None


# -- commands -----------------------------------------------------------------------------


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _check_tensortypes(argv: list[str]) -> str | None:
    from tensortypes.cli import SECTIONS, _parser

    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            args = _parser().parse_args(argv)
    except SystemExit as stop:
        return None if stop.code == 0 else f"the command line parser refuses {argv}"
    if args.command == "check":
        missing = [p for p in args.paths if not (REPO / p).exists()]
        return f"no such path {missing}" if missing else None
    if args.command == "demo":
        keys = {s.key for s in SECTIONS}
        unknown = [s for s in args.sections if s not in keys]
        return f"no demo section {unknown}" if unknown else None
    return None


def _check_pip(argv: list[str]) -> str | None:
    extras = set(_pyproject()["project"]["optional-dependencies"])
    words = iter(argv)
    for word in words:
        if word in (
            "install",
            "-q",
            "--quiet",
            "-U",
            "--upgrade",
            "-e",
            "--editable",
            "ruff",
            "mypy",
        ):
            continue
        if word in ("-r", "--requirement"):
            target = next(words)
            if not (REPO / target).is_file():
                return f"no requirements file {target}"
            continue
        local = re.fullmatch(r"(\.{1,2}(?:/[\w.-]*)*)(?:\[([\w,]+)\])?", word)
        if local:  # this package, from its folder
            wanted = set(filter(None, (local.group(2) or "").split(",")))
            if wanted - extras:
                return f"pyproject.toml has no extra {sorted(wanted - extras)}"
            continue
        if not re.fullmatch(r"[A-Za-z][\w.-]*(\[[\w,]+\])?([=<>!~]=?[\w.+*]+)?", word):
            return f"cannot read the requirement {word!r}"
    return None


def _check_make(argv: list[str]) -> str | None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = [a for a in argv if "=" not in a]
    missing = [t for t in targets if not re.search(rf"^{re.escape(t)}:", makefile, re.M)]
    return f"the Makefile has no target {missing}" if missing else None


def _check_script(argv: list[str]) -> str | None:
    script = REPO / argv[0]
    if not script.is_file():
        return f"no script {argv[0]}"
    source = script.read_text(encoding="utf-8")
    options = [a.split("=")[0] for a in argv[1:] if a.startswith("--")]
    missing = [o for o in options if f'"{o}"' not in source]
    return f"{argv[0]} takes no option {missing}" if missing else None


def _check_pytest(argv: list[str]) -> str | None:
    plugin = "".join(
        (REPO / "src/tensortypes/runtime" / name).read_text(encoding="utf-8")
        for name in ("pytest_plugin.py", "jaxtyping_plugin.py")
    )
    options = [a.split("=")[0] for a in argv if a.startswith("--")]
    missing = [o for o in options if f'"{o}"' not in plugin]
    return f"the pytest plugin registers no {missing}" if missing else None


def check_command(line: str) -> str | None:
    """None when ``line`` (one shell command) is one the code supports, else why not."""
    argv = shlex.split(line, comments=True)
    if ">" in argv:  # an output redirection: the command is what comes before it
        argv = argv[: argv.index(">")]
    while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", argv[0]):
        argv = argv[1:]  # an environment assignment for the command that follows
    if not argv:
        return None
    program = argv[0].rsplit("/", 1)[-1]
    if program == "python" or re.fullmatch(r"python3(\.\d+)?", program):
        if argv[1:3] == ["-m", "tensortypes"]:
            return _check_tensortypes(argv[3:])
        if argv[1:3] == ["-m", "venv"]:
            return None
        if argv[1:3] == ["-m", "tensortypes.jaxtyping_shim"]:
            rest = argv[3:]
            ok = (
                rest[:1] in (["-m"], ["-c"])
                and len(rest) > 1
                or rest[:1]
                and rest[0].endswith(".py")
            )
            return None if ok else f"the shim runs -m MODULE, -c CODE or a script: {line!r}"
        if argv[1:3] == ["-m", "pip"]:
            return _check_pip(argv[3:])
        if argv[1:3] == ["-m", "pytest"]:
            missing = [a for a in argv[3:] if not a.startswith("-") and not (REPO / a).exists()]
            return f"no such test path {missing}" if missing else None
        if len(argv) > 1 and argv[1].endswith(".py"):
            return _check_script(argv[1:])
    if program == "tensortypes":
        return _check_tensortypes(argv[1:])
    if program == "pip":
        return _check_pip(argv[1:])
    if program == "make":
        return _check_make(argv[1:])
    if program == "pytest":
        return _check_pytest(argv[1:])
    if program == "git" and argv[1:2] == ["clone"]:
        return None
    if argv[0] == ".ci/run":
        return None if (REPO / ".ci" / "run").is_file() else "no .ci/run"
    if program in ("ruff", "mypy") or (
        program.startswith("python") and argv[1:3] == ["-m", "mypy"]
    ):
        tool = "ruff" if program == "ruff" else "mypy"
        return (
            None
            if f"[tool.{tool}]" in (REPO / "pyproject.toml").read_text()
            else f"pyproject.toml has no [tool.{tool}]"
        )
    return f"tests/test_docs.py does not know how to check the command {line!r}"


def _run(argv: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """Run a command of a page as a reader would, its output captured."""
    return subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def _runnable(argv: list[str]) -> list[str] | None:
    """The arguments of a ``tensortypes check`` or ``demo --list`` command (either spelling),
    which run in a moment and touch nothing; None for any other command."""
    program = argv[0].rsplit("/", 1)[-1] if argv else ""
    if program == "tensortypes":
        rest = argv[1:]
    elif re.fullmatch(r"python3?(\.\d+)?", program) and argv[1:3] == ["-m", "tensortypes"]:
        rest = argv[3:]
    else:
        return None
    if rest[:1] == ["check"] or rest == ["demo", "--list"]:
        return rest
    return None


def run_command(line: str, env: dict, tmp_path: Path) -> str | None:
    """Run a cheap command of a bash block for real: ``tensortypes check`` (on the
    scratch stand-ins when they hold its paths, else on the repository) and
    ``demo --list``. None when it ran as a reader would see it (exit status 0, or 1
    for a check that found errors, with no internal error), else what went wrong."""
    argv = shlex.split(line, comments=True)
    output = None
    if ">" in argv:  # tensortypes check ... > file: written to a scratch file
        output = tmp_path / argv[argv.index(">") + 1]
        argv = argv[: argv.index(">")]
    while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", argv[0]):
        argv = argv[1:]
    rest = _runnable(argv)
    if rest is None:
        return None
    paths = [a for a in rest[1:] if not a.startswith("-") and a not in ("json", "github", "sarif")]
    cwd = Path.cwd() if paths and all(Path(p).exists() for p in paths) else REPO
    proc = _run([sys.executable, "-m", "tensortypes", *rest], cwd, env)
    text = proc.stdout + proc.stderr
    if output is not None:
        output.write_text(proc.stdout, encoding="utf-8")
    allowed = (0, 1) if rest[0] == "check" else (0,)
    if proc.returncode not in allowed or "internal error" in text or "Traceback" in text:
        return f"`{line}` exited with status {proc.returncode}:\n{text[-2000:]}"
    return None


def _console(block: Block, env: dict) -> list[str]:
    """Run each ``$ command`` of a console block; the problems found."""
    problems = []
    entries: list[tuple[str, list[str]]] = []
    for line in block.body.splitlines():
        if line.startswith("$ "):
            entries.append((line[2:], []))
        elif entries:
            entries[-1][1].append(line)
        elif line.strip():
            problems.append(f"{block}: output before any '$ ' command")
    for command, want in entries:
        argv = shlex.split(command, comments=True)
        if argv[0] == "tensortypes":
            argv = [sys.executable, "-m", "tensortypes", *argv[1:]]
        elif argv[0] == "python":
            argv[0] = sys.executable
        else:
            problems.append(f"{block}: only tensortypes and python commands run here: {command}")
            continue
        proc = _run(argv, REPO, env)
        expected = "\n".join(want).strip() + "\n"
        if not _matches(expected, proc.stdout + proc.stderr):
            problems.append(
                f"{block}: `{command}` printed\n{proc.stdout}{proc.stderr}"
                f"but the page shows\n{expected}"
            )
    return problems


def _toml(block: Block, tmp_path: Path) -> list[str]:
    from tensortypes.check.config import load_config

    try:
        data = tomllib.loads(block.body)
    except tomllib.TOMLDecodeError as error:
        return [f"{block}: not TOML: {error}"]
    if "tensortypes" in data.get("tool", {}):
        path = tmp_path / "pyproject.toml"
        path.write_text(block.body, encoding="utf-8")
        try:
            load_config(path)
        except ValueError as error:
            return [f"{block}: the checker refuses it: {error}"]
    return []


# -- the test -------------------------------------------------------------------------------


def _scratch(tmp_path: Path) -> Path:
    root = tmp_path / "scratch"
    for name, text in SCRATCH.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def scratch(tmp_path, monkeypatch, cache_dir):
    root = _scratch(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        if name.split(".")[0] in ("my_package", "other", "model"):
            del sys.modules[name]


_EDITOR_LANGS = ("json", "yaml", "lua", "elisp")


def _editor_config(block: Block) -> list[str]:
    """Editor, pre-commit and CI configuration: parsed where a parser is at hand, and it
    must start the language server, name a hook this repository defines, or run commands
    the code supports."""
    problems = []
    if block.lang == "json":
        try:
            data = json.loads(block.body)
        except json.JSONDecodeError as error:
            return [f"invalid JSON: {error}"]
        text = json.dumps(data)
        if '"tensortypes"' not in text or '"lsp"' not in text:
            problems.append("an editor configuration that does not start `tensortypes lsp`")
        return problems
    if block.lang == "yaml":
        try:
            import yaml
        except ImportError:  # PyYAML comes with pre-commit; without it, YAML is not parsed
            return []
        try:
            data = yaml.safe_load(block.body)
        except yaml.YAMLError as error:
            return [f"invalid YAML: {error}"]
        if isinstance(data, dict) and "repos" in data:
            hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
            ids = {h["id"] for h in hooks}
            for repo in data["repos"]:
                for hook in repo.get("hooks", ()):
                    if hook.get("id") not in ids:
                        problems.append(
                            f"hook {hook.get('id')!r} is not in "
                            f".pre-commit-hooks.yaml ({sorted(ids)})"
                        )
        elif isinstance(data, list):
            for step in data:
                command = step.get("run") if isinstance(step, dict) else None
                problem = check_command(command) if command else None
                if problem:
                    problems.append(problem)
        else:
            problems.append(
                "a YAML block that is neither a pre-commit configuration nor "
                "a list of workflow steps"
            )
        return problems
    # lua, elisp: configurations of editors this test cannot run; they must at least
    # start the server with the command the package installs.
    if not re.search(r'"tensortypes"[\s,]*"lsp"', block.body):
        problems.append('an editor configuration that does not start "tensortypes" "lsp"')
    return problems


def page_problems(page: Path, tmp_path: Path, env: dict) -> list[str]:
    rel = page.relative_to(REPO).as_posix()
    found = blocks(page)
    namespace: dict = {"__name__": "model"}
    problems = []
    for i, block in enumerate(found):
        after = found[i + 1] if i + 1 < len(found) else None
        previous = found[i - 1] if i else None
        where = f"{rel}:{block.line}"
        if block.lang == "python":
            if ">>>" in block.body:
                if page.name == "README.md" and page.parent == REPO:
                    continue  # tests/test_readme.py runs these, one section at a time
                failed = _run_doctest(block, namespace, where, page)
                if failed:
                    problems.append(f"{where}: doctest failed\n{failed}")
                continue
            got = _run_python(block.body, namespace, "model.py")
            if after is not None and after.lang == "text":
                if not _matches(after.body, got):
                    problems.append(
                        f"{where}: the code printed\n{got}but the page shows\n{after.body}"
                    )
            elif re.search(r"^\w+(Error|Exception): ", got, re.M):
                problems.append(f"{where}: the code raised\n{got}")
        elif block.lang == "text":
            if previous is None or previous.lang != "python" or ">>>" in previous.body:
                problems.append(
                    f"{where}: a text block must follow the python block whose output it shows"
                )
        elif block.lang == "console":
            problems += [f"{rel}: {p}" for p in _console(block, env)]
        elif block.lang in ("bash", "sh"):
            for line in block.body.splitlines():
                problem = check_command(line) or run_command(line, env, tmp_path)
                if problem:
                    problems.append(f"{where}: {problem}")
        elif block.lang == "toml":
            problems += [f"{rel}: {p}" for p in _toml(block, tmp_path)]
        elif block.lang in _EDITOR_LANGS:
            problems += [f"{where}: {p}" for p in _editor_config(block)]
        else:
            problems.append(
                f"{where}: a code block needs a language this test runs "
                f"(python, text, console, bash, toml, json, yaml, lua, elisp), "
                f"not {block.lang!r}"
            )
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(REPO).as_posix() for p in PAGES])
def test_every_block_of_the_page_runs(page, scratch, tmp_path, cache_dir):
    env = {**os.environ, "TENSORTYPES_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(REPO / "src")}
    problems = page_problems(page, tmp_path, env)
    assert not problems, "\n\n".join(problems)


def test_the_pages_have_blocks():
    names = {p.relative_to(REPO).as_posix() for p in PAGES}
    assert {"README.md", "docs/check.md", "docs/checker.md", "docs/graph.md"} <= names
    assert {"CONTRIBUTING.md", "CHANGELOG.md", "examples/README.md"} <= names
    assert sum(len(blocks(p)) for p in PAGES) > 50


@pytest.mark.parametrize(
    "line,problem",
    [
        ("tensortypes check no/such/dir", "no such path"),
        ("tensortypes chek examples/", "refuses"),
        ("python -m tensortypes demo nosuchsection", "no demo section"),
        ('pip install "./tensortypes[nosuchextra]"', "no extra"),
        ("make nosuchtarget", "no target"),
        ("python benchmarks/nosuch.py", "no script"),
        ("python benchmarks/lattice.py --nosuchoption 3", "takes no option"),
        ("pytest --nosuch-packages=x", "registers no"),
        ("rm -rf /", "does not know"),
    ],
)
def test_a_wrong_command_is_caught(line, problem):
    assert problem in (check_command(line) or "")


def test_cheap_commands_of_bash_blocks_run(tmp_path):
    env = {**os.environ, "TENSORTYPES_CACHE_DIR": str(tmp_path / "cache")}
    assert run_command("python -m tensortypes demo --list", env, tmp_path) is None
    line = "tensortypes check examples/numpy_stats_buggy.py --output-format sarif > out.sarif"
    assert run_command(line, env, tmp_path) is None  # exit status 1: it found the errors
    sarif = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"]
    # A run that fails (here: no cache directory can be made) is reported with its output.
    (tmp_path / "file").write_text("", encoding="utf-8")
    broken = {**env, "TENSORTYPES_CACHE_DIR": str(tmp_path / "file" / "cache")}
    problem = run_command("tensortypes check examples/numpy_stats.py", broken, tmp_path)
    assert problem is not None and "exited with status 2" in problem and "cache" in problem
    assert run_command("pip install ./tensortypes", env, tmp_path) is None  # only checked


def test_a_text_block_must_follow_its_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```text\nfloating output\n```\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Path, "relative_to", lambda self, other: self)
        assert "must follow" in "".join(page_problems(page, tmp_path, dict(os.environ)))
