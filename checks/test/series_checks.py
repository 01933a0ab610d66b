#!/usr/bin/python3
"""Unit tests of the series checks (checks/series-*), as TAP: one test
class per check, one test per fixture of that check.

checks/test/fixtures/<check>/<case>/ holds a series as scripts/series.sh
writes it (the .eml files b4 wrote; "@BASE@" stands for the base commit
recorded in branches/BASE) and "expect":
    topic T        the topic the check is run for
    rc N           its exit status (0 pass, 1 fail, 4 nothing to check)
    env K=V        set for the run (e.g. MM_SEND_MODE=smtp)
    line REGEX     found in what it prints (^ and $ match at each line)
Each check prints diagnostic "# " lines and one KTAP result line, the
one its exit status says (ktap_line below): "ok 1 - series-<check>",
"not ok 1 - series-<check> # <reason>", "ok 1 - series-<check> # SKIP
<reason>".
Each case runs `checks/series-<check> T` on a copy of the series in a
folder v2 (its revision), with out/ in a scratch folder. The checks that
run the kernel's scripts (recipients: get_maintainer.pl, checkpatch) are
skipped without the base tree (make base). Takes a few seconds."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = os.path.dirname(HERE)
FIX = os.path.join(HERE, "fixtures")
sys.path.insert(0, CHECKS)
import serieslib  # noqa: E402

REPO = serieslib.paths().REPO
with open(os.path.join(REPO, "branches", "BASE"), encoding="utf-8") as _f:
    BASE_SHA = _f.read().split()[1]
# the Debian version the fixtures' covers state (series-base compares)
DEB_VERSION = "6.12.118-1~deb12u1"
NEEDS_TREE = {"recipients": "get_maintainer.pl", "checkpatch": "checkpatch.pl"}


def expect(case_dir):
    want = {"env": {}}
    for line in open(os.path.join(case_dir, "expect"), encoding="utf-8"):
        kind, _, arg = line.rstrip("\n").partition(" ")
        if kind == "env":
            k, _, v = arg.partition("=")
            want["env"][k] = v
        elif kind:
            want[kind] = arg
    return want


def run_case(check, case_dir):
    """(exit status, stdout, stderr, out folder) of the check on the case."""
    want = expect(case_dir)
    t = tempfile.mkdtemp()
    try:
        series = os.path.join(t, "v2")
        os.mkdir(series)
        for name in sorted(os.listdir(case_dir)):
            if name.endswith(".eml"):
                with open(os.path.join(case_dir, name), encoding="utf-8") as f:
                    text = f.read().replace("@BASE@", BASE_SHA)
                with open(os.path.join(series, name), "w", encoding="utf-8") as f:
                    f.write(text)
        env = dict(os.environ, MM_SERIES_DIR=series, MM_OUT=os.path.join(t, "out"),
                   MM_BASE_DEB_VERSION=DEB_VERSION)
        env.pop("MM_SEND_MODE", None)
        env.update(want["env"])
        p = subprocess.run([os.path.join(CHECKS, "series-" + check), want["topic"]],
                           capture_output=True, text=True, env=env, timeout=300)
        out = os.path.join(t, "out", "checks", want["topic"])
        logs = {n: open(os.path.join(out, n), encoding="utf-8").read()
                for n in os.listdir(out)} if os.path.isdir(out) else {}
        return want, p.returncode, p.stdout, p.stderr, logs
    finally:
        shutil.rmtree(t)


def ktap_line(check, rc):
    """The result line a check that exited rc must end with."""
    name = re.escape(f"series-{check}")
    return {0: f"^ok 1 - {name}$", 1: f"^not ok 1 - {name} # \\S.*$",
            4: f"^ok 1 - {name} # SKIP \\S.*$"}[rc]


def assert_ktap(test, check, rc, out, said=""):
    """out is diagnostics and one result line, the one rc says."""
    lines = out.splitlines()
    test.assertTrue(lines, "no output" + said)
    test.assertEqual([l for l in lines[:-1] if not l.startswith("# ")], [], "diagnostics only above the result" + said)
    test.assertRegex(lines[-1], ktap_line(check, rc), "the result line" + said)


def make_test(check, case):
    def test(self):
        if check in NEEDS_TREE:
            tree = serieslib.tree_for(expect(os.path.join(FIX, check, case))["topic"])
            if not os.path.exists(os.path.join(tree, "scripts", NEEDS_TREE[check])):
                self.skipTest(f"no scripts/{NEEDS_TREE[check]} (make base)")
        want, rc, out, err, logs = run_case(check, os.path.join(FIX, check, case))
        said = f"\n--- series-{check} said (rc {rc}):\n{out}{err}"
        self.assertEqual(rc, int(want["rc"]), "exit status" + said)
        assert_ktap(self, check, rc, out, said)
        if rc != 4:
            self.assertRegex(out, re.compile(f"^# series-{check}: {re.escape(want['topic'])}: ", re.M), said)
        if "line" in want:
            self.assertRegex(out, re.compile(want["line"], re.M), said)
        # the details and the table's row beside the other checks'
        self.assertIn(out.strip(), logs.get(f"series-{check}.log", ""), "log" + said)
        row = logs.get(f"series-{check}.tsv", "").split("\t")
        self.assertEqual(row[:2], ["series", "ok" if rc == 0 else "FAIL"], "row" + said)
    return test


def _add_tests():
    for check in sorted(os.listdir(FIX)):
        cls = type("Series" + check.capitalize(), (unittest.TestCase,),
                   {"__doc__": f"checks/series-{check} on checks/test/fixtures/{check}/"})
        for case in sorted(os.listdir(os.path.join(FIX, check))):
            setattr(cls, "test_" + case.replace("-", "_"), make_test(check, case))
        globals()[cls.__name__] = cls


_add_tests()


class SeriesNothingToCheck(unittest.TestCase):
    def test_no_series_written(self):
        with tempfile.TemporaryDirectory() as t:
            env = dict(os.environ, MM_SERIES_DIR=os.path.join(t, "v1"), MM_OUT=t)
            for check in sorted(os.listdir(FIX)):
                p = subprocess.run([os.path.join(CHECKS, "series-" + check), "t-test"],
                                   capture_output=True, text=True, env=env)
                self.assertEqual(p.returncode, 4, f"series-{check}: {p.stdout}{p.stderr}")
                assert_ktap(self, check, 4, p.stdout)
                self.assertIn("# SKIP no series written", p.stdout)

    def test_usage(self):
        p = subprocess.run([os.path.join(CHECKS, "series-tags")], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("usage: checks/series-tags TOPIC", p.stderr)


class SeriesPrefixesHashSeed(unittest.TestCase):
    def test_one_verdict_whatever_the_hash_seed(self):
        """A wrong total gives the same line whatever order Python's sets
        come in (PYTHONHASHSEED)."""
        outs = set()
        for seed in ("0", "1", "2"):
            os.environ["PYTHONHASHSEED"] = seed
            try:
                _, rc, out, err, _ = run_case("prefixes", os.path.join(FIX, "prefixes", "wrong-total"))
            finally:
                del os.environ["PYTHONHASHSEED"]
            self.assertEqual(rc, 1, out + err)
            outs.add(out)
        self.assertEqual(len(outs), 1, outs)


class CreditCommand(unittest.TestCase):
    """checks/credit.py as checks/signoff and scripts/series.sh call it;
    the patch files of scripts/test/fixtures/credit/."""
    PATCHES = os.path.join(REPO, "scripts", "test", "fixtures", "credit")

    def files(self, name, mode=None):
        env = dict(os.environ)
        env.pop("MM_SEND_MODE", None)
        if mode:
            env["MM_SEND_MODE"] = mode
        p = subprocess.run([os.path.join(CHECKS, "credit.py"), "files", os.path.join(self.PATCHES, name)],
                           capture_output=True, text=True, env=env)
        return p.returncode, p.stdout.rstrip("\n").split("\t")

    def test_patch_files(self):
        names = sorted(os.listdir(self.PATCHES))
        self.assertTrue(any(n.startswith("good-") for n in names) and any(n.startswith("bad-") for n in names))
        for name in names:
            rc, (_, verdict, why) = self.files(name)
            want = "ok" if name.startswith("good-") else "FAIL"
            self.assertEqual((verdict, rc), (want, 0 if want == "ok" else 1), f"{name}: {why}")

    def test_placeholder_signoff_of_a_real_send(self):
        rc, (_, verdict, why) = self.files("good-ported.patch", "smtp")
        self.assertEqual((verdict, rc), ("FAIL", 1))
        self.assertIn("a placeholder address cannot sign off", why)

    def test_placeholder(self):
        cmd = [os.path.join(CHECKS, "credit.py"), "placeholder"]
        for addr, rc in (("mm-medley@lists.example.org", 0), ("a@users.noreply.github.com", 0),
                         ("x@host.invalid", 0), ("m@users.noreply.a-seed-1.example", 0), ("j@example.com", 0),
                         ("nobody", 0), ("jane@kernel-dev.net", 1)):
            self.assertEqual(subprocess.run(cmd + [addr]).returncode, rc, addr)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(REPO, "scripts", "test"))
    from tools import tap_main  # noqa: E402
    tap_main(sys.modules[__name__])
