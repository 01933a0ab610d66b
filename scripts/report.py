#!/usr/bin/python3
"""out/report/index.html (and index.md): one section per topic with its
side-by-side tables and plots, and the command, kernels and date that
produced them. Topics without results say so."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import meta_refusal  # noqa: E402 (the one place of these rules)


def clock_refusal(meta_text):
    """Why the boots of one meta.txt may not be compared (clocksource,
    accelerator, kernel config: stats.meta_refusal), or None."""
    return meta_refusal(meta_text)


# report.py --clocks META: exit 1 (and say why) when the boots of a
# benchmark run ran on different or coarse clocksources, on different
# accelerators, or on different kernel configs.
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
