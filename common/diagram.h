/* STUB until h7-diagram lands (its common/diagram.[ch] replace this file): the API acp-trace
 * codes against, with a minimal text rendering. To be deleted. */
#ifndef ACP_DIAGRAM_H
#define ACP_DIAGRAM_H

#include <stddef.h>

#include "util.h"

enum diagram_format { DIAGRAM_MERMAID, DIAGRAM_PLANTUML, DIAGRAM_SVG, DIAGRAM_TEXT };
enum diagram_mark { MARK_NONE, MARK_WARNING, MARK_ERROR };

struct diagram;

struct diagram *diagram_new(enum diagram_format format, const char *title);
void diagram_free(struct diagram *d);
size_t diagram_participant(struct diagram *d, const char *name);
size_t diagram_arrow(struct diagram *d, size_t from, size_t to, const char *label);
void diagram_mark(struct diagram *d, size_t n, enum diagram_mark mark, const char *diagnostic);
void diagram_note(struct diagram *d, size_t column, enum diagram_mark mark, const char *text);
size_t diagram_arrows(const struct diagram *d);
void diagram_write(const struct diagram *d, struct strbuf *out);

#endif
