//! The wasm sandbox: one wasmtime engine (pooling allocator, fuel, epoch deadlines), an
//! on-disk cache of compiled components, the host imports guests may call (ours, and WASI
//! preview 2 granting nothing), and an instance made for each call under a memory limiter
//! (`pool.rs`).

pub mod bindings;
mod cache;
mod described;
mod engine;
mod exports;
mod imports;
mod instance;
mod launch;
mod limiter;
mod outside;
mod pool;
mod precheck;
mod resident;
mod wasi;
mod wasi_env;
mod wasi_files;
mod wasi_sleep;
mod world_use;

pub use cache::{CompileCache, content_hash};
pub use engine::Sandbox;
pub use exports::{Completing, Offered, PromptDecl, PromptLine, ReadContents, ResourceDecl};
pub use instance::{
    CallFailure, CallInfo, CallOutcome, CompiledPackage, GuestInstance, GuestOutput, NotStarted,
};
pub use launch::Launch;
pub use limiter::MemoryLimiter;
pub use pool::{PoolFull, PoolSettings, Seat};
pub use world_use::WorldUse;
