//! Resources and prompts a package serves besides skills (contract 0.2.0):
//!
//! ```ignore
//! Package::new()
//!     .resource(Resource::new("limina://pkg/rules/{page}", "Rule pages", "text/markdown", read_page)
//!         .complete(|_variable, prefix| pages_starting_with(prefix)))
//!     .prompt(Prompt::new("rules.lookUp", "Look a rule up.", &[("topic", "What to look up", true)], look_up)
//!         .complete(|_argument, prefix| topics_starting_with(prefix)))
//! ```
//!
//! The host lists them to clients (only to those that may read them), decides and traces each
//! read and get like a call, and runs completion for `completion/complete`.

use crate::bindings::exports::limina::skill::prompts::{
    PromptArgument, PromptDescriptor, PromptMessage, Role,
};
use crate::bindings::exports::limina::skill::resources::ResourceDescriptor;
use crate::bindings::limina::skill::content::{ContentBlock, ResourceBody, ResourceContents};
use crate::bindings::limina::skill::types::{CallContext, SkillError};

type ReadFn = Box<dyn Fn(&str, &CallContext) -> Result<Option<String>, SkillError> + Send + Sync>;
type CompleteFn = Box<dyn Fn(&str, &str) -> Vec<String> + Send + Sync>;
type GetFn = Box<
    dyn Fn(&[(String, String)], &CallContext) -> Result<Vec<PromptMessage>, SkillError>
        + Send
        + Sync,
>;

/// A resource or a prompt: how it describes itself, the function that serves it (a
/// resource's read, a prompt's get), and what completes its template variables or arguments.
/// Built with [`Resource::new`] or [`Prompt::new`].
pub struct Offer<D, S> {
    descriptor: D,
    serve: S,
    complete: Option<CompleteFn>,
}

/// A text resource, or with `{variables}` in its URI a family of them (one path segment
/// each). Its URI must start with `limina://pkg/<package>/`.
pub type Resource = Offer<ResourceDescriptor, ReadFn>;

/// A prompt: a message template with string arguments. Its name is `<package>.<prompt>`.
pub type Prompt = Offer<PromptDescriptor, GetFn>;

/// Sealed: only the two descriptors implement [`sealed::Descriptor`].
mod sealed {
    /// What the shared builder sets in a descriptor: the permissions a client needs.
    pub trait Descriptor {
        fn permissions(&mut self) -> &mut Vec<String>;
    }
}

impl sealed::Descriptor for ResourceDescriptor {
    fn permissions(&mut self) -> &mut Vec<String> {
        &mut self.permissions
    }
}

impl sealed::Descriptor for PromptDescriptor {
    fn permissions(&mut self) -> &mut Vec<String> {
        &mut self.permissions
    }
}

impl<D: sealed::Descriptor, S> Offer<D, S> {
    /// Permissions a client needs to read the resource or get the prompt, e.g.
    /// `["scene.read"]`.
    pub fn permissions(mut self, permissions: &[&str]) -> Self {
        *self.descriptor.permissions() = permissions.iter().map(|p| p.to_string()).collect();
        self
    }

    /// Completes a resource template's variables or a prompt's arguments:
    /// `complete(variable or argument, prefix)`.
    pub fn complete<F>(mut self, complete: F) -> Self
    where
        F: Fn(&str, &str) -> Vec<String> + Send + Sync + 'static,
    {
        self.complete = Some(Box::new(complete));
        self
    }

    /// The completions of `name` starting with `prefix` (none without a completer).
    fn completions(&self, name: &str, prefix: &str) -> Vec<String> {
        self.complete
            .as_ref()
            .map_or_else(Vec::new, |c| c(name, prefix))
    }
}

impl Resource {
    /// `read(uri, ctx)` gives the text of `uri` (one this resource names), or `None` when
    /// it does not exist.
    pub fn new<F>(uri: &str, name: &str, mime_type: &str, read: F) -> Self
    where
        F: Fn(&str, &CallContext) -> Result<Option<String>, SkillError> + Send + Sync + 'static,
    {
        Resource {
            descriptor: ResourceDescriptor {
                uri: uri.to_string(),
                template: uri.contains('{'),
                name: name.to_string(),
                title: None,
                description: None,
                mime_type: mime_type.to_string(),
                permissions: Vec::new(),
            },
            serve: Box::new(read),
            complete: None,
        }
    }

