/* gen-fipa: writes a deterministic FIPA ACL capture (Caxton JSON) of many interleaved, correct
 * conversations, for benchmarks of the stream checks. Usage: gen-fipa [MESSAGES [OPEN [SEED [ms]]]]
 * OPEN conversations run at once (default 1000); each follows one protocol script (request with
 * and without agree, query, three-party contract net, subscribe then cancel, propose with a
 * counter-proposal) and is replaced by a new one when it ends. `make bench` builds it into
 * build/gen-fipa and measures acp-validate on a million of its messages.
 * With "ms", timestamps are to the millisecond (as JADE's agents stamp them), so that the
 * latencies and durations of the summaries are reals. Every message is correct: the only findings
 * are fipa-open-at-end for the conversations still running when the capture stops. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { INITIATOR = 0, EVERYONE = -1, PARTICIPANTS = 3 };

struct step {
    const char *act;
    int from; /* 0: the initiator; 1..3: a participant */
    int to;   /* likewise, or EVERYONE: all participants */
};

struct script {
    const char *protocol;
    const struct step *steps;
    size_t nsteps;
};

static const struct step request_steps[] = {{"request", 0, 1}, {"agree", 1, 0}, {"inform", 1, 0}};
static const struct step request_direct_steps[] = {{"request", 0, 1}, {"inform", 1, 0}};
static const struct step query_steps[] = {{"query_ref", 0, 1}, {"inform", 1, 0}};
static const struct step contract_net_steps[] = {
    {"cfp", 0, EVERYONE},      {"propose", 1, 0},         {"refuse", 2, 0}, {"propose", 3, 0},
    {"accept_proposal", 0, 1}, {"reject_proposal", 0, 3}, {"inform", 1, 0}};
static const struct step subscribe_steps[] = {
    {"subscribe", 0, 1}, {"agree", 1, 0},  {"inform", 1, 0}, {"inform", 1, 0},
    {"inform", 1, 0},    {"cancel", 0, 1}, {"inform", 1, 0}};
static const struct step propose_steps[] = {
    {"propose", 0, 1}, {"counter_propose", 1, 0}, {"accept_proposal", 0, 1}};

#define SCRIPT(protocol, steps)                                                                    \
    {                                                                                              \
        protocol, steps, sizeof steps / sizeof *steps                                              \
    }
static const struct script scripts[] = {
    SCRIPT("fipa-request", request_steps),     SCRIPT("fipa-request", request_direct_steps),
    SCRIPT("fipa-query", query_steps),         SCRIPT("fipa-contract-net", contract_net_steps),
    SCRIPT("fipa-subscribe", subscribe_steps), SCRIPT("fipa-propose", propose_steps),
};
enum { NSCRIPTS = sizeof scripts / sizeof *scripts };

struct slot {
    const struct script *script;
    size_t next;             /* the step to write next */
    unsigned long id;        /* conversation number */
    unsigned long agents[4]; /* initiator and participants */
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

static const time_t START = 1705314900; /* 2024-01-15T10:35:00Z */
enum { MESSAGES_PER_SECOND = 200, AGENTS = 5000 };

static void start(struct slot *s, unsigned long *conversations)
{
    s->script = &scripts[next_random() % NSCRIPTS];
    s->next = 0;
    s->id = (*conversations)++;
    /* Four distinct agents: a conversation with itself is another matter. */
    for (int i = 0; i <= PARTICIPANTS; i++) {
        bool taken;
        do {
            s->agents[i] = (unsigned long)(next_random() % AGENTS);
            taken = false;
            for (int j = 0; j < i; j++)
                taken = taken || s->agents[j] == s->agents[i];
        } while (taken);
    }
}

static void write_step(const struct slot *s, unsigned long count, bool millis)
{
    const struct step *st = &s->script->steps[s->next];
    char stamp[32];
    time_t t = START + (time_t)(count / MESSAGES_PER_SECOND);
    struct tm tm;
    gmtime_r(&t, &tm);
    size_t len = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    if (millis)
        snprintf(stamp + len, sizeof stamp - len, ".%03luZ",
                 count % MESSAGES_PER_SECOND * (1000 / MESSAGES_PER_SECOND));
    else
        snprintf(stamp + len, sizeof stamp - len, "Z");
    printf("{\"performative\":\"%s\",\"sender\":\"agent-%lu\",\"receiver\":", st->act,
           s->agents[st->from]);
    if (st->to == EVERYONE)
        printf("[\"agent-%lu\",\"agent-%lu\",\"agent-%lu\"]", s->agents[1], s->agents[2],
               s->agents[3]);
    else
        printf("\"agent-%lu\"", s->agents[st->to]);
    printf(",\"content\":{\"n\":%lu},\"conversation_id\":\"conv-%lu\",\"protocol\":\"%s\"", count,
           s->id, s->script->protocol);
    /* A cancel carries a reply_with of its own, which its answer names: a cancel nothing can
     * name leaves the subscription open until it is handed over (acp(7)). */
    bool cancel = strcmp(st->act, "cancel") == 0;
    bool answers_cancel = s->next > 0 && strcmp(s->script->steps[s->next - 1].act, "cancel") == 0;
    if (s->next == 0)
        printf(",\"reply_with\":\"open-%lu\",\"reply_by\":\"2100-01-01T00:00:00Z\"", s->id);
    else
        printf(",\"in_reply_to\":\"%s-%lu\"", answers_cancel ? "cancel" : "open", s->id);
    if (cancel)
        printf(",\"reply_with\":\"cancel-%lu\"", s->id);
    printf(",\"timestamp\":\"%s\"}\n", stamp);
}

int main(int argc, char **argv)
{
    unsigned long messages = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    unsigned long nopen = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 10) | 1 : 88172645463325252ULL;
    bool millis = argc > 4 && strcmp(argv[4], "ms") == 0;
    if (nopen == 0 || nopen > 1000000)
        return 2;
    struct slot *slots = calloc(nopen, sizeof *slots);
    if (!slots)
        return 2;
    unsigned long conversations = 0;
    for (unsigned long i = 0; i < nopen; i++)
        start(&slots[i], &conversations);
    for (unsigned long count = 0; count < messages; count++) {
        struct slot *s = &slots[next_random() % nopen];
        write_step(s, count, millis);
        if (++s->next == s->script->nsteps)
            start(s, &conversations);
    }
    free(slots);
    if (fflush(stdout) != 0 || ferror(stdout))
        return 1;
    return 0;
}
