/*
 * A library with a thread-local variable, for dl-tls to load with
 * dlopen: its TLS block is dynamic, allocated per thread at its first
 * access.
 */
__thread volatile long wpt_dtls;

volatile long *
wpt_dtls_addr(void)
{
	return &wpt_dtls;
}

__attribute__((noinline)) void
wpt_dtls_write(long n)
{
	long i;

	for (i = 1; i <= n; i++)
		wpt_dtls = i;
}
