//! A package's compiled component, and live instances of it that run calls.

use super::bindings::{CallContext, PackageDescription, SkillError};
use super::exports::{Exports, Loaded};
use super::limiter::{MemoryLimiter, Refused};
use super::pool::{Seat, Seats};
use super::wasi::GuestWasi;
use super::wasi_files::FileGuard;
use crate::call::{Cancel, Clock, Cut, Interrupt, ProgressSink};
use crate::files::FileAccess;
use crate::limits::PackageLimits;
use crate::policy::Permissions;
use crate::realm::Realm;
use crate::trace::NewEvent;
use anyhow::{Context, Result, anyhow};
use std::sync::Arc;
use wasmtime::component::{Component, InstancePre, Linker};
use wasmtime::{Store, StoreContextMut, Trap, UpdateDeadline};

/// What a store carries: the limiter, whose package it is, the WASI state of a guest that
/// uses WASI, and — only during a call — the realm on loan plus the call's identity and grants.
pub struct GuestState {
    pub(super) limiter: MemoryLimiter,
    pub(super) package: Arc<str>,
    pub(super) call: Option<ActiveCall>,
    /// Made on the guest's first WASI call; Rust guests never make one.
    pub(super) wasi: Option<Box<GuestWasi>>,
    /// The package's volumes as this instance may reach them, and what it wrote.
    pub(super) files: FileGuard,
    /// The deadline and cancellation of what runs now (a call, or start-up and describe).
    pub(super) interrupt: Interrupt,
    /// Outbound HTTP of the call in progress (packages with network grants).
    pub(super) net: crate::net::NetHooks,
}

/// The state of the call in progress.
pub(super) struct ActiveCall {
    pub realm: Box<Realm>,
    pub info: CallInfo,
    /// Trace events the guest's imports emitted.
    pub events: Vec<String>,
    /// Log lines the guest wrote.
    pub logs: Vec<crate::log::LogLine>,
    /// Progress reports passed on so far.
    pub progress_reports: usize,
    /// Whether a refused look at the secrets was traced already in this call.
    pub secrets_refused: bool,
    /// CPU the host spent on the guest's behalf (drawing its pictures): fuel does not count
    /// it, so it is charged beside the fuel.
    pub host_cpu: std::time::Duration,
}

impl ActiveCall {
    /// Writes an event of the call: attributed to the calling agent in its session, caused
    /// by the invocation, and kept among the events the call emitted; returns its id.
    pub fn emit(&mut self, kind: &str, payload: serde_json::Value) -> String {
        let invocation = self.info.invocation_id.as_str();
        let id = self.realm.tracer.emit(NewEvent {
            kind,
            actor_id: &self.info.agent_id,
            thread_id: &self.info.session_id,
            parent_event_id: Some(invocation),
            caused_by: vec![invocation],
            payload,
        });
        self.events.push(id.clone());
        id
    }
}

/// Who is calling, with what, and within which limits.
#[derive(Clone)]
pub struct CallInfo {
    pub skill: String,
    pub agent_id: String,
    pub session_id: String,
    pub profile: String,
    pub invocation_id: String,
    /// Session permissions ∩ package capabilities: what host imports allow.
    pub grants: Permissions,
    pub fuel: u64,
    /// Linear memory the instance may reach during this call.
    pub memory_limit_bytes: u64,
    pub timeout_ms: u64,
    /// How `timeout_ms` is counted: in the time the guest ran for a call on the engine.
    pub clock: Clock,
    pub tick: u64,
    /// Raised by the caller's transport to stop the call (`notifications/cancelled`).
    pub cancel: Cancel,
    /// Set when the caller asked for progress (`progressToken`).
    pub progress: Option<ProgressSink>,
    /// The package's state quota, when it holds a `state` grant.
    pub state_quota: Option<crate::state::Usage>,
    /// What the package may reach outside the world (`None`: it declares no grants).
    pub reach: Option<Arc<crate::net::Reach>>,
    /// The world as the camera draws it, copied when a call away from the engine was decided
    /// (`None`: the camera draws the realm's world).
    pub view: Option<Arc<crate::world::RenderSnapshot>>,
}

