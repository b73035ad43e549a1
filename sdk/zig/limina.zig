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
//! Inside the component (wasm32) `exportPackage` implements the WIT `skill` interface through
//! the C bindings that `limina pkg build` generates and `zig translate-c` turns into the
//! `skill_package` module. Natively (`limina pkg test`, which runs `zig test app.zig`) it
//! exports nothing, and tests call handlers or `invoke` directly. Written for Limina.

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

/// Runs the skill `name` of `skills` on `input`.
pub fn invoke(skills: []const Skill, arena: std.mem.Allocator, name: []const u8, input: []const u8) Failure![]const u8 {
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

/// Exports `skills` as the component's `skill` interface; call once, in a `comptime` block of
/// `app.zig`.
pub fn exportPackage(comptime skills: []const Skill) void {
    if (wasm) {
        const Exports = ExportsFor(skills);
        @export(&Exports.describe, .{ .name = "exports_limina_skill_skill_describe" });
        @export(&Exports.invokeExport, .{ .name = "exports_limina_skill_skill_invoke" });
        @export(&Exports.runHook, .{ .name = "exports_limina_skill_skill_run_hook" });
    }
}

fn ExportsFor(comptime skills: []const Skill) type {
    return struct {
        /// Memory the host frees through the bindings' post-return functions: C's malloc.
        fn alloc(comptime T: type, n: usize) [*]T {
            const raw = std.c.malloc(@max(n, 1) * @sizeOf(T)) orelse @panic("out of memory");
            return @ptrCast(@alignCast(raw));
        }

        fn string(out: *c.skill_package_string_t, text: []const u8) void {
            c.skill_package_string_dup_n(out, text.ptr, text.len);
        }

        fn describe(ret: *c.limina_skill_types_package_description_t) callconv(.c) void {
            const list = alloc(c.limina_skill_types_skill_descriptor_t, skills.len);
            inline for (skills, 0..) |skill, i| {
                const d = &list[i];
                string(&d.name, skill.name);
                string(&d.version, skill.version);
                string(&d.category, "");
                string(&d.description, skill.description);
                string(&d.input_schema, skill.input_schema);
                string(&d.output_schema, skill.output_schema);
                const permissions = alloc(c.skill_package_string_t, skill.permissions.len);
                for (skill.permissions, 0..) |permission, k| string(&permissions[k], permission);
                d.permissions = .{ .ptr = permissions, .len = skill.permissions.len };
                d.annotations = .{
                    .read_only = skill.read_only,
                    .destructive = false,
                    .idempotent = skill.read_only,
                    .open_world = false,
                };
            }
            ret.skills = .{ .ptr = list, .len = skills.len };
            ret.hooks = .{ .ptr = null, .len = 0 };
        }

        fn invokeExport(
            name: *c.skill_package_string_t,
            input: *c.skill_package_string_t,
            ctx: *c.limina_skill_types_call_context_t,
            ret: *c.skill_package_string_t,
            err: *c.limina_skill_types_skill_error_t,
        ) callconv(.c) bool {
            defer c.skill_package_string_free(name);
            defer c.skill_package_string_free(input);
            defer c.limina_skill_types_call_context_free(ctx);
            var arena_state = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena_state.deinit();
            const arena = arena_state.allocator();
            const result = invoke(skills, arena, name.ptr[0..name.len], input.ptr[0..input.len]);
            if (result) |output| {
                string(ret, output);
                return true;
            } else |failure| {
                err.tag = switch (failure) {
                    error.InvalidInput => c.LIMINA_SKILL_TYPES_SKILL_ERROR_INVALID_INPUT,
                    error.Forbidden => c.LIMINA_SKILL_TYPES_SKILL_ERROR_FORBIDDEN,
                    error.NotFound => c.LIMINA_SKILL_TYPES_SKILL_ERROR_NOT_FOUND,
                    error.HandlerError, error.OutOfMemory => c.LIMINA_SKILL_TYPES_SKILL_ERROR_HANDLER_ERROR,
                };
                if (failure == error.OutOfMemory) last_message = "out of memory";
                // Every case of skill-error carries one string at the same place.
                string(&err.val.handler_error, last_message);
                return false;
            }
        }

        fn runHook(
            hook: *c.skill_package_string_t,
            skill: *c.skill_package_string_t,
            payload: *c.skill_package_string_t,
            ctx: *c.limina_skill_types_call_context_t,
            ret: *c.skill_package_option_string_t,
            err: *c.limina_skill_types_skill_error_t,
        ) callconv(.c) bool {
            _ = err;
            c.skill_package_string_free(hook);
            c.skill_package_string_free(skill);
            c.skill_package_string_free(payload);
            c.limina_skill_types_call_context_free(ctx);
            ret.is_some = false;
            return true;
        }
    };
}
