#define _GNU_SOURCE
#include "CWebSocketsShim.h"
#include <ev.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* lws_create_context / lws_context_destroy touch process-wide state (OpenSSL and zlib set-up,
 * lws globals, dlopen of the event-loop plugin); contexts created or destroyed at the same time on
 * different threads corrupted the heap in tests here, so both are serialised, with the libev loop
 * each context runs on. */
static pthread_mutex_t scws_lifecycle_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned int scws_lws_pre(void) { return LWS_PRE; }

void scws_name_current_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof(shortened) - 1);
    shortened[sizeof(shortened) - 1] = '\0';
    pthread_setname_np(pthread_self(), shortened);
}

scws_timer *scws_timer_from_sul(lws_sorted_usec_list_t *sul) {
    return lws_container_of(sul, scws_timer, sul);
}

struct scws_context {
    struct lws_context *lws;
    struct lws_protocols protocols[2];
    struct lws_extension extensions[2];
    lws_retry_bo_t retry;
    char *host;
    char *protocol_name;
    /* The libev loop lws runs on as a "foreign" loop; NULL when lws polls by itself. */
    struct ev_loop *loop;
    /* Wakes the loop when the earliest lws timer (sul) is due; see scws_arm_sul_pump. */
    ev_timer sul_pump;
    /* The service thread's array of LWS_COUNT_PT_SUL_OWNERS timer lists, inside lws. */
    lws_dll2_owner_t *sul_owners;
};


/* Layout of the buffers lws hands permessage-deflate with LWS_EXT_CB_PAYLOAD_TX (private in lws). */
struct scws_pmd_ebufs {
    struct lws_tokens eb_in;
    struct lws_tokens eb_out;
};

/* lws's private enum pmd_return: PMDR_HAS_PENDING means input is still inside the compressor. */
#define SCWS_PMDR_HAS_PENDING 2

static __thread int scws_tx_pending;

int scws_last_write_left_pending(void) { return scws_tx_pending; }

/* lws's default compressor output buffer (2^10 bytes). Raising it with the "tx_buf_size" option
 * corrupted the heap in tests here, so it stays. */
#define SCWS_TX_PWR2 10

/* Whether deflating `len` bytes (plus the sync-flush trailer) surely fits one compressor buffer. */
static int scws_fits_one_buffer(size_t len, int pwr2) {
    return len + (len >> 6) + 64 < ((size_t)1 << pwr2);
}

/* Wraps lws's permessage-deflate to keep it on the one path of lws 4.1 that is sound: a whole
 * message compressed into one buffer in one step. When compressed output overflows lws's buffer, lws "drains" it
 * over later writes, keeps pointing into the caller's buffer, and can assert() when the overflow
 * lands on the sync-flush trailer; deflating an empty message asserts too. Messages that might
 * overflow, and empty ones, are sent uncompressed (RSV1 clear), which RFC 7692 allows. */
static int scws_pm_deflate(struct lws_context *context, const struct lws_extension *ext,
                           struct lws *wsi, enum lws_extension_callback_reasons reason,
                           void *user, void *in, size_t len) {
    int n;
    switch ((int)reason) {
    case LWS_EXT_CB_PAYLOAD_TX: {
        struct scws_pmd_ebufs *ebufs = in;
        if (ebufs && ebufs->eb_in.token && !(len & LWS_WRITE_NO_FIN) &&
            (!ebufs->eb_in.len || !scws_fits_one_buffer((size_t)ebufs->eb_in.len, SCWS_TX_PWR2))) {
            ebufs->eb_out = ebufs->eb_in;
            scws_tx_pending = 0;
            return 0;
        }
        n = lws_extension_callback_pm_deflate(context, ext, wsi, reason, user, in, len);
        scws_tx_pending = n == SCWS_PMDR_HAS_PENDING;
        return n;
    }
    default:
        return lws_extension_callback_pm_deflate(context, ext, wsi, reason, user, in, len);
    }
}

/* ---- event loop -------------------------------------------------------------------------------
 * lws 4.1.6 runs on libev as a "foreign" loop: we own the ev_loop, lws adds its watchers to it,
 * and the service thread runs it one pass at a time so queued jobs are drained between passes.
 *
 * lws's libev plugin only re-arms its own timer from inside its watcher callbacks, and re-arms it
 * with ev_timer_set + ev_timer_start on a possibly active watcher, so an lws timer scheduled
 * between passes, or earlier than the one already armed (ev_timer_start ignores an active watcher),
 * could wait for unrelated socket traffic.
 * The shim therefore runs lws's timer lists itself before every pass (__lws_sul_service_ripe, in
 * lws's public timer header) and arms one ev_timer of its own for the next deadline. */

