/* Kept apart from the lws includes: <linux/tcp.h> (which has tcpi_bytes_received; glibc's
 * <netinet/tcp.h> does not) clashes with the glibc socket headers lws pulls in. */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

long long scws_tcp_bytes_received(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    if (length < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(info.tcpi_bytes_received)) return -1;
    return (long long)info.tcpi_bytes_received;
}
