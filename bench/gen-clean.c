/* gen-clean: writes a deterministic capture in which acp-validate finds no error (warnings such
 * as iacp-mem-sync aside) and every IACP kind, or every FIPA act, occurs in a correct
 * conversation: the input of acp-convert's property "a clean stream stays clean".
 * Usage: gen-clean iacp|fipa [MESSAGES [SEED]]
 * iacp: a queen and six foragers. Assigns are accepted or rejected; an accepted task sends
 * partial results now and then before its final one (ok or an error); the queen cancels some
 * tasks, before or after the accept, and the forager answers with a cancelled result; foragers
 * ask the queen tool.query and get tool.reply; everyone beats its heart every 10 s; the queen
 * sends mem.sync now and then; at the end, once every task is over, the queen drains one
 * forager and halts another, which say nothing after that.
 * fipa: one conversation after another, each by one script (request with agree, refuse,
 * failure or not-understood; query-if and query-ref; request-when; a contract net with three
 * participants; propose with accept, reject and counter-proposal; subscribe then cancel;
 * brokering) and lone confirm, disconfirm, inform-if, inform-ref, propagate and
 * request-whenever. Participants answer with the same reply_with every time (as some platforms
 * do), and some replies carry none. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng;

static unsigned pick(unsigned n)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (unsigned)((rng * 2685821657736338717ULL) >> 33) % n;
}

/* --- IACP --- */

enum { FORAGERS = 6, HEARTBEAT = 10, TASK_LIMIT = 200 };
enum stage { IDLE, ASSIGNED, WORKING, CANCELLED, ASKING };

struct forager {
    enum stage stage;
    unsigned long next_id;
    char task[32];   /* the id of its assign (or of its tool.query while ASKING) */
    long long since; /* when the task was assigned */
    char cancel[32];
};

static const long long START = 1312284100;
static long long now;
static unsigned long queen_ids, written;

static void queen_id(char *buf, size_t size)
{
    snprintf(buf, size, "q-%04lx", queen_ids++);
}

static void forager_id(struct forager *f, char *buf, size_t size)
{
    snprintf(buf, size, "m-%06lx", f->next_id++);
}

/* One IACP line; ref and body may be NULL. */
static void iacp(const char *id, const char *from, const char *to, const char *kind,
                 const char *ref, const char *body)
{
    printf("{\"v\":\"1.1\",\"id\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"kind\":\"%s\"", id, from,
           to, kind);
    if (ref)
        printf(",\"ref\":\"%s\"", ref);
    printf(",\"ts\":%lld", now);
    if (body)
        printf(",\"body\":%s", body);
    puts("}");
    written++;
}

static void forager_says(struct forager *f, int n, const char *kind, const char *ref,
                         const char *body)
{
    char id[32], name[32];
    forager_id(f, id, sizeof id);
    snprintf(name, sizeof name, "forager-%02d", n);
    iacp(id, name, "queen", kind, ref, body);
}

static void queen_says(int n, const char *kind, const char *ref, const char *body, char *id_out)
{
    char id[32], name[32];
    queen_id(id, sizeof id);
    snprintf(name, sizeof name, "forager-%02d", n);
    iacp(id, "queen", name, kind, ref, body);
    if (id_out)
        strcpy(id_out, id);
}

