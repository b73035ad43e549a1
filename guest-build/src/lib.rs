//! Building Limina guests: everything between a guest crate's source and a component the host
//! loads.
//!
//! - [`toolchain`]: a Rust toolchain able to build `wasm32-unknown-unknown` (rustup's, or a
//!   pinned toolchain from PyPI unpacked into the user's cache);
//! - [`cargo`]: running that toolchain's cargo on a guest crate and finding its core modules;
//! - [`component`]: encoding a core module as a component with `wit-component`, and listing
//!   what a component imports and exports;
//! - [`package`]: building one package folder (`limina pkg build`);
//! - [`lang`]: telling a package's language and building the non-Rust ones: [`python`]
//!   (componentize-py), [`native`] (C and Zig, through Zig), [`js`] (componentize-qjs), each
//!   tool pinned and installed on demand by [`tools`];
//! - [`repo`]: building every guest workspace of the Limina repository (`cargo xtask`);
//! - [`viewer`]: the pinned three.js files the host's browser viewer embeds;
//! - [`containers`] and [`image`]: Debian's podman, buildah and registry, and the container
//!   image built from scratch around the host.
//!
//! Progress goes to stderr, each line prefixed with the label set by [`set_label`], so that a
//! caller's stdout stays its own (an MCP stream, or a command's report).

pub mod browser;
pub mod cargo;
pub mod clients;
pub mod component;
pub mod containers;
pub mod files;
pub mod image;
pub mod js;
pub mod lang;
pub mod layout;
pub mod manifest;
pub mod native;
pub mod package;
pub mod placement;
pub mod process;
mod pypi;
pub mod python;
pub mod repo;
pub mod toolchain;
pub mod tools;
mod unpack;
pub mod viewer;

pub use layout::GUEST_TARGET;
pub use toolchain::GuestToolchain;

use std::sync::OnceLock;

static LABEL: OnceLock<&'static str> = OnceLock::new();

/// Sets the prefix of progress lines (`xtask`, `limina`); the first call wins.
pub fn set_label(label: &'static str) {
    let _ = LABEL.set(label);
}

/// The prefix of progress lines.
pub fn label() -> &'static str {
    LABEL.get().copied().unwrap_or("limina-guest-build")
}

/// Prints one progress line on stderr, prefixed with [`label`].
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}: {}", $crate::label(), format_args!($($arg)*))
    };
}
