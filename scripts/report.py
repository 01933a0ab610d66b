#!/usr/bin/python3
"""out/report/index.html (and index.md): one section per topic with its
side-by-side tables and plots, and the command, kernels and date that
produced them. Topics without results say so."""
import os
import sys

# Clocksources a benchmark may time with: a sub-microsecond read. jiffies and
# refined-jiffies step by a tick (1-10 ms); "unknown": the boot said nothing.
COARSE = {"jiffies", "refined-jiffies", "unknown"}


def clocks(meta_text):
    """The "clocksource <label>: <name>" lines of a meta.txt, as a dict."""
    d = {}
    for line in meta_text.splitlines():
        w = line.split()
        if len(w) == 3 and w[0] == "clocksource" and w[1].endswith(":"):
            # tsc-early: the same counter, before its refined calibration
            d[w[1][:-1]] = "tsc" if w[2] == "tsc-early" else w[2]
    return d


def clock_refusal(meta_text):
    """Why the boots of one meta.txt may not be compared, or None."""
    d = clocks(meta_text)
    if not d:
        return None  # results from before clocksources were recorded
    coarse = sorted(f"{k} ({v})" for k, v in d.items() if v in COARSE)
    if coarse:
        return "no sub-microsecond clocksource in " + ", ".join(coarse)
    if len(set(d.values())) > 1:
        return "boots on different clocksources: " + ", ".join(f"{k} {v}" for k, v in sorted(d.items()))
    return None


# report.py --clocks META: exit 1 (and say why) when the boots of a
# benchmark run ran on different or coarse clocksources.
if len(sys.argv) == 3 and sys.argv[1] == "--clocks":
    why = clock_refusal(open(sys.argv[2]).read())
    if why:
        print(f"comparison refused: {why}")
        sys.exit(1)
    sys.exit(0)

import markdown  # noqa: E402 (not needed by --clocks)

out, topics = sys.argv[1], sys.argv[2].split()
rep = os.path.join(out, "report")
md_all = ["# mm-medley benchmark report", ""]
for t in topics:
    md_all.append(f"## {t}")
    meta = os.path.join(out, "bench", t, "meta.txt")
    body = os.path.join(rep, f"{t}.md")
    why = None
    if os.path.exists(meta):
        text = open(meta).read()
        md_all += ["", "```", text.strip(), "```", ""]
        why = clock_refusal(text)
    if why:
        # The timings would compare two clocks: no table, say why.
        md_all += ["", f"**Comparison refused**: {why}. Run `make bench TOPIC={t}` again.", ""]
    elif os.path.exists(body):
        text = open(body).read()
        # The topic's own title is replaced by the section heading.
        lines = [l for l in text.splitlines() if not l.startswith("# ")]
        md_all += [l.replace("](out/report/", "](") for l in lines]
    else:
        md_all += ["", f"No results yet: run `make bench TOPIC={t}`.", ""]
    md_all.append("")
md = "\n".join(md_all)
open(os.path.join(rep, "index.md"), "w").write(md)
body = markdown.markdown(md, extensions=["tables", "fenced_code"])
css = """body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em;text-align:right}
th{background:#eee}td:first-child,th:first-child{text-align:left}pre{background:#f6f6f6;padding:.6em;overflow:auto}
img{max-width:100%;border:1px solid #ddd;margin:.5em 0}h2{border-bottom:2px solid #ccc;margin-top:2em}"""
page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>mm-medley benchmark report</title>
<style>{css}</style></head><body>{body}</body></html>"""
open(os.path.join(rep, "index.html"), "w").write(page)
print(f"report: {os.path.join(rep, 'index.html')}")
