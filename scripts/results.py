#!/usr/bin/python3
"""Read one guest run: the console log (kernel messages, KUnit KTAP) and the
results channel (each topic's TAP). Print a table a person reads at a glance,
write JSON (and KTAP with --ktap), and end with "N passed, N failed". Exit
non-zero on any failure, a splat on the console, a run that did not
complete, or a topic or KUnit suite that did not complete: a topic's runner
that exited non-zero, printed no plan or a count of results other than its
plan fails the run with a line naming the topic, "after X of Y results" and
the exit status. Fixtures: scripts/test/fixtures/results/."""
import argparse
import json
import os
import re
import subprocess
import sys

# Console lines that mean the kernel is not healthy, whatever the tests say.
SPLATS = [
    r"Kernel panic", r"\bBUG:", r"\bOops\b", r"^\s*WARNING:", r"WARNING: CPU:",
    r"possible circular locking", r"possible recursive locking",
    r"inconsistent lock state", r"suspicious RCU usage",
    r"INFO: task .* blocked for more than", r"rcu: INFO: .* detected stalls",
    r"general protection fault", r"UBSAN:", r"kernel BUG at", r"Unable to handle",
    r"watchdog: .* (?:lockup|LOCKUP)", r"DEBUG_LOCKS_WARN_ON",
    r"self-detected stall", r"\bBUG \S+ \([^)]*\): ",
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


PLAN = re.compile(r"^1\.\.(\d+)\s*$")


def tap(body):
    """(status, name, directive) of a TAP/KTAP result line, or None."""
    m = TAP.match(body)
    return m and (m.group(1).lower(), m.group(3), (m.group(5) or "").upper())


def kunit(console):
    """KUnit test cases (4-space indented results inside a suite), and the
    suites that did not meet their plan: [(group, message)]."""
    res, problems = [], []
    suite = None            # [name, plan, results]
    top_plan, want_plan, started = None, False, 0

    def close(why):
        name, plan, n = suite
        if plan is None or n != plan or why:
            problems.append(("kunit:" + name, f"suite {name}: after {n} of {'?' if plan is None else plan} results"
                             + (" (no plan)" if plan is None else "") + (f", {why}" if why else "")))
    for line in console:
        body = TS.sub("", line).rstrip()
        if body == "KTAP version 1" and top_plan is None:
            want_plan = True
            continue
        m = PLAN.match(body)
        if m and want_plan:
            top_plan, want_plan = int(m.group(1)), False
            continue
        want_plan = False
        m = re.match(r"^    # Subtest: (\S+)", body)
        if m:
            if suite:
                close("no suite result line")
            suite = [m.group(1), None, 0]
            started += 1
            continue
        if suite is None:
            continue
        if body.startswith("    ") and not body.startswith("     "):
            m = PLAN.match(body[4:])
            if m and suite[1] is None:
                suite[1] = int(m.group(1))
                continue
            r = tap(body[4:])
            if r:
                suite[2] += 1
                res.append(("kunit:" + suite[0], r[1], r[0], r[2]))
            continue
        r = tap(body)
        if r and r[1] == suite[0]:
            close("")
            suite = None
    if suite:
        close("no suite result line (the kernel stopped inside it)")
    if top_plan is not None and started < top_plan:
        problems.append(("kunit", f"KUnit: after {started} of {top_plan} suites"))
    return res, problems


def kunit_dir():
    """tools/testing/kunit of the base tree (MM_KUNIT_DIR, else the cache's
    base), or None: the tree's own KTAP parser."""
    d = os.environ.get("MM_KUNIT_DIR")
    if d is None:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import libpaths
        d = os.path.join(libpaths.get().BASE, "tools", "testing", "kunit")
    return d if d and os.path.isfile(os.path.join(d, "kunit.py")) else None


def kunit_tree(console_path, console):
    """The tree's own parser on the console's KTAP (kunit.py parse): its
    errors (a plan not met, a missing result line, a number out of order,
    a crashed test), or None when the tree is not there or the console
    holds no KTAP. Bounded in time: a parser that hangs is an error too."""
    d = kunit_dir()
    if d is None or not any("KTAP version" in l for l in console):
        return None
    try:
        p = subprocess.run([sys.executable, os.path.join(d, "kunit.py"), "parse", os.path.abspath(console_path)],
                           capture_output=True, text=True, timeout=300, cwd=d)
    except subprocess.TimeoutExpired:
        return ["kunit.py parse did not finish in 300 s"]
    errs = [re.sub(r"^\[[0-9:]+\] ", "", l).strip() for l in p.stdout.splitlines()
            if "[ERROR]" in l or "[CRASHED]" in l]
    return [e for e in errs if e != "[CRASHED]"] or ([] if p.returncode == 0 or "FAILED" in p.stdout
                                                     else [f"kunit.py parse exited {p.returncode}"])


def status_word(r):
    """A result as kunit_parser's TestStatus names it."""
    return "SKIPPED" if r[2] == "SKIP" else ("SUCCESS" if r[0] == "ok" else "FAILURE")


def topic_tap(results):
    """Each topic's results between '### topic T' and '### end T rc=N', and
    the topics that did not complete: a runner that exited non-zero, no
    plan, more than one plan at the top level, a count of results other
    than the plan, no end line; a nested (indented) subtest whose count is
    not its plan. Indented results count as tests of the topic too."""
    res, problems, incomplete, tops = [], [], [], {}
    cur = None
    # guest/init writes KTAP: a plan of topics, each topic's output
    # indented by four under its '### topic' line (older runs: no plan,
    # output not indented)
    first = next((l.strip() for l in results if l.strip()), "")
    wrapped = first.startswith("KTAP version")
    run_plan, started = None, 0

    def close_nested(closer):
        nb = cur["nested"]
        cur["nested"] = None
        if nb and nb["plan"] is not None and nb["n"] != nb["plan"]:
            problems.append((cur["topic"], f"subtest '{closer}': after {nb['n']} of {nb['plan']} results"))

    def finish(rc):
        close_nested("(last, no result line)")
        t, plan, n = cur["topic"], cur["plan"], cur["n"]
        why = []
        if cur["plans"] > 1:
            why.append("more than one plan at the top level (a nested program's TAP not indented?)")
        elif cur["late_plan"]:
            why.append("its plan comes after its results (KTAP wants it first)")
        tops[t] = cur["top"]
        if rc is None or rc != 0 or plan is None or n != plan or why:
            msg = f"{t}: after {n} of {'?' if plan is None else plan} results"
            if plan is None:
                msg += " (no plan)"
            msg += ", no end line (the guest stopped inside it)" if rc is None else f", exit status {rc}"
            problems.append((t, "; ".join([msg] + why)))
            incomplete.append(dict(group=t, results=n, plan=plan, rc=rc))
    for line in results:
        line = line.rstrip("\r\n")
        m = re.match(r"^### topic (\S+)", line)
        if m:
            if cur:
                finish(None)
            cur = dict(topic=m.group(1), plan=None, plans=0, n=0, nested=None, late_plan=False, top=[])
            started += 1
            continue
        m = re.match(r"^### end (\S+) rc=(\d+)", line)
        if m:
            if cur:
                finish(int(m.group(2)))
            cur = None
            continue
        if cur is None:
            m = PLAN.match(line)
            if wrapped and m and run_plan is None:
                run_plan = int(m.group(1))
            continue
        if wrapped and line.startswith("    "):
            line = line[4:]
        body = line.lstrip(" \t")
        indent = len(line) - len(body)
        body = body.rstrip()
        if indent == 0:
            m = PLAN.match(body)
            if m:
                cur["plans"] += 1
                if cur["plan"] is None:
                    cur["plan"] = int(m.group(1))
                    cur["late_plan"] = cur["n"] > 0
                continue
            r = tap(body)
            if r:
                cur["n"] += 1
                cur["top"].append(status_word(r))
                close_nested(r[1])
                res.append((cur["topic"], r[1], r[0], r[2]))
            continue
        nb = cur["nested"]
        if nb is None:
            nb = cur["nested"] = dict(indent=indent, plan=None, n=0)
        if indent != nb["indent"]:
            continue
        m = PLAN.match(body)
        if m and nb["plan"] is None:
            nb["plan"] = int(m.group(1))
            continue
        r = tap(body)
        if r:
            nb["n"] += 1
            res.append((cur["topic"], r[1], r[0], r[2]))
    if cur:
        finish(None)
    if run_plan is not None and started < run_plan:
        problems.append(("topics", f"topics: after {started} of {run_plan} topics"))
    return res, problems, incomplete, tops


def topic_blocks(results):
    """Each topic's lines between '### topic T' and its end line (or the
    next topic, or the end), unindented as topic_tap reads them:
    [(topic, lines)]."""
    first = next((l.strip() for l in results if l.strip()), "")
    wrapped = first.startswith("KTAP version")
    blocks, cur = [], None
    for line in results:
        line = line.rstrip("\r\n")
        m = re.match(r"^### (topic|end) (\S+)", line)
        if m:
            cur = None
            if m.group(1) == "topic":
                cur = (m.group(2), [])
                blocks.append(cur)
            continue
        if cur is not None:
            cur[1].append(line[4:] if wrapped and line.startswith("    ") else line)
    return blocks


class Stuck(Exception):
    pass


def tree_parse_blocks(kdir, blocks):
    """kunit_parser (tools/testing/kunit) on each block: {topic: {"top":
    the statuses of its top-level results or None, "errors": [...]}}.
    Bounded in work, not only in time: kunit_parser loops for ever on a
    plan after the results (each turn parses a "test" that takes no line),
    so a block may call its parse_test at most once per line and once per
    planned test; past that the parse stops and says where it stuck."""
    import io
    sys.path.insert(0, kdir)
    import kunit_parser
    import kunit_printer
    orig = kunit_parser.parse_test
    out = {}
    for topic, lines in blocks:
        buf = io.StringIO()
        kunit_parser.stdout = kunit_printer.Printer(buf)
        budget = [len(lines) + sum(int(m.group(1)) for m in (re.match(r"^\s*1\.\.(\d+)", l) for l in lines) if m) + 2]

        def bounded(stream, expected_num, log, is_subtest):
            budget[0] -= 1
            if budget[0] < 0:
                at = stream.peek().strip()
                raise Stuck(f"stopped making progress at '{at}' (line {stream.line_number()} of the block)"
                            + (": a plan after the results, which it would loop on for ever"
                               if PLAN.match(at) else ""))
            return orig(stream, expected_num, log, is_subtest)
        kunit_parser.parse_test = bounded
        top, errors = None, []
        try:
            stream = kunit_parser.extract_tap_lines(lines)
            if not stream:
                errors.append("no KTAP or TAP version line")
            else:
                test = bounded(stream, 0, [], False)
                top = [t.status.name for t in test.subtests]
        except Stuck as e:
            errors.append(str(e))
        except Exception as e:      # its own error on input it cannot read
            errors.append(f"it failed: {type(e).__name__}: {e}")
        finally:
            kunit_parser.parse_test = orig
        said = []
        for l in buf.getvalue().splitlines():
            if "[ERROR]" in l:
                e = re.sub(r"^Test: main: ", "", l.split("[ERROR]", 1)[1].strip())
                said.append(e)
        # each message once, with how often it came
        errors[:0] = [e + (f" (x{said.count(e)})" if said.count(e) > 1 else "")
                      for i, e in enumerate(said) if e not in said[:i]]
        out[topic] = {"top": top, "errors": errors}
    return out


def topic_tree(blocks):
    """tree_parse_blocks in a child process bounded in time as well
    (MM_PARSER_TIMEOUT, 120 s: a backstop, a parse takes milliseconds),
    or None when the tree is not there."""
    d = kunit_dir()
    if d is None or not blocks:
        return None
    secs = int(os.environ.get("MM_PARSER_TIMEOUT", "120"))
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--tree-parse", d, "-"],
                           input=json.dumps(blocks), capture_output=True, text=True, timeout=secs)
    except subprocess.TimeoutExpired:
        return {t: {"top": None, "errors": [f"it did not finish in {secs} s"]} for t, _ in blocks}
    try:
        return json.loads(p.stdout)
    except ValueError:
        err = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        return {t: {"top": None, "errors": [f"it failed: {err}"]} for t, _ in blocks}


