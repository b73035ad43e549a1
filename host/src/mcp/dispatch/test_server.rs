//! A dispatcher over the built-in skills (no packages yet) and a manual clock, for the
//! protocol layer's unit tests.

use super::server::{Server, ServerConfig};
use crate::mcp::engine::clock::Clock;
use crate::realm::{Realm, Rng};
use crate::registry::Registry;
use crate::sandbox::{CompileCache, Sandbox};
use crate::trace::Tracer;
use crate::world::{World, WorldSettings};

/// With an in-memory trace; sessions that name no profile get `builder.readWrite`.
pub(crate) fn server() -> Server {
    server_over(Tracer::new(64))
}

/// [`server`] recording into `tracer`.
pub(crate) fn server_over(tracer: Tracer) -> Server {
    let realm = Realm {
        world: World::new(WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer,
        rng: Rng::seeded(1),
        state: crate::state::StateStore::in_memory(),
    };
    let sandbox = Sandbox::new(CompileCache::new(None)).unwrap();
    let registry = Registry::new(sandbox, crate::policy::PolicyConfig::default(), realm);
    Server::new(
        registry,
        ServerConfig {
            default_profile: "builder.readWrite".into(),
            clock: Clock::Manual,
        },
    )
}
