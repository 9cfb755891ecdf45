/* replay-units: exact checks of acp-replay's arithmetic, with no clock involved: the schedule
 * (anchor, speed, rate, max-gap, loops, slots), the lateness histogram, and the id rewriting.
 * Prints one line per failed check and "N checks, N failed"; exit 1 when any failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "proto/idrewrite.h"
#include "proto/schedule.h"

static int checks, failed;

static void check(bool ok, const char *what, double got, double want)
{
    checks++;
    if (!ok) {
        failed++;
        printf("FAIL %s: got %.9g, want %.9g\n", what, got, want);
    }
}

static void near(double got, double want, const char *what)
{
    check(fabs(got - want) < 1e-9, what, got, want);
}

static void schedules(void)
{
    struct schedule s;
    /* speed 2, anchored at 10: a skewed message is due in the past, the others never move */
    schedule_init(&s, &(struct schedule_config){.pace = PACE_SPEED, .speed = 2});
    near(schedule_due(&s, 100, 0, 10), 10, "speed 2, first");
    near(schedule_due(&s, 101, 0, 99), 10.5, "speed 2, second (late call)");
    near(schedule_due(&s, 99, 0, 99), 9.5, "speed 2, skewed");
    near(schedule_due(&s, 103, 0, 99), 11.5, "speed 2, after the skew");

    /* max-gap 1 cuts each longer gap to 1 s, exactly */
    schedule_init(&s, &(struct schedule_config){.pace = PACE_SPEED, .speed = 1, .max_gap = 1});
    near(schedule_due(&s, 100, 0, 0), 0, "max-gap, first");
    near(schedule_due(&s, 200, 0, 0), 1, "max-gap, 100 s gap");
    near(schedule_due(&s, 200.5, 0, 0), 1.5, "max-gap, short gap kept");
    near(schedule_due(&s, 1e9, 0, 0), 2.5, "max-gap, huge gap");

    /* loops follow each other: the next starts where the last slot ended */
    schedule_init(&s, &(struct schedule_config){.pace = PACE_SPEED, .speed = 1});
    near(schedule_due(&s, 100, 0.5, 0), 0, "loop 1, spread first");
    near(schedule_due(&s, 100.5, 0.5, 0), 0.5, "loop 1, spread second");
    schedule_next_loop(&s);
    near(schedule_due(&s, 100, 0.5, 0), 1, "loop 2, first");
    near(schedule_due(&s, 100.5, 0.5, 0), 1.5, "loop 2, second");
    schedule_next_loop(&s);
    near(schedule_due(&s, 100, 0, 0), 2, "loop 3, first");

    /* the last message of 10,000 loops of a 1 s capture at speed 0.5 is due exactly 20,000 s
     * in: nothing adds up */
    schedule_init(&s, &(struct schedule_config){.pace = PACE_SPEED, .speed = 0.5});
    double due = 0;
    for (int loop = 0; loop < 10000; loop++) {
        schedule_due(&s, 5, 0, 0);
        due = schedule_due(&s, 6, 0, 0);
        schedule_next_loop(&s);
    }
    near(due, 20000, "10,000 loops at speed 0.5");

    /* --start: the origin may come before the first message sent */
    schedule_init(&s, &(struct schedule_config){.pace = PACE_SPEED, .speed = 1});
    schedule_set_origin(&s, 150);
    near(schedule_due(&s, 151, 0, 3), 4, "origin set by --start");

    /* rate and topspeed ignore the times */
    schedule_init(&s, &(struct schedule_config){.pace = PACE_RATE, .rate = 4});
    near(schedule_due(&s, 100, 0, 7), 7, "rate, first");
    near(schedule_due(&s, 0, 0, 7), 7.25, "rate, second");
    schedule_next_loop(&s);
    near(schedule_due(&s, 50, 0, 9), 7.5, "rate, across a loop");
    schedule_init(&s, &(struct schedule_config){.pace = PACE_TOPSPEED});
    near(schedule_due(&s, 100, 0, 3), 3, "topspeed");
    near(schedule_due(&s, 200, 0, 4), 4, "topspeed, later");
}

/* Both readings of a message's time, from its tree and from its view, are t (NAN: none). */
static void time_both_ways(json_t *root, enum protocol proto, double want, const char *what)
{
        double t = NAN, v = NAN;
    bool whole, view_whole;
    bool has = schedule_message_time(root, proto, &t, &whole);
    struct message m;
    message_init(&m, NULL, json_incref(root), proto == PROTO_FIPA ? CHOOSE_FIPA : CHOOSE_IACP);
        bool view_has = schedule_view_time(&m, &v, &view_whole);
    message_clear(&m);
    check(isnan(want) ? !has && !view_has
                      : has && view_has && t == want && v == want && whole == view_whole,
          what, view_has ? v : NAN, want);
}

