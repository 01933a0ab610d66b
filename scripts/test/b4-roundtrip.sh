#!/usr/bin/env bash
# The mailing-list round trip (scripts/roundtrip.sh) on the demo topic: a
# sandbox, a loopback list, b4 send/am/trailers/compare-to (TAP). ~1 min.
exec bash "$(cd "$(dirname "$0")/.." && pwd)/roundtrip.sh" demo