    /// One sentence for a person or a model choosing what to read.
    pub fn description(mut self, description: &str) -> Self {
        self.descriptor.description = Some(description.to_string());
        self
    }

    /// Whether `uri` is one this resource names.
    fn names(&self, uri: &str) -> bool {
        if !self.descriptor.template {
            return uri == self.descriptor.uri;
        }
        let (mut rest, mut pattern) = (uri, self.descriptor.uri.as_str());
        while let Some(open) = pattern.find('{') {
            let Some(close) = pattern[open..].find('}') else {
                return false;
            };
            let Some(after) = rest.strip_prefix(&pattern[..open]) else {
                return false;
            };
            let end = after.find('/').unwrap_or(after.len());
            if end == 0 {
                return false;
            }
            rest = &after[end..];
            pattern = &pattern[open + close + 1..];
        }
        rest == pattern
    }
}

/// A message a prompt gives.
pub fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage {
        role: Role::User,
        content,
    }
}

/// A message a prompt puts in the assistant's mouth.
pub fn assistant(content: ContentBlock) -> PromptMessage {
    PromptMessage {
        role: Role::Assistant,
        content,
    }
}

impl Prompt {
    /// `arguments` are (name, description, required); `get(arguments, ctx)` fills the
    /// prompt in (the host has checked every required argument is given, and no other).
    pub fn new<F>(name: &str, description: &str, arguments: &[(&str, &str, bool)], get: F) -> Self
    where
        F: Fn(&[(String, String)], &CallContext) -> Result<Vec<PromptMessage>, SkillError>
            + Send
            + Sync
            + 'static,
    {
        Prompt {
            descriptor: PromptDescriptor {
                name: name.to_string(),
                title: None,
                description: Some(description.to_string()),
                arguments: arguments
                    .iter()
                    .map(|(name, description, required)| PromptArgument {
                        name: name.to_string(),
                        description: Some(description.to_string()),
                        required: *required,
                    })
                    .collect(),
                permissions: Vec::new(),
            },
            serve: Box::new(get),
            complete: None,
        }
    }
}

/// The value of argument `name`, if given.
pub fn argument<'a>(arguments: &'a [(String, String)], name: &str) -> Option<&'a str> {
    arguments
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// What the exported `resources` and `prompts` interfaces do; called from `export_package!`.
pub mod runtime {
    use super::*;
    use crate::Package;

    pub fn list_resources(package: &Package) -> Vec<ResourceDescriptor> {
        package
            .resources
            .iter()
            .map(|r| r.descriptor.clone())
            .collect()
    }

    pub fn read_resource(
        package: &Package,
        uri: &str,
        ctx: &CallContext,
    ) -> Result<Option<ResourceContents>, SkillError> {
        let Some(resource) = package.resources.iter().find(|r| r.names(uri)) else {
            return Ok(None);
        };
        Ok((resource.serve)(uri, ctx)?.map(|text| ResourceContents {
            uri: uri.to_string(),
            mime_type: resource.descriptor.mime_type.clone(),
            body: ResourceBody::Text(text),
        }))
    }

    pub fn complete_variable(
        package: &Package,
        template: &str,
        variable: &str,
        prefix: &str,
    ) -> Vec<String> {
        package
            .resources
            .iter()
            .find(|r| r.descriptor.uri == template)
            .map_or_else(Vec::new, |r| r.completions(variable, prefix))
    }

    pub fn list_prompts(package: &Package) -> Vec<PromptDescriptor> {
        package
            .prompts
            .iter()
            .map(|p| p.descriptor.clone())
            .collect()
    }

    pub fn get_prompt(
        package: &Package,
        name: &str,
        arguments: &[(String, String)],
        ctx: &CallContext,
    ) -> Result<Vec<PromptMessage>, SkillError> {
        match package.prompts.iter().find(|p| p.descriptor.name == name) {
            Some(p) => (p.serve)(arguments, ctx),
            None => Err(SkillError::NotFound(format!(
                "this package has no prompt `{name}`"
            ))),
        }
    }

    pub fn complete_argument(
        package: &Package,
        name: &str,
        argument: &str,
        prefix: &str,
    ) -> Vec<String> {
        package
            .prompts
            .iter()
            .find(|p| p.descriptor.name == name)
            .map_or_else(Vec::new, |p| p.completions(argument, prefix))
    }
}
