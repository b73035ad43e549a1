/* limina_native.h: the package's tables called directly, for test.c compiled natively by
 * `limina pkg test` (no host, no WIT). Included by limina.h when LIMINA_WASM is not
 * defined; written for Limina.
 *
 *     limina_out out = {0};
 *     limina_invoke("demo.hello", "{\"name\":\"Ada\"}", &out);          // a skill
 *     limina_read_resource("limina://pkg/demo/pages/combat", &out);    // a resource's body
 *     limina_get_prompt("demo.lookUp", (const char *[]){"topic", "fire", NULL}, &out);
 *     limina_values v = {0};
 *     limina_complete_argument("demo.lookUp", "topic", "fi", &v);       // v.items, v.len
 */
#ifndef LIMINA_NATIVE_H
#define LIMINA_NATIVE_H

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

/* Fills in a prompt of a table with `pairs`: name, value, name, value, ..., NULL. */
static inline limina_status limina__get_prompt_pairs(const limina_prompt *prompts, size_t count,
                                                     const char *name, const char *const *pairs,
                                                     limina_out *out) {
    size_t n = 0;
    while (pairs && pairs[2 * n]) n++;
    const char **names = (const char **)calloc(n + 1, sizeof *names);
    const char **values = (const char **)calloc(n + 1, sizeof *values);
    if (!names || !values) abort();
    for (size_t i = 0; i < n; i++) {
        names[i] = pairs[2 * i];
        values[i] = pairs[2 * i + 1];
    }
    limina_args args = {names, values, n};
    limina_status status = limina_get_prompt_in(prompts, count, name, &args, out);
    free(names);
    free(values);
    return status;
}

/* Defines the functions tests call (see above) over the package's tables. */
#define LIMINA_PACKAGE_TABLES(skills, n_skills, resources, n_resources, prompts, n_prompts)   \
    static inline limina_status limina_invoke(const char *name, const char *input,            \
                                              limina_out *out) {                               \
        return limina_dispatch(skills, n_skills, name, strlen(name), limina_json_of(input),    \
                               out);                                                           \
    }                                                                                          \
    static inline size_t limina_skill_count(void) { return n_skills; }                        \
    static inline limina_status limina_read_resource(const char *uri, limina_out *out) {      \
        return limina_read_in(resources, n_resources, uri, out);                              \
    }                                                                                          \
    static inline void limina_complete_variable(const char *pattern, const char *variable,    \
                                                const char *prefix, limina_values *values) {   \
        limina_complete_variable_in(resources, n_resources, pattern, variable, prefix,        \
                                    values);                                                   \
    }                                                                                          \
    static inline limina_status limina_get_prompt(const char *name, const char *const *pairs, \
                                                  limina_out *out) {                           \
        return limina__get_prompt_pairs(prompts, n_prompts, name, pairs, out);                \
    }                                                                                          \
    static inline void limina_complete_argument(const char *name, const char *argument,       \
                                                const char *prefix, limina_values *values) {   \
        limina_complete_argument_in(prompts, n_prompts, name, argument, prefix, values);      \
    }

#endif /* LIMINA_NATIVE_H */
