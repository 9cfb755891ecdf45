/* IACP 1.1, the message contract of the ANTFARM colony: kinds, directions and the checks a
 * single message must pass. */
#ifndef ACP_IACP_H
#define ACP_IACP_H

#include "proto/message.h"

enum iacp_kind {
    IACP_TASK_ASSIGN,
    IACP_TASK_ACCEPT,
    IACP_TASK_REJECT,
    IACP_TASK_RESULT,
    IACP_TASK_CANCEL,
    IACP_HB,
    IACP_MEM_SYNC,
    IACP_TOOL_QUERY,
    IACP_TOOL_REPLY,
    IACP_CTL_DRAIN,
    IACP_CTL_HALT,
    IACP_FIPA,    /* fipa.<act>, as acp-convert writes FIPA messages into IACP */
    IACP_DOTTED,  /* another dotted kind: an extension this tool does not know */
    IACP_INVALID, /* not a kind at all */
};

enum iacp_version { IACP_V1_0, IACP_V1_1, IACP_V2_0, IACP_V_OTHER };

/* ts is unix seconds. Above UNIX_MILLISECONDS_ABOVE (base/timeutil.h) it is taken for
 * milliseconds (a warning, and message time divides it by 1000); above UNIX_NO_TIME_ABOVE it is
 * neither (an error). */

struct iacp_rules {
    const char *queen; /* the queen's name: "queen" unless --queen says otherwise */
};

enum iacp_kind iacp_kind_parse(const char *kind);
const char *iacp_kind_name(enum iacp_kind kind);
enum iacp_version iacp_version_parse(const char *v);

/* Reports every per-message finding for an IACP message. */
void iacp_check(const struct message *m, const struct iacp_rules *rules, struct diag_sink *sink);

#endif