/// Why a call was cut short by the sandbox. The instance is discarded after any of them.
#[derive(Debug, Clone, PartialEq)]
pub enum CallFailure {
    /// The call burned its whole fuel allotment.
    OutOfFuel { fuel: u64 },
    /// The call ran past its wall-clock deadline (waiting in WASI included).
    Timeout { timeout_ms: u64 },
    /// The caller cancelled the call.
    Cancelled,
    /// The guest tried to grow memory past its limit.
    Memory { limit_bytes: usize },
    /// The guest tried to grow a table past the host's element cap.
    Table { limit_elements: usize },
    /// Any other trap (panic, unreachable, stack overflow, bad output encoding).
    Trap(String),
    /// Every instance the pool holds runs a call (`[limits] instances`).
    Full { instances: u32 },
    /// The package's instance could not be made (a component that does not fit the host).
    Start(String),
}

/// What a skill returned: its structured output (JSON text) and any content blocks (a
/// package built against 0.1.0 returns none).
#[derive(Debug, Clone, PartialEq)]
pub struct GuestOutput {
    pub structured: String,
    pub content: Vec<crate::call::Content>,
}

/// The result of one call that ran.
pub struct CallOutcome<T = GuestOutput> {
    /// The guest's own answer, or how the sandbox stopped it.
    pub result: Result<Result<T, SkillError>, CallFailure>,
    pub fuel_used: u64,
    pub peak_memory_bytes: usize,
    pub events: Vec<String>,
    pub logs: Vec<crate::log::LogLine>,
    /// Outbound requests sent and bytes moved (charged to `budget.net`), and refusals.
    pub net: crate::net::NetUsage,
    /// CPU the host's imports spent for the guest, in milliseconds (charged beside the fuel).
    pub host_cpu_ms: f64,
}

/// A compiled component with its imports resolved, ready to instantiate cheaply.
#[derive(Clone)]
pub struct CompiledPackage {
    pre: InstancePre<GuestState>,
    /// Which contract version it was built against, and where its exports are.
    exports: Arc<Exports>,
    /// Where its instances take their place in the pool.
    pub(super) seats: Arc<Seats>,
    /// Which world interfaces it imports.
    world_use: super::WorldUse,
    /// Tells this compilation's instances from an earlier version's.
    id: u64,
    /// Whether the component was read in before its first instance (`resident.rs`).
    resident: super::resident::Resident,
}

