/* A JSON object composed from MEMBER=VALUE arguments (acp-send's), with the types said rather
 * than guessed (jo's syntax, without the surprises its manual lists):
 *
 *   KEY=TEXT      a string                  KEY:=JSON     any JSON value
 *   KEY=@FILE     a file's text, as a string, its one final newline dropped ($(cat FILE) style)
 *   KEY:=@FILE    the JSON value a file holds
 *   KEY[]=...     appends to an array (with = or :=, a value or @FILE); the array is made if need
 * be
 *
 * FILE is "-" for standard input. KEY is a dotted path: body.node sets member node of member body,
 * making the objects on the way. In a key a backslash escapes ".", "=", ":", "[" and "\" itself;
 * any other use of them there is an error. In a string value only the first character is special:
 * a leading "@" names a file, so a leading "@" or "\" is written "\@" or "\\".
 *
 * A member is set once: setting it again, descending into a member that is no object, or
 * appending to one that is no array, is an error; an object already there may gain members. On
 * an error the object is left as it was. Nothing here touches a file but through the reader the
 * caller gives, so that the parser can be run on any input (issue 12 fuzzes it). */
#ifndef ACP_COMPOSE_H
#define ACP_COMPOSE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/util.h"

/* Most levels a dotted path may have. */
enum { COMPOSE_MAX_DEPTH = 64 };

struct compose_files {
    /* Reads all of path ("-": standard input) into out; false with the reason in *err. NULL:
     * naming a file is an error. */
    bool (*read)(void *ctx, const char *path, struct strbuf *out, struct strbuf *err);
    void *ctx;
};

/* Applies one argument to root, an object. False with the reason in *err (which names the
 * argument), root unchanged. */
bool compose_member(json_t *root, const char *arg, const struct compose_files *files,
                    struct strbuf *err);

/* A reader of files for compose_member: standard input may be read once (and not at all when
 * stdin_taken says what holds it, e.g. "--stdin"), and no file may be larger than max_bytes. */
struct compose_reader {
    size_t max_bytes;
    const char *stdin_taken; /* NULL, or what reads standard input instead */
    bool stdin_used;
};

bool compose_read_file(void *reader, const char *path, struct strbuf *out, struct strbuf *err);

#endif
