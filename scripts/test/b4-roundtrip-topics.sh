#!/usr/bin/env bash
# The round trip (scripts/roundtrip.sh) of every topic, as one TAP stream:
# each topic's results prefixed with its name. A topic without patches yet
# is a skip; a topic with patches but no cover letter fails. ~1-2 min per
# topic. MM_TOPICS limits the topics.
S=$(cd "$(dirname "$0")/.." && pwd)
. "$S/lib.sh"
set +e
n=0 fails=0
for t in $TOPICS; do
	if [ -z "$(ls "$REPO/branches/$t"/*.patch 2>/dev/null)" ]; then
		n=$((n + 1)); echo "ok $n - $t # SKIP no patches in branches/$t/ yet"; continue
	fi
	start=$(date +%s)
	while IFS= read -r line; do
		case $line in
		"ok "*)     n=$((n + 1)); echo "ok $n - $t: ${line#ok * - }" ;;
		"not ok "*) n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $t: ${line#not ok * - }" ;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done < <(bash "$S/roundtrip.sh" "$t" 2>&1)
	echo "# $t: round trip took $(( $(date +%s) - start )) s"
done
echo "1..$n"
[ "$fails" -eq 0 ]
