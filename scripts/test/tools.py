#!/usr/bin/python3
"""Unit tests of the repository's Python tools (results.py, check-table.py,
peer-compare.py, b4-cover.py, the guest reports' folders) and of how
check-series.sh reads the checks' result lines, on fixtures, as TAP. No
kernel, no guest: each test runs a tool on a few made-up files and reads
what it prints and writes. make check runs this first (step unit); it
takes seconds (13 s under nice -n 19 beside a make check, 2026-12-07)."""
import importlib.machinery
import importlib.util
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
S = os.path.dirname(HERE)
FIX = os.path.join(HERE, "fixtures")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
_spec = importlib.util.spec_from_file_location("results", os.path.join(S, "results.py"))
RESULTS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RESULTS)


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    # (a bound on a tool that loops, so that it fails here instead of
    # hanging make test-scripts; no test reads how long a tool took)
    try:
        p = subprocess.run([PY] + list(args), capture_output=True, text=True, env=e, timeout=600)
    except subprocess.TimeoutExpired as x:
        return -1, (x.stdout or b"").decode(errors="replace") if isinstance(x.stdout, bytes) else (x.stdout or ""), \
            f"{args[0]} did not finish in 600 s"
    return p.returncode, p.stdout, p.stderr


def results(*args, env=None):
    """scripts/results.py ARGS..."""
    return run(os.path.join(S, "results.py"), *args, env=env)


def fixture(case):
    """A results fixture's console.log (medley-real's when it has none of
    its own) and results.txt."""
    d = os.path.join(FIX, "results", case)
    console = os.path.join(d, "console.log")
    if not os.path.exists(console):
        console = os.path.join(FIX, "results", "medley-real", "console.log")
    return console, os.path.join(d, "results.txt")


def squash(s):
    return re.sub(r"\s+", " ", s).strip()


class ResultsFixtures(unittest.TestCase):
    """scripts/test/fixtures/results/<case>: console.log, results.txt, expect."""

    def check_case(self, case):
        d = os.path.join(FIX, "results", case)
        expect = open(os.path.join(d, "expect")).read().splitlines()
        # "console CASE": that case's console.log (a large one is not copied)
        console = next((os.path.join(FIX, "results", e.split()[1], "console.log")
                        for e in expect if e.startswith("console ")), os.path.join(d, "console.log"))
        with tempfile.TemporaryDirectory() as t:
            js = os.path.join(t, "r.json")
            rc, out, err = results("--name", case, "--json", js, console, os.path.join(d, "results.txt"))
            lines = [squash(x) for x in out.splitlines()]
            msg = f"\n--- results.py said (rc {rc}):\n{out}{err}"
            for e in expect:
                kind, _, arg = e.partition(" ")
                if kind == "console":
                    pass
                elif kind == "needs":
                    if arg == "kunit-tree" and RESULTS.kunit_dir() is None:
                        self.skipTest("no tools/testing/kunit (make base)")
                elif kind == "rc":
                    self.assertEqual(rc, int(arg), "exit status" + msg)
                elif kind == "summary":
                    self.assertTrue(lines and lines[-1].endswith(arg), f"summary '{arg}'" + msg)
                elif kind == "fail":
                    parts = [p.strip() for p in arg.split("|")]
                    self.assertTrue(any(x.startswith("FAIL ") and all(p in x for p in parts) for x in lines),
                                    f"one FAIL line with {parts}" + msg)
                elif kind == "line":
                    self.assertTrue(any(squash(arg) in x for x in lines), f"a line with '{arg}'" + msg)
                else:
                    self.fail(f"{case}/expect: unknown check '{e}'")
            j = json.load(open(js))
            self.assertEqual(j["failed"] == 0, rc == 0, "JSON failed count agrees with the exit status" + msg)


def _add_fixture_tests():
    for case in sorted(os.listdir(os.path.join(FIX, "results"))):
        if not os.path.isdir(os.path.join(FIX, "results", case)):
            continue
        setattr(ResultsFixtures, "test_" + case.replace("-", "_"),
                lambda self, c=case: self.check_case(c))


_add_fixture_tests()


