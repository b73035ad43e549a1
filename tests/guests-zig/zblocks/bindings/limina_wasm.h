/* limina_wasm.h: the WIT exports of a component (contract limina:skill 0.2.0) over the
 * package's tables, through the C bindings wit-bindgen generates (`skill_package.h`).
 * Included by limina.h when LIMINA_WASM is defined (`limina pkg build`); written for Limina.
 *
 * What the glue returns is malloc'd and freed by the bindings' post-return functions, so
 * the blocks and strings the package built are handed over, not copied.
 */
#ifndef LIMINA_WASM_H
#define LIMINA_WASM_H

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

/* ---- handing values over to the bindings ------------------------------------------------ */

/* A WIT string taking over the malloc'd C string s (NULL: empty). */
static inline skill_package_string_t limina__own(char *s) {
    skill_package_string_t out = {NULL, 0};
    if (s && *s) {
        out.ptr = (uint8_t *)s;
        out.len = strlen(s);
    } else {
        free(s);
    }
    return out;
}

/* A WIT string copying the C string s. */
static inline skill_package_string_t limina__copy(const char *s) {
    return limina__own(limina__strdup(s ? s : ""));
}

/* A WIT option<string>: none for NULL. */
static inline skill_package_option_string_t limina__option(char *s) {
    skill_package_option_string_t out;
    out.is_some = s != NULL;
    out.val = limina__own(s);
    return out;
}

/* out's text as a malloc'd C string, taken from out. */
static inline char *limina__bytes_of(limina_out *out) {
    limina_write(out, "", 0); /* NUL-terminates it */
    char *text = out->data;
    out->data = NULL;
    out->len = out->cap = 0;
    return text;
}

/* A copy of a WIT string as a C string. */
static inline char *limina__cstr(const skill_package_string_t *s) {
    return (char *)limina__bytes(s->ptr, s->len);
}

/* A WIT list<string> of a NULL-terminated list (NULL: empty). */
static inline skill_package_list_string_t limina__strings(const char *const *list) {
    size_t n = 0;
    while (list && list[n]) n++;
    skill_package_list_string_t out = {NULL, n};
    if (n) {
        out.ptr = (skill_package_string_t *)calloc(n, sizeof *out.ptr);
        if (!out.ptr) abort();
        for (size_t i = 0; i < n; i++) out.ptr[i] = limina__copy(list[i]);
    }
    return out;
}

/* The bytes of a block as a WIT list<u8>, taken over. */
static inline skill_package_list_u8_t limina__take_bytes(limina_block *b) {
    skill_package_list_u8_t out = {b->data, b->len};
    if (!b->len) {
        free(b->data);
        out.ptr = NULL;
    }
    b->data = NULL;
    return out;
}

/* The WIT content block of b, taking over b's memory. */
static inline limina_skill_content_content_block_t limina__take_block(limina_block *b) {
    limina_skill_content_content_block_t w;
    memset(&w, 0, sizeof w);
    w.tag = (uint8_t)b->kind;
    switch (b->kind) {
    case LIMINA_BLOCK_TEXT:
        w.val.text = limina__own((char *)b->data);
        b->data = NULL;
        break;
    case LIMINA_BLOCK_IMAGE:
    case LIMINA_BLOCK_AUDIO: {
        limina_skill_content_binary_t *bin = b->kind == LIMINA_BLOCK_IMAGE ? &w.val.image
                                                                           : &w.val.audio;
        bin->mime_type = limina__own(b->mime_type);
        bin->data = limina__take_bytes(b);
        break;
    }
    case LIMINA_BLOCK_LINK:
        w.val.resource_link.uri = limina__own(b->uri);
        w.val.resource_link.name = limina__own(b->name);
        w.val.resource_link.description = limina__option(b->description);
        w.val.resource_link.mime_type = limina__option(b->mime_type);
        break;
    case LIMINA_BLOCK_EMBEDDED:
        w.val.embedded.uri = limina__own(b->uri);
        w.val.embedded.mime_type = limina__own(b->mime_type);
        if (b->blob) {
            w.val.embedded.body.tag = LIMINA_SKILL_CONTENT_RESOURCE_BODY_BLOB;
            w.val.embedded.body.val.blob = limina__take_bytes(b);
        } else {
            w.val.embedded.body.tag = LIMINA_SKILL_CONTENT_RESOURCE_BODY_TEXT;
            w.val.embedded.body.val.text = limina__own((char *)b->data);
            b->data = NULL;
        }
        break;
    }
    memset(b, 0, sizeof *b);
    return w;
}

