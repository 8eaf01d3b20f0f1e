/*
 * x86-text: what the text of a decoded instruction (as wp-decode writes
 * it in a writer's insn) says, for the tools that do not decode.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"
#include "x86.h"

const char *const wp_x86_string_stores[] = {
	"stosb", "stosw", "stosd", "stosq", "movsb", "movsw", "movsq", NULL
};

int
wp_x86_text_rep_store(const char *insn)
{
	const char *const *m;
	const char *sp;
	size_t n;

	if (insn == NULL || !(wp_prefix(insn, "rep ") ||
	    wp_prefix(insn, "repe ") || wp_prefix(insn, "repne ")))
		return 0;
	insn = strchr(insn, ' ') + 1;
	sp = strchr(insn, ' ');
	n = sp != NULL ? (size_t)(sp - insn) : strlen(insn);
	for (m = wp_x86_string_stores; *m != NULL; m++)
		if (strlen(*m) == n && strncmp(insn, *m, n) == 0)
			return 1;
	return 0;
}