static void scws_sul_pump_fired(struct ev_loop *loop, ev_timer *timer, int revents) {
    /* Nothing to do here: waking ev_run is the point; the next pass services the ripe timers. */
    (void)loop; (void)timer; (void)revents;
}

static void scws_noop_sul(lws_sorted_usec_list_t *sul) { (void)sul; }

/* The timer lists live in lws's private per-thread struct. A scheduled sul points back at its
 * list's owner, and lws_sul_schedule always uses list 0 of the array, so one probe finds them. */
static lws_dll2_owner_t *scws_find_sul_owners(struct lws_context *lws) {
    lws_sorted_usec_list_t probe;
    memset(&probe, 0, sizeof(probe));
    lws_sul_schedule(lws, 0, &probe, scws_noop_sul, (lws_usec_t)3600 * LWS_US_PER_SEC);
    lws_dll2_owner_t *owners = probe.list.owner;
    lws_sul_cancel(&probe);
    return owners;
}

static void scws_arm_sul_pump(struct scws_context *c) {
    lws_usec_t wait = __lws_sul_service_ripe(c->sul_owners, LWS_COUNT_PT_SUL_OWNERS, lws_now_usecs());
    ev_timer_stop(c->loop, &c->sul_pump);
    if (wait > 0) {
        ev_now_update(c->loop);
        ev_timer_set(&c->sul_pump, (ev_tstamp)wait / 1e6, 0.);
        ev_timer_start(c->loop, &c->sul_pump);
    }
}

/* epoll, else whatever libev finds (poll/select), else NULL (lws then polls by itself).
 * NOSIGMASK: the loop has no signal watchers, so libev must leave the thread's signal mask alone. */
static struct ev_loop *scws_new_loop(void) {
    struct ev_loop *loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_NOSIGMASK);
    if (!loop) loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
    return loop;
}

/* Creates the lws context on a new libev loop (or on lws's own poll() when asked or when libev
 * has no loop to give); 0 on success. lws reads foreign_loops only while creating the context. */
static int scws_create_lws(struct scws_context *c, struct lws_context_creation_info *info,
                           scws_event_loop requested) {
    void *foreign_loops[1] = { NULL };
    pthread_mutex_lock(&scws_lifecycle_lock);
    c->loop = requested == SCWS_EVENT_LOOP_EPOLL ? scws_new_loop() : NULL;
    if (c->loop) {
        foreign_loops[0] = c->loop;
        info->options |= LWS_SERVER_OPTION_LIBEV;
        info->foreign_loops = foreign_loops;
    }
    c->lws = lws_create_context(info);
    if (!c->lws && c->loop) {
        ev_loop_destroy(c->loop);
        c->loop = NULL;
    }
    pthread_mutex_unlock(&scws_lifecycle_lock);
    if (!c->lws) return -1;
    if (c->loop) {
        c->sul_owners = scws_find_sul_owners(c->lws);
        ev_timer_init(&c->sul_pump, scws_sul_pump_fired, 0., 0.);
        c->sul_pump.data = c;
    }
    return 0;
}

int scws_context_service(scws_context *c) {
    if (!c->loop) return lws_service(c->lws, 0);
    scws_arm_sul_pump(c);
    ev_run(c->loop, EVRUN_ONCE);
    return 0;
}

const char *scws_context_backend(scws_context *c) {
    if (!c->loop) return "lws-poll";
    switch (ev_backend(c->loop)) {
    case EVBACKEND_EPOLL: return "epoll";
    case EVBACKEND_POLL: return "poll";
    case EVBACKEND_SELECT: return "select";
    default: return "libev-other";
    }
}

static void scws_fill_extensions(struct scws_context *c) {
    memset(c->extensions, 0, sizeof(c->extensions));
    c->extensions[0].name = "permessage-deflate";
    c->extensions[0].callback = scws_pm_deflate;
    c->extensions[0].client_offer = "permessage-deflate; client_max_window_bits";
}

