#!/usr/bin/env python3
"""Unit tests of scripts/stats.py, printed as TAP (scripts/test/stats.sh).

Reference values: closed forms of Student's t for df = 1 and 2, and the
first worked example of Welch's test in Wikipedia's "Welch's t-test"
article (t = -2.46, df = 25.0 rounded, p = 0.021).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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
check("fmt_cell marks significance", stats.fmt_cell(stats.compare([1, 1.1, 0.9], [5, 5.1, 4.9])).endswith("*)"))

print(f"1..{len(results)}")
for i, (ok, name) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
sys.exit(0 if all(ok for ok, _ in results) else 1)
