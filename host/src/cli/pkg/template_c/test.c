/* Native tests of `{{name}}`: `limina pkg test` compiles this file for this machine and runs
 * it. It includes app.c, so the handlers run exactly as in the component. */
#include "app.c"

static int failures = 0;

static void check(bool ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

int main(void) {
    limina_out out = {0};
    limina_status status = limina_invoke("{{name}}.hello", "{\"name\":\"Ada\"}", &out);
    check(status == LIMINA_OK, "hello succeeds");
    check(out.len == strlen("{\"greeting\":\"Hello, Ada!\"}") &&
              memcmp(out.data, "{\"greeting\":\"Hello, Ada!\"}", out.len) == 0,
          "hello greets by name");

    out.len = 0;
    status = limina_invoke("{{name}}.nope", "{}", &out);
    check(status == LIMINA_NOT_FOUND, "an unknown skill is not_found");

    limina_out_free(&out);

    status = limina_read_resource("limina://pkg/{{name}}/about", &out);
    check(status == LIMINA_OK && strstr(out.data, "{{name}}.hello") != NULL,
          "the about page names the skill");
    limina_out_free(&out);

    status = limina_get_prompt("{{name}}.greet", (const char *[]){"name", "Ada", NULL}, &out);
    check(status == LIMINA_OK && out.block_count == 1 &&
              strncmp((const char *)out.blocks[0].data, "Greet Ada with", 14) == 0,
          "greet asks to greet Ada");
    limina_out_free(&out);

    limina_values names = {0};
    limina_complete_argument("{{name}}.greet", "name", "G", &names);
    check(names.len == 1 && strcmp(names.items[0], "Grace") == 0, "`G` completes to Grace");
    limina_values_free(&names);

    printf("%d failure(s)\n", failures);
    return failures != 0;
}
