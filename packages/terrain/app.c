/* terrain: procedural terrain heights and deterministic point scattering, in C.
 *
 * Heights are fractal Brownian motion (fBm) over 2D gradient noise whose lattice gradients
 * come from a seeded integer hash, so the same (x, z, seed, parameters) always give the same
 * height, on any host. Scattering draws points from a seeded PRNG and rejects those closer
 * than `minSpacing` to one already placed. Pure computation: no host capability.
 */
#include "limina.h"

#include <math.h>

/* No fused multiply-add: contracting a*b+c would change the last bits of a height with the
 * compiler's target, and the same inputs must give the same height natively and in wasm. */
#pragma STDC FP_CONTRACT OFF

/* ---- limits (kept in step with the schemas below) ---------------------------------------- */

#define COORD_MAX 1000000.0  /* |x|, |z| and the area's bounds */
#define SEED_MAX 4294967295.0
#define OCTAVES_MAX 8
#define SCALE_MAX 1000.0
#define AMPLITUDE_MAX 100000.0
#define COUNT_MAX 256
/* Tries per requested point before scattering gives up: bounds the work (and the fuel) of a
 * call whose spacing cannot fit `count` points in the area. */
#define ATTEMPTS_PER_POINT 30

/* ---- noise ------------------------------------------------------------------------------- */

/* A 32-bit finalizer (xor-shift-multiply rounds): every input bit reaches every output bit. */
static uint32_t mix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

/* A lattice coordinate folded to 32 bits: the identity below 2^32, so the pattern does not
 * repeat every 2^32 cells (reachable with large coordinates at a large scale). */
static uint32_t fold(int64_t v) {
    uint64_t u = (uint64_t)v;
    return (uint32_t)u ^ (uint32_t)(u >> 32) * 0x9E3779B9u;
}

/* The hash of lattice point (ix, iz) under seed. Chained rather than xor-ed together so that
 * (a, b) and (b, a) hash differently. */
static uint32_t lattice_hash(int64_t ix, int64_t iz, uint32_t seed) {
    uint32_t h = mix32(seed + 0x9E3779B9u);
    h = mix32(h ^ fold(ix));
    return mix32(h ^ fold(iz));
}

/* 16 unit gradients, evenly spaced around the circle. */
#define G_C 0.92387953251128674 /* cos 22.5 degrees */
#define G_S 0.38268343236508978 /* sin 22.5 degrees */
#define G_R 0.70710678118654752 /* cos 45 degrees */
static const double GRADIENTS[16][2] = {
    {1, 0},   {G_C, G_S},   {G_R, G_R},   {G_S, G_C},   /* first quadrant */
    {0, 1},   {-G_S, G_C},  {-G_R, G_R},  {-G_C, G_S},  /* second */
    {-1, 0},  {-G_C, -G_S}, {-G_R, -G_R}, {-G_S, -G_C}, /* third */
    {0, -1},  {G_S, -G_C},  {G_R, -G_R},  {G_C, -G_S},  /* fourth */
};

/* The contribution of corner (ix, iz): its gradient dotted with the offset to the point. */
static double corner(int64_t ix, int64_t iz, uint32_t seed, double dx, double dz) {
    const double *g = GRADIENTS[lattice_hash(ix, iz, seed) >> 28]; /* top bits mix best */
    return g[0] * dx + g[1] * dz;
}

/* Quintic smoothstep: zero first and second derivatives at the cell edges, so no creases. */
static double fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

static double lerp(double a, double b, double t) { return a + (b - a) * t; }

