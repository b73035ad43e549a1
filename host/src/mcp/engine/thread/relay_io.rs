//! The engine's side of joined processes' clients (`engine/relayed.rs`): which of their
//! sockets it polls, reading what arrived as stdin's lines are read (the next message once
//! the connection may take it), writing what is queued at each ring, and letting go.

use super::{Engine, Peer};
use crate::limits::{
    JOIN_WRITE_AFTER_MESSAGES, MAX_IN_FLIGHT_PER_CONNECTION, OUTBOX_CAPACITY, STDOUT_DRAIN_MS,
};
use crate::mcp::engine::inbox::{Inbound, PeerId};
use crate::mcp::engine::outbox::Outbox;
use crate::mcp::engine::relayed::lock;
use std::os::fd::RawFd;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// What a socket past the first three in the engine's poll set is.
pub(super) enum Polled {
    /// A joined client's connection (its input, its output, or both).
    Peer(PeerId),
    /// A released connection's last replies (`Engine::leaving`, by index).
    Leaving(usize),
}

/// Whether the connection may take its next message now: as many of its messages wait as
/// any connection's may, or its replies fill half its outbox, and its socket is left unread
/// (the joined process's writes wait, as a stdio client's do). While a call of its waits for
/// a person it is read on: the answer may be among what it sent.
fn takes(peer: &Peer) -> bool {
    let waiting = peer.backlog.len();
    if peer.conn.asking.is_some() {
        return waiting < OUTBOX_CAPACITY;
    }
    let queued = OUTBOX_CAPACITY - peer.outbox.room();
    !peer.full() && waiting < MAX_IN_FLIGHT_PER_CONNECTION && waiting + queued < OUTBOX_CAPACITY / 2
}

/// Tells a joined client's process that this host drains: it holds its client's next
/// requests for the host that takes the world over.
pub(super) fn tell_draining(outbox: &Outbox) {
    if let Outbox::Relayed(out) = outbox {
        let mut out = lock(out);
        out.note(&serde_json::json!({"draining": true}));
        out.write_some();
    }
}

impl Engine {
    /// The poll set: the wake fd, stdin, stdout, then each joined client's socket that has
    /// input the engine may take or replies waiting for room, then released ones' last replies.
    pub(super) fn poll_set(&mut self, stdin: Option<RawFd>, stdout: Option<RawFd>) {
        let entry = |fd: RawFd, events: libc::c_short| libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        self.pollfds.clear();
        self.polled.clear();
        self.pollfds.push(entry(self.handle.wake.fd, libc::POLLIN));
        self.pollfds.push(entry(stdin.unwrap_or(-1), libc::POLLIN));
        self.pollfds
            .push(entry(stdout.unwrap_or(-1), libc::POLLOUT));
        for id in &self.relayed {
            let Some(peer) = self.peers.get(id) else {
                continue;
            };
            let (Some(input), Outbox::Relayed(out)) = (&peer.input, &peer.outbox) else {
                continue;
            };
            let mut events = 0;
            let fd = {
                let input = lock(input);
                if !peer.closing && !input.closed() && takes(peer) {
                    events |= libc::POLLIN;
                }
                input.fd()
            };
            if lock(out).backlog() > 0 {
                events |= libc::POLLOUT;
            }
            if events != 0 {
                self.pollfds.push(entry(fd, events));
                self.polled.push(Polled::Peer(*id));
            }
        }
        for (i, (out, _)) in self.leaving.iter().enumerate() {
            self.pollfds.push(entry(lock(out).fd(), libc::POLLOUT));
            self.polled.push(Polled::Leaving(i));
        }
    }

    /// After `poll`: reads the sockets with input, writes those with room.
    pub(super) fn relayed_ready(&mut self) {
        for (k, polled) in self.polled.iter().enumerate() {
            let fd = &self.pollfds[3 + k];
            if fd.revents == 0 {
                continue;
            }
            match polled {
                Polled::Peer(id) => {
                    let Some(peer) = self.peers.get(id) else {
                        continue;
                    };
                    if fd.events & libc::POLLIN != 0
                        && let Some(input) = &peer.input
                    {
                        lock(input).fill();
                    }
                    if let Outbox::Relayed(out) = &peer.outbox {
                        lock(out).write_some();
                    }
                }
                Polled::Leaving(i) => lock(&self.leaving[*i].0).write_some(),
            }
        }
        let limit = Duration::from_millis(STDOUT_DRAIN_MS);
        self.leaving.retain(|(out, since)| {
            let out = lock(out);
            !out.done() && out.backlog() > 0 && since.elapsed() < limit
        });
    }

    /// Hands the engine each joined client's messages while it may take them, and lets go
    /// of a connection whose process closed its side, broke a frame, or stopped reading.
    pub(super) fn serve_relayed_input(&mut self) {
        for i in 0..self.relayed.len() {
            let id = self.relayed[i];
            while let Some(peer) = self.peers.get(&id) {
                let Some(input) = peer.input.clone() else {
                    break;
                };
                if peer.closing {
                    break;
                }
                let gone = match &peer.outbox {
                    Outbox::Relayed(out) => lock(out).done(),
                    _ => false,
                };
                if gone {
                    self.on_inbound(Inbound::Close { id });
                    continue;
                }
                if !takes(peer) {
                    break;
                }
                let next = lock(&input).next();
                match next {
                    Some(Ok(text)) => {
                        peer.in_flight.fetch_add(1, Ordering::AcqRel);
                        self.on_inbound(Inbound::Message { id, text });
                    }
                    Some(Err((code, reason))) => {
                        peer.outbox.close(code, &reason);
                        self.on_inbound(Inbound::Close { id });
                    }
                    None => {
                        if lock(&input).ended() {
                            self.on_inbound(Inbound::Close { id });
                        }
                        break;
                    }
                }
            }
        }
        self.relayed.retain(|id| self.peers.contains_key(id));
    }

    /// Writes what joined clients' sockets take of the messages queued for them.
    pub(super) fn write_relayed(&mut self) {
        if self.unwritten.take() {
            self.relay_outs.write();
        }
    }

    /// While more messages wait: writes joined clients' queued messages once
    /// `JOIN_WRITE_AFTER_MESSAGES` are queued or the first has waited `RING_AFTER_US` (a
    /// system call per few messages cost the engine more than the relay saved).
    pub(super) fn write_relayed_if_due(&mut self) {
        if self.unwritten.due(JOIN_WRITE_AFTER_MESSAGES) {
            self.write_relayed();
        }
    }

    /// A released connection: a joined client's socket is closed once its last replies are
    /// written (kept polled meanwhile, at most `STDOUT_DRAIN_MS`).
    pub(super) fn let_go(&mut self, outbox: &Outbox) {
        if let Outbox::Relayed(out) = outbox {
            self.relay_outs.remove(out);
            let mut o = lock(out);
            o.finish();
            if !o.done() && o.backlog() > 0 {
                self.leaving.push((out.clone(), Instant::now()));
            }
        }
    }
}
