/* gen-mixed: writes a deterministic capture of awkward messages for the round-trip property tests
 * of acp-convert. Usage: gen-mixed iacp|fipa [MESSAGES [SEED]]
 * iacp: every IACP kind (and an unknown dotted one), bodies absent, empty, odd or clashing with a
 * ctl action, ref chains, fractional ts, extra members. fipa: every act in every spelling,
 * agent-identifier objects with addresses and resolvers, receiver sets, content that is not an
 * object, optional members absent or null, user parameters. Strings carry quotes, backslashes
 * (also before a quote and at the end), newlines, tabs, "(" at a line start and non-ASCII text. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

static unsigned pick(uint64_t *rng, unsigned n)
{
    return (unsigned)(next_random(rng) >> 33) % n;
}

/* JSON string literals (already escaped) that every converter must carry unchanged. */
static const char *const odd_strings[] = {
    "\"plain\"",
    "\"with \\\"quotes\\\" inside\"",
    "\"back\\\\slash\"",
    "\"ends in a backslash\\\\\"",
    "\"backslash before quote \\\\\\\" here\"",
    "\"two\\nlines\\n(inform :sender x)\"",
    "\"tab\\there\"",
    "\"caf\\u00e9 \\u65e5\\u672c \\ud83d\\udc1c\"",
    "\"\"",
    "\"#3\\\"abc\"",
    "\"(unbalanced\"",
    "\"semi; colon: 12:00\"",
};
enum { ODD = sizeof odd_strings / sizeof *odd_strings };

static const char *odd(uint64_t *rng)
{
    return odd_strings[pick(rng, ODD)];
}

static const char *const kinds[] = {"task.assign", "task.accept", "task.reject", "task.result",
                                    "task.cancel", "hb",          "mem.sync",    "tool.query",
                                    "tool.reply",  "ctl.drain",   "ctl.halt",    "x.custom"};
enum { KINDS = sizeof kinds / sizeof *kinds };

static void iacp_body(uint64_t *rng, const char *kind)
{
    unsigned shape = pick(rng, 8);
    if (shape == 0)
        return; /* no body */
    if (shape == 1) {
        printf(",\"body\":{}");
        return;
    }
    if (strncmp(kind, "ctl.", 4) == 0 && shape == 2) {
        printf(",\"body\":{\"action\":%s,\"grace\":5}", odd(rng));
        return;
    }
    if (strcmp(kind, "task.result") == 0) {
        static const char *const statuses[] = {"\"ok\"", "\"error\"", "\"timeout\"", "null"};
        printf(",\"body\":{\"status\":%s,\"partial\":%s,\"note\":%s}", statuses[pick(rng, 4)],
               pick(rng, 2) ? "true" : "false", odd(rng));
        return;
    }
    if (strcmp(kind, "task.assign") == 0) {
        printf(",\"body\":{\"node\":%s,\"deadline\":%d}", odd(rng),
               1312284400 + (int)pick(rng, 999));
        return;
    }
    printf(",\"body\":{\"text\":%s,\"n\":%u,\"x\":1.5,\"list\":[%s,null,true],\"deep\":{\"k\":%s}}",
           odd(rng), pick(rng, 1000), odd(rng), odd(rng));
}

static void gen_iacp(uint64_t *rng, unsigned long count)
{
    for (unsigned long i = 0; i < count; i++) {
        const char *kind = kinds[i % KINDS];
        bool from_queen = pick(rng, 2);
        printf("{\"v\":\"1.1\",\"id\":\"%s-%04lx\",\"from\":\"%s\",\"to\":\"%s\",\"kind\":\"%s\"",
               from_queen ? "q" : "m", i, from_queen ? "queen" : "forager-07",
               from_queen ? "forager-07" : "queen", kind);
        if (i > 0 && pick(rng, 3))
            printf(",\"ref\":\"%s-%04lx\"", pick(rng, 2) ? "q" : "m",
                   i - 1 - pick(rng, i < 5 ? (unsigned)i : 5));
        if (pick(rng, 6) == 0)
            printf(",\"ts\":%lu.5", 1312284100 + i);
        else
            printf(",\"ts\":%lu", 1312284100 + i);
        iacp_body(rng, kind);
        if (pick(rng, 4) == 0)
            printf(",\"trace\":{\"span\":%s}", odd(rng));
        if (pick(rng, 8) == 0)
            printf(",\"note\":%s", odd(rng));
        printf("}\n");
    }
}

static const char *const acts[] = {
    "accept_proposal",  "agree",     "cancel",          "cfp",       "confirm",
    "disconfirm",       "failure",   "inform",          "inform_if", "inform_ref",
    "not_understood",   "propagate", "propose",         "proxy",     "query_if",
    "query_ref",        "refuse",    "reject_proposal", "request",   "request_when",
    "request_whenever", "subscribe", "counter_propose"};
enum { ACTS = sizeof acts / sizeof *acts };

