/* parse-floor: the least a JSON Lines validator can do, for the benchmark: read each line and
 * parse it with jansson, nothing else. Usage: parse-floor < FILE */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long parsed = 0;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        json_error_t err;
        json_t *root = json_loadb(line, (size_t)len, JSON_REJECT_DUPLICATES, &err);
        if (root)
            parsed++;
        json_decref(root);
    }
    free(line);
    fprintf(stderr, "%lu parsed\n", parsed);
    return 0;
}
