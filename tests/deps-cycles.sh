#!/bin/sh
# Lists the import cycles of each tool: .c files that call each other,
# directly (A calls a function B defines, and B one A defines) or round
# a longer loop.  It reads the built objects (make first): a file calls
# what its object leaves undefined (nm: U) and another object of the
# same tool defines as a function (T).  lib/ counts as one more tool.
#
#   tests/deps-cycles.sh [-v] [BUILD]	(BUILD: ./build by default)
#
# Prints one line a cycle, "TOOL: a.c b.c ...", its files sorted, and
# with -v each call inside it, "  a.c -> b.c: function".  Exits 0 with
# nothing printed when there is none, 1 when there are, 2 when BUILD
# has no objects.
verbose=0
[ "$1" = -v ] && { verbose=1; shift; }
build=${1:-build}
found=0
status=0
for dir in "$build"/cmd/* "$build"/lib; do
	# a tool's objects, its folders' too (wp-arm's backends and engines)
	set -- $(find "$dir" -name '*.o' 2> /dev/null | sort)
	[ -n "${1-}" ] || continue
	found=1
	tool=${dir##*/}
	nm "$@" | awk -v tool="$tool" -v verbose="$verbose" '
	/:$/ { f = $0; sub(/:$/, "", f); sub(".*/" tool "/", "", f);
		sub(/\.o$/, ".c", f); files[f] = 1; next }
	$1 == "U" { use[f, $2] = 1; used[$2] = used[$2] " " f; next }
	$2 == "T" { def[$3] = f }
	END {
		n = 0
		for (f in files) name[n++] = f
		for (i = 0; i < n; i++) idx[name[i]] = i
		for (s in used) {
			if (!(s in def)) continue
			m = split(used[s], by, " ")
			for (k = 1; k <= m; k++) {
				a = idx[by[k]]; b = idx[def[s]]
				if (a == b) continue
				r[a, b] = 1
				why[a, b] = why[a, b] " " s
			}
		}
		for (k = 0; k < n; k++)
			for (i = 0; i < n; i++)
				if ((i, k) in r)
					for (j = 0; j < n; j++)
						if ((k, j) in r) r[i, j] = 1
		for (i = 0; i < n; i++) {
			if (i in done || !((i, i) in r)) continue
			line = ""
			for (j = 0; j < n; j++)
				if (j == i || ((i, j) in r && (j, i) in r)) {
					done[j] = 1
					line = line " " name[j]
				}
			print tool ":" line
		}
		if (!verbose) exit
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if ((i, j) in why && (i, i) in r && (j, i) in r)
					print "  " name[i] " -> " name[j] ":" why[i, j]
	}' | awk '
	/^ / { print; next }
	{ t = $1; $1 = ""; m = split($0, w, " ");
	  for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
		if (w[j] < w[i]) { x = w[i]; w[i] = w[j]; w[j] = x }
	  s = t; for (i = 1; i <= m; i++) s = s " " w[i]; print s }' |
	sort > "${TMPDIR:-/tmp}/deps-cycles.$$"
	if [ -s "${TMPDIR:-/tmp}/deps-cycles.$$" ]; then
		status=1
		grep -v '^ ' "${TMPDIR:-/tmp}/deps-cycles.$$"
		[ $verbose = 1 ] && grep '^ ' "${TMPDIR:-/tmp}/deps-cycles.$$"
	fi
	rm -f "${TMPDIR:-/tmp}/deps-cycles.$$"
done
if [ $found = 0 ]; then
	echo "deps-cycles: no objects under $build/cmd or $build/lib (make first)" >&2
	exit 2
fi
exit $status
