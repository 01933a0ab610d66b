#!/usr/bin/env bash
# make build TOPIC=t: bzImage of topic t (base: the unpatched tree, medley:
# all topics) from tinyconfig + guest/common.config + guest/<t>/config, in
# one object folder per topic outside the repository, with ccache. One
# kernel build at a time on this machine: builds take a lock.
# Fails when an option a fragment asks for is not in the final .config.
# Usage: build.sh TOPIC [SRC-TREE [OBJDIR]]   (the last two for per-patch builds)
# MM_VARIANT=bench: the benchmark kernel, guest/bench.config applied last
# (debugging off), objects in <tree>/.obj-bench, $OBJ/<name>+bench.
# MM_VARIANT=host: guest/host.config (9p, for make shell HOST=1).
. "$(dirname "$0")/lib.sh"
t=${1:?usage: build.sh TOPIC}
check_topic "$t"
src=${2:-}
variant=${MM_VARIANT:-}
# MM_VARIANT=<name> with a file guest/<topic>/variants/<name>.config: that
# fragment applied last (a configuration a topic must also build in, e.g.
# PREEMPT_RT or !SMP), objects in <tree>/.obj-<name>.
vfrag=
case $variant in
'') ;;
bench|host) vfrag=$REPO/guest/$variant.config ;;
*) vfrag=$REPO/guest/$t/variants/$variant.config
   [ -f "$vfrag" ] || die "unknown MM_VARIANT '$variant' (known: bench, host, or guest/$t/variants/<name>.config)" ;;
esac
obj=${3:-$OBJ/$t${variant:++$variant}}
if [ -z "$src" ]; then
	if [ "$t" = base ]; then bash "$REPO/scripts/base.sh" >/dev/null; src=$BASE
	elif [ "$t" = medley ]; then src=$WORK/medley; bash "$REPO/scripts/medley.sh" >&2
	else src=$WORK/$t; [ -e "$src/.git" ] || bash "$REPO/scripts/import.sh" "$t"; fi
fi
# $OBJ/<name> is a symlink to <tree>/.obj (see lib.sh), made here.
case $obj in "$OBJ"/*)
	tobj=$src/.obj${variant:+-$variant}
	mkdir -p "$tobj" "$OBJ"
	[ "$(readlink -f "$obj")" = "$(readlink -f "$tobj")" ] || { rm -rf "$obj"; ln -sfn "$tobj" "$obj"; } ;;
esac
obj=$(readlink -f "$obj")
mkdir -p "$obj" "$CCACHE_DIR"
frags=("$REPO/guest/common.config")
if [ "$t" = medley ]; then
	for x in $TOPICS; do [ -f "$REPO/guest/$x/config" ] && frags+=("$REPO/guest/$x/config"); done
	# the medley's own, last: KASAN and memory hotplug
	[ -f "$REPO/guest/medley/config" ] && frags+=("$REPO/guest/medley/config")
elif [ -f "$REPO/guest/$t/config" ]; then
	frags+=("$REPO/guest/$t/config")
fi
# A fragment pulls in a shared one of guest/ with a line "# use: <file>":
# acpi.config for the topologies the kernel reads from ACPI tables. Shared
# fragments go right after common.config, each once.
uses=()
for f in "${frags[@]}"; do
	while read -r u; do
		[ -f "$REPO/guest/$u" ] || die "$f asks for guest/$u ('# use: $u'), which does not exist"
		case " ${uses[*]} " in *" $REPO/guest/$u "*) ;; *) uses+=("$REPO/guest/$u") ;; esac
	done < <(sed -n 's/^# use: \([^ ]*\)$/\1/p' "$f")
done
frags=("${frags[0]}" "${uses[@]}" "${frags[@]:1}")
[ -n "$variant" ] && frags+=("$vfrag")
# The config is regenerated only when a fragment or the tree's Kconfig changed.
want=$(cat "${frags[@]}" | sha1sum | cut -c1-12)
# Nothing to do (and no need to queue for the lock) when this tree state
# was already built with this configuration.
state="$(git -C "$src" rev-parse 'HEAD^{tree}' 2>/dev/null) $want $(git -C "$src" diff HEAD 2>/dev/null | sha1sum | cut -c1-12)"
targets=${BUILD_TARGETS:-bzImage}   # BUILD_TARGETS: e.g. "mm/ kernel/bpf/" (bisect builds)
# piggy.S takes the compressed kernel in with .incbin, which ccache does not
# hash: a new kernel of the same compressed size (piggy.S says only the
# size) got the old piggy.o from the cache, and the bzImage booted the
# kernel of an earlier build. piggy_current: the bzImage's piggy.o carries
# this object folder's compressed kernel.
cdir=$obj/arch/x86/boot/compressed
piggy_current() {
	local z
	z=$(ls "$cdir"/vmlinux.bin.* 2>/dev/null | grep -v '\.cmd$' | head -1)
	[ -n "$z" ] && objcopy -O binary --only-section=.rodata..compressed "$cdir/piggy.o" "$cdir/piggy.payload" 2>/dev/null &&
		cmp -s "$cdir/piggy.payload" "$z"
	local r=$?; rm -f "$cdir/piggy.payload"; return $r
}
if [ "$targets" = bzImage ] && [ -f "$obj/arch/x86/boot/bzImage" ] && [ "$(cat "$obj/.built" 2>/dev/null)" = "$state" ] && piggy_current; then
	say "build: $t up to date: $obj/arch/x86/boot/bzImage"
	exit 0
fi
rm -f "$obj/.built"
# A run of the whole suite (make check) holds the priority lock: other
# builds wait until it ends instead of racing it for the build lock. They
# wait before they take any other lock: a build that held its object
# folder's lock while it waited here kept make check's build of the same
# folder waiting for it, and each waited for the other for good.
if [ -z "${MM_PRIORITY:-}" ] && ! flock -n -s "$CACHE/priority.lock" true; then
	say "build: make check is running; waiting for it"
	flock -s "$CACHE/priority.lock" true
fi
# This object folder's own lock (sparse runs in it too), then the machine's.
exec 8>"$obj/.lock"
flock 8
exec 9>"$BUILD_LOCK"
if ! flock -n 9; then say "build: waiting for another kernel build to finish"; flock 9; fi
jobs=${JOBS:-$(nproc)}
# DISTCC_HOSTS: compiles that ccache misses go to the hosts that answer,
# with -j their slots (JOBS still wins); local when none answers.
. "$REPO/scripts/distcc.sh"
distcc_setup
[ -n "${DISTCC_JOBS:-}" ] && [ -z "${JOBS:-}" ] && jobs=$DISTCC_JOBS
mk() { make -s -C "$src" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs" "$@"; }
# The configuration is made from tinyconfig and the fragments, and .config
# is replaced only when the result differs, so nothing rebuilds for
# nothing. It is made again whenever its inputs changed: the fragments and
# the tree's Kconfig files (and tinyconfig's), committed or not (a tree at
# an earlier patch may lack a symbol a later patch adds). When they are
# what the last .config was made from, that .config is kept as it is: a
# bisect build moves a scratch tree one patch on and rebuilds a few
# objects, and tinyconfig plus olddefconfig took 20-30 s of each such
# state on a 2-core machine.
cfgkey="$want $( { git -C "$src" ls-files -s -- '*Kconfig*' '*tiny.config'
	git -C "$src" diff HEAD -- '*Kconfig*' '*tiny.config'; } 2>/dev/null | sha1sum | cut -c1-12)"
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.config-key" 2>/dev/null)" != "$cfgkey" ]; then
	rm -f "$obj/.config-key"
	cfg=$obj/.config.medley
	cp "$obj/.config" "$obj/.config.prev" 2>/dev/null || rm -f "$obj/.config.prev"
	mk KCONFIG_CONFIG=.config.medley tinyconfig >/dev/null 2>&1
	cat "${frags[@]}" >> "$cfg"
	mk KCONFIG_CONFIG=.config.medley olddefconfig >/dev/null 2>&1
	if [ -f "$obj/.config.prev" ] && cmp -s "$cfg" "$obj/.config.prev"; then rm -f "$cfg"
	else mv "$cfg" "$obj/.config"; fi
	rm -f "$obj/.config.prev"
	echo "$cfgkey" > "$obj/.config-key"
fi
# Every option a fragment asks for must be in the final .config (not checked
# for the intermediate patches of a bisect build: MM_CONFIG_CHECK=0). When
# fragments disagree, the later one wins, as it does for olddefconfig.
missing=0
while IFS= read -r line; do
	[ "${MM_CONFIG_CHECK:-1}" = 0 ] && break
	case $line in
	CONFIG_*=*) grep -qxF "$line" "$obj/.config" || { say "build: $t: $line did not survive (see $obj/.config)"; missing=1; } ;;
	"# CONFIG_"*" is not set") # also met when the symbol is absent (its dependencies are off)
		sym=${line#\# }; sym=${sym%% *}
		! grep -q "^$sym=" "$obj/.config" || { say "build: $t: '$line' did not survive"; missing=1; } ;;
	esac
done < <(cat "${frags[@]}" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { k = $0; sub(/=.*/, "", k) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { k = $2 }
	k != "" { if (!(k in v)) o[n++] = k; v[k] = $0; k = "" }
	END { for (i = 0; i < n; i++) print v[o[i]] }')
