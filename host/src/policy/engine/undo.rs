//! Taking a call's policy effects back. A call whose record cannot be written is refused after
//! it ran: its session's budget, quota hit and tally go back to what they were before it was
//! decided, so a refused call costs nothing.

use super::{PolicyEngine, SessionState, Tally};

/// The policy state a call may change, as it was before the call.
pub struct PolicyMark {
    session_id: String,
    skill: String,
    state: Option<SessionState>,
    tally: Option<Tally>,
    quota_hits: u64,
}

impl PolicyEngine {
    /// What `session_id`'s call of `skill` may change, to [restore](PolicyEngine::restore).
    pub fn mark(&self, session_id: &str, skill: &str) -> PolicyMark {
        PolicyMark {
            session_id: session_id.to_string(),
            skill: skill.to_string(),
            state: self.sessions.get(session_id).cloned(),
            tally: self
                .tallies
                .get(session_id)
                .and_then(|t| t.get(skill))
                .copied(),
            quota_hits: self.quotas.hits(),
        }
    }

    /// Puts the session's budget, tally and quota back as `mark` saw them. Whether the session
    /// was admitted meanwhile (or released) is kept as it is now.
    pub fn restore(&mut self, mark: PolicyMark) {
        let admitted = self.sessions.get(&mark.session_id).map(|s| s.admitted);
        match mark.state {
            Some(mut state) => {
                state.admitted = admitted.unwrap_or(state.admitted);
                self.sessions.insert(mark.session_id.clone(), state);
            }
            None if admitted != Some(true) => {
                self.sessions.remove(&mark.session_id);
            }
            None => {}
        }
        if let Some(per_cap) = self.tallies.get_mut(&mark.session_id) {
            match mark.tally {
                Some(tally) => {
                    per_cap.insert(mark.skill, tally);
                }
                None => {
                    per_cap.remove(&mark.skill);
                }
            }
        }
        self.quotas.unhit_since(mark.quota_hits);
    }
}
