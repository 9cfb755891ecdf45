/* dialects: every dialect of the table (proto/dialect.h) fills every hook and names every member
 * of its envelope, and the look-ups find it by its protocol and its name. Prints one line a
 * dialect ("iacp: 23 hooks"), and a line for each hole, exiting 1 when there is one.
 * Usage: dialects */
#include <stdio.h>
#include <string.h>

#include "proto/dialect.h"

static int holes;

static void need(const struct dialect *d, const char *what, bool filled)
{
    if (filled)
        return;
    printf("%s: %s missing\n", d->name ? d->name : "(no name)", what);
    holes++;
}

static bool named(const char *member)
{
    return member && *member;
}

static bool listed(const char *const *members)
{
    if (!members || !members[0])
        return false;
    for (; *members; members++)
        if (!**members)
            return false;
    return true;
}

static bool marked(const struct dialect_member *marks)
{
    if (!marks || !marks[0].name)
        return false;
    for (; marks->name; marks++)
        if (!*marks->name || strlen(marks->name) != marks->len)
            return false;
    return true;
}

/* Whether every code of codes starts with name and a '-', and is the one the table finds. */
static bool named_for(const struct diag_code *codes, const char *name)
{
    for (const struct diag_code *c = codes; c && c->code; c++)
        if (strncmp(c->code, name, strlen(name)) != 0 || c->code[strlen(name)] != '-' ||
            diag_code_find(c->code) != c)
            return false;
    return true;
}

/* position: where d's codes should be in diag_dialect_tables; moved past them. */
static void check(const struct dialect *d, size_t *position)
{
    int before = holes;
    need(d, "name", named(d->name));
    need(d, "display", named(d->display));
    need(d, "protocol", d->proto != PROTO_NONE);
    need(d, "marks", marked(d->marks));
    need(d, "id", named(d->id.name) && strlen(d->id.name) == d->id.len);
    /* a member that the dialect says its messages do not have is NULL, and named otherwise */
    need(d, "answers_member", d->answers_by_own_id ? !d->answers_member : named(d->answers_member));
    need(d, "sender_member", d->names_agents ? named(d->sender_member) : !d->sender_member);
    need(d, "receivers_member",
         d->names_agents ? named(d->receivers_member) : !d->receivers_member);
    need(d, "act_member", named(d->act_member));
    need(d, "label_id_members", listed(d->label_id_members));
    need(d, "result_act", named(d->result_act));
    need(d, "partial_result_act", named(d->partial_result_act));
    need(d, "agent_name", d->agent_name != NULL);
    need(d, "agent_name_tree", d->agent_name_tree != NULL);
    need(d, "act_name", d->act_name != NULL);
    need(d, "time", d->time != NULL);
    need(d, "time_tree", d->time_tree != NULL);
    need(d, "beyond_era", d->beyond_era != NULL);
    need(d, "set_time", d->set_time != NULL);
    need(d, "act_canonical", d->act_canonical != NULL);
    need(d, "partial", d->partial != NULL);
    need(d, "partial_tree", d->partial_tree != NULL);
    need(d, "check", d->check != NULL);
    need(d, "codes", d->codes && d->codes[0].code);
    need(d, "its codes among the run's, in the table's order",
         d->codes && diag_dialect_tables[*position] == d->codes);
    need(d, "core_name and core_codes both or neither", !d->core_name == !d->core_codes);
    if (d->core_codes)
        need(d, "its core's codes among the run's, just before its own",
             *position > 0 && diag_dialect_tables[*position - 1] == d->core_codes);
    (*position)++;
    need(d, "codes named for it", named_for(d->codes, d->name));
    need(d, "its core's codes named for its core", named_for(d->core_codes, d->core_name));
    need(d, "dialect_of finds it", dialect_of(d->proto) == d);
    need(d, "dialect_named finds it", d->name && dialect_named(d->name) == d);
    if (holes == before)
        printf("%s: 23 hooks\n", d->name);
}

int main(void)
{
    size_t n = 0, tables = 0;
    for (const struct dialect *const *d = dialects; *d; d++, n++) {
        if ((*d)->core_codes && (tables == 0 || diag_dialect_tables[tables - 1] != (*d)->core_codes))
            tables++; /* the first profile of its core: the core's codes come just before */
        check(*d, &tables);
    }
    if (diag_dialect_tables[tables]) {
        printf("a table of codes of no dialect\n");
        holes++;
    }
    if (n == 0) {
        printf("no dialect\n");
        return 1;
    }
    if (dialect_of(PROTO_NONE)) {
        printf("a dialect for PROTO_NONE\n");
        holes++;
    }
    return holes ? 1 : 0;
}
