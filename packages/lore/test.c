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

    /* Resources: the contents, a page, and what is not one. */
    limina_out res = {0};
    status = limina_read_resource("limina://pkg/lore/contents", &res);
    check(status == LIMINA_OK &&
              strstr(res.data, "- [Combat](limina://pkg/lore/pages/combat)\n- [Magic]") != NULL,
          "the contents link every page by title, in order");
    limina_out_free(&res);
    status = limina_read_resource("limina://pkg/lore/pages/magic", &res);
    check(status == LIMINA_OK && strncmp(res.data, "# Magic\n", 8) == 0,
          "a page resource is the page's Markdown");
    limina_out_free(&res);
    const char *missing[] = {"limina://pkg/lore/pages/dragons", "limina://pkg/lore/pages/..",
                             "limina://pkg/lore/pages/magic/more", "limina://pkg/lore/other"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        status = limina_read_resource(missing[i], &res);
        check(status == LIMINA_NOT_FOUND && res.len == 0, missing[i]);
        limina_out_free(&res);
    }

    /* Completion: the page names starting with what was typed. */
    limina_values values = {0};
    limina_complete_variable("limina://pkg/lore/pages/{page}", "page", "m", &values);
    check(values.len == 1 && strcmp(values.items[0], "magic") == 0, "`m` completes to magic");
    limina_values_free(&values);
    limina_complete_argument("lore.explain", "page", "", &values);
    check(values.len == 2 && strcmp(values.items[0], "combat") == 0, "`` completes to both");
    limina_values_free(&values);
    limina_complete_argument("lore.explain", "question", "", &values);
    check(values.len == 0, "a question does not complete");
    limina_values_free(&values);

    /* The prompt: the page embedded, then the ask. */
    limina_out got = {0};
    status = limina_get_prompt("lore.explain",
                               (const char *[]){"page", "combat", "question", "Who acts first?",
                                                NULL},
                               &got);
    check(status == LIMINA_OK && got.block_count == 2, "lore.explain gives two messages");
    if (got.block_count == 2) {
        check(got.blocks[0].kind == LIMINA_BLOCK_EMBEDDED &&
                  strcmp(got.blocks[0].uri, "limina://pkg/lore/pages/combat") == 0 &&
                  strstr((const char *)got.blocks[0].data, "# Combat") != NULL,
              "the first embeds the page");
        check(got.blocks[1].kind == LIMINA_BLOCK_TEXT && got.blocks[1].role == LIMINA_USER &&
                  strstr((const char *)got.blocks[1].data, "answer: Who acts first?") != NULL,
              "the second asks the question");
    }
    limina_out_free(&got);
    status = limina_get_prompt("lore.explain", (const char *[]){"page", "dragons", NULL}, &got);
    check(status == LIMINA_INVALID_INPUT && got.block_count == 0 &&
              strstr(got.data, "no page `dragons`") != NULL,
          "a missing page is refused, named");
    limina_out_free(&got);
    return failures;
}
