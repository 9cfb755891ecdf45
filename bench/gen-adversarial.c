/* gen-adversarial: writes a capture built to make the stream checks hold as much state as they
 * can, for `make bench` to measure their peak memory: IACP 1.1, or FIPA for fipa-open.
 * Usage: gen-adversarial frozen|agents|open|queries|fipa-open|long-ids|fipa-long-ids|long-names|
 *        fipa-long-names [MESSAGES]
 *   frozen   a busy colony (assign, accept, result, heartbeats) whose ts never moves: nothing
 *            expires by time, so ids and tombstones are bounded by count only;
 *   agents   every message is the first heartbeat of a new agent, 1000 a second of message time;
 *   open     task.assign messages that nobody answers, 1000 a second, each of a new node to a new
 *            forager: every conversation stays open, holding its forager, until --max-open
 *            evicts it;
 *   queries  the same with tool.query messages, each from a new agent to a new one;
 *   fipa-open  FIPA requests that nobody answers, 1000 a second, each opening a conversation
 *            of its own between two new agents: every conversation stays open until --max-open
 *            evicts it, and every sender is new to the stream clock;
 *   long-ids heartbeats of 64 foragers at one ts, each with an id of 1,000,000 bytes that
 *            differs from the others in its last 8 only: ids are remembered by count only, and
 *            each would hold a megabyte if kept whole;
 *   fipa-long-ids  FIPA requests that nobody answers, from 64 agents at one timestamp, each with
 *            a reply_with of 1,000,000 bytes alike but for its last 8: each conversation is
 *            keyed by its chain, and stays open until --max-open evicts it;
 *   long-names  IACP at one ts: a heartbeat from a forager whose name is 480,000 bytes, then an
 *            assign to it of a body.node of as many, each alike but for its last 8: every
 *            forager holds a task that stays open, with its name and node;
 *   fipa-long-names  FIPA requests nobody answers, at one timestamp, from an agent of a name of
 *            480,000 bytes to another one, alike but for their last 8: every conversation stays
 *            open, with its two parties.
 * Every message is valid on its own (MESSAGES defaults to a million, for the long kinds to
 * 1,000). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long long START = 1312284100;
enum { PER_SECOND = 1000, FORAGERS = 64 };

static void envelope(const char *id, const char *from, const char *to, const char *kind,
                     long long ts)
{
    printf("{\"v\":\"1.1\",\"id\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"kind\":\"%s\",\"ts\":%lld",
           id, from, to, kind, ts);
}

/* Queen and foragers at one ts: assign, accept, final result, and a heartbeat now and then. */
static void frozen(unsigned long messages)
{
    unsigned long task = 0, next_id[FORAGERS] = {0};
    char id[32], forager[32];
    for (unsigned long n = 0; n < messages; task++) {
        unsigned long f = task % FORAGERS;
        snprintf(forager, sizeof forager, "forager-%02lu", f);
        snprintf(id, sizeof id, "q-%06lx", task);
        envelope(id, "queen", forager, "task.assign", START);
        printf(",\"body\":{\"node\":\"tg:frozen/%lu\"}}\n", task);
        const char *replies[] = {"task.accept", "task.result", "hb"};
        for (int r = 0; r < 3 && ++n < messages; r++) {
            snprintf(id, sizeof id, "m-%06lx", next_id[f]++ & 0xffffff);
            if (r == 2) {
                envelope(id, forager, "queen", "hb", START);
                printf(",\"body\":{\"slots\":1}}\n");
                continue;
            }
            envelope(id, forager, "queen", replies[r], START);
            printf(",\"ref\":\"q-%06lx\"%s}\n", task,
                   r == 1 ? ",\"body\":{\"status\":\"ok\"}" : "");
        }
        n++;
    }
}

static void agents(unsigned long messages)
{
    char name[32];
    for (unsigned long n = 0; n < messages; n++) {
        snprintf(name, sizeof name, "agent-%07lu", n);
        envelope("m-000001", name, "queen", "hb", START + (long long)(n / PER_SECOND));
        printf(",\"body\":{\"slots\":1}}\n");
    }
}

static void open_assigns(unsigned long messages)
{
    char id[32], forager[32];
    for (unsigned long n = 0; n < messages; n++) {
        snprintf(id, sizeof id, "q-%06lx", n);
        snprintf(forager, sizeof forager, "forager-%07lu", n);
        envelope(id, "queen", forager, "task.assign", START + (long long)(n / PER_SECOND));
        printf(",\"body\":{\"node\":\"tg:open/%lu\"}}\n", n);
    }
}

static void open_queries(unsigned long messages)
{
    char from[32], to[32];
    for (unsigned long n = 0; n < messages; n++) {
        snprintf(from, sizeof from, "forager-%07lu", n);
        snprintf(to, sizeof to, "registry-%07lu", n);
        envelope("m-000001", from, to, "tool.query", START + (long long)(n / PER_SECOND));
        printf("}\n");
    }
}