/* 2D gradient noise in [-1, 1]; zero at every lattice point. */
static double gradient_noise(double x, double z, uint32_t seed) {
    double fx = floor(x), fz = floor(z);
    int64_t ix = (int64_t)fx, iz = (int64_t)fz; /* |x|, |z| stay far below 2^63 */
    double dx = x - fx, dz = z - fz;
    double n00 = corner(ix, iz, seed, dx, dz);
    double n10 = corner(ix + 1, iz, seed, dx - 1.0, dz);
    double n01 = corner(ix, iz + 1, seed, dx, dz - 1.0);
    double n11 = corner(ix + 1, iz + 1, seed, dx - 1.0, dz - 1.0);
    double u = fade(dx), v = fade(dz);
    /* With unit gradients 2D gradient noise stays within +-sqrt(2)/2: scale it to +-1, and
     * clamp so rounding can never push a height past the amplitude. */
    double n = lerp(lerp(n00, n10, u), lerp(n01, n11, u), v) * 1.4142135623730951;
    return n < -1.0 ? -1.0 : n > 1.0 ? 1.0 : n;
}

/* Fractal Brownian motion: `octaves` layers of noise, each at twice the frequency and half
 * the weight of the one before, normalised back to [-1, 1]. */
static double fbm(double x, double z, uint32_t seed, int octaves) {
    double sum = 0.0, weight = 1.0, total = 0.0, freq = 1.0;
    for (int i = 0; i < octaves; i++) {
        uint32_t layer = mix32(seed ^ mix32((uint32_t)i + 1u));
        /* Shift each layer by its own offset in [0, 256): otherwise every layer would be zero
         * at the origin (a lattice point of all of them) for every seed. */
        double ox = (double)(layer & 0xFFFFu) * (256.0 / 65536.0);
        double oz = (double)(layer >> 16) * (256.0 / 65536.0);
        sum += weight * gradient_noise(x * freq + ox, z * freq + oz, layer);
        total += weight;
        weight *= 0.5;
        freq *= 2.0;
    }
    return sum / total;
}

/* The parameters of the height field shared by both skills. */
typedef struct terrain {
    uint32_t seed;
    int octaves;
    double scale;     /* noise cells per world unit */
    double amplitude; /* heights lie within +-amplitude */
} terrain;

static double terrain_height(const terrain *t, double x, double z) {
    return t->amplitude * fbm(x * t->scale, z * t->scale, t->seed, t->octaves);
}

/* ---- scattering -------------------------------------------------------------------------- */

/* splitmix64: a small, well-distributed PRNG, plenty for placing points. */
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1) from the top 53 bits. */
static double next_unit(uint64_t *state) {
    return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- reading input ----------------------------------------------------------------------- */

/* A number field of the input and its bounds. The host has already checked the input against
 * the schema; checking again keeps the handlers safe when called natively (test.c) and makes
 * every refusal name the field and the fix. */
typedef struct field {
    const char *name;
    bool required;
    bool integer;
    bool above_min; /* min itself is excluded */
    double min, max;
    double fallback; /* when absent and not required */
} field;

static const field F_X = {"x", true, false, false, -COORD_MAX, COORD_MAX, 0};
static const field F_Z = {"z", true, false, false, -COORD_MAX, COORD_MAX, 0};
static const field F_SEED = {"seed", true, true, false, 0, SEED_MAX, 0};
static const field F_OCTAVES = {"octaves", false, true, false, 1, OCTAVES_MAX, 4};
static const field F_SCALE = {"scale", false, false, true, 0, SCALE_MAX, 0.01};
static const field F_AMPLITUDE = {"amplitude", false, false, false, 0, AMPLITUDE_MAX, 20};
static const field F_COUNT = {"count", true, true, false, 1, COUNT_MAX, 0};
static const field F_SPACING = {"minSpacing", false, false, false, 0, COORD_MAX, 0};
static const field F_MIN_X = {"minX", true, false, false, -COORD_MAX, COORD_MAX, 0};
static const field F_MIN_Z = {"minZ", true, false, false, -COORD_MAX, COORD_MAX, 0};
static const field F_MAX_X = {"maxX", true, false, false, -COORD_MAX, COORD_MAX, 0};
static const field F_MAX_Z = {"maxZ", true, false, false, -COORD_MAX, COORD_MAX, 0};

/* Reads field f of obj into *value; on a bad value writes the message and returns
 * LIMINA_INVALID_INPUT. `prefix` names the enclosing object in messages ("area.") or is "". */
static limina_status read_field(limina_json obj, const char *prefix, const field *f,
                                double *value, limina_out *out) {
    limina_json raw;
    if (!limina_json_get(obj, f->name, &raw)) {
        if (f->required)
            return limina_fail(out, LIMINA_INVALID_INPUT, "`%s%s` is required: add it", prefix,
                               f->name);
        *value = f->fallback;
        return LIMINA_OK;
    }
    double v;
    if (!limina_json_number(obj, f->name, &v) || !isfinite(v))
        return limina_fail(out, LIMINA_INVALID_INPUT, "`%s%s` must be a number, got `%.*s`",
                           prefix, f->name, (int)(raw.len > 40 ? 40 : raw.len), raw.text);
    bool low = f->above_min ? v <= f->min : v < f->min;
    if (low || v > f->max || (f->integer && v != floor(v)))
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "`%s%s` must be %s %s %.9g %s %.9g, got %.9g", prefix, f->name,
                           f->integer ? "an integer" : "a number",
                           f->above_min ? "above" : "from", f->min,
                           f->above_min ? "up to" : "to", f->max, v);
    *value = v;
    return LIMINA_OK;
}

