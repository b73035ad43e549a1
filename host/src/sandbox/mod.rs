//! The wasm sandbox: one wasmtime engine (pooling allocator, fuel, epoch deadlines), an
//! on-disk cache of compiled components, the host imports guests may call (ours, and WASI
//! preview 2 granting nothing), and instances that run one call at a time under a memory
//! limiter.

pub mod bindings;
mod cache;
mod described;
mod engine;
mod imports;
mod instance;
mod limiter;
mod outside;
mod precheck;
mod wasi;
mod wasi_env;
mod wasi_files;
mod wasi_sleep;

pub use cache::{CompileCache, content_hash};
pub use engine::Sandbox;
pub use instance::{CallFailure, CallInfo, CallOutcome, CompiledPackage, GuestInstance};
pub use limiter::MemoryLimiter;
