#!/usr/bin/env bats
# wp-arm run by a user who is not root, on a process of that user which
# execs a set-user-ID program: a traced exec would run it without its
# privileges, so the watch lets the process go before the exec (the page
# backend gives the pages their protection back first) and ends with
# target_exec, saying why; when the exec then fails, the process runs
# on unwatched, its pages their own protection again.  The same for a
# program execed through a descriptor (fexecve, execveat(fd, "",
# AT_EMPTY_PATH)) and one with file capabilities (setcap).  Written
# once, run per tracing backend.

load helpers
load page

teardown() {
	stop_targets
	[ -z "${SUID_DIR:-}" ] || rm -rf "$SUID_DIR"
}

# as_nobody CMD...: CMD run as nobody (uid and gid 65534, no groups).
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# suid_dir: SUID_DIR, with a setuid copy of id and a FIFO go in it.
suid_dir() {
	[ "$(id -u)" = 0 ] || skip "making a setuid copy of id needs root"
	command -v setpriv > /dev/null || skip "no setpriv to run as nobody"
	SUID_DIR=$(mktemp -d /tmp/wp-suid.XXXXXX)
	chmod 755 "$SUID_DIR"
	cp /usr/bin/id "$SUID_DIR/id"
	chmod 4755 "$SUID_DIR/id"
	as_nobody "$SUID_DIR/id" -u > "$SUID_DIR/plain" ||
		skip "setpriv cannot run as nobody here"
	[ "$(cat "$SUID_DIR/plain")" = 0 ] ||
		skip "$SUID_DIR does not honour set-user-ID (nosuid)"
	mkfifo -m 666 "$SUID_DIR/go"
}

# watch_as_nobody BACKEND ADDR: target $TPID (started, waiting at the
# FIFO go) watched at ADDR by wp-arm --backend BACKEND run as nobody,
# from the go to the end of both; sets WOUT, WSTATUS, OBS.
watch_as_nobody() {
	WP_TARGET_PIDS+=("$TPID")
	sleep 0.2
	WOUT=$SUID_DIR/arm.out
	as_nobody sh -c "wp-resolve -p $TPID $2 | wp-arm --backend $1 -d 120s" \
	    > "$WOUT" 2> "$SUID_DIR/arm.err" &
	WPID=$!
	wait_armed "$WOUT" "$WPID" "$SUID_DIR/arm.err"
	echo go > "$SUID_DIR/go"
	watch_wait
	wait "$TPID" || true
}

# setuid_exec BACKEND: the scenario, watched with --backend BACKEND.
setuid_exec() {
	nm -D /usr/bin/bash | grep -q ' EOF_Reached$' ||
		skip "this bash exports no EOF_Reached to watch"
	suid_dir
	# setpriv itself, not a function, so that $! is the target
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    bash -c "read -r _ < $SUID_DIR/go; exec $SUID_DIR/id -u" \
	    > "$SUID_DIR/target.out" 2>&1 &
	TPID=$!
	watch_as_nobody "$1" EOF_Reached
	# the program ran with its privileges: effective uid 0
	assert_equal "$(cat "$SUID_DIR/target.out")" 0
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exec
	[[ "$(obs .stop_detail)" == *"execs $SUID_DIR/id, set-user-ID or set-group-ID: let go before"* ]] ||
		fail "stop_detail: $(obs .stop_detail)"
}

@test "wp-arm ptrace: a setuid program the target execs keeps its privileges; the watch ends before the exec" {
	setuid_exec ptrace
}

@test "wp-arm page: a setuid program the target execs keeps its privileges; the watch ends before the exec" {
	setuid_exec page
}

