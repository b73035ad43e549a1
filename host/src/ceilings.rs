//! The host's ceilings on package limits. A manifest's `[limits]` is a request, not a right: the
//! configuration's `[limits]` caps what any package may ask for (a manifest asking for more is
//! refused at load, naming the key and the ceiling), and a call that runs on the engine — one
//! that can touch the world, and so holds every client and the physics tick while it runs —
//! gets a short deadline of the host's, so slow work has to live in packages that run off the
//! engine. `[limits] instances` sizes the sandbox's pool: how many calls may run guest code at
//! once; `[limits] workerScheduling` picks the scheduling class of the threads that run calls
//! off the engine.

use crate::limits::{
    CEILING_FUEL_PER_CALL, CEILING_TIMEOUT_MS, ENGINE_CALL_MS, INSTANCES, MAX_INSTANCES,
    MAX_PACKAGE_MEMORY_BYTES, PackageLimits,
};
use serde::Deserialize;

/// The ceilings (`[limits]` in the configuration).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceilings {
    /// Most fuel a package may ask for per call.
    pub fuel_per_call: u64,
    /// Most linear memory a package may ask for.
    pub memory_bytes: u64,
    /// Longest wall-clock budget a package may ask for per call (off the engine).
    pub timeout_ms: u64,
    /// Deadline of a call that runs on the engine, whatever its package asks for.
    pub engine_call_ms: u64,
    /// Guest instances that may exist at once: calls running guest code (`sandbox/pool.rs`).
    pub instances: u32,
    /// The scheduling class of the worker threads that run calls off the engine.
    pub worker_scheduling: WorkerScheduling,
}

/// How the worker threads running calls off the engine share the cores (`[limits]
/// workerScheduling`). The trade-off: idle-class workers never hold up the engine, the
/// transports or anything else on the machine, so a picture being drawn does not delay other
/// clients; but on a machine kept busy by other work they run only on what is left, and a
/// starved call is cut at `RUNNING_CAP_FACTOR` times its deadline (`call/interrupt.rs`). Normal-class workers take
/// their fair share of the cores whatever else runs, and so compete with the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorkerScheduling {
    /// `SCHED_IDLE`: run on whatever core nothing else wants (the default).
    #[default]
    Idle,
    /// `SCHED_OTHER` at the host's own nice level: a fair share, like the engine's.
    Normal,
}

impl WorkerScheduling {
    /// The values `[limits] workerScheduling` accepts.
    pub const NAMES: [&str; 2] = ["idle", "normal"];

    /// The name the configuration gives this class.
    pub fn name(self) -> &'static str {
        match self {
            WorkerScheduling::Idle => "idle",
            WorkerScheduling::Normal => "normal",
        }
    }

    /// The class named `name`; the error names the key and the values allowed.
    pub fn parse(name: &str) -> Result<WorkerScheduling, String> {
        match name {
            "idle" => Ok(WorkerScheduling::Idle),
            "normal" => Ok(WorkerScheduling::Normal),
            other => Err(format!(
                "`limits.workerScheduling` must be \"idle\" or \"normal\", got {other:?}"
            )),
        }
    }
}

impl Default for Ceilings {
    fn default() -> Self {
        Ceilings {
            fuel_per_call: CEILING_FUEL_PER_CALL,
            memory_bytes: MAX_PACKAGE_MEMORY_BYTES,
            timeout_ms: CEILING_TIMEOUT_MS,
            engine_call_ms: ENGINE_CALL_MS,
            instances: INSTANCES,
            worker_scheduling: WorkerScheduling::Idle,
        }
    }
}

/// `[limits]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawCeilings {
    fuel_per_call: Option<i64>,
    memory_bytes: Option<i64>,
    timeout_ms: Option<i64>,
    engine_call_ms: Option<i64>,
    instances: Option<i64>,
    worker_scheduling: Option<String>,
}

impl Ceilings {
    /// `[limits]`, each value checked; the error names its key.
    pub fn parse(raw: RawCeilings) -> Result<Ceilings, String> {
        let d = Ceilings::default();
        if let Some(n) = raw.instances.filter(|&n| n > MAX_INSTANCES as i64) {
            return Err(format!(
                "`limits.instances` must be ≤ {MAX_INSTANCES} (each reserves 8 GiB of address space), got {n}"
            ));
        }
        let positive = |v: Option<i64>, key: &str, default: u64| match v {
            None => Ok(default),
            Some(v) if v > 0 => Ok(v as u64),
            Some(v) => Err(format!("`limits.{key}` must be > 0, got {v}")),
        };
        let c = Ceilings {
            fuel_per_call: positive(raw.fuel_per_call, "fuelPerCall", d.fuel_per_call)?,
            memory_bytes: positive(raw.memory_bytes, "memoryBytes", d.memory_bytes)?,
            timeout_ms: positive(raw.timeout_ms, "timeoutMs", d.timeout_ms)?,
            engine_call_ms: positive(raw.engine_call_ms, "engineCallMs", d.engine_call_ms)?,
            instances: positive(raw.instances, "instances", d.instances as u64)? as u32,
            worker_scheduling: match raw.worker_scheduling.as_deref() {
                None => d.worker_scheduling,
                Some(name) => WorkerScheduling::parse(name)?,
            },
        };
        if c.memory_bytes > MAX_PACKAGE_MEMORY_BYTES {
            return Err(format!(
                "`limits.memoryBytes` must be ≤ {MAX_PACKAGE_MEMORY_BYTES} (the sandbox's slot size), got {}",
                c.memory_bytes
            ));
        }
        Ok(c)
    }