/* Sets err from a failed status and the message in out (taken over); out's blocks go. */
static inline void limina__error(limina_status status, limina_out *out,
                                 limina_skill_types_skill_error_t *err) {
    switch (status) {
    case LIMINA_INVALID_INPUT: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_INVALID_INPUT; break;
    case LIMINA_FORBIDDEN: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_FORBIDDEN; break;
    case LIMINA_NOT_FOUND: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_NOT_FOUND; break;
    default: err->tag = LIMINA_SKILL_TYPES_SKILL_ERROR_HANDLER_ERROR; break;
    }
    /* Every case carries one string at the same place. */
    err->val.handler_error = limina__own(limina__bytes_of(out));
    limina_out_free(out);
}

/* ---- skill -------------------------------------------------------------------------------- */

static inline void limina__describe(const limina_skill *skills, size_t count,
                                    limina_skill_types_package_description_t *ret) {
    limina_skill_types_skill_descriptor_t *list =
        (limina_skill_types_skill_descriptor_t *)calloc(count ? count : 1, sizeof *list);
    if (!list) abort();
    for (size_t i = 0; i < count; i++) {
        const limina_skill *s = &skills[i];
        limina_skill_types_skill_descriptor_t *d = &list[i];
        d->name = limina__copy(s->name);
        d->version = limina__copy(s->version ? s->version : "0.1.0");
        d->category = limina__copy("");
        d->description = limina__copy(s->description);
        d->input_schema = limina__copy(s->input_schema);
        d->output_schema = limina__copy(s->output_schema);
        d->permissions = limina__strings(s->permissions);
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
                                  limina_skill_content_skill_output_t *ret,
                                  limina_skill_types_skill_error_t *err) {
    limina_out out = {0};
    limina_json json = {(const char *)input->ptr, input->len};
    limina_status status =
        limina_dispatch(skills, count, (const char *)name->ptr, name->len, json, &out);
    skill_package_string_free(name);
    skill_package_string_free(input);
    limina_skill_types_call_context_free(ctx);
    if (status != LIMINA_OK) {
        limina__error(status, &out, err);
        return false;
    }
    ret->structured.ptr = (uint8_t *)out.data;
    ret->structured.len = out.len;
    ret->content.len = out.block_count;
    ret->content.ptr = NULL;
    if (out.block_count) {
        ret->content.ptr = (limina_skill_content_content_block_t *)calloc(
            out.block_count, sizeof *ret->content.ptr);
        if (!ret->content.ptr) abort();
        for (size_t i = 0; i < out.block_count; i++)
            ret->content.ptr[i] = limina__take_block(&out.blocks[i]);
    }
    free(out.blocks);
    return true;
}

/* ---- resources ---------------------------------------------------------------------------- */

static inline void limina__list_resources(
    const limina_resource *resources, size_t count,
    exports_limina_skill_resources_list_resource_descriptor_t *ret) {
    ret->len = count;
    ret->ptr = NULL;
    if (!count) return;
    ret->ptr = (exports_limina_skill_resources_resource_descriptor_t *)calloc(count,
                                                                              sizeof *ret->ptr);
    if (!ret->ptr) abort();
    for (size_t i = 0; i < count; i++) {
        const limina_resource *r = &resources[i];
        exports_limina_skill_resources_resource_descriptor_t *d = &ret->ptr[i];
        d->uri = limina__copy(r->uri);
        d->template_ = strchr(r->uri, '{') != NULL;
        d->name = limina__copy(r->name);
        d->title = limina__option(limina__strdup(r->title));
        d->description = limina__option(limina__strdup(r->description));
        d->mime_type = limina__copy(r->mime_type);
        d->permissions = limina__strings(r->permissions);
    }
}

static inline bool limina__read_resource(
    const limina_resource *resources, size_t count, skill_package_string_t *uri,
    limina_skill_types_call_context_t *ctx,
    exports_limina_skill_resources_option_resource_contents_t *ret,
    limina_skill_types_skill_error_t *err) {
    char *text = limina__cstr(uri);
    skill_package_string_free(uri);
    limina_skill_types_call_context_free(ctx);
    limina_out out = {0};
    limina_status status = limina_read_in(resources, count, text, &out);
    ret->is_some = false;
    if (status == LIMINA_NOT_FOUND) {
        free(text);
        limina_out_free(&out);
        return true;
    }
    if (status != LIMINA_OK) {
        free(text);
        limina__error(status, &out, err);
        return false;
    }
    const limina_resource *r = limina__resource_of(resources, count, text);
    ret->is_some = true;
    ret->val.uri = limina__own(text);
    ret->val.mime_type = limina__copy(r->mime_type);
    if (r->blob) {
        ret->val.body.tag = LIMINA_SKILL_CONTENT_RESOURCE_BODY_BLOB;
        ret->val.body.val.blob.ptr = (uint8_t *)out.data;
        ret->val.body.val.blob.len = out.len;
    } else {
        ret->val.body.tag = LIMINA_SKILL_CONTENT_RESOURCE_BODY_TEXT;
        ret->val.body.val.text.ptr = (uint8_t *)out.data;
        ret->val.body.val.text.len = out.len;
    }
    out.data = NULL;
    limina_out_free(&out);
    return true;
}

/* A WIT list<string> taking over values. */
static inline void limina__take_values(limina_values *values, skill_package_list_string_t *ret) {
    ret->len = values->len;
    ret->ptr = NULL;
    if (values->len) {
        ret->ptr = (skill_package_string_t *)calloc(values->len, sizeof *ret->ptr);
        if (!ret->ptr) abort();
        for (size_t i = 0; i < values->len; i++) ret->ptr[i] = limina__own(values->items[i]);
    }
    free(values->items);
}

static inline void limina__complete_variable(const limina_resource *resources, size_t count,
                                             skill_package_string_t *pattern,
                                             skill_package_string_t *variable,
                                             skill_package_string_t *prefix,
                                             skill_package_list_string_t *ret) {
    char *p = limina__cstr(pattern), *v = limina__cstr(variable), *x = limina__cstr(prefix);
    skill_package_string_free(pattern);
    skill_package_string_free(variable);
    skill_package_string_free(prefix);
    limina_values values = {0};
    limina_complete_variable_in(resources, count, p, v, x, &values);
    free(p);
    free(v);
    free(x);
    limina__take_values(&values, ret);
}

/* ---- prompts ------------------------------------------------------------------------------ */

static inline void limina__list_prompts(
    const limina_prompt *prompts, size_t count,
    exports_limina_skill_prompts_list_prompt_descriptor_t *ret) {
    ret->len = count;
    ret->ptr = NULL;
    if (!count) return;
    ret->ptr = (exports_limina_skill_prompts_prompt_descriptor_t *)calloc(count,
                                                                          sizeof *ret->ptr);
    if (!ret->ptr) abort();
    for (size_t i = 0; i < count; i++) {
        const limina_prompt *p = &prompts[i];
        exports_limina_skill_prompts_prompt_descriptor_t *d = &ret->ptr[i];
        d->name = limina__copy(p->name);
        d->title = limina__option(limina__strdup(p->title));
        d->description = limina__option(limina__strdup(p->description));
        size_t n = 0;
        while (p->arguments && p->arguments[n].name) n++;
        d->arguments.len = n;
        d->arguments.ptr = NULL;
        if (n) {
            d->arguments.ptr = (exports_limina_skill_prompts_prompt_argument_t *)calloc(
                n, sizeof *d->arguments.ptr);
            if (!d->arguments.ptr) abort();
        }
        for (size_t k = 0; k < n; k++) {
            d->arguments.ptr[k].name = limina__copy(p->arguments[k].name);
            d->arguments.ptr[k].description =
                limina__option(limina__strdup(p->arguments[k].description));
            d->arguments.ptr[k].required = p->arguments[k].required;
        }
        d->permissions = limina__strings(p->permissions);
    }
}

static inline bool limina__get_prompt(const limina_prompt *prompts, size_t count,
                                      skill_package_string_t *name,
                                      skill_package_list_tuple2_string_string_t *arguments,
                                      limina_skill_types_call_context_t *ctx,
                                      exports_limina_skill_prompts_list_prompt_message_t *ret,
                                      limina_skill_types_skill_error_t *err) {
    size_t n = arguments->len;
    char **names = (char **)calloc(n + 1, sizeof *names);
    char **values = (char **)calloc(n + 1, sizeof *values);
    if (!names || !values) abort();
    for (size_t i = 0; i < n; i++) {
        names[i] = limina__cstr(&arguments->ptr[i].f0);
        values[i] = limina__cstr(&arguments->ptr[i].f1);
    }
    char *prompt = limina__cstr(name);
    skill_package_list_tuple2_string_string_free(arguments);
    skill_package_string_free(name);
    limina_skill_types_call_context_free(ctx);
    limina_args args = {(const char *const *)names, (const char *const *)values, n};
    limina_out out = {0};
    limina_status status = limina_get_prompt_in(prompts, count, prompt, &args, &out);
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
        free(values[i]);
    }
    free(names);
    free(values);
    free(prompt);
    if (status != LIMINA_OK) {
        limina__error(status, &out, err);
        return false;
    }
    ret->len = out.block_count;
    ret->ptr = NULL;
    if (out.block_count) {
        ret->ptr = (exports_limina_skill_prompts_prompt_message_t *)calloc(out.block_count,
                                                                           sizeof *ret->ptr);
        if (!ret->ptr) abort();
    }
    for (size_t i = 0; i < out.block_count; i++) {
        ret->ptr[i].role = out.blocks[i].role == LIMINA_ASSISTANT
                               ? EXPORTS_LIMINA_SKILL_PROMPTS_ROLE_ASSISTANT
                               : EXPORTS_LIMINA_SKILL_PROMPTS_ROLE_USER;
        ret->ptr[i].content = limina__take_block(&out.blocks[i]);
    }
    limina_out_free(&out);
    return true;
}

