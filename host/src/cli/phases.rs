//! How long each step of start-up took, said on stderr at `--log-level debug`, so a slow start
//! names its step without a profiler.

use std::time::Instant;

/// Steps of start-up and when each ended.
pub struct Phases {
    last: Instant,
    done: Vec<(&'static str, f64)>,
}

impl Phases {
    pub fn start() -> Phases {
        Phases {
            last: Instant::now(),
            done: Vec::new(),
        }
    }

    /// The step `name` ended now.
    pub fn end(&mut self, name: &'static str) {
        let now = Instant::now();
        let ms = now.duration_since(self.last).as_secs_f64() * 1000.0;
        self.done.push((name, ms));
        self.last = now;
    }

    /// Logs the steps, e.g. `start-up 7.9 ms: sandbox 1.2, trace 3.0, …`.
    pub fn log(&self) {
        let total: f64 = self.done.iter().map(|(_, ms)| ms).sum();
        let steps: Vec<String> = self
            .done
            .iter()
            .map(|(name, ms)| format!("{name} {ms:.1}"))
            .collect();
        limina::log::debug(&format!("start-up {total:.1} ms: {}", steps.join(", ")));
    }
}
