//! The spatial index: every entity's position bucketed in a uniform grid of cubes, kept by the
//! world as it changes, so "what lies within r of p" visits the few cells around p instead of
//! every entity. A grid over an R-tree because updates dominate — a physics step moves every
//! awake body, and a move inside its cell is one hash lookup — and, for the radii agents ask
//! about, a grid query was as fast (`cargo bench -p limina --bench spatial` measures both
//! against the full scan in the same run).
//!
//! The grid only proposes candidates; each caller applies its own exact distance test, so
//! results are exactly what a scan with that test gives. Proposing a superset takes care:
//! the box around the sphere is padded against rounding, an entity whose position is NaN
//! (which every distance test admits, NaN comparing false) is always proposed, and a query
//! whose centre or radius is not finite, or whose box spans more cells than are occupied,
//! visits every entity.

use super::World;
use std::collections::{BTreeSet, HashMap};

type Cell = [i64; 3];
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Where an entity is: its cell (`None` for a NaN position) and its slot in that cell.
#[derive(Clone, Copy)]
struct Slot {
    cell: Option<Cell>,
    index: u32,
}

/// Entity positions (by entity number) in a uniform grid.
pub struct SpatialGrid {
    side: f64,
    /// Each occupied cell's entities with their positions.
    cells: Map<Cell, Vec<(u64, [f64; 3])>>,
    at: Map<u64, Slot>,
    /// Entities whose position has a NaN coordinate: in no cell, proposed to every query.
    unplaced: BTreeSet<u64>,
    unplaced_at: Map<u64, [f64; 3]>,
}

impl SpatialGrid {
    /// An empty grid of cubes `side` metres wide.
    pub fn new(side: f64) -> SpatialGrid {
        assert!(side > 0.0 && side.is_finite(), "a cell side is positive");
        SpatialGrid {
            side,
            cells: Map::default(),
            at: Map::default(),
            unplaced: BTreeSet::new(),
            unplaced_at: Map::default(),
        }
    }

    /// Entities held.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// The cell of a coordinate: monotonic in it (a saturating cast), so a box's corner cells
    /// bound the cells of everything inside it, however far out.
    fn cell_of(&self, p: [f64; 3]) -> Option<Cell> {
        if p.iter().any(|c| c.is_nan()) {
            return None;
        }
        Some(p.map(|c| (c / self.side).floor() as i64))
    }

    /// Places entity `number` at `p`, or moves it there.
    pub fn put(&mut self, number: u64, p: [f64; 3]) {
        let cell = self.cell_of(p);
        if let Some(slot) = self.at.get(&number).copied() {
            if slot.cell == cell {
                match cell {
                    Some(c) => {
                        self.cells.get_mut(&c).expect("slot's cell")[slot.index as usize].1 = p
                    }
                    None => {
                        self.unplaced_at.insert(number, p);
                    }
                }
                return;
            }
            self.take(number, slot);
        }
        let index = match cell {
            Some(c) => {
                let entries = self.cells.entry(c).or_default();
                entries.push((number, p));
                entries.len() as u32 - 1
            }
            None => {
                self.unplaced.insert(number);
                self.unplaced_at.insert(number, p);
                0
            }
        };
        self.at.insert(number, Slot { cell, index });
    }

    /// Forgets entity `number` (nothing when it is not held).
    pub fn remove(&mut self, number: u64) {
        if let Some(slot) = self.at.remove(&number) {
            self.take(number, slot);
        }
    }

    /// Takes `number` out of its slot's cell; the cell's last entry fills the hole.
    fn take(&mut self, number: u64, slot: Slot) {
        let Some(cell) = slot.cell else {
            self.unplaced.remove(&number);
            self.unplaced_at.remove(&number);
            return;
        };
        let entries = self.cells.get_mut(&cell).expect("slot's cell");
        entries.swap_remove(slot.index as usize);
        if let Some(&(moved, _)) = entries.get(slot.index as usize) {
            self.at.get_mut(&moved).expect("moved entry is held").index = slot.index;
        }
        if entries.is_empty() {
            self.cells.remove(&cell);
        }
    }

    /// Where entity `number` is, if held.
    pub fn position(&self, number: u64) -> Option<[f64; 3]> {
        let slot = self.at.get(&number)?;
        match slot.cell {
            Some(c) => Some(self.cells[&c][slot.index as usize].1),
            None => self.unplaced_at.get(&number).copied(),
        }
    }

    /// The cells a query around `center` within `radius` would visit, or `None` when it
    /// visits every entity instead (a centre or radius that is not finite, or a box spanning
    /// more cells than are occupied).
    fn span(&self, center: [f64; 3], radius: f64) -> Option<(Cell, Cell)> {
        if !(radius.is_finite() && center.iter().all(|c| c.is_finite())) {
            return None;
        }
        // Generous padding: the box must hold every point a distance test rounded to within
        // `radius`, and the error of these sums is far below a billionth of their size.
        let pad = |c: f64| (c.abs() + radius.abs()) * 1e-9 + f64::MIN_POSITIVE;
        let lo = self.cell_of(std::array::from_fn(|i| center[i] - radius - pad(center[i])))?;
        let hi = self.cell_of(std::array::from_fn(|i| center[i] + radius + pad(center[i])))?;
        let cells = (0..3)
            .map(|i| (hi[i] as i128 - lo[i] as i128 + 1).max(0) as u128)
            .product::<u128>();
        (cells <= self.cells.len() as u128).then_some((lo, hi))
    }

