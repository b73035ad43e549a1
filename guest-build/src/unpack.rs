//! Unpacking a `.tar.zst` split across files inside several zip archives, all in Rust:
//! the parts are read out of the zips, chained in order into a zstd decoder, and untarred.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Component, Path};

use anyhow::{Context, Result, bail};

/// Progress is reported each time this many more bytes were written.
const PROGRESS_STEP: u64 = 200_000_000;

/// What an unpack wrote.
#[derive(Debug, Default)]
pub struct Stats {
    /// Regular files written.
    pub files: u64,
    /// Their total size.
    pub bytes: u64,
}

/// Concatenates the member `parts[i]` of each zip `archives[i]`, decompresses the result as
/// zstd and unpacks it as tar into `dest`, skipping AppleDouble (`._*`) entries and keeping
/// file modes.
pub fn unpack_split_wheels(
    archives: &[impl AsRef<Path>],
    parts: &[&str],
    dest: &Path,
) -> Result<Stats> {
    if archives.len() != parts.len() {
        bail!("{} archives for {} parts", archives.len(), parts.len());
    }
    let mut zips = Vec::new();
    for path in archives {
        let path = path.as_ref();
        let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let zip = zip::ZipArchive::new(BufReader::new(file))
            .with_context(|| format!("{} is not a zip archive", path.display()))?;
        zips.push(zip);
    }
    let mut stream: Box<dyn Read + '_> = Box::new(std::io::empty());
    for (zip, part) in zips.iter_mut().zip(parts) {
        let member = zip
            .by_name(part)
            .with_context(|| format!("the wheel has no {part}"))?;
        stream = Box::new(stream.chain(member));
    }
    let decoder = zstd::Decoder::new(stream).context("starting the zstd decoder")?;
    std::fs::create_dir_all(dest)?;
    untar(decoder, dest)
}

/// Unpacks a tar stream into `dest`, skipping AppleDouble entries.
fn untar(reader: impl Read, dest: &Path) -> Result<Stats> {
    let mut archive = tar::Archive::new(reader);
    archive.set_preserve_permissions(true);
    archive.set_unpack_xattrs(false);
    archive.set_overwrite(true);
    let mut stats = Stats::default();
    for entry in archive.entries().context("reading the tar stream")? {
        let mut entry = entry.context("reading a tar entry")?;
        let path = entry.path()?.into_owned();
        if is_apple_double(&path) {
            continue;
        }
        let is_file = entry.header().entry_type().is_file();
        let size = entry.size();
        let unpacked = entry
            .unpack_in(dest)
            .with_context(|| format!("unpacking {}", path.display()))?;
        if !unpacked {
            bail!(
                "the archive entry {} points outside the target",
                path.display()
            );
        }
        if is_file {
            let before = stats.bytes / PROGRESS_STEP;
            stats.files += 1;
            stats.bytes += size;
            if stats.bytes / PROGRESS_STEP > before {
                crate::say!("  … {} MB", stats.bytes / 1_000_000);
            }
        }
    }
    Ok(stats)
}

/// Whether any component of the path is a macOS AppleDouble file (`._name`).
fn is_apple_double(path: &Path) -> bool {
    path.components().any(|component| match component {
        Component::Normal(name) => name.to_string_lossy().starts_with("._"),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::is_apple_double;
    use std::path::Path;

    #[test]
    fn recognizes_apple_double_entries() {
        assert!(is_apple_double(Path::new("._prefix")));
        assert!(is_apple_double(Path::new("prefix/bin/._cargo")));
        assert!(!is_apple_double(Path::new("prefix/bin/cargo")));
        assert!(!is_apple_double(Path::new(
            "prefix/share/zsh/site-functions/_cargo"
        )));
    }
}