static void message_times(void)
{
    double t;
    bool whole;
    json_t *m = json_pack("{s:s, s:I}", "kind", "hb", "ts", (json_int_t)1312284100);
    check(schedule_message_time(m, PROTO_IACP, &t, &whole) && whole, "IACP ts", t, 1312284100);
    time_both_ways(m, PROTO_IACP, 1312284100, "IACP ts, tree and view");
    json_object_set_new(m, "ts", json_real(1312284100.25));
    check(schedule_message_time(m, PROTO_IACP, &t, &whole) && !whole && t == 1312284100.25,
          "IACP fractional ts", t, 1312284100.25);
    time_both_ways(m, PROTO_IACP, 1312284100.25, "IACP fractional ts, tree and view");
    json_object_set_new(m, "ts", json_integer(1312284100250));
    check(schedule_message_time(m, PROTO_IACP, &t, &whole) && !whole && t == 1312284100.25,
          "IACP millisecond ts", t, 1312284100.25);
    time_both_ways(m, PROTO_IACP, 1312284100.25, "IACP millisecond ts, tree and view");
    json_object_set_new(m, "ts", json_string("soon"));
    check(!schedule_message_time(m, PROTO_IACP, &t, &whole), "IACP string ts", 0, 0);
    time_both_ways(m, PROTO_IACP, NAN, "IACP string ts, tree and view");
    json_object_set_new(m, "ts", json_integer(-5));
    time_both_ways(m, PROTO_IACP, NAN, "IACP negative ts, tree and view");
    json_object_set_new(m, "ts", json_real(1e15));
    time_both_ways(m, PROTO_IACP, NAN, "IACP ts beyond the era, tree and view");
    json_decref(m);
    m = json_pack("{s:s, s:s}", "performative", "inform", "created_at", "2024-01-15T10:00:00.5Z");
    check(schedule_message_time(m, PROTO_FIPA, &t, &whole) && t == 1705312800.5, "created_at", t,
          1705312800.5);
    time_both_ways(m, PROTO_FIPA, 1705312800.5, "created_at, tree and view");
    json_object_set_new(m, "timestamp", json_string("2024-01-15T10:00:01Z"));
    check(schedule_message_time(m, PROTO_FIPA, &t, &whole) && t == 1705312801,
          "timestamp before created_at", t, 1705312801);
    time_both_ways(m, PROTO_FIPA, 1705312801, "timestamp before created_at, tree and view");
    json_decref(m);
}

static void histogram(void)
{
    static struct lateness l;
    for (int us = 1; us <= 10000; us++)
        lateness_add(&l, us / 1e6);
    double median = lateness_quantile(&l, 0.5), p99 = lateness_quantile(&l, 0.99);
    check(fabs(median - 5000e-6) <= 0.04 * 5000e-6, "median of 1..10000 us", median, 5000e-6);
    check(fabs(p99 - 9900e-6) <= 0.04 * 9900e-6, "p99 of 1..10000 us", p99, 9900e-6);
    near(l.max, 10000e-6, "max");
    near(lateness_quantile(&l, 1), 10000e-6, "q=1 is the max");
    static struct lateness empty;
    near(lateness_quantile(&empty, 0.5), 0, "empty");
    lateness_add(&empty, -1);
    lateness_add(&empty, 1e12);
    check(empty.count == 2 && empty.max == 1e12, "extremes", empty.max, 1e12);
}

static const char *rewritten(struct idrewrite *r, const char *json, const char *key, bool fresh,
                             json_t **keep)
{
    json_t *m = json_loads(json, 0, NULL);
    enum protocol proto = json_object_get(m, "performative") ? PROTO_FIPA : PROTO_IACP;
    idrewrite_message(r, m, proto, fresh);
    *keep = m;
    return json_string_value(json_object_get(m, key));
}

