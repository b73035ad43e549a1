/* lore: a rules book kept as Markdown files in a read-only volume, in C.
 *
 * The host mounts the volume `book` at /book (the package's grant says `read:book`; the
 * host's configuration says which folder). A page is `/book/<name>.md`; its title is its first
 * line without the leading `# `. Plain POSIX file calls: wasi-libc turns them into
 * `wasi:filesystem` calls on the volume, and the host refuses anything outside it.
 *
 * Besides its skills the book is served as MCP resources (its contents, and each page as
 * `limina://pkg/lore/pages/{page}`, whose page name completes) and a prompt, `lore.explain`,
 * that hands a model one page and a question about it.
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

/* The book's page names, sorted, into names (each to free); false with errno set when the
 * book is not mounted. */
static bool list_pages(char *names[PAGES_MAX], size_t *count) {
    *count = 0;
    DIR *dir = opendir(LORE_ROOT);
    if (!dir) return false;
    struct dirent *entry;
    while ((entry = readdir(dir)) && *count < PAGES_MAX) {
        size_t n = strlen(entry->d_name);
        if (n <= 3 || strcmp(entry->d_name + n - 3, ".md") != 0) continue;
        char *name = copy_n(entry->d_name, n - 3);
        if (page_name(name))
            names[(*count)++] = name;
        else
            free(name);
    }
    closedir(dir);
    qsort(names, *count, sizeof names[0], by_name);
    return true;
}

static void free_pages(char *names[], size_t count) {
    for (size_t i = 0; i < count; i++) free(names[i]);
}

static limina_status not_mounted(limina_out *out) {
    return limina_fail(out, LIMINA_HANDLER_ERROR,
                       "the book is not mounted at " LORE_ROOT " (%s): the host must map the "
                       "volume `book` and give this package `read:book`",
                       strerror(errno));
}

/* One page as read from the book. */
typedef struct page {
    char *text;  /* the Markdown, NUL-terminated */
    char *title; /* its first line without `# ` */
    bool truncated;
} page;

/* Reads the page `name` (a valid page name): LIMINA_OK, or LIMINA_NOT_FOUND or
 * LIMINA_HANDLER_ERROR with the message in out. */
