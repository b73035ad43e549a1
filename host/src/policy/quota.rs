//! Sliding-window quotas: at most `limit` calls in any `window_ms`, per session or global.

use super::glob;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// A quota rule from the configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaRule {
    /// Skill name or glob; `None` applies to every skill.
    pub cap: Option<String>,
    /// Counted per session (true) or across all sessions.
    pub per_session: bool,
    pub limit: u32,
    pub window_ms: u64,
}

impl QuotaRule {
    fn applies_to(&self, skill: &str) -> bool {
        self.cap.as_deref().is_none_or(|p| glob::matches(p, skill))
    }

    fn key(&self, index: usize, session_id: &str) -> String {
        let scope = if self.per_session { session_id } else { "*" };
        format!(
            "quota[{index}]:{}:{scope}",
            self.cap.as_deref().unwrap_or("*")
        )
    }
}

/// A quota's state as reported in decisions and `audit.usage`. Fields in code-point order of
/// their JSON names: decisions write it to the trace as is, where JSON must be canonical.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaSnapshot {
    pub key: String,
    pub limit: u32,
    pub remaining: u32,
    pub used: u32,
    pub window_ms: u64,
}

/// The windows of timestamps, by quota key.
#[derive(Debug, Default)]
pub struct Quotas {
    rules: Vec<QuotaRule>,
    windows: HashMap<String, VecDeque<u64>>,
    /// Calls counted so far, and the quota the last one was counted against: what
    /// [`Quotas::unhit_since`] takes back.
    hits: u64,
    last_hit: Option<String>,
}

impl Quotas {
    pub fn new(rules: Vec<QuotaRule>) -> Self {
        Quotas {
            rules,
            windows: HashMap::new(),
            hits: 0,
            last_hit: None,
        }
    }

    /// Calls counted so far (a mark for [`Quotas::unhit_since`]).
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Takes back the call counted since `mark` (a call decides once, so at most one).
    pub fn unhit_since(&mut self, mark: u64) {
        if self.hits > mark
            && let Some(key) = &self.last_hit
            && let Some(window) = self.windows.get_mut(key)
        {
            window.pop_back();
        }
        self.hits = mark;
    }

    /// The first rule matching `skill`, with its current state at `now_ms`.
    pub fn check(&mut self, skill: &str, session_id: &str, now_ms: u64) -> Option<QuotaSnapshot> {
        let (index, rule) = self
            .rules
            .iter()
            .enumerate()
            .find(|(_, r)| r.applies_to(skill))?;
        let key = rule.key(index, session_id);
        let window = self.windows.entry(key.clone()).or_default();
        while window
            .front()
            .is_some_and(|t| now_ms.saturating_sub(*t) >= rule.window_ms)
        {
            window.pop_front();
        }
        let used = window.len() as u32;
        Some(QuotaSnapshot {
            key,
            limit: rule.limit,
            window_ms: rule.window_ms,
            used,
            remaining: rule.limit.saturating_sub(used),
        })
    }

    /// Counts one allowed call against the quota `snapshot` came from.
    pub fn hit(&mut self, snapshot: &mut QuotaSnapshot, now_ms: u64) {
        self.windows
            .entry(snapshot.key.clone())
            .or_default()
            .push_back(now_ms);
        self.hits += 1;
        if self.last_hit.as_deref() != Some(snapshot.key.as_str()) {
            self.last_hit = Some(snapshot.key.clone());
        }
        snapshot.used += 1;
        snapshot.remaining = snapshot.remaining.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denies_inside_the_window_and_allows_after_it() {
        let mut q = Quotas::new(vec![QuotaRule {
            cap: Some("scene.*".into()),
            per_session: true,
            limit: 2,
            window_ms: 1000,
        }]);
        for t in [0, 10] {
            let mut s = q.check("scene.createEntity", "s1", t).unwrap();
            assert!(s.remaining > 0);
            q.hit(&mut s, t);
        }
        assert_eq!(
            q.check("scene.createEntity", "s1", 500).unwrap().remaining,
            0
        );
        assert_eq!(
            q.check("scene.createEntity", "s2", 500).unwrap().remaining,
            2,
            "per session"
        );
        assert_eq!(
            q.check("scene.createEntity", "s1", 1000).unwrap().remaining,
            1
        );
        assert_eq!(
            q.check("scene.createEntity", "s1", 1010).unwrap().remaining,
            2
        );
        assert!(q.check("physics.raycast", "s1", 0).is_none());
    }
}