static NEXT_COMPILED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl CompiledPackage {
    pub(super) fn new(
        linker: &Linker<GuestState>,
        component: &Component,
        label: &str,
        seats: &Arc<Seats>,
    ) -> Result<Self> {
        let pre = linker
            .instantiate_pre(component)
            .map_err(|e| anyhow!("{label} imports something this host does not provide: {e}"))?;
        let exports = Exports::find(&pre).map_err(|e| {
            anyhow!("{label} does not export the limina:skill/skill interface: {e}")
        })?;
        Ok(CompiledPackage {
            pre,
            exports: Arc::new(exports),
            seats: seats.clone(),
            world_use: super::WorldUse::of(component),
            id: NEXT_COMPILED.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            resident: Default::default(),
        })
    }

    /// Which world interfaces it imports.
    pub fn world_use(&self) -> super::WorldUse {
        self.world_use
    }

    /// Whether this compilation's component has been read in (its first instance was made).
    pub fn resident(&self) -> bool {
        self.resident.done()
    }

    /// The compiled image's address range in this process (what its first instance reads in).
    pub fn image_range(&self) -> std::ops::Range<*const u8> {
        self.pre.component().image_range()
    }

    /// Whether `instance` was made from this compilation (not an earlier version's).
    pub fn same(&self, instance: &GuestInstance) -> bool {
        instance.compiled == self.id
    }

    /// A fresh instance under `limits`, with no volumes, for describing the package (and for
    /// tools and benchmarks that call it directly). A start function that runs away is
    /// stopped by fuel.
    pub fn instantiate(&self, package: &str, limits: &PackageLimits) -> Result<GuestInstance> {
        self.instantiate_mounting(package, limits, FileAccess::default())
    }

    /// [`CompiledPackage::instantiate`] with `files` mounted (a completion reading the package's
    /// volumes as its caller may).
    pub fn instantiate_mounting(
        &self,
        package: &str,
        limits: &PackageLimits,
        files: FileAccess,
    ) -> Result<GuestInstance> {
        self.resident.ensure(self.pre.component());
        let interrupt = Interrupt::new(limits.timeout_ms, Cancel::default());
        self.make(package, limits, files, interrupt, None)
            .map_err(|not| anyhow!("instantiating package `{package}` failed: {}", not.detail))
    }

    /// An instance made for the call `info` describes, mounting `files`, in `seat` (one is
    /// taken now if `None`): it starts under the call's fuel, memory limit, deadline and
    /// cancel, which its start-up spends like the call itself, and it serves that call only.
    pub fn instantiate_for(
        &self,
        package: &str,
        files: FileAccess,
        info: &CallInfo,
        seat: Option<Seat>,
    ) -> Result<GuestInstance, NotStarted> {
        // Reading the component in is the host's loading work: done before the call's clock.
        self.resident.ensure(self.pre.component());
        let interrupt = Interrupt::counted(info.timeout_ms, info.cancel.clone(), info.clock);
        let limits = PackageLimits {
            fuel_per_call: info.fuel,
            memory_bytes: info.memory_limit_bytes,
            timeout_ms: info.timeout_ms,
        };
        let mut instance = self.make(package, &limits, files, interrupt, seat)?;
        instance.primed = true;
        Ok(instance)
    }

    /// An instance in `seat` (or one taken now), under `limits` and `interrupt`.
    fn make(
        &self,
        package: &str,
        limits: &PackageLimits,
        files: FileAccess,
        interrupt: Interrupt,
        seat: Option<Seat>,
    ) -> Result<GuestInstance, NotStarted> {
        let fuel = limits.fuel_per_call;
        let seat = seat
            .map_or_else(|| self.seats.take(), Ok)
            .map_err(|full| NotStarted {
                failure: CallFailure::Full {
                    instances: full.instances,
                },
                fuel_used: 0,
                peak_memory_bytes: 0,
                detail: full.to_string(),
            })?;
        let engine = self.pre.engine();
        let mut store = Store::new(
            engine,
            GuestState {
                limiter: MemoryLimiter::new(limits.memory_bytes),
                package: package.into(),
                call: None,
                wasi: None,
                files: FileGuard::new(files),
                interrupt,
                net: Default::default(),
            },
        );
        store.limiter(|s| &mut s.limiter);
        // A store that cannot take fuel is a host bug (the engine consumes fuel).
        let _ = store.set_fuel(fuel);
        // Every epoch tick asks whether the guest must stop: its deadline, or a cancel.
        store.epoch_deadline_callback(|ctx: StoreContextMut<'_, GuestState>| {
            match ctx.data().interrupt.tick() {
                Some(cut) => Err(cut.into()),
                None => Ok(UpdateDeadline::Continue(1)),
            }
        });
        store.set_epoch_deadline(1);
        let bindings = match self
            .pre
            .instantiate(&mut store)
            .and_then(|instance| self.exports.load(&mut store, &instance))
            .map(Box::new)
        {
            Ok(bindings) => bindings,
            Err(e) => {
                let fuel_used = fuel.saturating_sub(store.get_fuel().unwrap_or(0));
                let limiter = &store.data().limiter;
                let trapped =
                    e.downcast_ref::<Trap>().is_some() || e.downcast_ref::<Cut>().is_some();
                let detail = format!("{e:#}");
                let failure = match classify(e, fuel, limits.timeout_ms, limiter) {
                    // Not the guest's doing: the component does not fit the host (its start
                    // failed to link or allocate).
                    CallFailure::Trap(m) if !trapped && limiter.refused().is_none() => {
                        CallFailure::Start(format!("instantiating package `{package}` failed: {m}"))
                    }
                    failure => failure,
                };
                return Err(NotStarted {
                    failure,
                    fuel_used,
                    peak_memory_bytes: limiter.peak_bytes(),
                    detail,
                });
            }
        };
        let instance = GuestInstance {
            store,
            bindings,
            compiled: self.id,
            primed: false,
            seat: Some(seat),
        };
        instance.drain_output(&mut Vec::new(), &[]);
        Ok(instance)
    }
}

/// Why an instance could not be made for a call, and what trying used.
#[derive(Debug)]
pub struct NotStarted {
    pub failure: CallFailure,
    pub fuel_used: u64,
    pub peak_memory_bytes: usize,
    /// The error as the engine gave it (with the guest's backtrace).
    pub detail: String,
}

impl<T> From<NotStarted> for CallOutcome<T> {
    fn from(not: NotStarted) -> Self {
        CallOutcome {
            result: Err(not.failure),
            fuel_used: not.fuel_used,
            peak_memory_bytes: not.peak_memory_bytes,
            events: Vec::new(),
            logs: Vec::new(),
            net: Default::default(),
            host_cpu_ms: 0.0,
        }
    }
}

