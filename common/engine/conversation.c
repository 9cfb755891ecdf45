#include "engine/conversation.h"

#include <stdint.h>

const char ENGINE_ELSEWHERE[] = "(another shard)";

void engine_config_defaults(struct engine_config *cfg)
{
    *cfg = (struct engine_config){
        .queen = "queen",
        .assign_timeout = 300,
        .max_skew = 2,
        .linger = 2,
        .clock_skew = 30,
        .idle_timeout = 3600,
        .request_timeout = 60, /* the MCP SDKs' own default */
        .heartbeat_period = 10,
        .max_open = 100000,
    };
}

unsigned long engine_shard_of(const char *key, unsigned long shards)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * UINT64_C(1099511628211);
    return (unsigned long)(h % shards) + 1;
}
