//! The binary's commands: serving, and tools that work on files and packages.

pub mod calibrate;
pub mod extras;
pub mod join;
pub mod phases;
pub mod pkg;
pub mod precompile;
pub mod serve;
pub mod status;
pub mod trace;
pub mod upstream;
pub mod version;
pub mod world;
