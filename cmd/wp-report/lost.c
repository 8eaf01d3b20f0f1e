/*
 * Lost updates: where a tracer saw every write to a target with its
 * value, what the writers' writes add up to, each the step most of its
 * writer's make, against what the value moved.  Less: another thread's
 * update was lost between a non-atomic read and its write (x += d on
 * two threads).  The table, the JSON document and the page all say
 * what this finds.
 */
#include "report.h"
#include "util.h"

/* v, of a value of len bytes, as a signed number. */
static int64_t
signed_of(uint64_t v, int64_t len)
{
	int sh = 64 - 8 * (int)len;

	return sh > 0 ? (int64_t)(v << sh) >> sh : (int64_t)v;
}

static uint64_t
mask_of(int64_t len)
{
	return len >= 8 ? ~0ULL : (1ULL << (8 * len)) - 1;
}

/* Whether r's tracer saw every write to t, each with its writer. */
static int
every_write(const struct report *r, const struct rtarget *t)
{
	return r->tracer != NULL && !t->lower && !t->tallied &&
	    !t->conditioned && !t->follow && t->nsorted > 0 &&
	    t->obs != NULL && wp_field_int(&t->obs->counted) ==
	    (int64_t)t->hits;
}

/* s's step, where most of its writes make it and it moves a value. */
static int
adder(const struct rsite *s, uint64_t mask)
{
	return s->dvoted > 0 && s->dvotes * 2 >= s->dvoted &&
	    (s->dcand & mask) != 0;
}

/*
 * Whether updates were lost between from and to, writes adding up to
 * sum: what is missing is of sum's sign and no more than sum (a value
 * that moved further than its writes add up, or the other way, was
 * not left short by overwritten updates: its writers are not the
 * adders they seemed, such as threads each storing its own count).
 */
static int
short_of(uint64_t from, uint64_t to, uint64_t sum, int64_t len)
{
	uint64_t mask = mask_of(len);
	int64_t less = signed_of((from + sum - to) & mask, len);
	int64_t all = signed_of(sum & mask, len);

	return less != 0 && (all > 0 ? less > 0 && less <= all :
	    less < 0 && less >= all);
}

static void
found(struct rlost *l, int whole, uint64_t off, int64_t len,
    uint64_t writes, uint64_t from, uint64_t to, uint64_t sum)
{
	uint64_t mask = mask_of(len);

	l->whole = whole;
	l->off = off;
	l->len = len;
	l->writes = writes;
	l->moved = signed_of((to - from) & mask, len);
	l->sum = signed_of(sum & mask, len);
	l->less = signed_of((from + sum - to) & mask, len);
}

/*
 * Of a target wider than 8 bytes: per field (where stores of 8 bytes or
 * less landed), its writers' steps after its first store against what
 * the field moved from it.
 */
static ssize_t
fields_lost(const struct rtarget *t, struct rlost *a)
{
	const struct rfield *fd;
	const struct rsite *s;
	uint64_t sum, mask, n;
	size_t i, k, nl = 0;
	int ok;

	if (t->fields_unknown)
		return -1;
	for (i = 0; i < t->nsorted; i++)
		if (t->sorted[i]->field < 0)
			return -1;	/* a writer of several fields */
	for (k = 0; k < t->nfields; k++) {
		fd = &t->fields[k];
		mask = mask_of(fd->len);
		sum = n = 0;
		ok = fd->stores > 1;
		for (i = 0; i < t->nsorted && ok; i++) {
			s = t->sorted[i];
			if (s->field != (int)k + 1 || s->dvoted == 0)
				continue;
			ok = adder(s, mask);
			sum += s->dvoted * s->dcand;
			n += s->dvoted;
		}
		if (!ok || n != fd->stores - 1 ||
		    !short_of(fd->first, fd->prev, sum, fd->len))
			continue;
		found(&a[nl++], 0, fd->off, fd->len, n, fd->first, fd->prev,
		    sum);
	}
	return nl;
}

ssize_t
report_lost(const struct report *r, const struct rtarget *t,
    struct rlost a[MAXFIELDS])
{
	const struct wp_field *latest = t->obs ? &t->obs->latest_value : NULL;
	int64_t len = wp_field_int(&t->rec.len);
	uint64_t init, last, sum = 0;
	size_t i;

	if (!every_write(r, t))
		return -1;
	if (len > 8)
		return fields_lost(t, a);
	if (t->steps_unknown || len < 1 || t->initial->text == NULL ||
	    wp_parse_u64(t->initial->text, &init) == -1)
		return -1;
	/* the value at the end; where it was not read, the last hit's */
	if (latest == NULL || latest->text == NULL ||
	    wp_parse_u64(latest->text, &last) == -1)
		last = t->prev;
	for (i = 0; i < t->nsorted; i++) {
		if (!adder(t->sorted[i], mask_of(len)))
			return -1;
		sum += t->sorted[i]->hits * t->sorted[i]->dcand;
	}
	if (!short_of(init, last, sum, len))
		return 0;
	found(&a[0], 1, 0, len, t->hits, init, last, sum);
	return 1;
}
