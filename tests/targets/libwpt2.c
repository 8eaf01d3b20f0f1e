/* A second library that defines a symbol of the same name as libwpt. */
volatile long wpt_lib_counter;

long
wpt2_get(void)
{
	return wpt_lib_counter;
}
