/* The loop lws waits in: epoll (through libev and lws's libev plugin) instead of lws 4.1's own
 * poll() over every socket on every pass.
 *
 * Debian builds lws 4.1.6 without LWS_WITH_EXTERNAL_POLL, so lws never announces its sockets
 * (ADD/DEL/CHANGE_MODE_POLL_FD are compiled out) and an epoll set of our own cannot mirror them.
 * It does ship the libev event-lib plugin, which keeps one libev watcher per socket and direction;
 * libev waits in epoll_wait, so a pass costs the sockets that are ready, not all of them. The loop
 * is "foreign" to lws (we create and run it), so the service thread still runs one pass at a time
 * and drains its jobs between passes, as with lws_service().
 *
 * Timers are ours, not the plugin's: the plugin re-arms its one libev timer with ev_timer_set on a
 * timer that may still be active, which libev ignores, so a timer scheduled earlier than the one
 * armed (a frame due in 16 ms while a ping is armed for 30 s) waited for the later one. Here a
 * prepare watcher runs lws's ripe timers before every wait and arms our own libev timer for the
 * earliest remaining one, read from lws's timer lists (through the owner of a sul scheduled once).
 *
 * Writeable requests: the plugin turns each lws_callback_on_writable into a write watcher that
 * libev adds to epoll (epoll_ctl) and removes once served (epoll_ctl again): two system calls per
 * message on the queued send path. scws_request_writable also lists the socket, and the same
 * prepare watcher serves listed sockets as writeable before the wait; lws starts and stops the
 * write watcher within the pass, so libev has nothing to change in epoll. Only sockets with room
 * are served there (scws_find_room), mostly known without a system call. */
#include "context_private.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>

#define SCWS_EVLIB_PLUGIN LWS_INSTALL_LIBDIR "/libwebsockets-evlib_ev.so"

static int scws_poll_requested(void) {
    const char *choice = getenv("SCROLLCAST_EVENT_LOOP");
    return choice && strcmp(choice, "poll") == 0;
}

int scws_event_loop_prepare(struct scws_context *c, struct lws_context_creation_info *info) {
    if (scws_poll_requested()) return 0;
    if (access(SCWS_EVLIB_PLUGIN, R_OK) != 0) {
        lwsl_warn("%s missing (Debian package libwebsockets-evlib-ev): lws polls every socket instead of epoll\n",
                  SCWS_EVLIB_PLUGIN);
        return 0;
    }
    /* NOSIGMASK: libev leaves the thread's signal mask alone (no signal watchers here). */
    c->loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_NOENV | EVFLAG_NOSIGMASK);
    if (!c->loop) {
        lwsl_err("could not create an epoll loop (ev_loop_new)\n");
        return 1;
    }
    c->foreign_loops[0] = c->loop;
    info->options |= LWS_SERVER_OPTION_LIBEV;
    info->foreign_loops = c->foreign_loops;
    return 0;
}

/* Runs lws's ripe timers and arms `lws_timers` for the earliest one left. */
static void scws_run_lws_timers(struct scws_context *c) {
    lws_usec_t now = lws_now_usecs();
    lws_usec_t wait = __lws_sul_service_ripe(c->sul_owners, LWS_COUNT_PT_SUL_OWNERS, now);
    if (!wait) {
        if (c->armed_due) ev_timer_stop(c->loop, &c->lws_timers);
        c->armed_due = 0;
        return;
    }
    lws_usec_t due = now + wait;
    if (due == c->armed_due && ev_is_active(&c->lws_timers)) return;
    ev_timer_stop(c->loop, &c->lws_timers);
    /* libev measures the wait from its cached "now", taken before this pass's callbacks ran. */
    ev_now_update(c->loop);
    ev_timer_set(&c->lws_timers, (double)wait / 1e6, 0.);
    ev_timer_start(c->loop, &c->lws_timers);
    c->armed_due = due;
}

static void scws_lws_timers_due(struct ev_loop *loop, ev_timer *timer, int events) {
    (void)loop; (void)events;
    struct scws_context *c = timer->data;
    c->armed_due = 0;
    scws_run_lws_timers(c);
}

/* The context this thread serves (set by scws_context_service; one per service thread), for
 * scws_request_writable, which also runs between passes (jobs drained after a pass). */
static __thread struct scws_context *scws_serving;

