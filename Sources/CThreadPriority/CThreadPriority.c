#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include "CThreadPriority.h"

int scthread_lower_to_idle(void) {
    // nice 19 first: it stays the thread's niceness should the policy ever be reset, and it is
    // what the thread runs at where SCHED_IDLE is refused.
    int niced = setpriority(PRIO_PROCESS, (id_t)gettid(), 19) == 0 ? 0 : errno;
    struct sched_param parameter = { .sched_priority = 0 };
    // pid 0 is the calling thread, as for the real-time class below.
    if (sched_setscheduler(0, SCHED_IDLE, &parameter) == 0) return 0;
    return niced != 0 ? niced : errno;
}

int scthread_raise_to_realtime(void) {
    struct sched_param parameter = { .sched_priority = 1 };
    // pid 0 is the calling thread, not the process, for sched_setscheduler on Linux. Threads it
    // starts later (export workers, libdispatch's) begin as ordinary ones: SCHED_RESET_ON_FORK.
    return sched_setscheduler(0, SCHED_RR | SCHED_RESET_ON_FORK, &parameter) == 0 ? 0 : errno;
}

int scthread_nice(void) {
    return getpriority(PRIO_PROCESS, (id_t)gettid());
}

int scthread_is_realtime(void) {
    int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
    return policy == SCHED_RR || policy == SCHED_FIFO;
}

int scthread_set_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    return pthread_setname_np(pthread_self(), shortened);
}
