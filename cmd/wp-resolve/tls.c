/*
 * Thread-local variables: where one thread's copy lies.  x86-64 keeps a
 * thread's pointer (its fs base) at its thread control block, whose
 * second word is the dynamic thread vector: entry m holds the address
 * of the TLS block of the module with TLS id m.  The modules that were
 * loaded with the program get ids 1, 2, ... in the order of the dynamic
 * linker's list (r_debug.r_map), counting those with a PT_TLS segment.
 */
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"
#include "proc.h"
#include "tls.h"

/* The thread's fs base, read with ptrace for a moment. */
static int
fs_base(pid_t tid, uint64_t *fs, char *err, size_t errsz)
{
	struct user_regs_struct regs;
	int status, rc = -1;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0) == -1) {
		snprintf(err, errsz, "--tid %d: cannot attach: %s", (int)tid,
		    strerror(errno));
		return -1;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0 &&
	    waitpid(tid, &status, __WALL) == tid && WIFSTOPPED(status) &&
	    ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0) {
		*fs = regs.fs_base;
		rc = 0;
	} else
		snprintf(err, errsz, "--tid %d: cannot read its registers: %s",
		    (int)tid, strerror(errno));
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return rc;
}

static int
read_u64(struct view *v, uint64_t addr, uint64_t *val)
{
	return wp_proc_read(v->memfd, addr, val, sizeof *val);
}

/* r_debug.r_map, from the main program's DT_DEBUG: the link map. */
static int
link_map(struct view *v, uint64_t *lm)
{
	uint64_t dyn, tag, val, rdebug = 0;
	size_t i;

	if (v->main->elf == NULL || wp_elf_dynamic(v->main->elf, &dyn) == -1)
		return -1;
	dyn += v->main->bias;
	for (i = 0; i < 4096; i++, dyn += 16) {
		if (read_u64(v, dyn, &tag) == -1 ||
		    read_u64(v, dyn + 8, &val) == -1 || tag == DT_NULL)
			break;
		if (tag == DT_DEBUG)
			rdebug = val;
	}
	if (rdebug == 0)
		return -1;
	return read_u64(v, rdebug + 8, lm);
}

/*
 * The TLS module id of m: 1 + those with TLS before it in the link map,
 * whose entries are matched to modules by their load bias (the names
 * differ: /lib and /usr/lib, relative paths).
 */
static int
module_id(struct view *v, const struct module *m, uint64_t *id)
{
	uint64_t lm, bias, memsz, align, n = 0;
	struct module *mm;
	size_t i, k;

	if (link_map(v, &lm) == -1)
		return -1;
	for (k = 0; lm != 0 && k < 4096; k++) {
		if (read_u64(v, lm, &bias) == -1)
			return -1;
		mm = NULL;
		for (i = 0; mm == NULL && i < v->nmods; i++)
			if (v->mods[i].bias == bias && v->mods[i].elf != NULL)
				mm = &v->mods[i];
		if (mm != NULL && wp_elf_tls(mm->elf, &memsz, &align) == 0) {
			n++;
			if (mm == m) {
				*id = n;
				return 0;
			}
		}
		if (read_u64(v, lm + 24, &lm) == -1)
			return -1;
	}
	return -1;
}

int
tls_address(struct view *v, const struct module *m, uint64_t off,
    pid_t tid, uint64_t *addr, char *err, size_t errsz)
{
	char path[64];
	uint64_t fs, dtv, id, block;

	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)v->pid, (int)tid);
	if (access(path, F_OK) != 0) {
		snprintf(err, errsz, "--tid %d: no such thread of pid %d",
		    (int)tid, (int)v->pid);
		return -1;
	}
	if (fs_base(tid, &fs, err, errsz) == -1)
		return -1;
	if (module_id(v, m, &id) == -1) {
		snprintf(err, errsz, "the TLS block of %s is not in the "
		    "dynamic linker's list (a module loaded with dlopen, or "
		    "a static program)", m->path);
		return -1;
	}
	if (read_u64(v, fs + 8, &dtv) == -1 ||
	    read_u64(v, dtv + 16 * id, &block) == -1 ||
	    block == 0 || block == UINT64_MAX) {
		snprintf(err, errsz, "thread %d has no TLS block for %s yet",
		    (int)tid, m->path);
		return -1;
	}
	*addr = block + off;
	return 0;
}
