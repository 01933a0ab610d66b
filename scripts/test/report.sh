#!/usr/bin/env bash
# The report page (TAP): from a made-up topic's Markdown and plot, index.html
# holds its table, image and provenance, and headless Chromium renders it.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$S/ktap.sh"
mkdir -p "$T/out/report" "$T/out/bench/demo"
printf '%s\n' "# demo" "" "| config | value |" "|---|---|" "| base | 1.00 |" "| topic | 0.50 |" "" "![plot](demo.png)" > "$T/out/report/demo.md"
printf '%s\n' "command: make bench TOPIC=demo" "date: 2026-01-01" > "$T/out/bench/demo/meta.txt"
/usr/bin/python3 - "$T/out/report/demo.png" <<'PY'
import sys, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.plot([1, 2, 3], [3, 1, 2]); plt.title("demo"); plt.savefig(sys.argv[1])
PY
if /usr/bin/python3 "$S/report.py" "$T/out" "demo missing" >/dev/null; then ok "report.py writes index.html"; else notok "report.py writes index.html"; fi
h=$T/out/report/index.html
grep -q '<table>' "$h" && grep -q '<td>0.50</td>' "$h" && ok "the topic's table is in the page" || notok "the topic's table is in the page"
grep -q '<img alt="plot" src="demo.png"' "$h" && ok "the plot is in the page" || notok "the plot is in the page"
grep -q 'make bench TOPIC=demo' "$h" && ok "the command that produced it is in the page" || notok "provenance in the page"
grep -q 'No results yet: run <code>make bench TOPIC=missing</code>' "$h" && ok "a topic without results says how to get them" || notok "missing topic message"
if bash "$S/screenshot.sh" "$h" "$T/shot.png" 2>/dev/null && [ "$(stat -c %s "$T/shot.png")" -gt 10000 ]; then ok "headless Chromium renders the page"; else notok "headless Chromium renders the page"; fi
ktap_exit
