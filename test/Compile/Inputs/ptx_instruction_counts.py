#!/usr/bin/env python3
"""Per kernel of a PTX file, how often each asynchronous-unit instruction
occurs (tcgen05.*, cp.async.bulk*, mapa, cluster barriers, remote
mbarrier arrivals), one `kernel opcode count` line each, in opcode order:

  ptx_instruction_counts.py KERNEL.ptx [NAME-SUBSTRING]

Counting per kernel, independently of how the backend lays out blocks,
lets a test pin exact numbers."""
import re
import sys
from collections import Counter

OPCODE = re.compile(r"^\s*(tcgen05\.\S+|cp\.async\.bulk\S*|mapa\S*|"
                    r"barrier\.cluster\S*|mbarrier\.arrive\.release\S*)")
ENTRY = re.compile(r"^\.visible \.entry (\w+)\(")


def main():
    text = open(sys.argv[1]).read().splitlines()
    want = sys.argv[2] if len(sys.argv) > 2 else ""
    kernel, counts = None, {}
    for line in text:
        m = ENTRY.match(line)
        if m:
            kernel = m.group(1)
            counts[kernel] = Counter()
            continue
        m = OPCODE.match(line)
        if kernel and m:
            counts[kernel][m.group(1).rstrip(";")] += 1
    for kernel, tally in counts.items():
        if want not in kernel:
            continue
        for opcode in sorted(tally):
            print(kernel, opcode, tally[opcode])


if __name__ == "__main__":
    main()
