#!/usr/bin/python3
"""The peer regression rule: no selftests/mm program that passes on base may
fail on a topic (or the medley). Reads out/boot/<kernel>/results.json; TAP."""
import json
import os
import re
import sys

root, base, others = sys.argv[1], sys.argv[2], sys.argv[3:]
SMALL = re.compile(r"\(guest has \d+ MiB, needs \d+\)")


def peer(kernel):
    try:
        d = json.load(open(os.path.join(root, kernel, "results.json")))
    except (OSError, ValueError):
        return None
    return {re.sub(r"\s*\(.*$", "", t["name"]): t for t in d["tests"] if t["group"] == "peer"}


b = peer(base)
n = 0
if b is None:
    print("not ok 1 - no peer results for base")
    sys.exit(1)
fails = 0
for k in others:
    r = peer(k)
    n += 1
    if r is None:
        print(f"not ok {n} - {k}: no peer results (boot failed?)")
        fails += 1
        continue
    # a skip where base passed is a lost test, not a pass, unless the
    # subset itself declared the guest too small for it (guest/peer/tests)
    regress = [name + (" (skipped)" if name in r and r[name]["status"] == "ok" else "")
               for name, t in b.items()
               if t["status"] == "ok" and t["directive"] != "SKIP"
               and (name not in r or r[name]["status"] != "ok"
                    or (r[name]["directive"] == "SKIP" and not SMALL.search(r[name]["name"])))]
    if regress:
        print(f"not ok {n} - {k}: passes on base, fails here: {', '.join(regress)}")
        fails += 1
    else:
        print(f"ok {n} - {k}: all {sum(1 for t in b.values() if t['status'] == 'ok')} base passes still pass")
print(f"1..{n}")
sys.exit(1 if fails else 0)
