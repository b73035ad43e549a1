//! `mcp-load`: the load client behind `cargo xtask bench stdio`.
//!
//! It starts MCP servers over stdio, each round a fresh process of each, in an order that turns
//! every round, and measures each the same way: spawn → first `tools/list` answer, sequential
//! calls (one in flight), pipelined calls (all written at once), and peak resident memory. It
//! prints the medians over rounds and the ratios to the bare `rmcp` server measured in the same
//! run. The servers are: `rmcp-echo` (the baseline), a do-nothing responder (this program
//! with `--respond`, for context) and `limina --mcp-stdio` calling `scene.queryEntities`.
//!
//! `--smoke` runs one short round and checks every reply, with no timing judged: what CI runs.
//!
//! `mcp-load crowd …` is the other client: a crowd of agents over WebSocket and HTTP in one
//! running host (`crowd/`, behind `cargo xtask bench crowd`).

mod crowd;
mod measure;
mod peer;
mod responder;

use std::path::PathBuf;
use std::process::ExitCode;

use measure::{Sample, median};
use peer::{Kind, Peer};

const USAGE: &str = "\
usage: mcp-load --limina PATH --rmcp PATH [--rounds N] [--sequential N] [--pipelined N] [--smoke]
       mcp-load --respond     (serve stdin as the do-nothing responder)
       mcp-load crowd …       (a crowd of agents in a running host; `mcp-load crowd --help`)";

/// How much load, from the flags.
struct Plan {
    limina: PathBuf,
    rmcp: PathBuf,
    rounds: usize,
    sequential: usize,
    pipelined: usize,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--respond") {
        return match responder::serve() {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("mcp-load --respond: {err}");
                ExitCode::FAILURE
            }
        };
    }
    let result = match args.split_first() {
        Some((first, rest)) if first == "crowd" => crowd::run(rest),
        _ => plan(&args).and_then(|plan| run(&plan)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("mcp-load: {err}");
            ExitCode::FAILURE
        }
    }
}

fn plan(args: &[String]) -> Result<Plan, String> {
    let mut limina = None;
    let mut rmcp = None;
    let (mut rounds, mut sequential, mut pipelined) = (5, 2_000, 5_000);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let mut count = |name: &str| -> Result<usize, String> {
            let text = value()?;
            match text.parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("{name} must be a whole number > 0, got `{text}`")),
            }
        };
        match flag.as_str() {
            "--limina" => limina = Some(PathBuf::from(value()?)),
            "--rmcp" => rmcp = Some(PathBuf::from(value()?)),
            "--rounds" => rounds = count("--rounds")?,
            "--sequential" => sequential = count("--sequential")?,
            "--pipelined" => pipelined = count("--pipelined")?,
            "--smoke" => (rounds, sequential, pipelined) = (1, 200, 300),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(Plan {
        limina: limina.ok_or_else(|| format!("--limina is required\n{USAGE}"))?,
        rmcp: rmcp.ok_or_else(|| format!("--rmcp is required\n{USAGE}"))?,
        rounds,
        sequential,
        pipelined,
    })
}

/// The three servers, the baseline first.
fn kinds(plan: &Plan) -> Result<Vec<Kind>, String> {
    let own = std::env::current_exe().map_err(|err| format!("finding this program: {err}"))?;
    Ok(vec![
        Kind {
            label: "rmcp 3.11 echo",
            program: plan.rmcp.clone(),
            args: vec![],
            trace_dir: false,
            call: r#"{"name":"echo","arguments":{"message":"hello"}}"#.into(),
        },
        Kind {
            label: "do-nothing",
            program: own,
            args: vec!["--respond".into()],
            trace_dir: false,
            call: r#"{"name":"echo","arguments":{"message":"hello"}}"#.into(),
        },
        Kind {
            label: "limina query",
            program: plan.limina.clone(),
            args: ["--mcp-stdio", "--log-level", "warn"]
                .map(String::from)
                .to_vec(),
            trace_dir: true,
            call: r#"{"name":"scene.queryEntities","arguments":{"near":[0,0,0],"radius":1}}"#
                .into(),
        },
    ])
}

