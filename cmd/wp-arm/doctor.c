/*
 * wp-arm --doctor: what wp can use on this machine, and why, asked of
 * the machine itself (a breakpoint, a BPF load, a write fault seen by a
 * tracer) and of the backend table (the default backend for an 8-byte
 * and a 4 KiB target, each backend's fits()).  A screen, or one JSON
 * object (wp(1), DOCTOR).
 */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <dlfcn.h>
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp-events.h"
#include "hwbp.h"
#include "json.h"
#include "perf.h"
#include "proc.h"
#include "regs.h"
#include "util.h"
#include "watch.h"

struct facts {
	char		 machine[160];
	/* status 1 where it holds, 0 where not; msg says why */
	struct wp_error	 bp, bpf, page;
	int		 bp_free;	/* slots free to us; -1: unknown */
	long		 paranoid, ptrace_scope;	/* -99: unreadable */
	char		 perf_allows[160], ptrace_allows[160];
	int		 uprobes, tracefs;
	const char	*tracefs_at;
	int		 avx512;
	unsigned	 xsave_bytes;
	const struct backend *deflt[2];
	char		 deflt_why[2][512];
	const char	*debuginfod_urls;
	int		 debuginfod_lib;
};

static const size_t widths[2] = { 8, 4096 };
/* the targets of the default's question: ours, so the child's too */
static uint64_t word8 __attribute__((aligned(8)));
static unsigned char page4k[4096] __attribute__((aligned(4096)));

/* A child that waits to be killed: the process the questions watch. */
static pid_t
sleeper(void)
{
	pid_t pid;

	if ((pid = fork()) == 0) {
		word8 = 1;
		page4k[0] = 1;
		for (;;)
			pause();
	}
	return pid;
}

static void
reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * A write fault reaches a tracer: a traced child writes a page it made
 * read-only, and the tracer sees the SIGSEGV before the child does.
 */
static void
fault_probe(struct wp_error *f)
{
	int st = 0, seen = 0;
	pid_t pid;

	if ((pid = fork()) == -1) {
		wp_error_set(f, 0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE |
		    MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || raise(SIGSTOP) != 0)
			_exit(1);
		*(volatile char *)p = 1;
		_exit(0);
	}
	if (waitpid(pid, &st, WSTOPPED) != pid || !WIFSTOPPED(st)) {
		wp_error_set(f, 0, "the probe child did not stop");
		reap(pid);
		return;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) == -1) {
		wp_error_set(f, 0, "ptrace: %s (kernel.yama.ptrace_scope, or a "
		    "seccomp filter?)", strerror(errno));
		reap(pid);
		return;
	}
	kill(pid, SIGCONT);
	while (waitpid(pid, &st, __WALL) == pid && WIFSTOPPED(st)) {
		if (WSTOPSIG(st) == SIGSEGV) {
			seen = 1;
			break;
		}
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
	reap(pid);
	if (seen)
		wp_error_set(f, 1, "a write fault stops the writer for its tracer, "
		    "which resolves it (any width, exact)");
	else
		wp_error_set(f, 0, "a write to a read-only page did not stop its "
		    "tracer");
}

static void
bp_facts(struct facts *m)
{
	char why[256];

	m->bp_free = -1;
	const char *sw = getenv("WP_ARM_BP");

	if (bp_canary(0, why, sizeof why) == -1) {
		wp_error_set(&m->bp, 0, "%s%s", why, sw != NULL && strcmp(sw, "none") ==
		    0 ? " (WP_ARM_BP=none says so)" : "");
		return;
	}
	m->bp_free = perf_bp_free(0);
	wp_error_set(&m->bp, 1, "a breakpoint on wp-arm's own variable counted 4 of "
	    "4 writes");
}

static void
bpf_facts(struct facts *m)
{
	struct watch w;
	struct wp_error e;

	memset(&w, 0, sizeof w);
	w.max_events = 1;
	w.callchain_depth = 1;
	if (backend_bpf.probe(&w, &e))
		wp_error_set(&m->bpf, 1, "wp's program passes the verifier and loads");
	else
		wp_error_set(&m->bpf, 0, "%s", e.msg);
}

