#!/usr/bin/env bats
# What every command keeps to: --help and --version as their man pages
# say, man pages that render cleanly, the bash completion, and no import
# cycle among a tool's files.

load helpers

TOP=$BATS_TEST_DIRNAME/..

# synopsis_opts PAGE: the options PAGE's SYNOPSIS names (Fl x: -x).
synopsis_opts() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh [^S]/p' "$1" |
		grep -oE 'Fl -?[A-Za-z][-A-Za-z]*' | sed 's/^Fl /-/' | sort -u
}

# usage_block: the lines of $output up to the first empty one.
usage_block() {
	sed '/^$/,$d' <<< "$output"
}

@test "--help: the usage, then a line per option of the SYNOPSIS; --version" {
	local t o n
	for t in wp wp-resolve wp-arm wp-decode wp-report; do
		run --separate-stderr "$t" --help
		assert_success
		[[ ${lines[0]} == "usage: $t "* ]] ||
			fail "$t --help: the first line is not the usage: ${lines[0]}"
		n=0
		for o in $(synopsis_opts "$TOP/man/$t.1"); do
			n=$((n + 1))
			grep -qE -- "(^|[][ ,|])$o([][ ,|=]|$)" <<< "$output" ||
				fail "$t --help does not name $o of its SYNOPSIS"
		done
		[ "$n" -gt 0 ] || fail "no options in the SYNOPSIS of $t.1"
		# and a line per option after the usage
		[ "$(grep -cE '^ +-' <<< "$output")" -ge "$n" ] ||
			fail "$t --help: fewer option lines than the SYNOPSIS has options"
		run --separate-stderr "$t" --version
		assert_success
		assert_output --regexp "^$t [0-9]+\.[0-9]+\.[0-9]+$"
		# one version, set in one place, for every command
		assert_equal "${output#$t }" "$(wp-resolve --version | cut -d' ' -f2)"
	done
}

# help_entry OPTION: the lines of $output's --help entry for the long
# OPTION, from its line to the next option's.
help_entry() {
	awk -v o="$1" '/^ +-/ { on = index($0, " " o " ") > 0 ||
		index($0, " " o "[") > 0 || index($0, " " o "=") > 0 } on' \
	    <<< "$output"
}

@test "--help: an option that works on every backend (its man page says so) names no backend of its own in wp's or wp-arm's --help" {
	local o t n=0 e
	# wp-arm.1's options said to work on every backend
	for o in $(awk '/^\.It Fl -/ { o = $3 } /every backend/ && o { print "--" substr(o, 2); o = "" }
		/^\.It/ && !/^\.It Fl -/ { o = "" }' "$TOP/man/wp-arm.1" | sort -u); do
		n=$((n + 1))
		for t in wp wp-arm; do
			run --separate-stderr "$t" --help
			e=$(help_entry "$o")
			[ -n "$e" ] || fail "$t --help has no entry for $o"
			! grep -qwE 'ptrace|page|perf|bpf' <<< "$e" ||
				fail "$t --help: $o names a backend of its own, while wp-arm(1) says every backend:
$e"
		done
	done
	[ "$n" -ge 2 ] || fail "wp-arm.1: fewer options said to work on every backend than --if and --last"
}

@test "--help: a usage error prints the same usage, on standard error only" {
	local t help
	for t in wp-resolve wp-arm wp-decode wp-report; do
		run --separate-stderr "$t" --help
		help=$(usage_block)
		run --separate-stderr "$t" --frobnicate
		assert_failure 64
		assert_output ""
		assert_equal "$(tail -n +2 <<< "$stderr")" "$help"
	done
	run --separate-stderr wp --help
	help=$(usage_block)
	run --separate-stderr wp
	assert_failure 64
	assert_output ""
	assert_equal "$stderr" "$help"
}

@test "man pages: --help and --version are documented" {
	local p
	for p in wp wp-resolve wp-arm wp-decode wp-report; do
		grep -q '^\.It Fl h , Fl -help$' "$TOP/man/$p.1" ||
			fail "man/$p.1 does not document -h, --help"
		grep -q '^\.It Fl V , Fl -version$' "$TOP/man/$p.1" ||
			fail "man/$p.1 does not document -V, --version"
	done
}

@test "man pages: mandoc -T lint -W warning finds nothing" {
	command -v mandoc > /dev/null ||
		skip "mandoc is not installed (make deps installs it)"
	local p out
	for p in "$TOP"/man/*.[1-9]; do
		out=$(mandoc -T lint -W warning "$p" 2>&1) ||
			fail "mandoc lint on $(basename "$p"):
$out"
		[ -z "$out" ] || fail "mandoc lint on $(basename "$p"):
$out"
	done
}

@test "man pages: the text closes its parentheses and quotes; commands keep their punctuation" {
	command -v mandoc > /dev/null ||
		skip "mandoc is not installed (make deps installs it)"
	local p bad
	for p in "$TOP"/man/*.[1-9]; do
		bad=$(mandoc -T ascii "$p" | sed 's/.\x08//g' | awk 'BEGIN { RS = "" }
			{
				s = $0; gsub(/\n[ \t]*/, " ", s)
				o = gsub(/\(/, "(", s); c = gsub(/\)/, ")", s)
				q = gsub(/"/, "\"", s)
				if (o != c || q % 2 == 1 || s ~ /""|\+ +\+/)
					print s
			}')
		[ -z "$bad" ] || fail "$(basename "$p") renders:
