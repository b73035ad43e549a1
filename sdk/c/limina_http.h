/* limina_http.h: a small HTTP client over the standard `wasi:http` outgoing handler, for C
 * packages whose manifest declares network grants.
 *
 *     #include "limina_http.h"
 *
 *     limina_http_response r;
 *     char error[64];
 *     if (!limina_http_get("https://api.example.com/v1/items", &r, error, sizeof error))
 *         return limina_fail(out, LIMINA_HANDLER_ERROR, "the API could not be reached: %s", error);
 *     ... r.status, r.body (r.len bytes, NUL-terminated), r.content_type ...
 *     limina_http_response_free(&r);
 *
 * The host checks every request against the package's grants and the session's budget; a
 * refused one fails with the `wasi:http` error code's name in `error` (`HttpRequestDenied`,
 * `DestinationIpProhibited`, ...). Redirects are not followed: a 3xx comes back as it is.
 *
 * `limina pkg build` copies this file into `bindings/` beside `wasi_http_client.h` (the C
 * bindings of `wasi:http`, from wit-bindgen-c) when `limina.toml` declares `[grants] network`.
 * In native tests (`limina pkg test`, no LIMINA_WASM) every request fails with `NoNetwork`, so
 * handlers can be tested for that path without a host. Written for Limina; no third-party code.
 */
#ifndef LIMINA_HTTP_H
#define LIMINA_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One request header. */
typedef struct limina_http_header {
    const char *name;
    const char *value;
} limina_http_header;

/* An answer: the status, the body read up to the request's limit (NUL-terminated, `len`
 * bytes, owned: free it with limina_http_response_free) and the `content-type`, if any. */
typedef struct limina_http_response {
    uint16_t status;
    char *body;
    size_t len;
    char content_type[128];
} limina_http_response;

/* The most a response body is read to by limina_http_get. */
#define LIMINA_HTTP_DEFAULT_LIMIT ((size_t)1 << 20)

