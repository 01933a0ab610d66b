#!/usr/bin/env bash
# A local mailing list on loopback: Debian's public-inbox (v2 inbox "all",
# public-inbox-mda for delivery, public-inbox-httpd on 127.0.0.1 only), so
# that b4 can send to it and fetch from it without any network.
#
#   list.sh start [DIR]    create DIR (default $MM_LIST_DIR or <cache>/list),
#                          start httpd on a random free loopback port, print
#                          the shell settings to use (MM_LIST_DIR, MM_LIST_URL)
#   list.sh stop [DIR]     stop that httpd (by its recorded pid) and keep DIR
#   list.sh url [DIR]      print http://127.0.0.1:PORT/all
#   list.sh deliver [DIR]  one message on stdin -> archive (used by sendmail-local)
#   list.sh has MSGID [DIR] exit 0 if the archive serves that message
#   list.sh b4config [DIR] print git -c options pointing b4 at the archive
#
# Nothing listens beyond 127.0.0.1; the inbox and its config stay in DIR.
. "$(dirname "$0")/lib.sh"

LIST_ADDR=${MM_LIST_ADDR:-mm-medley-list@localhost}
cmd=${1:-}
[ $# -gt 0 ] && shift
msgid=
if [ "$cmd" = has ]; then
	msgid=${1:?usage: list.sh has MSGID [DIR]}
	shift
fi
dir=${1:-${MM_LIST_DIR:-$CACHE/list}}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
export PI_CONFIG=$dir/config
export PI_DIR=$dir

free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

running() {
	local pid
	pid=$(cat "$dir/httpd.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

url() { echo "http://127.0.0.1:$(cat "$dir/port")/all"; }

# HTTP GET without curl (python3 is a dependency anyway): 0 on status 200.
http_ok() {
	/usr/bin/python3 -c 'import sys, urllib.request
try:
    sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=5).status == 200 else 1)
except Exception:
    sys.exit(1)' "$1"
}

init_inbox() {
	[ -d "$dir/all" ] && return 0
	local port=$1
	public-inbox-init -V2 -L full all "$dir/all" "http://127.0.0.1:$port/all" "$LIST_ADDR" \
		>"$dir/init.log" 2>&1 || { cat "$dir/init.log" >&2; die "public-inbox-init failed"; }
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
	git config -f "$PI_CONFIG" publicinbox.all.indexlevel full
}

case $cmd in
start)
	if running; then
		say "list: already running at $(url) (dir $dir)"
	else
		ok=
		for _try in 1 2 3 4 5; do
			port=$(free_port)
			init_inbox "$port"
			# The inbox URL is only used in generated links; keep it in step.
			git config -f "$PI_CONFIG" publicinbox.all.url "http://127.0.0.1:$port/all"
			echo "$port" >"$dir/port"
			public-inbox-httpd -W0 -l "http://127.0.0.1:$port" \
				>>"$dir/httpd.log" 2>&1 </dev/null &
			echo $! >"$dir/httpd.pid"
			for _i in $(seq 1 50); do
				if http_ok "http://127.0.0.1:$port/all/_/text/config/raw"; then
					ok=1; break
				fi
				running || break
				sleep 0.2
			done
			[ -n "$ok" ] && break
			# Port taken in the meantime, or a slow start: stop ours, retry.
			kill "$(cat "$dir/httpd.pid")" 2>/dev/null || true
			rm -f "$dir/httpd.pid"
		done
		[ -n "$ok" ] || { tail -20 "$dir/httpd.log" >&2; die "public-inbox-httpd did not start"; }
		say "list: $LIST_ADDR archived at $(url) (dir $dir, pid $(cat "$dir/httpd.pid"))"
	fi
	echo "MM_LIST_DIR=$dir"
	echo "MM_LIST_URL=$(url)"
	;;
stop)
	if running; then
		pid=$(cat "$dir/httpd.pid")
		kill "$pid" 2>/dev/null || true
		for _i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
		say "list: stopped (pid $pid)"
	else
		say "list: not running"
	fi
	rm -f "$dir/httpd.pid"
	;;
url)
	[ -f "$dir/port" ] || die "no list in $dir: run 'list.sh start $dir'"
	url
	;;
deliver)
	[ -d "$dir/all" ] || die "no list in $dir: run 'list.sh start $dir'"
	# mda takes one message, imports it and updates the search index.
	ORIGINAL_RECIPIENT=$LIST_ADDR public-inbox-mda --no-precheck "$dir/all" \
		|| die "public-inbox-mda refused the message (exit $?)"
	;;
has)
	# list.sh has MSGID [DIR]: is that message served by the archive?
	[ -f "$dir/port" ] || die "no list in $dir"
	msgid=${msgid#<}; msgid=${msgid%>}
	http_ok "$(url)/$msgid/raw"
	;;
b4config)
	u=$(url)
	echo "-c b4.midmask=$u/%s -c b4.linkmask=$u/%s -c b4.searchmask=$u/?x=m&t=1&q=%s"
	;;
*)
	die "usage: list.sh start|stop|url|deliver|b4config [DIR]"
	;;
esac
