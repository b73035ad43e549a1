//! The camera by pixels: known colours at known places land where the lens says, nearer
//! things hide farther ones, the sun lights what faces it, anchors are marked, and shots that
//! cannot be taken are refused naming the field.

use super::super::*;
use super::{Corner, PanelAnchor, Picture, Shot};
use serde_json::json;

fn world() -> World {
    World::new(WorldSettings {
        max_entities: 100,
        tick_seconds: 1.0 / 60.0,
    })
}

fn put(w: &mut World, shape: Shape, size: f64, color: u32, position: [f64; 3]) -> String {
    w.create_entity(&EntitySpec {
        shape,
        collider: None,
        size,
        color,
        position,
        body: BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    })
    .unwrap()
}

/// 160 × 120 from 10 m up the z axis, looking at the origin: 60° vertical field of view, so
/// the focal length is 60 / tan 30° ≈ 103.9 pixels and a point (x, y, 0) lands at
/// (80 + 10.39·x, 60 − 10.39·y).
fn front_shot() -> Shot {
    Shot::new([0.0, 0.0, 10.0], [0.0, 0.0, 0.0], 160, 120)
}

/// Which channel is strongest, and by how much over the next.
fn dominant(c: [u8; 3]) -> (usize, u8) {
    let mut order = [0, 1, 2];
    order.sort_by_key(|&i| std::cmp::Reverse(c[i]));
    (order[0], c[order[0]] - c[order[1]])
}

const BACKGROUND: [u8; 3] = [0x1d, 0x24, 0x33];

#[test]
fn an_entity_of_a_known_colour_appears_where_the_lens_puts_it() {
    let mut w = world();
    put(&mut w, Shape::Box, 2.0, 0xff0000, [0.0, 0.0, 0.0]);
    put(&mut w, Shape::Sphere, 2.0, 0x00ff00, [4.0, 2.0, 0.0]);
    put(&mut w, Shape::Box, 2.0, 0x0000ff, [-4.0, -2.0, 0.0]);
    let picture = Picture::take(&w.render_snapshot(), &front_shot()).unwrap();
    assert_eq!(picture.entities_in_view, 3);
    // The red box's front face (z = 1, 9 m away) spans 80 ± 11.5 pixels.
    for (x, y) in [(80, 60), (71, 52), (89, 68)] {
        assert_eq!(dominant(picture.pixel(x, y)).0, 0, "red at ({x}, {y})");
        assert!(dominant(picture.pixel(x, y)).1 > 40);
    }
    for (x, y) in [(66, 60), (94, 60), (80, 46), (80, 74)] {
        assert_eq!(
            picture.pixel(x, y),
            BACKGROUND,
            "outside the box at ({x}, {y})"
        );
    }
    // The green sphere's centre lands at (80 + 41.6, 60 − 20.8).
    let green = picture.pixel(121, 39);
    assert_eq!(dominant(green).0, 1, "green sphere: {green:?}");
    assert_eq!(picture.pixel(121, 25), BACKGROUND);
    // The blue box's centre at (80 − 41.6, 60 + 20.8).
    let blue = picture.pixel(38, 81);
    assert_eq!(dominant(blue).0, 2, "blue box: {blue:?}");
    assert_eq!(picture.pixel(0, 0), BACKGROUND);
}

#[test]
fn looking_from_elsewhere_moves_the_entity_in_the_picture() {
    let mut w = world();
    put(&mut w, Shape::Sphere, 1.0, 0xffff00, [0.0, 0.0, 0.0]);
    // From +x looking back at the origin, with the entity 3 m to the camera's right (−z):
    // it lands at 80 + 3·103.9 / 10 ≈ 111.
    let mut shot = Shot::new([10.0, 0.0, 3.0], [0.0, 0.0, 3.0], 160, 120);
    shot.up = [0.0, 1.0, 0.0];
    let picture = Picture::take(&w.render_snapshot(), &shot).unwrap();
    let c = picture.pixel(111, 60);
    assert!(
        c[0] > 60 && c[1] > 60 && c[2] < 20,
        "yellow at (111, 60): {c:?}"
    );
    assert_eq!(picture.pixel(80, 60), BACKGROUND);
}

