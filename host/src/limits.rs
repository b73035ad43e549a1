//! Every limit and its default, in one place.

/// Per-call limits of a package, from its manifest or these defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PackageLimits {
    /// Fuel (roughly wasm instructions) one call may burn.
    pub fuel_per_call: u64,
    /// Most linear memory the package's instance may hold, in bytes.
    pub memory_bytes: u64,
    /// Wall-clock budget of one call, in milliseconds (host time included).
    pub timeout_ms: u64,
}

impl Default for PackageLimits {
    fn default() -> Self {
        PackageLimits {
            fuel_per_call: 100_000_000,
            memory_bytes: 32 << 20,
            timeout_ms: 2_000,
        }
    }
}

/// Most fuel a package may ask for per call unless `[limits] fuelPerCall` says otherwise: what
/// the longest timeout allowed could burn (more could never be spent).
pub const CEILING_FUEL_PER_CALL: u64 = CEILING_TIMEOUT_MS * FUEL_PER_MS;
/// Longest per-call timeout a package may ask for unless `[limits] timeoutMs` says otherwise.
/// It holds for calls off the engine; calls on it get `ENGINE_CALL_MS`.
pub const CEILING_TIMEOUT_MS: u64 = 30_000;
/// Deadline of a third-party package's call that runs on the engine (its package can touch
/// the world or holds state), unless `[limits] engineCallMs` says otherwise: the engine's
/// slice. While it runs every client and the physics tick wait, so this is what another
/// client waits behind one such call at most; turns (`mcp/engine/turns.rs`) see that a
/// session calling back to back gets no second slice before the others had their turn. Its
/// instance's start-up counts (it holds the engine too), and every guest language fits with
/// room: `cargo bench -p limina --bench languages --profile dev` (2026-11-28, load 1.5–1.7)
/// made an instance in 10 µs (Rust), 17 (C), 24 (Zig), 115 (JavaScript), 845 µs (Python),
/// and a call on it took 8–39 µs; the JavaScript `npc` reading a full perception burns about
/// 10M fuel (0.6 ms). `cargo bench -p limina --bench engine_waits -- hostile` measures what
/// another client's ping waits while such calls run back to back. Slow work belongs in
/// packages without world capabilities or state, which run off the engine with their own
/// `timeout_ms`. The core packages (the host's own) keep their manifests' timeouts: their
/// skills answer in microseconds, and a loaded machine must not cut them. The slice counts the
/// CPU time the engine thread ran from the call's start, so a machine busy with other work
/// does not cut an innocent call (up to four times this in wall time less the time the thread
/// waited for a core; `call/interrupt.rs`, `Clock::Slice`), and a component read from the
/// compiled cache is read into memory before its first call's clock starts
/// (`sandbox/resident.rs`).
pub const ENGINE_CALL_MS: u64 = 5;
/// Largest memory any package may ask for; also the pooling allocator's slot size.
pub const MAX_PACKAGE_MEMORY_BYTES: u64 = 256 << 20;
/// Most table elements an instance may hold.
pub const MAX_TABLE_ELEMENTS: usize = 20_000;
/// Largest component the host compiles, in bytes (a Python component is about 18 MB).
pub const MAX_COMPONENT_BYTES: usize = 64 << 20;
/// Longest the host waits for one component to compile; a slower one is refused.
pub const MAX_COMPILE_TIME: std::time::Duration = std::time::Duration::from_secs(120);
/// Most skills one package may declare.
pub const MAX_SKILLS_PER_PACKAGE: usize = 256;
/// Largest description a package may give of itself (`describe`: every name, description and
/// schema together), in bytes.
pub const MAX_DESCRIBE_BYTES: usize = 1 << 20;
/// Largest output a skill may return, in bytes of JSON.
pub const MAX_OUTPUT_BYTES: usize = 1 << 20;
/// Content blocks (images, sounds, links, embedded resources) one result may carry besides its
/// output.
pub const MAX_CONTENT_BLOCKS: usize = 16;
/// Bytes of content one result may carry, every block's data or text together (before base64):
/// a 640×480 PNG is well under it.
pub const MAX_CONTENT_BYTES: usize = 4 << 20;
/// Log lines one guest call may pass on to the client (the `log` import and captured
/// stdout/stderr together); the host's own log still gets every line.
pub const MAX_GUEST_LOG_LINES_PER_CALL: usize = 100;
/// Characters kept of one guest log line.
pub const MAX_GUEST_LOG_LINE_CHARS: usize = 4096;
/// Bytes of stdout, and of stderr, a WASI guest's output keeps per call; the rest is dropped.
pub const MAX_GUEST_STDIO_BYTES: usize = 64 << 10;
/// Wasm stack a call may use (deep recursion traps cleanly past it).
pub const MAX_WASM_STACK_BYTES: usize = 1 << 20;
/// Guest instances that may exist at once, unless `[limits] instances` says otherwise. An
/// instance lives for one call (`sandbox/pool.rs`), so this bounds the calls running guest
/// code at once — the engine thread's one, one per worker thread (a core each, at least
/// `DETACHED_WORKERS_MIN`), a package being described — and never the number of sessions:
/// the default leaves room for a machine of some 250 cores. Each instance's slot reserves
/// address space for its memories up front (4 GiB a memory, never touched unless used), not
/// memory; a call finding every slot busy is refused with `capacity_exceeded`.
pub const INSTANCES: u32 = 256;
/// Instances kept warm after their call, each for its session's next call of the same package
/// (`registry/warm.rs`), beside the `INSTANCES` running calls: enough for the handful of
/// sessions a desktop client or a script keeps busy, which then skip making an instance;
/// a crowd's calls make their own.
pub const WARM_INSTANCES: usize = 32;
/// Linear memory the warm instances may hold together, in bytes: a warm Rust guest holds about
/// 2 MiB, a Python one 13 MiB, so the warm set never weighs on the host's memory.
pub const WARM_INSTANCE_BYTES: usize = 64 << 20;
/// Most `[limits] instances` may ask for: the slots' address space (8 GiB an instance) must fit
/// in the 128 TiB a process has, with room for everything else.
pub const MAX_INSTANCES: u32 = 8_192;
/// How often the epoch advances; call deadlines are counted in these.
pub const EPOCH_TICK_MS: u64 = 2;
/// Bytes a package may write into its volumes over the host's run, unless `[files]
/// writeBytes` says otherwise: enough for notes and caches, not for filling the host's disk.
pub const FILES_WRITE_BYTES: u64 = 64 << 20;
/// Bytes of one state key.
pub const MAX_STATE_KEY_BYTES: usize = 1 << 10;
/// Bytes of one state value: a memory or a note, not a file (files are for that).
pub const MAX_STATE_VALUE_BYTES: usize = 1 << 20;
/// Entities the world may hold at once (`--max-entities`). What a tick costs does not grow with
/// them: `cargo bench -p limina --bench spatial` (2026-11-28, load ~1.7) measured a tick with
/// 1,000 awake bodies at 0.96 ms alone and 1.01 ms among 100,000 render-only entities (1.05x;
/// queries near a point use the spatial index: radius 3 in 3.8 µs median, 7.1 µs p95, against
/// 15 ms for a scan). They cost memory, 311 B resident each (about 31 MB at the cap), and the
/// checkpoint that still encodes the whole world on the engine: 11.9 MB in 38 ms at 100,000,
/// 131 ms at 400,000. 100,000 keeps that hold near two ticks of the 16 ms budget.
pub const MAX_ENTITIES: usize = 100_000;
/// Widest or tallest picture `camera.capture` draws, in pixels.
pub const MAX_CAPTURE_EDGE: u32 = 2_048;
/// Most pixels in one `camera.capture` picture (1920 × 1080): the drawing and the PNG grow
/// with them, and the picture travels in one result. The drawing's CPU time (fuel does not
/// count host work) is charged to the caller's `cpuMs` budget.
pub const MAX_CAPTURE_PIXELS: u64 = 1_920 * 1_080;
/// Side of one cell of the world's spatial index (`world/spatial.rs`), in metres. At 0.1
/// entities per m², 100,000 entities, `cargo bench -p limina --bench spatial` (2026-11-28)
/// measured candidates for radius 3 / radius 25 in 0.58 / 6.7 µs at 8 m, 0.29 / 1.8 µs at
/// 16 m, 0.26 / 1.2 µs at 32 m (an R-tree: 5.3 / 19 µs, and 2 µs per move against 0.04):
/// 16 m, as good as larger cells here and holding fewer entities per cell in denser worlds.
pub const SPATIAL_CELL_METRES: f64 = 16.0;
/// Simulation step length by default (60 Hz).
pub const DEFAULT_TICK_MS: u64 = 16;
/// The shortest and longest the engine keeps looking for the next message without sleeping
/// (`mcp/engine/spin.rs`): about twice the recent gap between its replies and the next call, and not
/// at all when calls come further apart than the longest, so an idle host never spins.
pub const ENGINE_SPIN_US: u64 = 50;
pub const ENGINE_SPIN_MAX_US: u64 = 500;
/// Events an in-memory trace (`--ephemeral-trace`, tests) keeps: all it can answer from.
pub const TRACE_WINDOW: usize = 4_096;
/// Events a durable trace keeps in memory for hot queries. Small: the index follows the
/// writer within a few events, and queries read anything older from the index and segments,
/// so a bigger window only held memory (4,096 events were ~10 MB of a host's resident set).
pub const TRACE_WINDOW_DURABLE: usize = 256;
/// Most events a `trace.tail` page may parse to be answered on the engine, straight from the
/// window: a reader following the trace asks for what came since its last page, which the
/// window holds, and answering it costs less than the hop to a worker and back. A page that
/// would parse more (or reach past the window) runs on a worker, on a snapshot.
pub const TAIL_ON_ENGINE_EVENTS: u64 = 64;
/// Most window lines such a page may scan for an actor or type (a byte check per line, no
/// parse) before it is sent to a worker instead.
pub const TAIL_ON_ENGINE_SCAN: u64 = 256;
/// Bytes after which a trace segment is sealed and a new one started (`[trace] segmentBytes`).
pub const TRACE_SEGMENT_BYTES: u64 = 64 << 20;
/// Bytes of segments kept by default (`[trace] maxBytes`; 0 keeps everything): at a few
/// thousand calls a second an hour of history, and a disk that never fills.
pub const TRACE_MAX_BYTES: u64 = 1 << 30;
/// How often a host whose trace cannot be written tries again (an outage refuses recorded
/// calls until a try succeeds): soon enough that freeing space resumes service at once, rare
/// enough that a full disk costs nothing.
pub const TRACE_RETRY_MS: u64 = 200;
/// How long state writes are refused after a group of them could not be written (a full
/// disk): then the next write tries the disk again (`state/in_flight.rs`).
pub const STATE_RETRY_MS: u64 = 200;
/// How long the state writer waits for a lock on the database another process holds (the
/// `sqlite3` shell, say) before its group fails: calls are refused rather than held.
pub const STATE_BUSY_MS: u64 = 100;
/// Bytes of state scopes the engine keeps a copy of, so reads do not ask SQLite
/// (`state/cache.rs`): a thousand agents' memories of 256 short notes each.
pub const STATE_CACHE_BYTES: usize = 32 << 20;
/// The largest scope copied whole; a larger one is read from SQLite key by key.
pub const STATE_CACHE_SCOPE_BYTES: usize = 1 << 20;
/// Bytes a try reserves after the newest segment's end before an outage is declared over, so
/// the calls it lets through can be written.
pub const TRACE_RESERVE_BYTES: u64 = 64 << 10;
/// How often `[trace] fsync = "interval"` syncs the newest segment: what a power loss may take
/// (a crash of the process alone loses nothing written).
pub const TRACE_FSYNC_INTERVAL_MS: u64 = 1_000;
/// Smallest `[trace] segmentBytes` accepted.
pub const MIN_TRACE_SEGMENT_BYTES: u64 = 4 << 10;
/// Longest a query waits for the trace index to reach the in-memory window before it reads what
/// the index lacks from the segments. The query asks the indexer to commit what it holds at
/// once, which a following indexer does within a millisecond; a longer wait only delays the
/// answer, since what is still missing is read from the segments cheaply (only lines that can
/// match are parsed).
pub const TRACE_INDEX_WAIT_MS: u64 = 5;
/// Longest the first trace query after a start waits for the indexer to open its database and
/// check it against the segments (it does so on its own thread, so that start-up never waits
/// for it). Past it the query reads the segments: whole, but slower on a long history.
pub const TRACE_INDEX_OPEN_WAIT_MS: u64 = 250;
/// Longest the trace indexer keeps a transaction open while it follows a busy writer. Committing
/// once per this many milliseconds rather than after every flush writes each hot page of the
/// index once per commit instead of once per flush (most of its cost in a burst); a query that
/// needs newer rows does not wait for it, it asks the indexer to commit at once.
pub const TRACE_INDEX_COMMIT_MS: u64 = 25;
/// Calls per skill the latency window remembers (the newest replace the oldest).
pub const LATENCY_WINDOW: usize = 100;
/// Calls a skill needs in its window before its measured p50 decides its tier; until then a
/// latency the package manifest declares stands in.
pub const LATENCY_MIN_SAMPLES: usize = 10;
/// Upper p50 of the `fast` latency tier, in milliseconds (a voice NPC's budget).
pub const FAST_TIER_MS: f64 = 500.0;
/// Upper p50 of the `standard` latency tier, in milliseconds; slower skills are `deep`.
pub const STANDARD_TIER_MS: f64 = 1_500.0;
/// Share of failed calls in the window past which a skill is shown one tier slower.
pub const ERROR_RATE_DEMOTION: f64 = 0.30;
/// Tools per `tools/list` page.
pub const TOOLS_PAGE_SIZE: usize = 100;
/// Resources per `resources/list` page (and prompts per `prompts/list` page).
pub const RESOURCES_PAGE_SIZE: usize = 100;
/// Most entities `limina://world/scene` draws (the first by id); it says when it holds fewer
/// than the world (`truncated`).
pub const MAX_SCENE_RESOURCE_ENTITIES: usize = 2_000;
/// `ttlMs` of a trace event read as a resource: events never change once written.
pub const TRACE_EVENT_TTL_MS: u64 = 86_400_000;
/// `ttlMs` of the viewer app's page (`ui://limina/viewer`): fixed for a given binary.
pub const APP_TTL_MS: u64 = 3_600_000;
/// Most values `completion/complete` returns (the protocol's own cap).
pub const MAX_COMPLETIONS: usize = 100;
/// `ttlMs` on 2026-07-28 listings when packages are not watched for hot reload: how long a
/// client may reuse a tool list without asking again. Short, because `package.*` skills and
/// tier changes still alter it; listen streams hear `tools/list_changed` at once.
pub const MODERN_LIST_TTL_MS: u64 = 5_000;
/// How long a call held by an `[[approve]]` rule waits for a person's answer by default
/// (`timeoutMs`): long enough to read a question and click, short enough that a forgotten
/// dialog does not keep the call's connection waiting; past it the call is refused
/// (`approval.unavailable`).
pub const APPROVAL_TIMEOUT_MS: u64 = 120_000;
/// Longest `timeoutMs` an `[[approve]]` rule may set: a 2025-11-25 connection waits (its other
/// requests queued) while it asks, so no rule may make it wait for more than an hour.
pub const MAX_APPROVAL_TIMEOUT_MS: u64 = 3_600_000;
/// Approval questions (`input_required`, 2026-07-28) one identity may have unanswered at once;
/// the oldest is forgotten past it (its answer is then refused as unknown), so a client that
/// never answers cannot grow the host's memory.
pub const MAX_OPEN_APPROVALS_PER_IDENTITY: usize = 64;
/// Tasks (long calls a client polls for) one identity may hold at once, running or finished and
/// not yet expired: each keeps its result in memory until it expires, so this bounds what a
/// client can make the host keep; past it a new task is refused (`capacity_exceeded`).
pub const MAX_TASKS_PER_IDENTITY: usize = 32;
/// How long a task and its result stay readable after it was created (`ttlMs`): long enough
/// to come back for a long call's result, short enough that forgotten results do not pile up.
pub const TASK_TTL_MS: u64 = 600_000;
/// How often a client should poll a running task (`pollIntervalMs`).
pub const TASK_POLL_INTERVAL_MS: u64 = 250;
/// Fuel one millisecond of guest CPU burns on this kind of machine, used to turn fuel consumed
/// into the CPU-ms charged to budgets. Measured by `cargo bench -p limina --bench invoke`
/// (the `fuel per ms` line, a busy guest loop, median of 15 runs): 17.3 million on the
/// project's 2-core machines (2026-11-21).
pub const FUEL_PER_MS: u64 = 17_000_000;
/// UI panels that may exist at once (creating more is `capacity_exceeded`).
pub const MAX_UI_PANELS: usize = 1_000;
/// Largest JSON spec one UI panel may hold, in bytes.
pub const MAX_UI_PANEL_BYTES: usize = 16 << 10;
/// Sounds the headless mixer may hold at once (starting more is `capacity_exceeded`).
pub const MAX_SOUNDS: usize = 256;
/// Signals and speech the world remembers for agents' perception (oldest forgotten first).
pub const HEARD_WINDOW: usize = 64;
/// Largest payload of a remembered signal or speech, in bytes of JSON; a bigger one is kept
/// for perception as a clipped preview (the trace holds it whole), so a flood of huge signals
/// cannot make every perception-reading call run out of fuel.
pub const MAX_HEARD_PAYLOAD_BYTES: usize = 2 << 10;
/// Characters of a clipped payload's JSON kept as its preview.
pub const HEARD_PREVIEW_CHARS: usize = 256;
/// Characters kept of a remembered event type (the `agents` import already refuses a signal
/// kind over 128; this bounds every other path into the world).
pub const MAX_HEARD_KIND_CHARS: usize = 256;
/// Collision events kept for `physics.collisionEvents` between drains (oldest dropped first).
pub const MAX_PENDING_COLLISION_EVENTS: usize = 1_024;
/// Largest glTF/GLB file `three.loadGLTF` reads, in bytes.
pub const MAX_ASSET_BYTES: u64 = 64 << 20;
/// Cancellations of requests not (yet) seen that one connection may hold.
pub const MAX_PENDING_CANCELS: usize = 1_024;
/// Messages queued to one WebSocket client; past it a subscriber's deltas give way to a fresh
/// snapshot once it catches up, and a client that is not reading its replies is disconnected.
pub const OUTBOX_CAPACITY: usize = 256;
/// Threads that write a WebSocket listener's queued messages to its sockets (a delta for 500
/// subscribers is 500 system calls; spread over the threads).
pub const WS_WRITER_THREADS: usize = 2;
/// Requests one connection may have waiting for the engine; more are refused at once.
pub const MAX_IN_FLIGHT_PER_CONNECTION: usize = 64;
/// Largest WebSocket message (and frame) a client may send, in bytes.
pub const MAX_WS_MESSAGE_BYTES: usize = 4 << 20;
/// How long a subscriber may stay behind (its queue full) before it is disconnected.
pub const MAX_STALL_MS: u64 = 10_000;
/// How long the engine loop may go without turning before `/healthz` calls it stalled: far
/// past a turn's longest normal wait (an idle poll, 100 ms; a call on the engine, `ENGINE_CALL_MS`),
/// short enough that an orchestrator restarts a stuck world within seconds.
pub const ENGINE_STALL_MS: u64 = 3_000;
/// How long calls in flight get to finish after a termination signal (`--drain-ms`): inside
/// Kubernetes' default 30 s grace period, with room for the checkpoint.
pub const DEFAULT_DRAIN_MS: u64 = 10_000;
/// Socket messages the engine queues before it wakes the writers (one wake-up of the
/// listener thread for the lot, `mcp/engine/outbox.rs`), while more messages wait for it: under load
/// a wake-up per message cost the engine a system call and the listener a sleep each.
pub const RING_AFTER_MESSAGES: usize = 16;
/// The longest a queued socket message waits for that wake-up while the engine goes on with
/// other messages, in microseconds (it is rung at once when nothing else waits, and before a
/// third-party call takes its slice: a ping answered just before one waited out the slice in
/// about 1 ping in 100, p99 11.4 → 6.5 ms in `cargo bench -p limina --bench engine_waits --
/// hostile`, 2026-11-28, load 1.5–1.9).
pub const RING_AFTER_US: u64 = 100;
/// Longest the engine hands out turns to waiting messages before it lets the batch's replies
/// go (the trace written, state settled, held replies released) and looks again, in
/// microseconds: under load that never lets the queues empty, replies still leave this often.
pub const ENGINE_BATCH_US: u64 = 2_000;