/// A live instance of a package, made for a call (or a description); kept warm afterwards
/// only for its session's next call (`pool.rs`).
pub struct GuestInstance {
    store: Store<GuestState>,
    /// Boxed: a 0.2.0 package's three exports would make every instance move a large value.
    bindings: Box<Loaded>,
    /// The [`CompiledPackage`] it came from.
    compiled: u64,
    /// Made for the call it runs next: its fuel and deadline already count from its start-up.
    primed: bool,
    /// Its place among the instances running calls, while it runs one; a warm instance has
    /// none. Given back once the store (and its slot) is gone: declared last, dropped last.
    seat: Option<Seat>,
}

impl GuestInstance {
    /// Takes `seat` among the instances running calls, before a warm instance runs one.
    pub fn seat(&mut self, seat: Seat) {
        self.seat = Some(seat);
    }

    /// Gives its seat back as it goes warm (it runs nothing until it is seated again).
    pub fn unseat(&mut self) {
        self.seat = None;
    }

    /// Largest linear memory it has held, in bytes (what it keeps while warm, at most).
    pub fn peak_memory_bytes(&self) -> usize {
        self.store.data().limiter.peak_bytes()
    }

    /// The package's self-description (skills, schemas, hooks).
    pub fn describe(&mut self) -> Result<PackageDescription> {
        let description = self
            .bindings
            .describe(&mut self.store)
            .map_err(anyhow::Error::from)
            .context("the package's describe() failed");
        self.drain_output(&mut Vec::new(), &[]);
        description
    }

    /// What the package offers besides skills (resources, prompts), read once at load.
    pub fn offered(&mut self) -> Result<super::Offered> {
        let offered = self
            .bindings
            .offered(&mut self.store)
            .map_err(anyhow::Error::from)
            .context("listing the package's resources and prompts failed");
        self.drain_output(&mut Vec::new(), &[]);
        offered
    }

    /// Values the package completes `what` with, starting with `prefix` (no call runs: its
    /// host imports refuse).
    pub fn complete(&mut self, what: super::Completing<'_>, prefix: &str) -> Result<Vec<String>> {
        let values = self
            .bindings
            .complete(&mut self.store, what, prefix)
            .map_err(anyhow::Error::from)
            .context("the package's completion failed");
        self.drain_output(&mut Vec::new(), &[]);
        values
    }

    /// Reads one of the package's resources, as a call: the realm is lent for it.
    pub fn read_resource(
        &mut self,
        realm: Box<Realm>,
        info: CallInfo,
        uri: &str,
    ) -> (Box<Realm>, CallOutcome<Option<super::ReadContents>>) {
        self.run(realm, info, |bindings, store, ctx, _| {
            bindings.read_resource(store, uri, ctx)
        })
    }

    /// Fills in one of the package's prompts, as a call.
    pub fn get_prompt(
        &mut self,
        realm: Box<Realm>,
        info: CallInfo,
        name: &str,
        arguments: &[(String, String)],
    ) -> (Box<Realm>, CallOutcome<Vec<super::PromptLine>>) {
        self.run(realm, info, |bindings, store, ctx, _| {
            bindings.get_prompt(store, name, arguments, ctx)
        })
    }

    /// Hands what a WASI guest wrote to stdout and stderr to the host log, and to `lines`,
    /// without the secret values in `redact`.
    fn drain_output(&self, lines: &mut Vec<crate::log::LogLine>, redact: &[String]) {
        let state = self.store.data();
        if let Some(wasi) = &state.wasi {
            wasi.drain(&state.package, lines, redact);
        }
    }

    /// Runs one skill. The realm is lent to the guest for the call and always handed back.
    pub fn invoke(
        &mut self,
        realm: Box<Realm>,
        info: CallInfo,
        input: &str,
    ) -> (Box<Realm>, CallOutcome) {
        self.run(realm, info, |bindings, store, ctx, skill| {
            bindings.invoke(store, skill, input, ctx)
        })
    }

    /// Runs a hook the package declared.
    pub fn run_hook(
        &mut self,
        realm: Box<Realm>,
        info: CallInfo,
        hook: &str,
        payload: &str,
    ) -> (Box<Realm>, CallOutcome<Option<String>>) {
        self.run(realm, info, |bindings, store, ctx, skill| {
            bindings.run_hook(store, hook, skill, payload, ctx)
        })
    }

