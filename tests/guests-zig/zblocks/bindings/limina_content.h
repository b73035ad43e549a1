/* limina_content.h: content blocks a skill returns besides its JSON output, and the messages
 * a prompt gives. Included by limina.h; written for Limina.
 *
 *     limina_printf(out, "{\"bytes\":%zu}", png_len);   // the structured output
 *     limina_add_png(out, png, png_len);                 // a picture beside it
 *     limina_add_link(out, "limina://pkg/demo/palette", "Palette", NULL, NULL);
 *
 * Each function copies what it is given. The host caps a result (16 blocks, 4 MiB of data),
 * checks that an image or a sound is what its media type says, and traces each block as its
 * kind and size. In a prompt every block is one message, said by the role set last with
 * limina_as (the user's, until changed).
 */
#ifndef LIMINA_CONTENT_H
#define LIMINA_CONTENT_H

/* A malloc'd copy of s, or NULL for NULL. */
static inline char *limina__strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *copy = (char *)malloc(n);
    if (!copy) abort();
    memcpy(copy, s, n);
    return copy;
}

/* A malloc'd copy of len bytes, NUL-terminated so text can be read as a C string. */
static inline unsigned char *limina__bytes(const void *data, size_t len) {
    unsigned char *copy = (unsigned char *)malloc(len + 1);
    if (!copy) abort();
    if (len) memcpy(copy, data, len);
    copy[len] = 0;
    return copy;
}

/* A new zeroed block at the end of out's, said by out's current role. */
static inline limina_block *limina__block(limina_out *out, limina_block_kind kind) {
    if (out->block_count == out->block_cap) {
        size_t cap = out->block_cap ? out->block_cap * 2 : 4;
        limina_block *grown = (limina_block *)realloc(out->blocks, cap * sizeof *grown);
        if (!grown) abort();
        out->blocks = grown;
        out->block_cap = cap;
    }
    limina_block *b = &out->blocks[out->block_count++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->role = out->role;
    return b;
}

/* Who says the messages a prompt adds next: LIMINA_USER (the default) or LIMINA_ASSISTANT. */
static inline void limina_as(limina_out *out, limina_role role) { out->role = role; }

/* Plain text for a person or a model. */
static inline void limina_add_text(limina_out *out, const char *text) {
    limina_block *b = limina__block(out, LIMINA_BLOCK_TEXT);
    b->len = strlen(text);
    b->data = limina__bytes(text, b->len);
}

/* Plain text, formatted as printf does. */
static inline void limina_add_textf(limina_out *out, const char *fmt, ...) {
    limina_out text = {0};
    va_list args;
    va_start(args, fmt);
    limina_vprintf(&text, fmt, args);
    va_end(args);
    limina_add_text(out, text.data ? text.data : "");
    free(text.data);
}

/* An image: `mime_type` is image/png or image/jpeg, `data` the file's bytes. */
static inline void limina_add_image(limina_out *out, const char *mime_type, const void *data,
                                    size_t len) {
    limina_block *b = limina__block(out, LIMINA_BLOCK_IMAGE);
    b->mime_type = limina__strdup(mime_type);
    b->data = limina__bytes(data, len);
    b->len = len;
}

/* A PNG image (the bytes of a .png file). */
static inline void limina_add_png(limina_out *out, const void *data, size_t len) {
    limina_add_image(out, "image/png", data, len);
}

/* A JPEG image. */
static inline void limina_add_jpeg(limina_out *out, const void *data, size_t len) {
    limina_add_image(out, "image/jpeg", data, len);
}

/* A sound: the bytes of a WAV file. */
static inline void limina_add_wav(limina_out *out, const void *data, size_t len) {
    limina_block *b = limina__block(out, LIMINA_BLOCK_AUDIO);
    b->mime_type = limina__strdup("audio/wav");
    b->data = limina__bytes(data, len);
    b->len = len;
}

/* A link to a resource the client may read; `description` and `mime_type` may be NULL. */
static inline void limina_add_link(limina_out *out, const char *uri, const char *name,
                                   const char *description, const char *mime_type) {
    limina_block *b = limina__block(out, LIMINA_BLOCK_LINK);
    b->uri = limina__strdup(uri);
    b->name = limina__strdup(name);
    b->description = limina__strdup(description);
    b->mime_type = limina__strdup(mime_type);
}

/* A text resource given inline. */
static inline void limina_add_embedded_text(limina_out *out, const char *uri,
                                            const char *mime_type, const char *text) {
    limina_block *b = limina__block(out, LIMINA_BLOCK_EMBEDDED);
    b->uri = limina__strdup(uri);
    b->mime_type = limina__strdup(mime_type);
    b->len = strlen(text);
    b->data = limina__bytes(text, b->len);
}

/* A binary resource given inline (sent base64). */
static inline void limina_add_embedded_blob(limina_out *out, const char *uri,
                                            const char *mime_type, const void *data,
                                            size_t len) {
    limina_block *b = limina__block(out, LIMINA_BLOCK_EMBEDDED);
    b->uri = limina__strdup(uri);
    b->mime_type = limina__strdup(mime_type);
    b->blob = true;
    b->data = limina__bytes(data, len);
    b->len = len;
}

#endif /* LIMINA_CONTENT_H */