/// Replies queued for stdio during one batch of input that are written out before the batch
/// ends: once this many bytes wait, or once the oldest has waited `STDIO_FLUSH_AFTER_US`. A
/// pipelined client reads its first replies while later calls still run, and the host holds
/// no more than this for it (a batch's replies all waited for its end before).
pub const STDIO_FLUSH_BYTES: usize = 32 << 10;
/// See `STDIO_FLUSH_BYTES`, in microseconds.
pub const STDIO_FLUSH_AFTER_US: u64 = 500;
/// Bytes of replies a stdio client may leave unread before the host stops reading its input
/// (it reads ahead so that a client writing a long batch before reading any reply never
/// deadlocks with it); other transports are served meanwhile.
pub const MAX_STDOUT_BACKLOG_BYTES: usize = 64 << 20;
/// How far a running call's cancellation check reads stdin ahead of the engine, in bytes.
pub const STDIN_READ_AHEAD_BYTES: usize = 1 << 20;
/// How long a stopping host waits for a stdio client to read its last replies.
pub const STDOUT_DRAIN_MS: u64 = 2_000;

/// Calls of one connection that may run off the engine at once (calls that cannot touch the
/// world, `registry/detached.rs`). A client sending several together — a model asking for
/// three tools in one turn — gets them run in parallel; past this many its messages wait, in
/// order, so one connection cannot queue unbounded work on the workers.
pub const MAX_PARALLEL_CALLS: usize = 16;

