# The parts of the QEMU guests that tests/vm/run-guest (x86-64) and
# tests/vm/run-guest-arm64 share: the guest's tree, its init, the run
# under QEMU and the reading of what came back.  Sourced by both after
# they set: me (the script's name), top, build, work, root, timeout_s.

die() { echo "$me: $*" >&2; exit 2; }

# guest_libs FILE: "SOURCE DEST" for each library FILE loads.  The
# x86-64 guest is the host's machine: ldd's paths, the same in both.
# run-guest-arm64 defines its own.
guest_libs() {
	# scripts have no libraries: ldd and grep find none
	{ ldd "$1" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; } |
		while read -r lib; do echo "$lib $lib"; done
}

# copy_bin FILE...: programs and their libraries, at their paths (a
# program's path less srcroot, where srcroot is set: an unpacked tree).
copy_bin() {
	local f dest lib ldest
	for f in "$@"; do
		dest=${f#"${srcroot:-}"}
		mkdir -p "$root$(dirname "$dest")"
		cp -L "$f" "$root$dest"
		guest_libs "$f" | while read -r lib ldest; do
			[ -e "$root$ldest" ] && continue
			mkdir -p "$root$(dirname "$ldest")"
			cp -L "$lib" "$root$ldest"
		done
	done
}

# copy_bats: bats and its libraries, shell scripts for any machine.
copy_bats() {
	cp /usr/bin/bats "$root/usr/bin/bats"
	mkdir -p "$root/usr/lib" "$root/usr/libexec"
	cp -r /usr/lib/bats-core "$root/usr/lib/"
	cp -r /usr/libexec/bats-core "$root/usr/libexec/"
	cp -r /usr/lib/bats "$root/usr/lib/"
}

# copy_project: the built tools and targets in $build, the live tests
# and their helpers.
copy_project() {
	local f
	mkdir -p "$root/wp/build"
	for f in "$build"/*; do
		[ -f "$f" ] && [ -x "$f" ] && copy_bin "$f" && mv "$root$f" "$root/wp/build/"
	done
	cp -r "$build/targets" "$root/wp/build/"
	for f in "$build"/targets/*; do
		[ -x "$f" ] && copy_bin "$f" && rm -f "$root$f"
	done
	find "$root$build" -depth -type d -empty -delete 2>/dev/null || true
	cp "$top"/tests/*.bash "$top"/tests/contract.jq "$top"/tests/contract-check \
	    "$root/wp/tests/"
	mkdir -p "$root/wp/share"
	cp "$top"/share/wp-records.schema.json "$root/wp/share/"
	cp -r "$top"/tests/live "$root/wp/tests/"
	[ -d "$top/tests/data" ] && cp -r "$top/tests/data" "$root/wp/tests/"
	# the targets' sources: tests find the lines they expect there
	mkdir -p "$root/wp/tests/targets"
	cp "$top"/tests/targets/*.c "$root/wp/tests/targets/"
}

# select_tests [FILE...]: tests, the files bats runs in the guest (all
# of tests/live without one); host_tests=1 when one is a host test.
select_tests() {
	local f
	tests="tests/live"
	[ $# -gt 0 ] || return 0
	tests=""
	# a live test by name, or a host test (tests/NN-*.bats): run where
	# breakpoints fire, as on a host whose breakpoints do
	for f in "$@"; do
		f=$(basename "$f")
		if [ -f "$top/tests/live/$f" ]; then
			tests="$tests tests/live/$f"
		elif [ -f "$top/tests/$f" ]; then
			cp "$top/tests/$f" "$root/wp/tests/"
			tests="$tests tests/$f"
			host_tests=1
		else
			die "no test file $f in tests/live or tests"
		fi
	done
}

# write_init: the guest's /init.  It runs bats (or, with bench=1,
# bench/$benchsh) and writes everything to $tapdev, a serial port the
# host reads; preinit, shell lines run first (the drivers that port
# needs, where they are modules).
write_init() {
	cat > "$root/init" <<INIT
#!/bin/sh
${preinit:+$preinit
}mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
${postmount:+$postmount
}export PATH=/wp/build:/usr/bin:/bin:/sbin HOME=/tmp TMPDIR=/tmp
export WP_GUEST=1 WP_BUILD=/wp/build
cd /wp
echo "WP-GUEST-BEGIN \$(uname -r) cpus \$(nproc)" > $tapdev
if [ $bench = 1 ]; then
	bash /wp/bench/$benchsh > $tapdev 2>&1
else
	mkdir -p /tmp/records
	WP_RECORDS=/tmp/records bats --tap --timing $tests > $tapdev 2>&1
fi
status=\$?
# the records of every watch, for the host to check against the contract
echo WP-RECORDS-BEGIN > $tapdev
(cd /tmp && tar czf - records 2>/dev/null | base64) > $tapdev
echo WP-RECORDS-END > $tapdev
echo "WP-GUEST-END \$status" > $tapdev
poweroff -f
INIT
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$work/initrd.gz"
}

# run_qemu QEMU-COMMAND...: runs the guest, its console in
# $work/console.log, its TAP port in $work/tap.out; sets rc.  QEMU
# itself can crash (a segfault in TCG, seen once in a CI run): the
# suite runs once more, and says so; a test's failure is never retried
run_qemu() {
	local try
	for try in 1 2; do
		rc=0
		timeout "$timeout_s" "$@" < /dev/null > "$work/console.log" 2>&1 ||
			rc=$?
		[ "$try" = 2 ] && break
		if ! grep -q '^WP-GUEST-BEGIN' "$work/tap.out" 2> /dev/null &&
		    [ "$rc" != 124 ]; then
			# the kernel panicked or QEMU died before a test ran
			echo "# $me: the guest did not boot (qemu status $rc: $(grep -m 1 -o 'Kernel panic.*' "$work/console.log" || echo 'no panic line')): booted once more" >&2
			continue
		fi
		if [ "$rc" -le 128 ] ||
		    grep -q '^WP-GUEST-END' "$work/tap.out"; then
			break
		fi
		echo "# $me: qemu died of signal $((rc - 128)) (an emulator crash, not a test's failure): the suite runs once more" >&2
	done
}

# read_results: prints the guest's TAP and the checks of its records
# (against the contract; their reports' width with $report, a
# wp-report the host runs: none, that check is skipped) and exits with
# the script's status.  no_records_ok=1: a run that wrote no records
# passes the contract check (a run of files that start no watch).
read_results() {
	local end n errs wide
	tr -d '\r' < "$work/tap.out" > "$work/tap" 2>/dev/null || : > "$work/tap"
	if [ "$rc" -eq 124 ]; then
		cat "$work/tap" | grep -v '^WP-GUEST' || true
		echo "$me: the guest did not finish within ${timeout_s}s" >&2
		tail -n 20 "$work/console.log" >&2
		exit 2
	fi
	if ! grep -q '^WP-GUEST-BEGIN' "$work/tap"; then
		echo "$me: the guest never started the suite (qemu status $rc)" >&2
		tail -n 30 "$work/console.log" >&2
		exit 2
	fi
	echo "# $(grep '^WP-GUEST-BEGIN' "$work/tap" | sed 's/WP-GUEST-BEGIN/guest kernel/')" >&2
	sed '/^WP-RECORDS-BEGIN/,/^WP-RECORDS-END/d' "$work/tap" | grep -v '^WP-GUEST'
	end=$(sed -n 's/^WP-GUEST-END \([0-9]*\)$/\1/p' "$work/tap")
	# every record the guest's watches wrote, and wp-decode added, against
	# the contract, and their reports' width: checked here, where it is fast
	if [ "$bench" = 0 ] && grep -q '^WP-RECORDS-END' "$work/tap"; then
		sed -n '/^WP-RECORDS-BEGIN/,/^WP-RECORDS-END/p' "$work/tap" |
			sed '1d;$d' | base64 -d 2>/dev/null | tar xzf - -C "$work" 2>/dev/null
		n=$(ls "$work"/records 2>/dev/null | wc -l)
		errs=$("$top/tests/contract-check" "$work"/records/* 2>&1 |
		    head -n 20) || true	# head may close the pipe early
		if [ "$n" -eq 0 ] && [ "${no_records_ok:-0}" = 1 ]; then
			echo "ok 1000 the guest's records are in the record contract # skip its tests start no watch"
		elif [ -z "$errs" ] && [ "$n" -gt 0 ]; then
			echo "ok 1000 the guest's records ($n files) are in the record contract"
		else
			echo "not ok 1000 the guest's records ($n files) are in the record contract"
			echo "$errs" | sed 's/^/# /'
		fi
		if [ "$n" -eq 0 ] && [ "${no_records_ok:-0}" = 1 ]; then
			echo "ok 1001 the reports of the guest's watches keep to 100 columns # skip its tests start no watch"
		elif [ -z "${report:-}" ]; then
			echo "ok 1001 the reports of the guest's watches keep to 100 columns # skip no wp-report runs on this host"
		else
			wide=$(for f in "$work"/records/*.decoded; do
				[ -e "$f" ] || continue
				COLUMNS=100 "$report" < "$f" 2>/dev/null | awk -v f="$(basename "$f")" 'length > 100 { print f ": " $0 }'
			done | head -n 10)
			if [ -z "$wide" ]; then
				echo "ok 1001 the reports of the guest's watches keep to 100 columns"
			else
				echo "not ok 1001 the reports of the guest's watches keep to 100 columns"
				echo "$wide" | sed 's/^/# /'
			fi
		fi
	fi
	[ -n "$end" ] || { echo "$me: the suite did not complete" >&2; exit 2; }
	[ "$bench" = 1 ] ||
		grep -Eq '^(not )?ok ' "$work/tap" || { echo "$me: the guest ran no test" >&2; exit 2; }
	[ "$end" = 0 ] || exit 1
	exit 0
}