class ResultsJson(unittest.TestCase):
    def test_json_names_the_incomplete_topic(self):
        with tempfile.TemporaryDirectory() as t:
            js = os.path.join(t, "r.json")
            results("--json", js, *fixture("crash-sksm"))
            j = json.load(open(js))
            self.assertEqual(j["passed"], 2)
            self.assertEqual(j["failed"], 1)
            inc = j["incomplete"]
            self.assertEqual(len(inc), 1)
            self.assertEqual((inc[0]["group"], inc[0]["results"], inc[0]["plan"], inc[0]["rc"]),
                             ("sksm", 2, 7, 139))

    def test_without_the_tree_parser(self):
        """No base tree: the KUnit plan checks still run, the tree's parser
        is left out (and the JSON says so)."""
        fx = fixture("kunit-numbering")
        with tempfile.TemporaryDirectory() as t:
            js = os.path.join(t, "r.json")
            rc, out, _ = results("--json", js, *fx, env={"MM_KUNIT_DIR": os.path.join(t, "none")})
            self.assertEqual(rc, 0, out)
            self.assertIsNone(json.load(open(js))["kunit_parser"])
            fx = fixture("kunit-short")
            rc, out, _ = results(*fx, env={"MM_KUNIT_DIR": os.path.join(t, "none")})
            self.assertEqual(rc, 1, out)
            self.assertIn("suite suite_a: after 2 of 3 results", out)

    def test_topic_parser_bounded(self):
        """kunit_parser runs in a child bounded in time as well as in work:
        a parser that never returns (here a stand-in that loops) fails the
        topic with a line that says so, and results.py still ends."""
        fx = fixture("plan-first")
        with tempfile.TemporaryDirectory() as t:
            k = os.path.join(t, "kunit")
            os.makedirs(k)
            open(os.path.join(k, "kunit.py"), "w").write("")
            open(os.path.join(k, "kunit_printer.py"), "w").write(
                "class Printer:\n    def __init__(self, out):\n        pass\n")
            open(os.path.join(k, "kunit_parser.py"), "w").write(
                "def parse_test(*a):\n    pass\n\ndef extract_tap_lines(lines):\n    while True:\n        pass\n")
            rc, out, err = results(*fx, env={"MM_KUNIT_DIR": k, "MM_PARSER_TIMEOUT": "2"})
            self.assertEqual(rc, 1, out + err)
            self.assertIn("sksm: tools/testing/kunit's kunit_parser: it did not finish in 2 s", squash(out))

    def test_plan_last_without_the_tree(self):
        """No base tree: a plan after the results still fails the topic,
        by this reader's own check."""
        fx = fixture("plan-last")
        with tempfile.TemporaryDirectory() as t:
            rc, out, _ = results(*fx, env={"MM_KUNIT_DIR": os.path.join(t, "none")})
            self.assertEqual(rc, 1, out)
            self.assertIn("kpromoted: after 2 of 2 results, exit status 0; its plan comes after its results", out)
            self.assertNotIn("kunit_parser", out)

    def test_splat_only(self):
        with tempfile.TemporaryDirectory() as t:
            c = os.path.join(t, "c.log")
            open(c, "w").write("[    1.0] ok\n[    2.0] BUG: KASAN: slab-use-after-free in foo\n")
            rc, out, _ = results("--splat-only", c)
            self.assertEqual(rc, 1)
            self.assertIn("splat: BUG: KASAN", out)
            open(c, "w").write("[    1.0] ok\n")
            self.assertEqual(results("--splat-only", c)[0], 0)
            for line in ("rcu: INFO: rcu_sched self-detected stall on CPU",
                         "watchdog: Watchdog detected hard LOCKUP on cpu 1",
                         "BUG kmalloc-64 (Not tainted): Poison overwritten"):
                open(c, "w").write(f"[    1.0] ok\n[    2.0] {line}\n")
                self.assertEqual(results("--splat-only", c)[0], 1, line)

    def test_ktap_output(self):
        """--ktap: the run as KTAP, one subtest per group, what make check reads."""
        with tempfile.TemporaryDirectory() as t:
            k = os.path.join(t, "r.ktap")
            results("--ktap", k, *fixture("crash-sksm"))
            text = open(k).read()
            self.assertTrue(text.startswith("KTAP version 1\n"), text)
            self.assertIn("    ok 1 a\n", text)
            self.assertIn("    not ok 3 sksm: after 2 of 7 results, exit status 139", text)
            self.assertIn("\nnot ok 1 sksm\n", text)

    def test_ktap_counts_agree_with_json(self):
        """make check counts a boot from its KTAP: the same passes and
        failures as the JSON, for every fixture."""
        for case in sorted(os.listdir(os.path.join(FIX, "results"))):
            d = os.path.join(FIX, "results", case)
            if not os.path.isdir(d):
                continue
            with tempfile.TemporaryDirectory() as t:
                k, js = os.path.join(t, "r.ktap"), os.path.join(t, "r.json")
                results("--ktap", k, "--json", js, *fixture(case))
                j = json.load(open(js))
                rc, out, err = results("--count-ktap", k)
                self.assertEqual(out.split(), [str(j["passed"]), str(j["failed"])],
                                 f"{case}: KTAP counts vs JSON\n{open(k).read()}{err}")

    def test_count_ktap(self):
        """Leaves count; a failed parent whose subtests passed counts once;
        a SKIP counts neither way; plain TAP is KTAP without nesting."""
        with tempfile.TemporaryDirectory() as t:
            k = os.path.join(t, "x.ktap")
            open(k, "w").write("\n".join([
                "KTAP version 1", "1..4",
                "    KTAP version 1", "    # Subtest: a", "    1..2",
                "        ok 1 deep", "        not ok 2 deep2", "    not ok 1 a1",
                "    ok 2 a2 # SKIP no", "not ok 1 a",
                "    ok 1 b1", "not ok 2 b # plan not met",
                "ok 3 c", "not ok 4 d # SKIP later", ""]))
            self.assertEqual(results("--count-ktap", k)[1].split(), ["3", "2"])
            open(k, "w").write("TAP version 13\n1..3\nok 1 - x\nnot ok 2 - y\n# c\nok 3 - z\n")
            self.assertEqual(results("--count-ktap", k)[1].split(), ["2", "1"])
            # a step that stopped short of its plan fails, at any level
            open(k, "w").write("KTAP version 1\n1..5\nok 1 a\n")
            self.assertEqual(results("--count-ktap", k)[1].split(), ["1", "1"])
            open(k, "w").write("KTAP version 1\n1..2\n    1..3\n    ok 1 x\n    ok 2 y\nok 1 a\nok 2 b\n")
            self.assertEqual(results("--count-ktap", k)[1].split(), ["3", "1"])
            open(k, "w").write("KTAP version 1\nok 1 a\nok 2 b\n1..2\n")
            self.assertEqual(results("--count-ktap", k)[1].split(), ["2", "0"])


