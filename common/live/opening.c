#include "live/opening.h"

#include "live/opening_rules.h"

/* The dialects that open a session. */
static const struct opening_rules *const opening_table[] = {&mcp_opening_rules};

struct opening *opening_new(enum protocol proto, const struct opening_config *cfg)
{
    for (size_t i = 0; i < sizeof opening_table / sizeof opening_table[0]; i++)
        if (opening_table[i]->proto == proto)
            return opening_table[i]->new (cfg);
    return NULL;
}

void opening_free(struct opening *o)
{
    if (!o)
        return;
    sb_free(&o->why);
    o->rules->free(o);
}

json_t *opening_next(struct opening *o)
{
    return o->state == OPENING_UNDER_WAY ? o->rules->next(o) : NULL;
}

bool opening_take(struct opening *o, const json_t *msg)
{
    return o->state == OPENING_UNDER_WAY && o->rules->take(o, msg);
}

void opening_expire(struct opening *o)
{
    if (o->state == OPENING_UNDER_WAY)
        o->rules->expire(o);
}

enum opening_state opening_state(const struct opening *o)
{
    return o->state;
}

const char *opening_why(const struct opening *o)
{
    return o->why.buf ? o->why.buf : "";
}

const char *opening_revision(const struct opening *o)
{
    return o->rules->revision(o);
}

void opening_complete(const struct opening *o, json_t *msg)
{
    if (o->state == OPENING_DONE)
        o->rules->complete(o, msg);
}

json_t *opening_respond(const struct opening *o, const json_t *msg)
{
    return o->rules->respond(o, msg);
}
