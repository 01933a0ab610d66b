#!/usr/bin/python3
"""out/report/index.html (and index.md): one section per topic with its
side-by-side tables and plots, and the command, kernels and date that
produced them. Topics without results say so."""
import html
import os
import sys

import markdown

out, topics = sys.argv[1], sys.argv[2].split()
rep = os.path.join(out, "report")
md_all = ["# mm-medley benchmark report", ""]
for t in topics:
    md_all.append(f"## {t}")
    meta = os.path.join(out, "bench", t, "meta.txt")
    body = os.path.join(rep, f"{t}.md")
    if os.path.exists(meta):
        md_all += ["", "```", open(meta).read().strip(), "```", ""]
    if os.path.exists(body):
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