    fn run<T: super::outside::Answer>(
        &mut self,
        realm: Box<Realm>,
        info: CallInfo,
        call: impl FnOnce(
            &Loaded,
            &mut Store<GuestState>,
            &CallContext,
            &str,
        ) -> wasmtime::Result<Result<T, SkillError>>,
    ) -> (Box<Realm>, CallOutcome<T>) {
        let fuel = info.fuel;
        let timeout_ms = info.timeout_ms;
        let ctx = CallContext {
            agent_id: info.agent_id.clone(),
            session_id: info.session_id.clone(),
            profile: info.profile.clone(),
            tick: info.tick,
            invocation_id: info.invocation_id.clone(),
        };
        let skill = info.skill.clone();
        // An instance made for this call started under its fuel and deadline (its start-up is
        // the call's); one kept across calls gets them afresh.
        let interrupt = if std::mem::take(&mut self.primed) {
            self.store.data().interrupt.clone()
        } else {
            // A store that cannot take fuel is a host bug.
            let _ = self.store.set_fuel(fuel);
            let interrupt = Interrupt::counted(timeout_ms, info.cancel.clone(), info.clock);
            self.store.data_mut().interrupt = interrupt.clone();
            interrupt
        };
        self.store.data_mut().net.call = info
            .reach
            .as_ref()
            .filter(|r| !r.declared.network.is_empty())
            .map(|r| {
                crate::net::NetCall::new(
                    r.clone(),
                    info.grants.contains(crate::policy::Permission::NetOutbound),
                    interrupt,
                )
            });
        self.store.set_epoch_deadline(1);
        let limiter = &mut self.store.data_mut().limiter;
        limiter.reset_refusal();
        limiter.set_limit(info.memory_limit_bytes);
        self.store.data_mut().call = Some(ActiveCall {
            realm,
            info,
            events: Vec::new(),
            logs: Vec::new(),
            progress_reports: 0,
            secrets_refused: false,
            host_cpu: std::time::Duration::ZERO,
        });
        let mut raw = call(&self.bindings, &mut self.store, &ctx, &skill);
        // A guest woken at its deadline (or by a cancel) may return before the next epoch tick
        // stops it: a call that outlived its time is cut all the same. (The check also runs
        // the cancel watcher, so a cancel that arrived during the call is seen.)
        if raw.is_ok()
            && let Some(cut) = self.store.data().interrupt.check_running()
        {
            raw = Err(cut.into());
        }
        self.store.data_mut().record_file_writes();
        let active = self
            .store
            .data_mut()
            .call
            .take()
            .expect("the active call is only taken here");
        let mut active = active;
        let net = match self.store.data_mut().net.call.take() {
            Some(net) => {
                super::outside::close_requests(&mut active, &self.store.data().package, net)
            }
            None => Default::default(),
        };
        let mut logs = active.logs;
        let redact = active.info.reach.as_ref().map(|r| r.redact.clone());
        self.drain_output(&mut logs, redact.as_deref().map_or(&[], |v| v.as_slice()));
        let fuel_used = fuel.saturating_sub(self.store.get_fuel().unwrap_or(0));
        let limiter = &self.store.data().limiter;
        let result = raw.map_err(|e| classify(e, fuel, timeout_ms, limiter));
        let mut outcome = CallOutcome {
            result,
            fuel_used,
            peak_memory_bytes: limiter.peak_bytes(),
            events: active.events,
            logs,
            net,
            host_cpu_ms: active.host_cpu.as_secs_f64() * 1000.0,
        };
        if let Some(reach) = &active.info.reach {
            super::outside::redact_outcome(reach, &mut outcome);
        }
        (active.realm, outcome)
    }
}

fn classify(
    e: wasmtime::Error,
    fuel: u64,
    timeout_ms: u64,
    limiter: &MemoryLimiter,
) -> CallFailure {
    if let Some(cut) = e.downcast_ref::<Cut>() {
        return match cut {
            Cut::Cancelled => CallFailure::Cancelled,
            Cut::Deadline { .. } => CallFailure::Timeout { timeout_ms },
        };
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => CallFailure::OutOfFuel { fuel },
        Some(Trap::Interrupt) => CallFailure::Timeout { timeout_ms },
        _ => match limiter.refused() {
            Some(Refused::Memory) => CallFailure::Memory {
                limit_bytes: limiter.limit_bytes(),
            },
            Some(Refused::Table) => CallFailure::Table {
                limit_elements: crate::limits::MAX_TABLE_ELEMENTS,
            },
            None => CallFailure::Trap(format!("{e:#}")),
        },
    }
}
