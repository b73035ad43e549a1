//! `names`: a deterministic fantasy name generator, a Limina skill package in Zig.
//!
//! - `names.generate` builds personal names syllable by syllable (onset, vowel, coda) from a
//!   small table per style: elvish, dwarvish, orcish, human.
//! - `names.place` joins a prefix and a suffix from a table per kind of place.
//!
//! Both draw from `std.Random.DefaultPrng` seeded with the caller's `seed` and nothing else, so
//! the same input always gives the same answer (with the pinned Zig: its generator and
//! `uintLessThan` define the sequence). The host validates every input against the skill's
//! schema before the handler runs, so the handlers do not repeat those checks. The tables
//! and the schemas were written for this package.

const std = @import("std");
const limina = @import("limina");

pub const Style = enum { elvish, dwarvish, orcish, human };
pub const Kind = enum { town, river, mountain, forest };

/// Most names one call may ask for.
pub const max_count = 50;
/// Most syllables a name may have.
pub const max_syllables = 4;
/// Shorter candidates ("Ae", "Ra") are drawn again.
pub const min_name_len = 3;
/// Draws allowed per name asked for before giving up. The smallest pool (one syllable) holds
/// hundreds of names, so 50 distinct ones come long before this; the tests sweep seeds to
/// show it.
const attempts_per_name = 100;

// ---------------------------------------------------------------------------------------------
// Personal names.

/// How one style builds a syllable: an onset, a vowel (nucleus) and a coda. Repeated entries
/// are weights. Only the first syllable may start with a vowel (`""` in `initial`); later
/// onsets are consonants, so two vowels of different syllables never run together.
const Phonology = struct {
    /// Onset of the first syllable.
    initial: []const []const u8,
    /// Onset of every later syllable.
    onsets: []const []const u8,
    nuclei: []const []const u8,
    /// Coda of every syllable but the last: mostly empty, so names flow.
    inner_codas: []const []const u8,
    /// Coda of the last syllable: where a style shows most.
    final_codas: []const []const u8,
    /// Syllables per name when the caller leaves `syllables` out: a range, drawn per name.
    default_syllables: [2]u8,
};

const elvish = Phonology{
    .initial = &.{ "", "", "l", "th", "f", "s", "n", "m", "r", "gl", "c", "v", "h", "el" },
    .onsets = &.{ "l", "th", "n", "r", "d", "s", "dr", "v", "m", "lw", "nd" },
    .nuclei = &.{ "a", "a", "e", "e", "i", "i", "ae", "ia", "ie", "o", "ea" },
    .inner_codas = &.{ "", "", "", "l", "n", "r" },
    .final_codas = &.{ "", "", "l", "n", "n", "r", "th", "s", "nd", "rn", "dh" },
    .default_syllables = .{ 2, 3 },
};

const dwarvish = Phonology{
    .initial = &.{ "b", "b", "d", "g", "k", "t", "th", "dr", "gr", "br", "kh", "n", "f", "thr", "dw", "" },
    .onsets = &.{ "d", "g", "k", "r", "l", "n", "m", "z", "b", "th", "gr", "dr" },
    .nuclei = &.{ "a", "a", "o", "o", "u", "u", "i", "e", "ai", "au" },
    .inner_codas = &.{ "", "", "r", "n", "m", "l", "k", "z" },
    .final_codas = &.{ "r", "r", "n", "m", "k", "rk", "nd", "ld", "rn", "th", "rm", "lk", "" },
    .default_syllables = .{ 1, 2 },
};

const orcish = Phonology{
    .initial = &.{ "g", "g", "gr", "k", "kr", "z", "zg", "sh", "b", "m", "n", "r", "dr", "gh", "sn", "" },
    .onsets = &.{ "g", "k", "z", "sh", "r", "b", "d", "gh", "th", "l", "n", "zg" },
    .nuclei = &.{ "a", "a", "u", "u", "o", "o", "i", "au" },
    .inner_codas = &.{ "", "", "r", "g", "z", "k", "sh", "n" },
    .final_codas = &.{ "k", "g", "sh", "z", "rz", "th", "gh", "rk", "x", "b", "nk", "sk", "rg", "d" },
    .default_syllables = .{ 1, 2 },
};

