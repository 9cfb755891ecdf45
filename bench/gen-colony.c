/* gen-colony: writes a deterministic IACP 1.1 capture of a busy colony, for benchmarks and for
 * tests that need thousands of messages.
 * Usage: gen-colony [--faults=FILE] [MESSAGES [FORAGERS [SEED]]]
 * Every forager holds at most one task at a time, answers every assign with an accept (or, now
 * and then, a reject), sends partial results sometimes, and beats its heart every 10 s. Near the
 * end the queen stops assigning so that every conversation is closed by the last line.
 * With --faults, faults that the stream checks must find are injected now and then, and FILE gets
 * one line "LINE CODE" for each finding acp-validate must report (and nothing else). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum stage { IDLE, ASSIGNED, ACCEPTED, WORKING };
enum last_end { ENDED_NONE, ENDED_RESULT, ENDED_REJECT };
enum stuck { NOT_STUCK, STUCK, REISSUED };
enum { NO_TWIN = -1, TWIN_DONE = -2 };

struct forager {
    enum stage stage;
    unsigned long next_id; /* m- ids, unique per forager */
    unsigned long task;    /* the queen's id of the current assign */
    unsigned long node;    /* the task graph node */
    long long task_ts;     /* when the current assign was sent */
    long long next_heartbeat;
    long long last_said;     /* stream time of its last message */
    enum last_end last_end;  /* how its previous task ended */
    unsigned long last_task; /* and which one it was */
    bool has_extra;          /* holds an assign beyond its slot, which it rejects next */
    unsigned long extra;
    enum stuck stuck; /* sits on its assign until the queen reissues it */
    long twin;        /* the forager running the same node after a reissue */
    bool muted;       /* says nothing until its silence was noticed */
};

struct colony {
    struct forager *f;
    unsigned long nforagers;
    unsigned long total;   /* lines to write */
    unsigned long count;   /* lines written */
    long long now;         /* ts of the line being written */
    long long stream_time; /* the latest ts written */
    unsigned long queen_id, node;
    unsigned long needed; /* lines still owed to close every open assign */
    FILE *faults;         /* NULL: a clean colony */
    unsigned long fault_no;
    bool fault_due;
    long muted; /* the muted forager, or -1 */
    unsigned stuck;
    uint64_t rng;
};

static const long long START = 1312284100;
enum { MESSAGES_PER_SECOND = 40, HEARTBEAT = 10, SILENT_AFTER = 30, ASSIGN_TIMEOUT = 300 };
enum { FAULT_EVERY = 150, MAX_STUCK = 2, SKEW = 10 };

static uint64_t next_random(struct colony *c)
{
    /* xorshift64*: fast, and the same sequence on every machine. */
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return c->rng * 2685821657736338717ULL;
}

static void log_fault(struct colony *c, const char *code)
{
    if (c->faults)
        fprintf(c->faults, "%lu %s\n", c->count + 1, code);
}

static void envelope_at(struct colony *c, long long ts, const char *id_prefix, unsigned long id,
                        int id_width, const char *from, const char *to, const char *kind)
{
    printf("{\"v\":\"1.1\",\"id\":\"%s%0*lx\",\"from\":\"%s\",\"to\":\"%s\",\"kind\":\"%s\","
           "\"ts\":%lld",
           id_prefix, id_width, id, from, to, kind, ts);
    if (ts > c->stream_time)
        c->stream_time = ts;
}

static void name_of(unsigned long i, char *name, size_t size)
{
    snprintf(name, size, "forager-%02lu", i);
}

/* A message from forager i to the queen, stamped now; it counts as the forager speaking. */
static void from_forager(struct colony *c, unsigned long i, const char *kind)
{
    char name[32];
    name_of(i, name, sizeof name);
    envelope_at(c, c->now, "m-", c->f[i].next_id++, 6, name, "queen", kind);
    c->f[i].last_said = c->stream_time;
}

static void from_queen(struct colony *c, unsigned long i, unsigned long id, const char *kind)
{
    char name[32];
    name_of(i, name, sizeof name);
    envelope_at(c, c->now, "q-", id, 4, "queen", name, kind);
}

static void heartbeat(struct colony *c, unsigned long i)
{
    c->f[i].next_heartbeat = c->now + HEARTBEAT;
    from_forager(c, i, "hb");
    printf(",\"body\":{\"slots\":1,\"load\":%u}}\n", (unsigned)(next_random(c) % 100));
}

