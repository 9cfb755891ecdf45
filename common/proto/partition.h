/* Partitions of a stream by key, as NATS maps subjects to them (acp-validate and acp-trace
 * --partition=K/N): each message has a key its publisher can compute (its dialect's
 * partition_key: IACP's forager, FIPA's conversation_id), written as one subject token, and the
 * partition of that token is its FNV-1a hash of 32 bits modulo N, as nats-server's
 * {{partition(N,1)}} subject mapping computes it (0-based there; K = that + 1 here).
 *
 * The token: the key's bytes A-Z, a-z, 0-9, '-' and '_' as they are, every other byte as '%'
 * and two upper-case hex digits ("forager.07" is "forager%2E07"), the empty key as "%"; so that
 * no key holds a '.', '*', '>' or white space, which a token cannot, and two keys never share
 * a token. */
#ifndef ACP_PARTITION_H
#define ACP_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"
#include "proto/message.h"

/* Appends the token of key (len bytes) to out. */
void partition_token(struct strbuf *out, const char *key, size_t len);

/* FNV-1a, 32 bits, of len bytes. */
uint32_t partition_hash(const char *text, size_t len);

/* The message's key as its dialect computes it (queen: the name IACP's queen goes by), written
 * as a token into out; false when it has none (MCP's, a message of no dialect). */
bool message_partition_token(const struct message *m, const char *queen, struct strbuf *out);

/* The partition, 1 to n, of message m; 0 when it has no key. */
unsigned long message_partition(const struct message *m, const char *queen, unsigned long n);

#endif