class CheckTable(unittest.TestCase):
    def test_table_and_summary(self):
        with tempfile.TemporaryDirectory() as t:
            cdir = os.path.join(t, "checks", "demo")
            os.makedirs(cdir)
            open(os.path.join(cdir, "build.tsv"), "w").write("1\tok\t\n2\tFAIL\tmm/x.c:3: error: foo\nseries\tok\t\n")
            open(os.path.join(cdir, "sparse.tsv"), "w").write("1\tok*\t1 warning as on base\n2\t-\t\n")
            rc, out, err = run(os.path.join(S, "check-table.py"), "demo", "2", "build", "sparse", "checkpatch",
                               env={"MM_OUT": t})
            self.assertEqual(rc, 0, err)
            rows = {x.split()[0]: x.split()[1:] for x in out.splitlines() if x.strip() and not x.startswith(" ")}
            self.assertEqual(rows["build"], ["ok", "FAIL", "ok"])
            self.assertEqual(rows["sparse"], ["ok*", "-", "."])
            self.assertEqual(rows["checkpatch"], [".", ".", "."])
            self.assertIn("  build 2: mm/x.c:3: error: foo", out)
            self.assertIn("  sparse 1: 1 warning as on base", out)
            j = json.load(open(os.path.join(cdir, "summary.json")))
            self.assertEqual(j["patches"], 2)
            self.assertEqual(j["checks"]["build"], {"1": "ok", "2": "FAIL", "series": "ok"})
            self.assertEqual(j["checks"]["checkpatch"], {})



