#!/usr/bin/env python3
"""The statistics of every benchmark report (guest/<t>/report): no
dependencies beyond the standard library (the host has no scipy).

Runs (make bench BENCH_RUNS=N keeps run k of <label> as <label>.<k>.txt):

    load_runs(bench_dir, parse)    {label: [parse(run file), ...]} in the
                                   order of meta.txt's "labels:" line;
                                   raises Refused when meta.txt's boots
                                   differ in clock, accelerator or kernel
                                   config, or when the run files' labels
                                   are not the planned ones
    meta_refusal(meta_text)        why the boots of a meta.txt may not be
                                   compared, or None
    Refused                        the error (a SystemExit: a report that
                                   does not catch it exits 1 with the
                                   message, and writes nothing)

Numbers:

    mean(xs), stdev(xs)            sample mean and standard deviation (n-1)
    summary(xs)                    Summary(n, mean, sd, min, max)
    welch(a, b)                    Welch's unequal-variance t-test:
                                   returns Welch(t, df, p) with a two-sided p,
                                   or None when either side has fewer than
                                   two values
    compare(a, b, alpha=0.05)      a dict for a report cell: means, stdevs,
                                   n, change in percent, t, df, p and
                                   "significant" (p < alpha)
    ratio(topic, base, level=0.95) Ratio: mean(topic) / mean(base) with its
                                   confidence interval and Welch's p; with
                                   one run on a side no interval (marked)
    compare_labels(values, base)   {label: Ratio} for every other label;
                                   Refused when base or a label is missing
    t_sf(t, df), t_ppf(q, df)      Student's t: upper tail, quantile
    slope(ys)                      least-squares slope per step (trends)
    fmt_summary, fmt_ratio, fmt_cell   the cells of a Markdown table

The t distribution's tail comes from the regularized incomplete beta
function, evaluated with the continued fraction of Numerical Recipes
(Lentz's method), good to about 1e-12 for the sizes used here.
Run as a script for a self-check: python3 scripts/stats.py
"""
import math
import os
import re
from collections import namedtuple

Welch = namedtuple("Welch", "t df p")
Summary = namedtuple("Summary", "n mean sd min max")
# r = mean(topic) / mean(base); lo, hi: its confidence interval (None
# with fewer than two runs on a side: no spread, then note says so);
# p: Welch's two-sided p of mean(topic) != mean(base)
Ratio = namedtuple("Ratio", "r lo hi p n n_base level note")


class Refused(SystemExit):
    """A comparison the data does not allow; the message says why."""

    def __init__(self, why):
        super().__init__("comparison refused: " + why)
        self.why = why


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
    """'mean ± sd (+x.x%, p=0.012*)': '*' when significant; a single
    run has no sd: 'mean (n=1, +x.x%)'."""
    s = f"{c['mean']:.{digits}f} ± {c['sd']:.{digits}f}"
    extra = []
    if c["n"] < 2:
        s = f"{c['mean']:.{digits}f}"
        extra.append("n=1")
    if c["change_pct"] is not None:
        extra.append(f"{c['change_pct']:+.1f}%")
    if c["p"] is not None:
        extra.append(f"p={c['p']:.3f}" + ("*" if c["significant"] else ""))
    return s + (f" ({', '.join(extra)})" if extra else "")


def summary(xs):
    xs = list(xs)
    if not xs:
        raise ValueError("summary of no values")
    return Summary(len(xs), mean(xs), stdev(xs), min(xs), max(xs))


def slope(ys):
    """Least-squares slope of ys against 1, 2, ... (a trend per round)."""
    ys = list(ys)
    if len(ys) < 2:
        raise ValueError("slope of fewer than two values")
    xs = range(1, len(ys) + 1)
    mx, my = mean(xs), mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def t_ppf(q, df):
    """The t with P[T <= t] = q (0 < q < 1), by bisection on t_sf."""
    if not 0.0 < q < 1.0:
        raise ValueError("quantile outside (0, 1)")
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    lo, hi = 0.0, 1.0
    while t_sf(hi, df) > 1.0 - q:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_sf(mid, df) > 1.0 - q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def ratio(topic, base, level=0.95):
    """mean(topic) / mean(base), its confidence interval and Welch's p.

    The interval is the delta method's: the ratio's relative variance is
    the sum of the two means' (var/n/mean^2), its degrees of freedom
    Welch-Satterthwaite's over those two terms, and the half-width a t
    quantile times the standard error. With one run on a side there is no
    spread to estimate: no interval, and note says "n=1"."""
    topic, base = list(topic), list(base)
    if not topic or not base:
        raise ValueError("ratio of no values")
    mt, mb = mean(topic), mean(base)
    n, nb = len(topic), len(base)
    if mb == 0:
        return Ratio(None, None, None, None, n, nb, level, "base mean is 0")
    r = mt / mb
    w = welch(topic, base)
    if n < 2 or nb < 2:
        return Ratio(r, None, None, None, n, nb, level, "n=1: no spread, no interval")
    vt = stdev(topic) ** 2 / n / mt ** 2 if mt else 0.0
    vb = stdev(base) ** 2 / nb / mb ** 2
    if vt + vb == 0.0:
        return Ratio(r, r, r, w.p, n, nb, level, "")
    df = (vt + vb) ** 2 / (vt ** 2 / (n - 1) + vb ** 2 / (nb - 1))
    half = t_ppf(0.5 + level / 2.0, df) * abs(r) * math.sqrt(vt + vb)
    return Ratio(r, r - half, r + half, w.p, n, nb, level, "")


