#!/usr/bin/env python3
"""Prints the fenced code blocks of a Markdown file whose info string is
LANG (```LANG), the INDEX-th of them (0-based), so tests can run the
README's examples exactly as written:

  readme_blocks.py README.md mlir 0
"""
import sys


def blocks(text, lang):
    found, current = [], None
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if current is None and stripped == "```" + lang:
            current = []
        elif current is not None and stripped == "```":
            found.append("".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return found


def main():
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)
    path, lang, index = sys.argv[1], sys.argv[2], int(sys.argv[3])
    found = blocks(open(path).read(), lang)
    if index >= len(found):
        sys.exit(f"{path} has {len(found)} ```{lang} blocks, not {index + 1}")
    sys.stdout.write(found[index])


if __name__ == "__main__":
    main()
