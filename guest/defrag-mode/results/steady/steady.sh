#!/bin/bash
# The load's steadiness: the whole series, defrag_mode=0 and =1,
# interleaved, RUNS runs each of ROUNDS rounds (fragbench through
# guest/defrag-mode/bench, the bench.plan's kernel "defrag-mode").
# Usage (from anywhere): steady.sh OUTDIR RUNS ROUNDS
set -u
out=$(realpath -m "$1")
cd "$(dirname "$0")/../../../.." || exit 1
runs=$2 rounds=$3
fb="medley.fb=$rounds,8,20,192,96,16,48,200"
mkdir -p "$out"
echo "command: guest/defrag-mode/results/steady/steady.sh $out $runs $rounds (for k in 1..$runs, for N in 0 1: BENCH_TOPIC=defrag-mode scripts/boot.sh defrag-mode bench <label>.<k> medley.defrag_mode=N $fb), under nice -n 19, autogroup 19" > "$out/meta.txt"
echo "start: $(date -u '+%Y-%m-%d %H:%M:%S UTC')" >> "$out/meta.txt"
for k in $(seq 1 "$runs"); do
	for dm in 0 1; do
		l=$([ $dm = 0 ] && echo wmarks-off || echo defragmode-async-wmarks).$k
		t0=$(date +%s)
		if BENCH_TOPIC=defrag-mode bash scripts/boot.sh defrag-mode bench "$l" medley.defrag_mode=$dm "$fb" </dev/null > "$out/boot-$l.log" 2>&1; then
			grep -av '^MEDLEY-DONE' out/bench/defrag-mode/boot-$l/results.txt | tr -d '\r' > "$out/$l.txt"
			echo "run $l: $(( $(date +%s) - t0 ))s" >> "$out/meta.txt"
		else
			echo "run $l: FAILED after $(( $(date +%s) - t0 ))s" >> "$out/meta.txt"
		fi
	done
done
echo "end: $(date -u '+%Y-%m-%d %H:%M:%S UTC')" >> "$out/meta.txt"
