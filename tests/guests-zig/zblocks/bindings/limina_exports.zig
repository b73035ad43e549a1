//! The WIT exports of a Zig component (contract limina:skill 0.2.0): `skill`, `resources` and
//! `prompts` over the package's lists, through the C bindings `zig translate-c` made of
//! `skill_package.h` (the same bindings C packages use). Imported by `limina.zig` in the
//! component build only. What is returned is allocated with C's malloc: the bindings'
//! post-return functions free it. Written for Limina.

const std = @import("std");
const limina = @import("limina.zig");
const c = @import("skill_package");

const String = c.skill_package_string_t;
const CallContext = c.limina_skill_types_call_context_t;
const SkillError = c.limina_skill_types_skill_error_t;
const WitBlock = c.limina_skill_content_content_block_t;

/// `n` items of `T` from C's malloc (never null: at least one item's room).
fn alloc(comptime T: type, n: usize) [*]T {
    const raw = std.c.malloc(@max(n, 1) * @sizeOf(T)) orelse @panic("out of memory");
    const items: [*]T = @ptrCast(@alignCast(raw));
    @memset(items[0..@max(n, 1)], std.mem.zeroes(T));
    return items;
}

/// A malloc'd WIT string of `text`.
fn string(text: []const u8) String {
    var out: String = undefined;
    c.skill_package_string_dup_n(&out, text.ptr, text.len);
    return out;
}

fn option(text: ?[]const u8) c.skill_package_option_string_t {
    return if (text) |t| .{ .is_some = true, .val = string(t) } else .{ .is_some = false };
}

fn bytes(data: []const u8) c.skill_package_list_u8_t {
    if (data.len == 0) return .{ .ptr = null, .len = 0 };
    const copy = alloc(u8, data.len);
    @memcpy(copy[0..data.len], data);
    return .{ .ptr = copy, .len = data.len };
}

fn strings(list: []const []const u8) c.skill_package_list_string_t {
    if (list.len == 0) return .{ .ptr = null, .len = 0 };
    const out = alloc(String, list.len);
    for (list, 0..) |s, i| out[i] = string(s);
    return .{ .ptr = out, .len = list.len };
}

fn slice(s: *const String) []const u8 {
    return if (s.len == 0) "" else s.ptr[0..s.len];
}

fn block(b: limina.Block) WitBlock {
    var w = std.mem.zeroes(WitBlock);
    switch (b) {
        .text => |text| {
            w.tag = c.LIMINA_SKILL_CONTENT_CONTENT_BLOCK_TEXT;
            w.val.text = string(text);
        },
        .image => |bin| {
            w.tag = c.LIMINA_SKILL_CONTENT_CONTENT_BLOCK_IMAGE;
            w.val.image = .{ .mime_type = string(bin.mime_type), .data = bytes(bin.data) };
        },
        .audio => |bin| {
            w.tag = c.LIMINA_SKILL_CONTENT_CONTENT_BLOCK_AUDIO;
            w.val.audio = .{ .mime_type = string(bin.mime_type), .data = bytes(bin.data) };
        },
        .link => |link| {
            w.tag = c.LIMINA_SKILL_CONTENT_CONTENT_BLOCK_RESOURCE_LINK;
            w.val.resource_link = .{
                .uri = string(link.uri),
                .name = string(link.name),
                .description = option(link.description),
                .mime_type = option(link.mime_type),
            };
        },
        .embedded => |e| {
            w.tag = c.LIMINA_SKILL_CONTENT_CONTENT_BLOCK_EMBEDDED;
            w.val.embedded = .{ .uri = string(e.uri), .mime_type = string(e.mime_type), .body = body(e.body, e.blob) };
        },
    }
    return w;
}

fn body(data: []const u8, blob: bool) c.limina_skill_content_resource_body_t {
    var out = std.mem.zeroes(c.limina_skill_content_resource_body_t);
    if (blob) {
        out.tag = c.LIMINA_SKILL_CONTENT_RESOURCE_BODY_BLOB;
        out.val.blob = bytes(data);
    } else {
        out.tag = c.LIMINA_SKILL_CONTENT_RESOURCE_BODY_TEXT;
        out.val.text = string(data);
    }
    return out;
}

