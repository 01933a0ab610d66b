#!/usr/bin/env bash
# Render a page (default out/report/index.html) as a reader would see it:
# headless Chromium, a PNG next to it. Usage: screenshot.sh [PAGE [PNG]]
. "$(dirname "$0")/lib.sh"
page=${1:-$OUT/report/index.html}
png=${2:-${page%.html}.png}
[ -f "$page" ] || die "no $page: run 'make bench' (or 'make report')"
command -v chromium >/dev/null || die "chromium missing: make deps"
prof=$(mktemp -d)
trap 'rm -rf "$prof"' EXIT
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$prof" --hide-scrollbars --window-size=1280,2400 \
	--screenshot="$png" "file://$(realpath "$page")" >/dev/null 2>&1
[ -s "$png" ] || die "chromium wrote no screenshot"
say "screenshot: $png"
