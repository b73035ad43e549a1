//! `{{name}}`: a Limina skill package in Zig.
//!
//! Each skill is a handler from its JSON input (already validated by the host against the
//! skill's input schema) to its JSON output. `limina.zig` (written into bindings/ by
//! `limina pkg build` and `limina pkg test`) parses, stringifies and exports the list.

const std = @import("std");
const limina = @import("limina");

/// `{{name}}.hello`: greets someone by name.
fn hello(arena: std.mem.Allocator, input: []const u8) limina.Failure![]const u8 {
    const args = try limina.parse(struct { name: []const u8 }, arena, input);
    const greeting = try std.fmt.allocPrint(arena, "Hello, {s}!", .{args.name});
    return limina.stringify(arena, .{ .greeting = greeting });
}

pub const skills = [_]limina.Skill{.{
    .name = "{{name}}.hello",
    .description = "Greet someone by name.",
    .input_schema =
    \\{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":100,
    \\"description":"Who to greet."}},"required":["name"],"additionalProperties":false}
    ,
    .output_schema =
    \\{"type":"object","properties":{"greeting":{"type":"string"}},"required":["greeting"]}
    ,
    .handler = hello,
}};

comptime {
    limina.exportPackage(&skills);
}

test "hello greets by name" {
    var arena = std.heap.ArenaAllocator.init(std.testing.allocator);
    defer arena.deinit();
    const out = try limina.invoke(&skills, arena.allocator(), "{{name}}.hello", "{\"name\":\"Ada\"}");
    try std.testing.expectEqualStrings("{\"greeting\":\"Hello, Ada!\"}", out);
}

test "an unknown skill is not found" {
    var arena = std.heap.ArenaAllocator.init(std.testing.allocator);
    defer arena.deinit();
    try std.testing.expectError(error.NotFound, limina.invoke(&skills, arena.allocator(), "{{name}}.nope", "{}"));
}