static void
perf_facts(struct facts *m)
{
	int root = geteuid() == 0;

	if (wp_proc_sysctl("kernel/perf_event_paranoid", &m->paranoid) == -1)
		m->paranoid = -99;
	if (root)
		snprintf(m->perf_allows, sizeof m->perf_allows, "root may "
		    "open breakpoint events on any process");
	else if (m->paranoid >= 3)
		snprintf(m->perf_allows, sizeof m->perf_allows, "no events "
		    "for users without CAP_PERFMON (Debian's 3)");
	else if (m->paranoid == -99)
		snprintf(m->perf_allows, sizeof m->perf_allows, "unknown "
		    "(kernel.perf_event_paranoid unreadable)");
	else
		snprintf(m->perf_allows, sizeof m->perf_allows, "this user "
		    "may open user-space breakpoint events on its own "
		    "processes");
	if (wp_proc_sysctl("kernel/yama/ptrace_scope", &m->ptrace_scope) == -1)
		m->ptrace_scope = -99;
	snprintf(m->ptrace_allows, sizeof m->ptrace_allows, "%s",
	    m->ptrace_scope == -99 ? "no Yama: root may trace any process, a "
	    "user its own" : m->ptrace_scope >= 3 ? "no process, even to root" :
	    m->ptrace_scope == 2 ? "only with CAP_SYS_PTRACE" : root ?
	    "root: any process" : m->ptrace_scope == 1 ? "this user's "
	    "descendants only (or with CAP_SYS_PTRACE)" : "any process of "
	    "this user");
}

static void
kernel_facts(struct facts *m)
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(m->machine, sizeof m->machine, "Linux %s, %s",
		    u.release, u.machine);
	m->uprobes = access("/sys/bus/event_source/devices/uprobe/type",
	    R_OK) == 0;
	m->tracefs_at = access("/sys/kernel/tracing/trace", F_OK) == 0 ?
	    "/sys/kernel/tracing" : access("/sys/kernel/debug/tracing/trace",
	    F_OK) == 0 ? "/sys/kernel/debug/tracing" : NULL;
	m->tracefs = m->tracefs_at != NULL;
	tr_cpu_vector(&m->avx512, &m->xsave_bytes);
	m->debuginfod_urls = getenv("DEBUGINFOD_URLS");
	if (m->debuginfod_urls != NULL && *m->debuginfod_urls == '\0')
		m->debuginfod_urls = NULL;
	m->debuginfod_lib = dlopen("libdebuginfod.so.1", RTLD_LAZY) != NULL;
}

/*
 * The backend auto would take for one target of each width, asked of
 * the table in its order, on a child of ours (page protection seizes a
 * process to look at its mappings).
 */
static void
default_facts(struct facts *m)
{
	const struct backend *const *b;
	struct wtarget t;
	struct watch w;
	struct wp_error e;
	size_t i, n;
	pid_t pid = sleeper();

	for (i = 0; i < 2; i++) {
		memset(&w, 0, sizeof w);
		memset(&t, 0, sizeof t);
		t.addr = i == 0 ? (uintptr_t)&word8 : (uintptr_t)page4k;
		t.len = (int)widths[i];
		t.chain = -1;
		w.pid = pid;
		w.t = &t;
		w.nt = 1;
		w.max_events = 1;
		w.callchain_depth = 1;
		m->deflt_why[i][0] = '\0';
		for (b = backends; *b != NULL; b++) {
			if (!backend_for(&w, *b))
				continue;
			if (backend_fits(&w, *b, 0, &e) &&
			    ((*b)->probe == NULL || (*b)->probe(&w, &e)))
				break;
			n = strlen(m->deflt_why[i]);
			if (strstr(m->deflt_why[i], e.msg) == NULL)
				snprintf(m->deflt_why[i] + n,
				    sizeof m->deflt_why[i] - n, "%s%.200s",
				    n > 0 ? "; " : "", e.msg);
		}
		m->deflt[i] = *b;
		free(w.obs);
	}
	reap(pid);
}

