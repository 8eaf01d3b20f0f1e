/*
 * The callers of a hit (--callchain): each return address named, as
 * function+offset in its module with its source line, rendered once per
 * address.  A return address is looked up one byte back, in the call.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dwfl.h"
#include "elf.h"
#include "json.h"
#include "record.h"

struct frame {
	char	*text;		/* the rendered frame object */
};

void
frames_init(struct wp_hmap *frames)
{
	wp_hmap_init(frames, sizeof(struct frame));
}

void
frames_clear(struct wp_hmap *frames)
{
	struct frame *f;
	size_t i;

	for (i = 0; i < frames->cap; i++)
		if ((f = wp_hmap_slot(frames, i)) != NULL)
			free(f->text);
	wp_hmap_clear(frames);
}

/*
 * Whether ip is a signal trampoline: mov $15 (rt_sigreturn), %rax;
 * syscall, where the kernel makes a handler return (libc's
 * __restore_rt, unnamed where libc is stripped).  Its "return address"
 * is the trampoline itself, not a call after one.
 */
static int
sigreturn_at(struct image *im, uint64_t ip)
{
	static const unsigned char rt[] = {
		0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
	};
	unsigned char b[sizeof rt];
	const struct dmap *mp;
	struct dmod *m = NULL;
	size_t n = 0;

	if ((mp = image_map_at(im, ip)) != NULL && mp->mod >= 0 &&
	    (m = image_module(im, mp->mod)) != NULL)
		n = wp_elf_read(m->elf, ip - im->mods[mp->mod].rec->load_bias, b,
		    sizeof b);
	if (n != sizeof b)
		n = image_read_live(im, ip, b, sizeof b);
	return n == sizeof b && memcmp(b, rt, sizeof rt) == 0;
}

static char *
render(struct image *im, uint64_t ip)
{
	struct wp_func fn;
	struct wp_jw w = { 0 };
	const char *mod, *file, *inl[8];
	struct dmod *m = NULL;
	const struct dmap *mp;
	uint64_t bias = 0, sa = 0;
	struct wp_frame_in fr = { 0 };
	char sym[512], ipx[24], sax[24];
	char *text;
	int line, have_fn = 0, have_line = 0, ninl = 0;

	mod = NULL;
	if ((mp = image_map_at(im, ip - 1)) != NULL && mp->mod >= 0) {
		mod = im->mods[mp->mod].rec->path;
		bias = im->mods[mp->mod].rec->load_bias;
		m = image_module(im, mp->mod);
	}
	sa = ip - bias;
	if (sigreturn_at(im, ip)) {
		/* no call: the names and lines of ip - 1 are another's */
		snprintf(sym, sizeof sym, "<signal handler>");
		have_fn = 1;
		m = NULL;
	} else if (m != NULL) {
		have_fn = wp_dwfl_func(im->dwfl, ip - 1, &fn) == 0;
		have_line = wp_dwfl_srcline(im->dwfl, ip - 1, &file, &line) == 0;
		ninl = wp_dwfl_inlined(im->dwfl, ip - 1, inl, 8);
	}
	ipx[wp_fmt_hex(ipx, ip)] = '\0';
	fr.ip = ipx;
	if (mod != NULL) {
		fr.module = (char *)mod;
		sax[wp_fmt_hex(sax, sa)] = '\0';
		fr.static_ip = sax;
	}
	if (have_fn) {
		if (m != NULL)
			snprintf(sym, sizeof sym, "%s+0x%llx", fn.name,
			    (unsigned long long)(ip - fn.addr));
		fr.symbol = sym;
	}
	if (have_line) {
		fr.source_file = (char *)file;
		fr.source_line = line;
	}
	fr.inlined = (char **)inl;
	fr.ninlined = (size_t)ninl;
	wp_rec_frame(&w, &fr);
	text = strdup(w.buf);
	wp_jw_free(&w);
	if (text == NULL)
		wp_fatal_nomem();
	return text;
}

#define MAXFRAMES	WP_CALLCHAIN_MAX

/* The frame of return address ip, rendered once. */
static const char *
frame_text(struct wp_hmap *frames, struct image *im, uint64_t ip)
{
	struct frame *f;
	char *t;
	int isnew;

	f = wp_hmap_put(frames, ip, 0, &isnew);
	if (isnew)
		f->text = NULL;
	if (f->text == NULL) {
		t = render(im, ip);
		/* render may not move the table: no put in between */
		f = wp_hmap_get(frames, ip, 0);
		f->text = t;
	}
	return f->text;
}

void
frames_append(struct decoder *d, const struct wp_hit_in *h,
    const struct wp_x86_regs *regs)
{
	struct wp_jw *out = &d->out;
	uint64_t ips[MAXFRAMES];
	const char *status, *t;
	size_t n, i, max;

	if (h->chain_json != NULL) {
		if (!h->has_chain)
			return;
		wp_jw_arr(out, "callers");
		for (i = 0; i < h->nchain; i++) {
			t = frame_text(&d->frames, &d->img, h->chain[i]);
			wp_jw_raw(out, NULL, t, strlen(t));
		}
		wp_jw_end(out);
		return;
	}
	if (!h->has_stack)
		return;
	max = d->chain_depth > 0 && d->chain_depth < MAXFRAMES ?
	    d->chain_depth : MAXFRAMES;
	n = 0;
	status = regs == NULL ? "user stacks of AArch64 are not unwound yet" :
	    ustack_unwind(&d->ustack, &d->img, h, regs, ips, max, &n);
	wp_jw_arr(out, "callchain");
	for (i = 0; i < n; i++)
		wp_jw_hex(out, NULL, ips[i]);
	wp_jw_end(out);
	wp_jw_str(out, "callchain_status", status);
	wp_jw_arr(out, "callers");
	for (i = 0; i < n; i++) {
		t = frame_text(&d->frames, &d->img, ips[i]);
		wp_jw_raw(out, NULL, t, strlen(t));
	}
	wp_jw_end(out);
}
