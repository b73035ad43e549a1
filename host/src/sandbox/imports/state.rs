//! `limina:skill/state`: the package's own key-value state (`crate::state`), in the scope
//! of the package or of the calling agent, within the package's `state` grant.

use super::super::instance::ActiveCall;
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::instance::GuestState;
use crate::state::{StateError, Usage};

impl GuestState {
    /// The call in progress if it holds `needs` and its package a state grant, with the
    /// package's quota and the calling agent when `agent_scope`.
    fn stateful(
        &mut self,
        needs: Permission,
        agent_scope: bool,
    ) -> Result<(&mut ActiveCall, Usage, Option<String>), WorldError> {
        let call = self.active(needs)?;
        let Some(quota) = call.info.state_quota else {
            return Err(WorldError::Forbidden(
                "this package holds no `state` grant; declare `[grants] state = { keys = …, bytes = … }` in its manifest and have the host give it".into(),
            ));
        };
        let agent = agent_scope.then(|| call.info.agent_id.clone());
        Ok((call, quota, agent))
    }
}

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::state::{self, Scope};

            impl state::Host for GuestState {
                fn get(
                    &mut self,
                    scope: Scope,
                    key: String,
                ) -> Result<Option<Vec<u8>>, WorldError> {
                    let package = self.package.clone();
                    let (call, _, agent) =
                        self.stateful(Permission::StateRead, matches!(scope, Scope::Agent))?;
                    call.realm
                        .state
                        .get(&package, agent.as_deref(), &key)
                        .map_err(from_state)
                }

                fn set(
                    &mut self,
                    scope: Scope,
                    key: String,
                    value: Vec<u8>,
                ) -> Result<(), WorldError> {
                    let package = self.package.clone();
                    let (call, quota, agent) =
                        self.stateful(Permission::StateWrite, matches!(scope, Scope::Agent))?;
                    call.realm
                        .state
                        .set(&package, agent.as_deref(), &key, value, quota)
                        .map_err(from_state)
                }

                fn delete(&mut self, scope: Scope, key: String) -> Result<bool, WorldError> {
                    let package = self.package.clone();
                    let (call, _, agent) =
                        self.stateful(Permission::StateWrite, matches!(scope, Scope::Agent))?;
                    call.realm
                        .state
                        .delete(&package, agent.as_deref(), &key)
                        .map_err(from_state)
                }

                fn keys(
                    &mut self,
                    scope: Scope,
                    prefix: String,
                ) -> Result<Vec<String>, WorldError> {
                    let package = self.package.clone();
                    let (call, _, agent) =
                        self.stateful(Permission::StateRead, matches!(scope, Scope::Agent))?;
                    call.realm
                        .state
                        .keys(&package, agent.as_deref(), &prefix)
                        .map_err(from_state)
                }
            }

            pub(super) fn from_state(e: StateError) -> WorldError {
                match e {
                    StateError::Invalid(m) => WorldError::Invalid(m),
                    StateError::Quota(m) => WorldError::Capacity(m),
                    StateError::Unavailable(m) => WorldError::Capacity(m),
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