/// The fewest worker threads for calls off the engine, whatever the core count: a call that
/// waits (a WASI sleep, a slow outbound server) holds a worker without using a core, and a
/// client's three parallel calls should not queue behind each other on a 2-core machine.
pub const DETACHED_WORKERS_MIN: usize = 4;
/// Default `--mcp-ws` port.
pub const DEFAULT_WS_PORT: u16 = 8787;
/// Progress reports one call may pass on to its client (the rest are dropped).
pub const MAX_PROGRESS_REPORTS_PER_CALL: usize = 1_000;
/// Default `--mcp-http` port.
pub const DEFAULT_HTTP_PORT: u16 = 8788;
/// Largest HTTP request body, in bytes.
pub const MAX_HTTP_BODY_BYTES: usize = 4 << 20;
/// An HTTP session no request has touched for this long (and with no open stream) ends.
pub const HTTP_IDLE_SESSION_SECS: u64 = 1_800;
/// Events an HTTP session keeps for a client resuming its stream with `Last-Event-ID`.
pub const SSE_REPLAY_EVENTS: usize = 256;
/// OpenTelemetry export: requests waiting to become spans; past this they are dropped (counted
/// and logged), never waited for. `OTEL_BSP_MAX_QUEUE_SIZE` overrides it.
pub const OTLP_QUEUE_CAPACITY: usize = 2_048;
/// OpenTelemetry export: most spans sent in one request (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`).
pub const OTLP_MAX_BATCH_SPANS: usize = 512;
/// OpenTelemetry export: how often finished spans are sent (`OTEL_BSP_SCHEDULE_DELAY`), in ms.
/// Shorter than the SDK's 5 s so spans show up while one watches; an idle host sends nothing.
pub const OTLP_SCHEDULE_DELAY_MS: u64 = 1_000;
/// OpenTelemetry export: how often the duration metric is sent (`OTEL_METRIC_EXPORT_INTERVAL`),
/// in ms. Shorter than the SDK's 60 s so a dashboard shows a new host within seconds.
pub const OTLP_METRIC_INTERVAL_MS: u64 = 5_000;
/// OpenTelemetry export: how long one export request may take (`OTEL_EXPORTER_OTLP_TIMEOUT`), in ms.
pub const OTLP_EXPORT_TIMEOUT_MS: u64 = 10_000;
/// Open WebSocket and HTTP connections at once (`[network] maxConnections`): each holds a task,
/// a socket and small buffers; past it a new connection gets a 503 and is closed, so a flood
/// of sockets cannot exhaust file descriptors or memory.
pub const MAX_NETWORK_CONNECTIONS: usize = 512;
/// Open connections from one peer address (`[network] maxConnectionsPerAddress`), so one
/// client cannot take every seat. On loopback every local client shares 127.0.0.1.
pub const MAX_CONNECTIONS_PER_ADDRESS: usize = 128;
/// WebSocket connections that have not (yet) initialized a session
/// (`[network] maxUninitialized`): a client that connects and says nothing costs a seat
/// without being anyone; real clients initialize within a round trip.
pub const MAX_UNINITIALIZED_CONNECTIONS: usize = 64;
/// How long a WebSocket client may take after the handshake to send its first message
/// (`[network] firstMessageMs`); a silent connection is closed (1008).
pub const FIRST_MESSAGE_MS: u64 = 10_000;
/// How long one inbound WebSocket message may take to arrive once its first byte has
/// (`[network] frameReadMs`), as HTTP bodies have a read timeout: a half-sent message holds
/// memory, so it cannot be held open forever (closed with 1008).
pub const FRAME_READ_MS: u64 = 30_000;
/// Bytes held in unfinished inbound WebSocket messages across all connections
/// (`[network] maxPendingFrameBytes`). A message's announced length is counted when its frame
/// header arrives; one that does not fit is refused (1009) instead of being buffered, so
/// half-sent messages cannot take memory without bound. Room for four messages of the
/// largest size at once.
pub const MAX_PENDING_FRAME_BYTES: usize = 16 << 20;
/// A message up to this size is always read without counting against
/// [`MAX_PENDING_FRAME_BYTES`], so ordinary JSON-RPC traffic (and pings) keeps flowing while
/// large messages wait; at most one per connection, so bounded by the connection caps.
pub const UNMETERED_MESSAGE_BYTES: usize = 16 << 10;
/// Read buffer of one WebSocket connection: small, since a connection that holds a large
/// message is counted against [`MAX_PENDING_FRAME_BYTES`] anyway.
pub const WS_READ_BUFFER_BYTES: usize = 16 << 10;