/* Reads seed, octaves, scale and amplitude, shared by both skills. */
static limina_status read_terrain(limina_json input, terrain *t, limina_out *out) {
    double seed, octaves;
    limina_status s;
    if ((s = read_field(input, "", &F_SEED, &seed, out)) != LIMINA_OK ||
        (s = read_field(input, "", &F_OCTAVES, &octaves, out)) != LIMINA_OK ||
        (s = read_field(input, "", &F_SCALE, &t->scale, out)) != LIMINA_OK ||
        (s = read_field(input, "", &F_AMPLITUDE, &t->amplitude, out)) != LIMINA_OK)
        return s;
    t->seed = (uint32_t)seed;
    t->octaves = (int)octaves;
    return LIMINA_OK;
}

/* ---- schemas ----------------------------------------------------------------------------- */

/* The height-field parameters, as schema properties, shared by both skills' inputs. */
#define TERRAIN_PROPERTIES                                                                     \
    "\"seed\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":4294967295,"                     \
    "\"description\":\"Picks the terrain: the same seed always gives the same heights.\"},"    \
    "\"octaves\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":8,\"default\":4,"             \
    "\"description\":\"Layers of detail; each adds features at half the size.\"},"             \
    "\"scale\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":1000,\"default\":0.01," \
    "\"description\":\"Noise cells per world unit: smaller makes broader hills.\"},"           \
    "\"amplitude\":{\"type\":\"number\",\"minimum\":0,\"maximum\":100000,\"default\":20,"      \
    "\"description\":\"Heights lie within -amplitude..amplitude.\"}"

#define COORD(desc)                                                                            \
    "{\"type\":\"number\",\"minimum\":-1000000,\"maximum\":1000000,\"description\":\"" desc "\"}"

static const char HEIGHT_INPUT[] =
    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
    "\"required\":[\"x\",\"z\",\"seed\"],\"additionalProperties\":false,\"properties\":{"
    "\"x\":" COORD("World x of the point.") ","
    "\"z\":" COORD("World z of the point.") ","
    TERRAIN_PROPERTIES "}}";

static const char HEIGHT_OUTPUT[] =
    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
    "\"required\":[\"height\"],\"additionalProperties\":false,\"properties\":{"
    "\"height\":{\"type\":\"number\",\"description\":\"Terrain height (y) at (x, z), within "
    "-amplitude..amplitude.\"}}}";