static void fipa_open(unsigned long messages)
{
    for (unsigned long n = 0; n < messages; n++)
        printf("{\"performative\":\"request\",\"sender\":\"agent-%07lu\",\"receiver\":"
               "\"server-%07lu\",\"content\":{\"n\":%lu},\"protocol\":\"fipa-request\","
               "\"conversation_id\":\"conv-%07lu\",\"reply_with\":\"r-%07lu\","
               "\"timestamp\":%lld}\n",
               n, n, n, n, n, START + (long long)(n / PER_SECOND));
}

enum { LONG_ID_BYTES = 1000000 };

/* IACP heartbeats, or FIPA requests (fipa), with ids of LONG_ID_BYTES. */
static void long_ids(unsigned long messages, bool fipa)
{
    static char same[LONG_ID_BYTES - 8];
    memset(same, 'x', sizeof same);
    for (unsigned long n = 0; n < messages; n++) {
        if (fipa) {
            printf("{\"performative\":\"request\",\"sender\":\"agent-%02lu\",\"receiver\":"
                   "\"server\",\"content\":{\"n\":1},\"protocol\":\"fipa-request\","
                   "\"timestamp\":%lld,\"reply_with\":\"",
                   n % FORAGERS, START);
            fwrite(same, 1, sizeof same, stdout);
            printf("%08lx\"}\n", n);
            continue;
        }
        printf("{\"v\":\"1.1\",\"id\":\"");
        fwrite(same, 1, sizeof same, stdout);
        printf("%08lx\",\"from\":\"forager-%02lu\",\"to\":\"queen\",\"kind\":\"hb\","
               "\"ts\":%lld,\"body\":{\"slots\":1}}\n",
               n, n % FORAGERS, START);
    }
}

enum { LONG_NAME_BYTES = 480000 };

/* A name of LONG_NAME_BYTES: a letter, then the same bytes, then n in 8 hex digits. */
static void long_name(char letter, unsigned long n)
{
    static char same[LONG_NAME_BYTES - 9];
    memset(same, 'x', sizeof same);
    putchar(letter);
    fwrite(same, 1, sizeof same, stdout);
    printf("%08lx", n);
}

/* IACP heartbeats and assigns, or FIPA requests (fipa), of names of LONG_NAME_BYTES. */
static void long_names(unsigned long messages, bool fipa)
{
    for (unsigned long n = 0; n < messages; n++) {
        if (fipa) {
            printf("{\"performative\":\"request\",\"sender\":\"");
            long_name('a', n);
            printf("\",\"receiver\":\"");
            long_name('s', n);
            printf("\",\"content\":{\"n\":1},\"protocol\":\"fipa-request\",\"conversation_id\":"
                   "\"conv-%07lu\",\"reply_with\":\"r-1\",\"timestamp\":%lld}\n",
                   n, START);
            continue;
        }
        unsigned long forager = n / 2;
        if (n % 2 == 0) {
            printf("{\"v\":\"1.1\",\"id\":\"m-000001\",\"from\":\"");
            long_name('f', forager);
            printf("\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":%lld,\"body\":{\"slots\":1}}\n",
                   START);
            continue;
        }
        printf("{\"v\":\"1.1\",\"id\":\"q-%08lx\",\"from\":\"queen\",\"to\":\"", forager);
        long_name('f', forager);
        printf("\",\"kind\":\"task.assign\",\"ts\":%lld,\"body\":{\"node\":\"tg:", START);
        long_name('n', forager);
        printf("\"}}\n");
    }
}

int main(int argc, char **argv)
{
    static const char usage[] =
        "usage: gen-adversarial frozen|agents|open|queries|fipa-open|long-ids|fipa-long-ids|"
        "long-names|fipa-long-names [MESSAGES]\n";
    if (argc < 2 || argc > 3) {
        fputs(usage, stderr);
        return 2;
    }
    bool fipa_long = strcmp(argv[1], "fipa-long-ids") == 0;
    bool fipa_names = strcmp(argv[1], "fipa-long-names") == 0;
    bool names = fipa_names || strcmp(argv[1], "long-names") == 0;
    bool long_kind = names || fipa_long || strcmp(argv[1], "long-ids") == 0;
    unsigned long messages = argc > 2 ? strtoul(argv[2], NULL, 10) : long_kind ? 1000 : 1000000;
    if (strcmp(argv[1], "frozen") == 0)
        frozen(messages);
    else if (strcmp(argv[1], "agents") == 0)
        agents(messages);
    else if (strcmp(argv[1], "open") == 0)
        open_assigns(messages);
    else if (strcmp(argv[1], "queries") == 0)
        open_queries(messages);
    else if (strcmp(argv[1], "fipa-open") == 0)
        fipa_open(messages);
    else if (names)
        long_names(messages, fipa_names);
    else if (long_kind)
        long_ids(messages, fipa_long);
    else {
        fputs(usage, stderr);
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
