//! Who may do what: permissions, profiles and the decisions made from them. Pure: no I/O, no
//! JSON-RPC, no wasm.

mod permissions;
mod profiles;

pub use permissions::{Permission, Permissions};
pub use profiles::{DEFAULT_PROFILE, Profile, Profiles};
