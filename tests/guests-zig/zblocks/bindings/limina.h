/* limina.h: writing Limina skills in C.
 *
 * A package is a table of skills, each a handler from a JSON input to a JSON output:
 *
 *     static limina_status hello(limina_json input, limina_out *out) {
 *         char name[64];
 *         if (!limina_json_string(input, "name", name, sizeof name))
 *             return limina_fail(out, LIMINA_INVALID_INPUT, "`name` must be a string");
 *         limina_printf(out, "{\"greeting\":");
 *         limina_put_string(out, name);
 *         limina_printf(out, "}");
 *         return LIMINA_OK;
 *     }
 *     static const limina_skill SKILLS[] = {
 *         { .name = "demo.hello", .description = "Greets someone.",
 *           .input_schema = "{...}", .output_schema = "{...}", .handler = hello },
 *     };
 *     LIMINA_PACKAGE(SKILLS)
 *
 * The host validates the input against `input_schema` before the handler runs and the output
 * against `output_schema` after, so a handler may trust the shape of its input.
 *
 * A handler may add content blocks (pictures, sounds, links) beside its JSON
 * (limina_content.h); a package may serve resources and prompts too, exported with
 * LIMINA_PACKAGE_WITH (limina_offer.h).
 *
 * `limina pkg build` copies this file and the headers it includes into the package's
 * `bindings/` folder beside the C bindings of the WIT contract (limina:skill 0.2.0) and
 * compiles with LIMINA_WASM defined, which exports the tables (limina_wasm.h); `limina pkg
 * test` compiles the package's test.c natively, where the same macros instead define
 * `limina_invoke` and its siblings (limina_native.h), so handlers are tested without a host.
 * Written for Limina; no third-party code.
 */
#ifndef LIMINA_H
#define LIMINA_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a handler ended; every value but LIMINA_OK refuses the call with that error code. */
typedef enum limina_status {
    LIMINA_OK = 0,
    LIMINA_INVALID_INPUT, /* the input is well-formed but not acceptable */
    LIMINA_FORBIDDEN,     /* the caller may not do this */
    LIMINA_NOT_FOUND,     /* something the input names does not exist */
    LIMINA_HANDLER_ERROR, /* the skill failed */
} limina_status;

/* A JSON value: a slice of the input text, not copied. */
typedef struct limina_json {
    const char *text;
    size_t len;
} limina_json;

/* The kinds of content block, in the WIT `content-block`'s order. */
typedef enum limina_block_kind {
    LIMINA_BLOCK_TEXT = 0,
    LIMINA_BLOCK_IMAGE,    /* PNG or JPEG */
    LIMINA_BLOCK_AUDIO,    /* WAV */
    LIMINA_BLOCK_LINK,     /* a link to a resource */
    LIMINA_BLOCK_EMBEDDED, /* a resource given inline */
} limina_block_kind;

/* Who says a prompt's message. */
typedef enum limina_role { LIMINA_USER = 0, LIMINA_ASSISTANT } limina_role;

/* One content block (see limina_content.h for the functions that add them). Every pointer is
 * the block's own, from malloc. */
typedef struct limina_block {
    limina_block_kind kind;
    limina_role role;   /* a prompt's message: who says it */
    char *mime_type;    /* image, audio, embedded; a link's, or NULL */
    char *uri;          /* link, embedded */
    char *name;         /* link */
    char *description;  /* link, or NULL */
    bool blob;          /* embedded: `data` is bytes (sent base64), not text */
    unsigned char *data; /* text (NUL-terminated), image or audio bytes, an embedded body */
    size_t len;
} limina_block;

/* A growing output buffer: the handler's JSON on success, the message on failure; and the
 * content blocks a skill returns besides its JSON (a prompt's messages, one per block).
 * Start it zeroed (`limina_out out = {0};`), free it with limina_out_free. */
typedef struct limina_out {
    char *data;
    size_t len;
    size_t cap;
    limina_block *blocks;
    size_t block_count;
    size_t block_cap;
    limina_role role; /* the role of the blocks added next (limina_as) */
} limina_out;

typedef limina_status (*limina_handler)(limina_json input, limina_out *out);

/* One skill. `version` defaults to "0.1.0" when NULL. `permissions` is a NULL-terminated
 * list (or NULL for none); the package's manifest must declare each one as a capability. */
