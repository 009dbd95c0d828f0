#define _GNU_SOURCE
#include "CHiredisShim.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>

int schr_block_sigpipe_on_current_thread(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int schr_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

const char *schr_errstr(const redisContext *context) { return context->errstr; }

void schr_name_current_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof(shortened) - 1);
    shortened[sizeof(shortened) - 1] = '\0';
    pthread_setname_np(pthread_self(), shortened);
}