# spawn_setuid BACKEND: the target's vfork child (posix_spawn) execs a
# setuid program: the child alone is let go before its exec, the
# program runs with its privileges, and the watch goes on to the
# target's end, every store of the target a hit.
spawn_setuid() {
	suid_dir
	cat > "$SUID_DIR/spawn.c" <<'C'
#include <sys/wait.h>
#include <spawn.h>
#include <stdio.h>

extern char **environ;
int wpt_v;

int
main(int argc, char **argv)
{
	char line[16], *av[] = { argv[argc - 1], "-u", NULL };
	FILE *go;
	pid_t p;
	int st;

	/* argv[1]: a FIFO to wait at, argv[2]: the program to spawn */
	if (argc != 3 || (go = fopen(argv[1], "r")) == NULL ||
	    fgets(line, sizeof line, go) == NULL)
		return 1;
	wpt_v = 1;
	fflush(stdout);
	if (posix_spawn(&p, av[0], NULL, NULL, av, environ) != 0)
		return 2;
	waitpid(p, &st, 0);
	wpt_v = 2;
	printf("done %d\n", wpt_v);
	return 0;
}
C
	cc -o "$SUID_DIR/spawn" "$SUID_DIR/spawn.c"
	chmod 755 "$SUID_DIR/spawn"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$SUID_DIR/spawn" "$SUID_DIR/go" "$SUID_DIR/id" \
	    > "$SUID_DIR/target.out" 2>&1 &
	TPID=$!
	watch_as_nobody "$1" wpt_v
	# the child ran id with its privileges, the target watched to its end
	assert_equal "$(cat "$SUID_DIR/target.out")" "0
done 2"
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exited
	assert_equal "$(hits)" 2
}

@test "wp-arm page: a setuid program a vfork child of the target execs (posix_spawn) keeps its privileges; the watch goes on" {
	spawn_setuid page
}

@test "wp-arm ptrace: a setuid program a vfork child of the target execs (posix_spawn) keeps its privileges; the watch goes on" {
	spawn_setuid ptrace
}