/* The act in snake, kebab, UPPER or PascalCase spelling. */
static void print_act(uint64_t *rng, const char *snake)
{
    unsigned style = pick(rng, 4);
    bool up = true;
    putchar('"');
    for (const char *c = snake; *c; c++) {
        if (*c == '_') {
            if (style == 1)
                putchar('-');
            else if (style != 3)
                putchar('_');
            up = true;
            continue;
        }
        if (style == 2 || (style == 3 && up))
            putchar(*c - 'a' + 'A');
        else
            putchar(*c);
        up = false;
    }
    putchar('"');
}

static void print_agent(uint64_t *rng, const char *name)
{
    switch (pick(rng, 4)) {
    case 0:
        printf("{\"name\":\"%s@host:1099/JADE\",\"addresses\":[\"http://host:7778/acc\"]}", name);
        break;
    case 1:
        printf("{\"name\":\"%s\",\"addresses\":[],\"resolvers\":[{\"name\":\"df\",\"addresses\":"
               "[\"iiop://h/df\"]}]}",
               name);
        break;
    case 2:
        printf("\"%s \\\"the %s\\\"\"", name, name);
        break;
    default:
        printf("\"%s\"", name);
        break;
    }
}

static void print_content(uint64_t *rng)
{
    switch (pick(rng, 8)) {
    case 0:
        printf(",\"content\":%s", odd(rng));
        break;
    case 1:
        printf(",\"content\":42");
        break;
    case 2:
        printf(",\"content\":[1,%s]", odd(rng));
        break;
    case 3:
        printf(",\"content\":null");
        break;
    case 4:
        break; /* none */
    case 5:
        printf(",\"content\":{}");
        break;
    default:
        printf(",\"content\":{\"action\":%s,\"size\":1024}", odd(rng));
        break;
    }
}

static void gen_fipa(uint64_t *rng, unsigned long count)
{
    for (unsigned long i = 0; i < count; i++) {
        printf("{\"performative\":");
        print_act(rng, acts[i % ACTS]);
        printf(",\"sender\":");
        print_agent(rng, "alice");
        printf(",\"receiver\":");
        unsigned receivers = pick(rng, 4);
        if (receivers == 0) {
            print_agent(rng, "bob");
        } else {
            putchar('[');
            for (unsigned r = 0; r < receivers; r++) {
                if (r)
                    putchar(',');
                print_agent(rng, r == 0 ? "bob" : r == 1 ? "carol" : "dave");
            }
            putchar(']');
        }
        print_content(rng);
        if (pick(rng, 4))
            printf(",\"reply_with\":\"msg-%03lu\"", i);
        unsigned irt = pick(rng, 3);
        if (irt == 0 && i > 0)
            printf(",\"in_reply_to\":\"msg-%03lu\"", i - 1);
        else if (irt == 1)
            printf(",\"in_reply_to\":null");
        if (pick(rng, 2))
            printf(",\"conversation_id\":\"conv-%lu\"", i / 4);
        static const char *const languages[] = {NULL, "json", "fipa-sl", "JSON"};
        const char *language = languages[pick(rng, 4)];
        if (language)
            printf(",\"language\":\"%s\"", language);
        if (pick(rng, 2))
            printf(",\"ontology\":%s", odd(rng));
        if (pick(rng, 2))
            printf(",\"protocol\":\"fipa-request\"");
        if (pick(rng, 2))
            printf(",\"reply_by\":\"2024-01-15T10:35:0%uZ\"", pick(rng, 10));
        else if (pick(rng, 2))
            printf(",\"reply_by\":\"2024-01-15T10:35:00.250Z\"");
        unsigned ts = pick(rng, 3);
        if (ts == 0)
            printf(",\"timestamp\":\"2024-01-15T10:%02u:00Z\"", pick(rng, 60));
        else if (ts == 1)
            printf(",\"timestamp\":%lu", 1705314900 + i);
        if (pick(rng, 3) == 0)
            printf(",\"X-priority\":\"high\"");
        if (pick(rng, 4) == 0)
            printf(",\"trace_context\":{\"id\":%s,\"hops\":[1,2]}", odd(rng));
        if (pick(rng, 5) == 0)
            printf(",\"reply_to\":[{\"name\":\"eve\",\"addresses\":[\"http://e/acc\"]}]");
        printf("}\n");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "iacp") != 0 && strcmp(argv[1], "fipa") != 0)) {
        fprintf(stderr, "usage: gen-mixed iacp|fipa [MESSAGES [SEED]]\n");
        return 2;
    }
    unsigned long count = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
    uint64_t rng = argc > 3 ? strtoull(argv[3], NULL, 10) * 2 + 1 : 88172645463325252ULL;
    if (strcmp(argv[1], "iacp") == 0)
        gen_iacp(&rng, count);
    else
        gen_fipa(&rng, count);
    return fflush(stdout) == 0 ? 0 : 1;
}
