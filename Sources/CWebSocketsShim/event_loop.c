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
 * earliest remaining one, read from lws's timer lists (through the owner of a sul scheduled once). */
#include "context_private.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void scws_before_wait(struct ev_loop *loop, ev_prepare *prepare, int events) {
    (void)loop; (void)events;
    scws_run_lws_timers(prepare->data);
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
    if (!c->loop) return;
    ev_timer_stop(c->loop, &c->lws_timers);
    ev_prepare_stop(c->loop, &c->before_wait);
    ev_loop_destroy(c->loop);
    c->loop = NULL;
}

int scws_context_uses_epoll(scws_context *c) { return c->loop != NULL; }

int scws_context_service(scws_context *c) {
    if (!c->loop) return lws_service(c->lws, 0);
    ev_run(c->loop, EVRUN_ONCE);
    return 0;
}
