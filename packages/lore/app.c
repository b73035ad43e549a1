/* lore: a rules book kept as Markdown files in a read-only volume, in C.
 *
 * The host mounts the volume `book` at /book (the package's grant says `read:book`; the
 * host's configuration says which folder). A page is `/book/<name>.md`; its title is its first
 * line without the leading `# `. Plain POSIX file calls: wasi-libc turns them into
 * `wasi:filesystem` calls on the volume, and the host refuses anything outside it.
 */
#include "limina.h"

#include <dirent.h>
#include <errno.h>

#ifndef LORE_ROOT
#define LORE_ROOT "/book"
#endif

#define PAGE_MAX 64          /* characters of a page name */
#define PAGES_MAX 256        /* pages listed */
#define TEXT_MAX (64 * 1024) /* bytes of one page */

/* A page name: 1..64 of a-z, 0-9 and `-`, so it can only name a file directly in the book. */
static bool page_name(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > PAGE_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    }
    return true;
}

/* The first n bytes of s, NUL-terminated, to free (strndup is POSIX, not C11). */
static char *copy_n(const char *s, size_t n) {
    char *copy = (char *)malloc(n + 1);
    if (!copy) abort();
    memcpy(copy, s, n);
    copy[n] = 0;
    return copy;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static limina_status pages(limina_json input, limina_out *out) {
    (void)input;
    DIR *dir = opendir(LORE_ROOT);
    if (!dir)
        return limina_fail(out, LIMINA_HANDLER_ERROR,
                           "the book is not mounted at " LORE_ROOT " (%s): the host must map the "
                           "volume `book` and give this package `read:book`",
                           strerror(errno));
    char *names[PAGES_MAX];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) && count < PAGES_MAX) {
        size_t n = strlen(entry->d_name);
        if (n <= 3 || strcmp(entry->d_name + n - 3, ".md") != 0) continue;
        char *name = copy_n(entry->d_name, n - 3);
        if (page_name(name))
            names[count++] = name;
        else
            free(name);
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], by_name);
    limina_printf(out, "{\"pages\":[");
    for (size_t i = 0; i < count; i++) {
        if (i) limina_printf(out, ",");
        limina_put_string(out, names[i]);
        free(names[i]);
    }
    limina_printf(out, "]}");
    return LIMINA_OK;
}

static limina_status read_page(limina_json input, limina_out *out) {
    char name[PAGE_MAX + 2];
    if (!limina_json_string(input, "page", name, sizeof name) || !page_name(name))
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "`page` must be 1 to 64 of a-z, 0-9 and `-` (list them with lore.pages)");
    char path[sizeof LORE_ROOT + PAGE_MAX + 8];
    snprintf(path, sizeof path, "%s/%s.md", LORE_ROOT, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return limina_fail(out, errno == ENOENT ? LIMINA_NOT_FOUND : LIMINA_HANDLER_ERROR,
                           "no page `%s` in the book (%s); list them with lore.pages", name,
                           strerror(errno));
    char *text = (char *)malloc(TEXT_MAX + 1);
    if (!text) abort();
    size_t len = fread(text, 1, TEXT_MAX, f);
    bool truncated = len == TEXT_MAX && fgetc(f) != EOF;
    fclose(f);
    text[len] = 0;
    const char *title = text;
    if (strncmp(title, "# ", 2) == 0) title += 2;
    size_t title_len = strcspn(title, "\n");
    char *title_copy = copy_n(title, title_len);
    limina_printf(out, "{\"page\":");
    limina_put_string(out, name);
    limina_printf(out, ",\"title\":");
    limina_put_string(out, title_copy);
    limina_printf(out, ",\"text\":");
    limina_put_string(out, text);
    limina_printf(out, ",\"truncated\":%s}", truncated ? "true" : "false");
    free(title_copy);
    free(text);
    return LIMINA_OK;
}

#define PAGES_INPUT "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"
#define PAGES_OUTPUT                                                                           \
    "{\"type\":\"object\",\"required\":[\"pages\"],\"properties\":{\"pages\":{\"type\":"      \
    "\"array\",\"items\":{\"type\":\"string\"}}}}"
#define READ_INPUT                                                                             \
    "{\"type\":\"object\",\"required\":[\"page\"],\"additionalProperties\":false,"             \
    "\"properties\":{\"page\":{\"type\":\"string\",\"description\":\"A page name, as "       \
    "lore.pages lists it.\",\"maxLength\":64}}}"
#define READ_OUTPUT                                                                            \
    "{\"type\":\"object\",\"required\":[\"page\",\"title\",\"text\",\"truncated\"],"          \
    "\"properties\":{\"page\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},"          \
    "\"text\":{\"type\":\"string\"},\"truncated\":{\"type\":\"boolean\"}}}"

static const limina_skill SKILLS[] = {
    {
        .name = "lore.pages",
        .description = "List the pages of the rules book, by name.",
        .input_schema = PAGES_INPUT,
        .output_schema = PAGES_OUTPUT,
        .read_only = true,
        .handler = pages,
    },
    {
        .name = "lore.read",
        .description = "Read one page of the rules book: its title and Markdown text.",
        .input_schema = READ_INPUT,
        .output_schema = READ_OUTPUT,
        .read_only = true,
        .handler = read_page,
    },
};

LIMINA_PACKAGE(SKILLS)
