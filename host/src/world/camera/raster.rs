//! The drawing: boxes as z-buffered triangles (clipped at the near plane), spheres exactly
//! (a ray per pixel of their screen bounds), each lit by Lambert's law from the scene's ambient
//! and sun lights the way three.js lights a `MeshStandardMaterial` without reflections
//! (diffuse = albedo × (1 − metalness) / π, in linear light, written as sRGB).

use super::lens::{Lens, NEAR, V3, add, dot, normalize, rotate, scale, sub};
use super::snapshot::{Corner, Drawn, PanelAnchor, RenderSnapshot};
use crate::world::{Lighting, Shape};
use std::sync::OnceLock;

/// Pixels and their depths.
pub(super) struct Canvas {
    pub width: usize,
    pub height: usize,
    /// RGB, 8 bits each, rows top to bottom.
    pub rgb: Vec<u8>,
    /// View depth of what each pixel shows; infinity where nothing is.
    depth: Vec<f32>,
    pace: Pace,
}

/// Pixels visited between two pauses of a paced drawing: a twentieth of a 640 × 480 view,
/// about a tenth of a millisecond of a core (a fifth of the view, as before, let a thread
/// woken on the worker's core wait half a millisecond and more).
pub(super) const BAND_PIXELS: usize = 16_384;
/// What an entity counts for besides its pixels (projecting it, culling it).
const ENTITY_PIXELS: usize = 64;

/// Work done since the drawing last paused, and what it calls to pause.
struct Pace {
    pause: Option<fn()>,
    work: usize,
}

impl Pace {
    /// `pixels` more were visited; pauses once a band's worth has been.
    fn spent(&mut self, pixels: usize) {
        if let Some(pause) = self.pause {
            self.work += pixels;
            if self.work >= BAND_PIXELS {
                self.work = 0;
                pause();
            }
        }
    }
}

/// The scene's lights, in linear light and view space.
struct Light {
    ambient: [f32; 3],
    sun: [f32; 3],
    to_sun: V3,
}

/// sRGB 8-bit to linear, and linear (in 4096 steps) back to sRGB 8-bit.
struct Tables {
    to_linear: [f32; 256],
    to_srgb: Vec<u8>,
}

const SRGB_STEPS: usize = 4096;

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut to_linear = [0.0; 256];
        for (i, l) in to_linear.iter_mut().enumerate() {
            let c = i as f32 / 255.0;
            *l = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
        }
        let to_srgb = (0..SRGB_STEPS)
            .map(|i| {
                let l = i as f32 / (SRGB_STEPS - 1) as f32;
                let c = if l <= 0.003_130_8 {
                    l * 12.92
                } else {
                    1.055 * l.powf(1.0 / 2.4) - 0.055
                };
                (c * 255.0 + 0.5) as u8
            })
            .collect();
        Tables { to_linear, to_srgb }
    })
}

fn linear(color: u32) -> [f32; 3] {
    let t = &tables().to_linear;
    [
        t[(color >> 16 & 0xff) as usize],
        t[(color >> 8 & 0xff) as usize],
        t[(color & 0xff) as usize],
    ]
}

fn srgb(c: [f32; 3]) -> [u8; 3] {
    let t = &tables().to_srgb;
    let top = (SRGB_STEPS - 1) as f32;
    c.map(|v| t[(v.clamp(0.0, 1.0) * top) as usize])
}

/// A surface's colour and how it takes light.
#[derive(Clone, Copy)]
struct Paint {
    /// Linear albedo × (1 − metalness) / π.
    diffuse: [f32; 3],
}

impl Paint {
    fn of(e: &Drawn) -> Paint {
        let k = (1.0 - e.metalness.clamp(0.0, 1.0)) / std::f32::consts::PI;
        Paint {
            diffuse: linear(e.color).map(|c| c * k),
        }
    }

