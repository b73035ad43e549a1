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
 * `limina pkg build` copies this file into the package's `bindings/` folder beside the C
 * bindings of the WIT contract and compiles with LIMINA_WASM defined; `limina pkg test`
 * compiles the package's test.c natively, where LIMINA_PACKAGE instead defines
 * `limina_invoke`, so handlers are tested without a host. Written for Limina; no third-party
 * code.
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

/* A growing output buffer: the handler's JSON on success, the message on failure. */
typedef struct limina_out {
    char *data;
    size_t len;
    size_t cap;
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

/* Replaces the output with a message and returns status, for `return limina_fail(...)`. */
static inline limina_status limina_fail(limina_out *out, limina_status status, const char *fmt, ...) {
    out->len = 0;
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

/* ---- the WIT exports (inside the component) ---------------------------------------------- */

#ifdef LIMINA_WASM
#include "skill_package.h"

typedef enum limina_level { LIMINA_DEBUG, LIMINA_INFO, LIMINA_WARN, LIMINA_ERROR } limina_level;

/* Writes a line to the host's log (and the MCP client's notifications/message). */
static inline void limina_log(limina_level level, const char *fmt, ...) {
    limina_out line = {0};
    va_list args;
    va_start(args, fmt);
    limina_vprintf(&line, fmt, args);
    va_end(args);
    skill_package_string_t message = {(uint8_t *)line.data, line.len};
    limina_skill_log_log((limina_skill_log_level_t)level, &message);
    free(line.data);
}

/* Reports a long call's progress: `done` of `total` (a negative total: unknown), with an
   optional message; sent to a client that asked for progress, dropped otherwise. */
static inline void limina_progress(double done, double total, const char *message) {
    skill_package_string_t text = {(uint8_t *)message, message ? strlen(message) : 0};
    limina_skill_progress_report(done, total >= 0 ? &total : NULL, message ? &text : NULL);
}

static inline void limina__describe(const limina_skill *skills, size_t count,
                                    limina_skill_types_package_description_t *ret) {
    limina_skill_types_skill_descriptor_t *list =
        (limina_skill_types_skill_descriptor_t *)calloc(count ? count : 1, sizeof *list);
    for (size_t i = 0; i < count; i++) {
        const limina_skill *s = &skills[i];
        limina_skill_types_skill_descriptor_t *d = &list[i];
        skill_package_string_dup(&d->name, s->name);
        skill_package_string_dup(&d->version, s->version ? s->version : "0.1.0");
        skill_package_string_dup(&d->category, "");
        skill_package_string_dup(&d->description, s->description);
        skill_package_string_dup(&d->input_schema, s->input_schema);
        skill_package_string_dup(&d->output_schema, s->output_schema);
        size_t n = 0;
        while (s->permissions && s->permissions[n]) n++;
        d->permissions.len = n;
        d->permissions.ptr = (skill_package_string_t *)calloc(n ? n : 1, sizeof(skill_package_string_t));
        for (size_t k = 0; k < n; k++) skill_package_string_dup(&d->permissions.ptr[k], s->permissions[k]);
        d->annotations.read_only = s->read_only;
        d->annotations.destructive = false;
        d->annotations.idempotent = s->read_only;
        d->annotations.open_world = false;
    }
    ret->skills.ptr = list;
    ret->skills.len = count;
    ret->hooks.ptr = NULL;
    ret->hooks.len = 0;
}

static inline bool limina__invoke(const limina_skill *skills, size_t count,
                                  skill_package_string_t *name, skill_package_string_t *input,
                                  limina_skill_types_call_context_t *ctx,
                                  skill_package_string_t *ret,
                                  limina_skill_types_skill_error_t *err) {
    limina_out out = {0};
    limina_json json = {(const char *)input->ptr, input->len};
    limina_status status =
        limina_dispatch(skills, count, (const char *)name->ptr, name->len, json, &out);
    skill_package_string_free(name);
    skill_package_string_free(input);
    limina_skill_types_call_context_free(ctx);
    skill_package_string_t text = {(uint8_t *)out.data, out.len};
    if (status == LIMINA_OK) {
        *ret = text;
        return true;
    }
    switch (status) {
    case LIMINA_INVALID_INPUT: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_INVALID_INPUT; break;
    case LIMINA_FORBIDDEN: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_FORBIDDEN; break;
    case LIMINA_NOT_FOUND: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_NOT_FOUND; break;
    default: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_HANDLER_ERROR; break;
    }
    err->val.handler_error = text; /* every case carries one string at the same place */
    return false;
}

/* Exports the table `skills` as the package's skills. Use once, in app.c. */
#define LIMINA_PACKAGE(skills)                                                                 \
    void exports_limina_skill_skill_describe(limina_skill_types_package_description_t *ret) {  \
        limina__describe(skills, sizeof(skills) / sizeof(skills[0]), ret);                    \
    }                                                                                          \
    bool exports_limina_skill_skill_invoke(                                                    \
        skill_package_string_t *name, skill_package_string_t *input,                           \
        limina_skill_types_call_context_t *ctx, skill_package_string_t *ret,                   \
        limina_skill_types_skill_error_t *err) {                                               \
        return limina__invoke(skills, sizeof(skills) / sizeof(skills[0]), name, input, ctx,    \
                              ret, err);                                                       \
    }                                                                                          \
    bool exports_limina_skill_skill_run_hook(                                                  \
        skill_package_string_t *hook, skill_package_string_t *skill,                           \
        skill_package_string_t *payload, limina_skill_types_call_context_t *ctx,               \
        skill_package_option_string_t *ret, limina_skill_types_skill_error_t *err) {           \
        (void)err;                                                                             \
        skill_package_string_free(hook);                                                       \
        skill_package_string_free(skill);                                                      \
        skill_package_string_free(payload);                                                    \
        limina_skill_types_call_context_free(ctx);                                             \
        ret->is_some = false;                                                                  \
        return true;                                                                           \
    }

#else /* native: tests call the table through limina_invoke */

typedef enum limina_level { LIMINA_DEBUG, LIMINA_INFO, LIMINA_WARN, LIMINA_ERROR } limina_level;

static inline void limina_progress(double done, double total, const char *message) {
    fprintf(stderr, "[progress] %g/%g %s\n", done, total, message ? message : "");
}

static inline void limina_log(limina_level level, const char *fmt, ...) {
    static const char *names[] = {"debug", "info", "warn", "error"};
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "[%s] ", names[level]);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
}

#define LIMINA_PACKAGE(skills)                                                                 \
    static inline limina_status limina_invoke(const char *name, const char *input,            \
                                              limina_out *out) {                               \
        return limina_dispatch(skills, sizeof(skills) / sizeof(skills[0]), name, strlen(name), \
                               limina_json_of(input), out);                                    \
    }                                                                                          \
    static inline size_t limina_skill_count(void) { return sizeof(skills) / sizeof(skills[0]); }

#endif /* LIMINA_WASM */

#endif /* LIMINA_H */
