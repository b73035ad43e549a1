//! `package.load` of a registry package (`oci://…`): decided on the engine, fetched and
//! compiled where it may wait, registered on the engine. A registry that takes seconds to
//! answer (or never does, up to the client's deadline) holds only the thread waiting for it:
//! the engine serves everyone else meanwhile (`registry/detached.rs`), and registers what came
//! back through the same admission as a package found on disk.

use crate::packages::PackageSource;
use crate::packages::oci::{self, OciError, OciSettings, Reference};
use crate::registry::Caller;
use crate::sandbox::{CompiledPackage, Sandbox};
use std::sync::Arc;

/// A decided load of a registry package, to run on any thread.
pub(crate) struct Fetch {
    /// Whom the package is loaded for: the caller under the profile's grant, settled when the
    /// call was decided (a profile reloaded meanwhile does not change it).
    pub loader: Caller,
    /// The reference as the caller wrote it (the answer repeats it).
    pub reference: String,
    parsed: Reference,
    settings: OciSettings,
    sandbox: Arc<Sandbox>,
}

/// What a fetch gave: the package checked (with its component compiled, when it compiled),
/// or why the registry's answer was refused.
pub(crate) struct Fetched {
    pub loader: Caller,
    pub reference: String,
    pub result: Result<(PackageSource, Option<CompiledPackage>), OciError>,
}

impl Fetch {
    pub(super) fn new(
        loader: Caller,
        reference: String,
        parsed: Reference,
        settings: OciSettings,
        sandbox: Arc<Sandbox>,
    ) -> Fetch {
        Fetch {
            loader,
            reference,
            parsed,
            settings,
            sandbox,
        }
    }

    /// Fetches and checks the package (`packages/oci`), then compiles its component and
    /// hashes it, which the engine would otherwise do. A component that does not compile is
    /// handed over uncompiled: the engine's own compile then refuses it the way it refuses
    /// one found on disk.
    pub fn run(self) -> Fetched {
        let result = oci::fetch(&self.parsed, &self.settings).map(|source| {
            let label = format!(
                "package `{}` {}",
                source.manifest.name, source.manifest.version
            );
            let reaches_out = !source.manifest.grants.network.is_empty();
            let compiled = self
                .sandbox
                .compile_for(&source.component, &label, reaches_out)
                .ok();
            source.content_hash();
            (source, compiled)
        });
        Fetched {
            loader: self.loader,
            reference: self.reference,
            result,
        }
    }
}
