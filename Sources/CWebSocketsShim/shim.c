#define _GNU_SOURCE
#include "CWebSocketsShim.h"
#include "context_private.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* lws_create_context / lws_context_destroy touch process-wide state (OpenSSL and zlib set-up,
 * lws globals); contexts created or destroyed at the same time on different threads corrupted the
 * heap in tests here, so both are serialised. */
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

/* Frees the bundle; its lws context, if any, is already destroyed. */
static void scws_context_free(struct scws_context *c) {
    scws_event_loop_destroy(c);
    for (int n = 0; n < c->protocol_count; n++) free((char *)c->protocols[n].name);
    free(c->protocols);
    free(c->host);
    free(c);
}

/* A bundle with room for `count` protocols (names copied, callback shared); NULL on failure. */
static struct scws_context *scws_context_alloc(const char *const *names, int count,
                                               lws_callback_function *callback) {
    struct scws_context *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->protocols = calloc((size_t)count + 1, sizeof(*c->protocols));
    if (!c->protocols) { free(c); return NULL; }
    for (int n = 0; n < count; n++) {
        c->protocols[n].name = strdup(names[n]);
        if (!c->protocols[n].name) {
            scws_context_free(c);
            return NULL;
        }
        c->protocols[n].callback = callback;
        c->protocols[n].id = (unsigned int)n;
        c->protocol_count = n + 1;
    }
    return c;
}


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

static void scws_fill_extensions(struct scws_context *c) {
    memset(c->extensions, 0, sizeof(c->extensions));
    c->extensions[0].name = "permessage-deflate";
    c->extensions[0].callback = scws_pm_deflate;
    c->extensions[0].client_offer = "permessage-deflate; client_max_window_bits";
}

#define SCWS_TX_PACKET_BYTES 65536

scws_context *scws_server_create(const scws_server_options *o) {
    static const char *const no_subprotocol[] = { "scws-none" };
    const char *const *names = o->protocol_count > 0 ? o->protocol_names : no_subprotocol;
    int count = o->protocol_count > 0 ? o->protocol_count : 1;
    struct scws_context *c = scws_context_alloc(names, count, o->callback);
    if (!c) return NULL;
    for (int n = 0; n < count; n++) {
        c->protocols[n].rx_buffer_size = o->rx_buffer_size;
        /* lws hands send() at most this much per write (default: its 4 KiB service buffer) and
         * copies the rest to its output list for later passes; a corked write of several messages
         * (CorkedWrite.swift, up to 64 KiB) is meant to be one send(). */
        c->protocols[n].tx_packet_size = SCWS_TX_PACKET_BYTES;
    }
    c->host = o->host ? strdup(o->host) : NULL;
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
    if (scws_event_loop_prepare(c, &info)) {
        scws_context_free(c);
        return NULL;
    }
    pthread_mutex_lock(&scws_lifecycle_lock);
    c->lws = lws_create_context(&info);
    pthread_mutex_unlock(&scws_lifecycle_lock);
    if (!c->lws) {
        scws_context_free(c);
        return NULL;
    }
    scws_event_loop_attach(c);
    return c;
}

struct lws_context *scws_context_lws(scws_context *c) { return c->lws; }

int scws_context_listen_port(scws_context *c) {
    struct lws_vhost *vh = lws_get_vhost_by_name(c->lws, "default");
    return vh ? lws_get_vhost_listen_port(vh) : -1;
}

void scws_context_destroy(scws_context *c) {
    if (!c) return;
    pthread_mutex_lock(&scws_lifecycle_lock);
    lws_context_destroy(c->lws);
    pthread_mutex_unlock(&scws_lifecycle_lock);
    scws_context_free(c);
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
    int n = lws_write(wsi, buffer_with_headroom + LWS_PRE, length, is_binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
    scws_note_write(wsi, n, length, scws_tx_pending);
    return n;
}

/* ---- Raw client: the WebSocket framing is done in Swift over an lws RAW connection. ---- */

scws_context *scws_raw_client_create(lws_callback_function *callback, void *user, unsigned int read_buffer_size) {
    static const char *const names[] = { "scws-raw-client" };
    struct scws_context *c = scws_context_alloc(names, 1, callback);
    if (!c) return NULL;

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = c->protocols;
    info.user = user;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    /* RAW_RX hands over at most one service buffer per read: a large one means fewer callbacks. */
    info.pt_serv_buf_size = read_buffer_size;
    info.timeout_secs = 10;
    info.connect_timeout_secs = 10;
    if (scws_event_loop_prepare(c, &info)) {
        scws_context_free(c);
        return NULL;
    }
    pthread_mutex_lock(&scws_lifecycle_lock);
    c->lws = lws_create_context(&info);
    pthread_mutex_unlock(&scws_lifecycle_lock);
    if (!c->lws) {
        scws_context_free(c);
        return NULL;
    }
    scws_event_loop_attach(c);
    return c;
}

struct lws *scws_raw_client_connect(scws_context *c, const char *address, int port, void *userdata) {
    struct lws_client_connect_info i;
    memset(&i, 0, sizeof(i));
    i.context = c->lws;
    i.address = address;
    i.port = port;
    i.host = address;
    i.method = "RAW";
    i.local_protocol_name = c->protocols[0].name;
    i.userdata = userdata;
    return lws_client_connect_via_info(&i);
}

int scws_raw_write(struct lws *wsi, unsigned char *buffer_with_headroom, size_t length) {
    int n = lws_write(wsi, buffer_with_headroom + LWS_PRE, length, LWS_WRITE_RAW);
    scws_note_write(wsi, n, length, 0);
    return n;
}

void scws_kill_async(struct lws *wsi) {
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}