static void assign(struct colony *c, unsigned long i, unsigned long node)
{
    struct forager *w = &c->f[i];
    w->task = c->queen_id++;
    w->node = node;
    w->task_ts = c->now;
    from_queen(c, i, w->task, "task.assign");
    printf(",\"body\":{\"node\":\"tg:crawl-index/%lu\",\"deadline\":%lld}}\n", node, c->now + 600);
    w->stage = ASSIGNED;
    c->needed += 2;
}

static void reject(struct colony *c, unsigned long i, unsigned long task)
{
    from_forager(c, i, "task.reject");
    printf(",\"ref\":\"q-%04lx\",\"body\":{\"reason\":\"busy\"}}\n", task);
}

static void accept(struct colony *c, unsigned long i)
{
    struct forager *w = &c->f[i];
    if (w->stuck == REISSUED)
        log_fault(c, "iacp-late-accept");
    w->stuck = NOT_STUCK;
    from_forager(c, i, "task.accept");
    printf(",\"ref\":\"q-%04lx\"}\n", w->task);
    w->stage = ACCEPTED;
    c->needed--;
}

/* The second of two foragers that ran the same node is a duplicate execution. */
static void note_final(struct colony *c, struct forager *w)
{
    if (w->twin == TWIN_DONE)
        log_fault(c, "iacp-duplicate-execution");
    else if (w->twin >= 0)
        c->f[w->twin].twin = TWIN_DONE;
    w->twin = NO_TWIN;
}

static void result(struct colony *c, unsigned long i, bool partial)
{
    struct forager *w = &c->f[i];
    from_forager(c, i, "task.result");
    printf(",\"ref\":\"q-%04lx\",\"body\":{\"status\":\"ok\",%s\"artifacts\":"
           "[\"cm://index/%lu\"]}}\n",
           w->task, partial ? "\"partial\":true," : "", w->node);
    if (partial) {
        w->stage = WORKING;
        return;
    }
    note_final(c, w);
    w->stage = IDLE;
    w->last_end = ENDED_RESULT;
    w->last_task = w->task;
    c->needed--;
}

/* A forager holding a stuck assign that no reissue has freed yet. */
static struct forager *due_for_reissue(struct colony *c, unsigned long except)
{
    if (c->stuck == 0)
        return NULL;
    for (unsigned long j = 0; j < c->nforagers; j++) {
        struct forager *a = &c->f[j];
        if (j != except && a->stuck == STUCK && c->now - a->task_ts >= ASSIGN_TIMEOUT)
            return a;
    }
    return NULL;
}

static void assign_or_reissue(struct colony *c, unsigned long i)
{
    struct forager *stuck = due_for_reissue(c, i);
    if (!stuck) {
        assign(c, i, c->node++);
        return;
    }
    log_fault(c, "iacp-reissue");
    assign(c, i, stuck->node);
    stuck->stuck = REISSUED;
    stuck->twin = (long)i;
    c->f[i].twin = (long)(stuck - c->f);
    c->stuck--;
}

/* One ordinary move of forager i in its task's life. */
static void advance(struct colony *c, unsigned long i, bool may_reject)
{
    struct forager *w = &c->f[i];
    if (w->has_extra) {
        reject(c, i, w->extra);
        w->has_extra = false;
        c->needed--;
        return;
    }
    switch (w->stage) {
    case IDLE:
        assign_or_reissue(c, i);
        break;
    case ASSIGNED:
        if (w->stuck == STUCK) {
            heartbeat(c, i);
        } else if (may_reject && w->twin == NO_TWIN && next_random(c) % 50 == 0) {
            reject(c, i, w->task);
            w->stage = IDLE;
            w->last_end = ENDED_REJECT;
            w->last_task = w->task;
            c->needed -= 2;
        } else {
            accept(c, i);
        }
        break;
    case ACCEPTED:
    case WORKING:
        result(c, i, may_reject && w->stage == ACCEPTED && next_random(c) % 4 == 0);
        break;
    }
}

static void normal_step(struct colony *c)
{
    unsigned long i = (unsigned long)(next_random(c) % c->nforagers);
    if (c->f[i].muted)
        i = (i + 1) % c->nforagers;
    if (c->f[i].next_heartbeat <= c->now)
        heartbeat(c, i);
    else
        advance(c, i, true);
}

