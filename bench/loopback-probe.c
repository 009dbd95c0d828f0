/*
 * loopback-probe: how many messages of a given size this machine can push through N loopback
 * TCP sockets when one thread writes and another reads, with no WebSocket framing and no
 * engine. It is the ceiling the server's fan-out is compared against in docs/benchmarks.md.
 *
 *   loopback-probe SOCKETS MESSAGE_BYTES SECONDS
 *
 * The writer walks the sockets round robin and writes one message to each socket that has room
 * (non-blocking: a full socket is passed over, as a server skips a slow viewer). The reader waits
 * on all sockets with epoll and drains them. Only bytes that reached the reader count, so the
 * figure is messages delivered, not messages queued. Prints name=value lines, the rate last.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int socket_count;
static size_t message_bytes;
static int *writer_fds;
static int *reader_fds;
static atomic_int stop_flag;
static atomic_ullong bytes_read;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fail(const char *what) {
    fprintf(stderr, "loopback-probe: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void set_nonblocking(int fd) {
    int one = 1;
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) fail("non-blocking");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void *writer_main(void *unused) {
    (void)unused;
    char *message = malloc(message_bytes);
    if (!message) return NULL;
    memset(message, 'x', message_bytes);
    /* A partly written message is finished before the socket gets a new one, so the reader sees
     * whole messages, as a WebSocket peer would. */
    size_t *pending = calloc((size_t)socket_count, sizeof *pending);
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
        for (int i = 0; i < socket_count; i++) {
            size_t offset = pending[i];
            ssize_t n = send(writer_fds[i], message + offset, message_bytes - offset, MSG_NOSIGNAL);
            if (n > 0) pending[i] = (offset + (size_t)n) % message_bytes;
        }
    }
    free(pending);
    free(message);
    return NULL;
}

static void *reader_main(void *unused) {
    (void)unused;
    int epoll_fd = epoll_create1(0);
    if (epoll_fd < 0) fail("epoll_create1");
    for (int i = 0; i < socket_count; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = reader_fds[i]};
        if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, reader_fds[i], &ev) != 0) fail("epoll_ctl");
    }
    enum { max_events = 256 };
    struct epoll_event events[max_events];
    static char buffer[1 << 16];
    unsigned long long total = 0;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
        int ready = epoll_wait(epoll_fd, events, max_events, 100);
        for (int e = 0; e < ready; e++) {
            ssize_t n;
            while ((n = recv(events[e].data.fd, buffer, sizeof buffer, 0)) > 0) total += (unsigned long long)n;
        }
        atomic_store_explicit(&bytes_read, total, memory_order_relaxed);
    }
    close(epoll_fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: loopback-probe SOCKETS MESSAGE_BYTES SECONDS\n");
        return 2;
    }
    socket_count = atoi(argv[1]);
    long size = atol(argv[2]);
    double seconds = atof(argv[3]);
    if (socket_count < 1 || socket_count > 100000 || size < 1 || size > (1 << 24) || !(seconds > 0)) {
        fprintf(stderr, "loopback-probe: SOCKETS must be 1...100000, MESSAGE_BYTES 1...16777216, SECONDS > 0\n");
        return 2;
    }
    message_bytes = (size_t)size;

    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0) fail("socket");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0) fail("bind");
    if (listen(listener, 4096) != 0) fail("listen");
    socklen_t length = sizeof address;
    if (getsockname(listener, (struct sockaddr *)&address, &length) != 0) fail("getsockname");

    writer_fds = calloc((size_t)socket_count, sizeof *writer_fds);
    reader_fds = calloc((size_t)socket_count, sizeof *reader_fds);
    for (int i = 0; i < socket_count; i++) {
        int client = socket(AF_INET, SOCK_STREAM, 0);
        if (client < 0) fail("socket (raise ulimit -n?)");
        if (connect(client, (struct sockaddr *)&address, sizeof address) != 0) fail("connect");
        int accepted = accept(listener, NULL, NULL);
        if (accepted < 0) fail("accept");
        /* The server side writes, as the scrollcast server does; the client side reads. */
        writer_fds[i] = accepted;
        reader_fds[i] = client;
        set_nonblocking(accepted);
        set_nonblocking(client);
    }

    pthread_t writer, reader;
    pthread_create(&reader, NULL, reader_main, NULL);
    pthread_create(&writer, NULL, writer_main, NULL);
    /* The first part warms the socket buffers; only the steady state is counted. */
    double warmup = seconds > 2 ? 0.5 : seconds / 4;
    struct timespec pause = {.tv_sec = (time_t)warmup, .tv_nsec = (long)((warmup - (time_t)warmup) * 1e9)};
    nanosleep(&pause, NULL);
    unsigned long long start_bytes = atomic_load(&bytes_read);
    double start = now_seconds();
    double measure = seconds - warmup;
    pause.tv_sec = (time_t)measure;
    pause.tv_nsec = (long)((measure - (time_t)measure) * 1e9);
    nanosleep(&pause, NULL);
    unsigned long long end_bytes = atomic_load(&bytes_read);
    double elapsed = now_seconds() - start;
    atomic_store(&stop_flag, 1);
    pthread_join(writer, NULL);
    pthread_join(reader, NULL);

    double messages = (double)(end_bytes - start_bytes) / (double)message_bytes;
    printf("sockets=%d\n", socket_count);
    printf("message_bytes=%zu\n", message_bytes);
    printf("seconds=%.3f\n", elapsed);
    printf("bytes_per_second=%.0f\n", (double)(end_bytes - start_bytes) / elapsed);
    printf("probe_writes_per_second=%.0f\n", messages / elapsed);
    return 0;
}

