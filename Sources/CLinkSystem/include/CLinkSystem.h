// The Linux system calls the link emulator needs that Swift's Glibc module does not export
// (epoll, timerfd, eventfd, accept4): glibc only, no library of our own.
#ifndef CLINKSYSTEM_H
#define CLINKSYSTEM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/// accept4 with non-blocking, close-on-exec descriptors (defined in CLinkSystem.c, which
/// needs _GNU_SOURCE; defining it here would clash with Swift's Glibc module).
int clink_accept_nonblocking(int listener);

/// setpriority for the calling thread only (Linux threads have their own nice value); 0 on success.
int clink_set_thread_nice(int nice);

#endif
