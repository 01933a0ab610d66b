#!/usr/bin/env bash
# The round trip of a single-patch topic (b4 folds the cover letter into
# the patch; no 0/N mail). TAP, ~30 s.
exec bash "$(cd "$(dirname "$0")/.." && pwd)/roundtrip.sh" demo1
