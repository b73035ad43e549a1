//! What a package offers besides skills (contract 0.2.0's `resources` and `prompts`
//! exports), plugged into the host's resource and prompt tables: each declared resource or
//! template is one [`ResourceSource`], each prompt is listed by the package's
//! [`PromptSource`]. Listing reads what the package declared at load (kept in the description
//! cache); reading a resource and getting a prompt run the package as a call (its fuel,
//! memory and deadline, charged to the session), after the table's policy step, with any world
//! or state change it tried rolled back: a read changes nothing. Completion runs the package
//! with no call in progress (its host imports refuse).

use super::prompts::{PromptArgument, PromptInfo, PromptMessages, PromptSource};
use super::resources::{Access, Contents, ResourceInfo, ResourceSource, TemplateInfo};
use super::{Caller, Registry};
use crate::call::{Content, ContentBody, ErrorCode, Failure};
use crate::files::{FileAccess, WriteQuota};
use crate::policy::Permissions;
use crate::sandbox::{Completing, Offered, PromptDecl, ResourceDecl};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The URI prefix of `package`'s resources.
pub fn uri_prefix(package: &str) -> String {
    format!("limina://pkg/{package}/")
}

/// Refuses what a package offers when a URI is not under its own prefix, a prompt is not
/// named under the package, or a permission is unknown; the message names the item and the fix.
pub(super) fn check(package: &str, offered: &Offered) -> Result<(), String> {
    let prefix = uri_prefix(package);
    for r in &offered.resources {
        if !r.uri.starts_with(&prefix) || r.uri.len() == prefix.len() {
            return Err(format!(
                "resource `{}` is not under the package's own URIs; name it `{prefix}<path>`",
                r.uri
            ));
        }
        Permissions::parse(&r.permissions).map_err(|e| format!("resource `{}`: {e}", r.uri))?;
    }
    for p in &offered.prompts {
        if !p.name.starts_with(&format!("{package}.")) {
            return Err(format!(
                "prompt `{}` is not named under the package; name it `{package}.<prompt>`",
                p.name
            ));
        }
        Permissions::parse(&p.permissions).map_err(|e| format!("prompt `{}`: {e}", p.name))?;
    }
    Ok(())
}

impl Registry {
    /// Puts `package`'s resources and prompts in the tables, in place of any it offered
    /// before (a reload).
    pub(super) fn offer(&mut self, package: &str, offered: Offered) {
        self.retain_resource_sources(|s| s.access().package.as_deref() != Some(package));
        self.retain_prompt_sources(|s| s.package() != Some(package));
        for decl in offered.resources {
            self.add_resource_source(Arc::new(PackageResource {
                package: package.to_string(),
                key: decl.uri.clone(),
                decl,
            }));
        }
        if !offered.prompts.is_empty() {
            self.add_prompt_source(Arc::new(PackagePrompts {
                package: package.to_string(),
                prompts: offered.prompts,
            }));
        }
    }

    fn package_index(&self, package: &str) -> Result<usize, Failure> {
        self.packages
            .iter()
            .position(|p| p.manifest.name == package)
            .ok_or_else(|| {
                Failure::new(
                    ErrorCode::NotFound,
                    format!("package `{package}` is not loaded"),
                )
            })
    }

    /// Runs `f` in an instance of `package` as a call of `what` under the crossing just
    /// decided, and undoes whatever it changed in the world or the package's state.
    fn offered_call<T: 'static>(
        &mut self,
        caller: &Caller,
        package: &str,
        what: &str,
        f: Box<super::guest_call::GuestFn<'_, T>>,
    ) -> Result<T, Failure> {
        let index = self.package_index(package)?;
        let decision = self.crossing.clone();
        let realm = self.realm_mut();
        realm.world.begin();
        realm.state.begin();
        let mut events = Vec::new();
        let result = self.guest_call(caller, index, what, &decision, None, &mut events, f);
        let realm = self.realm_mut();
        realm.state.rollback();
        realm.world.rollback();
        result
    }

    /// Values `package` completes `what` with, at most `limit`; none when it cannot run.
    fn offered_completion(
        &self,
        caller: &Caller,
        package: &str,
        what: Completing<'_>,
        prefix: &str,
        limit: usize,
    ) -> Vec<String> {
        let Ok(index) = self.package_index(package) else {
            return Vec::new();
        };
        let Ok(compiled) = self.compiled(index) else {
            return Vec::new();
        };
        let p = &self.packages[index];
        let files = self.completion_files(index, caller);
        let values = compiled
            .instantiate_mounting(package, &p.limits, files)
            .and_then(|mut instance| instance.complete(what, prefix));
        match values {
            Ok(mut values) => {
                values.retain(|v| v.starts_with(prefix));
                values.truncate(limit);
                values
            }
            Err(e) => {
                crate::log::warn(&format!("package `{package}`'s completion failed: {e:#}"));
                Vec::new()
            }
        }
    }
}

