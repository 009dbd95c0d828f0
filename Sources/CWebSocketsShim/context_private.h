#ifndef SCWS_CONTEXT_PRIVATE_H
#define SCWS_CONTEXT_PRIVATE_H
/* The bundle's layout, shared by shim.c (creation, protocols) and event_loop.c (the loop). */
#include "CWebSocketsShim.h"
#include <ev.h>
#include <poll.h>

struct scws_context {
    struct lws_context *lws;
    /* protocol_count entries and the all-zero terminator lws expects; names are strdup'd. */
    struct lws_protocols *protocols;
    int protocol_count;
    struct lws_extension extensions[2];
    lws_retry_bo_t retry;
    char *host;
    /* The epoll loop lws runs on (libev, "foreign" to lws), or NULL for lws's own poll() loop. */
    struct ev_loop *loop;
    /* lws's timer lists (its per-thread sul owners), found through a sul scheduled once. */
    lws_dll2_owner_t *sul_owners;
    /* Fires when lws's earliest timer is due; re-armed before every wait by `before_wait`. */
    ev_timer lws_timers;
    ev_prepare before_wait;
    /* When `lws_timers` is armed for (lws_now_usecs time), 0 if not armed. */
    lws_usec_t armed_due;
    /* Sockets scws_request_writable asked for in this pass, served before the wait (no duplicates:
     * `writable_marked[fd]` is set while fd is listed). */
    int *writable_fds;
    int writable_count, writable_capacity;
    unsigned char *writable_marked;
    int marked_capacity;
    /* Per descriptor, the connection whose last write the kernel took whole (scws_note_write),
     * taken to have room; NULL once a write left output with lws. Sized like writable_marked. */
    struct lws **room_after_write;
    /* Scratch for the one poll() that finds which listed sockets have room (scws_find_room):
     * the pollfds, for each its place in the list, and per listed socket its wsi if it has room. */
    struct pollfd *room_polled;
    int *room_slots;
    struct lws **room_ready;
    int room_capacity;
    /* Foreign loop array lws reads during lws_create_context (one per service thread). */
    void *foreign_loops[1];
};

/* Records whether the kernel took a write on `wsi` whole (`written` of `length`, nothing left with
 * lws); see scws_find_room. */
void scws_note_write(struct lws *wsi, int written, size_t length, int left_pending);

/* Sets up `info` for the epoll loop unless SCROLLCAST_EVENT_LOOP=poll or lws's libev plugin is
 * missing; then lws keeps its own poll() loop. Nonzero if the loop could not be created. */
int scws_event_loop_prepare(struct scws_context *c, struct lws_context_creation_info *info);

/* Hooks lws's timers into the loop once lws_create_context has succeeded. */
void scws_event_loop_attach(struct scws_context *c);

/* Frees the loop after lws_context_destroy (lws never destroys a foreign loop). */
void scws_event_loop_destroy(struct scws_context *c);

#endif
