#!/usr/bin/env bash
# TAP: the unit tests of scripts/stats.py (mean, sd, Welch's t-test).
exec python3 "$(dirname "$0")/test_stats.py"