#[test]
fn the_nearer_entity_hides_the_farther_whatever_the_order() {
    for order in [[0.0, -5.0], [-5.0, 0.0]] {
        let mut w = world();
        put(&mut w, Shape::Box, 2.0, 0x0000ff, [0.0, 0.0, order[0]]);
        put(&mut w, Shape::Sphere, 2.0, 0xff0000, [0.0, 0.0, order[1]]);
        let picture = Picture::take(&w.render_snapshot(), &front_shot()).unwrap();
        let nearer = if order[0] == 0.0 { 2 } else { 0 };
        assert_eq!(dominant(picture.pixel(80, 60)).0, nearer, "order {order:?}");
    }
}

#[test]
fn the_sun_lights_what_faces_it_and_metal_takes_no_diffuse_light() {
    let mut w = world();
    let e = put(&mut w, Shape::Box, 2.0, 0xffffff, [0.0, 0.0, 0.0]);
    let mut lighting = Lighting {
        direction: [0.0, 0.0, 1.0],
        ..Lighting::default()
    };
    w.set_lighting(lighting).unwrap();
    let facing = Picture::take(&w.render_snapshot(), &front_shot())
        .unwrap()
        .pixel(80, 60);
    lighting.direction = [0.0, 0.0, -1.0];
    w.set_lighting(lighting).unwrap();
    let away = Picture::take(&w.render_snapshot(), &front_shot())
        .unwrap()
        .pixel(80, 60);
    assert!(
        facing[0] > 200 && away[0] < 80,
        "lit {facing:?}, unlit {away:?}"
    );
    let metal = MaterialPatch {
        metalness: Some(1.0),
        ..Default::default()
    };
    w.set_material(&e, &metal).unwrap();
    let black = Picture::take(&w.render_snapshot(), &front_shot())
        .unwrap()
        .pixel(80, 60);
    assert_eq!(black, [0, 0, 0]);
}

#[test]
fn a_rotated_scaled_box_covers_what_its_transform_says() {
    let mut w = world();
    let e = put(&mut w, Shape::Box, 1.0, 0xff0000, [0.0, 0.0, 0.0]);
    // Stretched 6× along its own x, then turned 90° about z: it stands upright.
    let turn = (
        std::f64::consts::FRAC_PI_4.sin(),
        std::f64::consts::FRAC_PI_4.cos(),
    );
    assert!(w.set_transform(
        &e,
        None,
        Some([0.0, 0.0, turn.0, turn.1]),
        Some([6.0, 1.0, 1.0])
    ));
    let picture = Picture::take(&w.render_snapshot(), &front_shot()).unwrap();
    // Half-height 3 m at 9.5 m: ±32.8 pixels tall, ±5.5 wide.
    assert_eq!(dominant(picture.pixel(80, 32)).0, 0);
    assert_eq!(dominant(picture.pixel(80, 88)).0, 0);
    assert_eq!(picture.pixel(90, 60), BACKGROUND);
}

#[test]
fn a_camera_inside_a_box_sees_its_walls_clipped_at_the_near_plane() {
    let mut w = world();
    put(&mut w, Shape::Box, 20.0, 0x00ff00, [0.0, 0.0, 0.0]);
    let shot = Shot::new([0.0, 0.0, 0.0], [0.0, 0.0, -1.0], 64, 48);
    let picture = Picture::take(&w.render_snapshot(), &shot).unwrap();
    // Back faces are culled: from inside, the box's walls face away, so nothing is drawn.
    assert_eq!(picture.pixel(32, 24), BACKGROUND);
    // A wall crossing the near plane is clipped, not dropped: a box whose front reaches
    // past the camera still shows its side walls' far parts.
    let mut w = world();
    put(&mut w, Shape::Box, 4.0, 0x00ff00, [3.0, 0.0, 0.0]);
    let shot = Shot::new([0.0, 0.0, 1.0], [0.0, 0.0, -1.0], 64, 48);
    let picture = Picture::take(&w.render_snapshot(), &shot).unwrap();
    assert_eq!(
        dominant(picture.pixel(60, 24)).0,
        1,
        "{:?}",
        picture.pixel(60, 24)
    );
}

