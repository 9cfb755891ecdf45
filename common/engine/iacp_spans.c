#include "engine/iacp_spans.h"

#include <math.h>
#include <string.h>

const char *iacp_seconds(struct strbuf *sb, double value)
{
    sb_reset(sb);
    if (!(fabs(value) < 1e9)) {
        sb_addf(sb, "%.3g", value);
        return sb->buf;
    }
    sb_addf(sb, "%.3f", value);
    while (sb->len > 0 && sb->buf[sb->len - 1] == '0')
        sb->buf[--sb->len] = '\0';
    if (sb->len > 0 && sb->buf[sb->len - 1] == '.')
        sb->buf[--sb->len] = '\0';
    return sb->buf;
}

void iacp_report_reassign(struct diag_sink *sink, const struct diag_where *w,
                          const struct iacp_reassign *r)
{
    struct strbuf number[2] = {STRBUF_INIT, STRBUF_INIT};
    const char *waited = iacp_seconds(&number[0], r->waited);
    const char *timeout = iacp_seconds(&number[1], r->timeout);
    if (strcmp(r->prev_forager, r->forager) == 0)
        diag_emit(sink, w, "iacp-reissue-unexpected",
                  "node '%s' assigned again to '%s', whose assign '%s' of it has had no final "
                  "result for %s s; the queen reissues to a different forager",
                  r->node, r->forager, r->prev_id, waited);
    else if (r->waited < r->timeout)
        diag_emit(sink, w, "iacp-reissue-unexpected",
                  "node '%s' reissued to '%s' only %s s after assign '%s' to '%s', before the "
                  "assign timeout (%s s)",
                  r->node, r->forager, waited, r->prev_id, r->prev_forager, timeout);
    else
        diag_emit(sink, w, "iacp-reissue",
                  "node '%s' reissued to '%s': assign '%s' to '%s' has had no final result for "
                  "%s s (assign timeout %s s)",
                  r->node, r->forager, r->prev_id, r->prev_forager, waited, timeout);
    sb_free(&number[0]);
    sb_free(&number[1]);
}

void iacp_report_late_accept(struct diag_sink *sink, const struct diag_where *w,
                             const char *forager, const char *id)
{
    diag_emit(sink, w, "iacp-late-accept", "'%s' accepts '%s' after the queen reissued it", forager,
              id);
}

void iacp_report_twice(struct diag_sink *sink, const struct diag_where *w,
                       const struct iacp_twice *t)
{
    diag_emit(sink, w, "iacp-duplicate-execution",
              "node '%s' ran twice: assign '%s' (line %lu) to '%s' and assign '%s' (line %lu) "
              "both have a final task.result",
              t->node, t->id, t->line, t->forager, t->done_id, t->done_line);
}

void iacp_report_orphan(struct diag_sink *sink, const struct diag_where *w, const char *kind,
                        const char *ref, const char *owner)
{
    diag_emit(sink, w, "iacp-orphan",
              "%s with ref '%s': no message with that id from '%s' was seen", kind, ref, owner);
}

void iacp_report_wrong_replier(struct diag_sink *sink, const struct diag_where *w, const char *kind,
                               const char *from, const char *id, const char *to)
{
    diag_emit(sink, w, "iacp-wrong-replier", "%s from '%s' for '%s', which went to '%s'", kind,
              from, id, to);
}

void iacp_report_after_end(struct diag_sink *sink, const struct diag_where *w, const char *kind,
                           const char *id, bool rejected, bool task)
{
    if (rejected)
        diag_emit(sink, w, "iacp-reply-after-reject", "%s for '%s', which was rejected", kind, id);
    else
        diag_emit(sink, w, "iacp-result-after-final", "%s for '%s', which already had its final %s",
                  kind, id, task ? "task.result" : "tool.reply");
}

void iacp_report_duplicate_id(struct diag_sink *sink, const struct diag_where *w, const char *from,
                              const char *id)
{
    diag_emit(sink, w, "iacp-duplicate-id", "'%s' already sent a message with id '%s'", from, id);
}
