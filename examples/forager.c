/* forager: a small example agent, to try acp-replay's live-agent mode and acp-send --wait on (and
 * what their tests run).
 * It speaks JSON Lines on stdin and stdout, one message per line, and answers as the seed
 * exchanges of IACP 1.1 and of the Caxton FIPA guide were recorded:
 *
 *   IACP task.assign to it   -> task.accept, then task.result {"status":"ok",
 *                               "artifacts":["cm://<node after tg:crawl->"]}, both ref the assign;
 *                               a node "tg:reject-..." gets task.reject {"reason":"busy"}, a node
 *                               "tg:fail-..." task.accept, then task.result {"status":"failed"}
 *   IACP task.cancel to it   -> task.result {"status":"cancelled"} ref the cancelled assign
 *   IACP ctl.halt to it      -> it exits
 *   FIPA request to it       -> agree, then inform {"status":"processed"}; with content.action
 *                               "refuse", refuse {"reason":"busy"}
 *   FIPA query_ref, query_if -> inform {"status":"processed"}
 *   FIPA subscribe to it     -> agree, then two informs {"status":"processed"}
 *   FIPA cfp to it           -> propose {"price":10} with a reply_with of its own; an
 *                               accept_proposal of that proposal -> inform {"status":"done"},
 *                               of any other -> not_understood
 *
 * Anything else is ignored. Its ids are its own (m-a00001, m-a00002, ...; p-1, p-2 ...), never
 * the recording's: acp-replay maps them. It exits at the end of its input.
 *
 * Build: `make` builds it as examples/forager (by hand: cc -o examples/forager examples/forager.c
 *        $(pkg-config --cflags --libs jansson)).
 * Usage: forager [--hb] [--log=FILE] [NAME]    (NAME defaults to forager-07)
 *   --hb        send one heartbeat at start (a message that answers nothing)
 *   --log=FILE  append every line received to FILE */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct forager {
    const char *name;
    unsigned long next_id;
    unsigned long next_proposal;
    FILE *log;
};

static void say(json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text || printf("%s\n", text) < 0 || fflush(stdout) != 0) {
        fprintf(stderr, "forager: cannot write\n");
        exit(1);
    }
    free(text);
    json_decref(msg);
}

static json_t *iacp(struct forager *f, const char *to, const char *kind, const char *ref)
{
    char id[16];
    snprintf(id, sizeof id, "m-%06lx", f->next_id++);
    json_t *msg = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "v", "1.1", "id", id, "from", f->name,
                            "to", to, "kind", kind, "ts", (json_int_t)time(NULL));
    if (ref)
        json_object_set_new(msg, "ref", json_string(ref));
    return msg;
}

/* "tg:crawl-index/3" -> "cm://index/3", as the seed exchange's result has it. */
static json_t *artifact_of(const json_t *body)
{
    const char *node = json_string_value(json_object_get(body, "node"));
    if (!node)
        node = "";
    const char *tail = strncmp(node, "tg:crawl-", 9) == 0 ? node + 9 : node;
    char buf[256];
    snprintf(buf, sizeof buf, "cm://%s", tail);
    return json_pack("[s]", buf);
}

static void on_iacp(struct forager *f, json_t *in)
{
    const char *kind = json_string_value(json_object_get(in, "kind"));
    const char *from = json_string_value(json_object_get(in, "from"));
    const char *id = json_string_value(json_object_get(in, "id"));
    const char *to = json_string_value(json_object_get(in, "to"));
    if (!kind || !from || !to || strcmp(to, f->name) != 0)
        return;
    if (strcmp(kind, "task.assign") == 0 && id) {
        const char *node = json_string_value(json_object_get(json_object_get(in, "body"), "node"));
        if (node && strncmp(node, "tg:reject-", 10) == 0) {
            json_t *reject = iacp(f, from, "task.reject", id);
            json_object_set_new(reject, "body", json_pack("{s:s}", "reason", "busy"));
            say(reject);
            return;
        }
        bool fail = node && strncmp(node, "tg:fail-", 8) == 0;
        say(iacp(f, from, "task.accept", id));
        json_t *result = iacp(f, from, "task.result", id);
        json_object_set_new(result, "body",
                            json_pack("{s:s, s:o}", "status", fail ? "failed" : "ok", "artifacts",
                                      artifact_of(json_object_get(in, "body"))));
        say(result);
    } else if (strcmp(kind, "task.cancel") == 0) {
        const char *ref = json_string_value(json_object_get(in, "ref"));
        json_t *result = iacp(f, from, "task.result", ref ? ref : id);
        json_object_set_new(result, "body", json_pack("{s:s}", "status", "cancelled"));
        say(result);
    } else if (strcmp(kind, "ctl.halt") == 0) {
        exit(0);
    }
}