/// How often the host writes a world checkpoint while the world changes, by default
/// (`[world] checkpointEverySeconds`): a restart then replays at most this long a journal.
pub const WORLD_CHECKPOINT_EVERY_SECS: u64 = 60;
/// Journal records after the newest checkpoint past which the host writes a checkpoint at
/// once, whatever the schedule: a restart reads and applies every one of them, so this bounds
/// its cost (about 10,000 records of one change each replay in well under a second).
pub const WORLD_REPLAY_MAX_RECORDS: u64 = 10_000;
/// Physics steps times the bodies they moved, after the newest checkpoint, past which the host
/// writes a checkpoint at once: a restart steps the world again as often as it was stepped
/// live, so a busy world (1,000 bodies at 60 Hz) would otherwise replay a minute of physics.
/// 500,000 is 500 steps of 1,000 bodies: about 8 s of live time, a fraction of a second to
/// replay.
pub const WORLD_REPLAY_MAX_BODY_STEPS: u64 = 500_000;
/// Events traced after the newest checkpoint past which the host writes one, even if the
/// world did not change: a restart after a kill reads every line after the checkpoint for
/// journal records, so a host that only answered reads for a long while scanned its whole
/// history (300,000 events, ~180 MiB, 100–180 ms of start-up). 100,000 events are about 60 MiB,
/// ~25 ms to scan; a checkpoint costs a trace sync and the world's bytes.
pub const WORLD_REPLAY_MAX_EVENTS: u64 = 100_000;
/// World checkpoints kept by default (`[world] keepCheckpoints`): the newest, and older ones
/// to fall back on if the newest is damaged (their journal is kept through trace retention).
pub const WORLD_CHECKPOINTS_KEPT: usize = 3;
/// Checkpoints written at once off the engine (`persistence/writer.rs`): each is a forked
/// process holding a copy-on-write image of the world, so a client asking for checkpoints
/// back to back gets a refusal past this rather than a process each.
pub const MAX_CHECKPOINTS_IN_FLIGHT: usize = 2;
/// Largest world checkpoint a host reads, in bytes: 10,000 entities with bodies take about
/// 10 MiB, so this leaves room and refuses a file that is not one of ours before reading it.
pub const MAX_WORLD_CHECKPOINT_BYTES: u64 = 1 << 30;
/// Outbound HTTP: largest request body a guest may send, in bytes.
pub const MAX_NET_REQUEST_BODY_BYTES: u64 = 1 << 20;
/// Outbound HTTP: largest response body a guest may read, in bytes; past it the body ends in
/// an error (`HttpResponseBodySize`). Bounds memory and time a single answer can take.
pub const MAX_NET_RESPONSE_BODY_BYTES: u64 = 8 << 20;
/// Outbound HTTP: requests one call may send; more are refused (`net.limit`), so a loop in a
/// guest cannot turn one call into a flood.
pub const MAX_NET_REQUESTS_PER_CALL: u32 = 16;
/// Outbound HTTP: longest a connection may take to open when the guest sets no shorter
/// timeout (the call's own deadline cuts sooner when it is nearer).
pub const NET_CONNECT_TIMEOUT_MS: u64 = 10_000;
/// Secrets: shortest value whose encodings (base64, hex, percent) are redacted besides the
/// value itself. A shorter value's base64 at some alignment is six characters or fewer,
/// which ordinary text holds by chance; its plain form is still redacted.
pub const MIN_ENCODED_SECRET_BYTES: usize = 6;

