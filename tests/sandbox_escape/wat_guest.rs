//! Hostile guests written as WebAssembly text: a core module (`guest.wat`) is parsed with the
//! `wat` crate, given the `limina:skill` component type and encoded as a component with
//! `wit-component`, exactly as a guest toolchain would. Writing them by hand reaches what a
//! Rust guest cannot express: start functions, table growth, declared limits, data segments,
//! post-return functions, features the engine refuses.
//!
//! A case's module text may hold two markers the helper expands:
//! - `;; limina:describe` — a `describe` export declaring one skill, `hostile.run`;
//! - `;; limina:describe-parts` — only what it is built from: the strings (and `{}` at 1100)
//!   and `$describe-skill (at, name, name-len)`, which writes one 60-byte descriptor;
//! - `;; limina:realloc` — `cabi_realloc`, a bump allocator growing memory as needed;
//! - `;; limina:invoke` — an `invoke` export that calls the case's `$run: (result i32 i32)`
//!   (a pointer and length of its JSON output) and a `run-hook` export that traps.
//!
//! Memory map of the expanded parts: strings at 1024, the descriptor at 2048, return areas
//! at 4096 and 4112; cases may use 8192..32768; `cabi_realloc` hands out memory from 32768.

use crate::support::repo;
use std::path::Path;

/// The package every case's skills belong to.
pub const PACKAGE: &str = "hostile";

const DESCRIBE_PARTS: &str = r#"
  (data (i32.const 1024) "hostile.run")
  (data (i32.const 1040) "0.1.0")
  (data (i32.const 1048) "hostile")
  (data (i32.const 1056) "One hostile skill.")
  (data (i32.const 1080) "{\"type\":\"object\"}")
  (data (i32.const 1100) "{}")
  (func $describe-skill (param $at i32) (param $name i32) (param $name-len i32)
    (i32.store offset=0 (local.get $at) (local.get $name))
    (i32.store offset=4 (local.get $at) (local.get $name-len))
    (i32.store offset=8 (local.get $at) (i32.const 1040))
    (i32.store offset=12 (local.get $at) (i32.const 5))
    (i32.store offset=16 (local.get $at) (i32.const 1048))
    (i32.store offset=20 (local.get $at) (i32.const 7))
    (i32.store offset=24 (local.get $at) (i32.const 1056))
    (i32.store offset=28 (local.get $at) (i32.const 18))
    (i32.store offset=32 (local.get $at) (i32.const 0))
    (i32.store offset=36 (local.get $at) (i32.const 0))
    (i32.store offset=40 (local.get $at) (i32.const 1080))
    (i32.store offset=44 (local.get $at) (i32.const 17))
    (i32.store offset=48 (local.get $at) (i32.const 1080))
    (i32.store offset=52 (local.get $at) (i32.const 17))
    (i32.store offset=56 (local.get $at) (i32.const 0)))
"#;

const DESCRIBE_EXPORT: &str = r#"
  (func (export "limina:skill/skill@0.1.0#describe") (result i32)
    (call $describe-skill (i32.const 2048) (i32.const 1024) (i32.const 11))
    (i32.store (i32.const 4096) (i32.const 2048))
    (i32.store (i32.const 4100) (i32.const 1))
    (i32.store (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4108) (i32.const 0))
    (i32.const 4096))
"#;

const REALLOC: &str = r#"
  (global $bump (mut i32) (i32.const 32768))
  (func $cabi_realloc (export "cabi_realloc")
    (param $old i32) (param $old-size i32) (param $align i32) (param $size i32) (result i32)
    (local $ptr i32) (local $have i32)
    (local.set $ptr
      (i32.and
        (i32.add (global.get $bump) (i32.sub (local.get $align) (i32.const 1)))
        (i32.sub (i32.const 0) (local.get $align))))
    (global.set $bump (i32.add (local.get $ptr) (local.get $size)))
    (local.set $have (i32.mul (memory.size) (i32.const 65536)))
    (if (i32.gt_u (global.get $bump) (local.get $have))
      (then
        (if (i32.eq
              (memory.grow
                (i32.add
                  (i32.shr_u (i32.sub (global.get $bump) (local.get $have)) (i32.const 16))
                  (i32.const 1)))
              (i32.const -1))
          (then unreachable))))
    (local.get $ptr))
"#;

const INVOKE: &str = r#"
  (func (export "limina:skill/skill@0.1.0#invoke")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    (local $ptr i32) (local $len i32)
    (call $run)
    (local.set $len)
    (local.set $ptr)
    (i32.store8 (i32.const 4112) (i32.const 0))
    (i32.store (i32.const 4116) (local.get $ptr))
    (i32.store (i32.const 4120) (local.get $len))
    (i32.const 4112))
  (func (export "limina:skill/skill@0.1.0#run-hook")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    unreachable)
"#;

/// The module text of a case with its markers expanded.
pub fn expand(text: &str) -> String {
    text.replace(";; limina:describe-parts", DESCRIBE_PARTS)
        .replace(
            ";; limina:describe",
            &format!("{DESCRIBE_PARTS}{DESCRIBE_EXPORT}"),
        )
        .replace(";; limina:realloc", REALLOC)
        .replace(";; limina:invoke", INVOKE)
}

/// Builds the component for the case in `dir`: `guest.wat`, expanded, against the world
/// `limina:skill/skill-package` — or, when the case holds a `world.wit`, the world
/// `hostile:guest/guest` it declares (which may import interfaces the host does not provide). `pad_bytes` appends a custom
/// section of that size to the component.
pub fn component(dir: &Path, pad_bytes: usize) -> Vec<u8> {
    let text = std::fs::read_to_string(dir.join("guest.wat")).unwrap();
    let mut module = wat::parse_str(expand(&text))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("guest.wat").display()));
    let mut resolve = wit_parser::Resolve::default();
    let (ours, _) = resolve.push_dir(repo().join("wit-0.1")).unwrap();
    let world = match std::fs::read_to_string(dir.join("world.wit")) {
        Ok(extra) => {
            let theirs = resolve.push_str(dir.join("world.wit"), &extra).unwrap();
            resolve
                .select_world(&[theirs], Some("hostile:guest/guest"))
                .unwrap()
        }
        Err(_) => resolve
            .select_world(&[ours], Some("skill-package"))
            .unwrap(),
    };
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
        false,
    )
    .unwrap();
    let mut component = wit_component::ComponentEncoder::default()
        .module(&module)
        .unwrap()
        .validate(true)
        .encode()
        .unwrap_or_else(|e| panic!("{}: {e:#}", dir.display()));
    if pad_bytes > 0 {
        pad(&mut component, pad_bytes);
    }
    component
}

/// Appends a custom section named `padding` holding `size` zero bytes.
fn pad(wasm: &mut Vec<u8>, size: usize) {
    let name = b"padding";
    let mut body = leb128(name.len() as u64);
    body.extend_from_slice(name);
    body.resize(body.len() + size, 0);
    wasm.push(0);
    wasm.extend(leb128(body.len() as u64));
    wasm.extend(body);
}

fn leb128(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}
