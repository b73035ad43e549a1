//! `limina:skill/state`: the package's own key-value state (`crate::state`), in the scope
//! of the package or of the calling agent, within the package's `state` grant.

use super::super::instance::ActiveCall;
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::state::{self, Scope};
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::instance::GuestState;
use crate::state::{StateError, Usage};

impl GuestState {
    /// The call in progress if it holds `needs` and its package a state grant, with the
    /// package's quota and the agent whose scope `scope` names.
    fn stateful(
        &mut self,
        needs: Permission,
        scope: Scope,
    ) -> Result<(&mut ActiveCall, Usage, Option<String>), WorldError> {
        let call = self.active(needs)?;
        let Some(quota) = call.info.state_quota else {
            return Err(WorldError::Forbidden(
                "this package holds no `state` grant; declare `[grants] state = { keys = …, bytes = … }` in its manifest and have the host give it".into(),
            ));
        };
        let agent = match scope {
            Scope::Shared => None,
            Scope::Agent => Some(call.info.agent_id.clone()),
        };
        Ok((call, quota, agent))
    }
}

impl state::Host for GuestState {
    fn get(&mut self, scope: Scope, key: String) -> Result<Option<Vec<u8>>, WorldError> {
        let package = self.package.clone();
        let (call, _, agent) = self.stateful(Permission::StateRead, scope)?;
        call.realm
            .state
            .get(&package, agent.as_deref(), &key)
            .map_err(from_state)
    }

    fn set(&mut self, scope: Scope, key: String, value: Vec<u8>) -> Result<(), WorldError> {
        let package = self.package.clone();
        let (call, quota, agent) = self.stateful(Permission::StateWrite, scope)?;
        call.realm
            .state
            .set(&package, agent.as_deref(), &key, value, quota)
            .map_err(from_state)
    }

    fn delete(&mut self, scope: Scope, key: String) -> Result<bool, WorldError> {
        let package = self.package.clone();
        let (call, _, agent) = self.stateful(Permission::StateWrite, scope)?;
        call.realm
            .state
            .delete(&package, agent.as_deref(), &key)
            .map_err(from_state)
    }

    fn keys(&mut self, scope: Scope, prefix: String) -> Result<Vec<String>, WorldError> {
        let package = self.package.clone();
        let (call, _, agent) = self.stateful(Permission::StateRead, scope)?;
        call.realm
            .state
            .keys(&package, agent.as_deref(), &prefix)
            .map_err(from_state)
    }
}

fn from_state(e: StateError) -> WorldError {
    match e {
        StateError::Invalid(m) => WorldError::Invalid(m),
        StateError::Quota(m) => WorldError::Capacity(m),
        StateError::Unavailable(m) => WorldError::Capacity(m),
    }
}