/// Upstream MCP servers (`[[upstream]]`): a tool call's deadline when the entry sets no
/// `timeoutMs`. Past it the call answers `handler_error` and the server is sent
/// `notifications/cancelled`.
pub const UPSTREAM_TIMEOUT_MS: u64 = 10_000;
/// Longest `timeoutMs` an upstream entry may set: a connection waits for its call this long
/// at most, so one slow server cannot hold a client indefinitely.
pub const UPSTREAM_MAX_TIMEOUT_MS: u64 = 300_000;
/// How long an upstream server has to answer its handshake and first `tools/list` (a Python
/// server starting on a loaded machine takes a few seconds).
pub const UPSTREAM_START_MS: u64 = 30_000;
/// Largest tool description shown from an upstream server, in bytes: longer ones are cut (at
/// a character boundary) and marked, so another server cannot flood an agent's context.
pub const UPSTREAM_DESCRIPTION_BYTES: usize = 2_048;
/// Largest tool schema (input or output) an upstream server may give, in bytes of JSON; a
/// tool with a larger one is not mounted.
pub const UPSTREAM_SCHEMA_BYTES: usize = 64 << 10;
/// Largest result an upstream tool call may return, in bytes of JSON: the skill output cap.
pub const UPSTREAM_RESULT_BYTES: usize = MAX_OUTPUT_BYTES;
/// Largest single message read from an upstream server, in bytes; a longer line closes the
/// connection (and the server is restarted), so a broken server cannot exhaust memory.
pub const UPSTREAM_MESSAGE_BYTES: usize = 4 << 20;
/// Most tools mounted from one upstream server; the rest are left out with a warning.
pub const UPSTREAM_MAX_TOOLS: usize = 256;
/// Requests in flight to one upstream server at once; further calls are refused
/// (`handler_error`) until one finishes, so a server that stops answering holds a bounded
/// number of callers.
pub const UPSTREAM_MAX_IN_FLIGHT: usize = 64;
/// First wait before restarting a crashed stdio server; it doubles after each failed start up
/// to [`UPSTREAM_BACKOFF_MAX_MS`] and falls back once a start succeeds.
pub const UPSTREAM_BACKOFF_MIN_MS: u64 = 250;
/// Longest wait between restarts of a crashed stdio server.
pub const UPSTREAM_BACKOFF_MAX_MS: u64 = 30_000;
/// An OAuth token for an upstream is fetched again this long before it expires (at most half
/// its lifetime before), so no request goes out with a token about to lapse.
pub const UPSTREAM_TOKEN_REFRESH_MARGIN_MS: u64 = 30_000;

