/* limina_offer.h: resources and prompts a package serves besides skills (MCP `resources/...`,
 * `prompts/...` and `completion/complete`). Included by limina.h; written for Limina.
 *
 *     static limina_status read_page(const char *uri, limina_out *out) {
 *         char page[65];
 *         if (!limina_uri_variable(PAGE_URI, uri, "page", page, sizeof page))
 *             return LIMINA_NOT_FOUND;
 *         limina_printf(out, "# %s\n...", page);   // the resource's text
 *         return LIMINA_OK;
 *     }
 *     static void complete_page(const char *variable, const char *prefix, limina_values *v) {
 *         limina_values_offer(v, prefix, "combat");   // added when it starts with prefix
 *     }
 *     static const limina_resource RESOURCES[] = {
 *         { .uri = "limina://pkg/demo/pages/{page}", .name = "Pages",
 *           .mime_type = "text/markdown", .read = read_page, .complete = complete_page },
 *     };
 *     static limina_status look_up(const limina_args *args, limina_out *out) {
 *         limina_add_textf(out, "Explain %s.", limina_arg(args, "topic"));  // one message
 *         return LIMINA_OK;
 *     }
 *     static const limina_prompt PROMPTS[] = {
 *         { .name = "demo.lookUp", .description = "Look something up.",
 *           .arguments = (const limina_argument[]){ {"topic", "What to look up", true}, {0} },
 *           .get = look_up },
 *     };
 *     LIMINA_PACKAGE_WITH(SKILLS, RESOURCES, PROMPTS)
 *
 * A resource's URI is the package's own, `limina://pkg/<package>/...`; with `{variables}`
 * (each one path segment) it names a family of resources, a template. A reader returns
 * LIMINA_NOT_FOUND for a URI that names nothing: the client gets "resource not found" naming
 * it. A prompt's arguments are checked by the host before `get` runs (every required one
 * given, no unknown one); each block `get` adds is one message.
 */
#ifndef LIMINA_OFFER_H
#define LIMINA_OFFER_H

/* A growing list of strings (completions). */
typedef struct limina_values {
    char **items;
    size_t len;
    size_t cap;
} limina_values;

/* Adds a copy of value. */
static inline void limina_values_add(limina_values *values, const char *value) {
    if (values->len == values->cap) {
        size_t cap = values->cap ? values->cap * 2 : 8;
        char **grown = (char **)realloc(values->items, cap * sizeof *grown);
        if (!grown) abort();
        values->items = grown;
        values->cap = cap;
    }
    values->items[values->len++] = limina__strdup(value);
}

/* Adds a copy of value when it starts with prefix: how most completers answer. */
static inline void limina_values_offer(limina_values *values, const char *prefix,
                                       const char *value) {
    if (strncmp(value, prefix, strlen(prefix)) == 0) limina_values_add(values, value);
}

static inline void limina_values_free(limina_values *values) {
    for (size_t i = 0; i < values->len; i++) free(values->items[i]);
    free(values->items);
    memset(values, 0, sizeof *values);
}

/* Reads `uri` into out (its text, or with `.blob` its bytes through limina_write). */
typedef limina_status (*limina_reader)(const char *uri, limina_out *out);
/* Adds the values of `name` (a template's variable, a prompt's argument) that start with
 * `prefix`, best first; the host keeps at most 100. */
typedef void (*limina_completer)(const char *name, const char *prefix, limina_values *values);

/* One resource, or with `{variables}` in its URI a family of them. `permissions` is a
 * NULL-terminated list (or NULL: anyone may read it), each declared in the manifest. */
typedef struct limina_resource {
    const char *uri;
    const char *name;        /* a short name for a person */
    const char *title;       /* or NULL */
    const char *description; /* or NULL */
    const char *mime_type;
    const char *const *permissions;
    bool blob; /* the body is bytes, not text */
    limina_reader read;
    limina_completer complete; /* a template's variables, or NULL */
} limina_resource;

/* One argument of a prompt; a list of them ends with `{0}`. */
typedef struct limina_argument {
    const char *name;
    const char *description;
    bool required;
} limina_argument;

/* The arguments a prompt was given. */
typedef struct limina_args {
    const char *const *names;
    const char *const *values;
    size_t count;
} limina_args;

/* The value of the argument `name`, or NULL when it was not given. */
static inline const char *limina_arg(const limina_args *args, const char *name) {
    for (size_t i = 0; i < args->count; i++)
        if (strcmp(args->names[i], name) == 0) return args->values[i];
    return NULL;
}

/* Fills a prompt in: each block added to out is one message. */
typedef limina_status (*limina_prompter)(const limina_args *args, limina_out *out);

