#!/usr/bin/env bash
# Assemble out/report/index.html from the topics' Markdown reports
# (out/report/<topic>.md, written by guest/<topic>/report) and their plots,
# with the command, kernel versions and date each came from (meta.txt).
. "$(dirname "$0")/lib.sh"
mkdir -p "$OUT/report"
/usr/bin/python3 "$REPO/scripts/report.py" "$OUT" "$TOPICS"
# How a reader sees it (out/report/index.png), when Chromium is there.
command -v chromium >/dev/null && bash "$REPO/scripts/screenshot.sh" "$OUT/report/index.html" || true
