#ifndef CWEBSOCKETSSHIM_H
#define CWEBSOCKETSSHIM_H
#include <libwebsockets.h>
#include <stddef.h>
#include <stdint.h>

/// LWS_PRE is built with a padding macro Swift cannot import.
unsigned int scws_lws_pre(void);

/// pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc import does not define.
void scws_name_current_thread(const char *name);

/// lws_sul_schedule hands back only the list node: the owner pointer sits beside it in one struct.
typedef struct scws_timer {
    lws_sorted_usec_list_t sul;
    void *owner;
    uint64_t id;
} scws_timer;

/// container_of is a macro; recovers the timer from the node lws gives the callback.
scws_timer *scws_timer_from_sul(lws_sorted_usec_list_t *sul);

/// Options for a listening context; plain C so the Swift side never fills lws's large info struct.
typedef struct scws_server_options {
    const char *host;
    int port;
    /// One lws protocol per name, in this order, all served by `callback`; each entry's `id` is its
    /// index here, so `lws_get_protocol(wsi)->id` tells which one a connection was bound to. lws
    /// binds a WebSocket to the first name in the client's Sec-WebSocket-Protocol list that is one
    /// of these, and one that sends no such header to entry 0. With `protocol_count` 0 a single
    /// entry named "scws-none" is registered, so such WebSockets still have a protocol to land on.
    const char *const *protocol_names;
    int protocol_count;
    lws_callback_function *callback;
    void *user;
    unsigned int max_http_header_bytes;
    unsigned int http_timeout_seconds;
    unsigned int ping_seconds;
    unsigned int hangup_seconds;
    size_t rx_buffer_size;
    /// Nonzero offers permessage-deflate. Off by default: lws 4.1.6's inflater aborts the process
    /// (assert in its "RX trailer" path) on compressed input a peer can choose.
    int permessage_deflate;
} scws_server_options;

/// The protocols array, extension list, retry policy and strings must outlive the context, so one
/// malloc'd bundle owns them and is freed only after lws_context_destroy.
typedef struct scws_context scws_context;

/// Creates a listening context (UTF-8 validation on, permessage-deflate if asked); NULL on failure.
scws_context *scws_server_create(const scws_server_options *options);

/// The lws context inside the bundle.
struct lws_context *scws_context_lws(scws_context *context);

/// Port the default vhost actually listens on (port 0 asks the kernel for any free one).
int scws_context_listen_port(scws_context *context);

/// Runs one pass of the context's loop on the service thread: waits for the next socket event or
/// timer, then serves what is ready. The loop is epoll (lws's libev plugin on a loop the bundle
/// owns; see event_loop.c) unless SCROLLCAST_EVENT_LOOP=poll was set at creation or the plugin is
/// missing, then lws's own poll() over every socket. Negative if lws reports a fatal error.
int scws_context_service(scws_context *context);

/// Whether the context runs on the epoll loop (1) or on lws's poll() loop (0).
int scws_context_uses_epoll(scws_context *context);

/// lws_callback_on_writable, and on the epoll loop also a promise to serve the connection as
/// writeable before the loop next waits, without waiting for epoll to report it: a writeable
/// request served within the pass costs no epoll_ctl, where one served by epoll costs two (the
/// write watcher on, then off). Only a connection with room is served there: known without a
/// system call when its last write went out whole, else asked (one poll() for all those listed);
/// a full one waits for epoll. A write that meets a full buffer anyway is kept by lws until POLLOUT.
/// Service thread only; returns lws_callback_on_writable's result.
int scws_request_writable(struct lws *wsi);

/// Asks for a writeable callback once the kernel has room for this connection (epoll's POLLOUT),
/// never from the shim's pass before the wait. Service thread only; lws_callback_on_writable's result.
int scws_request_writable_when_room(struct lws *wsi);

/// Destroys the lws context, then frees everything it borrowed.
void scws_context_destroy(scws_context *context);

/// The header helpers advance an unsigned char ** cursor through a buffer with LWS_PRE headroom:
/// done in C. Writes status + content type + length + extra headers; returns nonzero on failure.
int scws_http_write_headers(struct lws *wsi, unsigned int status, const char *content_type,
                            uint64_t content_length, const char *const *names,
                            const char *const *values, int count);

/// HTTP body writes need LWS_PRE headroom too; copies and writes as the final body chunk.
int scws_http_write_body(struct lws *wsi, const void *bytes, size_t length);

/// One WebSocket message frame from a buffer whose first LWS_PRE bytes are headroom.
int scws_ws_write(struct lws *wsi, unsigned char *buffer_with_headroom, size_t length, int is_binary);

/// Whether the last write on this thread left input inside permessage-deflate (lws then keeps
/// reading the caller's buffer on later passes). The extension wrapper avoids this; kept as a guard.
int scws_last_write_left_pending(void);

/// Creates a non-listening context for RAW client connections (the caller speaks WebSocket itself);
/// `read_buffer_size` bounds how many bytes one RAW_RX callback delivers. NULL on failure.
scws_context *scws_raw_client_create(lws_callback_function *callback, void *user, unsigned int read_buffer_size);

/// Starts a RAW TCP connection (method "RAW") bound to the raw client protocol; `userdata` becomes
/// the connection's user pointer. NULL if it could not even start.
struct lws *scws_raw_client_connect(scws_context *context, const char *address, int port, void *userdata);

/// Writes raw bytes from a buffer whose first LWS_PRE bytes are headroom; lws buffers what the
/// socket does not take at once. Returns lws_write's result (negative on failure).
int scws_raw_write(struct lws *wsi, unsigned char *buffer_with_headroom, size_t length);

/// Makes lws close the connection on its next service pass (safe from any callback or timer).
void scws_kill_async(struct lws *wsi);

/// Answers a request with `status` and `phrase` on an HTTP/1.1 status line, `body` as plain text
/// and "connection: close" (the refusal of an upgrade; see http_refusal.c). Nonzero on failure.
int scws_http_refuse(struct lws *wsi, unsigned int status, const char *phrase, const char *body);

/// Bytes the kernel has received from the peer on TCP socket `fd` so far (TCP_INFO), or -1.
long long scws_tcp_bytes_received(int fd);

#endif
