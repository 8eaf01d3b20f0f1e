/*
 * The report page (--html): one HTML file that needs nothing else (no
 * network, fonts or scripts from elsewhere): the text report's header,
 * why counts are a lower bound, and per target its timelines (a lane
 * per writer site, then per thread, and the value written), its writers
 * with their source lines and call chains, and its threads; the text
 * report whole at the end.  A little script shows what is under the
 * pointer and checks that each lane's marks add up to its count.
 */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "reader.h"
#include "util.h"

#define AXIS_MAX_NS	100000000000000000LL

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}"
    "pre,code,.mono{font-family:ui-monospace,monospace;font-size:12px}"
    "h2{margin-top:2em;border-bottom:1px solid #ccc}"
    "h3{font-size:14px;margin:1.2em 0 .3em}"
    "svg{display:block;width:100%;max-width:1200px}"
    ".row{fill:none}.lane:nth-child(odd) .row{fill:#f4f6f8}"
    ".name,.n,.tick,.axislabel,.vlabel{font:11px ui-monospace,monospace}"
    ".n,.axislabel,.vlabel{text-anchor:end}.tick{text-anchor:middle}"
    ".hit{fill:#c0392b}.bin{fill:#2e6fb7}.axis line{stroke:#888}"
    ".value{fill:none;stroke:#27864a;stroke-width:1.5}.v{fill:#27864a}"
    ".vband{fill:#27864a;opacity:.25}"
    "table{border-collapse:collapse;margin:.3em 0}"
    "th,td{padding:2px 8px;text-align:left;vertical-align:top}"
    "th{border-bottom:1px solid #888}td.num{text-align:right}"
    "tr.writer>td{border-top:1px solid #ddd}"
    ".bound{color:#a04000}.note{color:#555}"
    "ol.frames{margin:0;padding-left:1.5em}"
    "#tip{position:fixed;pointer-events:none;background:#fff;"
    "border:1px solid #888;padding:2px 6px;font:12px monospace;"
    "display:none}";

/*
 * The page's script: under the pointer, a mark's or a bar's hits and
 * time; a drag across a drawing zooms the target's drawings to that
 * time (so does #zoom=FROM-TO, in ns, in the page's address), a double
 * click shows the whole watch again; on load, each lane's drawn hits
 * are summed and checked against its count (data-check).
 */