static void ids(void)
{
    struct idrewrite *r = idrewrite_new(42);
    json_t *a, *b, *c, *d;
    /* 100,000 distinct forager ids get distinct fresh ids, all m- and 6 hex digits */
    struct strmap *seen = strmap_new();
    int dup = 0, style = 0;
    for (int i = 0; i < 100000; i++) {
        char msg[64];
        snprintf(msg, sizeof msg, "{\"id\":\"m-%06x\"}", i);
        const char *id = rewritten(r, msg, "id", true, &a);
        dup += strmap_get(seen, id) != NULL;
        style += strlen(id) != 8 || strncmp(id, "m-", 2) != 0;
        strmap_put(seen, id, seen);
        json_decref(a);
    }
    check(dup == 0, "distinct fresh ids", dup, 0);
    check(style == 0, "m- and 6 hex digits", style, 0);
    strmap_free(seen, NULL);
    /* a recorded duplicate stays one within the window of 100,000 ids, and not beyond it */
    const char *first = rewritten(r, "{\"id\":\"m-dup001\"}", "id", true, &a);
    const char *second = rewritten(r, "{\"id\":\"m-dup001\"}", "id", true, &b);
    check(strcmp(first, second) == 0, "a duplicate stays one", 0, 0);
    json_decref(b);
    for (int i = 0; i < 100000; i++) {
        char msg[64];
        snprintf(msg, sizeof msg, "{\"id\":\"m-%06x\"}", 0x200000 + i);
        json_decref((rewritten(r, msg, "id", true, &b), b));
    }
    const char *third = rewritten(r, "{\"id\":\"m-dup001\"}", "id", true, &b);
    check(strcmp(first, third) != 0, "beyond the window, a fresh id", 0, 0);
    json_decref(a);
    json_decref(b);

    /* a reference follows the id; a forward reference gives the id its value */
    const char *assign = rewritten(r, "{\"id\":\"q-00a1\"}", "id", true, &a);
    const char *ref = rewritten(r, "{\"id\":\"m-4f91c2\",\"ref\":\"q-00a1\"}", "ref", true, &b);
    check(strcmp(assign, ref) == 0 && strncmp(assign, "q-", 2) == 0 && strlen(assign) == 10,
          "ref follows", 0, 0);
    const char *early = rewritten(r, "{\"id\":\"m-1\",\"ref\":\"q-later\"}", "ref", true, &c);
    const char *later = rewritten(r, "{\"id\":\"q-later\"}", "id", true, &d);
    check(strcmp(early, later) == 0, "forward reference", 0, 0);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(d);

    /* FIPA: other ids keep their prefix; conversation_id follows reply_with */
    const char *rw = rewritten(
        r,
        "{\"performative\":\"request\",\"reply_with\":\"msg_001\",\"conversation_id\":\"msg_001\"}",
        "reply_with", true, &a);
    check(strncmp(rw, "msg_", 4) == 0 && strlen(rw) == 16, "msg_ and 12 hex digits", 0, 0);
    check(strcmp(rw, json_string_value(json_object_get(a, "conversation_id"))) == 0,
          "conversation_id follows", 0, 0);
    json_decref(a);

    /* a new loop gives new ids; a bound id is used by references, not fresh ones */
    const char *before = idrewrite_lookup(r, "q-00a1");
    char *kept = before ? strdup(before) : NULL;
    idrewrite_forget(r);
    check(!idrewrite_lookup(r, "q-00a1"), "forgotten", 0, 0);
    const char *again = rewritten(r, "{\"id\":\"q-00a1\"}", "id", true, &a);
    check(kept && strcmp(kept, again) != 0, "a new loop, a new id", 0, 0);
    free(kept);
    json_decref(a);
    idrewrite_bind(r, "m-4f91c2", "m-a00001");
    const char *bound = rewritten(r, "{\"id\":\"q-2\",\"ref\":\"m-4f91c2\"}", "ref", false, &a);
    check(strcmp(bound, "m-a00001") == 0, "bound reference", 0, 0);
    check(strcmp(json_string_value(json_object_get(a, "id")), "q-2") == 0,
          "no fresh id without --rewrite-ids", 0, 0);
    json_decref(a);
    idrewrite_free(r);

    /* the same seed, the same ids */
    struct idrewrite *x = idrewrite_new(7), *y = idrewrite_new(7);
    const char *ix = rewritten(x, "{\"id\":\"m-000001\"}", "id", true, &a);
    const char *iy = rewritten(y, "{\"id\":\"m-000001\"}", "id", true, &b);
    check(strcmp(ix, iy) == 0, "seeded", 0, 0);
    json_decref(a);
    json_decref(b);
    idrewrite_free(x);
    idrewrite_free(y);
}

int main(void)
{
    util_set_progname("replay-units");
    schedules();
    message_times();
    histogram();
    ids();
    printf("%d checks, %d failed\n", checks, failed);
    return failed ? 1 : 0;
}
