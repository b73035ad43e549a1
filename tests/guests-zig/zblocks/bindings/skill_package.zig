pub const __builtin_bswap16 = @import("std").zig.c_builtins.__builtin_bswap16;
pub const __builtin_bswap32 = @import("std").zig.c_builtins.__builtin_bswap32;
pub const __builtin_bswap64 = @import("std").zig.c_builtins.__builtin_bswap64;
pub const __builtin_signbit = @import("std").zig.c_builtins.__builtin_signbit;
pub const __builtin_signbitf = @import("std").zig.c_builtins.__builtin_signbitf;
pub const __builtin_popcount = @import("std").zig.c_builtins.__builtin_popcount;
pub const __builtin_ctz = @import("std").zig.c_builtins.__builtin_ctz;
pub const __builtin_clz = @import("std").zig.c_builtins.__builtin_clz;
pub const __builtin_sqrt = @import("std").zig.c_builtins.__builtin_sqrt;
pub const __builtin_sqrtf = @import("std").zig.c_builtins.__builtin_sqrtf;
pub const __builtin_sin = @import("std").zig.c_builtins.__builtin_sin;
pub const __builtin_sinf = @import("std").zig.c_builtins.__builtin_sinf;
pub const __builtin_cos = @import("std").zig.c_builtins.__builtin_cos;
pub const __builtin_cosf = @import("std").zig.c_builtins.__builtin_cosf;
pub const __builtin_exp = @import("std").zig.c_builtins.__builtin_exp;
pub const __builtin_expf = @import("std").zig.c_builtins.__builtin_expf;
pub const __builtin_exp2 = @import("std").zig.c_builtins.__builtin_exp2;
pub const __builtin_exp2f = @import("std").zig.c_builtins.__builtin_exp2f;
pub const __builtin_log = @import("std").zig.c_builtins.__builtin_log;
pub const __builtin_logf = @import("std").zig.c_builtins.__builtin_logf;
pub const __builtin_log2 = @import("std").zig.c_builtins.__builtin_log2;
pub const __builtin_log2f = @import("std").zig.c_builtins.__builtin_log2f;
pub const __builtin_log10 = @import("std").zig.c_builtins.__builtin_log10;
pub const __builtin_log10f = @import("std").zig.c_builtins.__builtin_log10f;
pub const __builtin_abs = @import("std").zig.c_builtins.__builtin_abs;
pub const __builtin_labs = @import("std").zig.c_builtins.__builtin_labs;
pub const __builtin_llabs = @import("std").zig.c_builtins.__builtin_llabs;
pub const __builtin_fabs = @import("std").zig.c_builtins.__builtin_fabs;
pub const __builtin_fabsf = @import("std").zig.c_builtins.__builtin_fabsf;
pub const __builtin_floor = @import("std").zig.c_builtins.__builtin_floor;
pub const __builtin_floorf = @import("std").zig.c_builtins.__builtin_floorf;
pub const __builtin_ceil = @import("std").zig.c_builtins.__builtin_ceil;
pub const __builtin_ceilf = @import("std").zig.c_builtins.__builtin_ceilf;
pub const __builtin_trunc = @import("std").zig.c_builtins.__builtin_trunc;
pub const __builtin_truncf = @import("std").zig.c_builtins.__builtin_truncf;
pub const __builtin_round = @import("std").zig.c_builtins.__builtin_round;
pub const __builtin_roundf = @import("std").zig.c_builtins.__builtin_roundf;
pub const __builtin_strlen = @import("std").zig.c_builtins.__builtin_strlen;
pub const __builtin_strcmp = @import("std").zig.c_builtins.__builtin_strcmp;
pub const __builtin_object_size = @import("std").zig.c_builtins.__builtin_object_size;
pub const __builtin___memset_chk = @import("std").zig.c_builtins.__builtin___memset_chk;
pub const __builtin_memset = @import("std").zig.c_builtins.__builtin_memset;
pub const __builtin___memcpy_chk = @import("std").zig.c_builtins.__builtin___memcpy_chk;
pub const __builtin_memcpy = @import("std").zig.c_builtins.__builtin_memcpy;
pub const __builtin_expect = @import("std").zig.c_builtins.__builtin_expect;
pub const __builtin_nanf = @import("std").zig.c_builtins.__builtin_nanf;
pub const __builtin_huge_valf = @import("std").zig.c_builtins.__builtin_huge_valf;
pub const __builtin_inff = @import("std").zig.c_builtins.__builtin_inff;
pub const __builtin_isnan = @import("std").zig.c_builtins.__builtin_isnan;
pub const __builtin_isinf = @import("std").zig.c_builtins.__builtin_isinf;
pub const __builtin_isinf_sign = @import("std").zig.c_builtins.__builtin_isinf_sign;
pub const __has_builtin = @import("std").zig.c_builtins.__has_builtin;
pub const __builtin_assume = @import("std").zig.c_builtins.__builtin_assume;
pub const __builtin_unreachable = @import("std").zig.c_builtins.__builtin_unreachable;
pub const __builtin_constant_p = @import("std").zig.c_builtins.__builtin_constant_p;
pub const __builtin_mul_overflow = @import("std").zig.c_builtins.__builtin_mul_overflow;
pub const intmax_t = c_longlong;
pub const uintmax_t = c_ulonglong;
pub const time_t = c_longlong;
pub const suseconds_t = c_longlong;
pub const struct_timeval = extern struct {
    tv_sec: time_t = @import("std").mem.zeroes(time_t),
    tv_usec: suseconds_t = @import("std").mem.zeroes(suseconds_t),
};
pub const struct_timespec = extern struct {
    tv_sec: time_t = @import("std").mem.zeroes(time_t),
    tv_nsec: c_long = @import("std").mem.zeroes(c_long),
};
pub const struct_iovec = extern struct {
    iov_base: ?*anyopaque = @import("std").mem.zeroes(?*anyopaque),
    iov_len: usize = @import("std").mem.zeroes(usize),
};
pub const int_fast8_t = i8;
pub const int_fast64_t = i64;
pub const int_least8_t = i8;
pub const int_least16_t = i16;
pub const int_least32_t = i32;
pub const int_least64_t = i64;
pub const uint_fast8_t = u8;
pub const uint_fast64_t = u64;
pub const uint_least8_t = u8;
pub const uint_least16_t = u16;
pub const uint_least32_t = u32;
pub const uint_least64_t = u64;
pub const int_fast16_t = i16;
pub const int_fast32_t = i32;
pub const uint_fast16_t = u16;
pub const uint_fast32_t = u32;
pub const ptrdiff_t = c_long;
pub const wchar_t = c_int;
pub const max_align_t = extern struct {
    __clang_max_align_nonce1: c_longlong align(8) = @import("std").mem.zeroes(c_longlong),
    __clang_max_align_nonce2: c_longdouble align(16) = @import("std").mem.zeroes(c_longdouble),
};
pub const struct_skill_package_string_t = extern struct {
    ptr: [*c]u8 = @import("std").mem.zeroes([*c]u8),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const skill_package_string_t = struct_skill_package_string_t;
pub const struct_limina_skill_types_vec3_t = extern struct {
    x: f64 = @import("std").mem.zeroes(f64),
    y: f64 = @import("std").mem.zeroes(f64),
    z: f64 = @import("std").mem.zeroes(f64),
};
pub const limina_skill_types_vec3_t = struct_limina_skill_types_vec3_t;
pub const struct_limina_skill_types_quat_t = extern struct {
    x: f64 = @import("std").mem.zeroes(f64),
    y: f64 = @import("std").mem.zeroes(f64),
    z: f64 = @import("std").mem.zeroes(f64),
    w: f64 = @import("std").mem.zeroes(f64),
};
pub const limina_skill_types_quat_t = struct_limina_skill_types_quat_t;
pub const struct_limina_skill_types_call_context_t = extern struct {
    agent_id: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    session_id: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    profile: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    tick: u64 = @import("std").mem.zeroes(u64),
    invocation_id: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
};
pub const limina_skill_types_call_context_t = struct_limina_skill_types_call_context_t;
pub const struct_limina_skill_types_annotations_t = extern struct {
    read_only: bool = @import("std").mem.zeroes(bool),
    destructive: bool = @import("std").mem.zeroes(bool),
    idempotent: bool = @import("std").mem.zeroes(bool),
    open_world: bool = @import("std").mem.zeroes(bool),
};
pub const limina_skill_types_annotations_t = struct_limina_skill_types_annotations_t;
pub const skill_package_list_string_t = extern struct {
    ptr: [*c]skill_package_string_t = @import("std").mem.zeroes([*c]skill_package_string_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const struct_limina_skill_types_skill_descriptor_t = extern struct {
    name: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    version: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    category: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    description: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    permissions: skill_package_list_string_t = @import("std").mem.zeroes(skill_package_list_string_t),
    input_schema: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    output_schema: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    annotations: limina_skill_types_annotations_t = @import("std").mem.zeroes(limina_skill_types_annotations_t),
};
pub const limina_skill_types_skill_descriptor_t = struct_limina_skill_types_skill_descriptor_t;
pub const limina_skill_types_hook_phase_t = u8;
pub const struct_limina_skill_types_hook_descriptor_t = extern struct {
    name: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    phase: limina_skill_types_hook_phase_t = @import("std").mem.zeroes(limina_skill_types_hook_phase_t),
    skills: skill_package_list_string_t = @import("std").mem.zeroes(skill_package_list_string_t),
};
pub const limina_skill_types_hook_descriptor_t = struct_limina_skill_types_hook_descriptor_t;
pub const limina_skill_types_list_skill_descriptor_t = extern struct {
    ptr: [*c]limina_skill_types_skill_descriptor_t = @import("std").mem.zeroes([*c]limina_skill_types_skill_descriptor_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const limina_skill_types_list_hook_descriptor_t = extern struct {
    ptr: [*c]limina_skill_types_hook_descriptor_t = @import("std").mem.zeroes([*c]limina_skill_types_hook_descriptor_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const struct_limina_skill_types_package_description_t = extern struct {
    skills: limina_skill_types_list_skill_descriptor_t = @import("std").mem.zeroes(limina_skill_types_list_skill_descriptor_t),
    hooks: limina_skill_types_list_hook_descriptor_t = @import("std").mem.zeroes(limina_skill_types_list_hook_descriptor_t),
};
pub const limina_skill_types_package_description_t = struct_limina_skill_types_package_description_t;
const union_unnamed_1 = extern union {
    invalid_input: skill_package_string_t,
    forbidden: skill_package_string_t,
    handler_error: skill_package_string_t,
    capacity_exceeded: skill_package_string_t,
    not_found: skill_package_string_t,
};
pub const struct_limina_skill_types_skill_error_t = extern struct {
    tag: u8 = @import("std").mem.zeroes(u8),
    val: union_unnamed_1 = @import("std").mem.zeroes(union_unnamed_1),
};
pub const limina_skill_types_skill_error_t = struct_limina_skill_types_skill_error_t;
const union_unnamed_2 = extern union {
    forbidden: skill_package_string_t,
    invalid: skill_package_string_t,
    capacity: skill_package_string_t,
};
pub const struct_limina_skill_types_world_error_t = extern struct {
    tag: u8 = @import("std").mem.zeroes(u8),
    val: union_unnamed_2 = @import("std").mem.zeroes(union_unnamed_2),
};
pub const limina_skill_types_world_error_t = struct_limina_skill_types_world_error_t;
pub const limina_skill_scene_vec3_t = limina_skill_types_vec3_t;
pub const limina_skill_scene_quat_t = limina_skill_types_quat_t;
pub const limina_skill_scene_world_error_t = limina_skill_types_world_error_t;
pub const limina_skill_scene_shape_t = u8;
pub const limina_skill_scene_collider_shape_t = u8;
pub const limina_skill_scene_body_kind_t = u8;
pub const limina_skill_scene_option_collider_shape_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_scene_collider_shape_t = @import("std").mem.zeroes(limina_skill_scene_collider_shape_t),
};
pub const struct_limina_skill_scene_entity_spec_t = extern struct {
    shape: limina_skill_scene_shape_t = @import("std").mem.zeroes(limina_skill_scene_shape_t),
    collider: limina_skill_scene_option_collider_shape_t = @import("std").mem.zeroes(limina_skill_scene_option_collider_shape_t),
    size: f64 = @import("std").mem.zeroes(f64),
    color: u32 = @import("std").mem.zeroes(u32),
    position: limina_skill_scene_vec3_t = @import("std").mem.zeroes(limina_skill_scene_vec3_t),
    body: limina_skill_scene_body_kind_t = @import("std").mem.zeroes(limina_skill_scene_body_kind_t),
    friction: f64 = @import("std").mem.zeroes(f64),
    restitution: f64 = @import("std").mem.zeroes(f64),
};
pub const limina_skill_scene_entity_spec_t = struct_limina_skill_scene_entity_spec_t;
pub const struct_limina_skill_scene_transform_t = extern struct {
    position: limina_skill_scene_vec3_t = @import("std").mem.zeroes(limina_skill_scene_vec3_t),
    rotation: limina_skill_scene_quat_t = @import("std").mem.zeroes(limina_skill_scene_quat_t),
    scale: limina_skill_scene_vec3_t = @import("std").mem.zeroes(limina_skill_scene_vec3_t),
};
pub const limina_skill_scene_transform_t = struct_limina_skill_scene_transform_t;
pub const skill_package_option_u64_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: u64 = @import("std").mem.zeroes(u64),
};
pub const struct_limina_skill_scene_entity_info_t = extern struct {
    id: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    transform: limina_skill_scene_transform_t = @import("std").mem.zeroes(limina_skill_scene_transform_t),
    tags: skill_package_list_string_t = @import("std").mem.zeroes(skill_package_list_string_t),
    distance: f64 = @import("std").mem.zeroes(f64),
    body_id: skill_package_option_u64_t = @import("std").mem.zeroes(skill_package_option_u64_t),
};
pub const limina_skill_scene_entity_info_t = struct_limina_skill_scene_entity_info_t;
pub const limina_skill_scene_option_vec3_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_scene_vec3_t = @import("std").mem.zeroes(limina_skill_scene_vec3_t),
};
pub const skill_package_option_f64_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: f64 = @import("std").mem.zeroes(f64),
};
pub const skill_package_option_string_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
};
pub const struct_limina_skill_scene_entity_filter_t = extern struct {
    near: limina_skill_scene_option_vec3_t = @import("std").mem.zeroes(limina_skill_scene_option_vec3_t),
    radius: skill_package_option_f64_t = @import("std").mem.zeroes(skill_package_option_f64_t),
    tag: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
};
pub const limina_skill_scene_entity_filter_t = struct_limina_skill_scene_entity_filter_t;
const union_unnamed_3 = extern union {
    ok: skill_package_string_t,
    err: limina_skill_scene_world_error_t,
};
pub const limina_skill_scene_result_string_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_3 = @import("std").mem.zeroes(union_unnamed_3),
};
const union_unnamed_4 = extern union {
    ok: bool,
    err: limina_skill_scene_world_error_t,
};
pub const limina_skill_scene_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_4 = @import("std").mem.zeroes(union_unnamed_4),
};
pub const limina_skill_scene_list_entity_info_t = extern struct {
    ptr: [*c]limina_skill_scene_entity_info_t = @import("std").mem.zeroes([*c]limina_skill_scene_entity_info_t),
    len: usize = @import("std").mem.zeroes(usize),
};
const union_unnamed_5 = extern union {
    ok: limina_skill_scene_list_entity_info_t,
    err: limina_skill_scene_world_error_t,
};
pub const limina_skill_scene_result_list_entity_info_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_5 = @import("std").mem.zeroes(union_unnamed_5),
};
pub const limina_skill_scene_option_entity_info_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_scene_entity_info_t = @import("std").mem.zeroes(limina_skill_scene_entity_info_t),
};
const union_unnamed_6 = extern union {
    ok: limina_skill_scene_option_entity_info_t,
    err: limina_skill_scene_world_error_t,
};
pub const limina_skill_scene_result_option_entity_info_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_6 = @import("std").mem.zeroes(union_unnamed_6),
};
pub const limina_skill_scene_option_quat_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_scene_quat_t = @import("std").mem.zeroes(limina_skill_scene_quat_t),
};
pub const limina_skill_ecs_world_error_t = limina_skill_types_world_error_t;
pub const limina_skill_ecs_transform_component_t = u8;
pub const skill_package_list_f64_t = extern struct {
    ptr: [*c]f64 = @import("std").mem.zeroes([*c]f64),
    len: usize = @import("std").mem.zeroes(usize),
};
const union_unnamed_7 = extern union {
    ok: bool,
    err: limina_skill_ecs_world_error_t,
};
pub const limina_skill_ecs_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_7 = @import("std").mem.zeroes(union_unnamed_7),
};
pub const limina_skill_render_vec3_t = limina_skill_types_vec3_t;
pub const limina_skill_render_world_error_t = limina_skill_types_world_error_t;
pub const skill_package_option_u32_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: u32 = @import("std").mem.zeroes(u32),
};
pub const skill_package_option_bool_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: bool = @import("std").mem.zeroes(bool),
};
pub const struct_limina_skill_render_material_patch_t = extern struct {
    color: skill_package_option_u32_t = @import("std").mem.zeroes(skill_package_option_u32_t),
    roughness: skill_package_option_f64_t = @import("std").mem.zeroes(skill_package_option_f64_t),
    metalness: skill_package_option_f64_t = @import("std").mem.zeroes(skill_package_option_f64_t),
    cast_shadow: skill_package_option_bool_t = @import("std").mem.zeroes(skill_package_option_bool_t),
    receive_shadow: skill_package_option_bool_t = @import("std").mem.zeroes(skill_package_option_bool_t),
};
pub const limina_skill_render_material_patch_t = struct_limina_skill_render_material_patch_t;
pub const struct_limina_skill_render_lighting_t = extern struct {
    ambient_color: u32 = @import("std").mem.zeroes(u32),
    ambient_intensity: f64 = @import("std").mem.zeroes(f64),
    directional_color: u32 = @import("std").mem.zeroes(u32),
    directional_intensity: f64 = @import("std").mem.zeroes(f64),
    direction: limina_skill_render_vec3_t = @import("std").mem.zeroes(limina_skill_render_vec3_t),
    cast_shadow: bool = @import("std").mem.zeroes(bool),
    shadow_map_size: u32 = @import("std").mem.zeroes(u32),
    shadow_camera_extent: f64 = @import("std").mem.zeroes(f64),
    shadow_camera_near: f64 = @import("std").mem.zeroes(f64),
    shadow_camera_far: f64 = @import("std").mem.zeroes(f64),
    shadow_bias: f64 = @import("std").mem.zeroes(f64),
};
pub const limina_skill_render_lighting_t = struct_limina_skill_render_lighting_t;
const union_unnamed_8 = extern union {
    ok: bool,
    err: limina_skill_render_world_error_t,
};
pub const limina_skill_render_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_8 = @import("std").mem.zeroes(union_unnamed_8),
};
const union_unnamed_9 = extern union {
    err: limina_skill_render_world_error_t,
};
pub const limina_skill_render_result_void_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_9 = @import("std").mem.zeroes(union_unnamed_9),
};
pub const limina_skill_physics_vec3_t = limina_skill_types_vec3_t;
pub const limina_skill_physics_world_error_t = limina_skill_types_world_error_t;
pub const struct_limina_skill_physics_ray_hit_t = extern struct {
    distance: f64 = @import("std").mem.zeroes(f64),
    point: limina_skill_physics_vec3_t = @import("std").mem.zeroes(limina_skill_physics_vec3_t),
    entity: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
};
pub const limina_skill_physics_ray_hit_t = struct_limina_skill_physics_ray_hit_t;
pub const limina_skill_physics_option_vec3_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_physics_vec3_t = @import("std").mem.zeroes(limina_skill_physics_vec3_t),
};
pub const struct_limina_skill_physics_collision_event_t = extern struct {
    started: bool = @import("std").mem.zeroes(bool),
    body_a: u64 = @import("std").mem.zeroes(u64),
    body_b: u64 = @import("std").mem.zeroes(u64),
    entity_a: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    entity_b: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    point: limina_skill_physics_option_vec3_t = @import("std").mem.zeroes(limina_skill_physics_option_vec3_t),
    normal: limina_skill_physics_option_vec3_t = @import("std").mem.zeroes(limina_skill_physics_option_vec3_t),
};
pub const limina_skill_physics_collision_event_t = struct_limina_skill_physics_collision_event_t;
const union_unnamed_10 = extern union {
    ok: bool,
    err: limina_skill_physics_world_error_t,
};
pub const limina_skill_physics_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_10 = @import("std").mem.zeroes(union_unnamed_10),
};
pub const limina_skill_physics_option_ray_hit_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_physics_ray_hit_t = @import("std").mem.zeroes(limina_skill_physics_ray_hit_t),
};
const union_unnamed_11 = extern union {
    ok: limina_skill_physics_option_ray_hit_t,
    err: limina_skill_physics_world_error_t,
};
pub const limina_skill_physics_result_option_ray_hit_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_11 = @import("std").mem.zeroes(union_unnamed_11),
};
pub const limina_skill_physics_list_collision_event_t = extern struct {
    ptr: [*c]limina_skill_physics_collision_event_t = @import("std").mem.zeroes([*c]limina_skill_physics_collision_event_t),
    len: usize = @import("std").mem.zeroes(usize),
};
const union_unnamed_12 = extern union {
    ok: limina_skill_physics_list_collision_event_t,
    err: limina_skill_physics_world_error_t,
};
pub const limina_skill_physics_result_list_collision_event_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_12 = @import("std").mem.zeroes(union_unnamed_12),
};
pub const limina_skill_assets_vec3_t = limina_skill_types_vec3_t;
pub const limina_skill_assets_world_error_t = limina_skill_types_world_error_t;
pub const struct_limina_skill_assets_gltf_summary_t = extern struct {
    source: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    bytes: u64 = @import("std").mem.zeroes(u64),
    root_name: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    object_count: u32 = @import("std").mem.zeroes(u32),
    mesh_count: u32 = @import("std").mem.zeroes(u32),
    material_count: u32 = @import("std").mem.zeroes(u32),
    texture_count: u32 = @import("std").mem.zeroes(u32),
};
pub const limina_skill_assets_gltf_summary_t = struct_limina_skill_assets_gltf_summary_t;
pub const limina_skill_assets_tuple2_string_gltf_summary_t = extern struct {
    f0: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    f1: limina_skill_assets_gltf_summary_t = @import("std").mem.zeroes(limina_skill_assets_gltf_summary_t),
};
const union_unnamed_13 = extern union {
    ok: limina_skill_assets_tuple2_string_gltf_summary_t,
    err: limina_skill_assets_world_error_t,
};
pub const limina_skill_assets_result_tuple2_string_gltf_summary_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_13 = @import("std").mem.zeroes(union_unnamed_13),
};
pub const limina_skill_agents_vec3_t = limina_skill_types_vec3_t;
pub const limina_skill_agents_world_error_t = limina_skill_types_world_error_t;
const union_unnamed_14 = extern union {
    entity: skill_package_string_t,
    point: limina_skill_agents_vec3_t,
};
pub const struct_limina_skill_agents_approach_target_t = extern struct {
    tag: u8 = @import("std").mem.zeroes(u8),
    val: union_unnamed_14 = @import("std").mem.zeroes(union_unnamed_14),
};
pub const limina_skill_agents_approach_target_t = struct_limina_skill_agents_approach_target_t;
const union_unnamed_15 = extern union {
    ok: skill_package_string_t,
    err: limina_skill_agents_world_error_t,
};
pub const limina_skill_agents_result_string_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_15 = @import("std").mem.zeroes(union_unnamed_15),
};
const union_unnamed_16 = extern union {
    ok: bool,
    err: limina_skill_agents_world_error_t,
};
pub const limina_skill_agents_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_16 = @import("std").mem.zeroes(union_unnamed_16),
};
pub const limina_skill_ui_world_error_t = limina_skill_types_world_error_t;
const union_unnamed_17 = extern union {
    ok: skill_package_string_t,
    err: limina_skill_ui_world_error_t,
};
pub const limina_skill_ui_result_string_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_17 = @import("std").mem.zeroes(union_unnamed_17),
};
pub const skill_package_tuple2_bool_bool_t = extern struct {
    f0: bool = @import("std").mem.zeroes(bool),
    f1: bool = @import("std").mem.zeroes(bool),
};
const union_unnamed_18 = extern union {
    ok: skill_package_tuple2_bool_bool_t,
    err: limina_skill_ui_world_error_t,
};
pub const limina_skill_ui_result_tuple2_bool_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_18 = @import("std").mem.zeroes(union_unnamed_18),
};
const union_unnamed_19 = extern union {
    ok: bool,
    err: limina_skill_ui_world_error_t,
};
pub const limina_skill_ui_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_19 = @import("std").mem.zeroes(union_unnamed_19),
};
pub const limina_skill_camera_vec3_t = limina_skill_types_vec3_t;
pub const limina_skill_camera_world_error_t = limina_skill_types_world_error_t;
pub const struct_limina_skill_camera_shot_t = extern struct {
    position: limina_skill_camera_vec3_t = @import("std").mem.zeroes(limina_skill_camera_vec3_t),
    look_at: limina_skill_camera_vec3_t = @import("std").mem.zeroes(limina_skill_camera_vec3_t),
    up: limina_skill_camera_vec3_t = @import("std").mem.zeroes(limina_skill_camera_vec3_t),
    fov_degrees: f64 = @import("std").mem.zeroes(f64),
    width: u32 = @import("std").mem.zeroes(u32),
    height: u32 = @import("std").mem.zeroes(u32),
    background: u32 = @import("std").mem.zeroes(u32),
    panels: bool = @import("std").mem.zeroes(bool),
};
pub const limina_skill_camera_shot_t = struct_limina_skill_camera_shot_t;
pub const skill_package_list_u8_t = extern struct {
    ptr: [*c]u8 = @import("std").mem.zeroes([*c]u8),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const struct_limina_skill_camera_picture_t = extern struct {
    png: skill_package_list_u8_t = @import("std").mem.zeroes(skill_package_list_u8_t),
    width: u32 = @import("std").mem.zeroes(u32),
    height: u32 = @import("std").mem.zeroes(u32),
    tick: u64 = @import("std").mem.zeroes(u64),
    entities_in_view: u32 = @import("std").mem.zeroes(u32),
    anchors_marked: u32 = @import("std").mem.zeroes(u32),
};
pub const limina_skill_camera_picture_t = struct_limina_skill_camera_picture_t;
const union_unnamed_20 = extern union {
    ok: limina_skill_camera_picture_t,
    err: limina_skill_camera_world_error_t,
};
pub const limina_skill_camera_result_picture_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_20 = @import("std").mem.zeroes(union_unnamed_20),
};
pub const limina_skill_audio_vec3_t = limina_skill_types_vec3_t;
pub const limina_skill_audio_world_error_t = limina_skill_types_world_error_t;
pub const limina_skill_audio_bus_t = u8;
pub const skill_package_tuple2_f64_f64_t = extern struct {
    f0: f64 = @import("std").mem.zeroes(f64),
    f1: f64 = @import("std").mem.zeroes(f64),
};
const union_unnamed_21 = extern union {
    tone: skill_package_tuple2_f64_f64_t,
    speech: skill_package_string_t,
};
pub const struct_limina_skill_audio_sound_t = extern struct {
    tag: u8 = @import("std").mem.zeroes(u8),
    val: union_unnamed_21 = @import("std").mem.zeroes(union_unnamed_21),
};
pub const limina_skill_audio_sound_t = struct_limina_skill_audio_sound_t;
pub const limina_skill_audio_option_bus_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_audio_bus_t = @import("std").mem.zeroes(limina_skill_audio_bus_t),
};
pub const limina_skill_audio_option_vec3_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: limina_skill_audio_vec3_t = @import("std").mem.zeroes(limina_skill_audio_vec3_t),
};
pub const struct_limina_skill_audio_play_spec_t = extern struct {
    sound: limina_skill_audio_sound_t = @import("std").mem.zeroes(limina_skill_audio_sound_t),
    bus: limina_skill_audio_option_bus_t = @import("std").mem.zeroes(limina_skill_audio_option_bus_t),
    volume: skill_package_option_f64_t = @import("std").mem.zeroes(skill_package_option_f64_t),
    position: limina_skill_audio_option_vec3_t = @import("std").mem.zeroes(limina_skill_audio_option_vec3_t),
    max_distance: skill_package_option_f64_t = @import("std").mem.zeroes(skill_package_option_f64_t),
};
pub const limina_skill_audio_play_spec_t = struct_limina_skill_audio_play_spec_t;
const union_unnamed_22 = extern union {
    ok: skill_package_string_t,
    err: limina_skill_audio_world_error_t,
};
pub const limina_skill_audio_result_string_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_22 = @import("std").mem.zeroes(union_unnamed_22),
};
const union_unnamed_23 = extern union {
    ok: bool,
    err: limina_skill_audio_world_error_t,
};
pub const limina_skill_audio_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_23 = @import("std").mem.zeroes(union_unnamed_23),
};
const union_unnamed_24 = extern union {
    err: limina_skill_audio_world_error_t,
};
pub const limina_skill_audio_result_void_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_24 = @import("std").mem.zeroes(union_unnamed_24),
};
pub const limina_skill_trace_world_error_t = limina_skill_types_world_error_t;
const union_unnamed_25 = extern union {
    ok: skill_package_string_t,
    err: limina_skill_trace_world_error_t,
};
pub const limina_skill_trace_result_string_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_25 = @import("std").mem.zeroes(union_unnamed_25),
};
pub const limina_skill_log_level_t = u8;
pub const limina_skill_state_world_error_t = limina_skill_types_world_error_t;
pub const limina_skill_state_scope_t = u8;
pub const skill_package_option_list_u8_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: skill_package_list_u8_t = @import("std").mem.zeroes(skill_package_list_u8_t),
};
const union_unnamed_26 = extern union {
    ok: skill_package_option_list_u8_t,
    err: limina_skill_state_world_error_t,
};
pub const limina_skill_state_result_option_list_u8_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_26 = @import("std").mem.zeroes(union_unnamed_26),
};
const union_unnamed_27 = extern union {
    err: limina_skill_state_world_error_t,
};
pub const limina_skill_state_result_void_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_27 = @import("std").mem.zeroes(union_unnamed_27),
};
const union_unnamed_28 = extern union {
    ok: bool,
    err: limina_skill_state_world_error_t,
};
pub const limina_skill_state_result_bool_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_28 = @import("std").mem.zeroes(union_unnamed_28),
};
const union_unnamed_29 = extern union {
    ok: skill_package_list_string_t,
    err: limina_skill_state_world_error_t,
};
pub const limina_skill_state_result_list_string_world_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_29 = @import("std").mem.zeroes(union_unnamed_29),
};
pub const struct_limina_skill_content_binary_t = extern struct {
    mime_type: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    data: skill_package_list_u8_t = @import("std").mem.zeroes(skill_package_list_u8_t),
};
pub const limina_skill_content_binary_t = struct_limina_skill_content_binary_t;
pub const struct_limina_skill_content_resource_link_t = extern struct {
    uri: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    name: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    description: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    mime_type: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
};
pub const limina_skill_content_resource_link_t = struct_limina_skill_content_resource_link_t;
const union_unnamed_30 = extern union {
    text: skill_package_string_t,
    blob: skill_package_list_u8_t,
};
pub const struct_limina_skill_content_resource_body_t = extern struct {
    tag: u8 = @import("std").mem.zeroes(u8),
    val: union_unnamed_30 = @import("std").mem.zeroes(union_unnamed_30),
};
pub const limina_skill_content_resource_body_t = struct_limina_skill_content_resource_body_t;
pub const struct_limina_skill_content_resource_contents_t = extern struct {
    uri: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    mime_type: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    body: limina_skill_content_resource_body_t = @import("std").mem.zeroes(limina_skill_content_resource_body_t),
};
pub const limina_skill_content_resource_contents_t = struct_limina_skill_content_resource_contents_t;
const union_unnamed_31 = extern union {
    text: skill_package_string_t,
    image: limina_skill_content_binary_t,
    audio: limina_skill_content_binary_t,
    resource_link: limina_skill_content_resource_link_t,
    embedded: limina_skill_content_resource_contents_t,
};
pub const struct_limina_skill_content_content_block_t = extern struct {
    tag: u8 = @import("std").mem.zeroes(u8),
    val: union_unnamed_31 = @import("std").mem.zeroes(union_unnamed_31),
};
pub const limina_skill_content_content_block_t = struct_limina_skill_content_content_block_t;
pub const limina_skill_content_list_content_block_t = extern struct {
    ptr: [*c]limina_skill_content_content_block_t = @import("std").mem.zeroes([*c]limina_skill_content_content_block_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const struct_limina_skill_content_skill_output_t = extern struct {
    structured: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    content: limina_skill_content_list_content_block_t = @import("std").mem.zeroes(limina_skill_content_list_content_block_t),
};
pub const limina_skill_content_skill_output_t = struct_limina_skill_content_skill_output_t;
pub const exports_limina_skill_skill_call_context_t = limina_skill_types_call_context_t;
pub const exports_limina_skill_skill_package_description_t = limina_skill_types_package_description_t;
pub const exports_limina_skill_skill_skill_error_t = limina_skill_types_skill_error_t;
pub const exports_limina_skill_skill_skill_output_t = limina_skill_content_skill_output_t;
const union_unnamed_32 = extern union {
    ok: exports_limina_skill_skill_skill_output_t,
    err: exports_limina_skill_skill_skill_error_t,
};
pub const exports_limina_skill_skill_result_skill_output_skill_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_32 = @import("std").mem.zeroes(union_unnamed_32),
};
const union_unnamed_33 = extern union {
    ok: skill_package_option_string_t,
    err: exports_limina_skill_skill_skill_error_t,
};
pub const exports_limina_skill_skill_result_option_string_skill_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_33 = @import("std").mem.zeroes(union_unnamed_33),
};
pub const exports_limina_skill_resources_call_context_t = limina_skill_types_call_context_t;
pub const exports_limina_skill_resources_skill_error_t = limina_skill_types_skill_error_t;
pub const exports_limina_skill_resources_resource_contents_t = limina_skill_content_resource_contents_t;
pub const struct_exports_limina_skill_resources_resource_descriptor_t = extern struct {
    uri: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    template_: bool = @import("std").mem.zeroes(bool),
    name: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    title: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    description: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    mime_type: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    permissions: skill_package_list_string_t = @import("std").mem.zeroes(skill_package_list_string_t),
};
pub const exports_limina_skill_resources_resource_descriptor_t = struct_exports_limina_skill_resources_resource_descriptor_t;
pub const exports_limina_skill_resources_list_resource_descriptor_t = extern struct {
    ptr: [*c]exports_limina_skill_resources_resource_descriptor_t = @import("std").mem.zeroes([*c]exports_limina_skill_resources_resource_descriptor_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const exports_limina_skill_resources_option_resource_contents_t = extern struct {
    is_some: bool = @import("std").mem.zeroes(bool),
    val: exports_limina_skill_resources_resource_contents_t = @import("std").mem.zeroes(exports_limina_skill_resources_resource_contents_t),
};
const union_unnamed_34 = extern union {
    ok: exports_limina_skill_resources_option_resource_contents_t,
    err: exports_limina_skill_resources_skill_error_t,
};
pub const exports_limina_skill_resources_result_option_resource_contents_skill_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_34 = @import("std").mem.zeroes(union_unnamed_34),
};
pub const exports_limina_skill_prompts_call_context_t = limina_skill_types_call_context_t;
pub const exports_limina_skill_prompts_skill_error_t = limina_skill_types_skill_error_t;
pub const exports_limina_skill_prompts_content_block_t = limina_skill_content_content_block_t;
pub const struct_exports_limina_skill_prompts_prompt_argument_t = extern struct {
    name: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    description: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    required: bool = @import("std").mem.zeroes(bool),
};
pub const exports_limina_skill_prompts_prompt_argument_t = struct_exports_limina_skill_prompts_prompt_argument_t;
pub const exports_limina_skill_prompts_list_prompt_argument_t = extern struct {
    ptr: [*c]exports_limina_skill_prompts_prompt_argument_t = @import("std").mem.zeroes([*c]exports_limina_skill_prompts_prompt_argument_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const struct_exports_limina_skill_prompts_prompt_descriptor_t = extern struct {
    name: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    title: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    description: skill_package_option_string_t = @import("std").mem.zeroes(skill_package_option_string_t),
    arguments: exports_limina_skill_prompts_list_prompt_argument_t = @import("std").mem.zeroes(exports_limina_skill_prompts_list_prompt_argument_t),
    permissions: skill_package_list_string_t = @import("std").mem.zeroes(skill_package_list_string_t),
};
pub const exports_limina_skill_prompts_prompt_descriptor_t = struct_exports_limina_skill_prompts_prompt_descriptor_t;
pub const exports_limina_skill_prompts_role_t = u8;
pub const struct_exports_limina_skill_prompts_prompt_message_t = extern struct {
    role: exports_limina_skill_prompts_role_t = @import("std").mem.zeroes(exports_limina_skill_prompts_role_t),
    content: exports_limina_skill_prompts_content_block_t = @import("std").mem.zeroes(exports_limina_skill_prompts_content_block_t),
};
pub const exports_limina_skill_prompts_prompt_message_t = struct_exports_limina_skill_prompts_prompt_message_t;
pub const exports_limina_skill_prompts_list_prompt_descriptor_t = extern struct {
    ptr: [*c]exports_limina_skill_prompts_prompt_descriptor_t = @import("std").mem.zeroes([*c]exports_limina_skill_prompts_prompt_descriptor_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const skill_package_tuple2_string_string_t = extern struct {
    f0: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
    f1: skill_package_string_t = @import("std").mem.zeroes(skill_package_string_t),
};
pub const skill_package_list_tuple2_string_string_t = extern struct {
    ptr: [*c]skill_package_tuple2_string_string_t = @import("std").mem.zeroes([*c]skill_package_tuple2_string_string_t),
    len: usize = @import("std").mem.zeroes(usize),
};
pub const exports_limina_skill_prompts_list_prompt_message_t = extern struct {
    ptr: [*c]exports_limina_skill_prompts_prompt_message_t = @import("std").mem.zeroes([*c]exports_limina_skill_prompts_prompt_message_t),
    len: usize = @import("std").mem.zeroes(usize),
};
const union_unnamed_35 = extern union {
    ok: exports_limina_skill_prompts_list_prompt_message_t,
    err: exports_limina_skill_prompts_skill_error_t,
};
pub const exports_limina_skill_prompts_result_list_prompt_message_skill_error_t = extern struct {
    is_err: bool = @import("std").mem.zeroes(bool),
    val: union_unnamed_35 = @import("std").mem.zeroes(union_unnamed_35),
};
pub extern fn limina_skill_scene_create_entity(spec: [*c]limina_skill_scene_entity_spec_t, ret: [*c]skill_package_string_t, err: [*c]limina_skill_scene_world_error_t) bool;
pub extern fn limina_skill_scene_destroy_entity(id: [*c]skill_package_string_t, ret: [*c]bool, err: [*c]limina_skill_scene_world_error_t) bool;
pub extern fn limina_skill_scene_query_entities(filter: [*c]limina_skill_scene_entity_filter_t, ret: [*c]limina_skill_scene_list_entity_info_t, err: [*c]limina_skill_scene_world_error_t) bool;
pub extern fn limina_skill_scene_get_entity(id: [*c]skill_package_string_t, ret: [*c]limina_skill_scene_option_entity_info_t, err: [*c]limina_skill_scene_world_error_t) bool;
pub extern fn limina_skill_scene_set_transform(id: [*c]skill_package_string_t, maybe_position: [*c]limina_skill_scene_vec3_t, maybe_rotation: [*c]limina_skill_scene_quat_t, maybe_scale: [*c]limina_skill_scene_vec3_t, ret: [*c]bool, err: [*c]limina_skill_scene_world_error_t) bool;
pub extern fn limina_skill_ecs_update_component(id: [*c]skill_package_string_t, component: limina_skill_ecs_transform_component_t, value: [*c]skill_package_list_f64_t, ret: [*c]bool, err: [*c]limina_skill_ecs_world_error_t) bool;
pub extern fn limina_skill_ecs_add_tag(id: [*c]skill_package_string_t, tag: [*c]skill_package_string_t, ret: [*c]bool, err: [*c]limina_skill_ecs_world_error_t) bool;
pub extern fn limina_skill_ecs_remove_tag(id: [*c]skill_package_string_t, tag: [*c]skill_package_string_t, ret: [*c]bool, err: [*c]limina_skill_ecs_world_error_t) bool;
pub extern fn limina_skill_render_set_material(id: [*c]skill_package_string_t, patch: [*c]limina_skill_render_material_patch_t, ret: [*c]bool, err: [*c]limina_skill_render_world_error_t) bool;
pub extern fn limina_skill_render_set_lighting(lighting: [*c]limina_skill_render_lighting_t, err: [*c]limina_skill_render_world_error_t) bool;
pub extern fn limina_skill_physics_apply_impulse(id: [*c]skill_package_string_t, impulse: [*c]limina_skill_physics_vec3_t, ret: [*c]bool, err: [*c]limina_skill_physics_world_error_t) bool;
pub extern fn limina_skill_physics_raycast(origin: [*c]limina_skill_physics_vec3_t, direction: [*c]limina_skill_physics_vec3_t, max_distance: f64, ret: [*c]limina_skill_physics_option_ray_hit_t, err: [*c]limina_skill_physics_world_error_t) bool;
pub extern fn limina_skill_physics_drain_collision_events(ret: [*c]limina_skill_physics_list_collision_event_t, err: [*c]limina_skill_physics_world_error_t) bool;
pub extern fn limina_skill_assets_load_gltf(asset_id: [*c]skill_package_string_t, position: [*c]limina_skill_assets_vec3_t, ret: [*c]limina_skill_assets_tuple2_string_gltf_summary_t, err: [*c]limina_skill_assets_world_error_t) bool;
pub extern fn limina_skill_agents_perception(ret: [*c]skill_package_string_t, err: [*c]limina_skill_agents_world_error_t) bool;
pub extern fn limina_skill_agents_emit_signal(kind: [*c]skill_package_string_t, payload: [*c]skill_package_string_t, ret: [*c]skill_package_string_t, err: [*c]limina_skill_agents_world_error_t) bool;
pub extern fn limina_skill_agents_approach(target: [*c]limina_skill_agents_approach_target_t, maybe_talk_distance: [*c]f64, ret: [*c]bool, err: [*c]limina_skill_agents_world_error_t) bool;
pub extern fn limina_skill_agents_say(text: [*c]skill_package_string_t, maybe_claimed_actor: [*c]skill_package_string_t, ret: [*c]skill_package_string_t, err: [*c]limina_skill_agents_world_error_t) bool;
pub extern fn limina_skill_ui_create_panel(kind: [*c]skill_package_string_t, spec: [*c]skill_package_string_t, ret: [*c]skill_package_string_t, err: [*c]limina_skill_ui_world_error_t) bool;
pub extern fn limina_skill_ui_update_panel(handle: [*c]skill_package_string_t, patch: [*c]skill_package_string_t, ret: [*c]skill_package_tuple2_bool_bool_t, err: [*c]limina_skill_ui_world_error_t) bool;
pub extern fn limina_skill_ui_remove_panel(handle: [*c]skill_package_string_t, ret: [*c]bool, err: [*c]limina_skill_ui_world_error_t) bool;
pub extern fn limina_skill_camera_capture(shot: [*c]limina_skill_camera_shot_t, ret: [*c]limina_skill_camera_picture_t, err: [*c]limina_skill_camera_world_error_t) bool;
pub extern fn limina_skill_audio_play(spec: [*c]limina_skill_audio_play_spec_t, ret: [*c]skill_package_string_t, err: [*c]limina_skill_audio_world_error_t) bool;
pub extern fn limina_skill_audio_stop(handle: [*c]skill_package_string_t, ret: [*c]bool, err: [*c]limina_skill_audio_world_error_t) bool;
pub extern fn limina_skill_audio_set_volume(handle: [*c]skill_package_string_t, volume: f64, ret: [*c]bool, err: [*c]limina_skill_audio_world_error_t) bool;
pub extern fn limina_skill_audio_set_bus_volume(bus: limina_skill_audio_bus_t, volume: f64, err: [*c]limina_skill_audio_world_error_t) bool;
pub extern fn limina_skill_trace_emit(kind: [*c]skill_package_string_t, payload: [*c]skill_package_string_t, ret: [*c]skill_package_string_t, err: [*c]limina_skill_trace_world_error_t) bool;
pub extern fn limina_skill_log_log(level: limina_skill_log_level_t, message: [*c]skill_package_string_t) void;
pub extern fn limina_skill_random_next_u64() u64;
pub extern fn limina_skill_progress_report(done: f64, maybe_total: [*c]f64, maybe_message: [*c]skill_package_string_t) void;
pub extern fn limina_skill_state_get(scope: limina_skill_state_scope_t, key: [*c]skill_package_string_t, ret: [*c]skill_package_option_list_u8_t, err: [*c]limina_skill_state_world_error_t) bool;
pub extern fn limina_skill_state_set(scope: limina_skill_state_scope_t, key: [*c]skill_package_string_t, value: [*c]skill_package_list_u8_t, err: [*c]limina_skill_state_world_error_t) bool;
pub extern fn limina_skill_state_delete(scope: limina_skill_state_scope_t, key: [*c]skill_package_string_t, ret: [*c]bool, err: [*c]limina_skill_state_world_error_t) bool;
pub extern fn limina_skill_state_keys(scope: limina_skill_state_scope_t, prefix: [*c]skill_package_string_t, ret: [*c]skill_package_list_string_t, err: [*c]limina_skill_state_world_error_t) bool;
pub extern fn exports_limina_skill_skill_describe(ret: [*c]exports_limina_skill_skill_package_description_t) void;
pub extern fn exports_limina_skill_skill_invoke(name: [*c]skill_package_string_t, input: [*c]skill_package_string_t, ctx: [*c]exports_limina_skill_skill_call_context_t, ret: [*c]exports_limina_skill_skill_skill_output_t, err: [*c]exports_limina_skill_skill_skill_error_t) bool;
pub extern fn exports_limina_skill_skill_run_hook(hook: [*c]skill_package_string_t, skill: [*c]skill_package_string_t, payload: [*c]skill_package_string_t, ctx: [*c]exports_limina_skill_skill_call_context_t, ret: [*c]skill_package_option_string_t, err: [*c]exports_limina_skill_skill_skill_error_t) bool;
pub extern fn exports_limina_skill_resources_list_resources(ret: [*c]exports_limina_skill_resources_list_resource_descriptor_t) void;
pub extern fn exports_limina_skill_resources_read_resource(uri: [*c]skill_package_string_t, ctx: [*c]exports_limina_skill_resources_call_context_t, ret: [*c]exports_limina_skill_resources_option_resource_contents_t, err: [*c]exports_limina_skill_resources_skill_error_t) bool;
pub extern fn exports_limina_skill_resources_complete_variable(uri_template: [*c]skill_package_string_t, variable: [*c]skill_package_string_t, prefix: [*c]skill_package_string_t, ret: [*c]skill_package_list_string_t) void;
pub extern fn exports_limina_skill_prompts_list_prompts(ret: [*c]exports_limina_skill_prompts_list_prompt_descriptor_t) void;
pub extern fn exports_limina_skill_prompts_get_prompt(name: [*c]skill_package_string_t, arguments: [*c]skill_package_list_tuple2_string_string_t, ctx: [*c]exports_limina_skill_prompts_call_context_t, ret: [*c]exports_limina_skill_prompts_list_prompt_message_t, err: [*c]exports_limina_skill_prompts_skill_error_t) bool;
pub extern fn exports_limina_skill_prompts_complete_argument(name: [*c]skill_package_string_t, argument: [*c]skill_package_string_t, prefix: [*c]skill_package_string_t, ret: [*c]skill_package_list_string_t) void;
pub extern fn limina_skill_types_call_context_free(ptr: [*c]limina_skill_types_call_context_t) void;
pub extern fn skill_package_list_string_free(ptr: [*c]skill_package_list_string_t) void;
pub extern fn limina_skill_types_skill_descriptor_free(ptr: [*c]limina_skill_types_skill_descriptor_t) void;
pub extern fn limina_skill_types_hook_descriptor_free(ptr: [*c]limina_skill_types_hook_descriptor_t) void;
pub extern fn limina_skill_types_list_skill_descriptor_free(ptr: [*c]limina_skill_types_list_skill_descriptor_t) void;
pub extern fn limina_skill_types_list_hook_descriptor_free(ptr: [*c]limina_skill_types_list_hook_descriptor_t) void;
pub extern fn limina_skill_types_package_description_free(ptr: [*c]limina_skill_types_package_description_t) void;
pub extern fn limina_skill_types_skill_error_free(ptr: [*c]limina_skill_types_skill_error_t) void;
pub extern fn limina_skill_types_world_error_free(ptr: [*c]limina_skill_types_world_error_t) void;
pub extern fn limina_skill_scene_world_error_free(ptr: [*c]limina_skill_scene_world_error_t) void;
pub extern fn limina_skill_scene_option_collider_shape_free(ptr: [*c]limina_skill_scene_option_collider_shape_t) void;
pub extern fn limina_skill_scene_entity_spec_free(ptr: [*c]limina_skill_scene_entity_spec_t) void;
pub extern fn skill_package_option_u64_free(ptr: [*c]skill_package_option_u64_t) void;
pub extern fn limina_skill_scene_entity_info_free(ptr: [*c]limina_skill_scene_entity_info_t) void;
pub extern fn limina_skill_scene_option_vec3_free(ptr: [*c]limina_skill_scene_option_vec3_t) void;
pub extern fn skill_package_option_f64_free(ptr: [*c]skill_package_option_f64_t) void;
pub extern fn skill_package_option_string_free(ptr: [*c]skill_package_option_string_t) void;
pub extern fn limina_skill_scene_entity_filter_free(ptr: [*c]limina_skill_scene_entity_filter_t) void;
pub extern fn limina_skill_scene_result_string_world_error_free(ptr: [*c]limina_skill_scene_result_string_world_error_t) void;
pub extern fn limina_skill_scene_result_bool_world_error_free(ptr: [*c]limina_skill_scene_result_bool_world_error_t) void;
pub extern fn limina_skill_scene_list_entity_info_free(ptr: [*c]limina_skill_scene_list_entity_info_t) void;
pub extern fn limina_skill_scene_result_list_entity_info_world_error_free(ptr: [*c]limina_skill_scene_result_list_entity_info_world_error_t) void;
pub extern fn limina_skill_scene_option_entity_info_free(ptr: [*c]limina_skill_scene_option_entity_info_t) void;
pub extern fn limina_skill_scene_result_option_entity_info_world_error_free(ptr: [*c]limina_skill_scene_result_option_entity_info_world_error_t) void;
pub extern fn limina_skill_scene_option_quat_free(ptr: [*c]limina_skill_scene_option_quat_t) void;
pub extern fn limina_skill_ecs_world_error_free(ptr: [*c]limina_skill_ecs_world_error_t) void;
pub extern fn skill_package_list_f64_free(ptr: [*c]skill_package_list_f64_t) void;
pub extern fn limina_skill_ecs_result_bool_world_error_free(ptr: [*c]limina_skill_ecs_result_bool_world_error_t) void;
pub extern fn limina_skill_render_world_error_free(ptr: [*c]limina_skill_render_world_error_t) void;
pub extern fn skill_package_option_u32_free(ptr: [*c]skill_package_option_u32_t) void;
pub extern fn skill_package_option_bool_free(ptr: [*c]skill_package_option_bool_t) void;
pub extern fn limina_skill_render_material_patch_free(ptr: [*c]limina_skill_render_material_patch_t) void;
pub extern fn limina_skill_render_result_bool_world_error_free(ptr: [*c]limina_skill_render_result_bool_world_error_t) void;
pub extern fn limina_skill_render_result_void_world_error_free(ptr: [*c]limina_skill_render_result_void_world_error_t) void;
pub extern fn limina_skill_physics_world_error_free(ptr: [*c]limina_skill_physics_world_error_t) void;
pub extern fn limina_skill_physics_ray_hit_free(ptr: [*c]limina_skill_physics_ray_hit_t) void;
pub extern fn limina_skill_physics_option_vec3_free(ptr: [*c]limina_skill_physics_option_vec3_t) void;
pub extern fn limina_skill_physics_collision_event_free(ptr: [*c]limina_skill_physics_collision_event_t) void;
pub extern fn limina_skill_physics_result_bool_world_error_free(ptr: [*c]limina_skill_physics_result_bool_world_error_t) void;
pub extern fn limina_skill_physics_option_ray_hit_free(ptr: [*c]limina_skill_physics_option_ray_hit_t) void;
pub extern fn limina_skill_physics_result_option_ray_hit_world_error_free(ptr: [*c]limina_skill_physics_result_option_ray_hit_world_error_t) void;
pub extern fn limina_skill_physics_list_collision_event_free(ptr: [*c]limina_skill_physics_list_collision_event_t) void;
pub extern fn limina_skill_physics_result_list_collision_event_world_error_free(ptr: [*c]limina_skill_physics_result_list_collision_event_world_error_t) void;
pub extern fn limina_skill_assets_world_error_free(ptr: [*c]limina_skill_assets_world_error_t) void;
pub extern fn limina_skill_assets_gltf_summary_free(ptr: [*c]limina_skill_assets_gltf_summary_t) void;
pub extern fn limina_skill_assets_tuple2_string_gltf_summary_free(ptr: [*c]limina_skill_assets_tuple2_string_gltf_summary_t) void;
pub extern fn limina_skill_assets_result_tuple2_string_gltf_summary_world_error_free(ptr: [*c]limina_skill_assets_result_tuple2_string_gltf_summary_world_error_t) void;
pub extern fn limina_skill_agents_world_error_free(ptr: [*c]limina_skill_agents_world_error_t) void;
pub extern fn limina_skill_agents_approach_target_free(ptr: [*c]limina_skill_agents_approach_target_t) void;
pub extern fn limina_skill_agents_result_string_world_error_free(ptr: [*c]limina_skill_agents_result_string_world_error_t) void;
pub extern fn limina_skill_agents_result_bool_world_error_free(ptr: [*c]limina_skill_agents_result_bool_world_error_t) void;
pub extern fn limina_skill_ui_world_error_free(ptr: [*c]limina_skill_ui_world_error_t) void;
pub extern fn limina_skill_ui_result_string_world_error_free(ptr: [*c]limina_skill_ui_result_string_world_error_t) void;
pub extern fn limina_skill_ui_result_tuple2_bool_bool_world_error_free(ptr: [*c]limina_skill_ui_result_tuple2_bool_bool_world_error_t) void;
pub extern fn limina_skill_ui_result_bool_world_error_free(ptr: [*c]limina_skill_ui_result_bool_world_error_t) void;
pub extern fn limina_skill_camera_world_error_free(ptr: [*c]limina_skill_camera_world_error_t) void;
pub extern fn skill_package_list_u8_free(ptr: [*c]skill_package_list_u8_t) void;
pub extern fn limina_skill_camera_picture_free(ptr: [*c]limina_skill_camera_picture_t) void;
pub extern fn limina_skill_camera_result_picture_world_error_free(ptr: [*c]limina_skill_camera_result_picture_world_error_t) void;
pub extern fn limina_skill_audio_world_error_free(ptr: [*c]limina_skill_audio_world_error_t) void;
pub extern fn limina_skill_audio_sound_free(ptr: [*c]limina_skill_audio_sound_t) void;
pub extern fn limina_skill_audio_option_bus_free(ptr: [*c]limina_skill_audio_option_bus_t) void;
pub extern fn limina_skill_audio_option_vec3_free(ptr: [*c]limina_skill_audio_option_vec3_t) void;
pub extern fn limina_skill_audio_play_spec_free(ptr: [*c]limina_skill_audio_play_spec_t) void;
pub extern fn limina_skill_audio_result_string_world_error_free(ptr: [*c]limina_skill_audio_result_string_world_error_t) void;
pub extern fn limina_skill_audio_result_bool_world_error_free(ptr: [*c]limina_skill_audio_result_bool_world_error_t) void;
pub extern fn limina_skill_audio_result_void_world_error_free(ptr: [*c]limina_skill_audio_result_void_world_error_t) void;
pub extern fn limina_skill_trace_world_error_free(ptr: [*c]limina_skill_trace_world_error_t) void;
pub extern fn limina_skill_trace_result_string_world_error_free(ptr: [*c]limina_skill_trace_result_string_world_error_t) void;
pub extern fn limina_skill_state_world_error_free(ptr: [*c]limina_skill_state_world_error_t) void;
pub extern fn skill_package_option_list_u8_free(ptr: [*c]skill_package_option_list_u8_t) void;
pub extern fn limina_skill_state_result_option_list_u8_world_error_free(ptr: [*c]limina_skill_state_result_option_list_u8_world_error_t) void;
pub extern fn limina_skill_state_result_void_world_error_free(ptr: [*c]limina_skill_state_result_void_world_error_t) void;
pub extern fn limina_skill_state_result_bool_world_error_free(ptr: [*c]limina_skill_state_result_bool_world_error_t) void;
pub extern fn limina_skill_state_result_list_string_world_error_free(ptr: [*c]limina_skill_state_result_list_string_world_error_t) void;
pub extern fn limina_skill_content_binary_free(ptr: [*c]limina_skill_content_binary_t) void;
pub extern fn limina_skill_content_resource_link_free(ptr: [*c]limina_skill_content_resource_link_t) void;
pub extern fn limina_skill_content_resource_body_free(ptr: [*c]limina_skill_content_resource_body_t) void;
pub extern fn limina_skill_content_resource_contents_free(ptr: [*c]limina_skill_content_resource_contents_t) void;
pub extern fn limina_skill_content_content_block_free(ptr: [*c]limina_skill_content_content_block_t) void;
pub extern fn limina_skill_content_list_content_block_free(ptr: [*c]limina_skill_content_list_content_block_t) void;
pub extern fn limina_skill_content_skill_output_free(ptr: [*c]limina_skill_content_skill_output_t) void;
pub extern fn exports_limina_skill_skill_call_context_free(ptr: [*c]exports_limina_skill_skill_call_context_t) void;
pub extern fn exports_limina_skill_skill_package_description_free(ptr: [*c]exports_limina_skill_skill_package_description_t) void;
pub extern fn exports_limina_skill_skill_skill_error_free(ptr: [*c]exports_limina_skill_skill_skill_error_t) void;
pub extern fn exports_limina_skill_skill_skill_output_free(ptr: [*c]exports_limina_skill_skill_skill_output_t) void;
pub extern fn exports_limina_skill_skill_result_skill_output_skill_error_free(ptr: [*c]exports_limina_skill_skill_result_skill_output_skill_error_t) void;
pub extern fn exports_limina_skill_skill_result_option_string_skill_error_free(ptr: [*c]exports_limina_skill_skill_result_option_string_skill_error_t) void;
pub extern fn exports_limina_skill_resources_call_context_free(ptr: [*c]exports_limina_skill_resources_call_context_t) void;
pub extern fn exports_limina_skill_resources_skill_error_free(ptr: [*c]exports_limina_skill_resources_skill_error_t) void;
pub extern fn exports_limina_skill_resources_resource_contents_free(ptr: [*c]exports_limina_skill_resources_resource_contents_t) void;
pub extern fn exports_limina_skill_resources_resource_descriptor_free(ptr: [*c]exports_limina_skill_resources_resource_descriptor_t) void;
pub extern fn exports_limina_skill_resources_list_resource_descriptor_free(ptr: [*c]exports_limina_skill_resources_list_resource_descriptor_t) void;
pub extern fn exports_limina_skill_resources_option_resource_contents_free(ptr: [*c]exports_limina_skill_resources_option_resource_contents_t) void;
pub extern fn exports_limina_skill_resources_result_option_resource_contents_skill_error_free(ptr: [*c]exports_limina_skill_resources_result_option_resource_contents_skill_error_t) void;
pub extern fn exports_limina_skill_prompts_call_context_free(ptr: [*c]exports_limina_skill_prompts_call_context_t) void;
pub extern fn exports_limina_skill_prompts_skill_error_free(ptr: [*c]exports_limina_skill_prompts_skill_error_t) void;
pub extern fn exports_limina_skill_prompts_content_block_free(ptr: [*c]exports_limina_skill_prompts_content_block_t) void;
pub extern fn exports_limina_skill_prompts_prompt_argument_free(ptr: [*c]exports_limina_skill_prompts_prompt_argument_t) void;
pub extern fn exports_limina_skill_prompts_list_prompt_argument_free(ptr: [*c]exports_limina_skill_prompts_list_prompt_argument_t) void;
pub extern fn exports_limina_skill_prompts_prompt_descriptor_free(ptr: [*c]exports_limina_skill_prompts_prompt_descriptor_t) void;
pub extern fn exports_limina_skill_prompts_prompt_message_free(ptr: [*c]exports_limina_skill_prompts_prompt_message_t) void;
pub extern fn exports_limina_skill_prompts_list_prompt_descriptor_free(ptr: [*c]exports_limina_skill_prompts_list_prompt_descriptor_t) void;
pub extern fn skill_package_tuple2_string_string_free(ptr: [*c]skill_package_tuple2_string_string_t) void;
pub extern fn skill_package_list_tuple2_string_string_free(ptr: [*c]skill_package_list_tuple2_string_string_t) void;
pub extern fn exports_limina_skill_prompts_list_prompt_message_free(ptr: [*c]exports_limina_skill_prompts_list_prompt_message_t) void;
pub extern fn exports_limina_skill_prompts_result_list_prompt_message_skill_error_free(ptr: [*c]exports_limina_skill_prompts_result_list_prompt_message_skill_error_t) void;
pub extern fn skill_package_string_set(ret: [*c]skill_package_string_t, s: [*c]const u8) void;
pub extern fn skill_package_string_dup(ret: [*c]skill_package_string_t, s: [*c]const u8) void;
pub extern fn skill_package_string_dup_n(ret: [*c]skill_package_string_t, s: [*c]const u8, len: usize) void;
pub extern fn skill_package_string_free(ret: [*c]skill_package_string_t) void;
pub const __llvm__ = @as(c_int, 1);
pub const __clang__ = @as(c_int, 1);
pub const __clang_major__ = @as(c_int, 20);
pub const __clang_minor__ = @as(c_int, 1);
pub const __clang_patchlevel__ = @as(c_int, 2);
pub const __clang_version__ = "20.1.2 (https://github.com/ziglang/zig-bootstrap 7ef74e656cf8ddbd6bf891a8475892aa1afa6891)";
pub const __GNUC__ = @as(c_int, 4);
pub const __GNUC_MINOR__ = @as(c_int, 2);
pub const __GNUC_PATCHLEVEL__ = @as(c_int, 1);
pub const __GXX_ABI_VERSION = @as(c_int, 1002);
pub const __ATOMIC_RELAXED = @as(c_int, 0);
pub const __ATOMIC_CONSUME = @as(c_int, 1);
pub const __ATOMIC_ACQUIRE = @as(c_int, 2);
pub const __ATOMIC_RELEASE = @as(c_int, 3);
pub const __ATOMIC_ACQ_REL = @as(c_int, 4);
pub const __ATOMIC_SEQ_CST = @as(c_int, 5);
pub const __MEMORY_SCOPE_SYSTEM = @as(c_int, 0);
pub const __MEMORY_SCOPE_DEVICE = @as(c_int, 1);
pub const __MEMORY_SCOPE_WRKGRP = @as(c_int, 2);
pub const __MEMORY_SCOPE_WVFRNT = @as(c_int, 3);
pub const __MEMORY_SCOPE_SINGLE = @as(c_int, 4);
pub const __OPENCL_MEMORY_SCOPE_WORK_ITEM = @as(c_int, 0);
pub const __OPENCL_MEMORY_SCOPE_WORK_GROUP = @as(c_int, 1);
pub const __OPENCL_MEMORY_SCOPE_DEVICE = @as(c_int, 2);
pub const __OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES = @as(c_int, 3);
pub const __OPENCL_MEMORY_SCOPE_SUB_GROUP = @as(c_int, 4);
pub const __FPCLASS_SNAN = @as(c_int, 0x0001);
pub const __FPCLASS_QNAN = @as(c_int, 0x0002);
pub const __FPCLASS_NEGINF = @as(c_int, 0x0004);
pub const __FPCLASS_NEGNORMAL = @as(c_int, 0x0008);
pub const __FPCLASS_NEGSUBNORMAL = @as(c_int, 0x0010);
pub const __FPCLASS_NEGZERO = @as(c_int, 0x0020);
pub const __FPCLASS_POSZERO = @as(c_int, 0x0040);
pub const __FPCLASS_POSSUBNORMAL = @as(c_int, 0x0080);
pub const __FPCLASS_POSNORMAL = @as(c_int, 0x0100);
pub const __FPCLASS_POSINF = @as(c_int, 0x0200);
pub const __PRAGMA_REDEFINE_EXTNAME = @as(c_int, 1);
pub const __VERSION__ = "Clang 20.1.2 (https://github.com/ziglang/zig-bootstrap 7ef74e656cf8ddbd6bf891a8475892aa1afa6891)";
pub const __OBJC_BOOL_IS_BOOL = @as(c_int, 0);
pub const __CONSTANT_CFSTRINGS__ = @as(c_int, 1);
pub const __clang_literal_encoding__ = "UTF-8";
pub const __clang_wide_literal_encoding__ = "UTF-32";
pub const __ORDER_LITTLE_ENDIAN__ = @as(c_int, 1234);
pub const __ORDER_BIG_ENDIAN__ = @as(c_int, 4321);
pub const __ORDER_PDP_ENDIAN__ = @as(c_int, 3412);
pub const __BYTE_ORDER__ = __ORDER_LITTLE_ENDIAN__;
pub const __LITTLE_ENDIAN__ = @as(c_int, 1);
pub const _ILP32 = @as(c_int, 1);
pub const __ILP32__ = @as(c_int, 1);
pub const __CHAR_BIT__ = @as(c_int, 8);
pub const __BOOL_WIDTH__ = @as(c_int, 1);
pub const __SHRT_WIDTH__ = @as(c_int, 16);
pub const __INT_WIDTH__ = @as(c_int, 32);
pub const __LONG_WIDTH__ = @as(c_int, 32);
pub const __LLONG_WIDTH__ = @as(c_int, 64);
pub const __BITINT_MAXWIDTH__ = @as(c_int, 128);
pub const __SCHAR_MAX__ = @as(c_int, 127);
pub const __SHRT_MAX__ = @as(c_int, 32767);
pub const __INT_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 2147483647, .decimal);
pub const __LONG_MAX__ = @as(c_long, 2147483647);
pub const __LONG_LONG_MAX__ = @as(c_longlong, 9223372036854775807);
pub const __WCHAR_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 2147483647, .decimal);
pub const __WCHAR_WIDTH__ = @as(c_int, 32);
pub const __WINT_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 2147483647, .decimal);
pub const __WINT_WIDTH__ = @as(c_int, 32);
pub const __INTMAX_MAX__ = @as(c_longlong, 9223372036854775807);
pub const __INTMAX_WIDTH__ = @as(c_int, 64);
pub const __SIZE_MAX__ = @as(c_ulong, 4294967295);
pub const __SIZE_WIDTH__ = @as(c_int, 32);
pub const __UINTMAX_MAX__ = @as(c_ulonglong, 18446744073709551615);
pub const __UINTMAX_WIDTH__ = @as(c_int, 64);
pub const __PTRDIFF_MAX__ = @as(c_long, 2147483647);
pub const __PTRDIFF_WIDTH__ = @as(c_int, 32);
pub const __INTPTR_MAX__ = @as(c_long, 2147483647);
pub const __INTPTR_WIDTH__ = @as(c_int, 32);
pub const __UINTPTR_MAX__ = @as(c_ulong, 4294967295);
pub const __UINTPTR_WIDTH__ = @as(c_int, 32);
pub const __SIZEOF_DOUBLE__ = @as(c_int, 8);
pub const __SIZEOF_FLOAT__ = @as(c_int, 4);
pub const __SIZEOF_INT__ = @as(c_int, 4);
pub const __SIZEOF_LONG__ = @as(c_int, 4);
pub const __SIZEOF_LONG_DOUBLE__ = @as(c_int, 16);
pub const __SIZEOF_LONG_LONG__ = @as(c_int, 8);
pub const __SIZEOF_POINTER__ = @as(c_int, 4);
pub const __SIZEOF_SHORT__ = @as(c_int, 2);
pub const __SIZEOF_PTRDIFF_T__ = @as(c_int, 4);
pub const __SIZEOF_SIZE_T__ = @as(c_int, 4);
pub const __SIZEOF_WCHAR_T__ = @as(c_int, 4);
pub const __SIZEOF_WINT_T__ = @as(c_int, 4);
pub const __SIZEOF_INT128__ = @as(c_int, 16);
pub const __INTMAX_TYPE__ = c_longlong;
pub const __INTMAX_FMTd__ = "lld";
pub const __INTMAX_FMTi__ = "lli";
pub const __INTMAX_C_SUFFIX__ = @compileError("unable to translate macro: undefined identifier `LL`");
// (no file):95:9
pub const __INTMAX_C = @import("std").zig.c_translation.Macros.LL_SUFFIX;
pub const __UINTMAX_TYPE__ = c_ulonglong;
pub const __UINTMAX_FMTo__ = "llo";
pub const __UINTMAX_FMTu__ = "llu";
pub const __UINTMAX_FMTx__ = "llx";
pub const __UINTMAX_FMTX__ = "llX";
pub const __UINTMAX_C_SUFFIX__ = @compileError("unable to translate macro: undefined identifier `ULL`");
// (no file):102:9
pub const __UINTMAX_C = @import("std").zig.c_translation.Macros.ULL_SUFFIX;
pub const __PTRDIFF_TYPE__ = c_long;
pub const __PTRDIFF_FMTd__ = "ld";
pub const __PTRDIFF_FMTi__ = "li";
pub const __INTPTR_TYPE__ = c_long;
pub const __INTPTR_FMTd__ = "ld";
pub const __INTPTR_FMTi__ = "li";
pub const __SIZE_TYPE__ = c_ulong;
pub const __SIZE_FMTo__ = "lo";
pub const __SIZE_FMTu__ = "lu";
pub const __SIZE_FMTx__ = "lx";
pub const __SIZE_FMTX__ = "lX";
pub const __WCHAR_TYPE__ = c_int;
pub const __WINT_TYPE__ = c_int;
pub const __SIG_ATOMIC_MAX__ = @as(c_long, 2147483647);
pub const __SIG_ATOMIC_WIDTH__ = @as(c_int, 32);
pub const __CHAR16_TYPE__ = c_ushort;
pub const __CHAR32_TYPE__ = c_uint;
pub const __UINTPTR_TYPE__ = c_ulong;
pub const __UINTPTR_FMTo__ = "lo";
pub const __UINTPTR_FMTu__ = "lu";
pub const __UINTPTR_FMTx__ = "lx";
pub const __UINTPTR_FMTX__ = "lX";
pub const __FLT_DENORM_MIN__ = @as(f32, 1.40129846e-45);
pub const __FLT_NORM_MAX__ = @as(f32, 3.40282347e+38);
pub const __FLT_HAS_DENORM__ = @as(c_int, 1);
pub const __FLT_DIG__ = @as(c_int, 6);
pub const __FLT_DECIMAL_DIG__ = @as(c_int, 9);
pub const __FLT_EPSILON__ = @as(f32, 1.19209290e-7);
pub const __FLT_HAS_INFINITY__ = @as(c_int, 1);
pub const __FLT_HAS_QUIET_NAN__ = @as(c_int, 1);
pub const __FLT_MANT_DIG__ = @as(c_int, 24);
pub const __FLT_MAX_10_EXP__ = @as(c_int, 38);
pub const __FLT_MAX_EXP__ = @as(c_int, 128);
pub const __FLT_MAX__ = @as(f32, 3.40282347e+38);
pub const __FLT_MIN_10_EXP__ = -@as(c_int, 37);
pub const __FLT_MIN_EXP__ = -@as(c_int, 125);
pub const __FLT_MIN__ = @as(f32, 1.17549435e-38);
pub const __DBL_DENORM_MIN__ = @as(f64, 4.9406564584124654e-324);
pub const __DBL_NORM_MAX__ = @as(f64, 1.7976931348623157e+308);
pub const __DBL_HAS_DENORM__ = @as(c_int, 1);
pub const __DBL_DIG__ = @as(c_int, 15);
pub const __DBL_DECIMAL_DIG__ = @as(c_int, 17);
pub const __DBL_EPSILON__ = @as(f64, 2.2204460492503131e-16);
pub const __DBL_HAS_INFINITY__ = @as(c_int, 1);
pub const __DBL_HAS_QUIET_NAN__ = @as(c_int, 1);
pub const __DBL_MANT_DIG__ = @as(c_int, 53);
pub const __DBL_MAX_10_EXP__ = @as(c_int, 308);
pub const __DBL_MAX_EXP__ = @as(c_int, 1024);
pub const __DBL_MAX__ = @as(f64, 1.7976931348623157e+308);
pub const __DBL_MIN_10_EXP__ = -@as(c_int, 307);
pub const __DBL_MIN_EXP__ = -@as(c_int, 1021);
pub const __DBL_MIN__ = @as(f64, 2.2250738585072014e-308);
pub const __LDBL_DENORM_MIN__ = @as(c_longdouble, 6.47517511943802511092443895822764655e-4966);
pub const __LDBL_NORM_MAX__ = @as(c_longdouble, 1.18973149535723176508575932662800702e+4932);
pub const __LDBL_HAS_DENORM__ = @as(c_int, 1);
pub const __LDBL_DIG__ = @as(c_int, 33);
pub const __LDBL_DECIMAL_DIG__ = @as(c_int, 36);
pub const __LDBL_EPSILON__ = @as(c_longdouble, 1.92592994438723585305597794258492732e-34);
pub const __LDBL_HAS_INFINITY__ = @as(c_int, 1);
pub const __LDBL_HAS_QUIET_NAN__ = @as(c_int, 1);
pub const __LDBL_MANT_DIG__ = @as(c_int, 113);
pub const __LDBL_MAX_10_EXP__ = @as(c_int, 4932);
pub const __LDBL_MAX_EXP__ = @as(c_int, 16384);
pub const __LDBL_MAX__ = @as(c_longdouble, 1.18973149535723176508575932662800702e+4932);
pub const __LDBL_MIN_10_EXP__ = -@as(c_int, 4931);
pub const __LDBL_MIN_EXP__ = -@as(c_int, 16381);
pub const __LDBL_MIN__ = @as(c_longdouble, 3.36210314311209350626267781732175260e-4932);
pub const __POINTER_WIDTH__ = @as(c_int, 32);
pub const __BIGGEST_ALIGNMENT__ = @as(c_int, 16);
pub const __INT8_TYPE__ = i8;
pub const __INT8_FMTd__ = "hhd";
pub const __INT8_FMTi__ = "hhi";
pub const __INT8_C_SUFFIX__ = "";
pub inline fn __INT8_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub const __INT16_TYPE__ = c_short;
pub const __INT16_FMTd__ = "hd";
pub const __INT16_FMTi__ = "hi";
pub const __INT16_C_SUFFIX__ = "";
pub inline fn __INT16_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub const __INT32_TYPE__ = c_int;
pub const __INT32_FMTd__ = "d";
pub const __INT32_FMTi__ = "i";
pub const __INT32_C_SUFFIX__ = "";
pub inline fn __INT32_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub const __INT64_TYPE__ = c_longlong;
pub const __INT64_FMTd__ = "lld";
pub const __INT64_FMTi__ = "lli";
pub const __INT64_C_SUFFIX__ = @compileError("unable to translate macro: undefined identifier `LL`");
// (no file):191:9
pub const __INT64_C = @import("std").zig.c_translation.Macros.LL_SUFFIX;
pub const __UINT8_TYPE__ = u8;
pub const __UINT8_FMTo__ = "hho";
pub const __UINT8_FMTu__ = "hhu";
pub const __UINT8_FMTx__ = "hhx";
pub const __UINT8_FMTX__ = "hhX";
pub const __UINT8_C_SUFFIX__ = "";
pub inline fn __UINT8_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub const __UINT8_MAX__ = @as(c_int, 255);
pub const __INT8_MAX__ = @as(c_int, 127);
pub const __UINT16_TYPE__ = c_ushort;
pub const __UINT16_FMTo__ = "ho";
pub const __UINT16_FMTu__ = "hu";
pub const __UINT16_FMTx__ = "hx";
pub const __UINT16_FMTX__ = "hX";
pub const __UINT16_C_SUFFIX__ = "";
pub inline fn __UINT16_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub const __UINT16_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 65535, .decimal);
pub const __INT16_MAX__ = @as(c_int, 32767);
pub const __UINT32_TYPE__ = c_uint;
pub const __UINT32_FMTo__ = "o";
pub const __UINT32_FMTu__ = "u";
pub const __UINT32_FMTx__ = "x";
pub const __UINT32_FMTX__ = "X";
pub const __UINT32_C_SUFFIX__ = @compileError("unable to translate macro: undefined identifier `U`");
// (no file):216:9
pub const __UINT32_C = @import("std").zig.c_translation.Macros.U_SUFFIX;
pub const __UINT32_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_uint, 4294967295, .decimal);
pub const __INT32_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 2147483647, .decimal);
pub const __UINT64_TYPE__ = c_ulonglong;
pub const __UINT64_FMTo__ = "llo";
pub const __UINT64_FMTu__ = "llu";
pub const __UINT64_FMTx__ = "llx";
pub const __UINT64_FMTX__ = "llX";
pub const __UINT64_C_SUFFIX__ = @compileError("unable to translate macro: undefined identifier `ULL`");
// (no file):225:9
pub const __UINT64_C = @import("std").zig.c_translation.Macros.ULL_SUFFIX;
pub const __UINT64_MAX__ = @as(c_ulonglong, 18446744073709551615);
pub const __INT64_MAX__ = @as(c_longlong, 9223372036854775807);
pub const __INT_LEAST8_TYPE__ = i8;
pub const __INT_LEAST8_MAX__ = @as(c_int, 127);
pub const __INT_LEAST8_WIDTH__ = @as(c_int, 8);
pub const __INT_LEAST8_FMTd__ = "hhd";
pub const __INT_LEAST8_FMTi__ = "hhi";
pub const __UINT_LEAST8_TYPE__ = u8;
pub const __UINT_LEAST8_MAX__ = @as(c_int, 255);
pub const __UINT_LEAST8_FMTo__ = "hho";
pub const __UINT_LEAST8_FMTu__ = "hhu";
pub const __UINT_LEAST8_FMTx__ = "hhx";
pub const __UINT_LEAST8_FMTX__ = "hhX";
pub const __INT_LEAST16_TYPE__ = c_short;
pub const __INT_LEAST16_MAX__ = @as(c_int, 32767);
pub const __INT_LEAST16_WIDTH__ = @as(c_int, 16);
pub const __INT_LEAST16_FMTd__ = "hd";
pub const __INT_LEAST16_FMTi__ = "hi";
pub const __UINT_LEAST16_TYPE__ = c_ushort;
pub const __UINT_LEAST16_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 65535, .decimal);
pub const __UINT_LEAST16_FMTo__ = "ho";
pub const __UINT_LEAST16_FMTu__ = "hu";
pub const __UINT_LEAST16_FMTx__ = "hx";
pub const __UINT_LEAST16_FMTX__ = "hX";
pub const __INT_LEAST32_TYPE__ = c_int;
pub const __INT_LEAST32_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 2147483647, .decimal);
pub const __INT_LEAST32_WIDTH__ = @as(c_int, 32);
pub const __INT_LEAST32_FMTd__ = "d";
pub const __INT_LEAST32_FMTi__ = "i";
pub const __UINT_LEAST32_TYPE__ = c_uint;
pub const __UINT_LEAST32_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_uint, 4294967295, .decimal);
pub const __UINT_LEAST32_FMTo__ = "o";
pub const __UINT_LEAST32_FMTu__ = "u";
pub const __UINT_LEAST32_FMTx__ = "x";
pub const __UINT_LEAST32_FMTX__ = "X";
pub const __INT_LEAST64_TYPE__ = c_longlong;
pub const __INT_LEAST64_MAX__ = @as(c_longlong, 9223372036854775807);
pub const __INT_LEAST64_WIDTH__ = @as(c_int, 64);
pub const __INT_LEAST64_FMTd__ = "lld";
pub const __INT_LEAST64_FMTi__ = "lli";
pub const __UINT_LEAST64_TYPE__ = c_ulonglong;
pub const __UINT_LEAST64_MAX__ = @as(c_ulonglong, 18446744073709551615);
pub const __UINT_LEAST64_FMTo__ = "llo";
pub const __UINT_LEAST64_FMTu__ = "llu";
pub const __UINT_LEAST64_FMTx__ = "llx";
pub const __UINT_LEAST64_FMTX__ = "llX";
pub const __INT_FAST8_TYPE__ = i8;
pub const __INT_FAST8_MAX__ = @as(c_int, 127);
pub const __INT_FAST8_WIDTH__ = @as(c_int, 8);
pub const __INT_FAST8_FMTd__ = "hhd";
pub const __INT_FAST8_FMTi__ = "hhi";
pub const __UINT_FAST8_TYPE__ = u8;
pub const __UINT_FAST8_MAX__ = @as(c_int, 255);
pub const __UINT_FAST8_FMTo__ = "hho";
pub const __UINT_FAST8_FMTu__ = "hhu";
pub const __UINT_FAST8_FMTx__ = "hhx";
pub const __UINT_FAST8_FMTX__ = "hhX";
pub const __INT_FAST16_TYPE__ = c_short;
pub const __INT_FAST16_MAX__ = @as(c_int, 32767);
pub const __INT_FAST16_WIDTH__ = @as(c_int, 16);
pub const __INT_FAST16_FMTd__ = "hd";
pub const __INT_FAST16_FMTi__ = "hi";
pub const __UINT_FAST16_TYPE__ = c_ushort;
pub const __UINT_FAST16_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 65535, .decimal);
pub const __UINT_FAST16_FMTo__ = "ho";
pub const __UINT_FAST16_FMTu__ = "hu";
pub const __UINT_FAST16_FMTx__ = "hx";
pub const __UINT_FAST16_FMTX__ = "hX";
pub const __INT_FAST32_TYPE__ = c_int;
pub const __INT_FAST32_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_int, 2147483647, .decimal);
pub const __INT_FAST32_WIDTH__ = @as(c_int, 32);
pub const __INT_FAST32_FMTd__ = "d";
pub const __INT_FAST32_FMTi__ = "i";
pub const __UINT_FAST32_TYPE__ = c_uint;
pub const __UINT_FAST32_MAX__ = @import("std").zig.c_translation.promoteIntLiteral(c_uint, 4294967295, .decimal);
pub const __UINT_FAST32_FMTo__ = "o";
pub const __UINT_FAST32_FMTu__ = "u";
pub const __UINT_FAST32_FMTx__ = "x";
pub const __UINT_FAST32_FMTX__ = "X";
pub const __INT_FAST64_TYPE__ = c_longlong;
pub const __INT_FAST64_MAX__ = @as(c_longlong, 9223372036854775807);
pub const __INT_FAST64_WIDTH__ = @as(c_int, 64);
pub const __INT_FAST64_FMTd__ = "lld";
pub const __INT_FAST64_FMTi__ = "lli";
pub const __UINT_FAST64_TYPE__ = c_ulonglong;
pub const __UINT_FAST64_MAX__ = @as(c_ulonglong, 18446744073709551615);
pub const __UINT_FAST64_FMTo__ = "llo";
pub const __UINT_FAST64_FMTu__ = "llu";
pub const __UINT_FAST64_FMTx__ = "llx";
pub const __UINT_FAST64_FMTX__ = "llX";
pub const __USER_LABEL_PREFIX__ = "";
pub const __NO_MATH_ERRNO__ = @as(c_int, 1);
pub const __FINITE_MATH_ONLY__ = @as(c_int, 0);
pub const __GNUC_STDC_INLINE__ = @as(c_int, 1);
pub const __GCC_ATOMIC_TEST_AND_SET_TRUEVAL = @as(c_int, 1);
pub const __GCC_DESTRUCTIVE_SIZE = @as(c_int, 64);
pub const __GCC_CONSTRUCTIVE_SIZE = @as(c_int, 64);
pub const __CLANG_ATOMIC_BOOL_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_CHAR_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_CHAR16_T_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_CHAR32_T_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_WCHAR_T_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_SHORT_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_INT_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_LONG_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_LLONG_LOCK_FREE = @as(c_int, 2);
pub const __CLANG_ATOMIC_POINTER_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_BOOL_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_CHAR_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_CHAR16_T_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_CHAR32_T_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_WCHAR_T_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_SHORT_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_INT_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_LONG_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_LLONG_LOCK_FREE = @as(c_int, 2);
pub const __GCC_ATOMIC_POINTER_LOCK_FREE = @as(c_int, 2);
pub const __NO_INLINE__ = @as(c_int, 1);
pub const __FLT_RADIX__ = @as(c_int, 2);
pub const __DECIMAL_DIG__ = __LDBL_DECIMAL_DIG__;
pub const __SSP_STRONG__ = @as(c_int, 2);
pub const __wasm = @as(c_int, 1);
pub const __wasm__ = @as(c_int, 1);
pub const __wasm_bulk_memory_opt__ = @as(c_int, 1);
pub const __wasm_extended_const__ = @as(c_int, 1);
pub const __wasm_multivalue__ = @as(c_int, 1);
pub const __wasm_mutable_globals__ = @as(c_int, 1);
pub const __wasm_nontrapping_fptoint__ = @as(c_int, 1);
pub const __wasm_sign_ext__ = @as(c_int, 1);
pub const __GCC_HAVE_SYNC_COMPARE_AND_SWAP_1 = @as(c_int, 1);
pub const __GCC_HAVE_SYNC_COMPARE_AND_SWAP_2 = @as(c_int, 1);
pub const __GCC_HAVE_SYNC_COMPARE_AND_SWAP_4 = @as(c_int, 1);
pub const __GCC_HAVE_SYNC_COMPARE_AND_SWAP_8 = @as(c_int, 1);
pub const __wasm32 = @as(c_int, 1);
pub const __wasm32__ = @as(c_int, 1);
pub const __FLOAT128__ = @as(c_int, 1);
pub const __wasi__ = @as(c_int, 1);
pub const __STDC__ = @as(c_int, 1);
pub const __STDC_HOSTED__ = @as(c_int, 1);
pub const __STDC_VERSION__ = @as(c_long, 201710);
pub const __STDC_UTF_16__ = @as(c_int, 1);
pub const __STDC_UTF_32__ = @as(c_int, 1);
pub const __STDC_EMBED_NOT_FOUND__ = @as(c_int, 0);
pub const __STDC_EMBED_FOUND__ = @as(c_int, 1);
pub const __STDC_EMBED_EMPTY__ = @as(c_int, 2);
pub const __BINDINGS_SKILL_PACKAGE_H = "";
pub const __CLANG_STDINT_H = "";
pub const _STDINT_H = "";
pub const __NEED_int8_t = "";
pub const __NEED_int16_t = "";
pub const __NEED_int32_t = "";
pub const __NEED_int64_t = "";
pub const __NEED_uint8_t = "";
pub const __NEED_uint16_t = "";
pub const __NEED_uint32_t = "";
pub const __NEED_uint64_t = "";
pub const __NEED_intptr_t = "";
pub const __NEED_uintptr_t = "";
pub const __NEED_intmax_t = "";
pub const __NEED_uintmax_t = "";
pub const _Addr = c_long;
pub const _Int64 = c_longlong;
pub const _Reg = c_longlong;
pub const __BYTE_ORDER = __BYTE_ORDER__;
pub const __LONG_MAX = __LONG_MAX__;
pub const __LITTLE_ENDIAN = @as(c_int, 1234);
pub const __BIG_ENDIAN = @as(c_int, 4321);
pub const __USE_TIME_BITS64 = @as(c_int, 1);
pub const __DEFINED_uintptr_t = "";
pub const __DEFINED_intptr_t = "";
pub const __DEFINED_int8_t = "";
pub const __DEFINED_int16_t = "";
pub const __DEFINED_int32_t = "";
pub const __DEFINED_int64_t = "";
pub const __DEFINED_intmax_t = "";
pub const __DEFINED_uint8_t = "";
pub const __DEFINED_uint16_t = "";
pub const __DEFINED_uint32_t = "";
pub const __DEFINED_uint64_t = "";
pub const __DEFINED_uintmax_t = "";
pub const __wasilibc___struct_timeval_h = "";
pub const __wasilibc___typedef_time_t_h = "";
pub const __wasilibc___typedef_suseconds_t_h = "";
pub const __wasilibc___struct_timespec_h = "";
pub const __wasilibc___struct_iovec_h = "";
pub const __need_size_t = "";
pub const _SIZE_T = "";
pub const INT8_MIN = -@as(c_int, 1) - @as(c_int, 0x7f);
pub const INT16_MIN = -@as(c_int, 1) - @as(c_int, 0x7fff);
pub const INT32_MIN = -@as(c_int, 1) - @import("std").zig.c_translation.promoteIntLiteral(c_int, 0x7fffffff, .hex);
pub const INT64_MIN = -@as(c_int, 1) - @import("std").zig.c_translation.promoteIntLiteral(c_int, 0x7fffffffffffffff, .hex);
pub const INT8_MAX = @as(c_int, 0x7f);
pub const INT16_MAX = @as(c_int, 0x7fff);
pub const INT32_MAX = @import("std").zig.c_translation.promoteIntLiteral(c_int, 0x7fffffff, .hex);
pub const INT64_MAX = @import("std").zig.c_translation.promoteIntLiteral(c_int, 0x7fffffffffffffff, .hex);
pub const UINT8_MAX = @as(c_int, 0xff);
pub const UINT16_MAX = @import("std").zig.c_translation.promoteIntLiteral(c_int, 0xffff, .hex);
pub const UINT32_MAX = @import("std").zig.c_translation.promoteIntLiteral(c_uint, 0xffffffff, .hex);
pub const UINT64_MAX = @import("std").zig.c_translation.promoteIntLiteral(c_uint, 0xffffffffffffffff, .hex);
pub const INT_FAST8_MIN = INT8_MIN;
pub const INT_FAST64_MIN = INT64_MIN;
pub const INT_LEAST8_MIN = INT8_MIN;
pub const INT_LEAST16_MIN = INT16_MIN;
pub const INT_LEAST32_MIN = INT32_MIN;
pub const INT_LEAST64_MIN = INT64_MIN;
pub const INT_FAST8_MAX = INT8_MAX;
pub const INT_FAST64_MAX = INT64_MAX;
pub const INT_LEAST8_MAX = INT8_MAX;
pub const INT_LEAST16_MAX = INT16_MAX;
pub const INT_LEAST32_MAX = INT32_MAX;
pub const INT_LEAST64_MAX = INT64_MAX;
pub const UINT_FAST8_MAX = UINT8_MAX;
pub const UINT_FAST64_MAX = UINT64_MAX;
pub const UINT_LEAST8_MAX = UINT8_MAX;
pub const UINT_LEAST16_MAX = UINT16_MAX;
pub const UINT_LEAST32_MAX = UINT32_MAX;
pub const UINT_LEAST64_MAX = UINT64_MAX;
pub const INTMAX_MIN = INT64_MIN;
pub const INTMAX_MAX = INT64_MAX;
pub const UINTMAX_MAX = UINT64_MAX;
pub const WINT_MIN = @as(c_uint, 0);
pub const WINT_MAX = UINT32_MAX;
pub const WCHAR_MAX = @import("std").zig.c_translation.promoteIntLiteral(c_int, 0x7fffffff, .hex) + '\x00';
pub const WCHAR_MIN = (-@as(c_int, 1) - @import("std").zig.c_translation.promoteIntLiteral(c_int, 0x7fffffff, .hex)) + '\x00';
pub const SIG_ATOMIC_MIN = INT32_MIN;
pub const SIG_ATOMIC_MAX = INT32_MAX;
pub const INT_FAST16_MIN = INT16_MIN;
pub const INT_FAST32_MIN = INT32_MIN;
pub const INT_FAST16_MAX = INT16_MAX;
pub const INT_FAST32_MAX = INT32_MAX;
pub const UINT_FAST16_MAX = UINT16_MAX;
pub const UINT_FAST32_MAX = UINT32_MAX;
pub const INTPTR_MIN = INT32_MIN;
pub const INTPTR_MAX = INT32_MAX;
pub const UINTPTR_MAX = UINT32_MAX;
pub const PTRDIFF_MIN = INT32_MIN;
pub const PTRDIFF_MAX = INT32_MAX;
pub const SIZE_MAX = UINT32_MAX;
pub inline fn INT8_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub inline fn INT16_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub inline fn INT32_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub inline fn UINT8_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub inline fn UINT16_C(c: anytype) @TypeOf(c) {
    _ = &c;
    return c;
}
pub const UINT32_C = @import("std").zig.c_translation.Macros.U_SUFFIX;
pub const INT64_C = @import("std").zig.c_translation.Macros.LL_SUFFIX;
pub const UINT64_C = @import("std").zig.c_translation.Macros.ULL_SUFFIX;
pub const INTMAX_C = @import("std").zig.c_translation.Macros.LL_SUFFIX;
pub const UINTMAX_C = @import("std").zig.c_translation.Macros.ULL_SUFFIX;
pub const __STDBOOL_H = "";
pub const __bool_true_false_are_defined = @as(c_int, 1);
pub const @"bool" = bool;
pub const @"true" = @as(c_int, 1);
pub const @"false" = @as(c_int, 0);
pub const __need_ptrdiff_t = "";
pub const __need_wchar_t = "";
pub const __need_NULL = "";
pub const __need_max_align_t = "";
pub const __need_offsetof = "";
pub const __STDDEF_H = "";
pub const _PTRDIFF_T = "";
pub const _WCHAR_T = "";
pub const NULL = @import("std").zig.c_translation.cast(?*anyopaque, @as(c_int, 0));
pub const __CLANG_MAX_ALIGN_T_DEFINED = "";
pub const offsetof = @compileError("unable to translate C expr: unexpected token 'an identifier'");
// /root/.cache/limina/tools/ziglang-0.15.2/lib/python3.11/site-packages/ziglang/lib/include/__stddef_offsetof.h:16:9
pub const LIMINA_SKILL_TYPES_HOOK_PHASE_BEFORE = @as(c_int, 0);
pub const LIMINA_SKILL_TYPES_HOOK_PHASE_AFTER = @as(c_int, 1);
pub const LIMINA_SKILL_TYPES_SKILL_ERROR_INVALID_INPUT = @as(c_int, 0);
pub const LIMINA_SKILL_TYPES_SKILL_ERROR_FORBIDDEN = @as(c_int, 1);
pub const LIMINA_SKILL_TYPES_SKILL_ERROR_HANDLER_ERROR = @as(c_int, 2);
pub const LIMINA_SKILL_TYPES_SKILL_ERROR_CAPACITY_EXCEEDED = @as(c_int, 3);
pub const LIMINA_SKILL_TYPES_SKILL_ERROR_NOT_FOUND = @as(c_int, 4);
pub const LIMINA_SKILL_TYPES_WORLD_ERROR_FORBIDDEN = @as(c_int, 0);
pub const LIMINA_SKILL_TYPES_WORLD_ERROR_INVALID = @as(c_int, 1);
pub const LIMINA_SKILL_TYPES_WORLD_ERROR_CAPACITY = @as(c_int, 2);
pub const LIMINA_SKILL_SCENE_SHAPE_BOX = @as(c_int, 0);
pub const LIMINA_SKILL_SCENE_SHAPE_SPHERE = @as(c_int, 1);
pub const LIMINA_SKILL_SCENE_COLLIDER_SHAPE_BOX = @as(c_int, 0);
pub const LIMINA_SKILL_SCENE_COLLIDER_SHAPE_SPHERE = @as(c_int, 1);
pub const LIMINA_SKILL_SCENE_COLLIDER_SHAPE_CAPSULE = @as(c_int, 2);
pub const LIMINA_SKILL_SCENE_BODY_KIND_NONE = @as(c_int, 0);
pub const LIMINA_SKILL_SCENE_BODY_KIND_DYNAMIC = @as(c_int, 1);
pub const LIMINA_SKILL_SCENE_BODY_KIND_FIXED = @as(c_int, 2);
pub const LIMINA_SKILL_ECS_TRANSFORM_COMPONENT_POSITION = @as(c_int, 0);
pub const LIMINA_SKILL_ECS_TRANSFORM_COMPONENT_ROTATION = @as(c_int, 1);
pub const LIMINA_SKILL_ECS_TRANSFORM_COMPONENT_SCALE = @as(c_int, 2);
pub const LIMINA_SKILL_AGENTS_APPROACH_TARGET_ENTITY = @as(c_int, 0);
pub const LIMINA_SKILL_AGENTS_APPROACH_TARGET_POINT = @as(c_int, 1);
pub const LIMINA_SKILL_AUDIO_BUS_MASTER = @as(c_int, 0);
pub const LIMINA_SKILL_AUDIO_BUS_SFX = @as(c_int, 1);
pub const LIMINA_SKILL_AUDIO_BUS_AMBIENCE = @as(c_int, 2);
pub const LIMINA_SKILL_AUDIO_BUS_VOICE = @as(c_int, 3);
pub const LIMINA_SKILL_AUDIO_SOUND_TONE = @as(c_int, 0);
pub const LIMINA_SKILL_AUDIO_SOUND_AMBIENT = @as(c_int, 1);
pub const LIMINA_SKILL_AUDIO_SOUND_SPEECH = @as(c_int, 2);
pub const LIMINA_SKILL_LOG_LEVEL_DEBUG = @as(c_int, 0);
pub const LIMINA_SKILL_LOG_LEVEL_INFO = @as(c_int, 1);
pub const LIMINA_SKILL_LOG_LEVEL_WARN = @as(c_int, 2);
pub const LIMINA_SKILL_LOG_LEVEL_ERROR = @as(c_int, 3);
pub const LIMINA_SKILL_STATE_SCOPE_SHARED = @as(c_int, 0);
pub const LIMINA_SKILL_STATE_SCOPE_AGENT = @as(c_int, 1);
pub const LIMINA_SKILL_CONTENT_RESOURCE_BODY_TEXT = @as(c_int, 0);
pub const LIMINA_SKILL_CONTENT_RESOURCE_BODY_BLOB = @as(c_int, 1);
pub const LIMINA_SKILL_CONTENT_CONTENT_BLOCK_TEXT = @as(c_int, 0);
pub const LIMINA_SKILL_CONTENT_CONTENT_BLOCK_IMAGE = @as(c_int, 1);
pub const LIMINA_SKILL_CONTENT_CONTENT_BLOCK_AUDIO = @as(c_int, 2);
pub const LIMINA_SKILL_CONTENT_CONTENT_BLOCK_RESOURCE_LINK = @as(c_int, 3);
pub const LIMINA_SKILL_CONTENT_CONTENT_BLOCK_EMBEDDED = @as(c_int, 4);
pub const EXPORTS_LIMINA_SKILL_PROMPTS_ROLE_USER = @as(c_int, 0);
pub const EXPORTS_LIMINA_SKILL_PROMPTS_ROLE_ASSISTANT = @as(c_int, 1);
pub const timeval = struct_timeval;
pub const timespec = struct_timespec;
pub const iovec = struct_iovec;
