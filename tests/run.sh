#!/bin/sh
# Runs the host bats suite and then the guest (QEMU) suite, and prints
# one closing line: N passed, N failed, N skipped.
# WP_BUILD names the build directory; WP_GUEST=0 leaves the guest out.
top=$(cd "$(dirname "$0")/.." && pwd)
: "${WP_BUILD:=$top/build}"
export WP_BUILD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

set -- "$top"/tests/*.bats "$top"/tests/live/*.bats
echo "== host suite: ${#} files"
bats --tap "$@" | tee "$out/host.tap"

if [ "${WP_GUEST:-1}" != 0 ] && [ -x "$top/tests/vm/run-guest" ]; then
	echo "== guest suite (QEMU TCG)"
	"$top/tests/vm/run-guest" > "$out/guest.tap"
	# 1: a test failed and the TAP says which; anything else: no answer
	case $? in
	0|1)	;;
	*)	echo "not ok 1 guest suite did not complete" >> "$out/guest.tap" ;;
	esac
	cat "$out/guest.tap"
fi

cat "$out"/*.tap | awk '
	/^ok .*# skip/ { s++; next }
	/^ok / { p++; next }
	/^not ok / { f++; next }
	END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 || p == 0 }'