const human = Phonology{
    .initial = &.{ "", "b", "c", "d", "h", "j", "l", "m", "r", "s", "t", "w", "br", "st", "g", "th", "f", "p", "cl", "gr" },
    .onsets = &.{ "b", "d", "l", "m", "n", "r", "s", "t", "v", "w", "dr", "th", "g" },
    .nuclei = &.{ "a", "a", "e", "e", "i", "i", "o", "o", "u" },
    .inner_codas = &.{ "", "", "", "n", "r", "l", "s" },
    .final_codas = &.{ "", "", "n", "n", "r", "d", "s", "m", "ld", "rt", "th", "ck", "nd", "ll" },
    .default_syllables = .{ 2, 3 },
};

fn phonology(style: Style) *const Phonology {
    return switch (style) {
        .elvish => &elvish,
        .dwarvish => &dwarvish,
        .orcish => &orcish,
        .human => &human,
    };
}

fn longest(list: []const []const u8) usize {
    var most: usize = 0;
    for (list) |entry| most = @max(most, entry.len);
    return most;
}

fn shortest(list: []const []const u8) usize {
    var least: usize = std.math.maxInt(usize);
    for (list) |entry| least = @min(least, entry.len);
    return least;
}

/// The longest name any style can build: the output schema's `maxLength` and the size of the
/// buffer names are built in.
pub const max_name_len = blk: {
    var most: usize = 0;
    for (std.enums.values(Style)) |style| {
        const p = phonology(style);
        const n = max_syllables;
        most = @max(most, longest(p.initial) + (n - 1) * longest(p.onsets) +
            n * longest(p.nuclei) + (n - 1) * longest(p.inner_codas) + longest(p.final_codas));
    }
    break :blk most;
};

fn pick(random: std.Random, list: []const []const u8) []const u8 {
    return list[random.uintLessThan(usize, list.len)];
}

/// One candidate of `syllables` syllables (1..max_syllables) in `buffer`, capitalised.
fn buildName(buffer: *[max_name_len]u8, random: std.Random, p: *const Phonology, syllables: usize) []u8 {
    var len: usize = 0;
    for (0..syllables) |i| {
        const parts = [_][]const u8{
            pick(random, if (i == 0) p.initial else p.onsets),
            pick(random, p.nuclei),
            pick(random, if (i + 1 == syllables) p.final_codas else p.inner_codas),
        };
        for (parts) |part| {
            @memcpy(buffer[len..][0..part.len], part);
            len += part.len;
        }
    }
    if (len > 0) buffer[0] = std.ascii.toUpper(buffer[0]);
    return buffer[0..len];
}

/// Whether a candidate reads as a name: long enough, no doubled `a`, `i`, `u` or `y`, no
/// letter three times in a row.
fn readable(name: []const u8) bool {
    if (name.len < min_name_len) return false;
    for (1..name.len) |i| {
        const before = std.ascii.toLower(name[i - 1]);
        const here = name[i];
        if (before != here) continue;
        if (std.mem.indexOfScalar(u8, "aiuy", here) != null) return false;
        if (i >= 2 and std.ascii.toLower(name[i - 2]) == here) return false;
    }
    return true;
}

pub const GenerateInput = struct {
    seed: u32,
    count: u8 = 5,
    style: Style = .human,
    syllables: ?u8 = null,
};

/// `count` distinct names in the order drawn.
pub fn generateNames(arena: std.mem.Allocator, args: GenerateInput) limina.Failure![]const []const u8 {
    // The schema bounds `syllables`; this guard is for the fixed buffer below, should a
    // native caller skip the schema.
    if (args.syllables) |n| if (n < 1 or n > max_syllables)
        return limina.fail(arena, error.InvalidInput, "`syllables` must be 1 to {d}, not {d}; leave it out to let the style choose", .{ max_syllables, n });
    const p = phonology(args.style);
    var prng = std.Random.DefaultPrng.init(args.seed);
    const random = prng.random();
    const names = try arena.alloc([]const u8, args.count);
    var buffer: [max_name_len]u8 = undefined;
    var found: usize = 0;
    var attempts: usize = 0;
    draw: while (found < names.len) : (attempts += 1) {
        if (attempts == attempts_per_name * names.len)
            return limina.fail(arena, error.HandlerError, "found only {d} distinct {s} names of the {d} asked for; ask for fewer or allow more syllables", .{ found, @tagName(args.style), names.len });
        const syllables = args.syllables orelse
            random.intRangeAtMost(u8, p.default_syllables[0], p.default_syllables[1]);
        const name = buildName(&buffer, random, p, syllables);
        if (!readable(name)) continue;
        for (names[0..found]) |earlier| if (std.mem.eql(u8, earlier, name)) continue :draw;
        names[found] = try arena.dupe(u8, name);
        found += 1;
    }
    return names;
}