/// One fresh process of `kind` under the whole load.
fn sample(kind: &Kind, plan: &Plan) -> Result<Sample, String> {
    let (mut peer, startup) = Peer::start(kind)?;
    let (sequential_per_s, p50_us, p95_us, p99_us) =
        measure::sequential(&mut peer, kind.label, &kind.call, 100, plan.sequential)?;
    let first = 100 + plan.sequential;
    let pipelined_per_s =
        measure::pipelined(&mut peer, kind.label, &kind.call, first, plan.pipelined)?;
    let peak_rss_kib = peer.peak_rss_kib()?;
    peer.stop();
    Ok(Sample {
        startup_ms: startup.as_secs_f64() * 1e3,
        sequential_per_s,
        p50_us,
        p95_us,
        p99_us,
        pipelined_per_s,
        peak_rss_kib,
    })
}

fn run(plan: &Plan) -> Result<(), String> {
    let kinds = kinds(plan)?;
    // One unmeasured start of each first: the host's compile cache is warm from here on.
    for kind in &kinds {
        let (peer, _) = Peer::start(kind)?;
        peer.stop();
    }
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); kinds.len()];
    for round in 0..plan.rounds {
        for k in 0..kinds.len() {
            // Each round starts with another server, so none always runs first.
            let i = (k + round) % kinds.len();
            samples[i].push(sample(&kinds[i], plan)?);
        }
    }
    report(plan, &kinds, &samples);
    Ok(())
}

/// Medians over rounds of one field.
fn med(samples: &[Sample], field: impl Fn(&Sample) -> f64) -> f64 {
    median(&mut samples.iter().map(field).collect::<Vec<_>>())
}

fn report(plan: &Plan, kinds: &[Kind], samples: &[Vec<Sample>]) {
    println!(
        "over stdio, {} round(s) of fresh processes, interleaved; {} sequential calls then {} pipelined; medians over rounds",
        plan.rounds, plan.sequential, plan.pipelined
    );
    println!(
        "  {:<16} {:>10} {:>11} {:>9} {:>9} {:>9} {:>11} {:>9}   ratios to rmcp (seq, piped)",
        "server", "start ms", "seq/s", "p50 µs", "p95 µs", "p99 µs", "piped/s", "peak MB"
    );
    let base_seq = med(&samples[0], |s| s.sequential_per_s);
    let base_piped = med(&samples[0], |s| s.pipelined_per_s);
    for (kind, samples) in kinds.iter().zip(samples) {
        let seq = med(samples, |s| s.sequential_per_s);
        let piped = med(samples, |s| s.pipelined_per_s);
        println!(
            "  {:<16} {:>10.1} {:>11.0} {:>9.1} {:>9.1} {:>9.1} {:>11.0} {:>9.1}   {:.2}x, {:.2}x",
            kind.label,
            med(samples, |s| s.startup_ms),
            seq,
            med(samples, |s| s.p50_us),
            med(samples, |s| s.p95_us),
            med(samples, |s| s.p99_us),
            piped,
            med(samples, |s| s.peak_rss_kib as f64) / 1024.0,
            seq / base_seq,
            piped / base_piped,
        );
    }
    // The per-round ratios too: their spread says how noisy the machine was.
    let ratios = |field: fn(&Sample) -> f64| -> String {
        let last = samples.len() - 1;
        samples[last]
            .iter()
            .zip(&samples[0])
            .map(|(l, r)| format!("{:.2}", field(l) / field(r)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "  {} / rmcp per round: sequential {}; pipelined {}",
        kinds[kinds.len() - 1].label,
        ratios(|s| s.sequential_per_s),
        ratios(|s| s.pipelined_per_s)
    );
}
