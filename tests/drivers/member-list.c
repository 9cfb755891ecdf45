/* member-list: holds the member list (common/proto/memberlist.h) to json_object_set's rules and
 * to its cost. N members are set whose keys a linear search tells apart last (one length, one
 * first byte), half of them split as prefix and name ("x-fipa-" and the rest), then each is set
 * again under the other split, then every one is looked up, one is removed: the list must keep
 * N members in their first order with the last values, find each, and keep the order after the
 * removal; and no lookup may compare more than a few members, however large the list. Prints
 *   members N, most compared M
 * and exits 1 (saying what failed) when any rule fails. Usage: member-list [N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "proto/memberlist.h"

enum { MOST_COMPARED = 64 };

static void fail(const char *what, size_t i)
{
    printf("member-list: %s (member %zu)\n", what, i);
    exit(1);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    hashtab_key_draw();
    /* each key "x-fipa-NNNNNNNN", whole in keys (32 bytes a key), its name part from offset 7 */
    char *keys = xmalloc(n * 32);
    for (size_t i = 0; i < n; i++)
        snprintf(keys + 32 * i, 32, "x-fipa-%08zu", i);
    struct member_list l;
    member_list_init(&l);
    for (size_t i = 0; i < n; i++) {
        const char *key = keys + 32 * i;
        if (i % 2)
            member_list_set_integer(&l, key, (json_int_t)i);
        else
            member_list_set_string(&l, "x-fipa-", key + 7, "first", 5);
    }
    for (size_t i = 0; i < n; i++) { /* the same keys, split the other way */
        const char *key = keys + 32 * i;
        if (i % 2)
            member_list_set_string(&l, "x-fipa-", key + 7, "last", 4);
        else
            member_list_set_string(&l, "", key, "last", 4);
    }
    if (l.n != n)
        fail("a key set again under another split was added, not replaced", l.n);
    size_t most = 0;
    for (size_t i = 0; i < n; i++) {
        const char *key = keys + 32 * i;
        const struct member *m = member_list_get(&l, "", key);
        if (!m || m != &l.members[i])
            fail("a key is not found in its first place", i);
        if (!m->len || strcmp(member_string(&l, m), "last") != 0)
            fail("a key does not hold its last value", i);
        size_t compared = member_list_compared(&l, "x-fipa-", key + 7);
        most = compared > most ? compared : most;
    }
    if (most > MOST_COMPARED)
        fail("a lookup compares too many members", most);
    member_list_remove(&l, "", keys);
    for (size_t i = 1; i < n; i++)
        if (member_list_get(&l, "x-fipa-", keys + 32 * i + 7) != &l.members[i - 1])
            fail("after a removal, a member is not found in its place", i);
    if (member_list_get(&l, "", keys))
        fail("the member removed is still found", 0);
    printf("members %zu, most compared %zu\n", n, most);
    member_list_free(&l);
    free(keys);
    return 0;
}