# failed_setuid_exec BACKEND MODE ERRNO [CONTENT]: the target execs a
# file of its own with MODE (set-user-ID) and CONTENT (a copy of true if
# not given), which fails with ERRNO after wp-arm let the target go at
# the exec's entry: the target runs on as unwatched (its two threads
# write the watched variable, no fault), the page its own protection
# again (rw-p), and its output is an unwatched run's.  Needs no root: a
# set-user-ID file of one's own that cannot be executed.
failed_setuid_exec() {
	local f=$BATS_TEST_TMPDIR/setuid-prog
	if [ $# -gt 3 ]; then printf '%s\n' "$4" > "$f"; else cp /bin/true "$f"; fi
	chmod "$2" "$f"
	[ -u "$f" ] || skip "cannot set the set-user-ID bit in $BATS_TEST_TMPDIR"
	unwatched fork-exec -c 0 -n 1000 -e "$f"
	assert_equal "$PLAIN_STATUS $PLAIN" "0 child 0
done
exec failed $3
after 2000
page rw-p"
	start_target fork-exec -c 0 -n 1000 -e "$f"
	watch_start "$(tinfo counter)" -l 8 -- --backend "$1" -d 120s
	kill -USR1 "$TPID"
	watch_wait
	local st=0
	wait "$TPID" || st=$?
	assert_equal "$st" 0
	assert_equal "$(tail -n +2 "$TOUT")" "$PLAIN"
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exec
	[[ "$(obs .stop_detail)" == *"execs $f, set-user-ID or set-group-ID: let go before"* ]] ||
		fail "stop_detail: $(obs .stop_detail)"
	# the writes before the exec, each one hit; none after
	assert_equal "$(hits)" 1000
}

@test "wp-arm page: a setuid exec that fails (EACCES) after the let-go: the target runs on unwatched, its page its own protection again" {
	failed_setuid_exec page 4644 EACCES
}

@test "wp-arm page: a setuid exec that fails (ENOEXEC) after the let-go: the target runs on unwatched, its page its own protection again" {
	failed_setuid_exec page 4755 ENOEXEC "not a program"
}

@test "wp-arm ptrace: a setuid exec that fails (EACCES) after the let-go: the target runs on unwatched" {
	failed_setuid_exec ptrace 4644 EACCES
}

# fd_exec BACKEND HOW PROG ARGS...: the target, as nobody, execs PROG
# ARGS (a program of SUID_DIR) by HOW: fexecve (glibc: execveat(fd, "",
# AT_EMPTY_PATH)) of PROG open at fd 9, execveat (that system call
# itself) or execve, once
# the watch (run as nobody) is armed; the target's output is in
# $SUID_DIR/target.out.
fd_exec() {
	local backend=$1
	shift
	cat > "$SUID_DIR/fexec.c" <<'C'
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;
int wpt_v;

int
main(int argc, char **argv)
{
	char line[16];
	FILE *go;
	int fd;

	/* argv[1]: a FIFO to wait at, argv[2]: how, argv[3...]: the exec */
	if (argc < 4 || (go = fopen(argv[1], "r")) == NULL ||
	    fgets(line, sizeof line, go) == NULL)
		return 1;
	wpt_v = 1;
	/* at fd 9, whatever the shell left open, for the message */
	if ((fd = open(argv[3], O_RDONLY)) == -1 ||
	    (fd != 9 && (dup2(fd, 9) == -1 || close(fd) == -1)))
		return 2;
	fd = 9;
	if (strcmp(argv[2], "fexecve") == 0)
		fexecve(fd, argv + 3, environ);
	else if (strcmp(argv[2], "execveat") == 0)
		syscall(SYS_execveat, fd, "", argv + 3, environ, AT_EMPTY_PATH);
	else
		execve(argv[3], argv + 3, environ);
	perror("exec");
	return 3;
}
C
	cc -o "$SUID_DIR/fexec" "$SUID_DIR/fexec.c"
	chmod 755 "$SUID_DIR/fexec"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$SUID_DIR/fexec" "$SUID_DIR/go" "$@" > "$SUID_DIR/target.out" 2>&1 &
	TPID=$!
	watch_as_nobody "$backend" wpt_v
}

@test "wp-arm ptrace: a setuid program the target fexecve()s keeps its privileges; the watch ends before the exec, naming the file" {
	suid_dir
	fd_exec ptrace fexecve "$SUID_DIR/id" -u
	assert_equal "$(cat "$SUID_DIR/target.out")" 0
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exec
	[[ "$(obs .stop_detail)" == *"execs $SUID_DIR/id (fd 9), set-user-ID or set-group-ID: let go before, as a traced exec runs without its privileges" ]] ||
		fail "stop_detail: $(obs .stop_detail)"
}

@test "wp-arm page: a setuid program the target execs by execveat(fd, \"\", AT_EMPTY_PATH) keeps its privileges; the watch ends before the exec" {
	suid_dir
	fd_exec page execveat "$SUID_DIR/id" -u
	assert_equal "$(cat "$SUID_DIR/target.out")" 0
	assert_equal "$(obs .stop_reason)" target_exec
	[[ "$(obs .stop_detail)" == *"execs $SUID_DIR/id (fd 9), set-user-ID or set-group-ID: let go before"* ]] ||
		fail "stop_detail: $(obs .stop_detail)"
}

# cap_exec BACKEND HOW: a copy of cat with cap_dac_read_search (file
# capabilities, no set-user-ID bit), execed by HOW, reads its own
# status: it ran with the capability, and the watch ended before.
cap_exec() {
	suid_dir
	command -v setcap > /dev/null || skip "no setcap (libcap2-bin)"
	cp /bin/cat "$SUID_DIR/capcat"
	chmod 755 "$SUID_DIR/capcat"
	setcap cap_dac_read_search+ep "$SUID_DIR/capcat" 2> /dev/null ||
		skip "$SUID_DIR does not take file capabilities"
	fd_exec "$1" "$2" "$SUID_DIR/capcat" /proc/self/status
	assert_equal "$(grep '^CapEff:' "$SUID_DIR/target.out")" "CapEff:	0000000000000004"
	assert_equal "$WSTATUS" 0
	assert_equal "$(obs .stop_reason)" target_exec
	[[ "$(obs .stop_detail)" == *"execs $SUID_DIR/capcat$3, with file capabilities (security.capability): let go before, as a traced exec runs without its privileges" ]] ||
		fail "stop_detail: $(obs .stop_detail)"
}

@test "wp-arm page: a program with file capabilities (setcap) the target execs keeps them; the watch ends before the exec" {
	cap_exec page execve ""
}

@test "wp-arm ptrace: a program with file capabilities the target fexecve()s keeps them; the watch ends before the exec" {
	cap_exec ptrace fexecve " (fd 9)"
}
