//! `{{name}}`: a Limina skill package in Zig.
//!
//! Each skill is a handler from its JSON input (already validated by the host against the
//! skill's input schema) to its JSON output. Besides skills, a package may serve pages
//! (`resources`, read with `resources/read`) and prompts a client offers its user (`prompts`).
//! `limina.zig` (written into bindings/ by `limina pkg build` and `limina pkg test`) parses,
//! stringifies and exports the lists.

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

/// The page `limina://pkg/{{name}}/about`: what the package does.
fn about(arena: std.mem.Allocator, uri: []const u8) limina.Failure!?[]const u8 {
    _ = arena;
    _ = uri;
    return "# {{name}}\n\n{{name}} greets people by name with `{{name}}.hello`.\n";
}

/// `{{name}}.greet`: asks the model to greet someone with the package's skill.
fn greet(arena: std.mem.Allocator, args: limina.Args) limina.Failure![]const limina.Message {
    const name = limina.arg(args, "name") orelse "friend";
    const ask = try std.fmt.allocPrint(arena, "Greet {s} with the {{name}}.hello tool and tell them what you can do.", .{name});
    return arena.dupe(limina.Message, &.{limina.user(.{ .text = ask })});
}

fn completeName(arena: std.mem.Allocator, argument: []const u8, prefix: []const u8) limina.Failure![]const []const u8 {
    _ = argument;
    return limina.startingWith(arena, &.{ "Ada", "Grace" }, prefix);
}

/// URIs are the package's own: `limina://pkg/{{name}}/...`. A `{variable}` in one makes a
/// template (one path segment each, read with `limina.uriVariable`), and `.complete`
/// completes it.
pub const resources = [_]limina.Resource{.{
    .uri = "limina://pkg/{{name}}/about",
    .name = "About {{name}}",
    .description = "What this package does.",
    .mime_type = "text/markdown",
    .read = about,
}};

pub const prompts = [_]limina.Prompt{.{
    .name = "{{name}}.greet",
    .description = "Greet someone with this package's tool.",
    .arguments = &.{.{ .name = "name", .description = "Who to greet" }},
    .get = greet,
    .complete = completeName,
}};

comptime {
    limina.exportPackageWith(&skills, &resources, &prompts);
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

test "the about page names the skill" {
    var arena = std.heap.ArenaAllocator.init(std.testing.allocator);
    defer arena.deinit();
    const page = (try limina.readResource(&resources, arena.allocator(), "limina://pkg/{{name}}/about")).?;
    try std.testing.expect(std.mem.indexOf(u8, page, "{{name}}.hello") != null);
}

test "greet asks to greet someone and their name completes" {
    var arena = std.heap.ArenaAllocator.init(std.testing.allocator);
    defer arena.deinit();
    const messages = try limina.getPrompt(&prompts, arena.allocator(), "{{name}}.greet", &.{.{ "name", "Ada" }});
    try std.testing.expect(std.mem.startsWith(u8, messages[0].content.text, "Greet Ada with"));
    const names = try limina.completeArgument(&prompts, arena.allocator(), "{{name}}.greet", "name", "G");
    try std.testing.expectEqual(@as(usize, 1), names.len);
    try std.testing.expectEqualStrings("Grace", names[0]);
}
