//! The binary's commands: serving, and tools that work on files.

pub mod serve;
pub mod trace;