[ $missing = 0 ] || die "config options missing for $t"
start=$(date +%s)
log=$obj/build.log
say "build: $t${variant:+ ($variant)} in $obj (log: $log)"
# Progress: objects compiled so far, against the count of this kernel's
# last full build (one from an empty object folder) when this one is full
# too; a line rewritten on a terminal, one a minute otherwise.
. "$REPO/scripts/progress.sh"
key=$t${variant:++$variant} total='' full=''
[ -f "$obj/vmlinux" ] || { full=1; total=$(cat "$CACHE/build-objs/$key" 2>/dev/null || true); }
rm -f "$obj/.rc"
# (not "make; echo $?": under set -e a failed make would end the subshell first)
( r=0; make -C "$src" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs" $targets >"$log" 2>&1 || r=$?; echo $r > "$obj/.rc" ) &
pid=$!
compiled() { grep -c '^  CC ' "$log" || true; }
progress_watch $pid "  build $t" "" compiled "$total" objects
wait $pid || true
rc=$(cat "$obj/.rc" 2>/dev/null || echo 1)
if [ "$rc" != 0 ]; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "build of $t failed (log: $log)"
fi
# piggy.o (see piggy_current) is assembled again without ccache, a few
# seconds, and the bzImage must then carry this build's kernel.
if [ "$targets" = bzImage ]; then
	rm -f "$cdir/piggy.o"
	CCACHE_DISABLE=1 mk bzImage >>"$log" 2>&1 || die "build of $t failed relinking the bzImage (log: $log)"
	piggy_current || die "build of $t: the bzImage does not carry this build's kernel ($cdir/piggy.o)"
fi
[ "$targets" = bzImage ] && echo "$state" > "$obj/.built"
if [ "$targets" = bzImage ] && [ -n "$full" ]; then mkdir -p "$CACHE/build-objs"; compiled > "$CACHE/build-objs/$key"; fi
say "build: $t done in $(( $(date +%s) - start ))s: $obj/arch/x86/boot/bzImage"
