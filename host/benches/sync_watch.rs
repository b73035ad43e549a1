//! The sync bench's Rust watcher process (`sync --watch URL SUBSCRIBERS MOVES`): the same role
//! as `sync_clients.py watch` at a fraction of its CPU per delta, so on a 2-core machine the
//! clients do not take the cores the host's fan-out needs. The socket benches' blocking
//! client (`ws_agent.rs`) for the handshake and the subscription (a `ping` after it, so
//! nothing is left in its buffer), then one thread waiting on all sockets with `epoll` and
//! one `recv` per socket that woke it, the host's unmasked frames cut by hand. Each socket
//! that woke it is stamped with the instant `epoll_wait` returned (CLOCK_MONOTONIC, the
//! builder's clock), before any byte is parsed.
//! Prints `ready`, then one JSON line: `{"arrived": [[i, ns], ...], "cpu_ns": n}`.

use super::ws_agent::Agent;
use serde_json::json;
use std::io::Read;
use std::net::TcpStream;
use std::os::fd::AsRawFd;

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to fill.
    unsafe { libc::clock_gettime(clock, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// A session subscribed to the whole world, its snapshot read; its socket.
fn subscriber(url: &str) -> TcpStream {
    let mut agent = Agent::connect(url, "system.readonly", None);
    let reply = agent.request("state/subscribe", json!({}));
    assert!(reply.get("result").is_some(), "{reply}");
    // The snapshot is read by now (the ping's reply comes after it): nothing stays buffered.
    agent.ping();
    agent.into_socket()
}

/// Whole frames at the front of `buf` (server frames: unmasked), taken off it; the text of
/// each handed to `each`.
fn cut_frames(buf: &mut Vec<u8>, mut each: impl FnMut(&str)) {
    let mut at = 0;
    loop {
        let rest = &buf[at..];
        if rest.len() < 2 {
            break;
        }
        let (len, head) = match rest[1] & 0x7f {
            126 if rest.len() >= 4 => (u16::from_be_bytes([rest[2], rest[3]]) as usize, 4),
            127 if rest.len() >= 10 => (
                u64::from_be_bytes(rest[2..10].try_into().unwrap()) as usize,
                10,
            ),
            126 | 127 => break,
            n => (n as usize, 2),
        };
        if rest.len() < head + len {
            break;
        }
        if rest[0] & 0x0f == 1 {
            each(std::str::from_utf8(&rest[head..head + len]).expect("UTF-8 text"));
        }
        at += head + len;
    }
    buf.drain(..at);
}

/// The x of a delta's first change (`"pos":[x,`), without parsing the rest.
fn moved_to(text: &str) -> Option<u64> {
    if !text.contains("\"state/delta\"") {
        return None;
    }
    let at = text.find("\"pos\":[")? + 7;
    let end = at + text[at..].find([',', ']'])?;
    text[at..end].parse::<f64>().ok().map(|x| x as u64)
}

pub fn watch(url: &str, subscribers: usize, moves: usize) {
    let mut conns: Vec<(TcpStream, Vec<u8>)> = (0..subscribers)
        .map(|_| (subscriber(url), Vec::new()))
        .collect();
    // SAFETY: plain epoll calls on descriptors this process owns.
    let epoll = unsafe { libc::epoll_create1(0) };
    assert!(epoll >= 0, "epoll_create1");
    for (i, (s, _)) in conns.iter_mut().enumerate() {
        s.set_nonblocking(true).unwrap();
        let mut event = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: i as u64,
        };
        // SAFETY: as above.
        let r = unsafe { libc::epoll_ctl(epoll, libc::EPOLL_CTL_ADD, s.as_raw_fd(), &mut event) };
        assert_eq!(r, 0, "epoll_ctl");
    }
    println!("ready");
    let mut arrived: Vec<(u64, u64)> = Vec::with_capacity(subscribers * moves);
    let mut done = vec![false; subscribers];
    let mut left = subscribers;
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 256];
    let mut chunk = vec![0u8; 1 << 16];
    let cpu = clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID);
    while left > 0 {
        // SAFETY: `events` has room for its length.
        let n = unsafe { libc::epoll_wait(epoll, events.as_mut_ptr(), events.len() as i32, -1) };
        let at = clock_ns(libc::CLOCK_MONOTONIC);
        for event in &events[..n.max(0) as usize] {
            let i = event.u64 as usize;
            let (socket, buf) = &mut conns[i];
            // One read; what is left (level-triggered) wakes the next wait.
            match socket.read(&mut chunk) {
                Ok(0) => panic!("the host closed a watcher's connection"),
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) => panic!("reading: {e}"),
            }
            cut_frames(buf, |text| {
                if let Some(x) = moved_to(text) {
                    arrived.push((x, at));
                    if x as usize == moves - 1 && !done[i] {
                        done[i] = true;
                        left -= 1;
                    }
                }
            });
        }
    }
    let cpu = clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID) - cpu;
    let arrived: Vec<[u64; 2]> = arrived.into_iter().map(|(x, at)| [x, at]).collect();
    println!("{}", json!({"arrived": arrived, "cpu_ns": cpu}));
}