scws_context *scws_server_create(const scws_server_options *o) {
    struct scws_context *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->host = o->host ? strdup(o->host) : NULL;
    c->protocol_name = strdup(o->protocol_name ? o->protocol_name : "ws");
    c->protocols[0].name = c->protocol_name;
    c->protocols[0].callback = o->callback;
    c->protocols[0].per_session_data_size = 0;
    c->protocols[0].rx_buffer_size = o->rx_buffer_size;
    scws_fill_extensions(c);
    c->retry.secs_since_valid_ping = (uint16_t)o->ping_seconds;
    c->retry.secs_since_valid_hangup = (uint16_t)o->hangup_seconds;

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = o->port;
    info.iface = c->host;
    info.protocols = c->protocols;
    info.extensions = o->permessage_deflate ? c->extensions : NULL;
    info.user = o->user;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;
    info.max_http_header_data = (unsigned short)o->max_http_header_bytes;
    info.timeout_secs = o->http_timeout_seconds;
    info.retry_and_idle_policy = &c->retry;
    if (scws_create_lws(c, &info, o->event_loop)) {
        free(c->host); free(c->protocol_name); free(c);
        return NULL;
    }
    return c;
}

scws_context *scws_client_create(lws_callback_function *callback, void *user, size_t rx_buffer_size,
                                 int offer_deflate, scws_event_loop event_loop) {
    struct scws_context *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->protocol_name = strdup("scws-client");
    c->protocols[0].name = c->protocol_name;
    c->protocols[0].callback = callback;
    c->protocols[0].rx_buffer_size = rx_buffer_size;
    scws_fill_extensions(c);

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = c->protocols;
    info.extensions = offer_deflate ? c->extensions : NULL;
    info.user = user;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_JUST_USE_RAW_ORIGIN;
    info.timeout_secs = 10;
    info.connect_timeout_secs = 10;
    if (scws_create_lws(c, &info, event_loop)) {
        free(c->protocol_name); free(c);
        return NULL;
    }
    return c;
}

struct lws_context *scws_context_lws(scws_context *c) { return c->lws; }

int scws_context_listen_port(scws_context *c) {
    struct lws_vhost *vh = lws_get_vhost_by_name(c->lws, "default");
    return vh ? lws_get_vhost_listen_port(vh) : -1;
}

void scws_context_destroy(scws_context *c) {
    if (!c) return;
    /* lws stops its watchers while it destroys the context, so the loop must outlive it; the
     * context is wholly gone when lws_context_destroy returns (libev has no async handle close). */
    if (c->loop) ev_timer_stop(c->loop, &c->sul_pump);
    pthread_mutex_lock(&scws_lifecycle_lock);
    lws_context_destroy(c->lws);
    if (c->loop) ev_loop_destroy(c->loop);
    pthread_mutex_unlock(&scws_lifecycle_lock);
    free(c->host);
    free(c->protocol_name);
    free(c);
}

struct lws *scws_client_connect(scws_context *c, const char *address, int port, const char *path,
                                const char *host, const char *origin, const char *protocol, void *userdata) {
    struct lws_client_connect_info i;
    memset(&i, 0, sizeof(i));
    i.context = c->lws;
    i.address = address;
    i.port = port;
    i.path = path;
    i.host = host;
    i.origin = origin;
    i.protocol = protocol;
    i.local_protocol_name = c->protocol_name;
    i.userdata = userdata;
    i.ietf_version_or_minus_one = -1;
    return lws_client_connect_via_info(&i);
}

int scws_http_write_headers(struct lws *wsi, unsigned int status, const char *content_type,
                            uint64_t content_length, const char *const *names,
                            const char *const *values, int count) {
    unsigned char buffer[LWS_PRE + 4096];
    unsigned char *start = buffer + LWS_PRE, *p = start, *end = buffer + sizeof(buffer) - 1;
    if (lws_add_http_common_headers(wsi, status, content_type, (lws_filepos_t)content_length, &p, end))
        return 1;
    for (int n = 0; n < count; n++) {
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)names[n],
                                        (const unsigned char *)values[n], (int)strlen(values[n]), &p, end))
            return 1;
    }
    return lws_finalize_write_http_header(wsi, start, &p, end) ? 1 : 0;
}

int scws_http_write_body(struct lws *wsi, const void *bytes, size_t length) {
    unsigned char *buffer = malloc(LWS_PRE + length + 1);
    if (!buffer) return -1;
    if (length) memcpy(buffer + LWS_PRE, bytes, length);
    int n = lws_write(wsi, buffer + LWS_PRE, length, LWS_WRITE_HTTP_FINAL);
    free(buffer);
    return n;
}

int scws_ws_write(struct lws *wsi, unsigned char *buffer_with_headroom, size_t length, int is_binary) {
    scws_tx_pending = 0;
    return lws_write(wsi, buffer_with_headroom + LWS_PRE, length, is_binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
}