    /// Refuses `limits` (of package `package`, from its manifest or `[packages.<name>]`) when
    /// one asks for more than its ceiling, naming the key and the ceiling.
    pub fn check(&self, package: &str, limits: &PackageLimits) -> Result<(), String> {
        let over = [
            (
                "fuel_per_call",
                limits.fuel_per_call,
                self.fuel_per_call,
                "fuelPerCall",
            ),
            (
                "memory_bytes",
                limits.memory_bytes,
                self.memory_bytes,
                "memoryBytes",
            ),
            (
                "timeout_ms",
                limits.timeout_ms,
                self.timeout_ms,
                "timeoutMs",
            ),
        ]
        .into_iter()
        .find(|(_, asked, ceiling, _)| asked > ceiling);
        match over {
            None => Ok(()),
            Some((key, asked, ceiling, config_key)) => Err(format!(
                "package `{package}` asks for `limits.{key}` = {asked}, over the host's ceiling \
                 of {ceiling}; lower it in its limina.toml, or raise `[limits] {config_key}` in \
                 the host's configuration"
            )),
        }
    }

    /// The deadline of a call on the engine for a package whose own timeout is `timeout_ms`.
    pub fn engine_deadline(&self, timeout_ms: u64) -> u64 {
        timeout_ms.min(self.engine_call_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawCeilings {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_limit_over_its_ceiling_is_refused_naming_the_key_and_the_ceiling() {
        let c = Ceilings::default();
        let mut asked = PackageLimits::default();
        assert_eq!(c.check("p", &asked), Ok(()));
        asked.timeout_ms = 100_000;
        let e = c.check("sleepy", &asked).unwrap_err();
        assert!(e.contains("package `sleepy`"), "{e}");
        assert!(e.contains("`limits.timeout_ms` = 100000"), "{e}");
        assert!(
            e.contains(&format!("ceiling of {CEILING_TIMEOUT_MS}")),
            "{e}"
        );
        assert!(e.contains("`[limits] timeoutMs`"), "{e}");
        asked.timeout_ms = 10;
        asked.fuel_per_call = CEILING_FUEL_PER_CALL + 1;
        let e = c.check("p", &asked).unwrap_err();
        assert!(e.contains("`limits.fuel_per_call`"), "{e}");
    }

    #[test]
    fn ceilings_parse_and_bad_values_name_their_key() {
        let c = Ceilings::parse(raw("timeoutMs = 500\nengineCallMs = 4\n")).unwrap();
        assert_eq!((c.timeout_ms, c.engine_call_ms), (500, 4));
        assert_eq!(c.engine_deadline(2_000), 4);
        assert_eq!(c.engine_deadline(3), 3);
        let e = Ceilings::parse(raw("engineCallMs = 0\n")).unwrap_err();
        assert!(e.contains("`limits.engineCallMs` must be > 0"), "{e}");
        let e = Ceilings::parse(raw("memoryBytes = 1000000000000\n")).unwrap_err();
        assert!(e.contains("`limits.memoryBytes` must be ≤"), "{e}");
        assert_eq!(
            Ceilings::parse(raw("instances = 8\n")).unwrap().instances,
            8
        );
        let e = Ceilings::parse(raw("instances = 0\n")).unwrap_err();
        assert!(e.contains("`limits.instances` must be > 0"), "{e}");
        let e = Ceilings::parse(raw("instances = 100000\n")).unwrap_err();
        assert!(e.contains("`limits.instances` must be ≤ 8192"), "{e}");
    }

    #[test]
    fn the_worker_scheduling_class_parses_and_a_bad_one_names_the_key_and_the_values() {
        assert_eq!(
            Ceilings::default().worker_scheduling,
            WorkerScheduling::Idle
        );
        for (name, class) in WorkerScheduling::NAMES
            .into_iter()
            .zip([WorkerScheduling::Idle, WorkerScheduling::Normal])
        {
            let c = Ceilings::parse(raw(&format!("workerScheduling = \"{name}\"\n"))).unwrap();
            assert_eq!(c.worker_scheduling, class);
        }
        let e = Ceilings::parse(raw("workerScheduling = \"realtime\"\n")).unwrap_err();
        assert_eq!(
            e,
            "`limits.workerScheduling` must be \"idle\" or \"normal\", got \"realtime\""
        );
    }
}
