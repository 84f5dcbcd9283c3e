#!/usr/bin/env python3
"""Runs every ```mlir block of the ODS descriptions through tile-opt.

Usage: check_td_examples.py TILE_OPT TD_DIR

Each block must parse and verify on its own; the script prints one line per
block and exits non-zero if any block fails or if no block was found.
"""
import pathlib
import re
import subprocess
import sys


def main() -> int:
    tile_opt, td_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    block = re.compile(r"```mlir\n(.*?)```", re.S)
    checked, failed = 0, 0
    for td in sorted(td_dir.glob("*.td")):
        for i, match in enumerate(block.finditer(td.read_text())):
            text = "\n".join(l.strip() for l in match.group(1).splitlines())
            run = subprocess.run([tile_opt, "-"], input=text, text=True,
                                 capture_output=True)
            checked += 1
            status = "ok" if run.returncode == 0 else "FAILED"
            print(f"{td.name} example {i}: {status}")
            if run.returncode != 0:
                failed += 1
                print(run.stderr, file=sys.stderr)
    print(f"{checked} examples checked, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
