//! The sandbox-escape suite (`cargo test --test sandbox_escape`): hostile guests, each doing
//! one bad thing, built from `tests/guests`. Every test also checks that the host answers the
//! next call normally.

#[path = "../all/support.rs"]
mod support;

#[path = "../all/local_http.rs"]
mod local_http;

mod admission;
mod boundaries;
mod files;
mod identity;
mod leftovers;
mod limits;
mod outbound;
mod paths;
mod read_only;
mod state;
mod wat_cases;
mod wat_guest;
// Only a few of its helpers are used here.
#[allow(dead_code)]
#[path = "../all/ws_client.rs"]
mod ws_client;