#[test]
fn panel_anchors_are_marked_where_they_sit_and_follow_their_entity() {
    let mut w = world();
    let e = put(&mut w, Shape::Box, 1.0, 0x0000ff, [3.0, 0.0, 0.0]);
    let on_entity =
        json!({"anchor": {"kind": "world", "entity": e, "offset": [0.0, 2.0, 0.0]}, "text": "hi"});
    w.create_panel("label", on_entity, "ann").unwrap();
    let at_point = json!({"anchor": {"kind": "world", "point": [-3.0, 0.0, 0.0]}, "text": "x"});
    w.create_panel("label", at_point, "ann").unwrap();
    let hud = json!({"anchor": {"kind": "screen", "corner": "bottom-right"}, "text": "score"});
    w.create_panel("hudPanel", hud, "ann").unwrap();
    let snapshot = w.render_snapshot();
    assert_eq!(
        snapshot.anchors,
        vec![
            PanelAnchor::World {
                at: [3.0, 2.0, 0.0],
                on_top: false
            },
            PanelAnchor::World {
                at: [-3.0, 0.0, 0.0],
                on_top: false
            },
            PanelAnchor::Screen {
                corner: Corner::BottomRight,
                margin_px: 16.0
            },
        ]
    );
    let picture = Picture::take(&snapshot, &front_shot()).unwrap();
    assert_eq!(picture.anchors_marked, 3);
    // (3, 2, 0) → (111.2, 39.2); (−3, 0, 0) → (48.8, 60): white centres.
    assert_eq!(picture.pixel(111, 39), [245, 245, 245]);
    assert_eq!(picture.pixel(48, 60), [245, 245, 245]);
    // The bar sits 16 px in from the bottom-right corner.
    assert_eq!(picture.pixel(160 - 16 - 24, 120 - 16 - 8), [245, 245, 245]);
    let mut bare = front_shot();
    bare.panels = false;
    let picture = Picture::take(&snapshot, &bare).unwrap();
    assert_eq!(
        (picture.anchors_marked, picture.pixel(48, 60)),
        (0, BACKGROUND)
    );
}

#[test]
fn the_png_decodes_to_the_drawn_pixels() {
    let mut w = world();
    put(&mut w, Shape::Sphere, 3.0, 0x33aa77, [0.0, 0.0, 0.0]);
    let picture = Picture::take(&w.render_snapshot(), &front_shot()).unwrap();
    let png = picture.png();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(
        (info.width, info.height, info.color_type),
        (160, 120, png::ColorType::Rgb)
    );
    assert_eq!(pixels, picture.rgb);
}

#[test]
fn shots_that_cannot_be_taken_are_refused_naming_the_field() {
    let mut w = world();
    put(&mut w, Shape::Box, 1.0, 0xff0000, [0.0, 0.0, 0.0]);
    let snapshot = w.render_snapshot();
    let refused = |change: fn(&mut Shot), field: &str| {
        let mut shot = front_shot();
        change(&mut shot);
        match Picture::take(&snapshot, &shot) {
            Err(WorldError::Invalid(m)) => assert!(m.contains(field), "{m} names {field}"),
            other => panic!(
                "{field}: expected a refusal, got {:?}",
                other.map(|p| p.width)
            ),
        }
    };
    refused(|s| s.width = 0, "`width` must be ≥ 1 and ≤ 2048");
    refused(|s| s.height = 0, "`height` must be ≥ 1");
    refused(
        |s| s.height = 4096,
        "`height` must be ≥ 1 and ≤ 2048 pixels, got 4096",
    );
    refused(
        |s| (s.width, s.height) = (2048, 2048),
        "`width` × `height` must be ≤ 2073600",
    );
    refused(
        |s| s.look_at = s.position,
        "`lookAt` must differ from `position`",
    );
    refused(
        |s| s.position[1] = f64::NAN,
        "`position` must hold three finite numbers",
    );
    refused(
        |s| s.fov_degrees = 180.0,
        "`fovDegrees` must be > 1 and < 170",
    );
    refused(|s| s.up = [0.0; 3], "`up` must not be the zero vector");
    refused(
        |s| s.background = 0x100_0000,
        "`background` must be a colour",
    );
}

