//! Integration tests: one binary, one module per feature. Most spawn the real `limina`
//! binary and speak MCP over its stdio.

mod agent_skills;
mod audio_skills;
mod catalog;
mod core_in_process;
mod dice;
mod discovery;
mod ecs_skills;
mod example_packages;
mod grants;
mod guest_errors;
mod hooks;
mod hot_reload;
mod http;
mod http_client;
mod languages;
mod latency_tiers;
mod local_http;
mod otlp;
mod otlp_collector;
mod outbound;
mod physics_skills;
mod pkg_cli;
mod privileged_skills;
mod python_package;
mod scene;
mod sdk_clients;
mod social_skills;
mod stdio;
mod support;
mod three_skills;
mod trace_store;
mod ui_skills;
mod ws;
mod ws_client;
