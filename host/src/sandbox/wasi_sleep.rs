//! Sleeping in WASI without outliving the call. `wasi:clocks/monotonic-clock`'s
//! `subscribe-duration` and `subscribe-instant` are replaced by ones whose pollable wakes at
//! the requested time, at the call's deadline, or when the call is cancelled — whichever
//! comes first. A guest in `time.sleep(30)` with a 1 s limit is woken at 1 s; the epoch check
//! then cuts it as soon as it runs wasm again. Everything else a guest could block on is
//! granted nothing (no files, sockets or stdin), so clocks are the one wait to bound.

use super::instance::GuestState;
use crate::call::Interrupt;
use crate::limits::EPOCH_TICK_MS;
use anyhow::Result;
use std::time::{Duration, Instant};
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::p2::{DynPollable, Pollable, subscribe};
use wasmtime_wasi::{HostMonotonicClock, WasiView};

/// The WASI clocks interface version wasmtime-wasi links; guests importing older 0.2.x
/// versions resolve to it.
const MONOTONIC_CLOCK: &str = "wasi:clocks/monotonic-clock@0.2.12";

/// The guest's monotonic clock: nanoseconds since its WASI context was made, so an instant
/// the guest names can be turned back into a host `Instant`.
#[derive(Clone, Copy)]
pub(super) struct GuestClock {
    pub base: Instant,
}

impl HostMonotonicClock for GuestClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}

/// Replaces the two subscribe functions wasmtime-wasi linked.
pub(super) fn shadow_clock_subscriptions(linker: &mut Linker<GuestState>) -> Result<()> {
    linker.allow_shadowing(true);
    let mut clock = linker.instance(MONOTONIC_CLOCK)?;
    clock.func_wrap(
        "subscribe-duration",
        |mut store: StoreContextMut<'_, GuestState>, (nanos,): (u64,)| {
            let until = Instant::now().checked_add(Duration::from_nanos(nanos));
            Ok((sleep(&mut store, until)?,))
        },
    )?;
    clock.func_wrap(
        "subscribe-instant",
        |mut store: StoreContextMut<'_, GuestState>, (when,): (u64,)| {
            let base = store.data_mut().guest_clock().base;
            let until = base.checked_add(Duration::from_nanos(when));
            Ok((sleep(&mut store, until)?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// A pollable for `until` (`None`: too far to represent, so only the call's end wakes it).
fn sleep(
    store: &mut StoreContextMut<'_, GuestState>,
    until: Option<Instant>,
) -> wasmtime::Result<Resource<DynPollable>> {
    let interrupt = store.data().interrupt.clone();
    let table = store.data_mut().ctx().table;
    let resource = table.push(CallSleep { until, interrupt })?;
    subscribe(table, resource)
}

/// Ready at `until`, or once the call must stop.
struct CallSleep {
    until: Option<Instant>,
    interrupt: Interrupt,
}

#[wasmtime_wasi::async_trait]
impl Pollable for CallSleep {
    async fn ready(&mut self) {
        loop {
            let now = Instant::now();
            if self.until.is_some_and(|u| now >= u) || self.interrupt.check().is_some() {
                return;
            }
            // Wake at the requested time or the deadline, looking for a cancel every tick.
            let mut wake = self.interrupt.deadline().max(now);
            if let Some(until) = self.until {
                wake = wake.min(until);
            }
            let step = (wake - now).min(Duration::from_millis(EPOCH_TICK_MS));
            tokio::time::sleep(step.max(Duration::from_micros(100))).await;
        }
    }
}