static const char script[] =
    "(function(){'use strict';\n"
    "var LX=300,PW=690,tip=document.getElementById('tip');\n"
    "function dur(ns){var u=[[1e9,'s'],[1e6,'ms'],[1e3,'us'],[1,"
    "'ns']],a=Math.abs(ns),i=0;\n"
    "if(ns===0)return '0';while(i<3&&a<u[i][0])i++;\n"
    "return String(Number((ns/u[i][0]).toPrecision(4)))+' '+u[i][1];}\n"
    "function step(span){var s=1,k,m=[1,2,5],i;\n"
    "for(k=1;s*8<span;k*=10)for(i=0;i<3&&s*8<span;i++)s=m[i]*k;"
    "return s;}\n"
    "function el(n,at,txt){var e=document.createElementNS("
    "'http://www.w3.org/2000/svg',n),k;\n"
    "for(k in at)e.setAttribute(k,at[k]);if("
    "txt!==undefined)e.textContent=txt;return e;}\n"
    "function orig(e,k){var v=e.getAttribute('data-o'+k);\n"
    "if(v===null){v=e.getAttribute(k);e.setAttribute('data-o'+k,v);}"
    "return v;}\n"
    "function binAt(svg,e){var end=Number(svg.getAttribute("
    "'data-end-ns')),\n"
    "bin=Number(svg.getAttribute('data-bin-ns'));\n"
    "return Math.round((Number(orig(e,'x'))-LX)*end/PW/bin)*bin;}\n"
    "function axis(g,a,b){var y=Number(g.getAttribute('data-y')),"
    "s=step(b-a),t,x;\n"
    "g.querySelectorAll('.t').forEach(function(e){e.remove();});\n"
    "for(t=Math.ceil((a>0?a+(b-a)/50:0)/s)*s;t<=b;t+=s){"
    "x=(LX+PW*(t-a)/(b-a)).toFixed("
    "1);\n"
    "g.appendChild(el('line',{'class':'t',x1:x,y1:y,x2:x,y2:y+4}));\n"
    "g.appendChild(el('text',{'class':'t tick',x:x,y:y+16},dur(t)));}"
    "}\n"
    "function zoomSvg(svg,a,b){var end=Number(svg.getAttribute("
    "'data-end-ns')),\n"
    "bin=Number(svg.getAttribute('data-bin-ns'));\n"
    "function fx(t){return LX+PW*(t-a)/(b-a);}\n"
    "svg.querySelectorAll('[data-t]').forEach(function(e){"
    "var t=Number(e.getAttribute('data-t'));\n"
    "e.setAttribute(e.tagName==='circle'?'cx':'x',fx(t).toFixed(2));\n"
    "e.style.display=t<a||t>b?'none':'';});\n"
    "svg.querySelectorAll('rect.bin,rect.vband').forEach(function(e){"
    "var t=binAt(svg,e),\n"
    "x0=Math.max(LX,fx(t)),x1=Math.min(LX+PW,fx(t+bin));\n"
    "e.setAttribute('x',x0.toFixed(2));e.setAttribute('width',"
    "Math.max(1,x1-x0).toFixed(2));\n"
    "e.style.display=t+bin<=a||t>b?'none':'';});\n"
    "svg.querySelectorAll('path.value').forEach(function(e){\n"
    "e.setAttribute('d',orig(e,'d').replace(/([MH])([0-9.]+)/g,"
    "function(m,c,x){\n"
    "return c+fx((Number(x)-LX)*end/PW).toFixed(2);}));});\n"
    "svg.querySelectorAll('g.axis').forEach(function(g){axis(g,a,b);}"
    ");\n"
    "svg.setAttribute('data-zoom',a+'-'+b);}\n"
    "function zoom(sec,a,b){sec.querySelectorAll("
    "'svg[data-end-ns]').forEach(function(svg){\n"
    "zoomSvg(svg,a,b);});}\n"
    "document.querySelectorAll('g.lane').forEach(function(g){var s=0;\n"
    "g.querySelectorAll('[data-n]').forEach(function(e){s+=Number("
    "e.getAttribute('data-n'));});\n"
    "g.setAttribute('data-drawn',String(s));\n"
    "g.setAttribute('data-check',String(s)===g.getAttribute("
    "'data-hits')?'ok':'mismatch');});\n"
    "document.querySelectorAll('section.target').forEach(function("
    "sec){var from=null;\n"
    "sec.querySelectorAll('svg[data-end-ns]').forEach(function(svg){\n"
    "function at(ev){var r=svg.getBoundingClientRect(),x=("
    "ev.clientX-r.left)*1000/r.width,\n"
    "z=(svg.getAttribute('data-zoom')||'0-'+svg.getAttribute("
    "'data-end-ns')).split('-').map(Number);\n"
    "return z[0]+(Math.min(Math.max(x,LX),LX+PW)-LX)*(z[1]-z[0])/PW;}\n"
    "svg.addEventListener('mousedown',function(ev){from=at(ev);"
    "ev.preventDefault();});\n"
    "svg.addEventListener('mouseup',function(ev){var to=at(ev);\n"
    "if(from!==null&&Math.abs(to-from)>=1)zoom(sec,Math.min(from,to),"
    "Math.max(from,to));\n"
    "from=null;});\n"
    "svg.addEventListener('dblclick',function(){zoom(sec,0,Number("
    "svg.getAttribute('data-end-ns')));});\n"
    "svg.addEventListener('mousemove',function(ev){var e=ev.target,n;\n"
    "if(!e.hasAttribute||!e.hasAttribute('data-n')){"
    "tip.style.display='none';return;}\n"
    "n=e.getAttribute('data-n');tip.textContent=e.hasAttribute("
    "'data-t')?\n"
    "n+' hit at '+dur(Number(e.getAttribute("
    "'data-t'))):n+' hits from '+dur(binAt(svg,e));\n"
    "tip.style.left=(ev.clientX+12)+'px';tip.style.top=("
    "ev.clientY+12)+'px';\n"
    "tip.style.display='block';});\n"
    "svg.addEventListener('mouseleave',function(){"
    "tip.style.display='none';});});});\n"
    "var m=/^#zoom=([0-9]+)-([0-9]+)$/.exec(location.hash);\n"
    "if(m&&Number(m[2])>Number(m[1]))document.querySelectorAll("
    "'section.target').forEach(\n"
    "function(sec){zoom(sec,Number(m[1]),Number(m[2]));});\n"
    "document.documentElement.setAttribute('data-ready','yes');})();\n";