impl Registry {
    /// The volumes a completion of `package` for `caller` mounts: those a call would, read-only
    /// (a completion changes nothing), so a package can complete from its files (`lore` its
    /// page names); none when the caller's permissions keep them from it, with nothing traced
    /// as refused (no call asked for them).
    fn completion_files(&self, package: usize, caller: &Caller) -> FileAccess {
        let granted: Vec<(String, bool)> = self
            .granted_volumes(package)
            .into_iter()
            .map(|(volume, _)| (volume, false))
            .collect();
        let host = &self.host_grants;
        let access = FileAccess::new(
            &granted,
            |volume| host.volume_dir(volume).map(std::path::Path::to_path_buf),
            caller.permissions,
            WriteQuota::new(0),
        );
        FileAccess {
            withheld: None,
            ..access
        }
    }
}

/// One resource, or a template of them, a package declared.
struct PackageResource {
    package: String,
    /// Its name in cursors.
    key: String,
    decl: ResourceDecl,
}

impl PackageResource {
    /// Whether `uri` fits its template: the same text outside the `{variables}`, each
    /// variable one path segment.
    fn fits(&self, uri: &str) -> bool {
        let (mut rest, mut pattern) = (uri, self.decl.uri.as_str());
        while let Some(open) = pattern.find('{') {
            let Some(close) = pattern[open..].find('}') else {
                return false;
            };
            let Some(after) = rest.strip_prefix(&pattern[..open]) else {
                return false;
            };
            let segment = after.find('/').unwrap_or(after.len());
            if segment == 0 {
                return false;
            }
            rest = &after[segment..];
            pattern = &pattern[open + close + 1..];
        }
        rest == pattern
    }
}

impl ResourceSource for PackageResource {
    fn name(&self) -> &str {
        &self.key
    }
    fn access(&self) -> Access {
        Access {
            cap: format!("resource.{}", self.package),
            // Checked at load.
            required: Permissions::parse(&self.decl.permissions).unwrap_or_default(),
            package: Some(self.package.clone()),
        }
    }
    fn claims(&self, uri: &str) -> bool {
        if self.decl.template {
            self.fits(uri)
        } else {
            uri == self.decl.uri
        }
    }
    fn accepts_key(&self, key: &str) -> bool {
        key == "0"
    }
    fn list(&self, _: &Registry, after: Option<&str>, limit: usize) -> Vec<(String, ResourceInfo)> {
        if self.decl.template || after.is_some() || limit == 0 {
            return Vec::new();
        }
        vec![(
            "0".into(),
            ResourceInfo {
                uri: self.decl.uri.clone(),
                name: self.decl.name.clone(),
                title: self.decl.title.clone(),
                description: self.decl.description.clone(),
                mime_type: self.decl.mime_type.clone(),
                meta: None,
            },
        )]
    }
    fn templates(&self) -> Vec<TemplateInfo> {
        if !self.decl.template {
            return Vec::new();
        }
        vec![TemplateInfo {
            uri_template: self.decl.uri.clone(),
            name: self.decl.name.clone(),
            title: self.decl.title.clone(),
            description: self.decl.description.clone(),
            mime_type: self.decl.mime_type.clone(),
        }]
    }
    fn read(
        &self,
        registry: &mut Registry,
        caller: &Caller,
        uri: &str,
    ) -> Result<Option<Contents>, Failure> {
        let owned = uri.to_string();
        let read = registry.offered_call(
            caller,
            &self.package,
            &format!("resource.{}", self.package),
            Box::new(move |instance, realm, info| instance.read_resource(realm, info, &owned)),
        )?;
        let Some(read) = read else { return Ok(None) };
        if read.uri != uri {
            return Err(Failure::new(
                ErrorCode::HandlerError,
                format!(
                    "package `{}` answered a read of `{uri}` with `{}`",
                    self.package, read.uri
                ),
            ));
        }
        let (mut text, blob) = match read.body {
            ContentBody::Text(text) => (text, None),
            ContentBody::Blob(blob) => (String::new(), Some(blob.into_bytes())),
        };
        if text.len() + blob.as_ref().map_or(0, Vec::len) > crate::limits::MAX_CONTENT_BYTES {
            return Err(Failure::new(
                ErrorCode::HandlerError,
                format!(
                    "package `{}` read `{uri}` as more than the host's cap of {} bytes per result",
                    self.package,
                    crate::limits::MAX_CONTENT_BYTES
                ),
            ));
        }
        registry.scan_crossing(caller, &self.package, "resource", vec![&mut text])?;
        Ok(Some(Contents {
            uri: read.uri,
            mime_type: read.mime_type,
            text,
            blob,
            meta: None,
            ttl_ms: 0,
            public: false,
        }))
    }
    fn complete(
        &self,
        registry: &Registry,
        caller: &Caller,
        template: &str,
        variable: &str,
        prefix: &str,
        limit: usize,
    ) -> Option<Vec<String>> {
        let placeholder = format!("{{{variable}}}");
        if !self.decl.template || template != self.decl.uri || !template.contains(&placeholder) {
            return None;
        }
        Some(registry.offered_completion(
            caller,
            &self.package,
            Completing::Variable { template, variable },
            prefix,
            limit,
        ))
    }
}

