/* What opening.c asks of a dialect that opens a session (opening_mcp.c), its table defined at the
 * end of its file. Private to the opening files. */
#ifndef ACP_OPENING_RULES_H
#define ACP_OPENING_RULES_H

#include "base/util.h"
#include "live/opening.h"

struct opening_rules;

/* The part every dialect's opening starts with (the first member of its own). */
struct opening {
    const struct opening_rules *rules;
    enum opening_state state;
    struct strbuf why;
};

struct opening_rules {
    enum protocol proto;
    struct opening *(*new)(const struct opening_config *cfg);
    void (*free)(struct opening *o);
    json_t *(*next)(struct opening *o);
    bool (*take)(struct opening *o, const json_t *msg);
    void (*expire)(struct opening *o);
    const char *(*revision)(const struct opening *o);
    void (*complete)(const struct opening *o, json_t *msg);
    json_t *(*respond)(const struct opening *o, const json_t *msg);
};

extern const struct opening_rules mcp_opening_rules;

#endif
