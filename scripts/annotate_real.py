"""Run ``tensortypes annotate`` on a real GPT implementation from a snapshot, and judge it.

The snapshot (never committed) is found under ``$TENSORTYPES_SNAPSHOTS`` (``nanoGPT/``,
``minGPT/``) or given with ``--tree``. The tree is copied to a temporary folder; a small
driver of ours builds a tiny model of that code base and runs what its users run (a
forward pass with and without targets at several batch and sequence sizes, and
``generate``); ``annotate run`` records it, ``annotate apply`` writes the annotations.
Then the script prints the diff, counts the array parameters annotated, runs
``tensortypes check`` on the annotated file, re-runs the driver under the runtime
checker (the import hook), and plants shape bugs to see which ``check`` catches.

    TENSORTYPES_SNAPSHOTS=/path/to/snapshots python scripts/annotate_real.py nanoGPT
    python scripts/annotate_real.py minGPT --tree /path/to/minGPT

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
        ("        x = x + self.mlp(self.ln_2(x))",
         "        x = x + self.mlp(self.ln_2(x)).mean(-1)", "Block: reduction without keepdim"),
        ("        y = self.resid_dropout(self.c_proj(y))",
         "        y = self.resid_dropout(self.c_proj(y.transpose(1, 2)))",
         "attention: transpose before the projection"),
        ("        x = x + self.attn(self.ln_1(x))",
         "        x = x + self.attn(self.ln_1(x)).transpose(0, 1)", "Block: axes swapped"),
    ],
    "minGPT": [
        ("        x = x + self.attn(self.ln_1(x))",
         "        x = x + self.attn(self.ln_1(x)).sum(1)", "Block: reduction without keepdim"),
        ("        y = self.resid_dropout(self.c_proj(y))",
         "        y = self.resid_dropout(self.c_proj(y.transpose(1, 2)))",
         "attention: transpose before the projection"),
        ("        x = x + self.attn(self.ln_1(x))",
         "        x = x + self.attn(self.ln_1(x)).transpose(0, 1)", "Block: axes swapped"),
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
    "nanoGPT": ("model.py", "import torch\nfrom model import GPT, GPTConfig\n" + _RUN.format(
        build="    model = GPT(GPTConfig(block_size=16, vocab_size=50, n_layer=2, "
              "n_head=n_head,\n                          n_embd=n_embd, dropout=0.0, "
              "bias=True))")),
    "minGPT": ("mingpt/model.py", "import torch\nfrom mingpt.model import GPT\n" + _RUN.format(
        build="    cfg = GPT.get_default_config()\n    cfg.model_type = None\n"
              "    cfg.vocab_size, cfg.block_size = 50, 16\n"
              "    cfg.n_layer, cfg.n_head, cfg.n_embd = 2, n_head, n_embd\n"
              "    model = GPT(cfg)")),
}

HOOKED = """
import sys
import tensortypes
tensortypes.install_import_hook({package!r})
sys.argv = ["driver.py"]
exec(compile(open("driver.py").read(), "driver.py", "exec"))
"""


def run(cwd: Path, *args: str, ok=(0,)) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}\n"
                         f"{done.stderr}")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("project", choices=sorted(DRIVERS))
    parser.add_argument("--tree", default=None, help="the snapshot's folder")
    parser.add_argument("--keep", default=None, help="copy the annotated tree here")
    args = parser.parse_args()
    tree = Path(args.tree) if args.tree else \
        Path(os.environ.get("TENSORTYPES_SNAPSHOTS", "")) / args.project
    if not tree.is_dir():
        print(f"skipped: no snapshot of {args.project} (set TENSORTYPES_SNAPSHOTS or --tree)")
        return
    source_rel, driver = DRIVERS[args.project]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / args.project
        shutil.copytree(tree, work, ignore=shutil.ignore_patterns(".git", "*.ipynb"))
        (work / "driver.py").write_text(driver)
        source = work / source_rel
        original = source.read_text()
        package = source_rel[:-3].replace("/", ".")
        run(work, "-m", "tensortypes", "annotate", "run", "--trace", "t.sqlite3",
            "--include", package, "--", "python", "driver.py")
        diff = run(work, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3",
                   "--diff").stdout
        run(work, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3")
        annotated = source.read_text()
        print(diff)
        arrays = len(re.findall(r"(?:Float|Int|Bool|Shaped|Real)\w*\[", annotated))
        print(f"array annotations written: {arrays}")
        check = run(work, "-m", "tensortypes", "check", "--no-cache", source_rel, ok=(0, 1))
        print("tensortypes check on the annotated file:")
        print(check.stdout)
        (work / "hooked.py").write_text(HOOKED.format(package=package))
        hooked = run(work, "hooked.py", ok=(0, 1))
        print("driver under the runtime checker:",
              "passed" if hooked.returncode == 0 else "FAILED\n" + hooked.stderr[-2000:])
        # A report the unplanted file already has is no catch (line numbers aside).
        baseline = {line.split(": error:", 1)[1] for line in check.stdout.splitlines()
                    if ": error:" in line}
        caught = 0
        for before, after, what in BUGS[args.project]:
            if before not in annotated:
                print(f"bug not planted (line not found): {what}")
                continue
            source.write_text(annotated.replace(before, after, 1))
            found = run(work, "-m", "tensortypes", "check", "--no-cache", source_rel, ok=(0, 1))
            errors = [line for line in found.stdout.splitlines() if ": error:" in line
                      and line.split(": error:", 1)[1] not in baseline]
            caught += bool(errors)
            print(f"planted: {what}: " + (f"caught: {errors[0]}" if errors else "missed"))
        source.write_text(annotated)
        print(f"planted bugs caught by check: {caught} of {len(BUGS[args.project])}")
        if args.keep:
            shutil.copytree(work, args.keep, dirs_exist_ok=True)
        del original


if __name__ == "__main__":
    main()
