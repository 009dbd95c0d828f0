#define _GNU_SOURCE
#include <sys/socket.h>
#include "CLinkSystem.h"

int clink_accept_nonblocking(int listener) {
    return accept4(listener, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

#include <sys/resource.h>
#include <unistd.h>

int clink_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)gettid(), nice);
}
