#!/usr/bin/env python3
"""Runs the ```sh blocks of Markdown pages as written, from the repository
root, so the docs cannot drift from the tools:

  run_doc_commands.py --root REPO --bin BUILD/bin PAGE.md...

`build/bin/` in a block names the tools of --bin, `/tmp/` a scratch
directory. A block must exit 0, unless the line before its fence is

  <!-- doc-test: fails -->          (it shows an error: it must exit non-zero)
  <!-- doc-test: skip REASON -->    (it needs what a test cannot have: a GPU,
                                     the whole build, root)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

MARK = re.compile(r"<!--\s*doc-test:\s*(fails|skip)\b(.*?)-->")


def sh_blocks(text):
    """(line number, marker or None, code) of every ```sh block."""
    lines = text.splitlines(keepends=True)
    found, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            marker = None
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0 and (m := MARK.search(lines[j])):
                marker = m.group(1)
            k = i + 1
            while k < len(lines) and lines[k].strip() != "```":
                k += 1
            found.append((i + 1, marker, "".join(lines[i + 1:k])))
            i = k
        i += 1
    return found


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    failures, ran = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        for page in args.pages:
            for line, marker, code in sh_blocks(open(page).read()):
                where = f"{os.path.relpath(page, args.root)}:{line}"
                if marker == "skip":
                    continue
                # Scratch first: the tools' own path may lie under /tmp.
                code = code.replace("/tmp/", scratch + "/")
                code = code.replace("build/bin/", args.bin.rstrip("/") + "/")
                run = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code],
                                     cwd=args.root, capture_output=True, text=True)
                ran += 1
                expected_failure = marker == "fails"
                if (run.returncode != 0) != expected_failure:
                    failures.append(where)
                    print(f"FAIL {where}: exit {run.returncode}, expected "
                          f"{'non-zero' if expected_failure else '0'}\n{code}"
                          f"--- stdout\n{run.stdout[-2000:]}--- stderr\n"
                          f"{run.stderr[-2000:]}")
                else:
                    print(f"ok   {where}")
    print(f"{ran} blocks run, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
