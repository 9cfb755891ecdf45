/* IACP -> FIPA -> IACP and IACP -> string form -> IACP, fed as sequences (the conversion follows
 * conversations): every valid IACP message comes back equal (fuzz.h, fuzz_round_trip). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    fuzz_round_trip(data, size, PROTO_IACP, FUZZ_FIPA, FUZZ_IACP);
    fuzz_round_trip(data, size, PROTO_IACP, FUZZ_FIPA_ACL, FUZZ_IACP);
    return 0;
}