class CheckSeries(unittest.TestCase):
    """scripts/check-series.sh reads each check's one KTAP result line
    (checks/common.sh's pass and failed, its exit status): checks.ktap
    numbers them, with each check's diagnostics; a check with no result
    line, or one its exit status contradicts, fails. On a throw-away
    repository of stub checks (and the real cover-letter)."""
    STUBS = {
        "good": '. "$(dirname "$0")/common.sh"; row 1 ok; pass "all fine"',
        "bad": '. "$(dirname "$0")/common.sh"; row 2 FAIL x; failed "patch 2: broken"',
        "crash": '. "$(dirname "$0")/common.sh"\nfalse\npass "never"',
        "liar": 'echo "ok 1 - liar"; exit 1',
        "silent": 'echo "silent: all fine"',
        "skipper": 'echo "ok 1 - skipper # SKIP nothing to do"; exit 4',
    }

    def test_checks_ktap(self):
        root = os.path.dirname(S)
        with tempfile.TemporaryDirectory() as t:
            r = os.path.join(t, "repo")
            for d in ("scripts", "checks", "branches/demo", "branches/medley", "cover-letters"):
                os.makedirs(os.path.join(r, d))
            for f in ("lib.sh", "ktap.sh", "check-series.sh", "check-table.py", "libpaths.py"):
                shutil.copy(os.path.join(S, f), os.path.join(r, "scripts", f))
            for f in ("common.sh", "cover-letter"):
                shutil.copy(os.path.join(root, "checks", f), os.path.join(r, "checks", f))
            open(os.path.join(r, "scripts", "base.sh"), "w").write("true\n")
            for name, body in self.STUBS.items():
                open(os.path.join(r, "checks", name), "w").write(body + "\n")
            open(os.path.join(r, "branches", "medley", "order"), "w").write("demo\n")
            for n in (1, 2):
                open(os.path.join(r, "branches", "demo", f"000{n}-p.patch"), "w").write("x\n")
            open(os.path.join(r, "cover-letters", "demo"), "w").write("mm: demo\n\n" + "body\n" * 5)
            p = subprocess.run(["bash", os.path.join(r, "scripts", "check-series.sh"), "demo"],
                               capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, MM_OUT=os.path.join(t, "out"), MM_CACHE=os.path.join(t, "cache"),
                                        MM_TOPICS="demo", CI="1",
                                        CHECKS="good bad crash liar silent skipper cover-letter"))
            said = f"\n--- check-series.sh said (rc {p.returncode}):\n{p.stdout}{p.stderr}"
            self.assertEqual(p.returncode, 1, said)
            k = os.path.join(t, "out", "checks", "demo", "checks.ktap")
            self.assertEqual(open(k).read(), "\n".join([
                "KTAP version 1", "1..7",
                "# good: all fine", "ok 1 - good",
                "not ok 2 - bad # patch 2: broken",
                "not ok 3 - crash # stopped by a failed command at line 2 of checks/crash"
                f" (log: {t}/out/checks/demo/crash.log)",
                "not ok 4 - liar # exit status 1, but its result line is 'ok 1 - liar'",
                "# silent: all fine", "not ok 5 - silent # no result line (exit status 0)",
                "ok 6 - skipper # SKIP nothing to do",
                "# cover-letter: 'mm: demo' (5 lines)", "ok 7 - cover-letter", ""]), said)
            self.assertEqual(results("--count-ktap", k)[1].split(), ["2", "4"])
            # the table: a line per check, with its summary or reason
            for line in (r"pass good +\d+s  good: all fine", r"FAIL bad +\d+s  patch 2: broken",
                         r"skip skipper +\d+s  SKIP nothing to do", r"FAIL silent +\d+s  no result line"):
                self.assertRegex(p.stderr, line, said)
            self.assertIn("check-series: 4 checks failed", p.stderr)


