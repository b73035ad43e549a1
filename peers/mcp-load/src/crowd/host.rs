//! What the host (and this client) spent over the measured window, read from `/proc`: CPU
//! time from `stat` at both ends, resident memory sampled every 100 ms for its peak, and the
//! kernel's own high-water mark (`VmHWM`, over the host's whole life, seeding included).

use std::time::Duration;

/// Clock ticks per second of `/proc/*/stat` times (USER_HZ, 100 on Linux).
const TICKS_PER_S: f64 = 100.0;

/// The host's figures.
pub struct HostUsage {
    pub cpu_s: f64,
    pub peak_rss_kib: u64,
    pub hwm_kib: u64,
}

/// Both processes' figures over the window.
pub struct Usage {
    pub window: Duration,
    pub host: Option<HostUsage>,
    pub client_cpu_s: f64,
}

/// CPU seconds (user + system) of a process, `self` for this one.
fn cpu_s(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command (which may hold spaces) start at state; utime and stime are
    // the 14th and 15th fields of the line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / TICKS_PER_S)
}

/// A `VmRSS:`-style line of `/proc/<pid>/status`, in KiB.
fn status_kib(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Samples the host's resident memory until finished.
pub struct Sampler {
    pid: Option<u32>,
    peak: Option<tokio::task::JoinHandle<u64>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// CPU readings at the window's start.
pub struct Mark {
    host: Option<f64>,
    client: f64,
}

impl Sampler {
    pub fn start(pid: Option<u32>) -> Sampler {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let peak = pid.map(|pid| {
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut peak = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    peak = peak.max(status_kib(pid, "VmRSS:").unwrap_or(0));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                peak
            })
        });
        Sampler { pid, peak, stop }
    }

    pub fn mark(&self) -> Mark {
        Mark {
            host: self.pid.and_then(|p| cpu_s(&p.to_string())),
            client: cpu_s("self").unwrap_or(0.0),
        }
    }

    pub async fn finish(self, mark: Mark, window: Duration) -> Usage {
        let host_cpu = self.pid.and_then(|p| cpu_s(&p.to_string()));
        let client_cpu_s = cpu_s("self").unwrap_or(0.0) - mark.client;
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let peak = match self.peak {
            Some(task) => task.await.unwrap_or(0),
            None => 0,
        };
        let host = match (self.pid, mark.host, host_cpu) {
            (Some(pid), Some(before), Some(after)) => Some(HostUsage {
                cpu_s: after - before,
                peak_rss_kib: peak,
                hwm_kib: status_kib(pid, "VmHWM:").unwrap_or(0),
            }),
            _ => None,
        };
        Usage {
            window,
            host,
            client_cpu_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_cpu_time_and_memory() {
        let spent = cpu_s("self").unwrap();
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_millis(30) {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        assert!(cpu_s("self").unwrap() >= spent, "{x}");
        assert!(status_kib(std::process::id(), "VmRSS:").unwrap() > 0);
    }
}