/* A prompt, named `<package>.<prompt>` as skills are. */
typedef struct limina_prompt {
    const char *name;
    const char *title;       /* or NULL */
    const char *description; /* or NULL */
    const limina_argument *arguments; /* ending with {0}, or NULL for none */
    const char *const *permissions;   /* NULL-terminated, or NULL */
    limina_prompter get;
    limina_completer complete; /* its arguments, or NULL */
} limina_prompt;

/* Whether `uri` is one that `pattern` names (each `{variable}` one non-empty path segment);
 * with `variable`, copies that variable's segment into buf (NUL-terminated; false when it
 * does not fit or the pattern has no such variable). */
static inline bool limina__match(const char *pattern, const char *uri, const char *variable,
                                 char *buf, size_t cap) {
    bool found = variable == NULL;
    while (*pattern) {
        if (*pattern != '{') {
            if (*pattern++ != *uri++) return false;
            continue;
        }
        const char *close = strchr(pattern, '}');
        if (!close) return false;
        size_t seg = strcspn(uri, "/");
        if (seg == 0) return false;
        size_t name_len = (size_t)(close - pattern - 1);
        if (variable && strlen(variable) == name_len && memcmp(pattern + 1, variable, name_len) == 0) {
            if (seg >= cap) return false;
            memcpy(buf, uri, seg);
            buf[seg] = 0;
            found = true;
        }
        uri += seg;
        pattern = close + 1;
    }
    return *uri == 0 && found;
}

/* The value of `{variable}` in `uri`, a URI the template `pattern` names, copied into buf
 * (NUL-terminated); false when uri is not one it names or the value is cap bytes or more. */
static inline bool limina_uri_variable(const char *pattern, const char *uri, const char *variable,
                                       char *buf, size_t cap) {
    return limina__match(pattern, uri, variable, buf, cap);
}

/* The resource of the table naming `uri`, or NULL. */
static inline const limina_resource *limina__resource_of(const limina_resource *resources,
                                                         size_t count, const char *uri) {
    for (size_t i = 0; i < count; i++)
        if (limina__match(resources[i].uri, uri, NULL, NULL, 0)) return &resources[i];
    return NULL;
}

/* Reads `uri` from a table: LIMINA_NOT_FOUND when no resource names it or its reader says so
 * (then out holds nothing). */
static inline limina_status limina_read_in(const limina_resource *resources, size_t count,
                                           const char *uri, limina_out *out) {
    const limina_resource *r = limina__resource_of(resources, count, uri);
    if (!r) return LIMINA_NOT_FOUND;
    limina_status status = r->read(uri, out);
    if (status == LIMINA_NOT_FOUND) out->len = 0;
    return status;
}

/* Completes `variable` of the template `pattern` of a table. */
static inline void limina_complete_variable_in(const limina_resource *resources, size_t count,
                                               const char *pattern, const char *variable,
                                               const char *prefix, limina_values *values) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(resources[i].uri, pattern) == 0 && resources[i].complete)
            resources[i].complete(variable, prefix, values);
}

static inline const limina_prompt *limina__prompt_of(const limina_prompt *prompts, size_t count,
                                                     const char *name) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(prompts[i].name, name) == 0) return &prompts[i];
    return NULL;
}

/* Fills in the prompt `name` of a table; out's blocks are its messages. */
static inline limina_status limina_get_prompt_in(const limina_prompt *prompts, size_t count,
                                                 const char *name, const limina_args *args,
                                                 limina_out *out) {
    const limina_prompt *p = limina__prompt_of(prompts, count, name);
    if (!p) return limina_fail(out, LIMINA_NOT_FOUND, "this package has no prompt `%s`", name);
    return p->get(args, out);
}

/* Completes `argument` of the prompt `name` of a table. */
static inline void limina_complete_argument_in(const limina_prompt *prompts, size_t count,
                                               const char *name, const char *argument,
                                               const char *prefix, limina_values *values) {
    const limina_prompt *p = limina__prompt_of(prompts, count, name);
    if (p && p->complete) p->complete(argument, prefix, values);
}

/* The number of entries of a table (an array, not a pointer). */
#define LIMINA_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* Exports the skills alone (no resources, no prompts). Use one LIMINA_PACKAGE* once, in
 * app.c. */
#define LIMINA_PACKAGE(skills) LIMINA_PACKAGE_TABLES(skills, LIMINA_COUNT(skills), NULL, 0, NULL, 0)
/* Exports skills, resources and prompts. */
#define LIMINA_PACKAGE_WITH(skills, resources, prompts)                                        \
    LIMINA_PACKAGE_TABLES(skills, LIMINA_COUNT(skills), resources, LIMINA_COUNT(resources),   \
                          prompts, LIMINA_COUNT(prompts))

#endif /* LIMINA_OFFER_H */
