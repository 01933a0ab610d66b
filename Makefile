# mm-medley: a Linux 6.12 fork for memory management, kept as topic series.
# Every target is a thin wrapper around one script in scripts/; see README.md.
#
#   make boot              build + boot all topics together (the medley), run every test
#   make check             the whole test suite (what .ci/run runs)
#   make boot TOPIC=sksm   one topic;  TOPIC=base: the unpatched tree
#   make boot-variants TOPIC=try-alloc-pages   its PREEMPT_RT and !SMP kernels, booted and tested
#   make shell TOPIC=t     interactive guest shell (HOST=1: in the host's root, read-only)
#   make check-series TOPIC=t, make bench [TOPIC=t], make series TOPIC=t [SEND=1|smtp|reflect]
#   make import|export|build TOPIC=t, make base, make deps

TOPIC ?=
SHELL := /bin/bash
S := scripts

.PHONY: help deps base import export build boot boot-variants shell check-series bench report series roundtrip medley check test-scripts clean-out topics
help:
	@sed -n 's/^#   //p' Makefile

topics:
	@bash $(S)/topics.sh

deps:
	@bash $(S)/deps.sh

base: deps
	@bash $(S)/base.sh

import: base
	@bash $(S)/import.sh $(or $(TOPIC),$(error TOPIC=... is required; 'make topics' lists them))

export:
	@bash $(S)/export.sh $(or $(TOPIC),$(error TOPIC=... is required; 'make topics' lists them))

build: base
	@bash $(S)/build.sh $(or $(TOPIC),medley)

boot: base
	@bash $(S)/boot.sh $(or $(TOPIC),medley) test

# the topic's kernel in its other configurations (guest/<t>/variants/boot)
boot-variants: base
	@bash guest/$(or $(TOPIC),$(error TOPIC=... is required))/variants/boot

shell: base
	@MM_HOST=$(HOST) bash $(S)/boot.sh $(or $(TOPIC),medley) shell

check-series: base
	@bash $(S)/check-series.sh $(TOPIC)

bench: base
	@BENCH_RUNS=$(BENCH_RUNS) bash $(S)/bench.sh $(TOPIC)

report:
	@bash $(S)/report.sh

series: base
	@bash $(S)/series.sh $(or $(TOPIC),$(error TOPIC=... is required; 'make topics' lists them)) $(if $(FORCE),--force) $(if $(SEND),--send=$(SEND))

roundtrip: base
	@bash $(S)/roundtrip.sh $(or $(TOPIC),$(error TOPIC=... is required))

medley: base
	@bash $(S)/medley.sh

test-scripts:
	@bash $(S)/test-scripts.sh

check: deps
	@bash $(S)/check.sh

clean-out:
	rm -rf out