static const char *const bound_why[WP_NBOUNDS] = {
	[WP_BOUND_INCOMPLETE] = "the stream ended without an observation "
	    "record: the watch was killed or is still running",
	[WP_BOUND_LOST] = "the kernel dropped records (a ring was full), or "
	    "could not say whether it did",
	[WP_BOUND_TRUNCATED] = "the watch stopped at its most hits "
	    "(--max-events)",
	[WP_BOUND_PARTIAL] = "some threads were not watched all the time",
	[WP_BOUND_OUTPUT_CLOSED] = "wp-arm's output was closed before the "
	    "end",
	[WP_BOUND_MALFORMED] = "lines of the stream were not records",
	[WP_BOUND_WP_ARM] = "wp-arm says so",
	[WP_BOUND_UNMODELED] = "stores were made that wp-arm could not "
	    "model",
	[WP_BOUND_REBIND_WINDOW] = "a pointer of a --follow chain was "
	    "written: writes to the new leaf before its re-arm were not seen",
	[WP_BOUND_QUIET] = "a watch counted nothing while another "
	    "breakpoint was on the threads, where a second breakpoint on an "
	    "address does not fire: its count is unknown",
	[WP_BOUND_PAGES_DROPPED] = "the process unmapped a watched page, "
	    "mapped it shared, or (-a rw) made it read-only or executable: "
	    "its accesses since were not seen",
	[WP_BOUND_PAGE_WINDOWS] = "a watched page was given back to a "
	    "system call while other threads could run: their stores to it "
	    "meanwhile were not seen",
	[WP_BOUND_ASYNC_IO] = "the process had an io_uring or Linux AIO "
	    "context: its reads into the protected pages failed, unseen",
	[WP_BOUND_REP_TRAPS] = "a rep string instruction wrote under a "
	    "data breakpoint, which a CPU with fast strings raises once for "
	    "several of its elements: its count is of traps (the page and "
	    "ptrace backends count each element)",
};

/* The text report, as the table prints it at 100 columns, into *buf
   (the caller frees it). */
static void
text_report(const struct report *r, char **buf)
{
	size_t n = 0;
	FILE *m;

	*buf = NULL;
	if ((m = open_memstream(buf, &n)) == NULL)
		wp_fatal_nomem();
	report_table(r, m, 100);
	if (fclose(m) == EOF)
		wp_fatal_nomem();
}

/* What the chains shown tell, as the table says it after the targets. */
static void
notes(const struct report *r, FILE *f)
{
	const char *p;
	int n, any = 0;

	for (n = 0; n < RN_N; n++) {
		if (!r->notes[n])
			continue;
		fprintf(f, "%s<li data-note=\"%s\">", any++ ? "" :
		    "<ul class=\"notes note\">\n", report_note_names[n]);
		for (p = report_note_text(r, n); *p != '\0'; p++)
			if (*p == '\n')
				fputc(' ', f);
			else
				html_fmt(f, "%c", *p);
		fprintf(f, "</li>\n");
	}
	if (any)
		fprintf(f, "</ul>\n");
}

