/* peer: a scripted peer for acp-replay's tests. It listens on a Unix socket or on a free port of
 * the loopback interface chosen at start, serves one connection, and exits.
 *
 * Usage: peer unix:PATH|tcp|tcp:PORT|tcp6 READY [MODE]... [-- COMMAND...]
 *   READY           a file written once the peer listens; for tcp and tcp6 it holds the address
 *                   to connect to (tcp:127.0.0.1:PORT, tcp:[::1]:PORT), for unix:PATH the path
 *   --record=FILE   write every byte received to FILE
 *   --echo          send every line received back, prefixed with "echo "
 *   --close-after=N close the connection after N lines
 *   --no-read       accept, then read nothing for 30 s (the sender's writes must time out)
 *   --close-after-bytes=N  close the connection once N bytes came (in the middle of a message)
 *   --send-line=N   first send a line of N bytes (and its newline), then read as usual
 *   --slow=MS       read at most 1024 bytes every MS milliseconds
 *   -- COMMAND...   run COMMAND with the connection as its stdin and stdout (as inetd does)
 * Exit status: 0 once the connection ended, 2 on a usage or system error. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static _Noreturn void fail(const char *what)
{
    perror(what);
    exit(2);
}

static int listen_on(const char *spec, char *address, size_t size)
{
    int fd;
    if (strncmp(spec, "unix:", 5) == 0) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        snprintf(sun.sun_path, sizeof sun.sun_path, "%s", spec + 5);
        unlink(sun.sun_path);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0)
            fail("bind");
        snprintf(address, size, "%s", spec);
    } else if (strcmp(spec, "tcp") == 0 || strncmp(spec, "tcp:", 4) == 0) {
        /* tcp:PORT: a port of the docs' recipes, in a network namespace of the test's own */
        unsigned port = spec[3] == ':' ? (unsigned)strtoul(spec + 4, NULL, 10) : 0;
        struct sockaddr_in sin = {.sin_family = AF_INET,
                                  .sin_port = htons((unsigned short)port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof sin;
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
            getsockname(fd, (struct sockaddr *)&sin, &len) != 0)
            fail("bind");
        snprintf(address, size, "tcp:127.0.0.1:%u", ntohs(sin.sin_port));
    } else if (strcmp(spec, "tcp6") == 0) {
        struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
        socklen_t len = sizeof sin6;
        fd = socket(AF_INET6, SOCK_STREAM, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sin6, sizeof sin6) != 0 ||
            getsockname(fd, (struct sockaddr *)&sin6, &len) != 0)
            fail("bind");
        snprintf(address, size, "tcp:[::1]:%u", ntohs(sin6.sin6_port));
    } else {
        fprintf(stderr, "peer: unknown address %s\n", spec);
        exit(2);
    }
    if (listen(fd, 1) != 0)
        fail("listen");
    return fd;
}

static void write_ready(const char *path, const char *address)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", address) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        fail(path);
}

static void send_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        data += n;
        len -= (size_t)n;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: peer unix:PATH|tcp|tcp:PORT|tcp6 READY [MODE]... [-- COMMAND...]\n");
        return 2;
    }
    const char *record = NULL;
    bool echo = false, no_read = false;
    long close_after = -1, close_after_bytes = -1, send_line = -1, slow = 0;
    char **command = NULL;
    for (int i = 3; i < argc; i++) {
        if (strncmp(argv[i], "--record=", 9) == 0)
            record = argv[i] + 9;
        else if (strcmp(argv[i], "--echo") == 0)
            echo = true;
        else if (strncmp(argv[i], "--close-after=", 14) == 0)
            close_after = atol(argv[i] + 14);
        else if (strcmp(argv[i], "--no-read") == 0)
            no_read = true;
        else if (strncmp(argv[i], "--close-after-bytes=", 20) == 0)
            close_after_bytes = atol(argv[i] + 20);
        else if (strncmp(argv[i], "--send-line=", 12) == 0)
            send_line = atol(argv[i] + 12);
        else if (strncmp(argv[i], "--slow=", 7) == 0)
            slow = atol(argv[i] + 7);
        else if (strcmp(argv[i], "--") == 0 && i + 1 < argc) {
            command = argv + i + 1;
            break;
        } else {
            fprintf(stderr, "peer: unknown mode %s\n", argv[i]);
            return 2;
        }
    }
    char address[256];
    int server = listen_on(argv[1], address, sizeof address);
    write_ready(argv[2], address);
    int fd = accept(server, NULL, NULL);
    if (fd < 0)
        fail("accept");
    close(server);
    if (command) {
        if (dup2(fd, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0)
            fail("dup2");
        close(fd);
        execvp(command[0], command);
        fail(command[0]);
    }
    if (no_read) {
        sleep(30);
        return 0;
    }
    if (send_line >= 0) {
        char chunk[65536];
        memset(chunk, 'x', sizeof chunk);
        for (long left = send_line; left > 0; left -= (long)sizeof chunk)
            send_all(fd, chunk, left < (long)sizeof chunk ? (size_t)left : sizeof chunk);
        send_all(fd, "\n", 1);
    }
    FILE *out = record ? fopen(record, "w") : NULL;
    if (record && !out)
        fail(record);
    char buf[65536];
    char line[65536];
    size_t line_len = 0;
    long lines = 0, bytes = 0;
    ssize_t n;
    while ((n = recv(fd, buf, slow ? 1024 : sizeof buf, 0)) > 0) {
        if (slow)
            usleep((useconds_t)slow * 1000);
        bytes += n;
        if (close_after_bytes >= 0 && bytes >= close_after_bytes) {
            close(fd); /* with bytes unread: the sender sees the connection reset */
            return 0;
        }
        if (out) {
            fwrite(buf, 1, (size_t)n, out);
            fflush(out);
        }
        for (ssize_t i = 0; i < n; i++) {
            if (line_len < sizeof line)
                line[line_len++] = buf[i];
            if (buf[i] != '\n')
                continue;
            lines++;
            if (echo) {
                send_all(fd, "echo ", 5);
                send_all(fd, line, line_len);
            }
            line_len = 0;
            if (close_after >= 0 && lines >= close_after) {
                if (out)
                    fclose(out);
                close(fd);
                return 0;
            }
        }
    }
    if (out)
        fclose(out);
    close(fd);
    return 0;
}
