//! Areas of interest: the sphere a client wants to hear about, and the spatial index (a
//! uniform grid of entity positions) that answers "which entities are inside" without
//! scanning the world, for snapshots and for a client that moves its area.

use crate::limits::AOI_CELL_METRES;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A sphere; the distance test is inclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aoi {
    pub center: [f64; 3],
    pub radius: f64,
}

impl Aoi {
    /// `{center: [x, y, z], radius}`; `None` (everything) when absent or malformed.
    pub fn parse(value: &Value) -> Option<Aoi> {
        let center = value.get("center")?.as_array()?;
        if center.len() != 3 {
            return None;
        }
        let mut c = [0.0; 3];
        for (slot, v) in c.iter_mut().zip(center) {
            *slot = v.as_f64().filter(|x| x.is_finite())?;
        }
        let radius = value
            .get("radius")?
            .as_f64()
            .filter(|r| r.is_finite() && *r >= 0.0)?;
        Some(Aoi { center: c, radius })
    }

    pub fn contains(&self, p: [f64; 3]) -> bool {
        let d2: f64 = (0..3).map(|i| (p[i] - self.center[i]).powi(2)).sum();
        d2 <= self.radius * self.radius
    }
}

/// Whether `p` is inside `aoi` (no area: everywhere).
pub fn inside(aoi: Option<&Aoi>, p: [f64; 3]) -> bool {
    aoi.is_none_or(|a| a.contains(p))
}

type Cell = (i64, i64, i64);

/// Entity positions bucketed by grid cell.
#[derive(Default)]
pub struct SpatialGrid {
    cells: HashMap<Cell, HashSet<u64>>,
    at: HashMap<u64, (Cell, [f64; 3])>,
}

fn cell_of(p: [f64; 3]) -> Cell {
    let c = |x: f64| (x / AOI_CELL_METRES).floor() as i64;
    (c(p[0]), c(p[1]), c(p[2]))
}

impl SpatialGrid {
    /// Places (or moves) entity `number` at `p`.
    pub fn upsert(&mut self, number: u64, p: [f64; 3]) {
        let cell = cell_of(p);
        if let Some((old, _)) = self.at.insert(number, (cell, p))
            && old != cell
            && let Some(set) = self.cells.get_mut(&old)
        {
            set.remove(&number);
            if set.is_empty() {
                self.cells.remove(&old);
            }
        }
        self.cells.entry(cell).or_default().insert(number);
    }

    pub fn remove(&mut self, number: u64) {
        if let Some((cell, _)) = self.at.remove(&number)
            && let Some(set) = self.cells.get_mut(&cell)
        {
            set.remove(&number);
            if set.is_empty() {
                self.cells.remove(&cell);
            }
        }
    }

    /// Entities inside `aoi` (everything without one), ascending.
    pub fn within(&self, aoi: Option<&Aoi>) -> Vec<u64> {
        let mut out: Vec<u64> = match aoi {
            None => self.at.keys().copied().collect(),
            Some(a) => {
                let lo = cell_of(a.center.map(|c| c - a.radius));
                let hi = cell_of(a.center.map(|c| c + a.radius));
                let span = |l: i64, h: i64| (h - l + 1).max(0) as u128;
                let cells = span(lo.0, hi.0) * span(lo.1, hi.1) * span(lo.2, hi.2);
                if cells > self.cells.len() as u128 {
                    // A huge area: walking the occupied cells is cheaper.
                    self.at
                        .iter()
                        .filter(|(_, (_, p))| a.contains(*p))
                        .map(|(n, _)| *n)
                        .collect()
                } else {
                    let mut found = Vec::new();
                    for x in lo.0..=hi.0 {
                        for y in lo.1..=hi.1 {
                            for z in lo.2..=hi.2 {
                                for n in self.cells.get(&(x, y, z)).into_iter().flatten() {
                                    if a.contains(self.at[n].1) {
                                        found.push(*n);
                                    }
                                }
                            }
                        }
                    }
                    found
                }
            }
        };
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_area_parses_or_means_everything() {
        let a = Aoi::parse(&json!({"center": [1, 2, 3], "radius": 5})).unwrap();
        assert_eq!(a.center, [1.0, 2.0, 3.0]);
        assert!(a.contains([6.0, 2.0, 3.0]), "inclusive");
        assert!(!a.contains([6.1, 2.0, 3.0]));
        for bad in [
            json!({}),
            json!({"center": [1, 2], "radius": 1}),
            json!({"center": [0, 0, 0], "radius": -1}),
            json!({"center": "x", "radius": 1}),
        ] {
            assert_eq!(Aoi::parse(&bad), None, "{bad}");
        }
    }

    #[test]
    fn the_grid_finds_what_a_scan_finds_as_entities_move() {
        let mut grid = SpatialGrid::default();
        let mut positions = HashMap::new();
        for n in 0..500u64 {
            let p = [
                (n * 37 % 200) as f64 - 100.0,
                0.0,
                (n * 53 % 300) as f64 - 150.0,
            ];
            grid.upsert(n, p);
            positions.insert(n, p);
        }
        for n in (0..500u64).step_by(3) {
            let p = [n as f64 / 3.0, 1.0, -(n as f64) / 5.0];
            grid.upsert(n, p);
            positions.insert(n, p);
        }
        for n in (0..500u64).step_by(7) {
            grid.remove(n);
            positions.remove(&n);
        }
        for aoi in [
            Aoi {
                center: [0.0; 3],
                radius: 20.0,
            },
            Aoi {
                center: [50.0, 0.0, -40.0],
                radius: 33.0,
            },
            Aoi {
                center: [0.0; 3],
                radius: 10_000.0,
            },
        ] {
            let mut scan: Vec<u64> = positions
                .iter()
                .filter(|(_, p)| aoi.contains(**p))
                .map(|(n, _)| *n)
                .collect();
            scan.sort_unstable();
            assert_eq!(grid.within(Some(&aoi)), scan, "{aoi:?}");
        }
        assert_eq!(grid.within(None).len(), positions.len());
    }
}
