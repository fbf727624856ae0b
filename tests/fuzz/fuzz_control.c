/* fuzz_control.c - libFuzzer target: any bytes as one control-socket line, through
 * control_parse. */
#include "fuzz.h"

#include "daemon/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct control_command cmd;
	char err[128];

	control_parse((const char *)data, size, &cmd, err, sizeof(err));
	return 0;
}