static inline void limina_http_response_free(limina_http_response *r) {
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

static inline void limina_http__say(char *error, size_t cap, const char *what) {
    if (cap > 0) snprintf(error, cap, "%s", what);
}

#ifdef LIMINA_WASM
#include "wasi_http_client.h"

/* The name of a `wasi:http` error code, as the host's refusals read. */
static inline const char *limina_http__code(uint8_t tag) {
    static const char *const NAMES[] = {
        "DnsTimeout", "DnsError", "DestinationNotFound", "DestinationUnavailable",
        "DestinationIpProhibited", "DestinationIpUnroutable", "ConnectionRefused",
        "ConnectionTerminated", "ConnectionTimeout", "ConnectionReadTimeout",
        "ConnectionWriteTimeout", "ConnectionLimitReached", "TlsProtocolError",
        "TlsCertificateError", "TlsAlertReceived", "HttpRequestDenied",
        "HttpRequestLengthRequired", "HttpRequestBodySize", "HttpRequestMethodInvalid",
        "HttpRequestUriInvalid", "HttpRequestUriTooLong", "HttpRequestHeaderSectionSize",
        "HttpRequestHeaderSize", "HttpRequestTrailerSectionSize", "HttpRequestTrailerSize",
        "HttpResponseIncomplete", "HttpResponseHeaderSectionSize", "HttpResponseHeaderSize",
        "HttpResponseBodySize", "HttpResponseTrailerSectionSize", "HttpResponseTrailerSize",
        "HttpResponseTransferCoding", "HttpResponseContentCoding", "HttpResponseTimeout",
        "HttpUpgradeFailed", "HttpProtocolError", "LoopDetected", "ConfigurationError",
        "InternalError",
    };
    return tag < sizeof NAMES / sizeof NAMES[0] ? NAMES[tag] : "UnknownError";
}

static inline bool limina_http__fail_code(wasi_http_types_error_code_t *code, char *error, size_t cap) {
    limina_http__say(error, cap, limina_http__code(code->tag));
    wasi_http_types_error_code_free(code);
    return false;
}

/* A stream failure: the `wasi:http` code behind it when there is one, else `what`. */
static inline bool limina_http__fail_stream(wasi_io_streams_stream_error_t *e, const char *what,
                                            char *error, size_t cap) {
    if (e->tag == WASI_IO_STREAMS_STREAM_ERROR_LAST_OPERATION_FAILED) {
        wasi_http_types_error_code_t code;
        bool known = wasi_http_types_http_error_code(
            wasi_io_error_borrow_error(e->val.last_operation_failed), &code);
        wasi_io_error_error_drop_own(e->val.last_operation_failed);
        if (known) return limina_http__fail_code(&code, error, cap);
    }
    limina_http__say(error, cap, what);
    return false;
}

static inline wasi_http_types_method_t limina_http__method(const char *name) {
    static const char *const KNOWN[] = {"GET", "HEAD", "POST", "PUT", "DELETE",
                                        "CONNECT", "OPTIONS", "TRACE", "PATCH"};
    wasi_http_types_method_t m;
    for (uint8_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++) {
        if (strcmp(name, KNOWN[i]) == 0) {
            m.tag = i;
            return m;
        }
    }
    m.tag = WASI_HTTP_TYPES_METHOD_OTHER;
    m.val.other.ptr = (uint8_t *)name;
    m.val.other.len = strlen(name);
    return m;
}

static inline wasi_http_client_string_t limina_http__str(const char *s, size_t len) {
    wasi_http_client_string_t out = {(uint8_t *)s, len};
    return out;
}

/* Sends the body in writes of at most 4096 bytes (what `blocking-write-and-flush` takes),
 * then finishes it. */
static inline bool limina_http__send_body(wasi_http_types_own_outgoing_body_t body, const void *data,
                                          size_t len, char *error, size_t cap) {
    wasi_http_types_own_output_stream_t stream;
    if (!wasi_http_types_method_outgoing_body_write(wasi_http_types_borrow_outgoing_body(body), &stream)) {
        limina_http__say(error, cap, "the request body was already taken");
        return false;
    }
    for (size_t at = 0; at < len;) {
        size_t n = len - at < 4096 ? len - at : 4096;
        wasi_http_client_list_u8_t chunk = {(uint8_t *)data + at, n};
        wasi_io_streams_stream_error_t e;
        if (!wasi_io_streams_method_output_stream_blocking_write_and_flush(
                wasi_io_streams_borrow_output_stream(stream), &chunk, &e)) {
            wasi_io_streams_output_stream_drop_own(stream);
            return limina_http__fail_stream(&e, "the request body could not be sent", error, cap);
        }
        at += n;
    }
    wasi_io_streams_output_stream_drop_own(stream);
    wasi_http_types_error_code_t code;
    if (!wasi_http_types_static_outgoing_body_finish(body, NULL, &code))
        return limina_http__fail_code(&code, error, cap);
    return true;
}

/* Reads at most `limit` bytes of the body into `r`. */
static inline bool limina_http__read_body(wasi_http_types_own_incoming_body_t body, size_t limit,
                                          limina_http_response *r, char *error, size_t cap) {
    wasi_http_types_own_input_stream_t stream;
    if (!wasi_http_types_method_incoming_body_stream(wasi_http_types_borrow_incoming_body(body), &stream)) {
        limina_http__say(error, cap, "the response body was already taken");
        return false;
    }
    size_t have = 0, room = 4096;
    char *buf = malloc(room + 1);
    bool ok = buf != NULL;
    while (ok && have < limit) {
        uint64_t want = limit - have < 65536 ? limit - have : 65536;
        wasi_http_client_list_u8_t chunk;
        wasi_io_streams_stream_error_t e;
        if (!wasi_io_streams_method_input_stream_blocking_read(
                wasi_io_streams_borrow_input_stream(stream), want, &chunk, &e)) {
            if (e.tag == WASI_IO_STREAMS_STREAM_ERROR_CLOSED) break;
            ok = limina_http__fail_stream(&e, "the response body could not be read", error, cap);
            break;
        }
        if (have + chunk.len > room) {
            while (have + chunk.len > room) room *= 2;
            char *grown = realloc(buf, room + 1);
            if (grown == NULL) {
                ok = false;
            } else {
                buf = grown;
            }
        }
        if (ok) {
            memcpy(buf + have, chunk.ptr, chunk.len);
            have += chunk.len;
        }
        wasi_http_client_list_u8_free(&chunk);
    }
    wasi_io_streams_input_stream_drop_own(stream);
    wasi_http_types_incoming_body_drop_own(body);
    if (!ok) {
        free(buf);
        if (error[0] == 0) limina_http__say(error, cap, "out of memory");
        return false;
    }
    buf[have] = 0;
    r->body = buf;
    r->len = have;
    return true;
}

/* Sends one request and reads the answer into `r` (at most `limit` bytes of body). `method`
 * is `GET`, `POST`, ... (any token); `url` an `http://` or `https://` URL; `body` may be NULL.
 * On failure returns false with the reason in `error` (and `r` left empty). */
static inline bool limina_http_request(const char *method, const char *url,
                                       const limina_http_header *headers, size_t header_count,
                                       const void *body, size_t body_len, size_t limit,
                                       limina_http_response *r, char *error, size_t cap) {
    memset(r, 0, sizeof *r);
    if (cap > 0) error[0] = 0;
    /* scheme://authority/path?query */
    wasi_http_types_scheme_t scheme;
    const char *rest;
    if (strncmp(url, "http://", 7) == 0) {
        scheme.tag = WASI_HTTP_TYPES_SCHEME_HTTP;
        rest = url + 7;
    } else if (strncmp(url, "https://", 8) == 0) {
        scheme.tag = WASI_HTTP_TYPES_SCHEME_HTTPS;
        rest = url + 8;
    } else {
        limina_http__say(error, cap, "not an http(s) URL");
        return false;
    }
    size_t authority_len = strcspn(rest, "/?");
    if (authority_len == 0) {
        limina_http__say(error, cap, "not an http(s) URL");
        return false;
    }
    const char *path = rest + authority_len;

    /* Headers, plus the body's length so servers that read only `content-length` get it. */
    size_t n = header_count + (body != NULL ? 1 : 0);
    wasi_http_types_tuple2_field_name_field_value_t *entries =
        calloc(n > 0 ? n : 1, sizeof *entries);
    char length[24];
    if (entries == NULL) {
        limina_http__say(error, cap, "out of memory");
        return false;
    }
    for (size_t i = 0; i < header_count; i++) {
        entries[i].f0 = limina_http__str(headers[i].name, strlen(headers[i].name));
        entries[i].f1.ptr = (uint8_t *)headers[i].value;
        entries[i].f1.len = strlen(headers[i].value);
    }
    if (body != NULL) {
        snprintf(length, sizeof length, "%zu", body_len);
        entries[header_count].f0 = limina_http__str("content-length", 14);
        entries[header_count].f1.ptr = (uint8_t *)length;
        entries[header_count].f1.len = strlen(length);
    }
    wasi_http_types_list_tuple2_field_name_field_value_t list = {entries, n};
    wasi_http_types_own_fields_t fields;
    wasi_http_types_header_error_t header_error;
    bool made = wasi_http_types_static_fields_from_list(&list, &fields, &header_error);
    free(entries);
    if (!made) {
        limina_http__say(error, cap, "a header is not allowed");
        return false;
    }

    wasi_http_types_own_outgoing_request_t request = wasi_http_types_constructor_outgoing_request(fields);
    wasi_http_types_borrow_outgoing_request_t req = wasi_http_types_borrow_outgoing_request(request);
    wasi_http_types_method_t m = limina_http__method(method);
    wasi_http_client_string_t authority = limina_http__str(rest, authority_len);
    wasi_http_client_string_t path_with_query = limina_http__str(*path ? path : "/", *path ? strlen(path) : 1);
    if (!wasi_http_types_method_outgoing_request_set_method(req, &m) ||
        !wasi_http_types_method_outgoing_request_set_scheme(req, &scheme) ||
        !wasi_http_types_method_outgoing_request_set_authority(req, &authority) ||
        !wasi_http_types_method_outgoing_request_set_path_with_query(req, &path_with_query)) {
        wasi_http_types_outgoing_request_drop_own(request);
        limina_http__say(error, cap, "not a valid request");
        return false;
    }
    wasi_http_types_own_outgoing_body_t outgoing;
    bool has_body = body != NULL && wasi_http_types_method_outgoing_request_body(req, &outgoing);

    wasi_http_types_own_future_incoming_response_t future;
    wasi_http_types_error_code_t code;
    if (!wasi_http_outgoing_handler_handle(request, NULL, &future, &code)) {
        if (has_body) wasi_http_types_outgoing_body_drop_own(outgoing);
        return limina_http__fail_code(&code, error, cap);
    }
    if (has_body && !limina_http__send_body(outgoing, body, body_len, error, cap)) {
        wasi_http_types_future_incoming_response_drop_own(future);
        return false;
    }

    wasi_http_types_result_result_own_incoming_response_error_code_void_t got;
    wasi_http_types_borrow_future_incoming_response_t fut = wasi_http_types_borrow_future_incoming_response(future);
    while (!wasi_http_types_method_future_incoming_response_get(fut, &got)) {
        wasi_http_types_own_pollable_t ready = wasi_http_types_method_future_incoming_response_subscribe(fut);
        wasi_io_poll_method_pollable_block(wasi_io_poll_borrow_pollable(ready));
        wasi_io_poll_pollable_drop_own(ready);
    }
    wasi_http_types_future_incoming_response_drop_own(future);
    if (got.is_err) {
        limina_http__say(error, cap, "the response was already taken");
        return false;
    }
    if (got.val.ok.is_err) return limina_http__fail_code(&got.val.ok.val.err, error, cap);
    wasi_http_types_own_incoming_response_t response = got.val.ok.val.ok;
    wasi_http_types_borrow_incoming_response_t resp = wasi_http_types_borrow_incoming_response(response);
    r->status = wasi_http_types_method_incoming_response_status(resp);

    wasi_http_types_own_headers_t answer = wasi_http_types_method_incoming_response_headers(resp);
    wasi_http_types_list_tuple2_field_name_field_value_t seen;
    wasi_http_types_method_fields_entries(wasi_http_types_borrow_fields(answer), &seen);
    for (size_t i = 0; i < seen.len; i++) {
        if (seen.ptr[i].f0.len == 12 && strncasecmp((const char *)seen.ptr[i].f0.ptr, "content-type", 12) == 0) {
            size_t len = seen.ptr[i].f1.len < sizeof r->content_type - 1 ? seen.ptr[i].f1.len
                                                                          : sizeof r->content_type - 1;
            memcpy(r->content_type, seen.ptr[i].f1.ptr, len);
            r->content_type[len] = 0;
        }
    }
    wasi_http_types_list_tuple2_field_name_field_value_free(&seen);
    wasi_http_types_fields_drop_own(answer);

    wasi_http_types_own_incoming_body_t incoming;
    bool consumed = wasi_http_types_method_incoming_response_consume(resp, &incoming);
    bool read = consumed && limina_http__read_body(incoming, limit, r, error, cap);
    if (!consumed) limina_http__say(error, cap, "the response body was already taken");
    wasi_http_types_incoming_response_drop_own(response);
    return read;
}

#else /* native tests: no host, no network */

static inline bool limina_http_request(const char *method, const char *url,
                                       const limina_http_header *headers, size_t header_count,
                                       const void *body, size_t body_len, size_t limit,
                                       limina_http_response *r, char *error, size_t cap) {
    (void)method, (void)url, (void)headers, (void)header_count, (void)body, (void)body_len, (void)limit;
    memset(r, 0, sizeof *r);
    limina_http__say(error, cap, "NoNetwork");
    return false;
}

#endif

/* `GET url`, reading at most LIMINA_HTTP_DEFAULT_LIMIT bytes of body. */
static inline bool limina_http_get(const char *url, limina_http_response *r, char *error, size_t cap) {
    return limina_http_request("GET", url, NULL, 0, NULL, 0, LIMINA_HTTP_DEFAULT_LIMIT, r, error, cap);
}

#endif
