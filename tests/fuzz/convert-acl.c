/* FIPA -> the string form -> FIPA: every valid FIPA message comes back equal (fuzz.h,
 * fuzz_round_trip). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    fuzz_round_trip(data, size, PROTO_FIPA, FUZZ_FIPA_ACL, FUZZ_FIPA);
    return 0;
}
