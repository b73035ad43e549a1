//! Integration tests: one binary, one module per feature. Most spawn the real `limina`
//! binary and speak MCP over its stdio.

mod agent_skills;
mod audio_skills;
mod dice;
mod hooks;
mod hot_reload;
mod pkg_cli;
mod scene;
mod social_skills;
mod stdio;
mod support;
mod ui_skills;
