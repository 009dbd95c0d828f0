#include "CWebSocketsShim.h"
#include <stdio.h>
#include <string.h>

/* lws_return_http_status writes "HTTP/1.0" before an upgrade (lws learns the request's version
 * only after its upgrade check), which some clients refuse to read at all (Python websockets:
 * "did not receive a valid HTTP response"). So refusals are written here, as lws_return_http_status
 * does, but with an HTTP/1.1 status line, a plain-text body and "connection: close". */
int scws_http_refuse(struct lws *wsi, unsigned int status, const char *phrase, const char *body) {
    unsigned char buffer[LWS_PRE + 2048];
    unsigned char *start = buffer + LWS_PRE, *p = start, *end = buffer + sizeof(buffer) - 1;
    size_t body_length = strlen(body);
    char line[96], length[24];
    int n = snprintf(line, sizeof(line), "HTTP/1.1 %u %s", status, phrase);
    if (n <= 0 || (size_t)n >= sizeof(line) || body_length > 1024) return 1;
    if (lws_add_http_header_by_name(wsi, NULL, (const unsigned char *)line, n, &p, end)) return 1;
    static const char type[] = "text/plain; charset=utf-8";
    if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, (const unsigned char *)type,
                                     (int)sizeof(type) - 1, &p, end)) return 1;
    n = snprintf(length, sizeof(length), "%zu", body_length);
    if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, (const unsigned char *)length, n, &p, end))
        return 1;
    if (lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5, &p, end)) return 1;
    if (lws_finalize_http_header(wsi, &p, end)) return 1;
    if ((size_t)(end - p) < body_length) return 1;
    memcpy(p, body, body_length);
    p += body_length;
    int total = (int)(p - start);
    return lws_write(wsi, start, (size_t)total, LWS_WRITE_HTTP) == total ? 0 : 1;
}