/// The prompts a package declared.
struct PackagePrompts {
    package: String,
    prompts: Vec<PromptDecl>,
}

impl PromptSource for PackagePrompts {
    fn package(&self) -> Option<&str> {
        Some(&self.package)
    }
    fn prompts(&self, _: &Registry) -> Vec<(PromptInfo, Access)> {
        self.prompts
            .iter()
            .map(|p| {
                let info = PromptInfo {
                    name: p.name.clone(),
                    title: p.title.clone(),
                    description: p.description.clone(),
                    arguments: p
                        .arguments
                        .iter()
                        .map(|(name, description, required)| PromptArgument {
                            name: name.clone(),
                            description: description.clone(),
                            required: *required,
                        })
                        .collect(),
                };
                let access = Access {
                    cap: format!("prompt.{}", p.name),
                    required: Permissions::parse(&p.permissions).unwrap_or_default(),
                    package: Some(self.package.clone()),
                };
                (info, access)
            })
            .collect()
    }
    fn get(
        &self,
        registry: &mut Registry,
        caller: &Caller,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptMessages, Failure> {
        let args: Vec<(String, String)> = arguments
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let owned = name.to_string();
        let mut lines = registry.offered_call(
            caller,
            &self.package,
            name,
            Box::new(move |instance, realm, info| instance.get_prompt(realm, info, &owned, &args)),
        )?;
        let blocks: Vec<Content> = lines.iter().map(|l| l.content.clone()).collect();
        crate::call::check_content(&blocks).map_err(|why| {
            Failure::new(
                ErrorCode::HandlerError,
                format!("prompt `{name}` returned {why}"),
            )
        })?;
        let texts = lines
            .iter_mut()
            .flat_map(|l| l.content.texts_mut())
            .collect();
        registry.scan_crossing(caller, name, "prompt", texts)?;
        let messages: Vec<Value> = lines
            .into_iter()
            .map(|l| {
                json!({
                    "role": if l.assistant { "assistant" } else { "user" },
                    "content": l.content.to_mcp(),
                })
            })
            .collect();
        let description = self
            .prompts
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.description.clone());
        Ok(PromptMessages {
            description,
            messages,
        })
    }
    fn complete(
        &self,
        registry: &Registry,
        caller: &Caller,
        name: &str,
        argument: &str,
        prefix: &str,
        limit: usize,
    ) -> Vec<String> {
        registry.offered_completion(
            caller,
            &self.package,
            Completing::Argument {
                prompt: name,
                argument,
            },
            prefix,
            limit,
        )
    }
}
