// Scheduling of the calling thread: the room thread may run ahead of everything else on the
// machine, and a recording export behind everything: glibc only, no library of our own.
#ifndef CTHREADPRIORITY_H
#define CTHREADPRIORITY_H

/// Lowers the calling thread to nice 19 and then to the SCHED_IDLE policy: the smallest share of
/// the CPU (never none), and preempted whenever an ordinary thread wakes on its CPU (a nice 19
/// thread keeps the CPU for the rest of its slice). No privilege is needed to
/// lower oneself. 0 on success; else the errno of the failure, and the thread stays at nice 19
/// if that much worked.
int scthread_lower_to_idle(void);

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