static bool addressed(const json_t *receiver, const char *name)
{
    if (json_is_array(receiver)) {
        size_t i;
        json_t *item;
        json_array_foreach(receiver, i, item) if (addressed(item, name)) return true;
        return false;
    }
    const char *s = json_is_object(receiver) ? json_string_value(json_object_get(receiver, "name"))
                                             : json_string_value(receiver);
    return s && strcmp(s, name) == 0;
}

static json_t *fipa(struct forager *f, const json_t *in, const char *performative, json_t *content)
{
    json_t *msg = json_pack("{s:s, s:s, s:O, s:o, s:s}", "performative", performative, "sender",
                            f->name, "receiver", json_object_get(in, "sender"), "content", content,
                            "language", "json");
    const char *keys[] = {"conversation_id", "protocol", "ontology"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        json_t *v = json_object_get(in, keys[i]);
        if (json_is_string(v))
            json_object_set(msg, keys[i], v);
    }
    json_t *reply_with = json_object_get(in, "reply_with");
    if (json_is_string(reply_with))
        json_object_set(msg, "in_reply_to", reply_with);
    return msg;
}

static void on_fipa(struct forager *f, json_t *in)
{
    const char *act = json_string_value(json_object_get(in, "performative"));
    if (!act || !addressed(json_object_get(in, "receiver"), f->name))
        return;
    const char *action =
        json_string_value(json_object_get(json_object_get(in, "content"), "action"));
    if (strcmp(act, "request") == 0 && action && strcmp(action, "refuse") == 0) {
        say(fipa(f, in, "refuse", json_pack("{s:s}", "reason", "busy")));
    } else if (strcmp(act, "request") == 0) {
        say(fipa(f, in, "agree", json_object()));
        say(fipa(f, in, "inform", json_pack("{s:s}", "status", "processed")));
    } else if (strcmp(act, "query_ref") == 0 || strcmp(act, "query_if") == 0) {
        say(fipa(f, in, "inform", json_pack("{s:s}", "status", "processed")));
    } else if (strcmp(act, "subscribe") == 0) {
        say(fipa(f, in, "agree", json_object()));
        say(fipa(f, in, "inform", json_pack("{s:s}", "status", "processed")));
        say(fipa(f, in, "inform", json_pack("{s:s}", "status", "processed")));
    } else if (strcmp(act, "cfp") == 0) {
        json_t *propose = fipa(f, in, "propose", json_pack("{s:i}", "price", 10));
        char id[24];
        snprintf(id, sizeof id, "p-%lu", f->next_proposal++);
        json_object_set_new(propose, "reply_with", json_string(id));
        say(propose);
    } else if (strcmp(act, "accept_proposal") == 0) {
        /* Only its own proposals can be accepted: the recording's ids mean nothing to it. */
        const char *ref = json_string_value(json_object_get(in, "in_reply_to"));
        bool mine = ref && strncmp(ref, "p-", 2) == 0 && strtoul(ref + 2, NULL, 10) > 0 &&
                    strtoul(ref + 2, NULL, 10) < f->next_proposal;
        if (mine)
            say(fipa(f, in, "inform", json_pack("{s:s}", "status", "done")));
        else
            say(fipa(f, in, "not_understood", json_pack("{s:s}", "reason", "unknown proposal")));
    }
}

int main(int argc, char **argv)
{
    struct forager f = {.name = "forager-07", .next_id = 0xa00001, .next_proposal = 1};
    bool heartbeat = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--hb") == 0) {
            heartbeat = true;
        } else if (strncmp(argv[i], "--log=", 6) == 0) {
            f.log = fopen(argv[i] + 6, "a");
            if (!f.log) {
                perror(argv[i] + 6);
                return 2;
            }
        } else {
            f.name = argv[i];
        }
    }
    if (heartbeat) {
        json_t *hb = iacp(&f, "queen", "hb", NULL);
        json_object_set_new(hb, "body", json_pack("{s:i, s:i}", "slots", 1, "load", 0));
        say(hb);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        if (f.log) {
            fputs(line, f.log);
            fflush(f.log);
        }
        json_t *in = json_loadb(line, (size_t)len, 0, NULL);
        if (json_is_object(in)) {
            if (json_object_get(in, "performative"))
                on_fipa(&f, in);
            else
                on_iacp(&f, in);
        }
        json_decref(in);
    }
    free(line);
    return 0;
}