// Identity from an identity provider (`identity/`).

/// Longest bearer token the host reads, in bytes: a larger one is refused before it is decoded.
pub const IDENTITY_MAX_TOKEN_BYTES: usize = 16 << 10;
/// Largest metadata document, key set or introspection answer read from the identity provider.
pub const IDENTITY_MAX_DOCUMENT_BYTES: usize = 256 << 10;
/// Most keys kept from one key set (a provider publishes a handful; the rest are ignored).
pub const IDENTITY_MAX_KEYS: usize = 64;
/// Default clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
pub const IDENTITY_CLOCK_SKEW_SECONDS: u64 = 30;
/// Largest clock skew the configuration may allow: beyond it an expired token lives on.
pub const IDENTITY_MAX_CLOCK_SKEW_SECONDS: u64 = 300;
/// Default age after which the key set is fetched again (in the background; requests keep
/// using the keys held meanwhile).
pub const IDENTITY_KEYS_MAX_AGE_SECONDS: u64 = 300;
/// Default shortest time between two fetches of the key set, however many tokens name a key it
/// does not hold: a stream of made-up `kid`s cannot turn the host against the provider.
pub const IDENTITY_KEYS_MIN_INTERVAL_SECONDS: u64 = 30;
/// Default time the provider has to answer one fetch (discovery, key set, introspection) before
/// the request waiting on it is refused.
pub const IDENTITY_FETCH_TIMEOUT_MS: u64 = 5_000;
/// Default time an introspection answer is trusted before the provider is asked again (never
/// past the token's own `exp`).
pub const IDENTITY_INTROSPECTION_CACHE_SECONDS: u64 = 60;
/// Tokens whose check is remembered (by digest, until they expire or their key goes), so a
/// client's every request costs a hash and a lookup instead of a signature check.
pub const IDENTITY_VERIFIED_TOKENS: usize = 4_096;
/// Refusals written to the log and the trace per second; past it they are counted and summed up
/// in the next one written, so a flood of bad tokens cannot flood the trace.
pub const IDENTITY_REFUSALS_PER_SECOND: u32 = 20;
/// Most of a WebSocket handshake request the edge reads (without consuming it) to find its
/// bearer token before the handshake; a larger head is left to the handshake to refuse.
pub const WS_HANDSHAKE_PEEK_BYTES: usize = 16 << 10;

