//! Skills, hooks and the package that holds them.

use crate::bindings::limina::skill::content::{ContentBlock, SkillOutput};
use crate::bindings::limina::skill::types::{
    Annotations, CallContext, HookDescriptor, HookPhase, PackageDescription, SkillDescriptor,
    SkillError,
};
use crate::schema::{Direction, schema_json};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

type Handler = Box<dyn Fn(&str, &CallContext) -> Result<SkillOutput, SkillError> + Send + Sync>;

/// A skill's output with content blocks besides it: pictures, sounds, links to resources
/// (see [`ContentBlock`]'s constructors). Return it from a handler given to
/// [`Skill::with_content`].
pub struct WithContent<O> {
    /// The structured output, checked against the skill's output schema.
    pub output: O,
    /// Blocks a client shows or a model looks at, after the output's text.
    pub content: Vec<ContentBlock>,
}

impl<O> WithContent<O> {
    /// `output` with no blocks yet.
    pub fn new(output: O) -> Self {
        WithContent {
            output,
            content: Vec::new(),
        }
    }

    /// Adds a block.
    pub fn block(mut self, block: ContentBlock) -> Self {
        self.content.push(block);
        self
    }
}
type HookFn =
    Box<dyn Fn(&str, &str, &CallContext) -> Result<Option<String>, SkillError> + Send + Sync>;

/// One skill: its contract and its handler.
pub struct Skill {
    /// Its contract, the schemas left empty: they are made only when the package is
    /// described (see `schemas`).
    descriptor: SkillDescriptor,
    /// Makes the input and output schemas from the handler's types. The host runs every call
    /// in an instance made for it, so the package is built anew for each call: generating the
    /// schemas there cost a core package ~90 µs a call, for nothing the call uses.
    schemas: fn() -> (String, String),
    handler: Handler,
}

/// The input and output schemas of a handler taking `I` and giving `O`.
fn schemas_of<I: JsonSchema, O: JsonSchema>() -> (String, String) {
    (
        schema_json::<I>(Direction::Input),
        schema_json::<O>(Direction::Output),
    )
}

impl Skill {
    /// A skill named `<package>.<name>` whose input and output schemas come from the handler's
    /// types. The category defaults to the package part of the name; no permissions.
    pub fn new<I, O, F>(name: &str, version: &str, description: &str, handler: F) -> Self
    where
        I: DeserializeOwned + JsonSchema,
        O: Serialize + JsonSchema,
        F: Fn(I, &CallContext) -> Result<O, SkillError> + Send + Sync + 'static,
    {
        Self::with_content(name, version, description, move |input: I, ctx| {
            handler(input, ctx).map(WithContent::new)
        })
    }

    /// [`Skill::new`] for a handler that returns content blocks besides its output, e.g. a
    /// picture: `Ok(WithContent::new(output).block(ContentBlock::png(bytes)))`. The host caps
    /// a result at 16 blocks and 4 MiB of data, and checks that an image is the PNG or JPEG
    /// it says it is.
    pub fn with_content<I, O, F>(name: &str, version: &str, description: &str, handler: F) -> Self
    where
        I: DeserializeOwned + JsonSchema,
        O: Serialize + JsonSchema,
        F: Fn(I, &CallContext) -> Result<WithContent<O>, SkillError> + Send + Sync + 'static,
    {
        let category = name.split('.').next().unwrap_or(name).to_string();
        let handler: Handler = Box::new(move |input, ctx| {
            // The host validated the input against our schema, so a failure here means the
            // schema and the type disagree: still say which field.
            let input: I =
                serde_json::from_str(input).map_err(|e| SkillError::InvalidInput(e.to_string()))?;
            let WithContent { output, content } = handler(input, ctx)?;
            let structured = serde_json::to_string(&output)
                .map_err(|e| SkillError::HandlerError(e.to_string()))?;
            Ok(SkillOutput {
                structured,
                content,
            })
        });
        Skill {
            descriptor: SkillDescriptor {
                name: name.to_string(),
                version: version.to_string(),
                category,
                description: description.to_string(),
                permissions: Vec::new(),
                input_schema: String::new(),
                output_schema: String::new(),
                annotations: annotations_for(&[]),
            },
            schemas: schemas_of::<I, O>,
            handler,
        }
    }