/// `names.generate`.
fn generate(arena: std.mem.Allocator, input: []const u8) limina.Failure![]const u8 {
    const args = try limina.parse(GenerateInput, arena, input);
    const names = try generateNames(arena, args);
    // A caller that asked for progress hears that the draw is done.
    limina.progress(@floatFromInt(names.len), @floatFromInt(names.len), "names drawn");
    return limina.stringify(arena, .{ .names = names, .style = args.style });
}

// ---------------------------------------------------------------------------------------------
// Place names.

/// A place name is a prefix and a suffix; a suffix starting with a space is a word of its own.
const PlaceParts = struct {
    prefixes: []const []const u8,
    suffixes: []const []const u8,
};

const towns = PlaceParts{
    .prefixes = &.{ "Ash", "Bright", "Oak", "Stone", "Raven", "Mill", "Wolf", "Elder", "Frost", "Harrow", "Kings", "Marsh", "Thorn", "Red", "Black", "Green", "Silver", "High", "Barrow", "Wych" },
    .suffixes = &.{ "ford", "bridge", "wick", "ton", "bury", "ham", "stead", "by", "field", "gate", "haven", "holm", "mouth", "well", "dale", "cross" },
};

const rivers = PlaceParts{
    .prefixes = &.{ "Silver", "Black", "Willow", "Swift", "Cold", "Mist", "Amber", "Reed", "Otter", "Grey", "Whisper", "Serpent", "Salmon", "Bright", "Alder", "Heron" },
    .suffixes = &.{ "water", "run", "brook", "flow", "burn", "wash", "beck", "rill", "stream", " River" },
};

const mountains = PlaceParts{
    .prefixes = &.{ "Storm", "Iron", "Grey", "Frost", "Eagle", "Thunder", "Cloud", "Dragon", "Raven", "Wind", "Ash", "Skull", "Giant", "Hollow", "White", "Star" },
    .suffixes = &.{ "peak", "horn", "crag", "spire", "fell", "tooth", " Tor", " Heights", " Crown", " Fang" },
};

const forests = PlaceParts{
    .prefixes = &.{ "Mirk", "Elder", "Thorn", "Shadow", "Whisper", "Green", "Moss", "Gloam", "Old", "Fern", "Bramble", "Deep", "Wild", "Hart", "Yew", "Owl" },
    .suffixes = &.{ "wood", "wold", "weald", "holt", "shaw", "hurst", "grove", " Forest", " Thicket", " Tangle" },
};

fn placeParts(kind: Kind) *const PlaceParts {
    return switch (kind) {
        .town => &towns,
        .river => &rivers,
        .mountain => &mountains,
        .forest => &forests,
    };
}

/// Shortest and longest place names: the output schema's bounds.
const place_len: [2]usize = blk: {
    var least: usize = std.math.maxInt(usize);
    var most: usize = 0;
    for (std.enums.values(Kind)) |kind| {
        const parts = placeParts(kind);
        least = @min(least, shortest(parts.prefixes) + shortest(parts.suffixes));
        most = @max(most, longest(parts.prefixes) + longest(parts.suffixes));
    }
    break :blk .{ least, most };
};

/// Whether `suffix` would double the last letter of `prefix` (Kings + stead, Shadow + wood).
fn doubles(prefix: []const u8, suffix: []const u8) bool {
    return std.ascii.toLower(prefix[prefix.len - 1]) == suffix[0];
}

pub fn placeName(arena: std.mem.Allocator, seed: u32, kind: Kind) ![]const u8 {
    const parts = placeParts(kind);
    // The kind goes into the seed's high bits, so a town and a river of one seed differ in
    // more than their tables.
    var prng = std.Random.DefaultPrng.init(@as(u64, @intFromEnum(kind)) << 32 | seed);
    const random = prng.random();
    const prefix = pick(random, parts.prefixes);
    // Every prefix has suffixes that do not double it (a test checks), so this ends.
    var s = random.uintLessThan(usize, parts.suffixes.len);
    while (doubles(prefix, parts.suffixes[s])) s = (s + 1) % parts.suffixes.len;
    return std.mem.concat(arena, u8, &.{ prefix, parts.suffixes[s] });
}

pub const PlaceInput = struct {
    seed: u32,
    kind: Kind,
};

