/*
 * dl-tls [-i] [-n writes]
 *
 * Loads libwptls2.so and libwptls.so, from beside the program, with
 * dlopen, unloads libwptls2.so (its TLS id is then a gap: libwptls.so's
 * id is not its place among the modules with TLS), and starts two
 * threads; the first touches its copy of libwptls.so's thread-local
 * wpt_dtls, the second does not (glibc allocates a thread's block of a
 * dlopen'd module at its first access).  Prints one JSON ready line: the
 * pid, the library's path, the tids of both threads and where the first
 * one's wpt_dtls is.  On SIGUSR1 the first thread writes its wpt_dtls n
 * times (1, 2, ...), the second prints "untouched ADDR", where its copy
 * is; the program prints "done" and exits.  -i loads libwptls-ie.so,
 * the same library built for the initial-exec TLS model: glibc places
 * it in static TLS, where every thread has its copy from the start.
 */
#include <sys/syscall.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "wpt.h"

static volatile long *(*addr_of)(void);
static void (*write_n)(long);
static pthread_barrier_t ready, go;
static long n = 10;

struct who {
	long		 tid;
	unsigned long	 dtls;
	int		 touch;
};

static void *
worker(void *arg)
{
	struct who *w = arg;

	w->tid = (long)syscall(SYS_gettid);
	if (w->touch)
		w->dtls = WPT_ADDR(addr_of());
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	if (w->touch)
		write_n(n);
	else {
		printf("untouched 0x%lx\n", WPT_ADDR(addr_of()));
		fflush(stdout);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	char lib[PATH_MAX];
	struct who who[2] = { { 0, 0, 1 }, { 0, 0, 0 } };
	pthread_t th[2];
	ssize_t len;
	char *slash;
	void *h, *gone;
	const char *name = "libwptls.so";
	int opt, i;

	while ((opt = getopt(argc, argv, "in:")) != -1)
		switch (opt) {
		case 'i': name = "libwptls-ie.so"; break;
		case 'n': n = atol(optarg); break;
		default: return 64;
		}
	if ((len = readlink("/proc/self/exe", lib, sizeof lib - 16)) <= 0)
		return 1;
	lib[len] = '\0';
	if ((slash = strrchr(lib, '/')) == NULL)
		return 1;
	strcpy(slash + 1, "libwptls2.so");
	if ((gone = dlopen(lib, RTLD_NOW)) == NULL) {
		fprintf(stderr, "dl-tls: %s\n", dlerror());
		return 1;
	}
	strcpy(slash + 1, name);
	if ((h = dlopen(lib, RTLD_NOW)) == NULL) {
		fprintf(stderr, "dl-tls: %s\n", dlerror());
		return 1;
	}
	dlclose(gone);
	*(void **)&addr_of = dlsym(h, "wpt_dtls_addr");
	*(void **)&write_n = dlsym(h, "wpt_dtls_write");
	if (addr_of == NULL || write_n == NULL)
		return 1;
	wpt_block_go();
	pthread_barrier_init(&ready, NULL, 3);
	pthread_barrier_init(&go, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, &who[i]);
	pthread_barrier_wait(&ready);
	printf("{\"pid\":%d,\"lib\":\"%s\",\"touched\":{\"tid\":%ld,"
	    "\"dtls\":\"0x%lx\"},\"untouched\":{\"tid\":%ld}}\n",
	    (int)getpid(), lib, who[0].tid, who[0].dtls, who[1].tid);
	fflush(stdout);
	wpt_wait_go();
	pthread_barrier_wait(&go);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("done\n");
	return 0;
}