$bad"
		# a command shown with .Dl loses the space before a lone
		# closing punctuation mark (jq -c . shows as jq -c.)
		if bad=$(grep -nE '^\.Dl .* [].,:;?!)]( |$)' "$p"); then
			fail "$(basename "$p"): write \\&. in: $bad"
		fi
	done
}

# completions WORD...: what the completion of wp offers for the command
# line WORD..., the last word being completed, one a line.
completions() {
	bash -c 'source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_wp_complete
		printf "%s\n" "${COMPREPLY[@]}"' _ \
	    "$TOP/share/bash-completion/wp" "$@"
}

@test "completion: commands, options and their values" {
	run completions wp ""
	assert_output "watch
accesses
report
doctor
--help
--version"
	run completions wp doctor --
	assert_output "--json
--help"
	run completions wp watch --ba
	assert_output "--backend"
	run completions wp watch -d ""
	assert_line inf
	# --if: what each command's condition tests
	run completions wp accesses --if ""
	assert_output "addr
tid
value
not"
	run completions wp watch --if a
	assert_output ""
	run completions wp-arm --if a
	assert_output addr
	run completions wp-resolve --backend p
	assert_output "perf
ptrace
page"
	run completions wp-arm --follow-mode = s
	assert_output "stop
stop-all"
	run completions wp-resolve --no
	assert_output "--no-slot-limit"
	run completions wp-resolve -a ""
	assert_output "w
rw"
	run completions wp-decode --vers
	assert_output "--version"
	run completions wp-report --s
	assert_output "--samples"
	run completions wp report --
	assert_output "--json
--samples
--chains
--html
--debug-file
--debug-dir
--module-dir
--bin
--help
--version"
	run completions wp-decode --mod
	assert_output "--module-dir"
}

@test "completion: pids with their names, symbols of the process's program" {
	start_target mt-writer -t 1 -n 5
	run completions wp watch ""
	assert_line "$TPID  mt-writer"
	run completions wp watch mt-wr
	assert_line --regexp "^$TPID(  mt-writer)?$"
	run completions wp-resolve -p ""
	assert_line "$TPID  mt-writer"
	run completions wp watch -d 5s "$TPID" wpt_cou
	assert_output "wpt_counter"
	run completions wp watch "$TPID" ""
	assert_line wpt_counter
	assert_line wpt_score
	run completions wp-resolve -p "$TPID" wpt_cou
	assert_output "wpt_counter"
	run completions wp-resolve --pid "$TPID" --follow wpt_sc
	assert_output "wpt_score"
	run completions wp-resolve -p "$TPID" --bin "$T/mt-writer-stripped" wpt_cou
	assert_output ""
}

@test "completion: MODULE: forms, the process's modules, then a module's symbols" {
	start_target shlib-writer
	run completions wp watch "$TPID" libwp
	assert_output "libwpt:
libwpt2:"
	run completions wp watch "$TPID" shlib
	assert_output "shlib-writer:"
	# bash splits the word at ':': the symbol alone is completed
	run completions wp watch "$TPID" libwpt : wpt_lib_c
	assert_output "wpt_lib_counter"
	run completions wp-resolve -p "$TPID" libc : environ
	assert_output "environ"
	# where ':' splits no word, the whole word
	run completions wp watch "$TPID" libwpt:wpt_lib_c
	assert_output "libwpt:wpt_lib_counter"
	run completions wp watch "$TPID" nomodule : x
	assert_output ""
}

@test "completion: make install puts it where bash-completion looks, one name per command" {
	local d=$BATS_TEST_TMPDIR/root c
	make -s -C "$TOP" O="$WP_BUILD" DESTDIR="$d" PREFIX=/usr install > /dev/null
	for c in wp wp-resolve wp-arm wp-decode wp-report; do
		[ -r "$d/usr/share/bash-completion/completions/$c" ] ||
			fail "no completion installed for $c"
	done
	run bash -c 'source "$1"; complete -p wp-arm' _ "$d/usr/share/bash-completion/completions/wp-arm"
	assert_success
	assert_output --partial "-F _wp_complete"
}

@test "sources: no import cycle among a tool's files" {
	run --separate-stderr "$TOP/tests/deps-cycles.sh" -v "$WP_BUILD"
	[ "$status" -ne 2 ] || skip "$stderr"
	[ "$status" -eq 0 ] || fail "import cycles: $output"
	assert_output ""
}