/// `names.place`.
fn place(arena: std.mem.Allocator, input: []const u8) limina.Failure![]const u8 {
    const args = try limina.parse(PlaceInput, arena, input);
    const name = try placeName(arena, args.seed, args.kind);
    return limina.stringify(arena, .{ .name = name, .kind = args.kind });
}

// ---------------------------------------------------------------------------------------------
// Schemas and the skill list.

fn decimal(comptime n: usize) []const u8 {
    return std.fmt.comptimePrint("{d}", .{n});
}

const seed_schema =
    \\"seed":{"type":"integer","minimum":0,"maximum":4294967295,
    \\"description":"Any whole number; the same input always gives the same answer."}
;

const generate_input_schema =
    \\{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
    \\"properties":{
++ seed_schema ++
    \\,"count":{"type":"integer","minimum":1,"maximum":
++ decimal(max_count) ++
    \\,"default":5,"description":"How many names, all different."},
    \\"style":{"type":"string","enum":["elvish","dwarvish","orcish","human"],"default":"human",
    \\"description":"Which syllable tables to draw from."},
    \\"syllables":{"type":"integer","minimum":1,"maximum":
++ decimal(max_syllables) ++
    \\,"description":"Syllables in every name; left out, the style chooses per name (elvish and human 2-3, dwarvish and orcish 1-2)."}},
    \\"required":["seed"],"additionalProperties":false}
;

const generate_output_schema =
    \\{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
    \\"properties":{
    \\"names":{"type":"array","minItems":1,"maxItems":
++ decimal(max_count) ++
    \\,"uniqueItems":true,"items":{"type":"string","minLength":
++ decimal(min_name_len) ++
    \\,"maxLength":
++ decimal(max_name_len) ++
    \\,"pattern":"^[A-Z][a-z]*$"},"description":"The names, capitalised, in the order drawn."},
    \\"style":{"type":"string","enum":["elvish","dwarvish","orcish","human"],
    \\"description":"The style used."}},
    \\"required":["names","style"],"additionalProperties":false}
;

const place_input_schema =
    \\{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
    \\"properties":{
++ seed_schema ++
    \\,"kind":{"type":"string","enum":["town","river","mountain","forest"],
    \\"description":"What sort of place to name."}},
    \\"required":["seed","kind"],"additionalProperties":false}
;

const place_output_schema =
    \\{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
    \\"properties":{
    \\"name":{"type":"string","minLength":
++ decimal(place_len[0]) ++
    \\,"maxLength":
++ decimal(place_len[1]) ++
    \\,"pattern":"^[A-Z][a-z]*( [A-Z][a-z]*)?$","description":"The place name."},
    \\"kind":{"type":"string","enum":["town","river","mountain","forest"],
    \\"description":"The kind asked for."}},
    \\"required":["name","kind"],"additionalProperties":false}
;

pub const skills = [_]limina.Skill{
    .{
        .name = "names.generate",
        .description = "Generate fantasy personal names (elvish, dwarvish, orcish or human) " ++
            "from syllable tables; the same seed and options always give the same names.",
        .input_schema = generate_input_schema,
        .output_schema = generate_output_schema,
        .handler = generate,
    },
    .{
        .name = "names.place",
        .description = "Name a town, river, mountain or forest from prefix and suffix tables; " ++
            "the same seed and kind always give the same name.",
        .input_schema = place_input_schema,
        .output_schema = place_output_schema,
        .handler = place,
    },
};

comptime {
    limina.exportPackage(&skills);
}

// ---------------------------------------------------------------------------------------------
// Tests: `limina pkg test`.

const testing = std.testing;

const GenerateOutput = struct { names: []const []const u8, style: []const u8 };
const PlaceOutput = struct { name: []const u8, kind: []const u8 };

fn call(arena: std.mem.Allocator, skill: []const u8, input: []const u8) ![]const u8 {
    return limina.invoke(&skills, arena, skill, input);
}

fn generateJson(arena: std.mem.Allocator, input: []const u8) !GenerateOutput {
    const out = try call(arena, "names.generate", input);
    return std.json.parseFromSliceLeaky(GenerateOutput, arena, out, .{});
}

