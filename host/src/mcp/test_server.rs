//! A dispatcher over the built-in skills alone (no packages), a manual clock and an in-memory
//! trace, for the protocol layer's unit tests.

use super::{Clock, Server, ServerConfig};
use crate::realm::{Realm, Rng};
use crate::registry::Registry;
use crate::sandbox::{CompileCache, Sandbox};
use crate::world::{World, WorldSettings};

/// Sessions that name no profile get `builder.readWrite`.
pub(crate) fn server() -> Server {
    let realm = Realm {
        world: World::new(WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: crate::trace::Tracer::new(64),
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