static inline void limina__complete_argument(const limina_prompt *prompts, size_t count,
                                             skill_package_string_t *name,
                                             skill_package_string_t *argument,
                                             skill_package_string_t *prefix,
                                             skill_package_list_string_t *ret) {
    char *p = limina__cstr(name), *a = limina__cstr(argument), *x = limina__cstr(prefix);
    skill_package_string_free(name);
    skill_package_string_free(argument);
    skill_package_string_free(prefix);
    limina_values values = {0};
    limina_complete_argument_in(prompts, count, p, a, x, &values);
    free(p);
    free(a);
    free(x);
    limina__take_values(&values, ret);
}

/* Exports the tables as the component's `skill`, `resources` and `prompts` interfaces. */
#define LIMINA_PACKAGE_TABLES(skills, n_skills, resources, n_resources, prompts, n_prompts)   \
    void exports_limina_skill_skill_describe(limina_skill_types_package_description_t *ret) {  \
        limina__describe(skills, n_skills, ret);                                               \
    }                                                                                          \
    bool exports_limina_skill_skill_invoke(                                                    \
        skill_package_string_t *name, skill_package_string_t *input,                           \
        limina_skill_types_call_context_t *ctx, limina_skill_content_skill_output_t *ret,      \
        limina_skill_types_skill_error_t *err) {                                               \
        return limina__invoke(skills, n_skills, name, input, ctx, ret, err);                   \
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
    }                                                                                          \
    void exports_limina_skill_resources_list_resources(                                        \
        exports_limina_skill_resources_list_resource_descriptor_t *ret) {                      \
        limina__list_resources(resources, n_resources, ret);                                   \
    }                                                                                          \
    bool exports_limina_skill_resources_read_resource(                                         \
        skill_package_string_t *uri, limina_skill_types_call_context_t *ctx,                   \
        exports_limina_skill_resources_option_resource_contents_t *ret,                        \
        limina_skill_types_skill_error_t *err) {                                               \
        return limina__read_resource(resources, n_resources, uri, ctx, ret, err);              \
    }                                                                                          \
    void exports_limina_skill_resources_complete_variable(                                     \
        skill_package_string_t *uri_template, skill_package_string_t *variable,                \
        skill_package_string_t *prefix, skill_package_list_string_t *ret) {                    \
        limina__complete_variable(resources, n_resources, uri_template, variable, prefix,     \
                                  ret);                                                        \
    }                                                                                          \
    void exports_limina_skill_prompts_list_prompts(                                            \
        exports_limina_skill_prompts_list_prompt_descriptor_t *ret) {                          \
        limina__list_prompts(prompts, n_prompts, ret);                                         \
    }                                                                                          \
    bool exports_limina_skill_prompts_get_prompt(                                              \
        skill_package_string_t *name, skill_package_list_tuple2_string_string_t *arguments,    \
        limina_skill_types_call_context_t *ctx,                                                \
        exports_limina_skill_prompts_list_prompt_message_t *ret,                               \
        limina_skill_types_skill_error_t *err) {                                               \
        return limina__get_prompt(prompts, n_prompts, name, arguments, ctx, ret, err);        \
    }                                                                                          \
    void exports_limina_skill_prompts_complete_argument(                                       \
        skill_package_string_t *name, skill_package_string_t *argument,                        \
        skill_package_string_t *prefix, skill_package_list_string_t *ret) {                    \
        limina__complete_argument(prompts, n_prompts, name, argument, prefix, ret);            \
    }

#endif /* LIMINA_WASM_H */
