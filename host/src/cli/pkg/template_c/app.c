/* `{{name}}`: a Limina skill package in C.
 *
 * Each skill is a handler from its JSON input (already validated by the host against the
 * skill's input schema) to its JSON output. `limina.h` (written into bindings/ by
 * `limina pkg build` and `limina pkg test`) has the JSON helpers and exports the table. */
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

LIMINA_PACKAGE(SKILLS)
