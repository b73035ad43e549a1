//! The bench scene as a render snapshot: `n` entities (boxes and spheres of several sizes and
//! colours) scattered over a 60 m square up to 6 m high on a ground slab, seen whole from above
//! and aside. Shared by the native bench and its wasm32 build (`camera_wasm/`), so both draw
//! the same picture.

use crate::world::{Drawn, RenderSnapshot, Shape, Shot};

/// A small deterministic stream (splitmix64), the same on every target.
fn stream(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

pub fn snapshot(n: usize) -> RenderSnapshot {
    let mut unit = stream(44);
    let colors = [0xd9_4040, 0x40_b060, 0x40_60d0, 0xe0_c030, 0xa0_a0a0];
    let thing = |shape, size, color, position| Drawn {
        shape,
        position,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        size,
        color,
        metalness: 0.0,
    };
    let mut entities = vec![thing(Shape::Box, 50.0, 0x70_7070, [0.0, -25.0, 0.0])];
    for i in 1..n {
        let shape = if i % 2 == 0 {
            Shape::Box
        } else {
            Shape::Sphere
        };
        let at = [unit() * 60.0 - 30.0, unit() * 6.0, unit() * 60.0 - 30.0];
        let size = 0.3 + unit() * 1.2;
        entities.push(thing(shape, size, colors[i % colors.len()], at));
    }
    RenderSnapshot {
        tick: 0,
        entities,
        lighting: Default::default(),
        anchors: Vec::new(),
    }
}

pub fn shot(width: u32, height: u32) -> Shot {
    Shot::new([45.0, 35.0, 45.0], [0.0, 0.0, 0.0], width, height)
}
