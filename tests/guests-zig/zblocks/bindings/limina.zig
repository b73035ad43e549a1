//! limina.zig: writing Limina skills in Zig.
//!
//! A package is a list of skills, each a handler from JSON input text to JSON output text,
//! exported once from `app.zig`:
//!
//!     const std = @import("std");
//!     const limina = @import("limina");
//!
//!     fn hello(arena: std.mem.Allocator, input: []const u8) limina.Failure![]const u8 {
//!         const args = try limina.parse(struct { name: []const u8 }, arena, input);
//!         return limina.stringify(arena, .{ .greeting = args.name });
//!     }
//!
//!     pub const skills = [_]limina.Skill{.{
//!         .name = "demo.hello",
//!         .description = "Greets someone.",
//!         .input_schema = "{...}",
//!         .output_schema = "{...}",
//!         .handler = hello,
//!     }};
//!
//!     comptime {
//!         limina.exportPackage(&skills);
//!     }
//!
//! The host validates the input against `input_schema` before the handler runs and the output
//! against `output_schema` after. Allocate from `arena`: it is freed when the call ends.
//!
//! Besides its JSON a handler may return content blocks (`try limina.add(arena,
//! limina.Block.png(bytes))`), and a package may serve resources and prompts, exported with
//! `limina.exportPackageWith(&skills, &resources, &prompts)` (see `Resource` and `Prompt`).
//!
//! Inside the component (wasm32) `exportPackage` implements the WIT `skill`, `resources` and
//! `prompts` interfaces (limina:skill 0.2.0, in `limina_exports.zig`) through the C bindings
//! that `limina pkg build` generates and `zig translate-c` turns into the `skill_package`
//! module. Natively (`limina pkg test`, which runs `zig test app.zig`) it
//! exports nothing, and tests call handlers, `invoke`, `readResource`, `getPrompt` and the
//! completions directly. Written for Limina.

const std = @import("std");
const builtin = @import("builtin");

/// Whether this is the component build.
pub const wasm = builtin.target.cpu.arch == .wasm32;
const c = if (wasm) @import("skill_package") else struct {};
/// The C bindings of the WIT contract (translated by `zig translate-c`), for calling host
/// imports: `limina.host.limina_skill_agents_perception(&text, &err)`. Only in the component
/// build; guard uses with `if (limina.wasm)`.
pub const host = c;

/// How a handler refuses a call; the caller sees the error code and the message given to
/// `fail`. `OutOfMemory` (from `try` on an allocation) is reported as a handler error.
pub const Failure = error{ InvalidInput, Forbidden, NotFound, HandlerError, OutOfMemory };

/// One skill. The package's manifest must declare each of `permissions` as a capability.
pub const Skill = struct {
    name: []const u8,
    version: []const u8 = "0.1.0",
    description: []const u8,
    input_schema: []const u8,
    output_schema: []const u8,
    permissions: []const []const u8 = &.{},
    read_only: bool = true,
    handler: *const fn (arena: std.mem.Allocator, input: []const u8) Failure![]const u8,
};

/// The message of the last failure (set by `fail`).
var last_message: []const u8 = "";

/// Sets the caller's message and returns `err`: `return limina.fail(arena, error.InvalidInput,
/// "`count` must be at most {d}", .{max});`
pub fn fail(arena: std.mem.Allocator, err: Failure, comptime fmt: []const u8, args: anytype) Failure {
    last_message = std.fmt.allocPrint(arena, fmt, args) catch "out of memory";
    return err;
}

/// The message of the last failure.
pub fn message() []const u8 {
    return last_message;
}

/// Parses the input into `T` (unknown fields are ignored; missing fields without a default
/// fail with `InvalidInput`).
pub fn parse(comptime T: type, arena: std.mem.Allocator, input: []const u8) Failure!T {
    return std.json.parseFromSliceLeaky(T, arena, input, .{
        .ignore_unknown_fields = true,
        .allocate = .alloc_always,
    }) catch |err| fail(arena, error.InvalidInput, "the input does not fit the skill: {s}", .{@errorName(err)});
}

/// The JSON text of `value`.
pub fn stringify(arena: std.mem.Allocator, value: anytype) Failure![]const u8 {
    return std.json.Stringify.valueAlloc(arena, value, .{});
}

/// Runs the skill `name` of `skills` on `input`; the blocks it adds are then `content()`.
pub fn invoke(skills: []const Skill, arena: std.mem.Allocator, name: []const u8, input: []const u8) Failure![]const u8 {
    // The previous call's blocks lived in its arena, gone by now.
    pending = .empty;
    for (skills) |skill| {
        if (std.mem.eql(u8, skill.name, name)) return skill.handler(arena, input);
    }
    return fail(arena, error.NotFound, "this package has no skill `{s}`", .{name});
}