static void
header(const struct report *r, const char *text, FILE *f)
{
	const char *end = strstr(text, "\n\n");
	size_t i, n = end != NULL ? (size_t)(end - text) + 1 : strlen(text);

	fprintf(f, "<header>\n<h1>wp report: ");
	html_fmt(f, "pid %s %s", wp_field_text(&r->session.pid),
	    wp_field_text(&r->session.exe));
	fprintf(f, "</h1>\n<pre class=\"header\">");
	html_fmt(f, "%.*s", (int)n, text);
	fprintf(f, "</pre>\n");
	if (r->nreasons == 0) {
		fprintf(f, "<p class=\"exact\">Counts are not a lower "
		    "bound: nothing was missed that wp could tell.</p>\n");
	} else {
		fprintf(f, "<p class=\"bound\">Counts are a lower bound:"
		    "</p>\n<ul class=\"reasons\">\n");
		for (i = 0; i < r->nreasons; i++)
			fprintf(f, "<li data-reason=\"%s\"><code>%s</code>: "
			    "%s</li>\n", wp_bound_names[r->reasons[i]],
			    wp_bound_names[r->reasons[i]],
			    bound_why[r->reasons[i]]);
		fprintf(f, "</ul>\n");
	}
	notes(r, f);
	fprintf(f, "</header>\n");
}

/* The time axis: the watch's length, or to the last hit if later. */
static int64_t
axis_end(const struct report *r, const struct timeline *tl)
{
	int64_t end = r->observation.present ?
	    wp_field_int(&r->observation.elapsed_ms) * 1000000 : 0;

	if (tl->last_ns > end)
		end = tl->last_ns;
	/* from 1 us to 10^17 ns (3 years), whatever a stream says */
	return end < 1000 ? 1000 : end > AXIS_MAX_NS ? AXIS_MAX_NS : end;
}

/* Who counted the writes that the tallies hold, as the records say. */
static const char *
counter(const struct report *r)
{
	if (r->tracer != NULL)
		return r->tracer;
	return r->kernel_tallies ? "the kernel" : "wp-arm in the samples it "
	    "read";
}

/*
 * How the timelines draw: the kernel's tallies, or the hit records,
 * each or binned; and, where the writers' tallies count more writes
 * than the hit records drawn, which those are.
 */
static void
timing(const struct report *r, const struct rtarget *t,
    const struct tl_target *tt, const struct timeline *tl, FILE *f)
{
	char w[32];

	html_dur(w, sizeof w, tl->width_ns);
	if (svg_tallies(r, t)) {
		fprintf(f, "<p class=\"binning\" data-binned=\"tallied\">"
		    "Counted in the kernel (every write): each bar is the "
		    "writes tallied between two reads of the tallies, in "
		    "bins of %s.</p>\n", w);
		return;
	}
	if (tt->binned)
		fprintf(f, "<p class=\"binning\" data-binned=\"yes\">Binned: "
		    "%llu hits are too many to draw each (more than %d); "
		    "each bar is the hits in one bin of %s, its height its "
		    "count.", (unsigned long long)t->hits, TL_MAXMARKS, w);
	else
		fprintf(f, "<p class=\"binning\" data-binned=\"no\">Each hit "
		    "is a mark at its time.");
	/* tallies read once, at the end: every write, but not when */
	if (t->tallied && t->conditioned) {
		fprintf(f, " The hits are the writes that matched --if '");
		html_text(f, wp_field_text(&r->armed.condition));
		fprintf(f, "': <span class=\"drawn\">%llu</span> of the %llu "
		    "writes counted by %s, tallied at the end; the writers "
		    "below count them all, and those that matched.",
		    (unsigned long long)t->hits,
		    (unsigned long long)t->tallied_hits, counter(r));
	} else if (t->tallied && t->tallied_hits > t->hits)
		fprintf(f, " They are <span class=\"drawn\">%llu</span> of the "
		    "%llu writes counted by %s, tallied at the end: the other "
		    "%llu were "
		    "not written as hit records, and the writers below count "
		    "them, but not when.", (unsigned long long)t->hits,
		    (unsigned long long)t->tallied_hits, counter(r),
		    (unsigned long long)(t->tallied_hits - t->hits));
	fprintf(f, "</p>\n");
}