static void step_forager(struct forager *f, int n, bool winding_down)
{
    char body[128];
    switch (f->stage) {
    case IDLE:
        if (winding_down)
            return;
        if (pick(3) == 0) {
            snprintf(body, sizeof body, "{\"node\":\"tg:n/%lu\",\"deadline\":%lld}", written,
                     now + 300);
            queen_says(n, "task.assign", NULL, body, f->task);
            f->since = now;
            f->stage = ASSIGNED;
        } else if (pick(12) == 0) {
            char id[32], name[32];
            forager_id(f, id, sizeof id);
            snprintf(name, sizeof name, "forager-%02d", n);
            iacp(id, name, "queen", "tool.query", NULL, "{\"tool\":\"crawler\"}");
            strcpy(f->task, id);
            f->stage = ASKING;
        }
        return;
    case ASKING:
        queen_says(n, "tool.reply", f->task, "{\"tool\":\"crawler\",\"found\":true}", NULL);
        f->stage = IDLE;
        return;
    case ASSIGNED:
        if (pick(20) == 0) {
            queen_says(n, "task.cancel", f->task, NULL, f->cancel);
            f->stage = CANCELLED;
        } else if (pick(8) == 0) {
            forager_says(f, n, "task.reject", f->task, "{\"reason\":\"busy\"}");
            f->stage = IDLE;
        } else {
            forager_says(f, n, "task.accept", f->task, NULL);
            f->stage = WORKING;
        }
        return;
    case WORKING:
        if (pick(25) == 0) {
            queen_says(n, "task.cancel", f->task, "{\"why\":\"superseded\"}", f->cancel);
            f->stage = CANCELLED;
        } else if (pick(4) == 0 || now - f->since > TASK_LIMIT) {
            forager_says(f, n, "task.result", f->task,
                         pick(6) ? "{\"status\":\"ok\",\"artifacts\":[\"cm://x\"]}"
                                 : "{\"status\":\"error\",\"error\":\"disk full\"}");
            f->stage = IDLE;
        } else if (pick(4) == 0) {
            forager_says(f, n, "task.result", f->task,
                         "{\"status\":\"ok\",\"partial\":true,\"progress\":0.5}");
        }
        return;
    case CANCELLED:
        forager_says(f, n, "task.result", f->task, "{\"status\":\"cancelled\"}");
        f->stage = IDLE;
        return;
    }
}

static bool all_idle(const struct forager *f)
{
    for (int n = 0; n < FORAGERS; n++)
        if (f[n].stage != IDLE)
            return false;
    return true;
}

static void heartbeats(struct forager *f, bool quiet_0_and_1)
{
    for (int n = 0; n < FORAGERS; n++)
        if ((now - START) % HEARTBEAT == n && !(quiet_0_and_1 && n < 2))
            forager_says(&f[n], n, "hb", NULL, "{\"slots\":1,\"load\":3}");
    if ((now - START) % HEARTBEAT == FORAGERS)
        queen_says(0, "hb", NULL, "{\"slots\":0}", NULL);
}

static void gen_iacp(unsigned long total)
{
    struct forager f[FORAGERS] = {0};
    now = START;
    while (written < total || !all_idle(f)) {
        bool winding_down = written >= total;
        heartbeats(f, false);
        for (int n = 0; n < FORAGERS; n++)
            step_forager(&f[n], n, winding_down);
        if (pick(40) == 0)
            queen_says(2, "mem.sync", NULL, "{\"keys\":[\"a\",\"b\"]}", NULL);
        now++;
    }
    queen_says(0, "ctl.drain", NULL, NULL, NULL);
    queen_says(1, "ctl.halt", NULL, "{\"reason\":\"recovery\"}", NULL);
    for (int i = 0; i < HEARTBEAT; i++, now++)
        heartbeats(f, true);
}

/* --- FIPA --- */

enum { AGENTS = 6 };

struct step {
    const char *act;
    int from, to;       /* parties of the script: 0 is the initiator; -1: participants 1..3 */
    int answers;        /* the step answered (in_reply_to), or -1 */
    bool no_reply_with; /* a reply that carries none */
};

struct script {
    const char *protocol; /* NULL: none */
    struct step steps[8];
};

#define S(act, from, to, answers)                                                                  \
    {                                                                                              \
        act, from, to, answers, false                                                              \
    }
#define BARE(act, from, to, answers)                                                               \
    {                                                                                              \
        act, from, to, answers, true                                                               \
    }
#define END                                                                                        \
    {                                                                                              \
        NULL, 0, 0, 0, false                                                                       \
    }

