#!/bin/sh
# Runs the host bats suite and, beside it, the guest (QEMU) suite, and
# prints one closing line: N passed, N failed, N skipped.  The live
# tests (tests/live) run where hardware breakpoints fire: on the host
# where they do (wp doctor says so), else in the guest only, which starts
# first and runs while the host suite does (it waits on QEMU's
# emulation as much as the host suite waits on its targets); its TAP
# is printed after the host's.
# WP_BUILD names the build directory; WP_GUEST=0 leaves the guest out,
# WP_GUEST=1 runs it where breakpoints fire on the host too.
top=$(cd "$(dirname "$0")/.." && pwd)
: "${WP_BUILD:=$top/build}"
export WP_BUILD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# WP_ARM_BP=none: the whole host suite as on a machine whose breakpoints
# do not fire (the live tests then run in the guest, where they do)
guest= fire=0
[ "${WP_ARM_BP:-}" = none ] && export WP_SUITE_ARM_BP=none
"$WP_BUILD/wp-arm" --check-bp > /dev/null 2>&1 && fire=1
if [ -z "${WP_GUEST:-}" ] && [ "$fire" = 1 ]; then
	echo "== guest suite: not run: hardware breakpoints fire on this host, where the live tests run (WP_GUEST=1 runs it too)"
	WP_GUEST=0
fi
# The arm64 guest's subset (every backend on arm64: ARM64_TESTS) runs
# when the host suite ends, beside the x86-64 guest (from the start
# where that does not run), with the tools make check built
# (build/arm64); WP_ARM64=0 leaves it out.  WP_DEB_ARM64 (an arm64
# .deb: make deb DEB_ARCH=arm64) is installed and run there too.
ARM64_TESTS="05-guest-machine.bats 60-arm64-backends.bats 61-arm64-deb.bats"
arm64=
if [ "${WP_ARM64:-1}" = 0 ]; then
	echo "== arm64 guest: not run (WP_ARM64=0)"
elif [ ! -x "$WP_BUILD/arm64/wp-arm" ]; then
	echo "== arm64 guest: not run: no arm64 tools in $WP_BUILD/arm64 (make check builds them)"
else
	arm64=1
fi
arm64_guest() {
	WP_BUILD_ARM64=$WP_BUILD/arm64 "$top/tests/vm/run-guest-arm64" \
	    $ARM64_TESTS > "$out/guest64.out" 2> "$out/guest64.err"
	echo $? > "$out/guest64.rc"
}
guest64=
if [ "${WP_GUEST:-1}" != 0 ] && [ -x "$top/tests/vm/run-guest" ]; then
	echo "== guest suite (QEMU TCG), started beside the host suite${arm64:+; the arm64 guest's subset when the host suite ends}"
	{
		"$top/tests/vm/run-guest" > "$out/guest.out" 2> "$out/guest.err"
		echo $? > "$out/guest.rc"
	} &
	guest=$!
elif [ -n "$arm64" ]; then
	echo "== arm64 guest's subset (QEMU TCG), started beside the host suite"
	arm64_guest &
	guest64=$!
	arm64=
fi

# The host files run from one queue, the most tests first, by WP_JOBS
# workers (default 2): most of a watch's time is spent waiting on its
# target, so two files share two cores well.  Each file's TAP is printed
# whole when it ends.
set -- "$top"/tests/*.bats
if [ -n "$guest" ] && [ "$fire" = 0 ]; then
	echo "== tests/live: in the guest only: hardware breakpoints do not fire on this host"
else
	set -- "$@" "$top"/tests/live/*.bats
fi
echo "== host suite: ${#} files, ${WP_JOBS:=2} at a time"
for f in "$@"; do
	printf '%s %s\n' "$(grep -c '^@test' "$f")" "$f"
done | sort -k1,1nr -k2 | cut -d' ' -f2- > "$out/queue"
: > "$out/host.tap"
worker() {
	local f t0 tap=$out/worker$1.out
	while :; do
		f=$(flock "$out/queue.lock" sh -c 'f=$(head -n 1 "$1") &&
		    sed -i 1d "$1" && printf %s "$f"' sh "$out/queue")
		[ -n "$f" ] || return 0
		t0=$(date +%s)
		bats --tap --timing "$f" > "$tap" 2>&1
		flock "$out/host.lock" sh -c 'printf "== %s (%ss)\n" "$2" "$3"
		    cat "$1"; cat "$1" >> "$4"' sh "$tap" "${f#$top/}" \
		    "$(( $(date +%s) - t0 ))" "$out/host.tap"
	done
}
i=0 workers=
while [ "$i" -lt "$WP_JOBS" ]; do
	worker "$i" &
	workers="$workers $!"
	i=$((i + 1))
done
wait $workers
# the x86-64 guest runs on: the arm64 guest takes the cores the host
# suite leaves (they are busy with one guest less than with two)
if [ -n "$arm64" ]; then
	echo "== arm64 guest's subset (QEMU TCG), started as the host suite ended"
	arm64_guest &
	guest64=$!
fi

# guest_tap NAME TITLE: a guest's TAP, counted; 1 from the guest: a
# test failed and the TAP says which; anything else: no answer
guest_tap() {
	[ -f "$out/$1.out" ] || return 0
	echo "== $2"
	cat "$out/$1.err" >&2
	cp "$out/$1.out" "$out/$1.tap"
	case $(cat "$out/$1.rc" 2> /dev/null) in
	0|1)	;;
	*)	echo "not ok 1 $2 did not complete" >> "$out/$1.tap" ;;
	esac
	cat "$out/$1.tap"
}
[ -z "$guest" ] || wait "$guest"
[ -z "$guest64" ] || wait "$guest64"
guest_tap guest "guest suite (QEMU TCG)"
guest_tap guest64 "arm64 guest: $ARM64_TESTS (QEMU TCG)"

cat "$out"/*.tap | awk '
	/^ok .*# skip/ { s++; next }
	/^ok / { p++; next }
	/^not ok / { f++; next }
	END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 || p == 0 }'
