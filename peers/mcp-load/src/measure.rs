//! The two loads a server gets: calls one at a time (latency and rate) and calls written all at
//! once by another thread while this one reads the replies (rate).

use std::io::Write;
use std::time::{Duration, Instant};

use crate::peer::Peer;

/// What one fresh process of one server measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub startup_ms: f64,
    pub sequential_per_s: f64,
    pub p50_us: f64,
    pub p95_us: f64,
    pub p99_us: f64,
    pub pipelined_per_s: f64,
    pub peak_rss_kib: u64,
}

/// A `tools/call` request with `id` and the given `params` (JSON text).
fn call(id: usize, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

/// `count` calls, each sent after the previous reply: (calls/s, p50, p95, p99 in µs).
pub fn sequential(
    peer: &mut Peer,
    label: &str,
    params: &str,
    first_id: usize,
    count: usize,
) -> Result<(f64, f64, f64, f64), String> {
    let lines: Vec<String> = (0..count).map(|i| call(first_id + i, params)).collect();
    let mut times = Vec::with_capacity(count);
    let start = Instant::now();
    for (i, line) in lines.iter().enumerate() {
        let t = Instant::now();
        peer.send(line)?;
        let id = peer.recv(label)?;
        times.push(t.elapsed());
        if id != (first_id + i) as u64 {
            return Err(format!(
                "{label}: call {} was answered with id {id}",
                first_id + i
            ));
        }
    }
    let rate = count as f64 / start.elapsed().as_secs_f64();
    times.sort();
    Ok((
        rate,
        percentile_us(&times, 0.50),
        percentile_us(&times, 0.95),
        percentile_us(&times, 0.99),
    ))
}

/// `count` calls written at once from another thread; every id must come back exactly once, in
/// any order. Returns calls/s.
pub fn pipelined(
    peer: &mut Peer,
    label: &str,
    params: &str,
    first_id: usize,
    count: usize,
) -> Result<f64, String> {
    let payload: String = (0..count)
        .map(|i| call(first_id + i, params) + "\n")
        .collect();
    let mut stdin = peer.take_stdin();
    let start = Instant::now();
    let writer = std::thread::spawn(move || {
        let written = stdin
            .write_all(payload.as_bytes())
            .and_then(|()| stdin.flush());
        (stdin, written)
    });
    let mut seen = vec![false; count];
    let mut failure = None;
    for _ in 0..count {
        match peer.recv(label) {
            Ok(id) => {
                let slot = (id as usize)
                    .checked_sub(first_id)
                    .filter(|slot| *slot < count);
                match slot {
                    Some(slot) if !seen[slot] => seen[slot] = true,
                    _ => {
                        failure = Some(format!("{label}: unexpected or repeated reply id {id}"));
                        break;
                    }
                }
            }
            Err(err) => {
                failure = Some(err);
                break;
            }
        }
    }
    let elapsed = start.elapsed();
    let (stdin, written) = writer.join().expect("the writer thread does not panic");
    peer.restore(stdin);
    if let Some(failure) = failure {
        return Err(failure);
    }
    written.map_err(|err| format!("{label}: writing the pipelined calls: {err}"))?;
    Ok(count as f64 / elapsed.as_secs_f64())
}

/// The `p` quantile of sorted durations, in microseconds.
pub fn percentile_us(sorted: &[Duration], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e6
}

/// The median of some numbers (the upper one of an even count).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_medians_pick_the_right_elements() {
        let sorted: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile_us(&sorted, 0.5).round(), 51.0);
        assert_eq!(percentile_us(&sorted, 0.99).round(), 99.0);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    }
}