/* Near the end: close what is open, one move at a time. */
static void wind_down_step(struct colony *c)
{
    for (unsigned long i = 0; i < c->nforagers; i++) {
        struct forager *w = &c->f[i];
        if (w->stage == IDLE && !w->has_extra)
            continue;
        if (w->muted) {
            w->muted = false;
            c->muted = -1;
        }
        if (w->stuck == STUCK) {
            w->stuck = NOT_STUCK;
            c->stuck--;
        }
        advance(c, i, false);
        return;
    }
    heartbeat(c, (unsigned long)(next_random(c) % c->nforagers));
}

/* ---- faults ---- */

static bool plain(const struct colony *c, unsigned long i)
{
    const struct forager *w = &c->f[i];
    return !w->muted && !w->has_extra && w->stuck == NOT_STUCK && w->twin == NO_TWIN;
}

/* A forager in the given stage that no other fault involves, or -1. */
static long pick(struct colony *c, enum stage a, enum stage b)
{
    unsigned long start = (unsigned long)(next_random(c) % c->nforagers);
    for (unsigned long k = 0; k < c->nforagers; k++) {
        unsigned long i = (start + k) % c->nforagers;
        if (plain(c, i) && (c->f[i].stage == a || c->f[i].stage == b))
            return (long)i;
    }
    return -1;
}

static bool fault_orphan(struct colony *c)
{
    long i = pick(c, IDLE, ASSIGNED);
    if (i < 0)
        return false;
    log_fault(c, "iacp-orphan");
    from_forager(c, (unsigned long)i, "task.result");
    printf(",\"ref\":\"q-deadbeef%lx\",\"body\":{\"status\":\"ok\"}}\n", c->fault_no);
    return true;
}

static bool fault_duplicate_id(struct colony *c)
{
    long i = pick(c, IDLE, ACCEPTED);
    if (i < 0 || c->f[i].next_id == 0)
        return false;
    log_fault(c, "iacp-duplicate-id");
    c->f[i].next_id--;
    heartbeat(c, (unsigned long)i);
    return true;
}

static bool fault_wrong_replier(struct colony *c)
{
    long owner = pick(c, ASSIGNED, ASSIGNED);
    long other = pick(c, IDLE, WORKING);
    if (owner < 0 || other < 0)
        return false;
    log_fault(c, "iacp-wrong-replier");
    from_forager(c, (unsigned long)other, "task.accept");
    printf(",\"ref\":\"q-%04lx\"}\n", c->f[owner].task);
    return true;
}

/* An idle forager whose last task was rejected, since rejects are rare; else any idle one. */
static long pick_ended(struct colony *c)
{
    for (unsigned long i = 0; i < c->nforagers; i++)
        if (plain(c, i) && c->f[i].stage == IDLE && c->f[i].last_end == ENDED_REJECT)
            return (long)i;
    return pick(c, IDLE, IDLE);
}

static bool fault_after_end(struct colony *c)
{
    long i = pick_ended(c);
    if (i < 0 || c->f[i].last_end == ENDED_NONE)
        return false;
    struct forager *w = &c->f[i];
    log_fault(c,
              w->last_end == ENDED_REJECT ? "iacp-reply-after-reject" : "iacp-result-after-final");
    from_forager(c, (unsigned long)i, "task.result");
    printf(",\"ref\":\"q-%04lx\",\"body\":{\"status\":\"ok\"}}\n", w->last_task);
    w->last_end = ENDED_NONE;
    return true;
}

static bool fault_extra_assign(struct colony *c)
{
    long i = pick(c, ACCEPTED, WORKING);
    if (i < 0)
        return false;
    struct forager *w = &c->f[i];
    log_fault(c, "iacp-slots");
    w->extra = c->queen_id++;
    w->has_extra = true;
    from_queen(c, (unsigned long)i, w->extra, "task.assign");
    printf(",\"body\":{\"node\":\"tg:crawl-index/%lu\"}}\n", c->node++);
    c->needed++;
    return true;
}

