/* Native tests of the terrain skills: run by `limina pkg test`, or by hand:
 *
 *     cc -std=c11 -Wall -Wextra -I bindings test.c -lm -o terrain-test && ./terrain-test
 *
 * Each check prints one line; the exit code is the number of failures.
 */
#include "app.c"

static int failures = 0;

static void check(bool ok, const char *what) {
    printf("%s  %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

/* Calls a skill; returns its output (or message) as a NUL-terminated string to free. */
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

/* terrain.height at (x, z) for seed and the extra input members `more` (may be ""). */
static double height_at(double x, double z, unsigned seed, const char *more, bool *ok) {
    char input[256];
    snprintf(input, sizeof input, "{\"x\":%.17g,\"z\":%.17g,\"seed\":%u%s}", x, z, seed, more);
    limina_status status;
    char *text = call("terrain.height", input, &status);
    double h = 0;
    *ok = status == LIMINA_OK && limina_json_number(limina_json_of(text), "height", &h);
    free(text);
    return h;
}

/* The points of a scatter output, into xyz (at most cap); returns how many. Each point is a
 * flat object, so every '{' inside the array starts one. */
static int points_of(const char *text, double (*xyz)[3], int cap) {
    limina_json points;
    if (!limina_json_get(limina_json_of(text), "points", &points)) return -1;
    int n = 0;
    for (const char *p = points.text, *end = points.text + points.len; p < end; p++) {
        if (*p != '{') continue;
        const char *close = memchr(p, '}', (size_t)(end - p));
        if (!close || n == cap) return -1;
        limina_json point = {p, (size_t)(close - p + 1)};
        if (!limina_json_number(point, "x", &xyz[n][0]) ||
            !limina_json_number(point, "y", &xyz[n][1]) ||
            !limina_json_number(point, "z", &xyz[n][2]))
            return -1;
        n++;
        p = close;
    }
    return n;
}

static void test_height(void) {
    limina_status status;
    const char *input = "{\"x\":12.5,\"z\":-40.25,\"seed\":7,\"octaves\":6}";
    char *a = call("terrain.height", input, &status);
    char *b = call("terrain.height", input, &status);
    printf("      terrain.height %s -> %s\n", input, a);
    check(status == LIMINA_OK && strcmp(a, b) == 0,
          "height: the same input gives the same height");
    free(a);
    free(b);

    bool ok1 = true, ok2 = true;
    int differ = 0;
    for (int i = 0; i < 8; i++) {
        double h1 = height_at(i * 37.0, i * -11.0, 1, "", &ok1);
        double h2 = height_at(i * 37.0, i * -11.0, 2, "", &ok2);
        if (ok1 && ok2 && h1 != h2) differ++;
    }
    check(differ == 8, "height: seeds 1 and 2 differ at 8 of 8 points (the origin included)");

    /* Bounded by the amplitude, for every octave count, yet not flat. */
    bool bounded = true, all_ok = true;
    double low = 1e9, high = -1e9;
    for (int octaves = 1; octaves <= 8; octaves++) {
        char more[64];
        snprintf(more, sizeof more, ",\"octaves\":%d,\"amplitude\":5,\"scale\":0.05", octaves);
        for (int i = 0; i < 40; i++) {
            for (int j = 0; j < 40; j++) {
                bool ok;
                double h = height_at(i * 3.3 - 60, j * 2.9 - 50, 99, more, &ok);
                all_ok = all_ok && ok;
                bounded = bounded && fabs(h) <= 5.0;
                if (h < low) low = h;
                if (h > high) high = h;
            }
        }
    }
    printf("      12800 heights with amplitude 5 span %.4f..%.4f\n", low, high);
    check(all_ok && bounded, "height: |height| <= amplitude for octaves 1..8");
    check(high - low > 2.5, "height: the terrain is not flat (spans over half of +-amplitude)");

    bool ok;
    double zero = height_at(3, 4, 5, ",\"amplitude\":0", &ok);
    check(ok && zero == 0.0, "height: amplitude 0 is flat ground");

    char *text = call("terrain.height", "{\"x\":1,\"z\":2,\"seed\":3,\"octaves\":9}", &status);
    check(status == LIMINA_INVALID_INPUT && strstr(text, "`octaves`"),
          "height: octaves 9 is invalid_input naming `octaves`");
    printf("      %s\n", text);
    free(text);
    text = call("terrain.height", "{\"x\":1,\"z\":2}", &status);
    check(status == LIMINA_INVALID_INPUT && strstr(text, "`seed`"),
          "height: a missing seed is invalid_input naming `seed`");
    free(text);
}

static void test_scatter(void) {
    static double xyz[COUNT_MAX + 1][3];
    limina_status status;

    const char *input = "{\"seed\":42,\"count\":5,\"area\":{\"minX\":0,\"minZ\":0,\"maxX\":100,"
                        "\"maxZ\":50},\"minSpacing\":10}";
    char *a = call("terrain.scatter", input, &status);
    char *b = call("terrain.scatter", input, &status);
    printf("      terrain.scatter %s\n        -> %s\n", input, a);
    check(status == LIMINA_OK && strcmp(a, b) == 0,
          "scatter: the same input gives the same points");
    char *c = call("terrain.scatter",
                   "{\"seed\":43,\"count\":5,\"area\":{\"minX\":0,\"minZ\":0,\"maxX\":100,"
                   "\"maxZ\":50},\"minSpacing\":10}",
                   &status);
    check(status == LIMINA_OK && strcmp(a, c) != 0, "scatter: another seed gives other points");
    free(a);
    free(b);
    free(c);

    /* Without spacing every point is placed, inside the area, at the terrain's height. */
    char *text = call("terrain.scatter",
                      "{\"seed\":9,\"count\":200,\"area\":{\"minX\":-30,\"minZ\":10,\"maxX\":70,"
                      "\"maxZ\":35},\"amplitude\":8,\"octaves\":3}",
                      &status);
    double placed = -1;
    limina_json_number(limina_json_of(text), "placed", &placed);
    int n = points_of(text, xyz, COUNT_MAX);
    check(status == LIMINA_OK && placed == 200 && n == 200, "scatter: count 200 places 200 points");
    bool inside = true, on_ground = true;
    for (int i = 0; i < n; i++) {
        inside = inside && xyz[i][0] >= -30 && xyz[i][0] <= 70 && xyz[i][2] >= 10 &&
                 xyz[i][2] <= 35;
        bool ok;
        double h = height_at(xyz[i][0], xyz[i][2], 9, ",\"amplitude\":8,\"octaves\":3", &ok);
        on_ground = on_ground && ok && fabs(h - xyz[i][1]) < 1e-4;
    }
    check(inside, "scatter: every point lies inside the area");
    check(on_ground, "scatter: every y is terrain.height at (x, z) with the same parameters");
    free(text);

    /* The largest call: 256 points, spaced so that not all of them fit. */
    text = call("terrain.scatter",
                "{\"seed\":4294967295,\"count\":256,\"area\":{\"minX\":0,\"minZ\":0,\"maxX\":100,"
                "\"maxZ\":100},\"minSpacing\":7,\"octaves\":8}",
                &status);
    limina_json_number(limina_json_of(text), "placed", &placed);
    n = points_of(text, xyz, COUNT_MAX);
    double closest = 1e9;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            closest = fmin(closest, hypot(xyz[i][0] - xyz[j][0], xyz[i][2] - xyz[j][2]));
    printf("      count 256, minSpacing 7 in 100x100: placed %d, closest pair %.4f apart\n", n,
           closest);
    check(status == LIMINA_OK && n == (int)placed && n > 50 && n < 256,
          "scatter: crowded spacing places fewer than count, and says so in `placed`");
    check(closest >= 7 - 1e-5, "scatter: no two points are closer than minSpacing");
    free(text);

    text = call("terrain.scatter",
                "{\"seed\":1,\"count\":3,\"area\":{\"minX\":10,\"minZ\":0,\"maxX\":5,\"maxZ\":10}}",
                &status);
    printf("      %s\n", text);
    check(status == LIMINA_INVALID_INPUT && strstr(text, "area.maxX"),
          "scatter: maxX <= minX is invalid_input naming `area.maxX`");
    free(text);
    text = call("terrain.scatter",
                "{\"seed\":1,\"count\":3,\"area\":{\"minX\":0,\"minZ\":4,\"maxX\":5,\"maxZ\":4}}",
                &status);
    check(status == LIMINA_INVALID_INPUT && strstr(text, "area.maxZ"),
          "scatter: maxZ <= minZ is invalid_input naming `area.maxZ`");
    free(text);
    text = call("terrain.scatter", "{\"seed\":1,\"count\":3,\"area\":{\"minX\":0,\"minZ\":0}}",
                &status);
    check(status == LIMINA_INVALID_INPUT && strstr(text, "area.maxX"),
          "scatter: a missing area.maxX is invalid_input naming it");
    free(text);
    text = call("terrain.scatter",
                "{\"seed\":1,\"count\":300,\"area\":{\"minX\":0,\"minZ\":0,\"maxX\":1,\"maxZ\":1}}",
                &status);
    check(status == LIMINA_INVALID_INPUT && strstr(text, "`count`"),
          "scatter: count 300 is invalid_input naming `count`");
    free(text);
}

int main(void) {
    test_height();
    test_scatter();

    limina_status status;
    char *text = call("terrain.erode", "{}", &status);
    check(status == LIMINA_NOT_FOUND, "an unknown skill is not_found");
    free(text);
    check(limina_skill_count() == 2, "the package has two skills");

    printf("%s: %d failure%s\n", failures ? "FAILED" : "passed", failures,
           failures == 1 ? "" : "s");
    return failures;
}
