//! `mcp-load crowd`: a crowd of agents in one running host, each its own session with its own
//! body — N over WebSocket (sessions that initialize) and N over stateless 2026-07-28 HTTP
//! (each its own bearer token, so its own identity) — calling at a steady rate each in a fixed
//! mix (moves, queries, perceptions, a memory written, a third-party skill). Prints throughput,
//! p50/p95/p99 per kind of call, failures by their text, and, given the host's pid, its peak
//! resident memory and CPU per call read from `/proc`.
//!
//! `--smoke` checks every reply's content and fails on any failure, with no timing judged.
//! Runs on one thread: the client shares the machine with the host it measures, and its own
//! CPU is printed beside the host's.

mod agent;
mod channel;
mod host;
mod tally;

use agent::{Agent, Orders};
use channel::{Channel, Http, Ws};
use std::time::Duration;
use tally::Tally;
use tokio::time::Instant;

const USAGE: &str = "\
usage: mcp-load crowd [--ws-url ws://HOST:PORT --ws N --ws-token T]
                      [--http-url http://HOST:PORT/mcp --http N --http-token-prefix P]
                      [--rate HZ] [--seconds S] [--side METRES] [--host-pid PID]
                      [--label TEXT] [--smoke]
  WebSocket agent i is `crowd-w<i>` (showing --ws-token); HTTP agent i shows the token
  <P><i>, which the host's [[network.tokens]] must map to an agent with scene, ecs, three,
  agent, memory and dice skills.";

/// The crowd, from the flags.
pub struct Plan {
    ws_url: Option<String>,
    ws_token: Option<String>,
    ws: usize,
    http_url: Option<String>,
    http_token_prefix: String,
    http: usize,
    rate: f64,
    seconds: f64,
    side: f64,
    host_pid: Option<u32>,
    label: String,
    smoke: bool,
}

fn plan(args: &[String]) -> Result<Plan, String> {
    let mut plan = Plan {
        ws_url: None,
        ws_token: None,
        ws: 0,
        http_url: None,
        http_token_prefix: "crowd-token-".into(),
        http: 0,
        rate: 2.0,
        seconds: 20.0,
        side: 100.0,
        host_pid: None,
        label: "host".into(),
        smoke: false,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let number = |text: String| -> Result<f64, String> {
            match text.parse::<f64>() {
                Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
                _ => Err(format!("{flag} must be a number > 0, got `{text}`")),
            }
        };
        match flag.as_str() {
            "--ws-url" => plan.ws_url = Some(value()?),
            "--ws-token" => plan.ws_token = Some(value()?),
            "--ws" => plan.ws = number(value()?)? as usize,
            "--http-url" => plan.http_url = Some(value()?),
            "--http-token-prefix" => plan.http_token_prefix = value()?,
            "--http" => plan.http = number(value()?)? as usize,
            "--rate" => plan.rate = number(value()?)?,
            "--seconds" => plan.seconds = number(value()?)?,
            "--side" => plan.side = number(value()?)?,
            "--host-pid" => plan.host_pid = Some(number(value()?)? as u32),
            "--label" => plan.label = value()?,
            "--smoke" => plan.smoke = true,
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if plan.ws > 0 && plan.ws_url.is_none() || plan.http > 0 && plan.http_url.is_none() {
        return Err(format!("agents need the URL of their transport\n{USAGE}"));
    }
    if plan.ws + plan.http == 0 {
        return Err(format!("no agents: give --ws N or --http N\n{USAGE}"));
    }
    Ok(plan)
}

/// Agents connecting at once while the crowd gathers (the host caps connections that have not
/// initialized yet).
const ARRIVING_AT_ONCE: usize = 32;

/// Runs the crowd of `args`; fails when any call failed in a smoke run.
pub fn run(args: &[String]) -> Result<(), String> {
    let plan = plan(args)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the client's runtime: {e}"))?;
    let mut tally = runtime.block_on(crowd(&plan))?;
    report(&plan, &mut tally.0, &tally.1);
    if plan.smoke && tally.0.failures() > 0 {
        return Err(format!(
            "{} call(s) failed in the smoke run",
            tally.0.failures()
        ));
    }
    if plan.smoke && tally.0.ok() == 0 {
        return Err("the smoke run answered no call".into());
    }
    Ok(())
}

async fn crowd(plan: &Plan) -> Result<(Tally, host::Usage), String> {
    let mut tally = Tally::default();
    // Gather: every agent connects and places its body before anyone is timed.
    let mut agents = Vec::new();
    let mut arriving = tokio::task::JoinSet::new();
    let total = plan.ws + plan.http;
    for i in 0..total {
        if arriving.len() >= ARRIVING_AT_ONCE
            && let Some(done) = arriving.join_next().await
        {
            settle(done, &mut agents, &mut tally);
        }
        let (ws_url, ws_token) = (plan.ws_url.clone(), plan.ws_token.clone());
        let http_url = plan.http_url.clone();
        let over_ws = i < plan.ws;
        let j = i.saturating_sub(plan.ws);
        let token = format!("{}{j}", plan.http_token_prefix);
        let side = plan.side;
        arriving.spawn(async move {
            let (id, channel) = if over_ws {
                let id = format!("crowd-w{i}");
                let ws =
                    Ws::open(ws_url.as_deref().unwrap_or(""), ws_token.as_deref(), &id).await?;
                (id, Channel::Ws(Box::new(ws)))
            } else {
                let id = format!("crowd-h{j}");
                (
                    id,
                    Channel::Http(Http::new(http_url.as_deref().unwrap_or(""), &token)?),
                )
            };
            Agent::arrive(id, i as u64 + 1, channel, side).await
        });
    }
    while let Some(done) = arriving.join_next().await {
        settle(done, &mut agents, &mut tally);
    }
    // Live: all at once, each at its rate, then the host's figures over the window.
    let start = Instant::now() + Duration::from_millis(200);
    let orders = Orders {
        rate: plan.rate,
        start,
        stop: start + Duration::from_secs_f64(plan.seconds),
        strict: plan.smoke,
    };
    let sampler = host::Sampler::start(plan.host_pid);
    let mut living = tokio::task::JoinSet::new();
    for agent in agents {
        let orders = orders.clone();
        living.spawn(async move {
            let mut own = Tally::default();
            agent.live(&orders, &mut own).await;
            own
        });
    }
    tokio::time::sleep_until(start).await;
    let mark = sampler.mark();
    while let Some(done) = living.join_next().await {
        tally.merge(done.map_err(|e| format!("an agent's task failed: {e}"))?);
    }
    let usage = sampler.finish(mark, start.elapsed()).await;
    Ok((tally, usage))
}

fn settle(
    done: Result<Result<Agent, String>, tokio::task::JoinError>,
    agents: &mut Vec<Agent>,
    tally: &mut Tally,
) {
    match done {
        Ok(Ok(agent)) => agents.push(agent),
        Ok(Err(why)) => tally.setup_failed(&why),
        Err(e) => tally.setup_failed(&format!("an agent's task failed: {e}")),
    }
}

fn report(plan: &Plan, tally: &mut Tally, usage: &host::Usage) {
    let offered = (plan.ws + plan.http) as f64 * plan.rate;
    let done = tally.ok();
    println!(
        "crowd [{}]: {} WebSocket + {} HTTP agents at {} Hz each for {} s ({offered:.0} calls/s offered)",
        plan.label, plan.ws, plan.http, plan.rate, plan.seconds
    );
    println!(
        "  answered {done} calls ({:.0}/s over {:.1} s), {} failed",
        done as f64 / usage.window.as_secs_f64(),
        usage.window.as_secs_f64(),
        tally.failures()
    );
    if !plan.smoke {
        println!(
            "  {:<34} {:>7} {:>7} {:>9} {:>9} {:>9}",
            "kind", "calls", "failed", "p50 ms", "p95 ms", "p99 ms"
        );
        for (kind, calls, failed, p50, p95, p99) in tally.rows() {
            println!(
                "  {:<34} {calls:>7} {failed:>7} {p50:>9.2} {p95:>9.2} {p99:>9.2}",
                kind.label()
            );
        }
        let calls = (done + tally.failures()).max(1) as f64;
        if let Some(host) = &usage.host {
            println!(
                "  host: peak RSS {:.1} MB during the run ({:.1} MB over its life), CPU {:.3} ms per call ({:.0}% of one core)",
                host.peak_rss_kib as f64 / 1024.0,
                host.hwm_kib as f64 / 1024.0,
                host.cpu_s * 1e3 / calls,
                host.cpu_s * 100.0 / usage.window.as_secs_f64()
            );
        }
        println!(
            "  client: CPU {:.3} ms per call ({:.0}% of one core)",
            usage.client_cpu_s * 1e3 / calls,
            usage.client_cpu_s * 100.0 / usage.window.as_secs_f64()
        );
    }
    for (n, why) in tally.failure_lines().into_iter().take(12) {
        println!("  failed {n:>7}× {why}");
    }
}
