//! The threads that write WebSocket messages out. At a ring the engine hands them the
//! mailboxes it queued on, split into one share per thread; each thread writes every mailbox
//! of its share straight to its socket (`Wire::pump`, one `writev` per mailbox), so a delta
//! for 500 subscribers costs 500 system calls on a thread or two, and no task wake-up at all.
//! A socket that is full is left to its connection's writer task, which waits for room.
//!
//! Two threads may pump one connection (its mailbox listed at two rings in a row): the wire's
//! lock orders them, and frames are taken from the mailbox under it.
//!
//! Threads that are waiting get the mailboxes first: a ring usually lists one mailbox, and a
//! reply handed to a thread still writing a picture (130 KB, about 80 µs of a core on loopback)
//! would wait behind it while the other thread sat idle.

use super::Mailbox;
use super::socket::Pumped;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// One thread's share of the mailboxes to write.
#[derive(Default)]
struct Share {
    listed: Mutex<Vec<Arc<Mailbox>>>,
    bell: Condvar,
    /// Its thread is writing (set when it takes its share, cleared before it waits).
    busy: AtomicBool,
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
        // At most 64: `hand` reads the threads' states as bits of a word.
        for i in 0..threads.clamp(1, 64) {
            let share = Arc::new(Share::default());
            let mine = share.clone();
            std::thread::Builder::new()
                .name(format!("limina-{name}-out{i}"))
                .spawn(move || serve(&mine))?;
            shares.push(share);
        }
        Ok(Fanout { shares })
    }

    /// Hands `mailboxes` to the threads, in shares as even as can be, waiting threads first,
    /// and wakes them.
    pub fn hand(&self, mut mailboxes: Vec<Arc<Mailbox>>) {
        let per = mailboxes.len().div_ceil(self.shares.len());
        // A bit per thread, read once, so each share is handed to at most once.
        let busy = self.shares.iter().enumerate().fold(0u64, |mask, (i, s)| {
            mask | (u64::from(s.busy.load(Ordering::Acquire)) << i)
        });
        for share in waiting_first(busy, self.shares.len()).map(|i| &self.shares[i]) {
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

/// The indices of `n` threads, those whose bit in `busy` is clear first, each in its order.
fn waiting_first(busy: u64, n: usize) -> impl Iterator<Item = usize> {
    let of = move |writing: bool| (0..n).filter(move |&i| (busy >> i & 1 == 1) == writing);
    of(false).chain(of(true))
}

fn serve(share: &Share) {
    let mut work = Vec::new();
    loop {
        {
            let mut listed = share.listed.lock().unwrap_or_else(|e| e.into_inner());
            if listed.is_empty() {
                share.busy.store(false, Ordering::Release);
            }
            while listed.is_empty() {
                listed = share.bell.wait(listed).unwrap_or_else(|e| e.into_inner());
            }
            share.busy.store(true, Ordering::Release);
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

#[cfg(test)]
mod tests {
    use super::waiting_first;

    #[test]
    fn waiting_threads_come_first_each_once() {
        let order = |busy: u64, n: usize| waiting_first(busy, n).collect::<Vec<_>>();
        assert_eq!(order(0b00, 2), [0, 1]);
        assert_eq!(order(0b01, 2), [1, 0]);
        assert_eq!(order(0b11, 2), [0, 1]);
        assert_eq!(order(0b0101, 4), [1, 3, 0, 2]);
        assert_eq!(order(0, 0), Vec::<usize>::new());
    }
}