typedef struct limina_skill {
    const char *name;
    const char *version;
    const char *description;
    const char *input_schema;
    const char *output_schema;
    const char *const *permissions;
    bool read_only;
    limina_handler handler;
} limina_skill;

/* ---- reading JSON ------------------------------------------------------------------------ */

static inline const char *limina__ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* The end of the JSON value starting at p (NULL when it is malformed). */
static inline const char *limina__skip(const char *p, const char *end) {
    p = limina__ws(p, end);
    if (p >= end) return NULL;
    if (*p == '"') {
        for (p++; p < end; p++) {
            if (*p == '\\') p++;
            else if (*p == '"') return p + 1;
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (p < end) {
            if (*p == '"') {
                p = limina__skip(p, end);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' &&
           *p != '\t' && *p != '\r')
        p++;
    return p;
}

/* A JSON value over a C string. */
static inline limina_json limina_json_of(const char *text) {
    limina_json json = {text, strlen(text)};
    return json;
}

/* The member `key` of the object `obj`; false when obj is not an object or lacks it. */
static inline bool limina_json_get(limina_json obj, const char *key, limina_json *value) {
    const char *p = obj.text, *end = obj.text + obj.len;
    size_t key_len = strlen(key);
    p = limina__ws(p, end);
    if (p >= end || *p != '{') return false;
    p++;
    for (;;) {
        p = limina__ws(p, end);
        if (p >= end || *p == '}' || *p != '"') return false;
        const char *name = p + 1;
        const char *after = limina__skip(p, end);
        if (!after) return false;
        bool match = (size_t)(after - 1 - name) == key_len && memcmp(name, key, key_len) == 0;
        p = limina__ws(after, end);
        if (p >= end || *p != ':') return false;
        const char *start = limina__ws(p + 1, end);
        const char *stop = limina__skip(start, end);
        if (!stop) return false;
        if (match) {
            value->text = start;
            value->len = (size_t)(stop - start);
            return true;
        }
        p = limina__ws(stop, end);
        if (p < end && *p == ',') p++;
    }
}

/* The number member `key`; false when missing or not a number. */
static inline bool limina_json_number(limina_json obj, const char *key, double *out) {
    limina_json value;
    if (!limina_json_get(obj, key, &value) || value.len == 0) return false;
    char buf[64];
    if (value.len >= sizeof buf) return false;
    memcpy(buf, value.text, value.len);
    buf[value.len] = 0;
    char *stop;
    double number = strtod(buf, &stop);
    if (stop == buf || *stop) return false;
    *out = number;
    return true;
}

/* The boolean member `key`; false when missing or not a boolean. */
static inline bool limina_json_bool(limina_json obj, const char *key, bool *out) {
    limina_json value;
    if (!limina_json_get(obj, key, &value)) return false;
    if (value.len == 4 && memcmp(value.text, "true", 4) == 0) *out = true;
    else if (value.len == 5 && memcmp(value.text, "false", 5) == 0) *out = false;
    else return false;
    return true;
}

static inline size_t limina__utf8(uint32_t c, char *out) {
    if (c < 0x80) { out[0] = (char)c; return 1; }
    if (c < 0x800) { out[0] = (char)(0xC0 | c >> 6); out[1] = (char)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12); out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18); out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F)); out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* The string member `key`, unescaped into buf (NUL-terminated); false when missing, not a
 * string, or longer than cap - 1 bytes. */
static inline bool limina_json_string(limina_json obj, const char *key, char *buf, size_t cap) {
    limina_json value;
    if (!limina_json_get(obj, key, &value) || value.len < 2 || value.text[0] != '"') return false;
    const char *p = value.text + 1, *end = value.text + value.len - 1;
    size_t n = 0;
    while (p < end) {
        char tmp[4];
        size_t add = 1;
        tmp[0] = *p++;
        if (tmp[0] == '\\' && p < end) {
            char e = *p++;
            switch (e) {
            case 'n': tmp[0] = '\n'; break;
            case 't': tmp[0] = '\t'; break;
            case 'r': tmp[0] = '\r'; break;
            case 'b': tmp[0] = '\b'; break;
            case 'f': tmp[0] = '\f'; break;
            case 'u': {
                uint32_t c = 0;
                for (int i = 0; i < 4 && p < end; i++, p++)
                    c = c * 16 + (uint32_t)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10);
                if (c >= 0xD800 && c < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                    uint32_t low = 0;
                    for (int i = 2; i < 6; i++)
                        low = low * 16 + (uint32_t)(p[i] <= '9' ? p[i] - '0' : (p[i] | 32) - 'a' + 10);
                    c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
                add = limina__utf8(c, tmp);
                break;
            }
            default: tmp[0] = e; break; /* \" \\ \/ */
            }
        }
        if (n + add >= cap) return false;
        memcpy(buf + n, tmp, add);
        n += add;
    }
    buf[n] = 0;
    return true;
}

/* ---- writing JSON ------------------------------------------------------------------------ */

/* Appends formatted text to out (aborts on out-of-memory: the host reports a trap). */
static inline void limina_vprintf(limina_out *out, const char *fmt, va_list args) {
    va_list again;
    va_copy(again, args);
    int need = vsnprintf(NULL, 0, fmt, args);
    if (need < 0) { va_end(again); return; }
    if (out->len + (size_t)need + 1 > out->cap) {
        size_t cap = out->cap ? out->cap : 64;
        while (cap < out->len + (size_t)need + 1) cap *= 2;
        char *data = (char *)realloc(out->data, cap);
        if (!data) abort();
        out->data = data;
        out->cap = cap;
    }
    vsnprintf(out->data + out->len, (size_t)need + 1, fmt, again);
    out->len += (size_t)need;
    va_end(again);
}

static inline void limina_printf(limina_out *out, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    limina_vprintf(out, fmt, args);
    va_end(args);
}

/* Appends s as a quoted, escaped JSON string. */
static inline void limina_put_string(limina_out *out, const char *s) {
    limina_printf(out, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') limina_printf(out, "\\%c", c);
        else if (c == '\n') limina_printf(out, "\\n");
        else if (c < 0x20) limina_printf(out, "\\u%04x", c);
        else limina_printf(out, "%c", c);
    }
    limina_printf(out, "\"");
}

/* Appends len bytes as they are (a binary resource's body). */
static inline void limina_write(limina_out *out, const void *data, size_t len) {
    if (out->len + len + 1 > out->cap) {
        size_t cap = out->cap ? out->cap : 64;
        while (cap < out->len + len + 1) cap *= 2;
        char *grown = (char *)realloc(out->data, cap);
        if (!grown) abort();
        out->data = grown;
        out->cap = cap;
    }
    if (len) memcpy(out->data + out->len, data, len);
    out->len += len;
    out->data[out->len] = 0;
}

static inline void limina__block_free(limina_block *b) {
    free(b->mime_type);
    free(b->uri);
    free(b->name);
    free(b->description);
    free(b->data);
}

/* Drops the content blocks added so far. */
static inline void limina_clear_blocks(limina_out *out) {
    for (size_t i = 0; i < out->block_count; i++) limina__block_free(&out->blocks[i]);
    free(out->blocks);
    out->blocks = NULL;
    out->block_count = out->block_cap = 0;
}

/* Frees everything out holds and zeroes it, ready for another call. */
static inline void limina_out_free(limina_out *out) {
    limina_clear_blocks(out);
    free(out->data);
    memset(out, 0, sizeof *out);
}

/* Replaces the output with a message (dropping any blocks) and returns status, for
 * `return limina_fail(...)`. */
static inline limina_status limina_fail(limina_out *out, limina_status status, const char *fmt, ...) {
    out->len = 0;
    limina_clear_blocks(out);
    va_list args;
    va_start(args, fmt);
    limina_vprintf(out, fmt, args);
    va_end(args);
    return status;
}

/* Runs the skill `name` of a table on input; out holds the JSON or the message. */
static inline limina_status limina_dispatch(const limina_skill *skills, size_t count,
                                            const char *name, size_t name_len, limina_json input,
                                            limina_out *out) {
    for (size_t i = 0; i < count; i++) {
        if (strlen(skills[i].name) == name_len && memcmp(skills[i].name, name, name_len) == 0)
            return skills[i].handler(input, out);
    }
    return limina_fail(out, LIMINA_NOT_FOUND, "this package has no skill `%.*s`", (int)name_len,
                       name);
}

#include "limina_content.h"
#include "limina_offer.h"

#ifdef LIMINA_WASM
#include "limina_wasm.h"
#else
#include "limina_native.h"
#endif

#endif /* LIMINA_H */
