/*
 * A library with thread-local storage that dl-tls loads and unloads:
 * it leaves a gap in the TLS ids, so that a later module's id is not its
 * place among the modules with TLS.
 */
__thread volatile long wpt_dtls_gone;

long
wpt_dtls_gone_get(void)
{
	return wpt_dtls_gone;
}
