#include "proto/compose.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/utf8.h"

/* One argument, taken apart. */
struct member {
    char *path[COMPOSE_MAX_DEPTH]; /* the key's names, unescaped */
    size_t depth;
    bool append; /* KEY[]= */
    bool json;   /* := */
    const char *value;
};

static void member_free(struct member *m)
{
    for (size_t i = 0; i < m->depth; i++)
        free(m->path[i]);
}

/* The argument as the messages quote it: escaped, and cut when long. */
static void quote_arg(struct strbuf *err, const char *arg)
{
    sb_addc(err, '\'');
    escape_text(err, arg, strlen(arg), 80);
    sb_addc(err, '\'');
}

static bool fail(struct strbuf *err, const char *arg, const char *why)
{
    quote_arg(err, arg);
    sb_addf(err, ": %s", why);
    return false;
}

static bool valid_utf8(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t n = utf8_sequence_length((const unsigned char *)s + i, len - i);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

static bool end_name(struct member *m, struct strbuf *name, const char *arg, struct strbuf *err)
{
    if (!name->len)
        return fail(err, arg, "a member name is empty (KEY is NAME or NAME.NAME...)");
    if (m->depth == COMPOSE_MAX_DEPTH)
        return fail(err, arg, "the key has more than 64 levels");
    if (!valid_utf8(name->buf, name->len))
        return fail(err, arg, "the key is not valid UTF-8");
    m->path[m->depth++] = sb_detach(name);
    return true;
}

/* Splits KEY (up to the first unescaped "=") into its names and reads what ends it: "=", ":=",
 * "[]=" or "[]:=". */
static bool parse_key(const char *arg, struct member *m, struct strbuf *err)
{
    struct strbuf name = STRBUF_INIT;
    const char *p = arg;
    bool ok = false;
    for (;;) {
        char c = *p;
        if (c == '\0') {
            fail(err, arg, "no '=': an argument is MEMBER=VALUE (or MEMBER:=JSON)");
            break;
        }
        if (c == '\\') {
            if (!p[1] || !strchr(".=:[\\", p[1])) {
                fail(err, arg, "in a key, '\\' escapes '.', '=', ':', '[' or '\\' only");
                break;
            }
            sb_addc(&name, p[1]);
            p += 2;
            continue;
        }
        if (c == '.') {
            if (!end_name(m, &name, arg, err))
                break;
            p++;
            continue;
        }
        if (c == '[') {
            if (p[1] != ']' || (p[2] != '=' && strncmp(p + 2, ":=", 2) != 0)) {
                fail(err, arg, "'[' in a key is written '\\[' ('[]' before '=' or ':=' appends)");
                break;
            }
            m->append = true;
            p += 2;
            c = *p;
        }
        if (c == ':') {
            if (p[1] != '=') {
                fail(err, arg, "':' in a key is written '\\:' (':=' gives a JSON value)");
                break;
            }
            m->json = true;
            p++;
            c = *p;
        }
        if (c == '=') {
            ok = end_name(m, &name, arg, err);
            m->value = p + 1;
            break;
        }
        sb_addc(&name, c);
        p++;
    }
    sb_free(&name);
    return ok;
}

static bool read_named_file(const char *arg, const char *path, const struct compose_files *files,
                            struct strbuf *out, struct strbuf *err)
{
    if (!*path)
        return fail(err, arg, "no file name after '@'");
    if (!files || !files->read)
        return fail(err, arg, "no file may be read here");
    struct strbuf why = STRBUF_INIT;
    bool ok = files->read(files->ctx, path, out, &why);
    if (!ok)
        fail(err, arg, why.buf ? why.buf : "cannot be read");
    sb_free(&why);
    return ok;
}

static json_t *string_value(const char *arg, const char *text, size_t len, struct strbuf *err)
{
    if (memchr(text, '\0', len)) {
        fail(err, arg, "the text holds a NUL byte, which no message may carry");
        return NULL;
    }
    json_t *v = json_stringn(text, len);
    if (!v)
        fail(err, arg, "the text is not valid UTF-8");
    return v;
}

static json_t *json_value(const char *arg, const char *text, size_t len, struct strbuf *err)
{
    json_error_t jerr;
    json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!v) {
        quote_arg(err, arg);
        sb_adds(err, ": not JSON: ");
        escape_text(err, jerr.text, strlen(jerr.text), 0);
        if (jerr.position > 0)
            sb_addf(err, " (at byte %d)", jerr.position);
    }
    return v;
}