def tally(statuses):
    c = {}
    for x in statuses:
        c[x] = c.get(x, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(c.items())) or "none"


def tree_disagrees(tree, tops):
    """What kunit_parser finds wrong with each topic that this reader's own
    checks would not have failed it for: its errors, or top-level results
    other than the ones read here. {topic: [message]}."""
    out = {}
    for t, v in (tree or {}).items():
        why = list(v["errors"])
        ours = tops.get(t, [])
        if v["top"] is not None and v["top"] != ours:
            why.append(f"it reads {len(v['top'])} results ({tally(v['top'])}), "
                       f"this reader {len(ours)} ({tally(ours)})")
        if why:
            out[t] = why
    return out


def ktap_name(s):
    return s.replace("#", "\\#")


def write_ktap(path, rows, problems, done, bad):
    """The run as KTAP: one subtest per group (a KUnit suite, a topic), a
    line each for a run that did not complete and for console splats."""
    groups = []
    for g, *_ in rows + [(p[0],) for p in problems]:
        if g not in groups:
            groups.append(g)
    extra = (0 if done else 1) + (1 if bad else 0)
    out = ["KTAP version 1", f"1..{len(groups) + extra}"]
    i = 0
    for g in groups:
        i += 1
        mine = [r for r in rows if r[0] == g]
        why = [m for p, m in problems if p == g]
        # a plan not met is a failed test of its group, after its results
        out += ["    KTAP version 1", f"    # Subtest: {ktap_name(g)}", f"    1..{len(mine) + len(why)}"]
        for j, (_, name, status, skip) in enumerate(mine, 1):
            out.append(f"    {status} {j} {ktap_name(name)}" + (" # SKIP" if skip == "SKIP" else ""))
        for j, m in enumerate(why, len(mine) + 1):
            out.append(f"    not ok {j} {ktap_name(m)}")
        okay = not why and all(r[2] == "ok" or r[3] == "SKIP" for r in mine)
        out.append(f"{'ok' if okay else 'not ok'} {i} {ktap_name(g)}")
    if not done:
        i += 1
        out.append(f"not ok {i} boot # the guest did not complete (crash or hang)")
    if bad:
        i += 1
        out += [f"# splat: {b}" for b in bad[:20]]
        out.append(f"not ok {i} console # {len(bad)} splat lines")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def count_ktap(path):
    """Passed and failed leaves of a KTAP file (what make check counts for a
    step): an ok line without subtests passes unless it is a SKIP, a not ok
    line without subtests fails, and a not ok line whose subtests all passed
    (a plan not met, a crash after the last result) counts as one failure.
    A plan ("1..N", first or last at its level) that its level's results do
    not meet counts as one failure more: a step that stopped short fails."""
    acc = {}        # indentation -> [passed, failed, results, plan]

    def close(k):
        c = acc.pop(k)
        if c[3] is not None and c[2] != c[3]:
            c[1] += 1
        return c

    for line in open(path, errors="replace"):
        body = line.rstrip("\n").lstrip(" ")
        d = len(line.rstrip("\n")) - len(body)
        m = PLAN.match(body)
        if m:
            acc.setdefault(d, [0, 0, 0, None])[3] = int(m.group(1))
            continue
        r = tap(body.rstrip())
        if not r:
            continue
        deeper = [close(k) for k in sorted(k for k in acc if k > d)]
        if deeper:
            p = sum(c[0] for c in deeper)
            f = sum(c[1] for c in deeper)
            if r[0] == "not ok" and r[2] != "SKIP" and f == 0:
                f = 1
        else:
            p = int(r[0] == "ok" and r[2] != "SKIP")
            f = int(r[0] == "not ok" and r[2] != "SKIP")
        c = acc.setdefault(d, [0, 0, 0, None])
        c[0] += p
        c[1] += f
        c[2] += 1
    left = [close(k) for k in sorted(acc)]
    return sum(c[0] for c in left), sum(c[1] for c in left)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default="run")
    ap.add_argument("--json")
    ap.add_argument("--ktap", help="also write the run as KTAP to this file")
    ap.add_argument("--splat-only", action="store_true")
    ap.add_argument("--count-ktap", action="store_true",
                    help="print the passed and failed leaves of the KTAP file given")
    ap.add_argument("--tree-parse", metavar="KUNIT_DIR",
                    help="(internal) kunit_parser on the JSON [[topic, lines]] on stdin")
    ap.add_argument("console")
    ap.add_argument("results", nargs="?")
    a = ap.parse_args()
    if a.tree_parse:
        json.dump(tree_parse_blocks(a.tree_parse, json.load(sys.stdin)), sys.stdout)
        return 0
    if a.count_ktap:
        print(*count_ktap(a.console))
        return 0
    console = open(a.console, errors="replace").read().splitlines()
    bad = splats(console)
    if a.splat_only:
        for b in bad:
            print("splat:", b)
        return 1 if bad else 0
    results = open(a.results, errors="replace").read().splitlines() if a.results else []
    done = any("MEDLEY-DONE" in l for l in results)
    krows, kprob = kunit(console)
    # The tree's own parser checks the structure of KUnit's KTAP too: what
    # it finds wrong that the suites' plan checks above did not fails the
    # run once (its counts are not used: it counts a parameterised case's
    # parameters where this counts the case, as the topics' tests do).
    tree = kunit_tree(a.console, console)
    if tree and not kprob:
        kprob.append(("kunit", "KUnit, as tools/testing/kunit/kunit.py parse reads it: " + "; ".join(tree[:5])))
    trows, tprob, incomplete, tops = topic_tap(results)
    # Each topic's KTAP as the tree's own parser reads it: where it finds
    # something wrong, the topic fails (once: a topic that failed its own
    # checks already gets the parser's words added to that line).
    ttree = topic_tree(topic_blocks(results))
    for t, why in tree_disagrees(ttree, tops).items():
        msg = "tools/testing/kunit's kunit_parser: " + "; ".join(why[:3])
        mine = [i for i, p in enumerate(tprob) if p[0] == t]
        i = next((i for i in mine if tprob[i][1].startswith(t + ":")), mine[0] if mine else None)
        if i is None:
            tprob.append((t, f"{t}: {msg}"))
        else:
            tprob[i] = (t, f"{tprob[i][1]}; {msg}")
    rows, problems = krows + trows, kprob + tprob
    passed = sum(1 for r in rows if r[2] == "ok" and r[3] != "SKIP")
    skipped = sum(1 for r in rows if r[3] == "SKIP")
    failed = sum(1 for r in rows if r[2] == "not ok" and r[3] != "SKIP")
    width = max([len(r[0]) for r in rows] + [len(p[0]) for p in problems] + [6])
    for group, name, status, skip in rows:
        word = "SKIP" if skip == "SKIP" else ("PASS" if status == "ok" else "FAIL")
        print(f"  {word:4}  {group:{width}}  {name}")
    # A topic or suite that stopped short fails the run, whatever it passed.
    for group, msg in problems:
        print(f"  FAIL  {group:{width}}  {msg}")
    failed += len(problems)
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
                       "problems": [dict(group=g, message=m) for g, m in problems],
                       "incomplete": incomplete,
                       "kunit_parser": None if tree is None else {"errors": tree},
                       "topic_parser": ttree,
                       "passed": passed, "failed": failed, "skipped": skipped}, f, indent=1)
    if a.ktap:
        write_ktap(a.ktap, rows, problems, done, bad)
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{a.name}: {passed} passed, {failed} failed{tail}")
    return 1 if failed or not rows and not done else (0 if rows or done else 1)


if __name__ == "__main__":
    sys.exit(main())