#[test]
fn the_snapshot_copies_what_is_drawn_and_leaves_the_world_alone() {
    let mut w = world();
    let e = put(&mut w, Shape::Sphere, 2.0, 0x123456, [1.0, 2.0, 3.0]);
    let patch = MaterialPatch {
        metalness: Some(0.25),
        ..Default::default()
    };
    w.set_material(&e, &patch).unwrap();
    let before = w.state_hash();
    let snapshot = w.render_snapshot();
    assert_eq!(snapshot.entities.len(), 1);
    let d = snapshot.entities[0];
    assert_eq!(
        (d.shape, d.position, d.size, d.color, d.metalness),
        (Shape::Sphere, [1.0, 2.0, 3.0], 2.0, 0x123456, 0.25)
    );
    assert_eq!(snapshot.lighting, *w.lighting());
    Picture::take(&snapshot, &front_shot()).unwrap();
    assert_eq!(w.state_hash(), before);
}

static PAUSES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_pause() {
    PAUSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// A paced drawing pauses between bands (about one per `BAND_PIXELS` pixels visited) and
/// draws exactly what an unpaced one does.
#[test]
fn a_paced_drawing_pauses_between_bands_and_draws_the_same_picture() {
    let mut w = world();
    // A sphere filling the view, and a box in front of it: hundreds of thousands of pixels.
    put(&mut w, Shape::Sphere, 16.0, 0x00ff00, [0.0, 0.0, -6.0]);
    put(&mut w, Shape::Box, 2.0, 0xff0000, [0.0, 0.0, 0.0]);
    let shot = Shot::new([0.0, 0.0, 10.0], [0.0, 0.0, 0.0], 640, 480);
    let snapshot = w.render_snapshot();
    let plain = Picture::take(&snapshot, &shot).unwrap();
    let paced = Picture::take_paced(&snapshot, &shot, count_pause).unwrap();
    assert_eq!(paced.rgb, plain.rgb);
    assert_eq!(paced.entities_in_view, 2);
    // The sphere alone visits its screen bounds: the whole 640 × 480 view.
    let pauses = PAUSES.load(std::sync::atomic::Ordering::Relaxed);
    let least = 640 * 480 / super::raster::BAND_PIXELS;
    assert!(
        pauses >= least,
        "{pauses} pauses, at least {least} expected"
    );
}

static PNG_PAUSES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_png_pause() {
    PNG_PAUSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// A paced encoding pauses between bands of rows and gives the same bytes as an unpaced one,
/// which decode to the drawn pixels.
#[test]
fn a_paced_png_pauses_between_bands_and_gives_the_same_bytes() {
    let mut w = world();
    put(&mut w, Shape::Sphere, 16.0, 0x00ff00, [0.0, 0.0, -6.0]);
    put(&mut w, Shape::Box, 2.0, 0xff0000, [0.0, 0.0, 0.0]);
    let shot = Shot::new([0.0, 0.0, 10.0], [0.0, 0.0, 0.0], 640, 480);
    let picture = Picture::take(&w.render_snapshot(), &shot).unwrap();
    let (plain, paced) = (picture.png(), picture.png_paced(count_png_pause));
    assert_eq!(paced, plain);
    let pauses = PNG_PAUSES.load(std::sync::atomic::Ordering::Relaxed);
    let bands = 480usize.div_ceil(super::PNG_BAND_PIXELS / 640);
    assert_eq!(pauses, bands);
    let mut reader = png::Decoder::new(std::io::Cursor::new(paced))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut pixels).unwrap();
    assert_eq!(pixels, picture.rgb);
}
