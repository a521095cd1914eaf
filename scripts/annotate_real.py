"""Run ``tensortypes annotate`` on a real GPT implementation from a snapshot, and judge it.

The snapshot (never committed) is found under ``$TENSORTYPES_SNAPSHOTS`` (``nanoGPT/``,
``minGPT/``, ``x-transformers/``) or given with ``--tree``. The tree is copied to a
temporary folder. For nanoGPT and minGPT (no test suite) a small driver of ours builds a
tiny model and runs what its users run (a forward pass with and without targets at
several batch and sequence sizes, and ``generate``); x-transformers is run with its own
test suite (``tests/test_x_transformers.py``, the tests of ``XT_TESTS``: the ones that
take seconds, not minutes, on a CPU). ``annotate run`` records it, ``annotate apply``
writes the annotations. Then the script prints the diff, counts the array annotations
written, runs ``tensortypes check`` on the annotated files, re-runs the driver under
the runtime checker (the import hook) or the tests under the pytest plugin, and plants
shape bugs to see which ``check`` catches.

    TENSORTYPES_SNAPSHOTS=/path/to/snapshots python scripts/annotate_real.py nanoGPT
    python scripts/annotate_real.py minGPT --tree /path/to/minGPT
    python scripts/annotate_real.py x-transformers --tree /path/to/x-transformers --keep out

x-transformers needs ``pip install einx einops loguru torch-einops-utils``.

Needs torch and libcst.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Realistic one-line shape bugs planted in the annotated source, one at a time:
# (what the line was, what it becomes, what kind of mistake it is).
BUGS = {
    "nanoGPT": [
        ("        x = self.c_proj(x)\n", "", "MLP: output projection dropped"),
        (
            "        x = x + self.mlp(self.ln_2(x))",
            "        x = x + self.mlp(self.ln_2(x)).mean(-1)",
            "Block: reduction without keepdim",
        ),
        (
            "        y = self.resid_dropout(self.c_proj(y))",
            "        y = self.resid_dropout(self.c_proj(y.transpose(1, 2)))",
            "attention: transpose before the projection",
        ),
        (
            "        x = x + self.attn(self.ln_1(x))",
            "        x = x + self.attn(self.ln_1(x)).transpose(0, 1)",
            "Block: axes swapped",
        ),
    ],
    "minGPT": [
        (
            "        x = x + self.attn(self.ln_1(x))",
            "        x = x + self.attn(self.ln_1(x)).sum(1)",
            "Block: reduction without keepdim",
        ),
        (
            "        y = self.resid_dropout(self.c_proj(y))",
            "        y = self.resid_dropout(self.c_proj(y.transpose(1, 2)))",
            "attention: transpose before the projection",
        ),
        (
            "        x = x + self.attn(self.ln_1(x))",
            "        x = x + self.attn(self.ln_1(x)).transpose(0, 1)",
            "Block: axes swapped",
        ),
    ],
    "x-transformers": [
        (
            "        return x + residual\n",
            "        return x + residual.mean(dim = -1)\n",
            "Residual: reduction without keepdim",
        ),
        (
            "        return normed * gamma\n",
            "        return normed.transpose(1, 2) * gamma\n",
            "LayerNorm: axes swapped before the gain",
        ),
        (
            "        token_emb = self.emb(x.long())\n",
            "        token_emb = self.emb(x.long()).sum(dim = 1)\n",
            "TokenEmbedding: embeddings summed over the sequence",
        ),
        (
            "        return F.normalize(x, dim = -1) * self.scale\n",
            "        return F.normalize(x, dim = -2) * self.scale\n",
            "SimpleRMSNorm: normalised over the wrong axis (no shape change)",
        ),
        (
            "        return self.rmsnorm(x) * (self.gamma + 1.)\n",
            "        return self.rmsnorm(x).transpose(1, 2) * (self.gamma + 1.)\n",
            "MultiheadRMSNorm: heads and sequence swapped",
        ),
        (
            "        x, gate = self.proj(x).chunk(2, dim = -1)\n",
            "        x, gate = self.proj(x).chunk(2, dim = 1)\n",
            "GLU: value and gate split along the sequence",
        ),
        (
            "    out = cat((t * freqs.cos(), t * freqs.sin()), dim = -1)\n",
            "    out = cat((t * freqs.cos(), t * freqs.sin()), dim = -2)\n",
            "polar embedding: halves joined along the sequence",
        ),
    ],
}

# What a user of each code base runs: build a tiny model (two widths), then a forward
# pass with and without targets at three batch/sequence sizes, and generate.
_RUN = """
torch.manual_seed(0)
for n_embd, n_head in ((32, 4), (48, 6)):
{build}
    for b, t in ((2, 5), (3, 9), (1, 16)):
        idx = torch.randint(0, 50, (b, t))
        logits, loss = model(idx)
        logits, loss = model(idx, targets=torch.randint(0, 50, (b, t)))
        model.generate(idx[:, :1 + t % 4], max_new_tokens=1 + b)
