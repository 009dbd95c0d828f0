// Scheduling of the calling thread: the room thread may run ahead of everything else on the
// machine, and a recording export behind everything: glibc only, no library of our own.
#ifndef CTHREADPRIORITY_H
#define CTHREADPRIORITY_H

/// Lowers the calling thread, and only it (Linux threads have their own nice value), to nice 19,
/// the lowest priority that still gets a share of the CPU on a busy machine. 0 on success,
/// else errno.
int scthread_lower_to_background(void);

/// Puts the calling thread in the round-robin real-time class at its lowest priority (1), so
/// it runs as soon as it is ready, ahead of every ordinary thread. Needs CAP_SYS_NICE (or an
/// RLIMIT_RTPRIO); threads it starts later are ordinary ones. 0 on success, else errno.
int scthread_raise_to_realtime(void);

/// Names the calling thread (at most 15 bytes; longer names are cut). 0 on success, else errno.
int scthread_set_name(const char *name);

/// The calling thread's nice value.
int scthread_nice(void);

/// Whether the calling thread is in a real-time class.
int scthread_is_realtime(void);

#endif
