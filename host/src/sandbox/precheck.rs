//! What a component must be before the host spends time compiling it: no larger than
//! `MAX_COMPONENT_BYTES`, and using no wasm feature the host refuses — 64-bit memories
//! (`memory64`) and shared memories (the `threads` proposal) — named in the refusal.

use crate::limits::MAX_COMPONENT_BYTES;
use anyhow::{Result, bail};
use wasmtime::wasmparser::{Parser, Payload, TypeRef};

/// Refuses a component over the size cap or declaring a memory the host does not support.
pub fn check(bytes: &[u8], label: &str) -> Result<()> {
    if bytes.len() > MAX_COMPONENT_BYTES {
        bail!(
            "{label} is {} bytes, over the host's {MAX_COMPONENT_BYTES} byte cap on a component; nothing was compiled",
            bytes.len()
        );
    }
    for payload in Parser::new(0).parse_all(bytes) {
        // A malformed component is reported by the compiler, with its own message.
        let Ok(payload) = payload else { return Ok(()) };
        match payload {
            Payload::MemorySection(memories) => {
                for memory in memories.into_iter().flatten() {
                    refuse_memory(memory.memory64, memory.shared, label)?;
                }
            }
            Payload::ImportSection(imports) => {
                for import in imports.into_imports().flatten() {
                    if let TypeRef::Memory(memory) = import.ty {
                        refuse_memory(memory.memory64, memory.shared, label)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn refuse_memory(memory64: bool, shared: bool, label: &str) -> Result<()> {
    if memory64 {
        bail!(
            "{label} declares a 64-bit memory; the host does not enable the memory64 feature (build for wasm32)"
        );
    }
    if shared {
        bail!(
            "{label} declares a shared memory; the host does not enable the threads feature (build without atomics or shared memory)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    fn module(text: &str) -> Vec<u8> {
        wat::parse_str(text).unwrap()
    }

    #[test]
    fn sixty_four_bit_and_shared_memories_are_refused_by_name() {
        let err = check(&module("(module (memory i64 1))"), "m").unwrap_err();
        assert!(err.to_string().contains("memory64"), "{err}");
        let err = check(&module("(module (memory 1 1 shared))"), "m").unwrap_err();
        assert!(err.to_string().contains("threads"), "{err}");
        let err = check(&module("(module (import \"a\" \"m\" (memory i64 1)))"), "m").unwrap_err();
        assert!(err.to_string().contains("memory64"), "{err}");
        assert!(check(&module("(module (memory 1 2))"), "m").is_ok());
    }

    #[test]
    fn a_component_over_the_size_cap_is_refused_before_parsing() {
        let big = vec![0u8; crate::limits::MAX_COMPONENT_BYTES + 1];
        let err = check(&big, "package `x` 1.0.0").unwrap_err().to_string();
        assert!(
            err.contains("package `x` 1.0.0") && err.contains("cap"),
            "{err}"
        );
    }
}
