/* cfetch: `cfetch.get {url, method?, body?}` sends one request through limina_http.h and
 * answers {status, body, contentType} or {error} (the `wasi:http` code of a refusal). */
#include "limina.h"
#include "limina_http.h"

#define URL_MAX 2048
#define BODY_MAX (64 * 1024)

static limina_status get(limina_json input, limina_out *out) {
    char url[URL_MAX], method[16] = "GET";
    static char body[BODY_MAX];
    if (!limina_json_string(input, "url", url, sizeof url))
        return limina_fail(out, LIMINA_INVALID_INPUT, "`url` must be a string of at most %d bytes", URL_MAX - 1);
    limina_json_string(input, "method", method, sizeof method);
    bool has_body = limina_json_string(input, "body", body, sizeof body);
    limina_http_response r;
    char error[64];
    if (!limina_http_request(method, url, NULL, 0, has_body ? body : NULL, has_body ? strlen(body) : 0,
                             LIMINA_HTTP_DEFAULT_LIMIT, &r, error, sizeof error)) {
        limina_printf(out, "{\"error\":");
        limina_put_string(out, error);
        limina_printf(out, "}");
        return LIMINA_OK;
    }
    limina_printf(out, "{\"status\":%u,\"body\":", (unsigned)r.status);
    limina_put_string(out, r.body);
    if (r.content_type[0]) {
        limina_printf(out, ",\"contentType\":");
        limina_put_string(out, r.content_type);
    }
    limina_printf(out, "}");
    limina_http_response_free(&r);
    return LIMINA_OK;
}

static const limina_skill SKILLS[] = {
    {
        .name = "cfetch.get",
        .description = "Fetch a URL through the SDK's wasi:http client.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"},"
                        "\"method\":{\"type\":\"string\"},\"body\":{\"type\":\"string\"}},"
                        "\"required\":[\"url\"]}",
        .output_schema = "{\"type\":\"object\"}",
        .handler = get,
    },
};
LIMINA_PACKAGE(SKILLS)
