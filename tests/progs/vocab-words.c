/*
 * Prints each word of the record contract's vocabularies as lib/vocab.c
 * has them, "MEMBER WORD" a line, for tests/16-records-vocab.bats to
 * hold against the schema's "enum"s; with --backend, --backend's words.
 */
#include <stdio.h>
#include <string.h>

#include "vocab.h"

int
main(int argc, char *argv[])
{
	char members[256], *m, *save;
	size_t i, k;

	if (argc > 1 && strcmp(argv[1], "--backend") == 0) {
		for (i = 0; wp_backend_words[i] != NULL; i++)
			printf("%s\n", wp_backend_words[i]);
		return ferror(stdout) ? 1 : 0;
	}
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