static void
json(const struct facts *m)
{
	struct wp_jw j;
	size_t i;
	char key[16];

	memset(&j, 0, sizeof j);
	wp_jw_reset(&j);
	wp_jw_obj(&j, NULL);
	wp_jw_str(&j, "machine", m->machine);
	wp_jw_obj(&j, "breakpoints");
	wp_jw_bool(&j, "fire", m->bp.status);
	wp_jw_int(&j, "slots", tr_watch_slots());
	if (m->bp_free >= 0)
		wp_jw_int(&j, "slots_free", m->bp_free);
	wp_jw_str(&j, "why", m->bp.msg);
	wp_jw_end(&j);
	wp_jw_obj(&j, "bpf");
	wp_jw_bool(&j, "loads", m->bpf.status);
	wp_jw_str(&j, "why", m->bpf.msg);
	wp_jw_end(&j);
	wp_jw_obj(&j, "perf");
	if (m->paranoid != -99)
		wp_jw_int(&j, "perf_event_paranoid", m->paranoid);
	wp_jw_str(&j, "allows", m->perf_allows);
	wp_jw_end(&j);
	wp_jw_obj(&j, "ptrace");
	if (m->ptrace_scope != -99)
		wp_jw_int(&j, "ptrace_scope", m->ptrace_scope);
	wp_jw_str(&j, "allows", m->ptrace_allows);
	wp_jw_end(&j);
	wp_jw_obj(&j, "page");
	wp_jw_bool(&j, "works", m->page.status);
	wp_jw_str(&j, "why", m->page.msg);
	wp_jw_end(&j);
	wp_jw_bool(&j, "uprobes", m->uprobes);
	if (m->tracefs)
		wp_jw_str(&j, "tracefs", m->tracefs_at);
	else
		wp_jw_null(&j, "tracefs");
	wp_jw_obj(&j, "cpu");
	wp_jw_bool(&j, "avx512", m->avx512);
	wp_jw_uint(&j, "xsave_bytes", m->xsave_bytes);
	wp_jw_end(&j);
	wp_jw_obj(&j, "default_backend");
	for (i = 0; i < 2; i++) {
		snprintf(key, sizeof key, "%zu", widths[i]);
		wp_jw_obj(&j, key);
		if (m->deflt[i] != NULL) {
			wp_jw_str(&j, "backend", BK_WORD(m->deflt[i]));
			wp_jw_str(&j, "name", BK_NAME(m->deflt[i]));
		} else {
			wp_jw_null(&j, "backend");
			wp_jw_null(&j, "name");
		}
		wp_jw_str(&j, "passed_over", m->deflt_why[i]);
		wp_jw_end(&j);
	}
	wp_jw_end(&j);
	wp_jw_obj(&j, "debuginfod");
	if (m->debuginfod_urls != NULL)
		wp_jw_str(&j, "urls", m->debuginfod_urls);
	else
		wp_jw_null(&j, "urls");
	wp_jw_bool(&j, "library", m->debuginfod_lib);
	wp_jw_end(&j);
	wp_jw_end(&j);
	printf("%s\n", j.buf);
	wp_jw_free(&j);
}

static const char *
yes(int ok)
{
	return ok ? "yes" : "no ";
}

static void
text(const struct facts *m)
{
	size_t i;

	printf("wp doctor: what wp can use on this machine (%s)\n",
	    m->machine);
	printf("  breakpoints  %s  %s", yes(m->bp.status), m->bp.msg);
	if (m->bp_free >= 0)
		printf(" (%d of %d debug registers free)", m->bp_free,
		    tr_watch_slots());
	printf("\n");
	printf("  bpf          %s  %s\n", yes(m->bpf.status), m->bpf.msg);
	printf("  perf         %s  ", yes(m->paranoid != -99));
	if (m->paranoid != -99)
		printf("kernel.perf_event_paranoid %ld: ", m->paranoid);
	printf("%s\n", m->perf_allows);
	printf("  ptrace       %s  ", yes(m->ptrace_scope < 3));
	if (m->ptrace_scope != -99)
		printf("kernel.yama.ptrace_scope %ld: ", m->ptrace_scope);
	printf("%s\n", m->ptrace_allows);
	printf("  page         %s  %s\n", yes(m->page.status), m->page.msg);
	printf("  uprobes      %s  %s\n", yes(m->uprobes), m->uprobes ?
	    "uprobe events can be made" : "no uprobe event source "
	    "(CONFIG_UPROBE_EVENTS)");
	printf("  tracefs      %s  %s\n", yes(m->tracefs), m->tracefs ?
	    m->tracefs_at : "not mounted (mount -t tracefs nodev "
	    "/sys/kernel/tracing)");
	printf("  avx-512      %s  ", yes(m->avx512));
	if (m->xsave_bytes > 0)
		printf("XSAVE area %u bytes (a signal frame holds it)\n",
		    m->xsave_bytes);
	else
		printf("no XSAVE area\n");
	for (i = 0; i < 2; i++) {
		printf("  %-4zu bytes   %-6s the default backend", widths[i],
		    m->deflt[i] != NULL ? BK_WORD(m->deflt[i]) : "none");
		if (m->deflt_why[i][0] != '\0')
			printf("; passed over: %s", m->deflt_why[i]);
		printf("\n");
	}
	printf("  debuginfod   %s  ", yes(m->debuginfod_urls != NULL));
	if (m->debuginfod_urls != NULL)
		printf("DEBUGINFOD_URLS=%s: debug files missing on disk are "
		    "downloaded", m->debuginfod_urls);
	else
		printf("DEBUGINFOD_URLS unset: debug files only from disk");
	printf("%s\n", m->debuginfod_lib ? "" : " (libdebuginfod is not "
	    "installed)");
}

int
doctor(int as_json)
{
	struct facts m;

	memset(&m, 0, sizeof m);
	kernel_facts(&m);
	bp_facts(&m);
	bpf_facts(&m);
	perf_facts(&m);
	fault_probe(&m.page);
	default_facts(&m);
	if (as_json)
		json(&m);
	else
		text(&m);
	return fflush(stdout) == 0 ? 0 : WP_EXIT_ERROR;
}