def compare_labels(values, base, labels=None):
    """{label: ratio(values[label], values[base])} for every label (in
    labels' order, default values') other than base. values: {label:
    [one value per run]}. Refused when base or a named label has no runs."""
    labels = list(labels if labels is not None else values)
    missing = [l for l in [base] + labels if not values.get(l)]
    if missing:
        raise Refused("no runs of %s (runs of: %s)" % (
            ", ".join(sorted(set(missing))), ", ".join(sorted(l for l in values if values[l])) or "none"))
    return {l: ratio(values[l], values[base]) for l in labels if l != base}


def fmt_num(x, digits=2):
    return "n/a" if x is None else f"{x:,.{digits}f}"


def fmt_summary(xs, digits=0):
    """'7,023 ± 112 (6,900–7,180, n=5)'; a single run: '7,023 (n=1)'."""
    s = summary(xs)
    if s.n < 2:
        return f"{fmt_num(s.mean, digits)} (n=1)"
    return (f"{fmt_num(s.mean, digits)} ± {fmt_num(s.sd, digits)} "
            f"({fmt_num(s.min, digits)}–{fmt_num(s.max, digits)}, n={s.n})")


def fmt_ratio(c, digits=2, alpha=0.05):
    """'0.92 [0.85, 0.99] p=0.031*' ('*': p < alpha, the interval
    excludes 1 at level 0.95); a side with one run: '0.92 (n=1)'."""
    if c.r is None:
        return "n/a (%s)" % c.note
    if c.lo is None:
        return f"{c.r:.{digits}f} (n={min(c.n, c.n_base)}, no spread)"
    sig = "*" if c.p is not None and c.p < alpha else ""
    return f"{c.r:.{digits}f} [{c.lo:.{digits}f}, {c.hi:.{digits}f}] p={c.p:.3f}{sig}"


# Clocksources a benchmark may time with: a sub-microsecond read. jiffies and
# refined-jiffies step by a tick (1-10 ms); "unknown": the boot said nothing.
COARSE = {"jiffies", "refined-jiffies", "unknown"}


def meta_boots(meta_text, key):
    """The "<key> <boot>: <value>" lines of a meta.txt, as {boot: value}."""
    d = {}
    for line in meta_text.splitlines():
        w = line.split(None, 2)
        if len(w) == 3 and w[0] == key and w[1].endswith(":"):
            d[w[1][:-1]] = w[2].strip()
    return d


def meta_field(meta_text, key):
    for line in meta_text.splitlines():
        if line.startswith(key + ":"):
            return line[len(key) + 1:].strip()
    return None


def label_of(boot):
    """'base.3' -> 'base' (run 3 of label base); 'base' -> 'base'."""
    m = re.fullmatch(r"(.+)\.(\d+)", boot)
    return m.group(1) if m else boot


