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

    free(out.data);
    printf("%d failure(s)\n", failures);
    return failures != 0;
}
