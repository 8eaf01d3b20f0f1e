/*
 * The observation record's builder (wp-records(7)): how a watch ended,
 * what it counted and what it may have missed, in the order the page
 * lists them; the other records' builders are in record.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "util.h"

static void
coverage(struct wp_jw *w, const struct wp_observation *o)
{
	size_t i;

	wp_jw_obj(w, "thread_coverage");
	wp_jw_uint(w, "seeded_tids", o->seeded);
	wp_jw_uint(w, "inherited_tids", o->inherited);
	wp_jw_uint(w, "dynamically_attached_tids", o->attached_late);
	wp_jw_uint(w, "unattached_tids", o->unattached);
	wp_jw_uint(w, "exited_tids", o->exited);
	wp_jw_arr(w, "failed_tids");
	for (i = 0; i < o->nfailed; i++) {
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "tid", o->failed[i].tid);
		wp_jw_int(w, "errno", o->failed[i].err);
		wp_jw_str(w, "error", strerror(o->failed[i].err));
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_uint(w, "forked_processes", o->forked);
	wp_jw_uint(w, "excluded_other_process_events", o->excluded);
	wp_jw_uint(w, "ambiguous_events", o->ambiguous);
	wp_jw_uint(w, "unparsed_records", o->unparsed);
	wp_jw_bool(w, "partial_coverage", o->npartial > 0);
	wp_jw_strs(w, "partial_coverage_reasons", o->partial_reasons, o->npartial);
	wp_jw_end(w);
}

static void
obs_targets(struct wp_jw *w, const struct wp_observation *o)
{
	const struct wp_obs_target *t;
	const struct wp_obs_follow *f;
	size_t i;

	wp_jw_arr(w, "targets");
	for (i = 0; i < o->ntargets; i++) {
		t = &o->targets[i];
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "id", t->id);
		wp_jw_uint(w, "hits", t->hits);
		WP_JW_OR_NULL(wp_jw_uint, w, "counted", t->counted_known,
		    t->counted);
		WP_JW_OR_NULL(wp_jw_uint, w, "lost", t->counted_known, t->lost);
		WP_JW_OR_NULL(wp_jw_hex, w, "latest_value", t->has_latest,
		    t->latest);
		if (t->has_pages_dropped)
			wp_jw_uint(w, "pages_dropped", t->pages_dropped);
		wp_jw_end(w);
	}
	wp_jw_end(w);
	wp_jw_arr(w, "follows");
	for (i = 0; i < o->nfollows; i++) {
		f = &o->follows[i];
		wp_jw_obj(w, NULL);
		wp_jw_int(w, "id", f->id);
		wp_jw_uint(w, "generation", f->generation);
		wp_jw_str(w, "binding", f->binding);
		WP_JW_OR_NULL(wp_jw_hex, w, "leaf_addr", f->leaf != 0, f->leaf);
		wp_jw_uint(w, "pointer_hits", f->pointer_hits);
		wp_jw_uint(w, "leaf_hits", f->leaf_hits);
		WP_JW_OR_NULL(wp_jw_uint, w, "pointer_counted",
		    f->counted_known, f->pointer_counted);
		WP_JW_OR_NULL(wp_jw_uint, w, "leaf_counted", f->counted_known,
		    f->leaf_counted);
		wp_jw_uint(w, "rebinds", f->rebinds);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static void
obs_page(struct wp_jw *w, const struct wp_obs_page *p)
{
	wp_jw_obj(w, "page");
	wp_jw_uint(w, "pages", p->pages);
	wp_jw_uint(w, "pages_dropped", p->pages_dropped);
	wp_jw_uint(w, "faults_watched", p->faults_watched);
	wp_jw_uint(w, "faults_neighbour", p->faults_neighbour);
	wp_jw_uint(w, "emulated", p->emulated);
	wp_jw_uint(w, "stepped", p->stepped);
	wp_jw_uint(w, "kernel_writes", p->kernel_writes);
	wp_jw_uint(w, "windows", p->windows);
	wp_jw_uint(w, "windows_shared", p->windows_shared);
	wp_jw_uint(w, "signals_passed", p->signals_passed);
	wp_jw_uint(w, "forks_restored", p->forks_restored);
	if (p->handlers_restored > 0)
		wp_jw_uint(w, "handlers_restored", p->handlers_restored);
	if (p->unexplained > 0)
		wp_jw_uint(w, "unexplained_changes", p->unexplained);
	if (p->tracer_follows)
		wp_jw_uint(w, "tracer_moves", p->tracer_moves);
	if (p->rseq_retries > 0) {
		wp_jw_uint(w, "rseq_retries", p->rseq_retries);
		wp_jw_uint(w, "rseq_retry_calls", p->rseq_retry_calls);
		wp_jw_uint(w, "rseq_retries_cut", p->rseq_retries_cut);
	}
	if (p->async_io > 0)
		wp_jw_uint(w, "async_io", p->async_io);
	wp_jw_uint(w, "stopped_us", p->stopped_ns / 1000);
	wp_jw_uint(w, "stops", p->stops);
	wp_jw_uint(w, "watched_us", p->watched_ns / 1000);
	if (p->watched_ns > 0)
		wp_jw_uint(w, "native_run_us", (p->watched_ns -
		    (p->delay_ns < p->watched_ns ? p->delay_ns :
		    p->watched_ns)) / 1000);
	if (p->has_worst) {
		wp_jw_obj(w, "worst_second");
		wp_jw_uint(w, "from_us", p->worst_from_ns / 1000);
		wp_jw_uint(w, "span_us", p->worst_span_ns / 1000);
		wp_jw_uint(w, "native_run_us", (p->worst_span_ns -
		    (p->worst_delay_ns < p->worst_span_ns ?
		    p->worst_delay_ns : p->worst_span_ns)) / 1000);
		wp_jw_uint(w, "stops", p->worst_stops);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static void
obs_site(struct wp_jw *w, const void *p)
{
	const struct wp_obs_site *s = p;

	wp_jw_int(w, "id", s->id);
	wp_jw_uint(w, "executions", s->executions);
	wp_jw_uint(w, "addresses", s->addresses);
	wp_jw_uint(w, "tally_full", s->tally_full);
	wp_jw_uint(w, "segment_unread", s->segment_unread);
	if (s->counted_by > 0 && s->counted_by <= WP_NBACKENDS)
		wp_jw_str(w, "backend", wp_backend_names[s->counted_by - 1]);
}

static void
obs_bpf(struct wp_jw *w, const struct wp_obs_bpf *b)
{
	wp_jw_obj(w, "bpf");
	wp_jw_uint(w, "samples_sent", b->samples_sent);
	wp_jw_uint(w, "samples_dropped", b->samples_dropped);
	wp_jw_uint(w, "samples_capped", b->samples_capped);
	wp_jw_uint(w, "tally_full", b->tally_full);
	wp_jw_uint(w, "read_errors", b->read_errors);
	wp_jw_uint(w, "writers_held", b->writers_held);
	wp_jw_uint(w, "signals_passed", b->signals_passed);
	wp_jw_uint(w, "samples_skipped", b->samples_skipped);
	if (b->has_learning) {
		wp_jw_uint(w, "samples_pending",
		    b->samples_pending);
		wp_jw_uint(w, "writers_prelearned",
		    b->writers_prelearned);
	}
	if (b->all_hits)
		wp_jw_null(w, "sample_budget");
	else {
		wp_jw_obj(w, "sample_budget");
		wp_jw_uint(w, "first", b->budget_first);
		wp_jw_uint(w, "first_per_writer",
		    b->budget_first_per_writer);
		wp_jw_uint(w, "interval_ns", b->budget_interval_ns);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}

static void
obs_perf(struct wp_jw *w, const struct wp_obs_perf *p)
{
	wp_jw_obj(w, "perf");
	wp_jw_str(w, "formatter", p->formatter);
	wp_jw_str(w, "formatter_reason", p->formatter_reason);
	wp_jw_uint(w, "queue_cap_bytes", p->queue_cap_bytes);
	wp_jw_uint(w, "queued_peak_bytes", p->queued_peak_bytes);
	wp_jw_uint(w, "queued_peak_records", p->queued_peak_records);
	wp_jw_uint(w, "formatter_wait_max_ms", p->formatter_wait_max_ms);
	wp_jw_uint(w, "cap_reached", p->cap_reached);
	wp_jw_end(w);
}

void
wp_rec_observation(struct wp_jw *w, const struct wp_observation *o)
{
	const struct wp_obs_ptrace *p = o->ptrace;

	wp_jw_reset(w);
	wp_jw_obj(w, NULL);
	wp_jw_str(w, "type", "observation");
	wp_jw_str(w, "backend", o->backend);
	wp_jw_int_known(w, "pid", o->pid > 0 ? o->pid : -1);
	wp_jw_uint(w, "duration_requested_ms", o->duration_ms);
	wp_jw_uint(w, "elapsed_ms", o->elapsed_ms);
	wp_jw_uint(w, "max_events", o->max_events);
	wp_jw_str(w, "stop_reason", o->stop_reason);
	wp_jw_str(w, "stop_detail", o->stop_detail);
	wp_jw_str(w, "error", o->error);
	wp_jw_bool(w, "truncated_by_max_events", o->truncated);
	wp_jw_uint(w, "accepted_hits", o->accepted);
	coverage(w, o);
	wp_jw_obj(w, "lost_events");
	wp_jw_bool(w, "known", o->lost_known);
	if (!o->lost_known)
		wp_jw_str(w, "reason", o->lost_reason);
	wp_jw_uint(w, "total", o->lost);
	wp_jw_uint(w, "lost_records", o->lost_records);
	if (o->undelivered > 0)
		wp_jw_uint(w, "undelivered_records", o->undelivered);
	wp_jw_strs(w, "reasons", o->lost_reasons, o->nlost_reasons);
	wp_jw_end(w);
	wp_jw_bool(w, "counts_are_lower_bound", o->lower_bound);
	wp_jw_bool(w, "tallied", o->tallied);
	wp_jw_str(w, "follow_mode", o->follow_mode);
	wp_jw_str(w, "follow_mode_reason", o->follow_reason);
	obs_targets(w, o);
	if (p != NULL) {
		wp_jw_obj(w, "ptrace");
		wp_jw_uint(w, "steps", p->steps);
		wp_jw_uint(w, "steps_per_second", p->steps_per_second);
		wp_jw_uint(w, "unexplained_changes", p->unexplained);
		wp_jw_uint(w, "kernel_writes", p->kernel_writes);
		wp_jw_uint(w, "signals_passed", p->signals_passed);
		if (p->unmodeled > 0)
			wp_jw_uint(w, "unmodeled_stores", p->unmodeled);
		if (p->native_ips > 0) {
			wp_jw_uint(w, "native_instructions_per_second",
			    p->native_ips);
			wp_jw_uint(w, "blocked_us", p->blocked_ns / 1000);
			wp_jw_uint(w, "native_run_us", (uint64_t)
			    ((unsigned __int128)p->steps * 1000000 /
			    p->native_ips) + p->blocked_ns / 1000);
		}
		wp_jw_end(w);
	}
	if (o->bpf != NULL)
		obs_bpf(w, o->bpf);
	if (o->page != NULL)
		obs_page(w, o->page);
	if (o->uprobe != NULL) {
		wp_jw_obj(w, "uprobe");
		wp_jw_objects(w, "sites", o->uprobe->sites, o->uprobe->nsites,
		    sizeof *o->uprobe->sites, obs_site);
		wp_jw_end(w);
	}
	if (o->perf != NULL)
		obs_perf(w, o->perf);
	if (o->alive >= 0)
		wp_jw_bool(w, "target_alive_after", o->alive);
	else
		wp_jw_null(w, "target_alive_after");
	if (o->stopped.tid > 0) {
		wp_jw_obj(w, "stopped_at");
		wp_jw_int(w, "tid", o->stopped.tid);
		WP_JW_OR_NULL(wp_jw_hex, w, "writer_ip", o->stopped.has_writer,
		    o->stopped.writer_ip);
		wp_jw_hex(w, "ip", o->stopped.ip);
		wp_jw_str(w, "core", o->stopped.core);
		if (o->stopped.late)
			wp_jw_uint(w, "late_us", o->stopped.late_us);
		if (o->stopped.process != NULL)
			wp_jw_str(w, "process", o->stopped.process);
		wp_jw_end(w);
	}
	wp_jw_end(w);
}