class PeerCompare(unittest.TestCase):
    def boot(self, root, kernel, tests):
        os.makedirs(os.path.join(root, kernel))
        json.dump({"tests": [dict(group=g, name=n, status=s, directive=d) for g, n, s, d in tests]},
                  open(os.path.join(root, kernel, "results.json"), "w"))

    def test_regression_named(self):
        with tempfile.TemporaryDirectory() as t:
            self.boot(t, "base", [("peer", "cow (3s)", "ok", ""), ("peer", "ksm (1s)", "ok", ""),
                                  ("peer", "mlock (1s)", "not ok", ""), ("sksm", "x", "ok", "")])
            self.boot(t, "t1", [("peer", "cow (4s)", "ok", ""), ("peer", "ksm (2s)", "not ok", ""),
                                ("peer", "mlock (1s)", "not ok", "")])
            self.boot(t, "t2", [("peer", "cow (4s)", "ok", ""), ("peer", "ksm (2s)", "ok", "")])
            rc, out, _ = run(os.path.join(S, "peer-compare.py"), t, "base", "t1", "t2", "t3")
            self.assertEqual(rc, 1)
            self.assertIn("not ok 1 - t1: passes on base, fails here: ksm", out)
            self.assertIn("ok 2 - t2: all 2 base passes still pass", out)
            self.assertIn("not ok 3 - t3: no peer results", out)
            self.assertTrue(out.rstrip().endswith("1..3"), out)

    def test_skip_is_not_a_pass(self):
        """A program that passes on base and skips on a topic lost its
        coverage there: that is a regression too."""
        with tempfile.TemporaryDirectory() as t:
            self.boot(t, "base", [("peer", "cow (3s)", "ok", ""), ("peer", "ksm (1s)", "ok", "SKIP")])
            self.boot(t, "t1", [("peer", "cow (3s)", "ok", "SKIP"), ("peer", "ksm (1s)", "ok", "SKIP")])
            rc, out, _ = run(os.path.join(S, "peer-compare.py"), t, "base", "t1")
            self.assertEqual(rc, 1)
            self.assertIn("not ok 1 - t1: passes on base, fails here: cow (skipped)", out)
            # a skip the subset declared (the guest is too small) is not lost coverage
            shutil.rmtree(os.path.join(t, "t1"))
            self.boot(t, "t1", [("peer", "cow (guest has 480 MiB, needs 1536)", "ok", "SKIP"),
                                ("peer", "ksm (1s)", "ok", "SKIP")])
            rc, out, _ = run(os.path.join(S, "peer-compare.py"), t, "base", "t1")
            self.assertEqual(rc, 0, out)

    def test_no_base(self):
        with tempfile.TemporaryDirectory() as t:
            rc, out, _ = run(os.path.join(S, "peer-compare.py"), t, "base", "t1")
            self.assertEqual(rc, 1)
            self.assertIn("not ok 1 - no peer results for base", out)


