//! The change set: which entities were created, moved or removed since state sync last
//! looked. Recorded as the world mutates (every path that writes a transform, creates or
//! removes an entity, and bodies moved by a physics step), so sync never diffs the world.
//! A rolled-back call takes its records back with it.

use super::{Transform, World, entity_id};

/// Entity numbers touched since the last [`World::take_changes`], in touch order, with
/// repeats. Kept bounded by folding repeats away when it grows past the world's size.
#[derive(Default)]
pub(super) struct ChangeLog {
    touched: Vec<u64>,
    /// Where the running call's records start: records before it are never folded, so its
    /// rollback can cut the log back to here.
    floor: usize,
    /// The length past which the log folds next: at least four times the world's size, and
    /// twice what the last fold left (records before a running call's floor never fold, so a
    /// log that stays long after folding must double before it folds again: every fold then
    /// halves at least, and a touch costs amortized O(log n) however long the call).
    fold_at: usize,
    /// How many times the log folded (to test the amortization).
    folds: u64,
    /// Something scene-wide changed (lighting, UI panels, speech bubbles, agents): viewers
    /// that draw the whole scene need it again. A rolled-back call leaves it set, which only
    /// costs a resend of an unchanged scene.
    scene: bool,
}

/// An entity's state as sync reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityState {
    pub number: u64,
    pub id: String,
    pub transform: Transform,
}

/// What changed since the last look.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ChangeSet {
    /// Entities created or moved, with their state now, by number.
    pub changed: Vec<EntityState>,
    /// Entities that no longer exist (numbers), ascending.
    pub removed: Vec<u64>,
    /// Lighting, UI panels, speech bubbles or agents changed.
    pub scene: bool,
}

impl ChangeSet {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.removed.is_empty() && !self.scene
    }
}

impl World {
    /// Records that entity `number` was created, moved or removed.
    pub(super) fn touch(&mut self, number: u64) {
        let log = &mut self.changes.touched;
        log.push(number);
        // Nobody may be draining (an in-process registry): fold repeats so the log never
        // outgrows the set of entities that exist or existed since the last drain. Inside a
        // call only its own records fold, so a rollback still cuts at the call's mark.
        let bound = 4 * self.settings.max_entities.max(256);
        if log.len() > bound.max(self.changes.fold_at) {
            let mut own = log.split_off(self.changes.floor.min(log.len()));
            own.sort_unstable();
            own.dedup();
            log.extend(own);
            self.changes.fold_at = 2 * log.len();
            self.changes.folds += 1;
        }
    }

    /// Records that something scene-wide changed (lighting, panels, bubbles, agents).
    pub(super) fn touch_scene(&mut self) {
        self.changes.scene = true;
    }

    /// Marks where a call's records start: a rollback cuts back to here, and folding keeps
    /// what lies before it in order until the call ends.
    pub(super) fn mark_changes(&mut self) {
        self.changes.floor = self.changes.touched.len();
    }

    /// The call is kept: folding may reach the whole log again.
    pub(super) fn keep_marked_changes(&mut self) {
        self.changes.floor = 0;
    }

    /// The call was undone: its records (and its undoing's) go.
    pub(super) fn drop_marked_changes(&mut self) {
        self.changes.touched.truncate(self.changes.floor);
        self.changes.floor = 0;
    }

    /// How many records the change log holds.
    #[cfg(test)]
    fn change_count(&self) -> usize {
        self.changes.touched.len()
    }

    /// How many times the change log folded.
    #[cfg(test)]
    fn fold_count(&self) -> u64 {
        self.changes.folds
    }

    /// Takes the changes recorded since the last call: each touched entity once, with its
    /// current state, or as removed when it no longer exists.
    pub fn take_changes(&mut self) -> ChangeSet {
        let mut touched = std::mem::take(&mut self.changes.touched);
        self.changes.floor = 0;
        self.changes.fold_at = 0;
        touched.sort_unstable();
        touched.dedup();
        let mut set = ChangeSet {
            scene: std::mem::take(&mut self.changes.scene),
            ..ChangeSet::default()
        };
        for number in touched {
            match self.entity_state(number) {
                Some(state) => set.changed.push(state),
                None => set.removed.push(number),
            }
        }
        set
    }

    /// Forgets the recorded changes (nobody is watching).
    pub fn discard_changes(&mut self) {
        self.changes.touched.clear();
        self.changes.scene = false;
        self.changes.floor = 0;
        self.changes.fold_at = 0;
    }

    /// One entity's state by number.
    pub fn entity_state(&self, number: u64) -> Option<EntityState> {
        let entity = self.entity_by_number(number)?;
        let transform = *self.ecs.get::<&Transform>(entity).ok()?;
        Some(EntityState {
            number,
            id: entity_id(number),
            transform,
        })
    }

    /// Every entity's state, by number.
    pub fn entity_states(&self) -> Vec<EntityState> {
        self.by_number
            .keys()
            .filter_map(|&n| self.entity_state(n))
            .collect()
    }

