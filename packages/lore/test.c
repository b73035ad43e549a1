/* Native tests of the lore skills over the package's own book/ folder: run by
 * `limina pkg test` (from the package folder), or by hand:
 *
 *     cc -std=c11 -Wall -Wextra -I bindings test.c -o lore-test && ./lore-test
 *
 * Each check prints one line; the exit code is the number of failures.
 */
#define LORE_ROOT "book"
#include "app.c"

static int failures = 0;

static void check(bool ok, const char *what) {
    printf("%s  %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

static char *call(const char *skill, const char *input, limina_status *status) {
    limina_out out = {0};
    *status = limina_invoke(skill, input, &out);
    char *text = (char *)malloc(out.len + 1);
    if (!text) abort();
    if (out.len) memcpy(text, out.data, out.len);
    text[out.len] = 0;
    free(out.data);
    return text;
}

int main(void) {
    limina_status status;
    char *out = call("lore.pages", "{}", &status);
    check(status == LIMINA_OK && strcmp(out, "{\"pages\":[\"combat\",\"magic\"]}") == 0,
          "lore.pages lists the pages, sorted");
    free(out);
    out = call("lore.read", "{\"page\":\"combat\"}", &status);
    check(status == LIMINA_OK && strstr(out, "\"title\":\"Combat\"") != NULL,
          "lore.read gives the title of a page");
    check(strstr(out, "\"truncated\":false") != NULL, "a short page is whole");
    free(out);
    out = call("lore.read", "{\"page\":\"../limina\"}", &status);
    check(status == LIMINA_INVALID_INPUT, "a page name cannot climb out of the book");
    free(out);
    out = call("lore.read", "{\"page\":\"dragons\"}", &status);
    check(status == LIMINA_NOT_FOUND && strstr(out, "dragons") != NULL,
          "a missing page is not_found, named");
    free(out);
    return failures;
}
