#!/usr/bin/python3
"""Print the check-series table of a topic from out/checks/<topic>/*.tsv and
write out/checks/<topic>/summary.json (machine-readable). (The checks'
result lines, what make check reads, are checks.ktap beside them: written
by scripts/check-series.sh.)"""
import json
import os
import sys

import libpaths

topic, npatch, checks = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cdir = os.path.join(libpaths.get().OUT, "checks", topic)
cols = [str(i) for i in range(1, npatch + 1)] + ["series"]
rows, notes, summary = [], [], {}
for c in checks:
    cells = {}
    try:
        for line in open(os.path.join(cdir, c + ".tsv")):
            parts = line.rstrip("\n").split("\t") + ["", ""]
            cells[parts[0]] = parts[1]
            if parts[2] and (parts[1] not in ("ok", "-") or parts[0] == "series" or parts[1] == "ok*"):
                if parts[1] != "ok" or c in ("sparse", "coccinelle", "kernel-doc", "cover-letter"):
                    notes.append(f"{c} {parts[0]}: {parts[2]}")
    except FileNotFoundError:
        pass
    rows.append((c, [cells.get(col, "") for col in cols]))
    summary[c] = cells
w = max(len(c) for c in checks) + 2
print(f"\n{topic}: {npatch} patches")
print(" " * w + " ".join(f"{c:>6}" for c in cols))
for c, cells in rows:
    print(f"{c:<{w}}" + " ".join(f"{x or '.':>6}" for x in cells))
for n in notes:
    print("  " + n)
print()
with open(os.path.join(cdir, "summary.json"), "w") as f:
    json.dump({"topic": topic, "patches": npatch, "checks": summary}, f, indent=1)