static limina_status load_page(const char *name, page *p, limina_out *out) {
    char path[sizeof LORE_ROOT + PAGE_MAX + 8];
    snprintf(path, sizeof path, "%s/%s.md", LORE_ROOT, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return limina_fail(out, errno == ENOENT ? LIMINA_NOT_FOUND : LIMINA_HANDLER_ERROR,
                           "no page `%s` in the book (%s); list them with lore.pages", name,
                           strerror(errno));
    p->text = (char *)malloc(TEXT_MAX + 1);
    if (!p->text) abort();
    size_t len = fread(p->text, 1, TEXT_MAX, f);
    p->truncated = len == TEXT_MAX && fgetc(f) != EOF;
    fclose(f);
    p->text[len] = 0;
    const char *title = p->text;
    if (strncmp(title, "# ", 2) == 0) title += 2;
    p->title = copy_n(title, strcspn(title, "\n"));
    return LIMINA_OK;
}

static void free_page(page *p) {
    free(p->text);
    free(p->title);
}

static limina_status pages(limina_json input, limina_out *out) {
    (void)input;
    char *names[PAGES_MAX];
    size_t count;
    if (!list_pages(names, &count)) return not_mounted(out);
    limina_printf(out, "{\"pages\":[");
    for (size_t i = 0; i < count; i++) {
        if (i) limina_printf(out, ",");
        limina_put_string(out, names[i]);
    }
    limina_printf(out, "]}");
    free_pages(names, count);
    return LIMINA_OK;
}

static limina_status read_page(limina_json input, limina_out *out) {
    char name[PAGE_MAX + 2];
    if (!limina_json_string(input, "page", name, sizeof name) || !page_name(name))
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "`page` must be 1 to 64 of a-z, 0-9 and `-` (list them with lore.pages)");
    page p;
    limina_status status = load_page(name, &p, out);
    if (status != LIMINA_OK) return status;
    limina_printf(out, "{\"page\":");
    limina_put_string(out, name);
    limina_printf(out, ",\"title\":");
    limina_put_string(out, p.title);
    limina_printf(out, ",\"text\":");
    limina_put_string(out, p.text);
    limina_printf(out, ",\"truncated\":%s}", p.truncated ? "true" : "false");
    free_page(&p);
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

/* ---- resources and the prompt ------------------------------------------------------------ */

#define CONTENTS_URI "limina://pkg/lore/contents"
#define PAGE_URI "limina://pkg/lore/pages/{page}"

/* `limina://pkg/lore/contents`: every page's title, linked to its resource. */
static limina_status read_contents(const char *uri, limina_out *out) {
    (void)uri;
    char *names[PAGES_MAX];
    size_t count;
    if (!list_pages(names, &count)) return not_mounted(out);
    limina_printf(out, "# The rules book\n\n");
    for (size_t i = 0; i < count; i++) {
        page p;
        limina_out skipped = {0};
        if (load_page(names[i], &p, &skipped) == LIMINA_OK) {
            limina_printf(out, "- [%s](limina://pkg/lore/pages/%s)\n", p.title, names[i]);
            free_page(&p);
        }
        limina_out_free(&skipped);
    }
    free_pages(names, count);
    return LIMINA_OK;
}

/* `limina://pkg/lore/pages/{page}`: the page's Markdown; not found for a page the book lacks
 * or a name that could not be one. */
static limina_status read_page_resource(const char *uri, limina_out *out) {
    char name[PAGE_MAX + 2];
    if (!limina_uri_variable(PAGE_URI, uri, "page", name, sizeof name) || !page_name(name))
        return LIMINA_NOT_FOUND;
    page p;
    limina_status status = load_page(name, &p, out);
    if (status != LIMINA_OK) return status;
    limina_printf(out, "%s", p.text);
    free_page(&p);
    return LIMINA_OK;
}

/* Page names starting with prefix: a template's `page`, the prompt's `page` argument. */
static void complete_page(const char *variable, const char *prefix, limina_values *values) {
    if (strcmp(variable, "page") != 0) return;
    char *names[PAGES_MAX];
    size_t count;
    if (!list_pages(names, &count)) return;
    for (size_t i = 0; i < count; i++) limina_values_offer(values, prefix, names[i]);
    free_pages(names, count);
}

/* `lore.explain {page, question?}`: the page, embedded, and what to do with it. */
static limina_status explain(const limina_args *args, limina_out *out) {
    const char *name = limina_arg(args, "page");
    const char *question = limina_arg(args, "question");
    if (!name || !page_name(name))
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "`page` must be 1 to 64 of a-z, 0-9 and `-` (it completes)");
    page p;
    limina_status status = load_page(name, &p, out);
    if (status == LIMINA_NOT_FOUND)
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "no page `%s` in the book; list them with lore.pages", name);
    if (status != LIMINA_OK) return status;
    char uri[sizeof "limina://pkg/lore/pages/" + PAGE_MAX];
    snprintf(uri, sizeof uri, "limina://pkg/lore/pages/%s", name);
    limina_add_embedded_text(out, uri, "text/markdown", p.text);
    if (question && *question)
        limina_add_textf(out, "Using only the rules on the page \"%s\" above, answer: %s",
                         p.title, question);
    else
        limina_add_textf(out,
                         "Explain the rules on the page \"%s\" above to a new player, briefly, "
                         "with one example.",
                         p.title);
    free_page(&p);
    return LIMINA_OK;
}

static const limina_resource RESOURCES[] = {
    {
        .uri = CONTENTS_URI,
        .name = "Contents",
        .title = "The rules book's contents",
        .description = "Every page of the rules book by title, linked to its page.",
        .mime_type = "text/markdown",
        .read = read_contents,
    },
    {
        .uri = PAGE_URI,
        .name = "Pages",
        .title = "A page of the rules book",
        .description = "One page of the rules book, as Markdown.",
        .mime_type = "text/markdown",
        .read = read_page_resource,
        .complete = complete_page,
    },
};

static const limina_prompt PROMPTS[] = {
    {
        .name = "lore.explain",
        .title = "Explain a rule",
        .description = "Hand the model one page of the rules book and ask it to explain the "
                       "page or answer a question from it.",
        .arguments =
            (const limina_argument[]){
                {"page", "The page, as lore.pages lists it", true},
                {"question", "What to answer from the page; without it, the page is explained",
                 false},
                {0},
            },
        .get = explain,
        .complete = complete_page,
    },
};

LIMINA_PACKAGE_WITH(SKILLS, RESOURCES, PROMPTS)