    /// Identifies this world value: a world swapped in whole (a scene reload) has another,
    /// so sync knows to send everyone a fresh snapshot.
    pub fn instance(&self) -> u64 {
        self.instance
    }
}

#[cfg(test)]
mod tests {
    use crate::world::{BodyKind, EntitySpec, Shape, World, WorldSettings};

    fn world() -> World {
        World::new(WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        })
    }

    fn spec(position: [f64; 3], body: BodyKind) -> EntitySpec {
        EntitySpec {
            shape: Shape::Box,
            collider: None,
            size: 1.0,
            color: 0,
            position,
            body,
            friction: 0.5,
            restitution: 0.0,
        }
    }

    #[test]
    fn creations_moves_and_removals_are_reported_once_each() {
        let mut w = world();
        let a = w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap();
        let b = w.create_entity(&spec([1.0; 3], BodyKind::None)).unwrap();
        w.set_transform(&a, Some([5.0, 0.0, 0.0]), None, None);
        let set = w.take_changes();
        let ids: Vec<_> = set.changed.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, [a.as_str(), b.as_str()]);
        assert_eq!(set.changed[0].transform.position, [5.0, 0.0, 0.0]);
        assert!(set.removed.is_empty());
        assert!(
            w.take_changes().is_empty(),
            "a second look sees nothing new"
        );
        assert!(w.destroy_entity(&b));
        assert_eq!(w.take_changes().removed, [2]);
    }

    #[test]
    fn a_rolled_back_call_leaves_no_changes() {
        let mut w = world();
        let a = w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap();
        w.take_changes();
        w.begin();
        w.create_entity(&spec([1.0; 3], BodyKind::None)).unwrap();
        w.set_transform(&a, Some([9.0, 9.0, 9.0]), None, None);
        w.rollback();
        assert!(w.take_changes().is_empty());
        assert_eq!(w.get_entity(&a).unwrap().transform.position, [0.0; 3]);
    }

    #[test]
    fn a_physics_step_reports_only_bodies_that_moved() {
        let mut w = world();
        let falling = w
            .create_entity(&spec([0.0, 10.0, 0.0], BodyKind::Dynamic))
            .unwrap();
        w.create_entity(&spec([5.0, 0.0, 0.0], BodyKind::Fixed))
            .unwrap();
        w.create_entity(&spec([9.0, 0.0, 0.0], BodyKind::None))
            .unwrap();
        w.take_changes();
        w.step();
        let ids: Vec<_> = w.take_changes().changed.into_iter().map(|s| s.id).collect();
        assert_eq!(ids, [falling]);
    }

    #[test]
    fn an_undrained_log_stays_bounded() {
        let mut w = world();
        let a = w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap();
        for i in 0..10_000 {
            w.set_transform(&a, Some([i as f64, 0.0, 0.0]), None, None);
        }
        assert!(w.change_count() <= 4 * 256 + 1);
        assert_eq!(w.take_changes().changed.len(), 1);
    }

    /// A restart replays a long journal with nobody draining: the log is past its bound
    /// before a call begins, and the call's own records (a physics step moving many bodies)
    /// must not fold on every touch, which made a restart quadratic in the step's size.
    #[test]
    fn a_call_on_an_undrained_log_past_its_bound_folds_logarithmically_often() {
        let mut w = world();
        let ids: Vec<String> = (0..100)
            .map(|i| {
                w.create_entity(&spec([i as f64 * 3.0, 0.0, 0.0], BodyKind::None))
                    .unwrap()
            })
            .collect();
        // Moves between calls (floor 0) fold down to the hundred entities.
        for round in 0..20 {
            for id in &ids {
                w.set_transform(id, Some([round as f64, 1.0, 0.0]), None, None);
            }
        }
        let folded_before = w.fold_count();
        // A long log below the call's floor, as a replayed journal leaves it: many kept calls
        // of one move each (a call folds only its own records, so none fold across calls).
        for round in 0..1_100 {
            w.begin();
            w.set_transform(
                &ids[round % 100],
                Some([round as f64, 2.0, 0.0]),
                None,
                None,
            );
            w.commit();
        }
        w.begin();
        assert!(w.change_count() > 4 * 256, "{}", w.change_count());
        // 10,000 touches inside one call: with a fold per touch this was 10,000 folds.
        for round in 0..100 {
            for id in &ids {
                w.set_transform(id, Some([round as f64, 3.0, 0.0]), None, None);
            }
        }
        w.commit();
        let folds = w.fold_count() - folded_before;
        assert!(folds <= 20, "{folds} folds for 10,000 touches");
        assert!(w.change_count() <= 2 * 1_200, "{}", w.change_count());
        let changed = w.take_changes().changed;
        assert_eq!(changed.len(), 100);
        assert!(changed.iter().all(|c| c.transform.position[1] == 3.0));
    }
}
