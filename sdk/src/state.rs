//! The package's own state, as JSON values: `state::set(Scope::Agent, "mood", &mood)?` keeps
//! a value for the calling agent, `state::get::<Mood>(Scope::Agent, "mood")?` reads it back.
//! The package needs a `state` grant (`[grants] state = { keys = …, bytes = … }` in its
//! manifest). What a call writes is kept only when the call succeeds.

use crate::SkillError;
pub use crate::bindings::limina::skill::state::Scope;
use crate::bindings::limina::skill::state as raw;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The value of `key`, if set; a value that is not a `T` is a handler error naming the key.
pub fn get<T: DeserializeOwned>(scope: Scope, key: &str) -> Result<Option<T>, SkillError> {
    match raw::get(scope, key)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            SkillError::HandlerError(format!("the state value of `{key}` is not what this skill expects: {e}"))
        }),
    }
}

/// Sets `key` to `value` (as JSON); past the package's quota the skill fails with
/// `capacity_exceeded`.
pub fn set<T: Serialize + ?Sized>(scope: Scope, key: &str, value: &T) -> Result<(), SkillError> {
    let bytes = serde_json::to_vec(value)
        .map_err(|e| SkillError::HandlerError(format!("`{key}` could not be written as JSON: {e}")))?;
    Ok(raw::set(scope, key, &bytes)?)
}

/// Removes `key`; false when it was not set.
pub fn delete(scope: Scope, key: &str) -> Result<bool, SkillError> {
    Ok(raw::delete(scope, key)?)
}

/// The keys starting with `prefix` (empty: all), sorted.
pub fn keys(scope: Scope, prefix: &str) -> Result<Vec<String>, SkillError> {
    Ok(raw::keys(scope, prefix)?)
}