    /// Its colour where the surface faces `normal` (view space, unit).
    fn lit(self, light: &Light, normal: V3) -> [u8; 3] {
        let n_dot_l = dot(normal, light.to_sun).max(0.0);
        srgb(std::array::from_fn(|i| {
            self.diffuse[i] * (light.ambient[i] + light.sun[i] * n_dot_l)
        }))
    }
}

impl Canvas {
    /// A canvas of `lens`'s size filled with `background`; with `pause`, the drawing calls it
    /// between bands of about `BAND_PIXELS` pixels (a worker lets others have its core).
    pub fn new(lens: &Lens, background: u32, pause: Option<fn()>) -> Canvas {
        let pixels = lens.width * lens.height;
        let bg = [
            (background >> 16) as u8,
            (background >> 8) as u8,
            background as u8,
        ];
        Canvas {
            width: lens.width,
            height: lens.height,
            // Copied in doubling runs: a byte-by-byte fill took a quarter of the drawing.
            rgb: bg.repeat(pixels),
            depth: vec![f32::INFINITY; pixels],
            pace: Pace { pause, work: 0 },
        }
    }

    /// Draws every entity of `snapshot`; returns how many were in view.
    pub fn draw(&mut self, lens: &Lens, snapshot: &RenderSnapshot) -> usize {
        let light = lights(lens, &snapshot.lighting);
        let mut seen = 0;
        for e in &snapshot.entities {
            let center = lens.to_view(e.position);
            let extent = e.size / 2.0 * e.scale.iter().fold(0.0f32, |m, s| m.max(s.abs()));
            let reach = match e.shape {
                Shape::Box => extent * 3f32.sqrt(),
                Shape::Sphere => extent,
            };
            self.pace.spent(ENTITY_PIXELS);
            if extent <= 0.0 || !lens.may_see(center, reach) {
                continue;
            }
            seen += 1;
            match e.shape {
                Shape::Box => self.draw_box(lens, &light, e),
                Shape::Sphere => self.draw_sphere(lens, &light, Paint::of(e), center, extent),
            }
        }
        seen
    }