// Joining a world served by another process (`join/`).

/// Largest frame on a control-socket connection (`join/frame.rs`), in bytes: far above any
/// message (a stdio line has no limit of its own, and a whole trace export is one reply), only
/// there so that a corrupt length cannot make the other side allocate without bound.
pub const MAX_JOIN_FRAME_BYTES: usize = 256 << 20;
/// Bytes a relay reads from stdin or its socket at once.
pub const JOIN_READ_BYTES: usize = 64 << 10;
/// Messages the engine queues for a joined process's client before it writes them to the
/// control socket while more messages wait for it (the batch's end writes the rest, as does
/// `RING_AFTER_US` passing): written every 16, as the listeners' lanes are rung, the sends
/// were 0.06 system calls per pipelined ping and the engine spent 1.36 s per million of
/// them; every 64, 0.03 and 1.16–1.29 s (`perf stat`, 2026-11-28).
pub const JOIN_WRITE_AFTER_MESSAGES: usize = 64;
/// How long a relay looks for its client's next message or the server's reply without
/// sleeping, in microseconds: most arrive within it, and waking from `poll` on a loaded
/// two-core machine took longer than the look.
pub const JOIN_SPIN_US: u64 = 50;
/// How long a joining process waits for the serving host's welcome before it calls that host
/// stuck (alive, holding the lock, not answering), in milliseconds. The welcome comes from the
/// engine thread, so a long world call delays it: generous.
pub const JOIN_WELCOME_MS: u64 = 10_000;
/// How long a joining process waits, after its server ended, for the world to be served again
/// (by itself or another joined process) before it gives up, in milliseconds.
pub const JOIN_TAKEOVER_MS: u64 = 60_000;