/// Whether `text` (lower case) splits into `n - i` more syllables of `p`: the grammar
/// `buildName` draws from, checked by backtracking.
fn fitsFrom(p: *const Phonology, text: []const u8, i: usize, n: usize) bool {
    if (i == n) return text.len == 0;
    const onsets = if (i == 0) p.initial else p.onsets;
    const codas = if (i + 1 == n) p.final_codas else p.inner_codas;
    for (onsets) |onset| {
        if (!std.mem.startsWith(u8, text, onset)) continue;
        const rest = text[onset.len..];
        for (p.nuclei) |nucleus| {
            if (!std.mem.startsWith(u8, rest, nucleus)) continue;
            const after = rest[nucleus.len..];
            for (codas) |coda| {
                if (std.mem.startsWith(u8, after, coda) and fitsFrom(p, after[coda.len..], i + 1, n))
                    return true;
            }
        }
    }
    return false;
}

fn fits(style: Style, name: []const u8, syllables: usize) bool {
    var lower: [max_name_len]u8 = undefined;
    if (name.len > max_name_len) return false;
    const text = std.ascii.lowerString(&lower, name);
    return fitsFrom(phonology(style), text, 0, syllables);
}

test "generate: the same input gives the same names" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const a = arena.allocator();
    const inputs = [_][]const u8{
        "{\"seed\":7}",
        "{\"seed\":7,\"count\":50,\"style\":\"elvish\"}",
        "{\"seed\":4294967295,\"count\":12,\"style\":\"orcish\",\"syllables\":4}",
    };
    for (inputs) |input| {
        const first = try call(a, "names.generate", input);
        const second = try call(a, "names.generate", input);
        try testing.expectEqualStrings(first, second);
    }
}

test "generate: different seeds give different names" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const a = arena.allocator();
    for (std.enums.values(Style)) |style| {
        for (0..200) |seed| {
            const one = try generateNames(a, .{ .seed = @intCast(seed), .style = style });
            const next = try generateNames(a, .{ .seed = @intCast(seed + 1), .style = style });
            var same = true;
            for (one, next) |x, y| same = same and std.mem.eql(u8, x, y);
            try testing.expect(!same);
        }
    }
}

test "generate: count is honoured, 5 by default" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const a = arena.allocator();
    try testing.expectEqual(5, (try generateJson(a, "{\"seed\":1}")).names.len);
    try testing.expectEqual(1, (try generateJson(a, "{\"seed\":1,\"count\":1}")).names.len);
    try testing.expectEqual(17, (try generateJson(a, "{\"seed\":1,\"count\":17}")).names.len);
    try testing.expectEqual(50, (try generateJson(a, "{\"seed\":1,\"count\":50}")).names.len);
    // A smaller count is the start of a larger one.
    const few = try generateJson(a, "{\"seed\":9,\"count\":3,\"style\":\"dwarvish\"}");
    const many = try generateJson(a, "{\"seed\":9,\"count\":30,\"style\":\"dwarvish\"}");
    for (few.names, many.names[0..3]) |x, y| try testing.expectEqualStrings(x, y);
}

test "generate: no duplicates, even 50 one-syllable names" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const a = arena.allocator();
    const choices = [_]?u8{ 1, 2, 3, 4, null };
    for (std.enums.values(Style)) |style| {
        for (choices) |syllables| {
            for (0..300) |seed| {
                _ = arena.reset(.retain_capacity);
                const names = try generateNames(a, .{ .seed = @intCast(seed * 7919), .count = max_count, .style = style, .syllables = syllables });
                try testing.expectEqual(max_count, names.len);
                for (names, 0..) |name, i| {
                    for (names[0..i]) |earlier| try testing.expect(!std.mem.eql(u8, name, earlier));
                }
            }
        }
    }
}

test "generate: names follow the style's tables, syllable count and shape" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const a = arena.allocator();
    for (std.enums.values(Style)) |style| {
        const input = try std.fmt.allocPrint(a, "{{\"seed\":42,\"count\":50,\"style\":\"{s}\"}}", .{@tagName(style)});
        const out = try generateJson(a, input);
        try testing.expectEqualStrings(@tagName(style), out.style);
        const range = phonology(style).default_syllables;
        for (out.names) |name| {
            try testing.expect(std.ascii.isUpper(name[0]));
            for (name[1..]) |ch| try testing.expect(std.ascii.isLower(ch));
            try testing.expect(name.len >= min_name_len and name.len <= max_name_len);
            var fitted = false;
            for (range[0]..range[1] + 1) |n| fitted = fitted or fits(style, name, n);
            try testing.expect(fitted);
        }
        for (1..max_syllables + 1) |n| {
            const names = try generateNames(a, .{ .seed = 42, .count = 20, .style = style, .syllables = @intCast(n) });
            for (names) |name| try testing.expect(fits(style, name, n));
        }
    }
    // One seed, four styles, four different lists.
    const elves = try generateNames(a, .{ .seed = 3, .style = .elvish });
    const orcs = try generateNames(a, .{ .seed = 3, .style = .orcish });
    try testing.expect(!std.mem.eql(u8, elves[0], orcs[0]));
}