def meta_refusal(meta_text):
    """Why the boots of one meta.txt may not be compared, or None: a
    clocksource that ticks, or two clocksources; two accelerators; two
    kernel variants, or two kernel configs or builds among the runs of
    one label; two versions of the guest programs (the workload)."""
    cs = {b: ("tsc" if v == "tsc-early" else v) for b, v in meta_boots(meta_text, "clocksource").items()}
    if cs:
        coarse = sorted(f"{k} ({v})" for k, v in cs.items() if v in COARSE)
        if coarse:
            return "no sub-microsecond clocksource in " + ", ".join(coarse)
        if len(set(cs.values())) > 1:
            return "boots on different clocksources: " + ", ".join(f"{k} {v}" for k, v in sorted(cs.items()))
    acc = meta_boots(meta_text, "accel")
    if len(set(acc.values())) > 1:
        return "boots on different accelerators: " + ", ".join(f"{k} {v}" for k, v in sorted(acc.items()))
    kc = meta_boots(meta_text, "kconfig")
    variants = {b: v.split()[0] for b, v in kc.items() if v.split()}
    if len(set(variants.values())) > 1:
        return "boots of different kernel variants: " + ", ".join(f"{k} {v}" for k, v in sorted(variants.items()))
    per_label = {}
    for b, v in kc.items():
        per_label.setdefault(label_of(b), {}).setdefault(v, []).append(b)
    for l, cfgs in sorted(per_label.items()):
        if len(cfgs) > 1:
            return "runs of %s on different kernel configs: %s" % (
                l, "; ".join("%s: %s" % (" ".join(sorted(bs)), c) for c, bs in sorted(cfgs.items())))
    # the kernel booted is the one built: its banner is the tree's vmlinux's
    built = meta_boots(meta_text, "kbuilt")
    for b, v in sorted(meta_boots(meta_text, "kbuild").items()):
        if built.get(b) and built[b] != v:
            return "%s booted a kernel built %s, its tree's vmlinux was built %s (a stale bzImage)" % (
                b, v, built[b])
    # one label, one kernel build: a tree rebuilt between two runs
    # (another change to the topic) is another kernel
    per_label = {}
    for b, v in meta_boots(meta_text, "kbuild").items():
        per_label.setdefault(label_of(b), {}).setdefault(v, []).append(b)
    for l, builds in sorted(per_label.items()):
        if len(builds) > 1:
            return "runs of %s on different builds of its kernel: %s" % (
                l, "; ".join("%s: %s" % (" ".join(sorted(bs)), v) for v, bs in sorted(builds.items())))
    # one workload: the guest programs (guest/<topic>, guest/lib,
    # guest/init) of every boot are the same; a load changed between two
    # sittings of a resumed benchmark is another benchmark
    guests = meta_boots(meta_text, "guest")
    if len(set(guests.values())) > 1:
        by = {}
        for b, v in guests.items():
            by.setdefault(v, []).append(b)
        return "boots of different guest programs (the workload changed): " + "; ".join(
            "%s: %s" % (" ".join(sorted(bs)), v) for v, bs in sorted(by.items()))
    return None


def run_files(bench_dir):
    """{label: {run: path}} of BENCH_DIR's <label>.<k>.txt files (a
    <label>.txt of a single run is run 1)."""
    out = {}
    for fn in sorted(os.listdir(bench_dir)):
        if not fn.endswith(".txt") or fn == "meta.txt" or not os.path.isfile(os.path.join(bench_dir, fn)):
            continue
        m = re.fullmatch(r"(.+)\.(\d+)\.txt", fn)
        label, k = (m.group(1), int(m.group(2))) if m else (fn[:-4], 1)
        if k in out.setdefault(label, {}):
            raise Refused(f"{label}.txt and {label}.1.txt in {bench_dir}: two first runs of {label}")
        out[label][k] = os.path.join(bench_dir, fn)
    return out


def load_runs(bench_dir, parse, labels=None, legacy=None):
    """{label: [parse(path) of each run, in run order]} of a make bench
    folder. Refused when its meta.txt refuses the comparison
    (meta_refusal), when a planned label (meta.txt's "labels:", or
    LABELS) has no run, or when a run's label was not planned (a file
    from another run of make bench). A folder whose meta.txt names no
    labels (make bench before it kept runs) gives every <label>.txt, or
    only the labels in LEGACY when given (a results folder holds other
    .txt files too)."""
    if not os.path.isdir(bench_dir):
        raise Refused(f"no results in {bench_dir}: run make bench")
    meta = os.path.join(bench_dir, "meta.txt")
    text = open(meta).read() if os.path.exists(meta) else ""
    why = meta_refusal(text)
    if why:
        raise Refused(f"{why} ({meta})")
    files = run_files(bench_dir)
    planned = labels if labels is not None else (meta_field(text, "labels") or "").split() or None
    if planned is not None:
        missing = [l for l in planned if l not in files]
        extra = sorted(l for l in files if l not in planned)
        if missing or extra:
            raise Refused("the runs in %s do not match the planned labels (%s):%s%s" % (
                bench_dir, " ".join(planned),
                " no runs of " + ", ".join(missing) + ";" if missing else "",
                " runs of unplanned " + ", ".join(extra) if extra else ""))
        order = list(planned)
    else:
        order = [l for l in files if legacy is None or l in legacy]
    if not order:
        raise Refused(f"no runs in {bench_dir}: run make bench")
    return {l: [parse(files[l][k]) for k in sorted(files[l])] for l in order}


def meta_runs(bench_dir):
    """The "runs:" of a bench folder's meta.txt (None before it was kept)."""
    try:
        v = meta_field(open(os.path.join(bench_dir, "meta.txt")).read(), "runs")
    except OSError:
        return None
    return int(v) if v and v.isdigit() else None


def errorbar_kw(xs):
    """matplotlib bar()/errorbar() keywords for a cell: the sd as yerr
    (none for one run)."""
    xs = list(xs)
    return {"yerr": stdev(xs) if len(xs) > 1 else 0.0, "capsize": 3}


if __name__ == "__main__":
    import subprocess
    import sys
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(subprocess.call([sys.executable, os.path.join(here, "test", "test_stats.py")]))
