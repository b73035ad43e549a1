//! The `approve` rule: calls a person must allow before they run. Configured as `[[approve]]`
//! entries (a skill glob, optionally the profiles it holds for, the question and how long to
//! wait); decided between the tool allow-list and the quota (see the README's policy order).
//! Asking is the transport's business (elicitation or an `input_required` result); this
//! module only says which calls need an answer and what an answer decides.

use super::{Profiles, glob};
use crate::limits::{APPROVAL_TIMEOUT_MS, MAX_APPROVAL_TIMEOUT_MS};
use serde::Deserialize;
use serde_json::Value;
use std::ops::Range;
use toml::Spanned;

/// One `[[approve]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ApproveRule {
    /// Glob over skill names (`scene.clear*`).
    pub skill: String,
    /// The profiles whose calls it holds; `None`: every profile.
    pub profiles: Option<Vec<String>>,
    /// The question put to the person; a default names the skill and its input.
    pub message: Option<String>,
    /// How long to wait for an answer before refusing (`approval.unavailable`).
    pub timeout_ms: u64,
}

impl ApproveRule {
    /// Whether it holds calls of `skill` made under `profile`.
    pub fn covers(&self, profile: &str, skill: &str) -> bool {
        glob::matches(&self.skill, skill)
            && self
                .profiles
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == profile))
    }
}

/// What a person (or the lack of one) said about a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    pub outcome: Outcome,
    /// Who answered and how: `{agentId, sessionId, via, action}` (null fields when nobody did).
    pub answered_by: Value,
    /// What to tell the caller beside the rule (the answer, the deadline, why nobody could ask).
    pub detail: String,
}

/// The three ways an approval ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The person allowed the call.
    Accepted,
    /// The person said no (or dismissed the question).
    Declined,
    /// Nobody could be asked, or nobody answered in time.
    Unavailable,
}

/// The first rule holding `skill` for `profile`.
pub fn rule_for<'a>(
    rules: &'a [ApproveRule],
    profile: &str,
    skill: &str,
) -> Option<&'a ApproveRule> {
    rules.iter().find(|r| r.covers(profile, skill))
}

/// The policy verdict an approval gives a call the rule holds: `Ok` to go on to the quota,
/// else the rule and reason of the refusal.
pub fn judge(skill: &str, approval: Option<&Approval>) -> Result<(), (&'static str, String)> {
    match approval {
        Some(Approval {
            outcome: Outcome::Accepted,
            ..
        }) => Ok(()),
        Some(Approval {
            outcome: Outcome::Declined,
            detail,
            ..
        }) => Err((
            "approval.declined",
            format!("`{skill}` needs a person's approval and it was declined: {detail}"),
        )),
        Some(Approval { detail, .. }) => Err((
            "approval.unavailable",
            format!("`{skill}` needs a person's approval and none was given: {detail}"),
        )),
        None => Err((
            "approval.unavailable",
            format!(
                "`{skill}` needs a person's approval, which this request cannot ask for; call it with tools/call from a client that declares the `elicitation` capability"
            ),
        )),
    }
}

/// `[[approve]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawApprove {
    skill: String,
    profiles: Option<Vec<String>>,
    message: Option<String>,
    timeout_ms: Option<i64>,
}

/// Checks the `[[approve]]` entries against the known profiles; the error names the entry's
/// span and the field.
pub fn parse(
    raw: Vec<Spanned<RawApprove>>,
    profiles: &Profiles,
) -> Result<Vec<ApproveRule>, (Range<usize>, String)> {
    let mut rules = Vec::new();
    for spanned in raw {
        let span = spanned.span();
        let r = spanned.into_inner();
        let fail = |m: String| Err((span.clone(), format!("[[approve]] `{}`: {m}", r.skill)));
        if r.skill.trim().is_empty() {
            return Err((
                span,
                "[[approve]]: `skill` must name a skill or a glob such as \"scene.clear*\"".into(),
            ));
        }
        if let Some(names) = &r.profiles {
            for name in names {
                if let Err(e) = profiles.get(name) {
                    return fail(format!("`profiles`: {e}"));
                }
            }
        }
        let timeout_ms = match r.timeout_ms {
            None => APPROVAL_TIMEOUT_MS,
            Some(ms) if ms > 0 && ms as u64 <= MAX_APPROVAL_TIMEOUT_MS => ms as u64,
            Some(ms) => {
                return fail(format!(
                    "`timeoutMs` must be > 0 and ≤ {MAX_APPROVAL_TIMEOUT_MS}, got {ms}"
                ));
            }
        };
        rules.push(ApproveRule {
            skill: r.skill,
            profiles: r.profiles,
            message: r.message,
            timeout_ms,
        });
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Result<Vec<ApproveRule>, String> {
        #[derive(Deserialize)]
        struct File {
            approve: Vec<Spanned<RawApprove>>,
        }
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        parse(file.approve, &Profiles::default()).map_err(|(_, m)| m)
    }

    #[test]
    fn a_rule_holds_its_glob_under_its_profiles_only() {
        let parsed = rules(
            "[[approve]]\nskill = \"scene.clear*\"\nprofiles = [\"builder.readWrite\"]\n\n[[approve]]\nskill = \"trace.export\"\ntimeoutMs = 5000\n",
        )
        .unwrap();
        assert_eq!(parsed[0].timeout_ms, APPROVAL_TIMEOUT_MS);
        assert_eq!(parsed[1].timeout_ms, 5000);
        assert!(rule_for(&parsed, "builder.readWrite", "scene.clearAll").is_some());
        assert!(rule_for(&parsed, "player.limited", "scene.clearAll").is_none());
        assert!(rule_for(&parsed, "player.limited", "trace.export").is_some());
        assert!(rule_for(&parsed, "builder.readWrite", "scene.createEntity").is_none());
    }

    #[test]
    fn bad_entries_name_the_field_and_the_fix() {
        let e = rules("[[approve]]\nskill = \"x.*\"\nprofiles = [\"admin\"]\n").unwrap_err();
        assert!(
            e.contains("`profiles`") && e.contains("unknown profile `admin`"),
            "{e}"
        );
        let e = rules("[[approve]]\nskill = \"x.*\"\ntimeoutMs = 0\n").unwrap_err();
        assert!(e.contains("`timeoutMs` must be > 0"), "{e}");
        let e = rules("[[approve]]\nskill = \" \"\n").unwrap_err();
        assert!(e.contains("`skill` must name a skill"), "{e}");
        let e = rules("[[approve]]\nskill = \"x.*\"\nwho = 1\n").unwrap_err();
        assert!(e.contains("who"), "{e}");
    }

    #[test]
    fn only_an_accepted_answer_lets_a_held_call_on() {
        let answer = |outcome| Approval {
            outcome,
            answered_by: Value::Null,
            detail: "because".into(),
        };
        assert!(judge("a.b", Some(&answer(Outcome::Accepted))).is_ok());
        let (rule, reason) = judge("a.b", Some(&answer(Outcome::Declined))).unwrap_err();
        assert_eq!(rule, "approval.declined");
        assert!(
            reason.contains("`a.b`") && reason.contains("because"),
            "{reason}"
        );
        let (rule, _) = judge("a.b", Some(&answer(Outcome::Unavailable))).unwrap_err();
        assert_eq!(rule, "approval.unavailable");
        let (rule, reason) = judge("a.b", None).unwrap_err();
        assert_eq!(rule, "approval.unavailable");
        assert!(reason.contains("elicitation"), "{reason}");
    }
}