static bool fault_skew(struct colony *c)
{
    long i = pick(c, ASSIGNED, ASSIGNED);
    if (i < 0 || c->muted >= 0)
        return false;
    struct forager *w = &c->f[i];
    char name[32];
    name_of((unsigned long)i, name, sizeof name);
    log_fault(c, "iacp-skew");
    envelope_at(c, w->task_ts - SKEW, "m-", w->next_id++, 6, name, "queen", "task.accept");
    printf(",\"ref\":\"q-%04lx\"}\n", w->task);
    w->last_said = c->stream_time;
    w->stage = ACCEPTED;
    c->needed--;
    return true;
}

/* Faults that only set a forager up; they write no line of their own. */
static void fault_stuck(struct colony *c)
{
    long i = pick(c, ASSIGNED, ASSIGNED);
    if (i >= 0 && c->stuck < MAX_STUCK) {
        c->f[i].stuck = STUCK;
        c->stuck++;
    }
}

static void fault_mute(struct colony *c)
{
    long i = pick(c, ACCEPTED, WORKING);
    /* A forager already quiet for a while may have had its silence noticed: the engine tells a
     * silence once, so a new one must start from a fresh message. */
    if (i >= 0 && c->muted < 0 && c->nforagers > 1 && c->now - c->f[i].last_said < HEARTBEAT) {
        c->f[i].muted = true;
        c->muted = i;
    }
}

/* The engine notices a silence at the first line stamped past its limit. */
static void notice_silence(struct colony *c)
{
    if (c->muted < 0)
        return;
    struct forager *w = &c->f[c->muted];
    long long time = c->now > c->stream_time ? c->now : c->stream_time;
    if (time - w->last_said > SILENT_AFTER) {
        log_fault(c, "iacp-silent");
        w->muted = false;
        c->muted = -1;
    }
}

static bool inject_fault(struct colony *c)
{
    static bool (*const writers[])(struct colony *) = {
        fault_orphan,    fault_duplicate_id, fault_wrong_replier,
        fault_after_end, fault_extra_assign, fault_skew,
    };
    enum { NWRITERS = sizeof writers / sizeof *writers };
    unsigned long k = c->fault_no++;
    if (k % 4 == 0)
        fault_stuck(c);
    if (k % 7 == 0)
        fault_mute(c);
    for (unsigned long n = 0; n < NWRITERS; n++)
        if (writers[(k + n) % NWRITERS](c))
            return true;
    return false;
}

static bool parse_args(int argc, char **argv, struct colony *c, const char **faults)
{
    int a = 1;
    *faults = NULL;
    if (argc > a && strncmp(argv[a], "--faults=", 9) == 0)
        *faults = argv[a++] + 9;
    c->total = argc > a ? strtoul(argv[a], NULL, 10) : 1000;
    c->nforagers = argc > a + 1 ? strtoul(argv[a + 1], NULL, 10) : 64;
    c->rng = argc > a + 2 ? strtoull(argv[a + 2], NULL, 10) | 1 : 88172645463325252ULL;
    return c->nforagers > 0 && c->nforagers <= 100000 && argc <= a + 3;
}

int main(int argc, char **argv)
{
    struct colony c = {.muted = -1};
    const char *faults;
    if (!parse_args(argc, argv, &c, &faults)) {
        fputs("usage: gen-colony [--faults=FILE] [MESSAGES [FORAGERS [SEED]]]\n", stderr);
        return 2;
    }
    if (faults && !(c.faults = fopen(faults, "w"))) {
        perror(faults);
        return 2;
    }
    c.f = calloc(c.nforagers, sizeof *c.f);
    if (!c.f)
        return 2;
    for (unsigned long i = 0; i < c.nforagers; i++)
        c.f[i].twin = NO_TWIN;
    for (c.count = 0; c.count < c.total; c.count++) {
        c.now = START + (long long)(c.count / MESSAGES_PER_SECOND);
        notice_silence(&c);
        if (c.count % FAULT_EVERY == FAULT_EVERY - 1)
            c.fault_due = true;
        if (c.total - c.count <= c.needed + 2)
            wind_down_step(&c);
        else if (c.faults && c.fault_due && inject_fault(&c))
            c.fault_due = false;
        else
            normal_step(&c);
    }
    free(c.f);
    bool ok = fflush(stdout) == 0;
    if (c.faults && fclose(c.faults) != 0)
        ok = false;
    return ok ? 0 : 1;
}
