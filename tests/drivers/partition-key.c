/* partition-key: what common/proto/partition.h makes of each line of standard input, a message:
 * its key's subject token, its FNV-1a hash and its partition of N, tab-separated ("-" and 0
 * for a message of no key), as a publisher computes the subject it goes on; with --hash, the
 * FNV-1a hash (hex) and the token of each line's bytes taken as a key. For the partition tests
 * and the NATS driver's publisher. Usage: partition-key N [QUEEN] | partition-key --hash */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/partition.h"

static int hash_lines(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    struct strbuf token = STRBUF_INIT;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (n && line[n - 1] == '\n')
            n--;
        sb_reset(&token);
        partition_token(&token, line, (size_t)n);
        printf("%08x\t%s\n", (unsigned)partition_hash(line, (size_t)n), token.buf);
    }
    free(line);
    sb_free(&token);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--hash") == 0)
        return hash_lines();
    unsigned long parts = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    const char *queen = argc > 2 ? argv[2] : "queen";
    if (!parts) {
        fprintf(stderr, "usage: partition-key N [QUEEN] | partition-key --hash\n");
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    struct strbuf token = STRBUF_INIT;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        json_t *root = json_loadb(line, (size_t)n, 0, NULL);
        if (!root) {
            printf("-\t0\t0\n");
            continue;
        }
        struct message m;
        message_init(&m, NULL, root, CHOOSE_AUTO);
        sb_reset(&token);
        if (message_partition_token(&m, queen, &token))
            printf("%s\t%08x\t%lu\n", token.buf, (unsigned)partition_hash(token.buf, token.len),
                   message_partition(&m, queen, parts));
        else
            printf("-\t0\t0\n");
        message_clear(&m);
    }
    free(line);
    sb_free(&token);
    return 0;
}