/* Grows the per-descriptor arrays to cover `fd`; nonzero without memory. */
static int scws_cover_fd(struct scws_context *c, int fd) {
    if (fd < c->marked_capacity) return 0;
    int capacity = c->marked_capacity ? c->marked_capacity : 1024;
    while (capacity <= fd) capacity *= 2;
    unsigned char *marked = realloc(c->writable_marked, (size_t)capacity);
    if (!marked) return -1;
    memset(marked + c->marked_capacity, 0, (size_t)(capacity - c->marked_capacity));
    c->writable_marked = marked;
    struct lws **room = realloc(c->room_after_write, (size_t)capacity * sizeof(*room));
    if (!room) return -1;
    memset(room + c->marked_capacity, 0, (size_t)(capacity - c->marked_capacity) * sizeof(*room));
    c->room_after_write = room;
    c->marked_capacity = capacity;
    return 0;
}

static int scws_list_writable(struct scws_context *c, int fd) {
    if (scws_cover_fd(c, fd)) return -1;
    if (c->writable_marked[fd]) return 0;
    if (c->writable_count == c->writable_capacity) {
        int capacity = c->writable_capacity ? c->writable_capacity * 2 : 256;
        int *fds = realloc(c->writable_fds, (size_t)capacity * sizeof(int));
        if (!fds) return -1;
        c->writable_fds = fds;
        c->writable_capacity = capacity;
    }
    c->writable_fds[c->writable_count++] = fd;
    c->writable_marked[fd] = 1;
    return 0;
}

void scws_note_write(struct lws *wsi, int written, size_t length, int left_pending) {
    struct scws_context *c = scws_serving;
    if (!c || !c->loop || lws_get_context(wsi) != c->lws) return;
    int fd = lws_get_socket_fd(wsi);
    if (fd < 0 || scws_cover_fd(c, fd)) return;
    int took_all = written >= 0 && (size_t)written == length && !left_pending && !lws_partial_buffered(wsi);
    c->room_after_write[fd] = took_all ? wsi : NULL;
}

int scws_request_writable(struct lws *wsi) {
    int result = lws_callback_on_writable(wsi);
    struct scws_context *c = scws_serving;
    if (c && c->loop && lws_get_context(wsi) == c->lws) {
        int fd = lws_get_socket_fd(wsi);
        /* Unlisted (no memory), the request still stands with lws and epoll serves it. */
        if (fd >= 0) (void)scws_list_writable(c, fd);
    }
    return result;
}

int scws_request_writable_when_room(struct lws *wsi) {
    struct scws_context *c = scws_serving;
    int fd = lws_get_socket_fd(wsi);
    if (c && c->loop && fd >= 0 && fd < c->marked_capacity) c->room_after_write[fd] = NULL;
    return lws_callback_on_writable(wsi);
}

/* Which of the `count` listed sockets have room now, in `c->room_ready` (their wsi, or NULL; false
 * if there was no memory for the answer). A connection with output lws still buffers has none
 * (as in lws_send_pipe_choked). One whose last write the kernel took whole is taken to have room,
 * without a system call: the common case, a viewer that keeps up. The kernel's buffer may have
 * filled on exactly that write; then the next write finds EAGAIN, lws keeps the message and waits
 * for POLLOUT itself (lws_issue_raw buffers the rest and asks for a writeable callback), so
 * nothing is lost, and the close path checks room for itself (ServerCallback.writeable). The
 * others (fresh connections, those whose last write lws had to buffer) are asked together: one
 * poll() over all of them, where lws_send_pipe_choked polls each alone. A socket closed since it
 * was listed has no wsi and gets no room. */
static int scws_find_room(struct scws_context *c, const int *fds, int count) {
    if (count > c->room_capacity) {
        struct pollfd *polled = realloc(c->room_polled, (size_t)count * sizeof(*polled));
        if (polled) c->room_polled = polled;
        int *slots = realloc(c->room_slots, (size_t)count * sizeof(*slots));
        if (slots) c->room_slots = slots;
        struct lws **ready = realloc(c->room_ready, (size_t)count * sizeof(*ready));
        if (ready) c->room_ready = ready;
        if (!polled || !slots || !ready) return 0;
        c->room_capacity = count;
    }
    struct lws **ready = c->room_ready;
    int polled = 0;
    for (int n = 0; n < count; n++) {
        ready[n] = wsi_from_fd(c->lws, fds[n]);
        if (!ready[n]) continue;
        if (lws_partial_buffered(ready[n])) { ready[n] = NULL; continue; }
        if (c->room_after_write[fds[n]] == ready[n]) continue;
        c->room_polled[polled] = (struct pollfd){ .fd = fds[n], .events = POLLOUT };
        c->room_slots[polled++] = n;
    }
    if (!polled) return 1;
    int answered = poll(c->room_polled, (nfds_t)polled, 0);
    for (int p = 0; p < polled; p++) {
        if (answered <= 0 || !(c->room_polled[p].revents & POLLOUT)) ready[c->room_slots[p]] = NULL;
    }
    return 1;
}