static const char SCATTER_INPUT[] =
    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
    "\"required\":[\"seed\",\"count\",\"area\"],\"additionalProperties\":false,\"properties\":{"
    "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":256,"
    "\"description\":\"How many points to place.\"},"
    "\"area\":{\"type\":\"object\",\"required\":[\"minX\",\"minZ\",\"maxX\",\"maxZ\"],"
    "\"additionalProperties\":false,\"description\":\"The rectangle to place points in; "
    "maxX must exceed minX and maxZ must exceed minZ.\",\"properties\":{"
    "\"minX\":" COORD("West edge.") ",\"minZ\":" COORD("South edge.") ","
    "\"maxX\":" COORD("East edge.") ",\"maxZ\":" COORD("North edge.") "}},"
    "\"minSpacing\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1000000,\"default\":0,"
    "\"description\":\"Least distance (in x-z) between two points; a point that would come "
    "closer is rejected, so fewer than count may be placed.\"},"
    TERRAIN_PROPERTIES "}}";

static const char SCATTER_OUTPUT[] =
    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
    "\"required\":[\"points\",\"placed\"],\"additionalProperties\":false,\"properties\":{"
    "\"points\":{\"type\":\"array\",\"maxItems\":256,\"description\":\"Placed points, y "
    "being the terrain height there.\",\"items\":{\"type\":\"object\","
    "\"required\":[\"x\",\"y\",\"z\"],\"additionalProperties\":false,\"properties\":{"
    "\"x\":{\"type\":\"number\"},\"y\":{\"type\":\"number\"},\"z\":{\"type\":\"number\"}}}},"
    "\"placed\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":256,"
    "\"description\":\"How many points were placed (less than count when spacing left no "
    "room).\"}}}";

/* ---- writing output ---------------------------------------------------------------------- */

/* A number split for printing with six decimals: "%s%llu.%06llu" of sign, whole, micros. */
typedef struct fixed6 {
    const char *sign;
    unsigned long long whole, micros;
} fixed6;

/* v (finite, |v| < 9e12) rounded to six decimals, like "%.6f" but never "-0.000000". Done
 * in integers because wasi-libc's printf formats a double through long double, which wasm
 * emulates in software: thousands of fuel per number, and the bulk of a scatter's cost. */
static fixed6 fixed6_of(double v) {
    long long rounded = llround(v * 1e6);
    unsigned long long m = (unsigned long long)(rounded < 0 ? -rounded : rounded);
    fixed6 f = {rounded < 0 ? "-" : "", m / 1000000ull, m % 1000000ull};
    return f;
}

#define FIXED6 "%s%llu.%06llu"
#define FIXED6_ARGS(f) (f).sign, (f).whole, (f).micros

/* ---- skills ------------------------------------------------------------------------------ */

/* terrain.height {x, z, seed, octaves?, scale?, amplitude?} -> {height} */
static limina_status height(limina_json input, limina_out *out) {
    terrain t;
    double x, z;
    limina_status s;
    if ((s = read_field(input, "", &F_X, &x, out)) != LIMINA_OK ||
        (s = read_field(input, "", &F_Z, &z, out)) != LIMINA_OK ||
        (s = read_terrain(input, &t, out)) != LIMINA_OK)
        return s;
    double h = terrain_height(&t, x, z);
    if (!isfinite(h)) /* cannot happen within the bounds; never print NaN into JSON */
        return limina_fail(out, LIMINA_HANDLER_ERROR, "the height at (%g, %g) is not finite", x, z);
    fixed6 f = fixed6_of(h);
    limina_printf(out, "{\"height\":" FIXED6 "}", FIXED6_ARGS(f));
    return LIMINA_OK;
}

/* terrain.scatter {seed, count, area, minSpacing?, octaves?, scale?, amplitude?}
 *   -> {points: [{x, y, z}], placed} */