    /// Roughly how many entries a query around `center` within `radius` visits: to choose
    /// between it and another index.
    pub fn cost(&self, center: [f64; 3], radius: f64) -> usize {
        match self.span(center, radius) {
            None => self.len(),
            Some((lo, hi)) => {
                let cells: usize = (0..3)
                    .map(|i| (hi[i] - lo[i] + 1).max(0) as usize)
                    .product();
                let per_cell = self.len().div_ceil(self.cells.len().max(1));
                cells.saturating_mul(per_cell) + self.unplaced.len()
            }
        }
    }

    /// Calls `visit` with every entity that may lie within `radius` of `center` (a superset:
    /// the caller tests the distance), each once, in no particular order.
    pub fn candidates(&self, center: [f64; 3], radius: f64, mut visit: impl FnMut(u64, [f64; 3])) {
        for &number in &self.unplaced {
            visit(number, self.unplaced_at[&number]);
        }
        let Some((lo, hi)) = self.span(center, radius) else {
            for entries in self.cells.values() {
                for &(number, p) in entries {
                    visit(number, p);
                }
            }
            return;
        };
        for x in lo[0]..=hi[0] {
            for y in lo[1]..=hi[1] {
                for z in lo[2]..=hi[2] {
                    for &(number, p) in self.cells.get(&[x, y, z]).into_iter().flatten() {
                        visit(number, p);
                    }
                }
            }
        }
    }
}

impl World {
    /// The entities within `radius` of `center` that `inside` admits (given each one's
    /// position), ascending: the caller's own distance test decides, over the candidates the
    /// spatial index proposes.
    pub fn entities_within(
        &self,
        center: [f64; 3],
        radius: f64,
        inside: impl Fn([f64; 3]) -> bool,
    ) -> Vec<u64> {
        let mut found = Vec::new();
        self.places.candidates(center, radius, |number, p| {
            if inside(p) {
                found.push(number);
            }
        });
        found.sort_unstable();
        found
    }

    /// Every entity's number, ascending.
    pub fn entity_numbers(&self) -> Vec<u64> {
        self.by_number.keys().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(grid: &SpatialGrid, center: [f64; 3], radius: f64) -> Vec<u64> {
        let mut out = Vec::new();
        grid.candidates(center, radius, |n, _| out.push(n));
        out.sort_unstable();
        out
    }

    #[test]
    fn moves_within_and_across_cells_and_removals_keep_every_slot_true() {
        let mut grid = SpatialGrid::new(4.0);
        for n in 0..20u64 {
            grid.put(n, [n as f64 * 5.0, 0.0, 0.0]);
        }
        grid.put(3, [13.7, 0.1, 0.0]); // same cell
        grid.put(4, [100.0, 0.0, 0.0]); // another cell
        grid.remove(0); // a hole filled by the cell's last entry
        grid.remove(0); // nothing
        grid.put(5, [f64::NAN, 0.0, 0.0]);
        assert_eq!(grid.len(), 19);
        for n in 1..20u64 {
            let p = grid.position(n).unwrap();
            if n == 5 {
                assert!(p[0].is_nan());
            } else {
                assert!(found(&grid, p, 0.0).contains(&n), "{n} at {p:?}");
            }
        }
        assert_eq!(grid.position(0), None);
        assert_eq!(grid.position(3), Some([13.7, 0.1, 0.0]));
        // The NaN one is proposed everywhere; the far one only near it (the query's eight
        // cells are fewer than the twenty occupied, so it visits only those).
        assert!(found(&grid, [-500.0; 3], 1.0).contains(&5));
        assert_eq!(found(&grid, [100.0, 0.0, 0.0], 0.5), vec![4, 5]);
        grid.put(5, [2.0, 2.0, 2.0]);
        assert_eq!(found(&grid, [-500.0; 3], 1.0), Vec::<u64>::new());
    }

    #[test]
    fn an_unbounded_query_visits_everything_once() {
        let mut grid = SpatialGrid::new(16.0);
        for n in 0..50u64 {
            grid.put(n, [n as f64 * 40.0, -(n as f64), 1e300 * n as f64]);
        }
        grid.put(50, [f64::INFINITY, 0.0, 0.0]);
        let all: Vec<u64> = (0..=50).collect();
        assert_eq!(found(&grid, [0.0; 3], f64::INFINITY), all);
        assert_eq!(found(&grid, [f64::NAN, 0.0, 0.0], 1.0), all);
        assert_eq!(found(&grid, [0.0; 3], 1e9), all, "more cells than occupied");
        assert_eq!(grid.cost([0.0; 3], f64::INFINITY), 51);
    }
}