    /// Permissions a caller needs; the annotations follow (only `*.read` means read-only).
    pub fn permissions(mut self, permissions: &[&str]) -> Self {
        self.descriptor.permissions = permissions.iter().map(|p| p.to_string()).collect();
        self.descriptor.annotations = annotations_for(permissions);
        self
    }

    /// Overrides the catalog category.
    pub fn category(mut self, category: &str) -> Self {
        self.descriptor.category = category.to_string();
        self
    }

    /// Overrides the derived annotations.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.descriptor.annotations = annotations;
        self
    }
}

fn annotations_for(permissions: &[&str]) -> Annotations {
    let read_only = permissions.iter().all(|p| p.ends_with(".read"));
    Annotations {
        read_only,
        destructive: !read_only,
        idempotent: read_only,
        open_world: false,
    }
}

/// A hook run around the skills its patterns match.
pub struct Hook {
    descriptor: HookDescriptor,
    run: HookFn,
}

impl Hook {
    /// A hook; `run(skill, payload, ctx)` returns a replacement payload or `None` to keep it.
    pub fn new<F>(name: &str, phase: HookPhase, skills: &[&str], run: F) -> Self
    where
        F: Fn(&str, &str, &CallContext) -> Result<Option<String>, SkillError>
            + Send
            + Sync
            + 'static,
    {
        Hook {
            descriptor: HookDescriptor {
                name: name.to_string(),
                phase,
                skills: skills.iter().map(|s| s.to_string()).collect(),
            },
            run: Box::new(run),
        }
    }
}

/// The skills and hooks a component exports.
#[derive(Default)]
pub struct Package {
    skills: Vec<Skill>,
    hooks: Vec<Hook>,
    pub(crate) resources: Vec<crate::offer::Resource>,
    pub(crate) prompts: Vec<crate::offer::Prompt>,
}

impl Package {
    /// An empty package.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a skill.
    pub fn skill(mut self, skill: Skill) -> Self {
        self.skills.push(skill);
        self
    }

    /// Adds a hook.
    pub fn hook(mut self, hook: Hook) -> Self {
        self.hooks.push(hook);
        self
    }

    /// Adds a resource (or a template of them) the package serves.
    pub fn resource(mut self, resource: crate::offer::Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds a prompt the package offers.
    pub fn prompt(mut self, prompt: crate::offer::Prompt) -> Self {
        self.prompts.push(prompt);
        self
    }
}

/// What the exported `skill` interface does; called from `export_package!`.
pub mod runtime {
    use super::*;

    pub fn describe(package: &Package) -> PackageDescription {
        PackageDescription {
            skills: package
                .skills
                .iter()
                .map(|s| {
                    let (input_schema, output_schema) = (s.schemas)();
                    SkillDescriptor {
                        input_schema,
                        output_schema,
                        ..s.descriptor.clone()
                    }
                })
                .collect(),
            hooks: package.hooks.iter().map(|h| h.descriptor.clone()).collect(),
        }
    }

    pub fn invoke(
        package: &Package,
        name: &str,
        input: &str,
        ctx: &CallContext,
    ) -> Result<SkillOutput, SkillError> {
        match package.skills.iter().find(|s| s.descriptor.name == name) {
            Some(skill) => (skill.handler)(input, ctx),
            None => Err(SkillError::NotFound(format!(
                "this package has no skill `{name}`"
            ))),
        }
    }

    pub fn run_hook(
        package: &Package,
        hook: &str,
        skill: &str,
        payload: &str,
        ctx: &CallContext,
    ) -> Result<Option<String>, SkillError> {
        match package.hooks.iter().find(|h| h.descriptor.name == hook) {
            Some(h) => (h.run)(skill, payload, ctx),
            None => Err(SkillError::NotFound(format!(
                "this package has no hook `{hook}`"
            ))),
        }
    }
}