static limina_status scatter(limina_json input, limina_out *out) {
    terrain t;
    double count_d, spacing, min_x, min_z, max_x, max_z;
    limina_json area;
    limina_status s;
    if ((s = read_terrain(input, &t, out)) != LIMINA_OK ||
        (s = read_field(input, "", &F_COUNT, &count_d, out)) != LIMINA_OK ||
        (s = read_field(input, "", &F_SPACING, &spacing, out)) != LIMINA_OK)
        return s;
    if (!limina_json_get(input, "area", &area) || area.len == 0 || area.text[0] != '{')
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "`area` is required: an object {minX, minZ, maxX, maxZ}");
    if ((s = read_field(area, "area.", &F_MIN_X, &min_x, out)) != LIMINA_OK ||
        (s = read_field(area, "area.", &F_MIN_Z, &min_z, out)) != LIMINA_OK ||
        (s = read_field(area, "area.", &F_MAX_X, &max_x, out)) != LIMINA_OK ||
        (s = read_field(area, "area.", &F_MAX_Z, &max_z, out)) != LIMINA_OK)
        return s;
    /* What the schema cannot say: the rectangle must not be empty. */
    if (max_x <= min_x)
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "`area.maxX` (%.9g) must be greater than `area.minX` (%.9g): swap "
                           "them or widen the area",
                           max_x, min_x);
    if (max_z <= min_z)
        return limina_fail(out, LIMINA_INVALID_INPUT,
                           "`area.maxZ` (%.9g) must be greater than `area.minZ` (%.9g): swap "
                           "them or widen the area",
                           max_z, min_z);

    int count = (int)count_d;
    double points[COUNT_MAX][2];
    int placed = 0;
    /* Its own stream, so the points do not echo the noise's lattice hashes. */
    uint64_t rng = ((uint64_t)t.seed << 32) ^ 0x5CA77E4ull;
    double spacing2 = spacing * spacing;
    for (int attempt = 0; attempt < count * ATTEMPTS_PER_POINT && placed < count; attempt++) {
        double x = min_x + (max_x - min_x) * next_unit(&rng);
        double z = min_z + (max_z - min_z) * next_unit(&rng);
        bool clear = true;
        for (int i = 0; clear && spacing2 > 0.0 && i < placed; i++) {
            double dx = x - points[i][0], dz = z - points[i][1];
            clear = dx * dx + dz * dz >= spacing2;
        }
        if (clear) {
            points[placed][0] = x;
            points[placed][1] = z;
            placed++;
        }
    }

    limina_printf(out, "{\"points\":[");
    for (int i = 0; i < placed; i++) {
        double x = points[i][0], z = points[i][1], y = terrain_height(&t, x, z);
        if (!isfinite(y))
            return limina_fail(out, LIMINA_HANDLER_ERROR, "the height at (%g, %g) is not finite",
                               x, z);
        /* One printf per point: each call formats its text twice (measure, then write). */
        fixed6 fx = fixed6_of(x), fy = fixed6_of(y), fz = fixed6_of(z);
        limina_printf(out, "%s{\"x\":" FIXED6 ",\"y\":" FIXED6 ",\"z\":" FIXED6 "}",
                      i ? "," : "", FIXED6_ARGS(fx), FIXED6_ARGS(fy), FIXED6_ARGS(fz));
    }
    limina_printf(out, "],\"placed\":%d}", placed);
    return LIMINA_OK;
}

static const limina_skill SKILLS[] = {
    {
        .name = "terrain.height",
        .description = "Terrain height at a point (x, z): fractal gradient noise from a seed, "
                       "within -amplitude..amplitude; the same inputs always give the same "
                       "height.",
        .input_schema = HEIGHT_INPUT,
        .output_schema = HEIGHT_OUTPUT,
        .read_only = true,
        .handler = height,
    },
    {
        .name = "terrain.scatter",
        .description = "Scatter up to `count` points over a rectangle of the terrain, "
                       "deterministically from a seed, at least `minSpacing` apart; each "
                       "point's y is the terrain height there (as terrain.height).",
        .input_schema = SCATTER_INPUT,
        .output_schema = SCATTER_OUTPUT,
        .read_only = true,
        .handler = scatter,
    },
};

LIMINA_PACKAGE(SKILLS)
