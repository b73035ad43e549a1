//! Results of packages and upstream servers scanned for credential shapes before anyone sees
//! them (`crate::grants::credentials`, `[outbound] scanResults`): right after the handler,
//! before after-hooks and the output check, on the engine and for detached calls alike.
//! Each credential found is traced as `security.secret.redacted {where, kind, skill, action}`
//! (never the value); `redact` replaces it, `refuse` fails the call (`forbidden`, its world
//! changes undone), `off` looks at nothing. Error messages are redacted in both modes.
//! The texts a package returns besides its output are scanned the same way: its content
//! blocks, the pages it serves as resources and the messages of its prompts.

use super::{Caller, Handler, Registry};
use crate::call::{ErrorCode, Failure};
use crate::grants::credentials::{self, ScanResults};
use crate::trace::NewEvent;
use serde_json::{Value, json};

impl Registry {
    /// What a credential found in a result does (`[outbound] scanResults`).
    pub fn set_scan_results(&mut self, scan: ScanResults) {
        self.scan_results = scan;
    }

    /// Whether `name`'s results are scanned: a package's or an upstream server's skill.
    fn scans(&self, name: &str) -> bool {
        self.scan_results != ScanResults::Off
            && self
                .skills
                .get(name)
                .is_some_and(|s| matches!(s.handler, Handler::Guest(_) | Handler::Upstream(_)))
    }

    /// Scans `output` (`raw`, its text when there is one, settles most results in one pass).
    pub(super) fn scan_output(
        &mut self,
        caller: &Caller,
        name: &str,
        raw: Option<&str>,
        output: &mut Value,
        events: &mut Vec<String>,
    ) -> Result<(), Failure> {
        if !self.scans(name) || raw.is_some_and(|raw| !credentials::may_hold_json(raw)) {
            return Ok(());
        }
        let refuse = self.scan_results == ScanResults::Refuse;
        let kinds = if refuse {
            credentials::find_in_value(output)
        } else {
            credentials::redact_value(output)
        };
        self.settle_found(caller, name, "result", kinds, events, |named| {
            format!(
                "`{name}` returned what looks like a credential ({named}); `[outbound] scanResults = \"refuse\"` keeps the whole result from the caller"
            )
        })
    }

    /// Scans the texts of the content blocks `name` returned beside its output.
    pub(super) fn scan_content(
        &mut self,
        caller: &Caller,
        name: &str,
        content: &mut [crate::call::Content],
        events: &mut Vec<String>,
    ) -> Result<(), Failure> {
        if !self.scans(name) {
            return Ok(());
        }
        let texts = content
            .iter_mut()
            .flat_map(crate::call::Content::texts_mut)
            .collect();
        self.scan_texts(caller, name, "content", texts, events)
    }

    /// Scans `texts`, which `name` returned besides its output (`place`: `content`, a
    /// `resource` page, a `prompt`'s messages): redacted in place, or refused naming the kinds.
    pub(super) fn scan_texts(
        &mut self,
        caller: &Caller,
        name: &str,
        place: &str,
        texts: Vec<&mut String>,
        events: &mut Vec<String>,
    ) -> Result<(), Failure> {
        if self.scan_results == ScanResults::Off {
            return Ok(());
        }
        let refuse = self.scan_results == ScanResults::Refuse;
        let mut kinds = Vec::new();
        for text in texts.into_iter().filter(|t| credentials::may_hold(t)) {
            if refuse {
                kinds.extend(credentials::find(text).into_iter().map(|f| f.kind));
            } else if let Some((clean, found)) = credentials::redact(text) {
                *text = clean;
                kinds.extend(found);
            }
        }
        self.settle_found(caller, name, place, kinds, events, |named| {
            format!(
                "`{name}` returned what looks like a credential in its {place} ({named}); `[outbound] scanResults = \"refuse\"` keeps it from the caller"
            )
        })
    }

    /// [`Registry::scan_texts`] for what a crossing serves (a package's page, a prompt's
    /// messages): its findings are kept for the crossing's outcome event, which they cause.
    pub(super) fn scan_crossing(
        &mut self,
        caller: &Caller,
        name: &str,
        place: &str,
        texts: Vec<&mut String>,
    ) -> Result<(), Failure> {
        let mut found = Vec::new();
        let scanned = self.scan_texts(caller, name, place, texts, &mut found);
        self.crossing_found.extend(found);
        scanned
    }

    /// Traces each credential found in `place` of what `name` returned (already redacted,
    /// unless the scan refuses), and with `refuse` fails with `refused(the kinds named)`.
    fn settle_found(
        &mut self,
        caller: &Caller,
        name: &str,
        place: &str,
        mut kinds: Vec<&'static str>,
        events: &mut Vec<String>,
        refused: impl FnOnce(&str) -> String,
    ) -> Result<(), Failure> {
        if kinds.is_empty() {
            return Ok(());
        }
        let refuse = self.scan_results == ScanResults::Refuse;
        let action = if refuse { "refused" } else { "redacted" };
        self.trace_found(caller, name, place, &kinds, action, events);
        if !refuse {
            return Ok(());
        }
        kinds.dedup();
        Err(Failure::new(
            ErrorCode::Forbidden,
            refused(&kinds.join(", ")),
        ))
    }

    /// `result` with any credential in its error message replaced.
    pub(super) fn scan_failure<T>(
        &mut self,
        caller: &Caller,
        name: &str,
        result: Result<T, Failure>,
        events: &mut Vec<String>,
    ) -> Result<T, Failure> {
        let Err(mut failure) = result else {
            return result;
        };
        if self.scans(name)
            && credentials::may_hold(&failure.message)
            && let Some((clean, kinds)) = credentials::redact(&failure.message)
        {
            failure.message = clean;
            self.trace_found(caller, name, "error", &kinds, "redacted", events);
        }
        Err(failure)
    }

    fn trace_found(
        &mut self,
        caller: &Caller,
        name: &str,
        place: &str,
        kinds: &[&'static str],
        action: &str,
        events: &mut Vec<String>,
    ) {
        let Some(realm) = self.realm.as_mut() else {
            return;
        };
        for kind in kinds {
            events.push(realm.tracer.emit(NewEvent {
                kind: "security.secret.redacted",
                actor_id: caller.agent_id.as_str(),
                thread_id: caller.session_id.as_str(),
                parent_event_id: None,
                caused_by: vec![],
                payload: json!({"where": place, "kind": kind, "skill": name, "action": action}),
            }));
        }
    }
}