/// Writes a line to the host's log (and the MCP client's notifications/message); natively, to
/// stderr.
pub fn log(comptime level: enum { debug, info, warn, err }, comptime fmt: []const u8, args: anytype) void {
    var buffer: [1024]u8 = undefined;
    const text = std.fmt.bufPrint(&buffer, fmt, args) catch buffer[0..];
    if (wasm) {
        var line = c.skill_package_string_t{ .ptr = @constCast(text.ptr), .len = text.len };
        c.limina_skill_log_log(@intFromEnum(level), &line);
    } else {
        std.debug.print("[{s}] {s}\n", .{ @tagName(level), text });
    }
}

/// Reports a long call's progress: `done` of `total` (when known), with an optional note;
/// sent to a client that asked for progress, dropped otherwise. Natively, to stderr.
pub fn progress(done: f64, total: ?f64, note: ?[]const u8) void {
    if (wasm) {
        var t: f64 = total orelse 0;
        var text = c.skill_package_string_t{ .ptr = if (note) |m| @constCast(m.ptr) else null, .len = if (note) |m| m.len else 0 };
        c.limina_skill_progress_report(done, if (total != null) &t else null, if (note != null) &text else null);
    } else {
        std.debug.print("[progress] {d}/{d} {s}\n", .{ done, total orelse -1, note orelse "" });
    }
}

// ---------------------------------------------------------------------------------------------
// Content blocks.

/// Bytes with their media type.
pub const Binary = struct { mime_type: []const u8, data: []const u8 };

/// A link to a resource the client may read.
pub const Link = struct {
    uri: []const u8,
    name: []const u8,
    description: ?[]const u8 = null,
    mime_type: ?[]const u8 = null,
};

/// A resource given inline: text, or with `blob` bytes (sent base64).
pub const Embedded = struct {
    uri: []const u8,
    mime_type: []const u8,
    body: []const u8,
    blob: bool = false,
};

/// One block of content, in the WIT `content-block`'s order. The host caps a result (16
/// blocks, 4 MiB), checks that an image or sound is what its media type says, and traces each
/// block as its kind and size.
pub const Block = union(enum) {
    text: []const u8,
    image: Binary,
    audio: Binary,
    link: Link,
    embedded: Embedded,

    /// A PNG image (the bytes of a .png file).
    pub fn png(data: []const u8) Block {
        return .{ .image = .{ .mime_type = "image/png", .data = data } };
    }
    /// A JPEG image.
    pub fn jpeg(data: []const u8) Block {
        return .{ .image = .{ .mime_type = "image/jpeg", .data = data } };
    }
    /// A WAV sound.
    pub fn wav(data: []const u8) Block {
        return .{ .audio = .{ .mime_type = "audio/wav", .data = data } };
    }
    /// A text resource given inline.
    pub fn embeddedText(uri: []const u8, mime_type: []const u8, text: []const u8) Block {
        return .{ .embedded = .{ .uri = uri, .mime_type = mime_type, .body = text } };
    }
    /// A binary resource given inline.
    pub fn embeddedBlob(uri: []const u8, mime_type: []const u8, data: []const u8) Block {
        return .{ .embedded = .{ .uri = uri, .mime_type = mime_type, .body = data, .blob = true } };
    }
};

/// The blocks the running skill added (in its arena).
var pending: std.ArrayList(Block) = .empty;

/// Adds a block beside the running skill's JSON output (clients get them after its text, in
/// order); a failed call drops them. Allocates from the handler's `arena`.
pub fn add(arena: std.mem.Allocator, block: Block) Failure!void {
    try pending.append(arena, block);
}

/// The blocks the last `invoke` added.
pub fn content() []const Block {
    return pending.items;
}

// ---------------------------------------------------------------------------------------------
// Resources and prompts.

/// Values completing a template's variable or a prompt's argument, best first (the host keeps
/// those starting with the prefix, at most 100).
pub const Completer = *const fn (arena: std.mem.Allocator, name: []const u8, prefix: []const u8) Failure![]const []const u8;

/// A resource, or with `{variables}` in its URI (one path segment each) a family of them. Its
/// URI is the package's own: `limina://pkg/<package>/...`.
pub const Resource = struct {
    uri: []const u8,
    name: []const u8,
    title: ?[]const u8 = null,
    description: ?[]const u8 = null,
    mime_type: []const u8 = "text/plain",
    /// Permissions a reader needs, each declared in the manifest.
    permissions: []const []const u8 = &.{},
    /// The body is bytes, not text.
    blob: bool = false,
    /// The body of `uri` (one this resource names), or null when it names nothing: the client
    /// is told the resource does not exist.
    read: *const fn (arena: std.mem.Allocator, uri: []const u8) Failure!?[]const u8,
    /// A template's variables.
    complete: ?Completer = null,
};

/// One argument of a prompt.
pub const Argument = struct {
    name: []const u8,
    description: ?[]const u8 = null,
    required: bool = false,
};

pub const Role = enum { user, assistant };

/// One message of a prompt.
pub const Message = struct { role: Role = .user, content: Block };

/// A message the user says.
pub fn user(block: Block) Message {
    return .{ .role = .user, .content = block };
}

