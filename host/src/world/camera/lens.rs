//! Where the camera stands and what it looks at: the shot a caller asks for, checked field by
//! field, and the lens that turns world points into pixels.

use super::super::WorldError;
use crate::limits::{MAX_CAPTURE_EDGE, MAX_CAPTURE_PIXELS};

/// A picture to take.
#[derive(Debug, Clone, PartialEq)]
pub struct Shot {
    /// Where the camera is, in metres.
    pub position: [f64; 3],
    /// The point at the centre of the picture.
    pub look_at: [f64; 3],
    /// Which way is up in the picture (need not be exact; only its part across the view counts).
    pub up: [f64; 3],
    /// Vertical field of view, in degrees.
    pub fov_degrees: f64,
    pub width: u32,
    pub height: u32,
    /// 0xRRGGBB where nothing is drawn.
    pub background: u32,
    /// Whether UI panels' anchors are marked.
    pub panels: bool,
}

impl Shot {
    /// A shot with the defaults: up is +y, 60° field of view, a grey-blue sky, panels marked.
    pub fn new(position: [f64; 3], look_at: [f64; 3], width: u32, height: u32) -> Shot {
        Shot {
            position,
            look_at,
            up: [0.0, 1.0, 0.0],
            fov_degrees: 60.0,
            width,
            height,
            background: 0x1d_2433,
            panels: true,
        }
    }

    /// Refuses a shot that cannot be taken, naming the field and what it must be.
    pub fn check(&self) -> Result<(), WorldError> {
        let invalid = |m: String| Err(WorldError::Invalid(m));
        for (field, v) in [
            ("position", self.position),
            ("lookAt", self.look_at),
            ("up", self.up),
        ] {
            if !v.iter().all(|c| c.is_finite()) {
                return invalid(format!("`{field}` must hold three finite numbers"));
            }
        }
        for (field, edge) in [("width", self.width), ("height", self.height)] {
            if edge == 0 || edge > MAX_CAPTURE_EDGE {
                return invalid(format!(
                    "`{field}` must be ≥ 1 and ≤ {MAX_CAPTURE_EDGE} pixels, got {edge}"
                ));
            }
        }
        let pixels = u64::from(self.width) * u64::from(self.height);
        if pixels > MAX_CAPTURE_PIXELS {
            return invalid(format!(
                "`width` × `height` must be ≤ {MAX_CAPTURE_PIXELS} pixels, got {} × {} = {pixels}; \
                 ask for a smaller picture",
                self.width, self.height
            ));
        }
        if !(self.fov_degrees > 1.0 && self.fov_degrees < 170.0) {
            return invalid(format!(
                "`fovDegrees` must be > 1 and < 170, got {}",
                self.fov_degrees
            ));
        }
        if self.background > 0xff_ffff {
            return invalid(format!(
                "`background` must be a colour 0xRRGGBB, from 0 to 16777215, got {}",
                self.background
            ));
        }
        let forward = sub(f32x3(self.look_at), f32x3(self.position));
        if dot(forward, forward) < 1e-8 {
            return invalid(
                "`lookAt` must differ from `position`: the camera needs a direction to look in"
                    .into(),
            );
        }
        if dot(self.up.map(|c| c as f32), self.up.map(|c| c as f32)) < 1e-12 {
            return invalid("`up` must not be the zero vector".into());
        }
        Ok(())
    }
}

pub(super) type V3 = [f32; 3];

pub(super) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub(super) fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub(super) fn scale(a: V3, s: f32) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
pub(super) fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub(super) fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub(super) fn normalize(a: V3) -> V3 {
    let len = dot(a, a).sqrt();
    if len > 0.0 { scale(a, 1.0 / len) } else { a }
}
fn f32x3(v: [f64; 3]) -> V3 {
    [v[0] as f32, v[1] as f32, v[2] as f32]
}

/// `v` turned by the unit quaternion `q` (x, y, z, w).
pub(super) fn rotate(q: [f32; 4], v: V3) -> V3 {
    let u = [q[0], q[1], q[2]];
    let t = scale(cross(u, v), 2.0);
    add(add(v, scale(t, q[3])), cross(u, t))
}

/// A pinhole camera: view space has x right, y up and z forward (depth), in metres.
pub(super) struct Lens {
    eye: V3,
    right: V3,
    up: V3,
    forward: V3,
    /// Pixels per unit of x/z (square pixels).
    pub focal: f32,
    pub cx: f32,
    pub cy: f32,
    pub width: usize,
    pub height: usize,
}

/// Nothing nearer than this is drawn, in metres.
pub(super) const NEAR: f32 = 0.05;

impl Lens {
    /// The lens of a checked shot.
    pub fn new(shot: &Shot) -> Lens {
        let eye = f32x3(shot.position);
        let forward = normalize(sub(f32x3(shot.look_at), eye));
        let mut right = cross(forward, f32x3(shot.up));
        if dot(right, right) < 1e-10 {
            // Looking along `up`: any sideways direction will do.
            right = cross(forward, [0.0, 0.0, 1.0]);
            if dot(right, right) < 1e-10 {
                right = cross(forward, [1.0, 0.0, 0.0]);
            }
        }
        let right = normalize(right);
        let up = cross(right, forward);
        let half_fov = (shot.fov_degrees as f32).to_radians() / 2.0;
        Lens {
            eye,
            right,
            up,
            forward,
            focal: shot.height as f32 / 2.0 / half_fov.tan(),
            cx: shot.width as f32 / 2.0,
            cy: shot.height as f32 / 2.0,
            width: shot.width as usize,
            height: shot.height as usize,
        }
    }

    /// A world point in view space.
    pub fn to_view(&self, p: V3) -> V3 {
        let d = sub(p, self.eye);
        [dot(d, self.right), dot(d, self.up), dot(d, self.forward)]
    }

    /// A world direction in view space.
    pub fn dir_to_view(&self, d: V3) -> V3 {
        [dot(d, self.right), dot(d, self.up), dot(d, self.forward)]
    }

    /// Where a view-space point in front of the camera lands, in pixels (y down).
    pub fn to_screen(&self, v: V3) -> (f32, f32) {
        (
            self.cx + v[0] / v[2] * self.focal,
            self.cy - v[1] / v[2] * self.focal,
        )
    }

    /// Whether a sphere around `c` (view space) of radius `r` may show in the picture.
    pub fn may_see(&self, c: V3, r: f32) -> bool {
        if c[2] + r < NEAR {
            return false;
        }
        // The four side planes through the eye: x·f − z·w/2 ≤ 0 and the like.
        for (coord, half) in [
            (c[0], self.cx),
            (-c[0], self.cx),
            (c[1], self.cy),
            (-c[1], self.cy),
        ] {
            let len = (self.focal * self.focal + half * half).sqrt();
            if (coord * self.focal - c[2] * half) / len > r {
                return false;
            }
        }
        true
    }
}
