//! A call is answered only once what it recorded is written. Before a call the trace is asked
//! whether it can record (an outage ends only when a retry finds writing works); after it, the
//! call's events are written and only then are its world transaction and its state changes
//! kept (`crate::state`). When the write fails the call is undone — world rolled back, state,
//! budget, quota and tally as before, its events never chained — and refused with
//! `capacity_exceeded`, saying why and what to do. While the trace
//! cannot be written, the built-ins that only read (listings, history queries) still answer,
//! recording nothing and charging nothing; everything else is refused before it runs. A call
//! that changed nothing may instead leave its events for its transport's batch write
//! (`deferral.rs`), answered and, on a failure, refused then.

use super::builtins::Builtin;
use super::{Caller, Handler, Registry, Response};
use crate::call::{ErrorCode, Failure};
use crate::policy::PolicyMark;
use serde_json::Value;
use std::time::Instant;

/// How a call is recorded, decided before it runs.
pub(super) struct Recording {
    /// The policy state before the call, put back when it cannot be recorded.
    mark: PolicyMark,
    /// False: the trace cannot be written and the call only reads; it records nothing.
    recorded: bool,
    /// Its events may wait for the batch's write if it changes nothing (`deferral.rs`).
    deferrable: bool,
}

impl Registry {
    /// Before `caller`'s call of `name`: how it is recorded, or its refusal when the trace
    /// cannot be written and the call would change something.
    pub(super) fn open_record(
        &mut self,
        caller: &Caller,
        name: &str,
    ) -> Result<Recording, Failure> {
        let mark = self.policy.mark(&caller.session_id, name);
        // Asked after the trace was asked whether it records (an outage may just have ended).
        let accepting = self.realm_mut().tracer.accepting();
        let deferrable = self.may_defer(name);
        match accepting {
            Ok(()) => Ok(Recording {
                mark,
                recorded: true,
                deferrable,
            }),
            Err(_) if self.only_reads(name) => Ok(Recording {
                mark,
                recorded: false,
                deferrable: false,
            }),
            Err(cause) => Err(refusal(&cause)),
        }
    }

    /// After the call ran (its world transaction still open when it succeeded): writes what
    /// it recorded, then keeps or undoes it, and gives the response.
    pub(super) fn close_record(
        &mut self,
        recording: Recording,
        result: Result<Value, Failure>,
        started: Instant,
        events: Vec<String>,
    ) -> Response {
        let realm = self.realm_mut();
        // A call that changed nothing to undo may leave its events for the batch's write.
        let deferred = recording.deferrable
            && realm.tracer.records_to_disk()
            && !realm.world.changed_in_call()
            && !realm.state.has_pending();
        let written = if deferred {
            Ok(())
        } else {
            realm.tracer.commit()
        };
        let kept = recording.recorded && written.is_ok();
        // The state the call wrote is kept only now that its events are written: a call the
        // trace could not record leaves its state as it was.
        let saved = self.realm_mut().state.end_call(kept);
        let world = &mut self.realm_mut().world;
        if result.is_ok() {
            // A read that could not be recorded changed nothing to undo.
            if kept || !recording.recorded {
                world.commit();
            } else {
                world.rollback();
            }
        }
        self.settle_journal(written.is_ok());
        if kept {
            // Recorded, but its state could not be saved (the store refused the write): the
            // world stays as the trace and its journal say, the reply says what was lost.
            let result = match saved {
                Ok(()) => result,
                Err(e) => {
                    crate::log::error(&e);
                    Err(Failure::new(
                        ErrorCode::HandlerError,
                        format!("{e}; the call is in the trace and its world changes were kept"),
                    ))
                }
            };
            if deferred {
                self.defer(recording.mark);
            } else {
                self.settle_deferred();
            }
            return Response::of(result, started, events);
        }
        if let Err(e) = saved {
            crate::log::error(&e);
        }
        // Its own policy effects go back first, then those of deferred calls its failed write
        // dropped (older than it).
        self.policy.restore(recording.mark);
        self.settle_deferred();
        match written {
            // A read while the trace cannot be written: answered, recorded nowhere, free.
            _ if !recording.recorded => Response::of(result, started, Vec::new()),
            Err(cause) => Response::of(Err(refusal(&cause)), started, Vec::new()),
            Ok(()) => unreachable!("a recorded call that was written is kept"),
        }
    }

    /// Writes what a call decided on the engine recorded before it leaves for a worker; on a
    /// failure its policy effects are undone and the refusal returned.
    pub(super) fn record_detaching(&mut self, mark: PolicyMark) -> Result<(), Failure> {
        let written = self.realm_mut().tracer.commit().map_err(|cause| {
            self.policy.restore(mark);
            refusal(&cause)
        });
        self.settle_deferred();
        written
    }

    /// Whether the trace can record now (an outage retried when due).
    pub(super) fn trace_accepting(&mut self) -> bool {
        self.realm_mut().tracer.accepting().is_ok()
    }

    /// A built-in that changes nothing: it may answer while the trace cannot be written.
    fn only_reads(&self, name: &str) -> bool {
        matches!(
            self.skills.get(name).map(|s| s.handler),
            Some(Handler::Builtin(builtin)) if builtin.only_reads()
        )
    }
}

/// The refusal of a call the trace could not record.
pub(super) fn refusal(cause: &str) -> Failure {
    Failure::new(
        ErrorCode::CapacityExceeded,
        format!(
            "{cause}. The call was refused and changed nothing; send it again once the trace can be written"
        ),
    )
}

impl Builtin {
    /// Listings and history reads: they change nothing, so they may answer unrecorded.
    pub(crate) fn only_reads(self) -> bool {
        matches!(
            self,
            Builtin::SkillsList
                | Builtin::SkillsDescribe
                | Builtin::SkillsSearch
                | Builtin::AuditExplain
                | Builtin::AuditQuery
                | Builtin::AuditUsage
                | Builtin::TraceTail
                | Builtin::TraceExplainEvent
                | Builtin::PackageList
                | Builtin::InspectorSnapshot
                | Builtin::WorldHash
                | Builtin::WorldExport
        )
    }
}
