//! The release binary's code layout: the functions a start and a run of calls execute are
//! linked together, in the order they first run (`host/build/hot-functions.txt`, made by
//! `cargo xtask hot-functions`).
//!
//! Why: a page of the binary that the host touches is mapped in, and the kernel maps up to 16
//! neighbouring pages with it (fault-around). Spread over 29 MB of text, the 3.4 MB a start
//! and a call run kept about 14 MB of the binary resident; packed together, about 6 MB. A
//! function missing from the list (new code, renamed) only lands where the linker would have
//! put it anyway; the list going stale costs memory, never correctness.
//!
//! Relative relocations stay unpacked: `-z pack-relative-relocs` would spare ld.so reading
//! 1 MiB of them (0.95 MB resident), but the binary would then need glibc 2.36, where it runs
//! on 2.34 today (Ubuntu 22.04, RHEL 9).
//!
//! Only release builds for x86_64 Linux, whose default linker (rust-lld) takes the option.

use std::path::Path;

pub fn link(manifest_dir: &Path) {
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !release || target != "x86_64-unknown-linux-gnu" {
        return;
    }
    let order = manifest_dir.join("build").join("hot-functions.txt");
    println!("cargo:rerun-if-changed={}", order.display());
    if order.is_file() {
        println!(
            "cargo:rustc-link-arg-bin=limina=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        // Symbols of other builds (debug assertions, another rustc) are expected; say nothing.
        println!("cargo:rustc-link-arg-bin=limina=-Wl,--no-warn-symbol-ordering");
    }
}