/// Sets `err` from a failure and the message `limina.fail` left.
fn failure(err: *SkillError, why: limina.Failure) void {
    err.tag = switch (why) {
        error.InvalidInput => c.LIMINA_SKILL_TYPES_SKILL_ERROR_INVALID_INPUT,
        error.Forbidden => c.LIMINA_SKILL_TYPES_SKILL_ERROR_FORBIDDEN,
        error.NotFound => c.LIMINA_SKILL_TYPES_SKILL_ERROR_NOT_FOUND,
        error.HandlerError, error.OutOfMemory => c.LIMINA_SKILL_TYPES_SKILL_ERROR_HANDLER_ERROR,
    };
    // Every case of skill-error carries one string at the same place.
    err.val.handler_error = string(if (why == error.OutOfMemory) "out of memory" else limina.message());
}

/// Exports the nine functions of the three interfaces over the lists.
pub fn exportAll(comptime skills: []const limina.Skill, comptime resources: []const limina.Resource, comptime prompts: []const limina.Prompt) void {
    const E = struct {
        fn describe(ret: *c.limina_skill_types_package_description_t) callconv(.c) void {
            const list = alloc(c.limina_skill_types_skill_descriptor_t, skills.len);
            inline for (skills, 0..) |skill, i| {
                list[i] = .{
                    .name = string(skill.name),
                    .version = string(skill.version),
                    .category = string(""),
                    .description = string(skill.description),
                    .input_schema = string(skill.input_schema),
                    .output_schema = string(skill.output_schema),
                    .permissions = strings(skill.permissions),
                    .annotations = .{
                        .read_only = skill.read_only,
                        .destructive = false,
                        .idempotent = skill.read_only,
                        .open_world = false,
                    },
                };
            }
            ret.skills = .{ .ptr = list, .len = skills.len };
            ret.hooks = .{ .ptr = null, .len = 0 };
        }

        fn invoke(name: *String, input: *String, ctx: *CallContext, ret: *c.limina_skill_content_skill_output_t, err: *SkillError) callconv(.c) bool {
            defer c.skill_package_string_free(name);
            defer c.skill_package_string_free(input);
            defer c.limina_skill_types_call_context_free(ctx);
            var arena_state = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena_state.deinit();
            const output = limina.invoke(skills, arena_state.allocator(), slice(name), slice(input)) catch |why| {
                failure(err, why);
                return false;
            };
            const blocks = limina.content();
            ret.structured = string(output);
            ret.content = .{ .ptr = null, .len = blocks.len };
            if (blocks.len > 0) {
                const list = alloc(WitBlock, blocks.len);
                for (blocks, 0..) |b, i| list[i] = block(b);
                ret.content.ptr = list;
            }
            return true;
        }

        fn runHook(hook: *String, skill: *String, payload: *String, ctx: *CallContext, ret: *c.skill_package_option_string_t, err: *SkillError) callconv(.c) bool {
            _ = err;
            c.skill_package_string_free(hook);
            c.skill_package_string_free(skill);
            c.skill_package_string_free(payload);
            c.limina_skill_types_call_context_free(ctx);
            ret.is_some = false;
            return true;
        }

        fn listResources(ret: *c.exports_limina_skill_resources_list_resource_descriptor_t) callconv(.c) void {
            const list = alloc(c.exports_limina_skill_resources_resource_descriptor_t, resources.len);
            inline for (resources, 0..) |r, i| {
                list[i] = .{
                    .uri = string(r.uri),
                    .template_ = std.mem.indexOfScalar(u8, r.uri, '{') != null,
                    .name = string(r.name),
                    .title = option(r.title),
                    .description = option(r.description),
                    .mime_type = string(r.mime_type),
                    .permissions = strings(r.permissions),
                };
            }
            ret.* = .{ .ptr = if (resources.len > 0) list else null, .len = resources.len };
        }

        fn readResource(uri: *String, ctx: *CallContext, ret: *c.exports_limina_skill_resources_option_resource_contents_t, err: *SkillError) callconv(.c) bool {
            defer c.skill_package_string_free(uri);
            defer c.limina_skill_types_call_context_free(ctx);
            var arena_state = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena_state.deinit();
            const text = slice(uri);
            ret.is_some = false;
            const found = limina.readResource(resources, arena_state.allocator(), text) catch |why| {
                failure(err, why);
                return false;
            };
            if (found) |contents| {
                const r = limina.resourceOf(resources, text).?;
                ret.* = .{ .is_some = true, .val = .{ .uri = string(text), .mime_type = string(r.mime_type), .body = body(contents, r.blob) } };
            }
            return true;
        }

        fn values(ret: *c.skill_package_list_string_t, completed: limina.Failure![]const []const u8) void {
            // A completer that fails completes nothing.
            ret.* = strings(completed catch &.{});
        }

        fn completeVariable(pattern: *String, variable: *String, prefix: *String, ret: *c.skill_package_list_string_t) callconv(.c) void {
            defer c.skill_package_string_free(pattern);
            defer c.skill_package_string_free(variable);
            defer c.skill_package_string_free(prefix);
            var arena_state = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena_state.deinit();
            values(ret, limina.completeVariable(resources, arena_state.allocator(), slice(pattern), slice(variable), slice(prefix)));
        }

        fn listPrompts(ret: *c.exports_limina_skill_prompts_list_prompt_descriptor_t) callconv(.c) void {
            const list = alloc(c.exports_limina_skill_prompts_prompt_descriptor_t, prompts.len);
            inline for (prompts, 0..) |p, i| {
                const args = alloc(c.exports_limina_skill_prompts_prompt_argument_t, p.arguments.len);
                for (p.arguments, 0..) |a, k| {
                    args[k] = .{ .name = string(a.name), .description = option(a.description), .required = a.required };
                }
                list[i] = .{
                    .name = string(p.name),
                    .title = option(p.title),
                    .description = option(p.description),
                    .arguments = .{ .ptr = if (p.arguments.len > 0) args else null, .len = p.arguments.len },
                    .permissions = strings(p.permissions),
                };
            }
            ret.* = .{ .ptr = if (prompts.len > 0) list else null, .len = prompts.len };
        }

        fn getPrompt(name: *String, arguments: *c.skill_package_list_tuple2_string_string_t, ctx: *CallContext, ret: *c.exports_limina_skill_prompts_list_prompt_message_t, err: *SkillError) callconv(.c) bool {
            defer c.skill_package_string_free(name);
            defer c.skill_package_list_tuple2_string_string_free(arguments);
            defer c.limina_skill_types_call_context_free(ctx);
            var arena_state = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena_state.deinit();
            const arena = arena_state.allocator();
            const pairs = arena.alloc([2][]const u8, arguments.len) catch {
                failure(err, error.OutOfMemory);
                return false;
            };
            for (pairs, 0..) |*pair, i| pair.* = .{ slice(&arguments.ptr[i].f0), slice(&arguments.ptr[i].f1) };
            const messages = limina.getPrompt(prompts, arena, slice(name), pairs) catch |why| {
                failure(err, why);
                return false;
            };
            ret.* = .{ .ptr = null, .len = messages.len };
            if (messages.len > 0) {
                const list = alloc(c.exports_limina_skill_prompts_prompt_message_t, messages.len);
                for (messages, 0..) |m, i| list[i] = .{
                    .role = switch (m.role) {
                        .user => c.EXPORTS_LIMINA_SKILL_PROMPTS_ROLE_USER,
                        .assistant => c.EXPORTS_LIMINA_SKILL_PROMPTS_ROLE_ASSISTANT,
                    },
                    .content = block(m.content),
                };
                ret.ptr = list;
            }
            return true;
        }

        fn completeArgument(name: *String, argument: *String, prefix: *String, ret: *c.skill_package_list_string_t) callconv(.c) void {
            defer c.skill_package_string_free(name);
            defer c.skill_package_string_free(argument);
            defer c.skill_package_string_free(prefix);
            var arena_state = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena_state.deinit();
            values(ret, limina.completeArgument(prompts, arena_state.allocator(), slice(name), slice(argument), slice(prefix)));
        }
    };
    @export(&E.describe, .{ .name = "exports_limina_skill_skill_describe" });
    @export(&E.invoke, .{ .name = "exports_limina_skill_skill_invoke" });
    @export(&E.runHook, .{ .name = "exports_limina_skill_skill_run_hook" });
    @export(&E.listResources, .{ .name = "exports_limina_skill_resources_list_resources" });
    @export(&E.readResource, .{ .name = "exports_limina_skill_resources_read_resource" });
    @export(&E.completeVariable, .{ .name = "exports_limina_skill_resources_complete_variable" });
    @export(&E.listPrompts, .{ .name = "exports_limina_skill_prompts_list_prompts" });
    @export(&E.getPrompt, .{ .name = "exports_limina_skill_prompts_get_prompt" });
    @export(&E.completeArgument, .{ .name = "exports_limina_skill_prompts_complete_argument" });
}
