#!/usr/bin/python3
"""Read one guest run: the console log (kernel messages, KUnit KTAP) and the
results channel (each topic's TAP). Print a table a person reads at a glance,
write JSON, and end with "N passed, N failed". Exit non-zero on any failure,
a splat on the console, or a run that did not complete."""
import argparse
import json
import re
import sys

# Console lines that mean the kernel is not healthy, whatever the tests say.
SPLATS = [
    r"Kernel panic", r"\bBUG:", r"\bOops\b", r"^\s*WARNING:", r"WARNING: CPU:",
    r"possible circular locking", r"possible recursive locking",
    r"inconsistent lock state", r"suspicious RCU usage",
    r"INFO: task .* blocked for more than", r"rcu: INFO: .* detected stalls",
    r"general protection fault", r"UBSAN:", r"kernel BUG at", r"Unable to handle",
    r"watchdog: .* lockup", r"DEBUG_LOCKS_WARN_ON",
]
SPLAT_RE = re.compile("|".join(SPLATS))
TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
TAP = re.compile(r"^(not ok|ok)\s+(\d+)\s*(?:-\s*)?(.*?)(\s+#\s*(SKIP|TODO)\b.*)?$", re.I)


def splats(console):
    found = []
    for line in console:
        body = TS.sub("", line)
        if SPLAT_RE.search(body):
            found.append(body.strip())
    return found


def kunit(console):
    """KUnit test cases: 4-space indented results inside a suite."""
    res = []
    suite = None
    for line in console:
        body = TS.sub("", line).rstrip()
        m = re.match(r"^    # Subtest: (\S+)", body)
        if m:
            suite = m.group(1)
            continue
        m = TAP.match(body[4:]) if body.startswith("    ") and not body.startswith("     ") else None
        if m and suite:
            res.append(("kunit:" + suite, m.group(3), m.group(1).lower(), (m.group(5) or "").upper()))
    return res


def topic_tap(results):
    res = []
    topic = None
    for line in results:
        line = line.rstrip("\r\n")
        m = re.match(r"^### topic (\S+)", line)
        if m:
            topic = m.group(1)
            continue
        m = re.match(r"^### end (\S+) rc=(\d+)", line)
        if m:
            topic = None
            continue
        if topic is None:
            continue
        m = TAP.match(line)
        if m:
            res.append((topic, m.group(3), m.group(1).lower(), (m.group(5) or "").upper()))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default="run")
    ap.add_argument("--json")
    ap.add_argument("--splat-only", action="store_true")
    ap.add_argument("console")
    ap.add_argument("results", nargs="?")
    a = ap.parse_args()
    console = open(a.console, errors="replace").read().splitlines()
    bad = splats(console)
    if a.splat_only:
        for b in bad:
            print("splat:", b)
        return 1 if bad else 0
    results = open(a.results, errors="replace").read().splitlines() if a.results else []
    done = any("MEDLEY-DONE" in l for l in results)
    rows = kunit(console) + topic_tap(results)
    passed = sum(1 for r in rows if r[2] == "ok" and r[3] != "SKIP")
    skipped = sum(1 for r in rows if r[3] == "SKIP")
    failed = sum(1 for r in rows if r[2] == "not ok" and r[3] != "SKIP")
    width = max([len(r[0]) for r in rows] + [6])
    for group, name, status, skip in rows:
        word = "SKIP" if skip == "SKIP" else ("PASS" if status == "ok" else "FAIL")
        print(f"  {word:4}  {group:{width}}  {name}")
    if not done:
        print(f"  FAIL  {'boot':{width}}  the guest did not complete (crash or hang)")
        failed += 1
    for b in bad[:20]:
        print(f"  FAIL  {'console':{width}}  {b[:100]}")
    if bad:
        failed += 1
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"name": a.name, "completed": done, "splats": bad,
                       "tests": [dict(group=g, name=n, status=s, directive=d) for g, n, s, d in rows],
                       "passed": passed, "failed": failed, "skipped": skipped}, f, indent=1)
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{a.name}: {passed} passed, {failed} failed{tail}")
    return 1 if failed or not rows and not done else (0 if rows or done else 1)


if __name__ == "__main__":
    sys.exit(main())