/* A caller: the functions inlined there, its name, its source line. */
static void
frame(const struct wp_frame_in *fr, FILE *f)
{
	size_t i;

	fprintf(f, "<li>");
	for (i = 0; i < fr->ninlined; i++)
		html_fmt(f, "%s (inline) < ", fr->inlined[i]);
	if (fr->symbol != NULL)
		html_text(f, fr->symbol);
	else if (fr->module != NULL && fr->static_ip != NULL)
		html_fmt(f, "%s+%s", fr->module, fr->static_ip);
	else
		html_text(f, fr->ip ? fr->ip : "-");
	if (fr->source_file != NULL)
		html_fmt(f, "  %s:%lld", fr->source_file,
		    (long long)fr->source_line);
	fprintf(f, "</li>");
}

/* A call chain and its hits. */
static void
chain(const struct rchain *c, FILE *f)
{
	size_t k;

	fprintf(f, "<li><span class=\"n\">%llu</span> ",
	    (unsigned long long)c->hits);
	if (strcmp(c->status, "complete") != 0)
		html_fmt(f, "[%s] ", c->status[0] ? c->status : "-");
	fprintf(f, "%s<ol class=\"frames\">", c->nfr ? "by" : "no callers");
	for (k = 0; k < c->nfr; k++)
		frame(&c->fr[k], f);
	fprintf(f, "</ol></li>\n");
}

static void
chains(const struct rsite *s, FILE *f)
{
	size_t i;

	if (s->chains.n == 0 && s->chains_other == 0)
		return;
	fprintf(f, "<tr class=\"chains\"><td></td><td colspan=\"5\"><details>"
	    "<summary>call chains: %zu shown</summary><ul>\n", s->nshown);
	for (i = 0; i < s->nshown; i++)
		chain(s->shown[i], f);
	if (s->chains_rest > 0)
		fprintf(f, "<li>%llu in other call chains</li>\n",
		    (unsigned long long)s->chains_rest);
	if (s->chains_none > 0)
		fprintf(f, "<li>%llu without a call chain (not sampled)</li>\n",
		    (unsigned long long)s->chains_none);
	fprintf(f, "</ul></details></td></tr>\n");
}

static void
writer_row(const struct rsite *s, int matched, FILE *f)
{
	const struct wp_writer_in *w = &s->writer;
	char name[512], ip[24];

	ip[wp_fmt_hex(ip, s->trap)] = '\0';
	label_writer(w, w->insn ? ip : "-", name, sizeof name);
	fprintf(f, "<tr class=\"writer\" data-trap=\"%s\" data-hits=\"%llu\">"
	    "<td class=\"num\">%llu</td>", ip, (unsigned long long)s->hits,
	    (unsigned long long)s->hits);
	if (matched)
		fprintf(f, "<td class=\"num matched\">%llu</td>",
		    (unsigned long long)s->matched);
	fprintf(f, "<td>%s</td><td>%s</td><td class=\"mono\">",
	    wp_conf_names[s->worst], wp_kind_names[s->kind]);
	html_text(f, name);
	fprintf(f, "</td><td class=\"mono\">");
	if (w->source_file != NULL)
		html_fmt(f, "%s:%lld", w->source_file,
		    (long long)w->source_line);
	else
		fprintf(f, "-");
	fprintf(f, "</td><td class=\"mono\">");
	html_text(f, w->insn ? w->insn : "-");
	if (w->caveat != NULL || (w->insn == NULL && w->reason != NULL)) {
		fprintf(f, "<br><span class=\"note\">");
		html_text(f, w->caveat ? w->caveat : w->reason);
		fprintf(f, "</span>");
	}
	fprintf(f, "</td></tr>\n");
	chains(s, f);
}

