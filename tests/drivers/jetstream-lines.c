/* jetstream-lines: the NATS JetStream client the partition tests need, on nats.c (libnats-dev, a
 * test dependency only). The server on 127.0.0.1:PORT maps colony.agents.* and
 * colony.agents.*.out (IACP), colony.conv.* (FIPA) to partitions (tests/e2e-jetstream.bats).
 *   jetstream-lines stream PORT         adds the stream COLONY over colony.part.>
 *   jetstream-lines pub PORT [QUEEN]    publishes each line of stdin, a message, on its key's
 *                                       subject as a bridge would: an IACP message on
 *                                       colony.agents.FORAGER (to the forager) or
 *                                       colony.agents.FORAGER.out (from it), a FIPA one on
 *                                       colony.conv.CONVERSATION, the key a subject token
 *                                       (proto/partition.h); one of no key on colony.part.0.in._
 *                                       (partition 1's); waits for every acknowledgement
 *   jetstream-lines sub PORT SUBJECT IDLE_MS [--subjects]
 *                                       reads SUBJECT (colony.part.3.>) from the start of the
 *                                       stream with an ordered consumer, each payload a line
 *                                       (with --subjects the subject, a tab, then the payload),
 *                                       until IDLE_MS pass without a message
 * Exit status 2 when the server refuses something or cannot be reached. */
#include <jansson.h>
#include <nats/nats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/partition.h"

static void check(natsStatus s, const char *what)
{
    if (s == NATS_OK)
        return;
    fprintf(stderr, "jetstream-lines: %s: %s\n", what, natsStatus_GetText(s));
    exit(2);
}

static jsCtx *connect_to(const char *port, natsConnection **nc)
{
    char url[64];
    snprintf(url, sizeof url, "nats://127.0.0.1:%s", port);
    check(natsConnection_ConnectTo(nc, url), url);
    jsCtx *js;
    check(natsConnection_JetStream(&js, *nc, NULL), "jetstream");
    return js;
}

static int add_stream(jsCtx *js)
{
    jsStreamConfig sc;
    jsStreamConfig_Init(&sc);
    const char *subjects[] = {"colony.part.>"};
    sc.Name = "COLONY";
    sc.Subjects = subjects;
    sc.SubjectsLen = 1;
    jsStreamInfo *si = NULL;
    jsErrCode err = 0;
    check(js_AddStream(&si, js, &sc, NULL, &err), "add stream");
    jsStreamInfo_Destroy(si);
    return 0;
}

/* The subject a bridge publishes a message on. */
static void subject_of(const struct message *m, const json_t *root, const char *queen,
                       struct strbuf *subject)
{
    struct strbuf token = STRBUF_INIT;
    if (!message_partition_token(m, queen, &token)) {
        sb_adds(subject, "colony.part.0.in._");
    } else if (m->proto == PROTO_FIPA) {
        sb_addf(subject, "colony.conv.%s", token.buf);
    } else {
        struct strbuf to = STRBUF_INIT;
        const char *receiver = json_string_value(json_object_get(root, "to"));
        if (receiver)
            partition_token(&to, receiver, strlen(receiver));
        bool inward = receiver && strcmp(to.buf, token.buf) == 0;
        sb_addf(subject, "colony.agents.%s%s", token.buf, inward ? "" : ".out");
        sb_free(&to);
    }
    sb_free(&token);
}

static int publish(jsCtx *js, const char *queen)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    struct strbuf subject = STRBUF_INIT;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n')
            len--;
        if (!len)
            continue;
        json_t *root = json_loadb(line, len, 0, NULL);
        sb_reset(&subject);
        if (root && json_is_object(root)) {
            struct message m;
            message_init(&m, NULL, json_incref(root), CHOOSE_AUTO);
            subject_of(&m, root, queen, &subject);
            message_clear(&m);
        } else {
            sb_adds(&subject, "colony.part.0.in._");
        }
        json_decref(root);
        check(js_PublishAsync(js, subject.buf, line, (int)len, NULL), subject.buf);
    }
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = 60000;
    check(js_PublishAsyncComplete(js, &po), "publish");
    free(line);
    sb_free(&subject);
    return 0;
}

static int subscribe(jsCtx *js, const char *subject, int idle_ms, bool subjects)
{
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = "COLONY";
    so.Ordered = true;
    so.Config.DeliverPolicy = js_DeliverAll;
    natsSubscription *sub = NULL;
    jsErrCode err = 0;
    check(js_SubscribeSync(&sub, js, subject, NULL, &so, &err), subject);
    /* what the library holds for us while the pipeline behind is slower: a test's and a bench's
     * partition at most, all of it, rather than messages dropped (NATS_SLOW_CONSUMER) */
    check(natsSubscription_SetPendingLimits(sub, -1, -1), "pending limits");
    natsMsg *msg = NULL;
    natsStatus s;
    while ((s = natsSubscription_NextMsg(&msg, sub, idle_ms)) == NATS_OK) {
        if (subjects)
            printf("%s\t", natsMsg_GetSubject(msg));
        fwrite(natsMsg_GetData(msg), 1, (size_t)natsMsg_GetDataLength(msg), stdout);
        putchar('\n');
        natsMsg_Destroy(msg);
    }
    if (s != NATS_TIMEOUT)
        check(s, "next message");
    natsSubscription_Destroy(sub);
    return fflush(stdout) == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: jetstream-lines stream|pub|sub PORT ...\n");
        return 2;
    }
    natsConnection *nc = NULL;
    jsCtx *js = connect_to(argv[2], &nc);
    int status = 2;
    if (strcmp(argv[1], "stream") == 0)
        status = add_stream(js);
    else if (strcmp(argv[1], "pub") == 0)
        status = publish(js, argc > 3 ? argv[3] : "queen");
    else if (strcmp(argv[1], "sub") == 0 && argc >= 5)
        status = subscribe(js, argv[3], atoi(argv[4]), argc > 5 && strcmp(argv[5], "--subjects") == 0);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    nats_Close();
    return status;
}
