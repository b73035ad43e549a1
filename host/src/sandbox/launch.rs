//! A call's instance: its session's warm instance of the package if one is left, else one made
//! where the call runs (the engine thread, or the worker that runs a call off the engine) from
//! the package as it was when the call was decided (`pool.rs` says why).

use super::instance::{CallInfo, CallOutcome, CompiledPackage, GuestInstance};
use super::pool::Seat;
use crate::files::FileAccess;
use crate::realm::Realm;
use std::sync::Arc;

/// What a call needs to get its instance: the compiled package (a hot reload meanwhile does
/// not change it, so a call decided before finishes on the old version), the volumes a new
/// instance mounts, the seat in the pool taken for it, and the instance once it has one.
/// Every instance outside the registry's warm set holds a seat.
pub struct Launch {
    compiled: CompiledPackage,
    package: Arc<str>,
    files: FileAccess,
    seat: Option<Seat>,
    /// The warm instance it runs in, or, after a call that did not trap, the instance that
    /// ran it.
    instance: Option<GuestInstance>,
}

impl Launch {
    /// Calls of `package`, compiled as `compiled`, mounting `files`, in `seat` (taken when
    /// the call was decided; `None`: taken when it runs).
    pub fn new(
        compiled: CompiledPackage,
        package: &str,
        files: FileAccess,
        seat: Option<Seat>,
    ) -> Self {
        Launch {
            compiled,
            package: package.into(),
            files,
            seat,
            instance: None,
        }
    }

    /// Runs the call in `warm`, an instance its session's earlier call of the package left,
    /// seating it now; gives it back when no seat is free (it stays warm, and the call makes
    /// do as if none was left).
    pub fn warm(&mut self, mut warm: GuestInstance) -> Result<(), GuestInstance> {
        match self
            .seat
            .take()
            .map_or_else(|| self.compiled.seats.take(), Ok)
        {
            Ok(seat) => {
                warm.seat(seat);
                self.instance = Some(warm);
                Ok(())
            }
            Err(_) => Err(warm),
        }
    }

    /// Runs `f` in the call's instance, made now unless a warm one was given. An instance
    /// that cannot be made (no seat free, a component that does not fit, a start that ran
    /// out of fuel) is the call's failure, with what trying used; the realm comes back
    /// untouched. An instance a trap or a limit stopped may be inconsistent: it is dropped.
    pub fn run<T>(
        &mut self,
        realm: Box<Realm>,
        info: CallInfo,
        f: impl FnOnce(&mut GuestInstance, Box<Realm>, CallInfo) -> (Box<Realm>, CallOutcome<T>),
    ) -> (Box<Realm>, CallOutcome<T>) {
        let mut instance = match self.instance.take() {
            Some(warm) => warm,
            None => match self.compiled.instantiate_for(
                &self.package,
                self.files.clone(),
                &info,
                self.seat.take(),
            ) {
                Ok(made) => made,
                Err(not) => return (realm, CallOutcome::from(not)),
            },
        };
        let (realm, outcome) = f(&mut instance, realm, info);
        if outcome.result.is_ok() {
            self.instance = Some(instance);
        }
        (realm, outcome)
    }

    /// The instance that ran the call, when it may serve its session's next call (it did
    /// not trap, and it is of the package as compiled when the call was decided).
    pub fn kept(&mut self) -> Option<GuestInstance> {
        self.instance.take()
    }
}