static void
writers(const struct rtarget *t, FILE *f)
{
	size_t i;

	fprintf(f, "<h3>Writers: %zu</h3>\n", t->nsorted);
	if (t->nsorted == 0)
		return;
	/* with --if, every write tallied: MATCHED beside HITS */
	fprintf(f, "<table class=\"writers\"><thead><tr><th>HITS</th>%s"
	    "<th>CONF</th><th>KIND</th><th>WRITER</th><th>SOURCE</th>"
	    "<th>INSTRUCTION</th></tr></thead><tbody>\n", t->conditioned ?
	    "<th>MATCHED</th>" : "");
	for (i = 0; i < t->nsorted; i++)
		writer_row(t->sorted[i], t->conditioned, f);
	fprintf(f, "</tbody></table>\n");
}

static void
threads(const struct report *r, const struct rtarget *t, FILE *f)
{
	const char *comm;
	size_t i;

	fprintf(f, "<h3>Threads: %zu</h3>\n", t->nthr);
	if (t->nthr == 0)
		return;
	fprintf(f, "<table class=\"threads\"><thead><tr><th>TID</th>"
	    "<th>NAME</th><th>HITS</th></tr></thead><tbody>\n");
	for (i = 0; i < t->nthr; i++) {
		comm = report_comm(r, t->thr[i].tid);
		fprintf(f, "<tr data-tid=\"%d\"><td class=\"num\">%d</td><td>",
		    t->thr[i].tid, t->thr[i].tid);
		html_text(f, comm ? comm : "-");
		fprintf(f, "</td><td class=\"num\">%llu</td></tr>\n",
		    (unsigned long long)t->thr[i].hits);
	}
	if (t->other_thread_hits > 0)
		fprintf(f, "<tr><td></td><td>other threads</td><td class=\""
		    "num\">%llu</td></tr>\n",
		    (unsigned long long)t->other_thread_hits);
	fprintf(f, "</tbody></table>\n");
}

/* Updates lost (lost.c), a line each. */
static void
lost_updates(const struct report *r, const struct rtarget *t, FILE *f)
{
	struct rlost a[MAXFIELDS];
	ssize_t i, n = report_lost(r, t, a);

	for (i = 0; i < n; i++) {
		fprintf(f, "<p class=\"lost\">Lost updates");
		if (!a[i].whole)
			html_fmt(f, " at +0x%llx (%lld bytes), from its first "
			    "write", (unsigned long long)a[i].off,
			    (long long)a[i].len);
		html_fmt(f, ": the value moved by %lld, but the %llu writes, "
		    "each the step most of its writer's make, add up to "
		    "%lld: %lld less, as where a non-atomic "
		    "read-modify-write (x += d) on one thread overwrote "
		    "another thread's update.", (long long)a[i].moved,
		    (unsigned long long)a[i].writes, (long long)a[i].sum,
		    (long long)a[i].less);
		fprintf(f, "</p>\n");
	}
}

/* What and where the target is, and its counts. */
static void
target_head(const struct report *r, const struct rtarget *t, FILE *f)
{
	const struct wp_watch_pass *x = &t->rec;
	const struct wp_field *latest = t->obs ? &t->obs->latest_value : NULL;

	fprintf(f, "<h2>%s %d: ", t->follow ? "follow" : "target", t->id);
	html_text(f, wp_field_text(&x->input));
	fprintf(f, "</h2>\n<p class=\"where mono\">");
	if (t->follow)
		html_fmt(f, "pointer slot %s, %llu pointer writes",
		    wp_field_text(&x->slot_addr),
		    (unsigned long long)t->ptr_hits);
	else
		html_fmt(f, "%s%s%s%s%s%s  %s  %s bytes  %s",
		    wp_field_text(&x->runtime_addr), x->static_addr.text ?
		    " (static " : "", x->static_addr.text ?
		    x->static_addr.text : "", x->static_addr.text ? " in " :
		    "", x->static_addr.text ? wp_field_text(&x->module) : "",
		    x->static_addr.text ? ")" : "",
		    wp_field_text(&x->perms), wp_field_text(&x->len),
		    wp_field_text(&x->access));
	if (t->tallied) {
		fprintf(f, "</p>\n<p class=\"counts\"><span class=\"hits\">"
		    "%llu</span> writes%s counted by ",
		    (unsigned long long)t->tallied_hits,
		    t->lower ? " (a lower bound)" : "");
		html_text(f, counter(r));
		fprintf(f, ", tallied by writer");
	} else
		fprintf(f, "</p>\n<p class=\"counts\"><span class=\"hits\">"
		    "%llu</span> hits%s", (unsigned long long)t->hits,
		    t->lower ? " (a lower bound)" : "");
	if (t->conditioned) {
		fprintf(f, "; <span class=\"matched\">%llu</span> matched "
		    "--if '", (unsigned long long)t->matched_hits);
		html_text(f, wp_field_text(&r->armed.condition));
		fprintf(f, "'");
	}
	html_fmt(f, "; initial %s, latest %s", wp_field_text(t->initial),
	    latest ? wp_field_text(latest) : "-");
	if (r->snapshot_caveat != NULL) {
		fprintf(f, "</p>\n<p class=\"caveat\">");
		html_text(f, r->snapshot_caveat);
	}
	fprintf(f, "</p>\n");
	lost_updates(r, t, f);
}

