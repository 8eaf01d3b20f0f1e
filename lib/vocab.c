/*
 * The words of the record contract's vocabularies: the one table of
 * each (share/wp-records.schema.json lists them as "enum"s).
 */
#include <string.h>

#include "a64-insn.h"
#include "vocab.h"
#include "x86.h"

/* the names of a hit's "regs" (declared in x86.h, a64-insn.h): here,
   so that readers of records do not link the decoders */
#define REG_NAME(N, name, field, perf, dwarf)	#name,
const char *const wp_x86_reg_names[WP_NREGS] = { WP_X86_REGS(REG_NAME) };
const char *const wp_a64_reg_names[WP_A64_NREGS] = {
	WP_ARM64_REGS(REG_NAME)
};

const char *const wp_flag_names[WP_NFLAGS] = {
	"read", "syscall", "unexplained", "kernel", "unverified",
	"unmodeled"
};

const char *const wp_role_names[WP_NROLES] = { NULL, "pointer", "leaf" };

const char *const wp_kind_names[WP_NKINDS] = {
	"write", "read", "syscall", "kernel", "unexplained", "spurious"
};

const char *const wp_conf_names[WP_NCONFS] = {
	"exact", "high", "medium", "low", "unknown"
};

const char *const wp_vkind_names[WP_NVKINDS] = {
	"register_store", "immediate_store", "observed", "unknown"
};

const char *const wp_event_names[WP_NEVENTS] = {
	"seeded", "start", "exit", "fork_process", "arm_failed"
};

const char *const wp_stop_names[WP_NSTOPS] = {
	"duration", "max_events", "signal", "target_exited", "target_exec",
	"output_closed", "error", "stopped_at_match"
};

const char *const wp_left_names[WP_NLEFTS] = {
	"stopped", "running", "ended"
};

const char *const wp_partial_names[WP_NPARTIALS] = {
	"threads_attached_late", "threads_never_attached",
	"threads_failed_to_arm", "events_of_unknown_origin",
	"malformed_perf_ring_records", "follow_rebind_window",
	"follow_rearm_failed", "page_windows_shared", "breakpoints_quiet",
	"pages_dropped", "page_async_io"
};

const char *const wp_lost_names[WP_NLOSTS] = { "ring_overflow",
    "output_blocked" };

const char *const wp_bound_names[WP_NBOUNDS] = {
	"incomplete_stream", "lost_events", "truncated_by_max_events",
	"partial_thread_coverage", "output_closed", "malformed_input_lines",
	"reported_by_wp_arm", "unmodeled_stores", "follow_rebind_window",
	"breakpoints_quiet", "pages_dropped", "page_windows_shared",
	"page_async_io", "rep_string_traps"
};

const char *const wp_backend_names[WP_NBACKENDS] = {
	"bpf_tally", "perf_breakpoint", "ptrace_singlestep", "page_protect",
	"uprobe_bpf", "uprobe_bpf+ptrace_singlestep"
};

/* NULL ends it, for wp_opt_word() */
const char *const wp_backend_words[WP_NBACKENDS + 2] = {
	"auto", "bpf", "perf", "ptrace", "page", "uprobe", NULL, NULL
};

const char *const wp_limits_names[WP_NLIMITS] = {
	"debug_registers", "none"
};

#define VOCAB(m, t) { m, t, sizeof t / sizeof t[0] }

const char *const wp_machine_names[WP_NMACHINES] = { "x86_64", "aarch64" };

const struct wp_vocab wp_vocabs[] = {
	VOCAB("hit.flags tally.flags last_write.flags", wp_flag_names),
	VOCAB("hit.role tally.role count.role", wp_role_names),
	VOCAB("$writer.kind", wp_kind_names),
	VOCAB("$writer.confidence", wp_conf_names),
	VOCAB("$written_value.kind", wp_vkind_names),
	VOCAB("thread.event", wp_event_names),
	VOCAB("observation.stop_reason", wp_stop_names),
	VOCAB("observation.stopped_at.process", wp_left_names),
	VOCAB("observation.thread_coverage.partial_coverage_reasons",
	    wp_partial_names),
	VOCAB("observation.lost_events.reasons", wp_lost_names),
	VOCAB("session.limits", wp_limits_names),
	VOCAB("session.machine", wp_machine_names),
	VOCAB("armed.backend observation.backend access.backend "
	    "observation.uprobe.sites.backend", wp_backend_names),
	VOCAB(NULL, wp_bound_names)
};

const size_t wp_nvocabs = sizeof wp_vocabs / sizeof wp_vocabs[0];

int
wp_vocab_find(const char *const *names, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] != NULL && strlen(names[i]) == len &&
		    memcmp(names[i], s, len) == 0)
			return (int)i;
	return -1;
}
