/*
 * Prints each word of the record contract's vocabularies as lib/vocab.c
 * has them, "MEMBER WORD" a line, for tests/16-records-vocab.bats to
 * hold against the schema's "enum"s.
 */
#include <stdio.h>
#include <string.h>

#include "vocab.h"

int
main(void)
{
	char members[256], *m, *save;
	size_t i, k;

	for (i = 0; i < wp_nvocabs; i++) {
		if (wp_vocabs[i].members == NULL)
			continue;
		snprintf(members, sizeof members, "%s", wp_vocabs[i].members);
		for (m = strtok_r(members, " ", &save); m != NULL;
		    m = strtok_r(NULL, " ", &save))
			for (k = 0; k < wp_vocabs[i].n; k++)
				if (wp_vocabs[i].names[k] != NULL)
					printf("%s %s\n", m,
					    wp_vocabs[i].names[k]);
	}
	return ferror(stdout) ? 1 : 0;
}