/* The value of the argument: text or JSON, given or read from a file. */
static json_t *make_value(const char *arg, const struct member *m,
                          const struct compose_files *files, struct strbuf *err)
{
    const char *v = m->value;
    if (*v == '@') {
        struct strbuf content = STRBUF_INIT;
        json_t *value = NULL;
        if (read_named_file(arg, v + 1, files, &content, err)) {
            const char *text = content.buf ? content.buf : "";
            size_t len = content.len;
            if (m->json) {
                value = json_value(arg, text, len, err);
            } else {
                if (len && text[len - 1] == '\n')
                    len--;
                value = string_value(arg, text, len, err);
            }
        }
        sb_free(&content);
        return value;
    }
    if (m->json)
        return json_value(arg, v, strlen(v), err);
    if (*v == '\\') {
        if (v[1] != '@' && v[1] != '\\') {
            fail(err, arg,
                 "a value that starts with '\\' is written '\\\\' (and a leading '@' "
                 "'\\@')");
            return NULL;
        }
        v++;
    }
    return string_value(arg, v, strlen(v), err);
}

/* Checks that the path can take the value without changing anything; on success *parent is the
 * deepest object that exists on the path and *existing the names of the path it holds. */
static bool path_fits(json_t *root, const char *arg, const struct member *m, json_t **parent,
                      size_t *existing, struct strbuf *err)
{
    json_t *at = root;
    size_t i = 0;
    for (; i + 1 < m->depth; i++) {
        json_t *next = json_object_get(at, m->path[i]);
        if (!next)
            break;
        if (!json_is_object(next))
            return fail(err, arg, "a member on its path is set already, and is no object");
        at = next;
    }
    *parent = at;
    *existing = i;
    if (i + 1 < m->depth)
        return true; /* the rest of the path is new */
    json_t *leaf = json_object_get(at, m->path[i]);
    if (leaf && !m->append)
        return fail(err, arg, "this member is set already");
    if (leaf && !json_is_array(leaf))
        return fail(err, arg, "'[]' appends to an array, and this member is no array");
    return true;
}

static void place(json_t *parent, size_t from, const struct member *m, json_t *value)
{
    for (size_t i = from; i + 1 < m->depth; i++) {
        json_t *object = json_object();
        json_object_set_new(parent, m->path[i], object);
        parent = object;
    }
    const char *name = m->path[m->depth - 1];
    if (!m->append) {
        json_object_set_new(parent, name, value);
        return;
    }
    json_t *array = json_object_get(parent, name);
    if (!array) {
        array = json_array();
        json_object_set_new(parent, name, array);
    }
    json_array_append_new(array, value);
}

bool compose_member(json_t *root, const char *arg, const struct compose_files *files,
                    struct strbuf *err)
{
    struct member m = {.depth = 0};
    json_t *parent, *value = NULL;
    size_t existing;
    bool ok = parse_key(arg, &m, err) && path_fits(root, arg, &m, &parent, &existing, err) &&
              (value = make_value(arg, &m, files, err)) != NULL;
    if (ok)
        place(parent, existing, &m, value);
    member_free(&m);
    return ok;
}

/* --- reading files --- */

static bool read_all(int fd, size_t max, struct strbuf *out, struct strbuf *err)
{
    for (;;) {
        sb_grow(out, 64 * 1024);
        ssize_t n = read(fd, out->buf + out->len, out->cap - out->len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            sb_addf(err, "cannot read: %s", strerror(errno));
            return false;
        }
        if (n == 0)
            return true;
        out->len += (size_t)n;
        out->buf[out->len] = '\0';
        if (out->len > max) {
            sb_addf(err, "the file is longer than %zu bytes (--max-line-bytes)", max);
            return false;
        }
    }
}

bool compose_read_file(void *ctx, const char *path, struct strbuf *out, struct strbuf *err)
{
    struct compose_reader *r = ctx;
    if (strcmp(path, "-") == 0) {
        if (r->stdin_taken) {
            sb_addf(err, "standard input holds the messages (%s)", r->stdin_taken);
            return false;
        }
        if (r->stdin_used) {
            sb_adds(err, "standard input is read once only");
            return false;
        }
        r->stdin_used = true;
        return read_all(STDIN_FILENO, r->max_bytes, out, err);
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        sb_addf(err, "cannot open: %s", strerror(errno));
        return false;
    }
    bool ok = read_all(fd, r->max_bytes, out, err);
    close(fd);
    return ok;
}
