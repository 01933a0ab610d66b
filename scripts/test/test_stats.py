#!/usr/bin/env python3
"""Unit tests of scripts/stats.py, printed as TAP (make test-scripts runs
scripts/test/test_*.py first, with tools.py).
Bench folders: scripts/test/fixtures/bench/ (meta.txt + <label>.<k>.txt).

Reference values: closed forms of Student's t for df = 1 and 2, and the
first worked example of Welch's test in Wikipedia's "Welch's t-test"
article (t = -2.46, df = 25.0 rounded, p = 0.021).
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import stats  # noqa: E402

results = []


def check(name, cond):
    results.append((bool(cond), name))


def close(x, y, tol):
    return x is not None and abs(x - y) <= tol


check("mean", stats.mean([1, 2, 3, 4]) == 2.5)
check("stdev is the sample one (n-1)",
      close(stats.stdev([2, 4, 4, 4, 5, 5, 7, 9]), math.sqrt(32 / 7), 1e-12))
check("stdev of one value is 0", stats.stdev([3]) == 0.0)

# df = 1 is Cauchy: P[T > t] = 1/2 - atan(t)/pi
for t in (0.0, 0.5, 1.0, 3.0, 12.7):
    check(f"t_sf df=1 t={t}",
          close(stats.t_sf(t, 1), 0.5 - math.atan(t) / math.pi, 1e-10))
# df = 2: P[T > t] = (1 - t / sqrt(t^2 + 2)) / 2
for t in (0.3, 1.0, 2.92, 9.9):
    check(f"t_sf df=2 t={t}",
          close(stats.t_sf(t, 2), (1 - t / math.sqrt(t * t + 2)) / 2, 1e-10))
check("t_sf is symmetric", close(stats.t_sf(-1.3, 7) + stats.t_sf(1.3, 7), 1.0, 1e-12))
# a large df approaches the normal: P[Z > 1.96] = 0.0249979
check("t_sf df=1e6 ~ normal", close(stats.t_sf(1.96, 1e6), 0.0249979, 1e-5))

a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1,
      19.6, 19.0, 21.7, 21.4]
a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9,
      22.1, 22.9, 20.5, 24.4]
w = stats.welch(a1, a2)
check(f"welch t = -2.46 (got {w.t:.4f})", close(w.t, -2.46, 0.005))
check(f"welch df = 25.0 (got {w.df:.3f})", close(w.df, 25.0, 0.05))
check(f"welch p = 0.021 (got {w.p:.4f})", close(w.p, 0.021, 0.0005))
check("welch is antisymmetric in t",
      close(stats.welch(a2, a1).t, -w.t, 1e-12) and close(stats.welch(a2, a1).p, w.p, 1e-12))
check("welch with fewer than two values is None", stats.welch([1], [1, 2]) is None)
check("welch of identical samples: p = 1",
      close(stats.welch([1, 2, 3], [1, 2, 3]).p, 1.0, 1e-12))
check("welch with no spread, equal means: p = 1", stats.welch([5, 5], [5, 5, 5]).p == 1.0)
check("welch with no spread, different means: p = 0", stats.welch([5, 5], [6, 6]).p == 0.0)

c = stats.compare([10, 11, 9, 10, 10], [20, 21, 19, 20, 20])
check("compare: +100% and significant", close(c["change_pct"], 100.0, 1e-9) and c["significant"])
c = stats.compare([10, 14, 6, 12, 8], [11, 15, 7, 9, 9])
check(f"compare: noise is not significant (p={c['p']:.3f})", not c["significant"])
check("compare: base mean 0 gives no percentage",
      stats.compare([0, 0], [1, 2])["change_pct"] is None)
check("fmt_cell marks a single run", stats.fmt_cell(stats.compare([1, 2], [3])) == "3.00 (n=1, +100.0%)")
check("fmt_cell marks significance", stats.fmt_cell(stats.compare([1, 1.1, 0.9], [5, 5.1, 4.9])).endswith("*)"))

# summaries, ratios and their intervals
check("summary", stats.summary([3, 1, 2]) == stats.Summary(3, 2.0, 1.0, 1, 3))
check("t_ppf inverts t_sf (df=10, 97.5%: 2.228)", close(stats.t_ppf(0.975, 10), 2.228139, 1e-5))
check("t_ppf is symmetric", close(stats.t_ppf(0.025, 4), -stats.t_ppf(0.975, 4), 1e-9))
same = stats.ratio([7, 7, 7, 7, 7], [7, 7, 7, 7, 7])
check("a run of identical values: ratio 1, interval [1, 1], p = 1",
      same.r == 1.0 and same.lo == 1.0 and same.hi == 1.0 and same.p == 1.0)
check("identical values print as such", stats.fmt_ratio(same) == "1.00 [1.00, 1.00] p=1.000")
check("identical values: sd 0 in the summary", stats.fmt_summary([7, 7, 7]) == "7 ± 0 (7–7, n=3)")
one = stats.ratio([5], [4, 4.2, 3.8])
check("n=1 is marked: no interval, no p", one.r == 1.25 and one.lo is None and one.p is None and "n=1" in one.note)
check("n=1 prints without a spread", stats.fmt_ratio(one) == "1.25 (n=1, no spread)")
check("one value's summary says n=1", stats.fmt_summary([5]) == "5 (n=1)")
r = stats.ratio([20, 21, 19, 20, 20], [10, 11, 9, 10, 10])
check(f"ratio 2 with an interval around it ({r.lo:.3f}, {r.hi:.3f})",
      r.r == 2.0 and 1.8 < r.lo < 2.0 < r.hi < 2.2 and r.p < 0.001)
check("a significant ratio is starred", stats.fmt_ratio(r).endswith("*"))
noisy = stats.ratio([11, 15, 7, 9, 9], [10, 14, 6, 12, 8])
check("noise: the interval holds 1, no star", noisy.lo < 1 < noisy.hi and not stats.fmt_ratio(noisy).endswith("*"))
check("a 0 base mean gives no ratio", stats.ratio([1, 2], [0, 0]).r is None)
cl = stats.compare_labels({"base": [1, 1.1], "topic": [2, 2.1]}, "base")
check("compare_labels: one ratio per other label", list(cl) == ["topic"] and close(cl["topic"].r, 4.1 / 2.1, 1e-12))
try:
    stats.compare_labels({"base": [1, 2], "topic": [1]}, "vanilla")
    check("compare_labels refuses a missing base", False)
except stats.Refused as e:
    check("compare_labels refuses a missing base, naming it", "vanilla" in str(e) and "base, topic" in str(e))

check("slope of a line", close(stats.slope([3, 5, 7, 9]), 2.0, 1e-12))
check("slope of a flat run of identical values is 0", stats.slope([4, 4, 4]) == 0.0)

# bench folders
F = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "bench")


def ns(path):
    return float(open(path).read().split()[1])


runs = stats.load_runs(os.path.join(F, "ok"), ns)
check("load_runs: the planned labels, runs in order",
      list(runs) == ["base", "topic"] and runs["base"] == [1001, 1002, 1003] and runs["topic"] == [1502, 1504, 1506])
check("a folder without a labels line (older make bench): LEGACY picks its labels",
      list(stats.load_runs(os.path.join(F, "legacy"), ns, legacy=["base", "topic"])) == ["base", "topic"])
check("meta_runs reads runs:", stats.meta_runs(os.path.join(F, "ok")) == 3)


def refused(case, words):
    try:
        stats.load_runs(os.path.join(F, case), ns)
    except stats.Refused as e:
        return all(w in str(e) for w in words), str(e)
    return False, "not refused"


for case, words, name in [
        ("unplanned", ["do not match the planned labels", "unplanned old"], "a run of an unplanned label"),
        ("missing", ["do not match the planned labels", "no runs of topic"], "a planned label without runs"),
        ("accel", ["different accelerators", "topic.1 kvm"], "boots on two accelerators"),
        ("kconfig", ["runs of topic on different kernel configs", "topic.2"], "runs of one label on two kernel configs")]:
    ok, why = refused(case, words)
    check(f"load_runs refuses {name} ({why})", ok)
check("Refused is an exit with the message (a report exits 1, writes nothing)",
      issubclass(stats.Refused, SystemExit))
check("boots of two versions of the guest programs are refused",
      "workload changed" in (stats.meta_refusal("guest a.1: 111\nguest b.1: 111\nguest a.2: 222\n") or ""))
check("one version of the guest programs is compared",
      stats.meta_refusal("guest a.1: 111\nguest b.1: 111\n") is None)
check("tsc-early and tsc are one clock", stats.meta_refusal("clocksource a.1: tsc\nclocksource b.1: tsc-early\n") is None)
check("two variants are refused",
      "variants" in (stats.meta_refusal("kconfig a.1: debug 1\nkconfig b.1: bench 2\n") or ""))
check("runs of one label on two builds of its kernel are refused",
      "topic on different builds" in (stats.meta_refusal(
          "kbuild topic.1: #1 SMP Sun Dec  6 23:56:42 UTC 2026\nkbuild topic.2: #1 SMP Mon Dec  7 01:31:00 UTC 2026\n") or ""))
check("a boot whose banner is not its tree's vmlinux's is refused (stale bzImage)",
      "stale bzImage" in (stats.meta_refusal(
          "kbuild topic.1: #1 SMP Sun Dec  6 23:56:42 UTC 2026\nkbuilt topic.1: #1 SMP Mon Dec  7 01:48:47 UTC 2026\n") or ""))
check("a boot of the kernel its tree built is compared",
      stats.meta_refusal("kbuild topic.1: #1 SMP X\nkbuilt topic.1: #1 SMP X\n") is None)
check("a label's runs on one config, labels on their own: compared",
      stats.meta_refusal("kconfig a.1: debug 1\nkconfig a.2: debug 1\nkconfig b.1: debug 2\n") is None)

print(f"1..{len(results)}")
for i, (ok, name) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
sys.exit(0 if all(ok for ok, _ in results) else 1)
