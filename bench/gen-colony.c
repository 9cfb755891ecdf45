/* gen-colony: writes a deterministic IACP 1.1 capture of a busy colony, for benchmarks and for
 * tests that need thousands of correct messages. Usage: gen-colony [MESSAGES [FORAGERS [SEED]]]
 * Every forager holds at most one task at a time, answers every assign with an accept (or, now
 * and then, a reject), sends partial results sometimes, and beats its heart every 10 s. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

enum stage { IDLE, ASSIGNED, ACCEPTED, WORKING };

struct forager {
    enum stage stage;
    unsigned long next_id;   /* m- ids, unique per forager */
    unsigned long task;      /* the queen's id of the current assign */
    unsigned long node;      /* the task graph node */
    long long next_heartbeat;
};

static uint64_t rng_state;

static uint64_t next_random(void)
{
    /* xorshift64*: fast, and the same sequence on every machine. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static const long long START = 1312284100;
enum { MESSAGES_PER_SECOND = 40 };

static void envelope(unsigned long count, const char *id_prefix, unsigned long id, int id_width,
                     const char *from, const char *to, const char *kind)
{
    long long ts = START + (long long)(count / MESSAGES_PER_SECOND);
    printf("{\"v\":\"1.1\",\"id\":\"%s%0*lx\",\"from\":\"%s\",\"to\":\"%s\",\"kind\":\"%s\",\"ts\":%lld",
           id_prefix, id_width, id, from, to, kind, ts);
}

int main(int argc, char **argv)
{
    unsigned long messages = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    unsigned long nforagers = argc > 2 ? strtoul(argv[2], NULL, 10) : 64;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 10) | 1 : 88172645463325252ULL;
    if (nforagers == 0 || nforagers > 100000)
        return 2;
    struct forager *f = calloc(nforagers, sizeof *f);
    if (!f)
        return 2;
    unsigned long queen_id = 0, node = 0;
    char name[32];
    for (unsigned long count = 0; count < messages; count++) {
        long long now = START + (long long)(count / MESSAGES_PER_SECOND);
        unsigned long i = (unsigned long)(next_random() % nforagers);
        struct forager *w = &f[i];
        snprintf(name, sizeof name, "forager-%02lu", i);
        if (w->next_heartbeat <= now) {
            w->next_heartbeat = now + 10;
            envelope(count, "m-", w->next_id++, 6, name, "queen", "hb");
            printf(",\"body\":{\"slots\":1,\"load\":%u}}\n", (unsigned)(next_random() % 100));
            continue;
        }
        switch (w->stage) {
        case IDLE:
            w->task = queen_id++;
            w->node = node++;
            envelope(count, "q-", w->task, 4, "queen", name, "task.assign");
            printf(",\"body\":{\"node\":\"tg:crawl-index/%lu\",\"deadline\":%lld}}\n", w->node,
                   now + 600);
            w->stage = ASSIGNED;
            break;
        case ASSIGNED:
            if (next_random() % 50 == 0) {
                envelope(count, "m-", w->next_id++, 6, name, "queen", "task.reject");
                printf(",\"ref\":\"q-%04lx\",\"body\":{\"reason\":\"busy\"}}\n", w->task);
                w->stage = IDLE;
            } else {
                envelope(count, "m-", w->next_id++, 6, name, "queen", "task.accept");
                printf(",\"ref\":\"q-%04lx\"}\n", w->task);
                w->stage = ACCEPTED;
            }
            break;
        case ACCEPTED:
        case WORKING: {
            bool partial = w->stage == ACCEPTED && next_random() % 4 == 0;
            envelope(count, "m-", w->next_id++, 6, name, "queen", "task.result");
            printf(",\"ref\":\"q-%04lx\",\"body\":{\"status\":\"ok\",%s\"artifacts\":"
                   "[\"cm://index/%lu\"]}}\n",
                   w->task, partial ? "\"partial\":true," : "", w->node);
            w->stage = partial ? WORKING : IDLE;
            break;
        }
        }
    }
    free(f);
    return fflush(stdout) == 0 ? 0 : 1;
}