class B4Cover(unittest.TestCase):
    """scripts/b4-cover.py on the cover letter files of
    fixtures/b4-cover/: tracked (prefixes, revision and b4's tracking
    block) and untracked (a bare subject, no block)."""

    def cover(self, *args, stdin=None):
        p = subprocess.run([PY, os.path.join(S, "b4-cover.py")] + list(args), input=stdin,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def fx(self, name):
        return os.path.join(FIX, "b4-cover", name)

    def test_subject_parts(self):
        self.assertEqual(self.cover("prefixes", self.fx("tracked")).strip(), "RFC 6.12")
        self.assertEqual(self.cover("subject-revision", self.fx("tracked")).strip(), "3")
        self.assertEqual(self.cover("prefixes", self.fx("untracked")).strip(), "")
        self.assertEqual(self.cover("subject-revision", self.fx("untracked")).strip(), "")

    def test_text_drops_prefixes_and_block(self):
        text = self.cover("text", self.fx("tracked"))
        self.assertEqual(text.splitlines()[0], "mm: a test subject")
        self.assertIn("Second line of the body.", text)
        self.assertNotIn("b4-submit-tracking", text)
        self.assertEqual(self.cover("text", self.fx("untracked")).splitlines()[0], "mm: no prefixes here")

    def test_tracking_and_get(self):
        js = self.cover("tracking", self.fx("tracked"))
        self.assertEqual(json.loads(js)["series"]["change-id"], "20261203-sksm-45aa474d837d")
        self.assertEqual(self.cover("get", "revision", stdin=js).strip(), "1")
        self.assertEqual(self.cover("get", "prefixes", stdin=js).strip(), "6.12")
        self.assertEqual(self.cover("tracking", self.fx("untracked")).strip(), "")

    def test_set_block_replaces_and_keeps_the_body(self):
        with tempfile.TemporaryDirectory() as t:
            f = os.path.join(t, "cl")
            shutil.copy(self.fx("tracked"), f)
            for rev in (2, 3):
                self.cover("set-block", f, stdin=json.dumps({"series": {"revision": rev}}))
            content = open(f).read()
            self.assertEqual(content.count("--- b4-submit-tracking ---"), 1)
            self.assertEqual(self.cover("get", "revision", stdin=self.cover("tracking", f)).strip(), "3")
            self.assertEqual(self.cover("text", f), self.cover("text", self.fx("tracked")))
            shutil.copy(self.fx("untracked"), f)
            self.cover("set-block", f, stdin=json.dumps({"series": {"revision": 1}}))
            self.assertTrue(open(f).read().startswith(open(self.fx("untracked")).read().rstrip("\n")))
            self.assertEqual(self.cover("get", "revision", stdin=self.cover("tracking", f)).strip(), "1")

    def test_rfc_first(self):
        spec = importlib.util.spec_from_file_location("b4cover", os.path.join(S, "b4-cover.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        self.assertEqual(mod.rfc_first("[PATCH RFC 6.12 v2 1/4] mm: x"), "[RFC PATCH 6.12 v2 1/4] mm: x")
        self.assertEqual(mod.rfc_first("[PATCH 6.12 v2 1/4] mm: x"), "[PATCH 6.12 v2 1/4] mm: x")
        self.assertEqual(mod.parse_subject("[RFC PATCH 6.12 v3 0/4] mm: y"), ("mm: y", ["RFC", "6.12"], 3))


class DefragModeReport(unittest.TestCase):
    """guest/defrag-mode/report on the runs kept in its results folder:
    every section, in order, and the cover letter's tables; an empty
    folder is an error, not an empty report."""
    REPORT = os.path.join(os.path.dirname(S), "guest", "defrag-mode", "report")
    RESULTS = os.path.join(os.path.dirname(S), "guest", "defrag-mode", "results")
    SECTIONS = ["# defrag-mode: benchmark report", "## All configurations", "## thp_fault_alloc per round",
                "## mm_page_alloc_extfrag by class", "## Polluting fallbacks per round",
                "Trace buffer overruns per run", "## Headline against the posting"]

    def report(self, bench, out):
        return run(self.REPORT, bench, out, env={"DM_NO_STATS": "1"})

    def test_sections_in_order(self):
        for case, pairs in (("two-configs", 2), ("", 6)):
            with tempfile.TemporaryDirectory() as t:
                rc, out, err = self.report(os.path.join(self.RESULTS, case), t)
                self.assertEqual(rc, 0, f"{case}: {out}{err}")
                md = open(os.path.join(t, "defrag-mode.md")).read()
                at = [md.find(h) for h in self.SECTIONS]
                self.assertNotIn(-1, at, f"{case}: a section is missing")
                self.assertEqual(at, sorted(at), f"{case}: sections out of order")
                # a section per comparison of two configurations run, and the headline
                self.assertEqual(len(re.findall(r"^## .* against ", md, re.M)), pairs, case)
                cover = open(os.path.join(t, "defrag-mode-cover.txt")).read()
                self.assertIn("thp_fault_alloc per round, run 1", cover)
                self.assertIn("polluting", cover)

    def test_no_runs(self):
        with tempfile.TemporaryDirectory() as t:
            os.mkdir(os.path.join(t, "bench"))
            rc, out, err = self.report(os.path.join(t, "bench"), os.path.join(t, "out"))
            self.assertNotEqual(rc, 0, out + err)
            self.assertFalse(os.path.exists(os.path.join(t, "out", "defrag-mode-cover.txt")))


class DefragModeSteadiness(unittest.TestCase):
    """stats-report's steadiness rule: a flat series is steady, one that
    drifts by more than STEADY_PCT of its level after the first SETTLE
    rounds is not, and the settling rounds do not count."""
    STATS = os.path.join(os.path.dirname(S), "guest", "defrag-mode", "stats-report")

    def mod(self):
        loader = importlib.machinery.SourceFileLoader("dm_stats", self.STATS)
        spec = importlib.util.spec_from_loader("dm_stats", loader)
        m = importlib.util.module_from_spec(spec)
        loader.exec_module(m)
        return m

    def rows(self, m, series):
        md = m.steadiness({"x": series}, {"x": "X"}, ["x"])
        return [r for r in md if r.startswith("| X |")]

    def test_rule(self):
        m = self.mod()
        flat = [10000 + (37 * r) % 200 for r in range(15)]
        # low first rounds (the warmup's reclaim), flat after: steady
        settling = [2000, 4000, 6000] + [10000] * 12
        # 2% of the level a round for 12 rounds: 22% drift, not steady
        rising = [10000 + 200 * r for r in range(15)]
        runs = [(flat, settling, flat, rising)] * 2
        rows = self.rows(m, runs)
        self.assertEqual(len(rows), 4, rows)
        self.assertTrue(rows[0].endswith("| yes |"), rows[0])
        self.assertTrue(rows[1].endswith("| yes |"), rows[1])
        self.assertTrue(rows[3].endswith("| **no** |"), rows[3])
        self.assertIn("| 4-15 |", rows[3])
        md = m.steadiness({"x": runs}, {"x": "X"}, ["x"])
        self.assertIn("3 of 4 series steady.", md)

    def test_too_few_rounds(self):
        m = self.mod()
        short = [1000] * (m.SETTLE + 1)
        self.assertEqual(self.rows(m, [(short, short, short, short)]), [])


class ReportFolders(unittest.TestCase):
    """Every guest/<t>/report takes its folders from scripts/libpaths.py
    (MM_OUT, as scripts/lib.sh derives it): without arguments it reads
    $MM_OUT/bench/<t>, whatever else the environment says; and no Python
    tool but libpaths.py reads the folders' variables itself."""
    GUEST = os.path.join(os.path.dirname(S), "guest")

    def test_default_bench_folder(self):
        reports = sorted(t for t in os.listdir(self.GUEST) if os.path.isfile(os.path.join(self.GUEST, t, "report")))
        self.assertGreaterEqual(len(reports), 4, reports)
        with tempfile.TemporaryDirectory() as t:
            for topic in reports:
                os.makedirs(os.path.join(t, "bench", topic))
                # (an empty folder: the report refuses it, naming it)
                rc, out, err = run(os.path.join(self.GUEST, topic, "report"),
                                   env={"MM_OUT": t, "OUT": os.path.join(t, "elsewhere")})
                self.assertNotEqual(rc, 0, topic)
                self.assertIn(f"no runs in {os.path.join(t, 'bench', topic)}:", out + err, topic)

    def test_one_derivation(self):
        root = os.path.dirname(S)
        tools = [os.path.join(root, "guest", t, "report") for t in os.listdir(os.path.join(root, "guest"))]
        for d in ("scripts", "checks"):
            tools += [os.path.join(root, d, f) for f in os.listdir(os.path.join(root, d))]
        bad = []
        for f in tools:
            if not os.path.isfile(f) or f.endswith("libpaths.py"):
                continue
            with open(f, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            if not (f.endswith(".py") or text.startswith("#!/usr/bin/python3") or text.startswith("#!/usr/bin/env python3")):
                continue
            if re.search(r"""environ(?:\.get\(|\[)\s*["'](?:MM_OUT|OUT|MM_CACHE|XDG_CACHE_HOME)["']""", text):
                bad.append(os.path.relpath(f, root))
        self.assertEqual(bad, [], "these read the folders' variables instead of asking scripts/libpaths.py")


class TapResult(unittest.TextTestResult):
    """One TAP line per test; the failures are also kept as unittest
    keeps them (wasSuccessful, the exit status)."""
    n = 0

    def _tap(self, test, word, why="", directive=""):
        TapResult.n += 1
        name = test.id().split(".", 1)[-1]
        print(f"{word} {TapResult.n} - {name}{directive}", flush=True)
        for line in why.splitlines():
            print("# " + line)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._tap(test, "ok")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._tap(test, "not ok", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._tap(test, "not ok", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._tap(test, "ok", directive=f" # SKIP {reason}")


def tap_main(module):
    """Run the tests of module as TAP; exit as kselftest does: 1 if one
    failed, 4 (KSFT_SKIP) if all were skipped, else 0."""
    print("TAP version 13")
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    print(f"1..{suite.countTestCases()}")
    r = unittest.TextTestRunner(stream=open(os.devnull, "w"), resultclass=TapResult, verbosity=0).run(suite)
    if not r.wasSuccessful():
        sys.exit(1)
    sys.exit(4 if r.testsRun and len(r.skipped) == r.testsRun else 0)


if __name__ == "__main__":
    tap_main(sys.modules[__name__])