"""

DRIVERS = {
    "nanoGPT": (
        "model.py",
        "import torch\nfrom model import GPT, GPTConfig\n"
        + _RUN.format(
            build="    model = GPT(GPTConfig(block_size=16, vocab_size=50, n_layer=2, "
            "n_head=n_head,\n                          n_embd=n_embd, dropout=0.0, "
            "bias=True))"
        ),
    ),
    "minGPT": (
        "mingpt/model.py",
        "import torch\nfrom mingpt.model import GPT\n"
        + _RUN.format(
            build="    cfg = GPT.get_default_config()\n    cfg.model_type = None\n"
            "    cfg.vocab_size, cfg.block_size = 50, 16\n"
            "    cfg.n_layer, cfg.n_head, cfg.n_embd = 2, n_head, n_embd\n"
            "    model = GPT(cfg)"
        ),
    ),
}

# x-transformers' own tests that take seconds, not minutes, on a CPU (no network, no
# weights): decoders with caching, custom positions (ALiBi, rotary, relative), cross
# attention, the residual and feedforward variants, the latent decoder.
XT_TESTS = " or ".join(
    (
        "test_kv_cache",
        "test_custom_alibi",
        "test_custom_rotary_pos_emb",
        "test_cross_attn_rotary",
        "test_hybrid_cache",
        "test_caching_when_inputs_not_include_past",
        "test_belief_attn",
        "test_derf",
        "test_pope",
        "test_seq_start_pos_parity",
        "test_pos_emb_parity",
        "test_continuous_transformer_external_projects",
        "test_repeat_blocks_multiple",
        "test_looped",
        "test_orthog_residual",
        "test_mv_split_residual",
        "test_softclamp_ff",
        "test_kv_input_residual",
        "test_relative_proj_positional_bias",
        "test_xm_latent_decoder",
        "test_attn_gating",
    )
)

# Projects run with their own test suite: (package, pytest arguments).
SUITES = {
    "x-transformers": (
        "x_transformers",
        ["-p", "no:randomly", "tests/test_x_transformers.py", "-k", XT_TESTS],
    ),
}

HOOKED = """
import sys
import tensortypes
tensortypes.install_import_hook({package!r})
sys.argv = ["driver.py"]
exec(compile(open("driver.py").read(), "driver.py", "exec"))
"""


def run(cwd: Path, *args: str, ok=(0,)) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    if done.returncode not in ok:
        raise SystemExit(
            f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        )
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("project", choices=sorted([*DRIVERS, *SUITES]))
    parser.add_argument("--tree", default=None, help="the snapshot's folder")
    parser.add_argument("--keep", default=None, help="copy the annotated tree here")
    args = parser.parse_args()
    tree = (
        Path(args.tree)
        if args.tree
        else Path(os.environ.get("TENSORTYPES_SNAPSHOTS", "")) / args.project
    )
    if not tree.is_dir():
        print(f"skipped: no snapshot of {args.project} (set TENSORTYPES_SNAPSHOTS or --tree)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / args.project
        shutil.copytree(tree, work, ignore=shutil.ignore_patterns(".git", "*.ipynb"))
        if args.project in SUITES:
            package, tests = SUITES[args.project]
            program = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests]
            target = package
        else:
            source_rel, driver = DRIVERS[args.project]
            (work / "driver.py").write_text(driver)
            package = source_rel[:-3].replace("/", ".")
            program, target = ["python", "driver.py"], source_rel
        sources = sorted(work.rglob("*.py"))
        originals = {path: path.read_text() for path in sources}
        run(
            work,
            "-m",
            "tensortypes",
            "annotate",
            "run",
            "--trace",
            "t.sqlite3",
            "--include",
            package,
            "--",
            *program,
        )
        diff = run(
            work, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3", "--diff"
        ).stdout
        run(work, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3")
        annotated = {
            path: path.read_text() for path in sources if path.read_text() != originals[path]
        }
        print(diff)
        arrays = sum(
            len(re.findall(r"(?:Float|Int|Bool|Shaped|Real|UInt)\w*\[", text))
            for text in annotated.values()
        )
        print(f"array annotations written: {arrays} in {len(annotated)} files")
        check = run(work, "-m", "tensortypes", "check", "--no-cache", target, ok=(0, 1))
        print("tensortypes check on the annotated code:")
        print(check.stdout)
        if args.project in SUITES:
            hooked = run(
                work,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--tensortypes-packages={package}",
                *SUITES[args.project][1],
                ok=(0, 1, 2),
            )
            print("tests under the runtime checker:", hooked.stdout.strip().splitlines()[-1])
            if hooked.returncode:
                print(hooked.stdout[-3000:])
        else:
            (work / "hooked.py").write_text(HOOKED.format(package=package))
            hooked = run(work, "hooked.py", ok=(0, 1))
            print(
                "driver under the runtime checker:",
                "passed" if hooked.returncode == 0 else "FAILED\n" + hooked.stderr[-2000:],
            )
        # A report the unplanted code already has is no catch (line numbers aside).
        baseline = {
            line.split(": error:", 1)[1] for line in check.stdout.splitlines() if ": error:" in line
        }
        caught = 0
        for before, after, what in BUGS[args.project]:
            where = [path for path, text in annotated.items() if before in text]
            if not where:
                print(f"bug not planted (line not found): {what}")
                continue
            where[0].write_text(annotated[where[0]].replace(before, after, 1))
            found = run(work, "-m", "tensortypes", "check", "--no-cache", target, ok=(0, 1))
            where[0].write_text(annotated[where[0]])
            errors = [
                line
                for line in found.stdout.splitlines()
                if ": error:" in line and line.split(": error:", 1)[1] not in baseline
            ]
            caught += bool(errors)
            print(f"planted: {what}: " + (f"caught: {errors[0]}" if errors else "missed"))
        print(f"planted bugs caught by check: {caught} of {len(BUGS[args.project])}")
        if args.keep:
            shutil.copytree(work, args.keep, dirs_exist_ok=True)


if __name__ == "__main__":
    main()