    fn draw_box(&mut self, lens: &Lens, light: &Light, e: &Drawn) {
        let paint = Paint::of(e);
        let half = e.size / 2.0;
        // The box's half-edges along its own axes, in view space.
        let axes: [V3; 3] = std::array::from_fn(|i| {
            let mut unit = [0.0; 3];
            unit[i] = half * e.scale[i];
            lens.dir_to_view(rotate(e.rotation, unit))
        });
        let center = lens.to_view(e.position);
        let corner = |bits: [f32; 3]| (0..3).fold(center, |p, i| add(p, scale(axes[i], bits[i])));
        for i in 0..3 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            for side in [-1.0f32, 1.0] {
                let normal = normalize(scale(axes[i], side));
                let face_center = add(center, scale(axes[i], side));
                // Facing away from the eye (at the origin of view space): hidden.
                if dot(normal, face_center) >= 0.0 {
                    continue;
                }
                let color = paint.lit(light, normal);
                let quad = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(a, b)| {
                    let mut bits = [0.0; 3];
                    bits[i] = side;
                    bits[j] = a;
                    bits[k] = b;
                    corner(bits)
                });
                self.fill_polygon(lens, &quad, color);
            }
        }
    }

    /// Fills a convex polygon (view space), clipped at the near plane.
    fn fill_polygon(&mut self, lens: &Lens, polygon: &[V3], color: [u8; 3]) {
        let mut clipped: Vec<V3> = Vec::with_capacity(polygon.len() + 2);
        for (n, &a) in polygon.iter().enumerate() {
            let b = polygon[(n + 1) % polygon.len()];
            if a[2] >= NEAR {
                clipped.push(a);
            }
            if (a[2] >= NEAR) != (b[2] >= NEAR) {
                let t = (NEAR - a[2]) / (b[2] - a[2]);
                clipped.push(add(a, scale(sub(b, a), t)));
            }
        }
        for n in 1..clipped.len().saturating_sub(1) {
            self.fill_triangle(lens, [clipped[0], clipped[n], clipped[n + 1]], color);
        }
    }

    /// Fills a triangle in front of the near plane: depth is 1/z interpolated across the
    /// screen (exact under perspective), tested per pixel centre.
    fn fill_triangle(&mut self, lens: &Lens, v: [V3; 3], color: [u8; 3]) {
        let p = v.map(|v| lens.to_screen(v));
        let inv_z = v.map(|v| 1.0 / v[2]);
        let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
        if area.abs() < 1e-6 {
            return;
        }
        let min_x = p
            .iter()
            .fold(f32::INFINITY, |m, q| m.min(q.0))
            .floor()
            .max(0.0) as usize;
        let min_y = p
            .iter()
            .fold(f32::INFINITY, |m, q| m.min(q.1))
            .floor()
            .max(0.0) as usize;
        let max_x = p.iter().fold(f32::NEG_INFINITY, |m, q| m.max(q.0)).ceil();
        let max_y = p.iter().fold(f32::NEG_INFINITY, |m, q| m.max(q.1)).ceil();
        let max_x = (max_x.max(0.0) as usize).min(self.width);
        let max_y = (max_y.max(0.0) as usize).min(self.height);
        // Edge n is opposite vertex n: w_n(x, y) = a_n·x + b_n·y + c_n, scaled by 1/area so
        // the three weights sum to one.
        let edge = |from: (f32, f32), to: (f32, f32)| {
            let a = (from.1 - to.1) / area;
            let b = (to.0 - from.0) / area;
            (a, b, -(a * from.0 + b * from.1))
        };
        let e = [edge(p[1], p[2]), edge(p[2], p[0]), edge(p[0], p[1])];
        for y in min_y..max_y {
            self.pace.spent(max_x - min_x);
            let py = y as f32 + 0.5;
            let row = y * self.width;
            for x in min_x..max_x {
                let px = x as f32 + 0.5;
                let w = e.map(|(a, b, c)| a * px + b * py + c);
                if w[0] < 0.0 || w[1] < 0.0 || w[2] < 0.0 {
                    continue;
                }
                let z = 1.0 / (w[0] * inv_z[0] + w[1] * inv_z[1] + w[2] * inv_z[2]);
                self.plot(row + x, z, color);
            }
        }
    }

    fn plot(&mut self, at: usize, z: f32, color: [u8; 3]) {
        if z < self.depth[at] {
            self.depth[at] = z;
            self.rgb[at * 3..at * 3 + 3].copy_from_slice(&color);
        }
    }

    /// A sphere of radius `r` around `c` (view space): a ray through each pixel of its
    /// screen bounds, shaded by its normal where it hits.
    fn draw_sphere(&mut self, lens: &Lens, light: &Light, paint: Paint, c: V3, r: f32) {
        let (x0, x1, y0, y1) = if c[2] - r > NEAR {
            // x/z over the sphere's view-space bounding box is extreme at its corners.
            let (mut lo, mut hi) = (
                (f32::INFINITY, f32::INFINITY),
                (f32::NEG_INFINITY, f32::NEG_INFINITY),
            );
            for dx in [-r, r] {
                for dy in [-r, r] {
                    for dz in [-r, r] {
                        let (sx, sy) = lens.to_screen([c[0] + dx, c[1] + dy, c[2] + dz]);
                        lo = (lo.0.min(sx), lo.1.min(sy));
                        hi = (hi.0.max(sx), hi.1.max(sy));
                    }
                }
            }
            (lo.0.floor(), hi.0.ceil(), lo.1.floor(), hi.1.ceil())
        } else {
            (0.0, self.width as f32, 0.0, self.height as f32)
        };
        let clamp = |v: f32, top: usize| (v.max(0.0) as usize).min(top);
        let (x0, x1) = (clamp(x0, self.width), clamp(x1, self.width));
        let (y0, y1) = (clamp(y0, self.height), clamp(y1, self.height));
        let c_c = dot(c, c) - r * r;
        let inv_r = 1.0 / r;
        for y in y0..y1 {
            self.pace.spent(x1 - x0);
            let dy = -(y as f32 + 0.5 - lens.cy) / lens.focal;
            for x in x0..x1 {
                // The ray's direction with z = 1, so the hit's distance along it is its depth.
                let d = [(x as f32 + 0.5 - lens.cx) / lens.focal, dy, 1.0];
                let a = dot(d, d);
                let b = dot(d, c);
                let disc = b * b - a * c_c;
                if disc < 0.0 {
                    continue;
                }
                let z = (b - disc.sqrt()) / a;
                let at = y * self.width + x;
                if z < NEAR || z >= self.depth[at] {
                    continue;
                }
                let normal = scale(sub(scale(d, z), c), inv_r);
                self.plot(at, z, paint.lit(light, normal));
            }
        }
    }

    /// Marks each panel's anchor: a white square with a dark rim at a world anchor (hidden
    /// behind what stands in front unless the panel ignores depth), a framed bar at a screen
    /// place. Returns how many were marked.
    pub fn mark_anchors(&mut self, lens: &Lens, anchors: &[PanelAnchor]) -> usize {
        let mut marked = 0;
        for anchor in anchors {
            match *anchor {
                PanelAnchor::World { at, on_top } => {
                    let v = lens.to_view(at);
                    if v[2] < NEAR {
                        continue;
                    }
                    let (sx, sy) = lens.to_screen(v);
                    let z = if on_top { 0.0 } else { v[2] };
                    if self.rectangle(sx, sy, 4, 4, z) {
                        marked += 1;
                    }
                }
                PanelAnchor::Screen { corner, margin_px } => {
                    let (w, h) = (self.width as f32, self.height as f32);
                    let (hw, hh) = (24.0, 8.0);
                    let m = margin_px.max(0.0);
                    let x = match corner {
                        Corner::TopLeft | Corner::BottomLeft => m + hw,
                        Corner::TopRight | Corner::BottomRight => w - m - hw,
                        Corner::Top | Corner::Bottom | Corner::Center => w / 2.0,
                    };
                    let y = match corner {
                        Corner::TopLeft | Corner::TopRight | Corner::Top => m + hh,
                        Corner::BottomLeft | Corner::BottomRight | Corner::Bottom => h - m - hh,
                        Corner::Center => h / 2.0,
                    };
                    if self.rectangle(x, y, hw as i64, hh as i64, 0.0) {
                        marked += 1;
                    }
                }
            }
        }
        marked
    }

    /// A white rectangle with a dark rim, half-sizes `hw` × `hh` around (`x`, `y`), drawn where
    /// nothing nearer than `z` is; whether any pixel of it showed.
    fn rectangle(&mut self, x: f32, y: f32, hw: i64, hh: i64, z: f32) -> bool {
        let (cx, cy) = (x.floor() as i64, y.floor() as i64);
        let mut shown = false;
        for py in cy - hh..=cy + hh {
            for px in cx - hw..=cx + hw {
                if px < 0 || py < 0 || px >= self.width as i64 || py >= self.height as i64 {
                    continue;
                }
                let at = py as usize * self.width + px as usize;
                if z > self.depth[at] {
                    continue;
                }
                let rim = (px - cx).abs() == hw || (py - cy).abs() == hh;
                let color = if rim { [20, 20, 20] } else { [245, 245, 245] };
                self.rgb[at * 3..at * 3 + 3].copy_from_slice(&color);
                shown = true;
            }
        }
        shown
    }
}

/// The scene's lights in linear light, the sun's direction in view space.
fn lights(lens: &Lens, l: &Lighting) -> Light {
    let d = l.direction;
    let to_sun = lens.dir_to_view(normalize([d[0] as f32, d[1] as f32, d[2] as f32]));
    Light {
        ambient: linear(l.ambient_color).map(|c| c * l.ambient_intensity as f32),
        sun: linear(l.directional_color).map(|c| c * l.directional_intensity as f32),
        to_sun,
    }
}
