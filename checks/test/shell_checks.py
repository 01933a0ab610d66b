#!/usr/bin/python3
"""Unit tests of the shell checks (checks/<name> through checks/common.sh)
that need no kernel tree, as TAP: each is run on a throw-away repository
(its branches/<topic>/ the patch files of scripts/test/fixtures/credit/,
or a cover letter) and gives its result as every check does: diagnostic
"# " lines, one KTAP result line, and the exit status that line says.
Takes about a second."""
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
REPO = os.path.dirname(CHECKS)
CREDIT = os.path.join(REPO, "scripts", "test", "fixtures", "credit")


class Sandbox:
    """A repository with scripts/lib.sh, ktap.sh, libpaths.py, checks/common.sh,
    credit.py, serieslib.py and the checks named, and the topics given as
    {topic: [patch files]}."""

    def __init__(self, t, checks, topics):
        self.t, self.repo = t, os.path.join(t, "repo")
        for d in ("scripts", "checks", "branches/medley", "cover-letters"):
            os.makedirs(os.path.join(self.repo, d))
        for f in ("lib.sh", "ktap.sh", "libpaths.py"):
            shutil.copy(os.path.join(REPO, "scripts", f), os.path.join(self.repo, "scripts"))
        for f in ["common.sh", "credit.py", "serieslib.py"] + checks:
            shutil.copy(os.path.join(CHECKS, f), os.path.join(self.repo, "checks"))
        for topic, patches in topics.items():
            os.makedirs(os.path.join(self.repo, "branches", topic))
            for p in patches:
                shutil.copy(os.path.join(CREDIT, p), os.path.join(self.repo, "branches", topic))
        self.topics = " ".join(topics)

    def run(self, check, topic, env=None):
        e = dict(os.environ, MM_OUT=os.path.join(self.t, "out"), MM_CACHE=os.path.join(self.t, "cache"),
                 MM_TOPICS=self.topics)
        e.pop("MM_SEND_MODE", None)
        e.update(env or {})
        p = subprocess.run(["bash", os.path.join(self.repo, "checks", check), topic],
                           capture_output=True, text=True, env=e, timeout=120)
        return p.returncode, p.stdout, f"\n--- checks/{check} {topic} said (rc {p.returncode}):\n{p.stdout}{p.stderr}"


def result(test, check, out, said):
    """The one result line, below diagnostics only."""
    lines = out.splitlines()
    test.assertTrue(lines, "no output" + said)
    test.assertEqual([l for l in lines[:-1] if not l.startswith("# ")], [], "diagnostics only above" + said)
    test.assertEqual(len([l for l in lines if re.match(r"(not )?ok \d", l)]), 1, "one result line" + said)
    return lines[-1]


class Signoff(unittest.TestCase):
    """checks/signoff on the credit fixtures' patch files."""

    def test_good_and_bad(self):
        good = sorted(p for p in os.listdir(CREDIT) if p.startswith("good-"))
        bad = sorted(p for p in os.listdir(CREDIT) if p.startswith("bad-"))
        with tempfile.TemporaryDirectory() as t:
            sb = Sandbox(t, ["signoff"], {"good": good, "bad": bad})
            rc, out, said = sb.run("signoff", "good")
            self.assertEqual(rc, 0, said)
            self.assertEqual(result(self, "signoff", out, said), "ok 1 - signoff", said)
            self.assertIn("# signoff: every patch signed off by its author", out, said)
            rc, out, said = sb.run("signoff", "bad")
            self.assertEqual(rc, 1, said)
            self.assertRegex(result(self, "signoff", out, said),
                             rf"^not ok 1 - signoff # {len(bad)} patches; \S", said)


class CoverLetter(unittest.TestCase):
    """checks/cover-letter: pass, fail, and the one-patch pass."""

    def test_cover_letter(self):
        with tempfile.TemporaryDirectory() as t:
            sb = Sandbox(t, ["cover-letter"], {"two": ["good-new.patch", "good-ported.patch"],
                                               "one": ["good-new.patch"]})
            rc, out, said = sb.run("cover-letter", "two")
            self.assertEqual((rc, result(self, "cover-letter", out, said)),
                             (1, "not ok 1 - cover-letter # cover-letters/two missing"), said)
            with open(os.path.join(sb.repo, "cover-letters", "two"), "w") as f:
                f.write("mm: two\n\n" + "body\n" * 5)
            rc, out, said = sb.run("cover-letter", "two")
            self.assertEqual((rc, out), (0, "# cover-letter: 'mm: two' (5 lines)\nok 1 - cover-letter\n"), said)
            rc, out, said = sb.run("cover-letter", "one")
            self.assertEqual((rc, result(self, "cover-letter", out, said)), (0, "ok 1 - cover-letter"), said)


class StoppedCheck(unittest.TestCase):
    """A shell check stopped by a failed command (set -e) ends as
    'not ok', exit status 1, naming the line."""

    def test_err_trap(self):
        with tempfile.TemporaryDirectory() as t:
            sb = Sandbox(t, [], {"two": ["good-new.patch"]})
            with open(os.path.join(sb.repo, "checks", "stops"), "w") as f:
                f.write('. "$(dirname "$0")/common.sh"\nfalse\npass "never"\n')
            rc, out, said = sb.run("stops", "two")
            self.assertEqual(rc, 1, said)
            self.assertRegex(result(self, "stops", out, said),
                             r"^not ok 1 - stops # stopped by a failed command at line 2 of checks/stops", said)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(REPO, "scripts", "test"))
    from tools import tap_main  # noqa: E402
    tap_main(sys.modules[__name__])
