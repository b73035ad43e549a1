//! A registry with core packages loaded in this process, for reading world state the wire
//! does not show (rotations, scales, materials, lighting). The skills still run as real
//! wasm guests through the whole pipeline.

use crate::support::{admitted_builder, in_process_registry};
use limina::registry::{Caller, Registry, Response};
use limina::world::World;
use serde_json::Value;

/// A registry holding the named core packages, and a builder caller admitted to it.
pub struct Host {
    pub registry: Registry,
    pub caller: Caller,
}

impl Host {
    pub fn with(packages: &[&str]) -> Host {
        let mut registry = in_process_registry(packages);
        let caller = admitted_builder(&mut registry);
        Host { registry, caller }
    }

    /// Calls a skill as the builder.
    pub fn call(&mut self, name: &str, input: Value) -> Response {
        self.registry.invoke(&self.caller, name, input)
    }

    /// Calls a skill that must succeed; returns its output.
    pub fn call_ok(&mut self, name: &str, input: Value) -> Value {
        let response = self.call(name, input);
        assert!(response.success, "{name} failed: {:?}", response.error);
        response.result.unwrap()
    }

    pub fn world(&self) -> &World {
        &self.registry.realm().world
    }
}
