//! Whose message the engine handles next. Messages wait per connection, and connections take
//! turns by the engine time they have used (start-time fair queuing): the one that used the
//! least goes next, one message at a time. A client pipelining many calls, or calling a
//! package that runs each call to the engine's deadline, gets the engine no more often than
//! a client that pings — after each of its calls, everyone else waiting goes first — and a
//! connection that was idle comes back level with the others, without credit saved up. Of
//! connections level with each other (two back from idle at once: one between its calls to a
//! package that spins to the engine's slice, one that pings), the one whose last turn was
//! cheaper goes first, so the ping waits for the call running when it came, not a second.

use super::inbox::PeerId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

/// The connections with a message to handle, by the engine time they have used.
#[derive(Default)]
pub(super) struct Turns {
    /// (virtual time, cost of its last turn, arrival order, connection); stale entries are
    /// skipped by the caller.
    waiting: BinaryHeap<Reverse<(u64, u64, u64, PeerId)>>,
    /// The virtual time of the last turn given: where a connection coming back starts.
    now: u64,
    arrivals: u64,
}

/// A connection's place in the turns.
#[derive(Default)]
pub(super) struct Place {
    /// Engine time it has used, in nanoseconds, from where it (re)joined.
    used: u64,
    /// What its last turn took, in nanoseconds.
    last: u64,
    /// It is waiting for a turn.
    queued: bool,
}

impl Turns {
    /// `peer` has a message to handle: it waits for its turn (once, however many it has).
    pub fn ready(&mut self, peer: PeerId, place: &mut Place) {
        if place.queued {
            return;
        }
        place.queued = true;
        // No credit for having been idle: it starts level with the turn being given.
        place.used = place.used.max(self.now);
        self.arrivals += 1;
        self.waiting
            .push(Reverse((place.used, place.last, self.arrivals, peer)));
    }

    /// The connection whose turn it is; the caller checks it is still there and `queued`,
    /// and calls [`Turns::took`] once its message is handled.
    pub fn next(&mut self) -> Option<PeerId> {
        let Reverse((used, _, _, peer)) = self.waiting.pop()?;
        self.now = self.now.max(used);
        Some(peer)
    }

    /// Whether any connection waits for a turn.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// `place`'s turn is over: it took `took` of the engine.
    pub fn took(place: &mut Place, took: Duration) {
        place.queued = false;
        place.last = took.as_nanos().min(u64::MAX as u128) as u64;
        place.used = place.used.saturating_add(place.last);
    }

    /// `place` left the turns without a message handled (it cannot go on yet).
    pub fn skipped(place: &mut Place) {
        place.queued = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `rounds` turns of `peers` (each with messages costing its time, in µs, and more
    /// always waiting); the order they went in.
    fn play(costs: &[(PeerId, u64)], rounds: usize) -> Vec<PeerId> {
        let mut turns = Turns::default();
        let mut places: Vec<Place> = costs.iter().map(|_| Place::default()).collect();
        for (i, (peer, _)) in costs.iter().enumerate() {
            turns.ready(*peer, &mut places[i]);
        }
        let mut order = Vec::new();
        for _ in 0..rounds {
            let peer = turns.next().unwrap();
            let i = costs.iter().position(|(p, _)| *p == peer).unwrap();
            order.push(peer);
            Turns::took(&mut places[i], Duration::from_micros(costs[i].1));
            turns.ready(peer, &mut places[i]);
        }
        order
    }

    #[test]
    fn a_cheap_client_goes_after_every_expensive_call_and_never_waits_behind_two() {
        // 1 and 2 spin to the deadline (5 ms a call); 3 pings (50 µs).
        let order = play(&[(1, 5000), (2, 5000), (3, 50)], 60);
        for window in order.windows(3) {
            assert!(
                window.contains(&3),
                "the pinger waited behind two calls: {order:?}"
            );
        }
        let pings = order.iter().filter(|p| **p == 3).count();
        assert!(pings > 30, "{order:?}");
    }

    /// 1 and 2 call a package that spins to the slice, each waiting for its reply before the
    /// next call; 3 pings. While 1's call runs, 2's next call and 3's ping arrive: both come
    /// back level with the turn being given, and the ping goes first.
    #[test]
    fn of_two_back_from_idle_at_once_the_cheaper_goes_first() {
        let mut turns = Turns::default();
        let (mut a, mut b, mut c) = (Place::default(), Place::default(), Place::default());
        for (peer, place, cost) in [(1, &mut a, 5000), (2, &mut b, 5000), (3, &mut c, 50)] {
            turns.ready(peer, place);
            assert_eq!(turns.next(), Some(peer));
            Turns::took(place, Duration::from_micros(cost));
        }
        for _ in 0..10 {
            turns.ready(1, &mut a);
            assert_eq!(turns.next(), Some(1));
            // Meanwhile 2 (arriving first) and 3 come back.
            turns.ready(2, &mut b);
            turns.ready(3, &mut c);
            Turns::took(&mut a, Duration::from_millis(5));
            assert_eq!(
                turns.next(),
                Some(3),
                "the ping waited behind a second call"
            );
            Turns::took(&mut c, Duration::from_micros(50));
            assert_eq!(turns.next(), Some(2));
            Turns::took(&mut b, Duration::from_millis(5));
        }
    }

    #[test]
    fn a_connection_back_from_idle_starts_level_and_equal_costs_take_turns() {
        let mut turns = Turns::default();
        let (mut a, mut b) = (Place::default(), Place::default());
        // `a` worked alone for a long while.
        for _ in 0..100 {
            turns.ready(1, &mut a);
            assert_eq!(turns.next(), Some(1));
            Turns::took(&mut a, Duration::from_millis(1));
        }
        // `b` arrives: it gets no credit for its idle time, so `a` is not shut out.
        turns.ready(1, &mut a);
        turns.ready(2, &mut b);
        let mut order = Vec::new();
        for _ in 0..6 {
            let peer = turns.next().unwrap();
            order.push(peer);
            let place = if peer == 1 { &mut a } else { &mut b };
            Turns::took(place, Duration::from_millis(1));
            turns.ready(peer, place);
        }
        assert_eq!(order.iter().filter(|p| **p == 1).count(), 3, "{order:?}");
    }
}
