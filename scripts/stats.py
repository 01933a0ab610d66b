#!/usr/bin/env python3
"""Small statistics for benchmark reports: no dependencies beyond the
standard library (the host has no scipy).

    mean(xs), stdev(xs)            sample mean and standard deviation (n-1)
    welch(a, b)                    Welch's unequal-variance t-test:
                                   returns Welch(t, df, p) with a two-sided p,
                                   or None when either side has fewer than
                                   two values
    compare(a, b, alpha=0.05)      a dict for a report cell: means, stdevs,
                                   n, change in percent, t, df, p and
                                   "significant" (p < alpha)
    t_sf(t, df)                    upper tail of Student's t (P[T > t])

The t distribution's tail comes from the regularized incomplete beta
function, evaluated with the continued fraction of Numerical Recipes
(Lentz's method), good to about 1e-12 for the sizes used here.
Run as a script for a self-check: python3 scripts/stats.py
"""
import math
from collections import namedtuple

Welch = namedtuple("Welch", "t df p")


def mean(xs):
    xs = list(xs)
    if not xs:
        raise ValueError("mean of no values")
    return sum(xs) / len(xs)


def stdev(xs):
    """Sample standard deviation (n - 1); 0.0 for a single value."""
    xs = list(xs)
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _betacf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_sf(t, df):
    """P[T > t] for Student's t with df degrees of freedom (df > 0)."""
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t > 0 else 1.0 - tail


def welch(a, b):
    """Welch's t-test of mean(a) != mean(b); None if a side has < 2 values."""
    a, b = list(a), list(b)
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = stdev(a) ** 2 / len(a), stdev(b) ** 2 / len(b)
    diff = mean(a) - mean(b)
    if va + vb == 0.0:
        # no spread on either side: equal means are no evidence of a
        # difference, different means are as certain as it gets
        return Welch(0.0, float(len(a) + len(b) - 2), 1.0) if diff == 0 else \
            Welch(math.copysign(math.inf, diff), float(len(a) + len(b) - 2), 0.0)
    t = diff / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    p = min(1.0, 2.0 * t_sf(abs(t), df))
    return Welch(t, df, p)


def compare(base, other, alpha=0.05):
    """One report cell: other against base."""
    base, other = list(base), list(other)
    mb, mo = mean(base), mean(other)
    w = welch(other, base)
    return {
        "n_base": len(base), "n": len(other),
        "mean_base": mb, "mean": mo,
        "sd_base": stdev(base), "sd": stdev(other),
        "change_pct": (mo - mb) / mb * 100.0 if mb else None,
        "t": w.t if w else None, "df": w.df if w else None,
        "p": w.p if w else None,
        "significant": bool(w and w.p < alpha),
    }


def fmt_cell(c, digits=2):
    """'mean ± sd (+x.x%, p=0.012*)': '*' when significant."""
    s = f"{c['mean']:.{digits}f} ± {c['sd']:.{digits}f}"
    extra = []
    if c["change_pct"] is not None:
        extra.append(f"{c['change_pct']:+.1f}%")
    if c["p"] is not None:
        extra.append(f"p={c['p']:.3f}" + ("*" if c["significant"] else ""))
    return s + (f" ({', '.join(extra)})" if extra else "")


if __name__ == "__main__":
    import subprocess
    import sys
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(subprocess.call([sys.executable, os.path.join(here, "test_stats.py")]))