test "generate: the output is the documented JSON" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const out = try call(arena.allocator(), "names.generate", "{\"seed\":7,\"count\":2,\"style\":\"orcish\"}");
    try testing.expect(std.mem.startsWith(u8, out, "{\"names\":[\""));
    try testing.expect(std.mem.endsWith(u8, out, "],\"style\":\"orcish\"}"));
}

test "place: deterministic, from the kind's tables, never a doubled letter at the join" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const a = arena.allocator();
    const first = try call(a, "names.place", "{\"seed\":7,\"kind\":\"river\"}");
    try testing.expectEqualStrings(first, try call(a, "names.place", "{\"seed\":7,\"kind\":\"river\"}"));
    for (std.enums.values(Kind)) |kind| {
        const parts = placeParts(kind);
        var distinct = std.StringHashMap(void).init(a);
        for (0..500) |seed| {
            const input = try std.fmt.allocPrint(a, "{{\"seed\":{d},\"kind\":\"{s}\"}}", .{ seed, @tagName(kind) });
            const out = try std.json.parseFromSliceLeaky(PlaceOutput, a, try call(a, "names.place", input), .{});
            try testing.expectEqualStrings(@tagName(kind), out.kind);
            try testing.expect(out.name.len >= place_len[0] and out.name.len <= place_len[1]);
            var known = false;
            for (parts.prefixes) |prefix| {
                if (!std.mem.startsWith(u8, out.name, prefix)) continue;
                for (parts.suffixes) |suffix| {
                    if (std.mem.eql(u8, out.name[prefix.len..], suffix)) {
                        known = true;
                        try testing.expect(!doubles(prefix, suffix));
                    }
                }
            }
            try testing.expect(known);
            try distinct.put(out.name, {});
        }
        // 500 seeds reach most of the table, not a handful of names.
        try testing.expect(distinct.count() > 100);
    }
}

test "place: every prefix has a suffix that does not double it" {
    for (std.enums.values(Kind)) |kind| {
        const parts = placeParts(kind);
        for (parts.prefixes) |prefix| {
            var ok = false;
            for (parts.suffixes) |suffix| ok = ok or !doubles(prefix, suffix);
            try testing.expect(ok);
        }
    }
}

test "schemas are JSON and list every style and kind" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    const a = arena.allocator();
    for (skills) |skill| {
        for ([_][]const u8{ skill.input_schema, skill.output_schema }) |schema| {
            const value = try std.json.parseFromSliceLeaky(std.json.Value, a, schema, .{});
            try testing.expectEqual(false, value.object.get("additionalProperties").?.bool);
        }
    }
    const enums = [_]struct { []const u8, []const u8, []const []const u8 }{
        .{ generate_input_schema, "style", comptime std.meta.fieldNames(Style) },
        .{ generate_output_schema, "style", comptime std.meta.fieldNames(Style) },
        .{ place_input_schema, "kind", comptime std.meta.fieldNames(Kind) },
        .{ place_output_schema, "kind", comptime std.meta.fieldNames(Kind) },
    };
    for (enums) |entry| {
        const schema, const field, const names = entry;
        const value = try std.json.parseFromSliceLeaky(std.json.Value, a, schema, .{});
        const listed = value.object.get("properties").?.object.get(field).?.object.get("enum").?.array.items;
        try testing.expectEqual(names.len, listed.len);
        for (names, listed) |name, item| try testing.expectEqualStrings(name, item.string);
    }
}

test "an unknown skill is not found" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    try testing.expectError(error.NotFound, call(arena.allocator(), "names.nope", "{}"));
    try testing.expectEqualStrings("this package has no skill `names.nope`", limina.message());
}

test "a syllable count outside 1..4 is refused, naming the field" {
    var arena = std.heap.ArenaAllocator.init(testing.allocator);
    defer arena.deinit();
    try testing.expectError(error.InvalidInput, call(arena.allocator(), "names.generate", "{\"seed\":1,\"syllables\":9}"));
    try testing.expect(std.mem.startsWith(u8, limina.message(), "`syllables` must be 1 to 4"));
}
