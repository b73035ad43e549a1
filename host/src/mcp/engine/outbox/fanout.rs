//! The threads that write WebSocket messages out. At a ring the engine hands them the
//! mailboxes it queued on, split into one share per thread; each thread writes every mailbox
//! of its share straight to its socket (`Wire::pump`, one `writev` per mailbox), so a delta
//! for 500 subscribers costs 500 system calls on a thread or two, and no task wake-up at all.
//! A socket that is full is left to its connection's writer task, which waits for room.
//!
//! Two threads may pump one connection (its mailbox listed at two rings in a row): the wire's
//! lock orders them, and frames are taken from the mailbox under it.

use super::Mailbox;
use super::socket::Pumped;
use std::sync::{Arc, Condvar, Mutex};

/// One thread's share of the mailboxes to write.
#[derive(Default)]
struct Share {
    listed: Mutex<Vec<Arc<Mailbox>>>,
    bell: Condvar,
}

/// The writer threads of one listener.
pub struct Fanout {
    shares: Vec<Arc<Share>>,
}

impl Fanout {
    /// Starts `threads` writer threads named `limina-{name}-out{i}`; they run for as long as the
    /// process does.
    pub fn start(name: &str, threads: usize) -> std::io::Result<Fanout> {
        let mut shares = Vec::new();
        for i in 0..threads.max(1) {
            let share = Arc::new(Share::default());
            let mine = share.clone();
            std::thread::Builder::new()
                .name(format!("limina-{name}-out{i}"))
                .spawn(move || serve(&mine))?;
            shares.push(share);
        }
        Ok(Fanout { shares })
    }

    /// Hands `mailboxes` to the threads, in shares as even as can be, and wakes them.
    pub fn hand(&self, mut mailboxes: Vec<Arc<Mailbox>>) {
        let per = mailboxes.len().div_ceil(self.shares.len());
        for share in &self.shares {
            if mailboxes.is_empty() {
                break;
            }
            let rest = mailboxes.split_off(per.min(mailboxes.len()));
            let mine = std::mem::replace(&mut mailboxes, rest);
            let mut listed = share.listed.lock().unwrap_or_else(|e| e.into_inner());
            if listed.is_empty() {
                *listed = mine;
            } else {
                listed.extend(mine);
            }
            share.bell.notify_one();
        }
    }
}

fn serve(share: &Share) {
    let mut work = Vec::new();
    loop {
        {
            let mut listed = share.listed.lock().unwrap_or_else(|e| e.into_inner());
            while listed.is_empty() {
                listed = share.bell.wait(listed).unwrap_or_else(|e| e.into_inner());
            }
            std::mem::swap(&mut work, &mut *listed);
        }
        for mailbox in work.drain(..) {
            mailbox.unlist();
            let Some(wire) = mailbox.wire.as_ref() else {
                mailbox.wake();
                continue;
            };
            match wire.pump(&mailbox) {
                Pumped::Done => {}
                // The connection's writer waits for room, or ends.
                Pumped::Blocked | Pumped::Over => mailbox.wake(),
            }
        }
    }
}
