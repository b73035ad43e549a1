use super::*;
use crate::packages::content_hash;
use std::fs;

const NO_STAMP: Stamp = Stamp {
    len: 0,
    secs: 0,
    nanos: 0,
};

static DICE_FILES: &[EmbeddedFile] = &[EmbeddedFile {
    path: "limina.toml",
    bytes: b"name = \"dice\"\nversion = \"1.0.0\"\ncomponent = \"dice.wasm\"\n",
    sha256: "",
    stamp: NO_STAMP,
}];

#[test]
fn a_binary_built_before_the_guests_says_how_to_get_the_core() {
    let err = format!("{:#}", sources_of(&[]).unwrap_err());
    assert!(
        err.contains("no core packages were built into this binary")
            && err.contains("cargo xtask build-guests")
            && err.contains("--core-dir"),
        "{err}"
    );
}

#[test]
fn an_embedded_package_without_its_component_is_refused_by_name() {
    let package = EmbeddedPackage {
        folder: "dice",
        files: DICE_FILES,
    };
    let err = format!("{:#}", package.source().unwrap_err());
    assert!(
        err.contains("the embedded core package `dice` has no component `dice.wasm`"),
        "{err}"
    );
}

#[test]
fn the_embedded_core_is_what_build_guests_assembled() {
    let sources = sources().expect("the core is embedded (run `cargo xtask build-guests`)");
    let names: Vec<&str> = sources.iter().map(|s| s.manifest.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "agent", "audio", "camera", "ecs", "physics", "scene", "social", "three", "ui"
        ]
    );
    for source in &sources {
        assert!(source.embedded);
        assert_eq!(
            source.dir,
            Path::new("<embedded>").join(&source.manifest.name)
        );
        let on_disk = PackageSource::read(&Path::new(BUILT_FROM).join(&source.manifest.name))
            .expect("target/core is still there");
        assert_eq!(
            source.content_hash(),
            content_hash(&on_disk.component),
            "{}",
            source.manifest.name
        );
        assert_eq!(
            source.content_hash(),
            content_hash(&source.component),
            "the hash taken at build time is that of the bytes embedded: {}",
            source.manifest.name
        );
        assert_eq!(source.manifest, on_disk.manifest);
    }
}

/// Embeds `dir`'s package folder `name` as the build script would (stamps as they are now).
fn embed(dir: &Path, name: &'static str) -> EmbeddedPackage {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir.join(name)).unwrap() {
        let path = entry.unwrap().path();
        let file: &'static str = path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string()
            .leak();
        let bytes: &'static [u8] = fs::read(&path).unwrap().leak();
        files.push(EmbeddedFile {
            path: file,
            bytes,
            sha256: crate::sandbox::content_hash(bytes).leak(),
            stamp: stamp_of(&path).unwrap(),
        });
    }
    files.sort_by_key(|f| f.path);
    EmbeddedPackage {
        folder: name,
        files: files.leak(),
    }
}

#[test]
fn a_core_rebuilt_after_the_binary_is_noticed_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("dice");
    fs::create_dir(&package).unwrap();
    fs::write(package.join("limina.toml"), DICE_FILES[0].bytes).unwrap();
    fs::write(package.join("dice.wasm"), b"first build").unwrap();
    let embedded = [embed(dir.path(), "dice")];
    assert_eq!(changed_since(dir.path(), &embedded), None);

    // A rebuilt component: another size.
    fs::write(package.join("dice.wasm"), b"the second build").unwrap();
    let note = changed_since(dir.path(), &embedded).expect("noticed");
    assert!(note.ends_with("dice.wasm was rebuilt"), "{note}");

    // A new core package folder.
    let embedded = [embed(dir.path(), "dice")];
    fs::create_dir(dir.path().join("cards")).unwrap();
    fs::write(dir.path().join("cards/limina.toml"), b"").unwrap();
    let note = changed_since(dir.path(), &embedded).expect("noticed");
    assert_eq!(note, "packages now cards, dice, embedded dice");

    // Another machine: the folder is not there, nothing to say.
    assert_eq!(changed_since(&dir.path().join("gone"), &embedded), None);
}
