#ifndef CHIREDISSHIM_H
#define CHIREDISSHIM_H
#include <hiredis/hiredis.h>

/// hiredis writes with plain write(2), so a write to a socket Redis has closed raises SIGPIPE,
/// which kills the process by default. Blocking it on the calling thread makes that write fail
/// with EPIPE instead, without changing the signal disposition of the whole process.
/// Returns 0 on success, an errno value otherwise.
int schr_block_sigpipe_on_current_thread(void);

/// A nonblocking, close-on-exec eventfd for waking a poll loop (eventfd.h is not in Swift's Glibc
/// module); -1 with errno set on failure.
int schr_eventfd(void);

/// The context's error text: errstr is a fixed char array, which Swift imports as a 128-tuple.
const char *schr_errstr(const redisContext *context);

/// pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc import does not define; names
/// longer than the kernel's 15 characters are cut.
void schr_name_current_thread(const char *name);

#endif