static const struct script scripts[] = {
    {"fipa-request", {S("request", 0, 1, -1), S("agree", 1, 0, 0), S("inform", 1, 0, 0), END}},
    {"fipa-request", {S("request", 0, 1, -1), BARE("refuse", 1, 0, 0), END}},
    {"fipa-request", {S("request", 0, 1, -1), S("agree", 1, 0, 0), S("failure", 1, 0, 0), END}},
    {"fipa-request", {S("request", 0, 1, -1), BARE("not_understood", 1, 0, 0), END}},
    {"fipa-request", {S("request", 0, 1, -1), BARE("inform", 1, 0, 0), END}},
    {"fipa-query", {S("query_if", 0, 1, -1), S("inform", 1, 0, 0), END}},
    {"fipa-query", {S("query_ref", 0, 1, -1), S("agree", 1, 0, 0), S("inform", 1, 0, 0), END}},
    {"fipa-request-when",
     {S("request_when", 0, 1, -1), S("agree", 1, 0, 0), S("inform", 1, 0, 0), END}},
    {"fipa-contract-net",
     {S("cfp", 0, -1, -1), S("propose", 1, 0, 0), S("refuse", 2, 0, 0), S("propose", 3, 0, 0),
      S("accept_proposal", 0, 1, 1), S("reject_proposal", 0, 3, 3), S("inform", 1, 0, 4), END}},
    {"fipa-propose", {S("propose", 0, 1, -1), S("accept_proposal", 1, 0, 0), END}},
    {"fipa-propose", {S("propose", 0, 1, -1), S("reject_proposal", 1, 0, 0), END}},
    {"fipa-propose",
     {S("propose", 0, 1, -1), S("counter_propose", 1, 0, 0), S("accept_proposal", 0, 1, 1), END}},
    {"fipa-subscribe",
     {S("subscribe", 0, 1, -1), S("agree", 1, 0, 0), S("inform", 1, 0, 0), S("inform", 1, 0, 0),
      S("cancel", 0, 1, 0), S("inform", 1, 0, 4), END}},
    {"fipa-brokering", {S("proxy", 0, 1, -1), S("agree", 1, 0, 0), S("inform", 1, 0, 0), END}},
    {NULL, {S("confirm", 0, 1, -1), END}},
    {NULL, {S("disconfirm", 0, 1, -1), END}},
    {NULL, {S("inform_if", 0, 1, -1), END}},
    {NULL, {S("inform_ref", 0, 1, -1), END}},
    {NULL, {S("propagate", 0, 1, -1), END}},
    {NULL, {S("request_whenever", 0, 1, -1), END}},
};
enum { SCRIPTS = sizeof scripts / sizeof *scripts };

static void timestamp(char *buf, size_t size)
{
    time_t t = (time_t)now;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void fipa_step(const struct script *s, int n, const int *party, unsigned long conv,
                      char reply_with[][32])
{
    const struct step *st = &s->steps[n];
    char when[40];
    timestamp(when, sizeof when);
    printf("{\"performative\":\"%s\",\"sender\":\"agent-%d\",\"receiver\":", st->act,
           party[st->from]);
    if (st->to < 0)
        printf("[\"agent-%d\",\"agent-%d\",\"agent-%d\"]", party[1], party[2], party[3]);
    else
        printf("\"agent-%d\"", party[st->to]);
    printf(",\"content\":{\"step\":%d}", n);
    if (s->protocol)
        printf(",\"protocol\":\"%s\"", s->protocol);
    printf(",\"conversation_id\":\"c-%lu\"", conv);
    reply_with[n][0] = '\0';
    if (!st->no_reply_with) {
        /* The initiator numbers its messages; participants always say "ack". */
        if (st->from == 0)
            snprintf(reply_with[n], 32, "c-%lu-%d", conv, n);
        else
            strcpy(reply_with[n], "ack");
        printf(",\"reply_with\":\"%s\"", reply_with[n]);
    }
    if (st->answers >= 0 && reply_with[st->answers][0])
        printf(",\"in_reply_to\":\"%s\"", reply_with[st->answers]);
    printf(",\"timestamp\":\"%s\"}\n", when);
    written++;
    now++;
}

static void gen_fipa(unsigned long total)
{
    now = 1705314900;
    for (unsigned long conv = 0; written < total || conv < SCRIPTS; conv++) {
        /* every script once first, then at random */
        const struct script *s = &scripts[conv < SCRIPTS ? conv : pick(SCRIPTS)];
        int party[4];
        int first = (int)pick(AGENTS);
        for (int i = 0; i < 4; i++)
            party[i] = (first + i) % AGENTS;
        char reply_with[8][32];
        for (int n = 0; s->steps[n].act; n++)
            fipa_step(s, n, party, conv, reply_with);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "iacp") != 0 && strcmp(argv[1], "fipa") != 0)) {
        fputs("usage: gen-clean iacp|fipa [MESSAGES [SEED]]\n", stderr);
        return 2;
    }
    unsigned long total = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
    rng = (argc > 3 ? strtoull(argv[3], NULL, 10) : 1) * 0x9E3779B97F4A7C15ULL + 1;
    if (strcmp(argv[1], "iacp") == 0)
        gen_iacp(total);
    else
        gen_fipa(total);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