/// A message put in the assistant's mouth.
pub fn assistant(block: Block) Message {
    return .{ .role = .assistant, .content = block };
}

/// A prompt's arguments: (name, value) pairs, checked by the host (every required one given,
/// no other).
pub const Args = []const [2][]const u8;

/// The value of the argument `name`, if given.
pub fn arg(args: Args, name: []const u8) ?[]const u8 {
    for (args) |pair| {
        if (std.mem.eql(u8, pair[0], name)) return pair[1];
    }
    return null;
}

/// A prompt, named `<package>.<prompt>` as skills are.
pub const Prompt = struct {
    name: []const u8,
    title: ?[]const u8 = null,
    description: ?[]const u8 = null,
    arguments: []const Argument = &.{},
    permissions: []const []const u8 = &.{},
    get: *const fn (arena: std.mem.Allocator, args: Args) Failure![]const Message,
    complete: ?Completer = null,
};

/// The values of `values` starting with `prefix`: how most completers answer.
pub fn startingWith(arena: std.mem.Allocator, values: []const []const u8, prefix: []const u8) Failure![]const []const u8 {
    var kept: std.ArrayList([]const u8) = .empty;
    for (values) |v| {
        if (std.mem.startsWith(u8, v, prefix)) try kept.append(arena, v);
    }
    return kept.items;
}

/// The segment of `uri` that `{variable}` of the template `pattern` stands for; null when
/// `uri` is not one `pattern` names (each variable one non-empty path segment) or `pattern`
/// has no such variable. Without a variable (`null`), whether it names `uri` at all (`""`).
pub fn uriVariable(pattern: []const u8, uri: []const u8, variable: ?[]const u8) ?[]const u8 {
    var p: usize = 0;
    var u: usize = 0;
    var found: ?[]const u8 = if (variable == null) "" else null;
    while (p < pattern.len) {
        if (pattern[p] != '{') {
            if (u >= uri.len or uri[u] != pattern[p]) return null;
            p += 1;
            u += 1;
            continue;
        }
        const close = std.mem.indexOfScalarPos(u8, pattern, p, '}') orelse return null;
        const end = std.mem.indexOfScalarPos(u8, uri, u, '/') orelse uri.len;
        if (end == u) return null;
        if (variable) |name| {
            if (std.mem.eql(u8, pattern[p + 1 .. close], name)) found = uri[u..end];
        }
        u = end;
        p = close + 1;
    }
    return if (u == uri.len) found else null;
}

/// The resource of `resources` naming `uri`.
pub fn resourceOf(resources: []const Resource, uri: []const u8) ?*const Resource {
    for (resources) |*r| {
        if (uriVariable(r.uri, uri, null) != null) return r;
    }
    return null;
}

/// Reads `uri` from `resources`: null when none names it or its reader finds nothing.
pub fn readResource(resources: []const Resource, arena: std.mem.Allocator, uri: []const u8) Failure!?[]const u8 {
    const r = resourceOf(resources, uri) orelse return null;
    return r.read(arena, uri);
}

/// Completes `variable` of the template `pattern` of `resources`.
pub fn completeVariable(resources: []const Resource, arena: std.mem.Allocator, pattern: []const u8, variable: []const u8, prefix: []const u8) Failure![]const []const u8 {
    for (resources) |r| {
        if (std.mem.eql(u8, r.uri, pattern)) {
            if (r.complete) |complete| return complete(arena, variable, prefix);
        }
    }
    return &.{};
}

/// Fills in the prompt `name` of `prompts` with `args`.
pub fn getPrompt(prompts: []const Prompt, arena: std.mem.Allocator, name: []const u8, args: Args) Failure![]const Message {
    for (prompts) |p| {
        if (std.mem.eql(u8, p.name, name)) return p.get(arena, args);
    }
    return fail(arena, error.NotFound, "this package has no prompt `{s}`", .{name});
}

/// Completes `argument` of the prompt `name` of `prompts`.
pub fn completeArgument(prompts: []const Prompt, arena: std.mem.Allocator, name: []const u8, argument: []const u8, prefix: []const u8) Failure![]const []const u8 {
    for (prompts) |p| {
        if (std.mem.eql(u8, p.name, name)) {
            if (p.complete) |complete| return complete(arena, argument, prefix);
        }
    }
    return &.{};
}

// ---------------------------------------------------------------------------------------------
// Exports.

/// Exports `skills` alone as the component's interfaces (no resources, no prompts); call once,
/// in a `comptime` block of `app.zig`.
pub fn exportPackage(comptime skills: []const Skill) void {
    exportPackageWith(skills, &.{}, &.{});
}

/// Exports `skills`, `resources` and `prompts` as the component's `skill`, `resources` and
/// `prompts` interfaces; call once, in a `comptime` block of `app.zig`.
pub fn exportPackageWith(comptime skills: []const Skill, comptime resources: []const Resource, comptime prompts: []const Prompt) void {
    if (wasm) @import("limina_exports.zig").exportAll(skills, resources, prompts);
}