/* Serves the listed sockets that have room as writeable (scws_find_room: one poll() for all of
 * them). A full socket waits for epoll: a writeable callback now would hand lws a message (or a
 * close frame) the kernel cannot take, which lws then holds on its own terms (bench/
 * where-the-time-goes.md §11). A descriptor reused since it was listed gets one writeable
 * callback it did not ask for, which writes what it has queued, if anything. Requests made while
 * serving are served in the next round; a few rounds at most, then epoll takes the rest. */
static void scws_serve_writable(struct scws_context *c) {
    for (int round = 0; round < 4 && c->writable_count; round++) {
        int count = c->writable_count;
        int *fds = c->writable_fds;
        c->writable_fds = NULL;
        c->writable_count = c->writable_capacity = 0;
        for (int n = 0; n < count; n++) c->writable_marked[fds[n]] = 0;
        /* Without memory for the answer nothing is served here; epoll serves every request. */
        if (scws_find_room(c, fds, count)) {
            for (int n = 0; n < count; n++) {
                struct lws *wsi = c->room_ready[n];
                /* Serving one can close another: only a wsi still on its socket is served. */
                if (!wsi || wsi_from_fd(c->lws, fds[n]) != wsi) continue;
                struct lws_pollfd event = { .fd = fds[n], .events = LWS_POLLOUT, .revents = LWS_POLLOUT };
                lws_service_fd(c->lws, &event);
            }
        }
        free(fds);
    }
}

static void scws_before_wait(struct ev_loop *loop, ev_prepare *prepare, int events) {
    (void)loop; (void)events;
    struct scws_context *c = prepare->data;
    /* Timers first: a room tick ripe now (ServiceLoop sleeps through sub-millisecond waits, so
     * most are) broadcasts, and its writeable requests are served just below; served after the
     * wait instead, each would cost libev an epoll_ctl on and one off (§11). */
    scws_run_lws_timers(c);
    scws_serve_writable(c);
}

static void scws_anchor_fired(lws_sorted_usec_list_t *sul) { (void)sul; }

void scws_event_loop_attach(struct scws_context *c) {
    if (!c->loop) return;
    /* A scheduled sul's list node names its owner: the first of the service thread's sul lists. */
    lws_sorted_usec_list_t anchor;
    memset(&anchor, 0, sizeof(anchor));
    lws_sul_schedule(c->lws, 0, &anchor, scws_anchor_fired, 3600 * LWS_USEC_PER_SEC);
    c->sul_owners = anchor.list.owner;
    lws_sul_cancel(&anchor);
    ev_timer_init(&c->lws_timers, scws_lws_timers_due, 0., 0.);
    c->lws_timers.data = c;
    ev_prepare_init(&c->before_wait, scws_before_wait);
    c->before_wait.data = c;
    ev_prepare_start(c->loop, &c->before_wait);
}

void scws_event_loop_destroy(struct scws_context *c) {
    if (scws_serving == c) scws_serving = NULL;
    if (!c->loop) return;
    ev_timer_stop(c->loop, &c->lws_timers);
    ev_prepare_stop(c->loop, &c->before_wait);
    ev_loop_destroy(c->loop);
    c->loop = NULL;
    free(c->writable_fds);
    free(c->writable_marked);
    free(c->room_polled);
    free(c->room_slots);
    free(c->room_ready);
    free(c->room_after_write);
}

int scws_context_uses_epoll(scws_context *c) { return c->loop != NULL; }

int scws_context_service(scws_context *c) {
    scws_serving = c;
    if (!c->loop) return lws_service(c->lws, 0);
    ev_run(c->loop, EVRUN_ONCE);
    return 0;
}
