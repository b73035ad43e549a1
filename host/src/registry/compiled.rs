//! A package's compiled component, made when it is first needed.
//!
//! A package whose description the compiled cache holds is registered from it alone: start-up
//! lists its skills without deserializing or instantiating anything. Its component is read
//! from the cache on its first call (by content hash, no bytes needed); when the cache lost
//! it meanwhile, the component is compiled again from the binary (a core package built in) or
//! from its folder — only if the file still hashes to what was loaded, so a call never runs a
//! component other than the one whose description was registered.

use super::Registry;
use crate::call::{ErrorCode, Failure};
use crate::sandbox::CompiledPackage;
use anyhow::{Result, bail};

impl Registry {
    /// `package`'s compiled component, made now if this is its first call (or completion),
    /// and kept.
    pub(super) fn compiled(&self, package: usize) -> Result<CompiledPackage, Failure> {
        if let Some(compiled) = self.packages[package].compiled.get() {
            return Ok(compiled.clone());
        }
        let compiled = self.compile_now(package).map_err(|e| {
            Failure::new(
                ErrorCode::HandlerError,
                format!("the package could not start: {e:#}"),
            )
        })?;
        let _ = self.packages[package].compiled.set(compiled.clone());
        Ok(compiled)
    }

    fn compile_now(&self, package: usize) -> Result<CompiledPackage> {
        let p = &self.packages[package];
        let label = format!("package `{}` {}", p.manifest.name, p.manifest.version);
        let http = !p.manifest.grants.network.is_empty();
        if let Some(compiled) = self.sandbox.compile_cached(&p.content_hash, &label, http) {
            return compiled;
        }
        let bytes = match p.embedded_component {
            Some(bytes) => std::borrow::Cow::Borrowed(bytes),
            None => {
                let path = p.dir.join(&p.manifest.component);
                let bytes = std::fs::read(&path).map_err(|e| {
                    anyhow::anyhow!(
                        "its compiled component left the cache and {} cannot be read ({e}); reload the package",
                        path.display()
                    )
                })?;
                std::borrow::Cow::Owned(bytes)
            }
        };
        let now = crate::sandbox::content_hash(&bytes);
        if now != p.content_hash {
            bail!(
                "its compiled component left the cache and {} changed since the package was loaded (sha256 {} then, {now} now); reload the package (`dev.reload`) to run the new one",
                p.dir.join(&p.manifest.component).display(),
                p.content_hash
            );
        }
        self.sandbox.compile_for(&bytes, &label, http)
    }
}
