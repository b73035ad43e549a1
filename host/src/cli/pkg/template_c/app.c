/* `{{name}}`: a Limina skill package in C.
 *
 * Each skill is a handler from its JSON input (already validated by the host against the
 * skill's input schema) to its JSON output. Besides skills, a package may serve pages
 * (RESOURCES, read with `resources/read`) and prompts a client offers its user (PROMPTS).
 * `limina.h` (written into bindings/ by `limina pkg build` and `limina pkg test`) has the JSON
 * helpers and exports the tables. */
#include "limina.h"

/* `{{name}}.hello`: greets someone by name. */
static limina_status hello(limina_json input, limina_out *out) {
    char name[128];
    if (!limina_json_string(input, "name", name, sizeof name))
        return limina_fail(out, LIMINA_INVALID_INPUT, "`name` must be a string of at most 100 bytes");
    limina_printf(out, "{\"greeting\":");
    char greeting[160];
    snprintf(greeting, sizeof greeting, "Hello, %s!", name);
    limina_put_string(out, greeting);
    limina_printf(out, "}");
    return LIMINA_OK;
}

static const limina_skill SKILLS[] = {
    {
        .name = "{{name}}.hello",
        .description = "Greet someone by name.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
                        "\"minLength\":1,\"maxLength\":100,\"description\":\"Who to greet.\"}},"
                        "\"required\":[\"name\"],\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"greeting\":{\"type\":\"string\"}},"
                         "\"required\":[\"greeting\"]}",
        .read_only = true,
        .handler = hello,
    },
};

/* The page `limina://pkg/{{name}}/about`: what the package does. */
static limina_status about(const char *uri, limina_out *out) {
    (void)uri;
    limina_printf(out, "# {{name}}\n\n{{name}} greets people by name with `{{name}}.hello`.\n");
    return LIMINA_OK;
}

/* `{{name}}.greet`: asks the model to greet someone with the package's skill. */
static limina_status greet(const limina_args *args, limina_out *out) {
    const char *name = limina_arg(args, "name");
    limina_add_textf(out, "Greet %s with the {{name}}.hello tool and tell them what you can do.",
                     name ? name : "friend");
    return LIMINA_OK;
}

static void complete_name(const char *argument, const char *prefix, limina_values *values) {
    (void)argument;
    limina_values_offer(values, prefix, "Ada");
    limina_values_offer(values, prefix, "Grace");
}

/* URIs are the package's own: `limina://pkg/{{name}}/...`. A `{variable}` in one makes a
 * template (one path segment each, read with limina_uri_variable), and `.complete`
 * completes it. */
static const limina_resource RESOURCES[] = {
    {
        .uri = "limina://pkg/{{name}}/about",
        .name = "About {{name}}",
        .description = "What this package does.",
        .mime_type = "text/markdown",
        .read = about,
    },
};

static const limina_prompt PROMPTS[] = {
    {
        .name = "{{name}}.greet",
        .description = "Greet someone with this package's tool.",
        .arguments = (const limina_argument[]){{"name", "Who to greet", false}, {0}},
        .get = greet,
        .complete = complete_name,
    },
};

LIMINA_PACKAGE_WITH(SKILLS, RESOURCES, PROMPTS)