/* Why no hit said what it wrote, as the records tell. */
static void
no_value(const struct report *r, const struct rtarget *t, FILE *f)
{
	fprintf(f, "<p class=\"note\">No hit carried the value it wrote");
	if (r->tracer != NULL && wp_field_int(&t->rec.len) > 8)
		fprintf(f, " as a number: the target is wider than 8 bytes, "
		    "and the samples of the text report show the bytes each "
		    "store wrote");
	else if (r->tracer == NULL && !wp_field_bool(&r->armed.regs))
		fprintf(f, " (the hits were sampled without registers: "
		    "wp watch --regs samples them)");
	fprintf(f, ".</p>\n");
}

static void
section(const struct report *r, const struct rtarget *t,
    const struct timeline *tl, FILE *f)
{
	const struct tl_target *tt = timeline_target(tl, t->id);
	int64_t end = axis_end(r, tl);

	fprintf(f, "<section class=\"target\" id=\"target-%d\" "
	    "data-target=\"%d\" data-follow=\"%s\">\n", t->id, t->id,
	    t->follow ? "yes" : "no");
	target_head(r, t, f);
	if (tt == NULL)
		fprintf(f, "<p class=\"binning\" data-binned=\"no\">No hits."
		    "</p>\n");
	else {
		timing(r, t, tt, tl, f);
		fprintf(f, "<h3>Writers over time</h3>\n");
		svg_lanes(r, t, tl, 0, end, f);
		fprintf(f, "<h3>Threads over time</h3>\n");
		svg_lanes(r, t, tl, 1, end, f);
		fprintf(f, "<h3>Value written</h3>\n");
	}
	if (tt != NULL && tt->valued)
		svg_values(tt, tl, end, f);
	else if (tt != NULL)
		no_value(r, t, f);
	writers(t, f);
	threads(r, t, f);
	fprintf(f, "</section>\n");
}

int
report_html(const struct report *r, const struct timeline *tl, FILE *f)
{
	char *text;
	size_t i, k;

	text_report(r, &text);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\""
	    "width=device-width\">\n<meta name=\"generator\" content=\""
	    "wp-report %s\">\n<title>wp report: ", WP_VERSION);
	html_fmt(f, "pid %s %s", wp_field_text(&r->session.pid),
	    wp_field_text(&r->session.exe));
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	header(r, text, f);
	fprintf(f, "<main>\n");
	for (k = 0; k < 2; k++)		/* the targets, then the follows */
		for (i = 0; i < r->nt; i++)
			if (r->t[i].follow == (int)k)
				section(r, &r->t[i], tl, f);
	access_html(r, f);	/* the instructions' addresses */
	fprintf(f, "</main>\n<details class=\"text\"><summary>The text "
	    "report</summary>\n<pre>");
	html_text(f, text);
	fprintf(f, "</pre>\n</details>\n<footer class=\"note\">wp-report %s: "
	    "this page needs nothing but itself.</footer>\n<div id=\"tip\">"
	    "</div>\n<script>%s</script>\n</body>\n</html>\n", WP_VERSION,
	    script);
	free(text);
	return ferror(f) ? -1 : 0;
}
