//! What a component exports, by the contract version it was built against: 0.1.0's `skill`
//! (its `invoke` returns JSON text), or 0.2.0's `skill` (its `invoke` returns a
//! `skill-output` with content blocks) with `resources` and `prompts` when it exports them.
//! The host finds the version from the export's name once, at compile time, and calls each
//! version's functions through its own bindings.

use super::GuestOutput;
use super::bindings::{CallContext, PackageDescription, SkillError, v01, v02};
use crate::call::{Content, ContentBody};
use anyhow::{Result, anyhow};
use wasmtime::component::{Instance, InstancePre};
use wasmtime::{AsContextMut, Store};

use v01::exports::limina::skill::skill as skill01;
use v02::exports::limina::skill::{
    prompts as prompts02, resources as resources02, skill as skill02,
};
use v02::limina::skill::content as wit;

/// Where a compiled component's exports are.
pub(super) enum Exports {
    V01(skill01::GuestIndices),
    V02 {
        skill: skill02::GuestIndices,
        resources: Option<resources02::GuestIndices>,
        prompts: Option<prompts02::GuestIndices>,
    },
}

/// A live instance's exports.
pub(super) enum Loaded {
    V01(skill01::Guest),
    V02 {
        skill: skill02::Guest,
        resources: Option<resources02::Guest>,
        prompts: Option<prompts02::Guest>,
    },
}

impl Exports {
    /// The exports of the component `pre` instantiates: 0.2.0's `skill` if it has it, else
    /// 0.1.0's; an error naming both when it has neither.
    pub(super) fn find<T>(pre: &InstancePre<T>) -> Result<Exports> {
        if let Ok(skill) = skill02::GuestIndices::new(pre) {
            return Ok(Exports::V02 {
                skill,
                resources: resources02::GuestIndices::new(pre).ok(),
                prompts: prompts02::GuestIndices::new(pre).ok(),
            });
        }
        skill01::GuestIndices::new(pre)
            .map(Exports::V01)
            .map_err(|e| {
                anyhow!("{e} (nor `limina:skill/skill@0.2.0`); build it with a Limina SDK")
            })
    }

    /// The exports of `instance`, made from this component.
    pub(super) fn load<T>(
        &self,
        mut store: impl AsContextMut<Data = T>,
        instance: &Instance,
    ) -> wasmtime::Result<Loaded> {
        Ok(match self {
            Exports::V01(skill) => Loaded::V01(skill.load(&mut store, instance)?),
            Exports::V02 {
                skill,
                resources,
                prompts,
            } => Loaded::V02 {
                skill: skill.load(&mut store, instance)?,
                resources: resources
                    .as_ref()
                    .map(|r| r.load(&mut store, instance))
                    .transpose()?,
                prompts: prompts
                    .as_ref()
                    .map(|p| p.load(&mut store, instance))
                    .transpose()?,
            },
        })
    }
}

impl Loaded {
    pub(super) fn describe<T>(&self, store: &mut Store<T>) -> wasmtime::Result<PackageDescription> {
        match self {
            Loaded::V01(skill) => skill.call_describe(store),
            Loaded::V02 { skill, .. } => skill.call_describe(store),
        }
    }

    pub(super) fn invoke<T>(
        &self,
        store: &mut Store<T>,
        name: &str,
        input: &str,
        ctx: &CallContext,
    ) -> wasmtime::Result<Result<GuestOutput, SkillError>> {
        Ok(match self {
            Loaded::V01(skill) => skill
                .call_invoke(store, name, input, ctx)?
                .map(|structured| GuestOutput {
                    structured,
                    content: Vec::new(),
                }),
            Loaded::V02 { skill, .. } => {
                skill
                    .call_invoke(store, name, input, ctx)?
                    .map(|out| GuestOutput {
                        structured: out.structured,
                        content: out.content.into_iter().map(content).collect(),
                    })
            }
        })
    }

    pub(super) fn run_hook<T>(
        &self,
        store: &mut Store<T>,
        hook: &str,
        skill: &str,
        payload: &str,
        ctx: &CallContext,
    ) -> wasmtime::Result<Result<Option<String>, SkillError>> {
        match self {
            Loaded::V01(s) => s.call_run_hook(store, hook, skill, payload, ctx),
            Loaded::V02 { skill: s, .. } => s.call_run_hook(store, hook, skill, payload, ctx),
        }
    }
}

/// A content block as the host keeps it, its bytes encoded here, where the call runs: off the
/// engine for a detached call (`registry/detached.rs`).
pub(super) fn content(block: wit::ContentBlock) -> Content {
    let mut block = match block {
        wit::ContentBlock::Text(text) => Content::Text(text),
        wit::ContentBlock::Image(b) => Content::Image {
            mime_type: b.mime_type,
            data: b.data.into(),
        },
        wit::ContentBlock::Audio(b) => Content::Audio {
            mime_type: b.mime_type,
            data: b.data.into(),
        },
        wit::ContentBlock::ResourceLink(link) => Content::ResourceLink {
            uri: link.uri,
            name: link.name,
            description: link.description,
            mime_type: link.mime_type,
        },
        wit::ContentBlock::Embedded(contents) => {
            let (uri, mime_type, body) = resource_contents(contents);
            Content::Embedded {
                uri,
                mime_type,
                body,
            }
        }
    };
    block.encode();
    block
}

/// A resource's URI, media type and body.
pub(super) fn resource_contents(c: wit::ResourceContents) -> (String, String, ContentBody) {
    let body = match c.body {
        wit::ResourceBody::Text(text) => ContentBody::Text(text),
        wit::ResourceBody::Blob(blob) => ContentBody::Blob(blob.into()),
    };
    (c.uri, c.mime_type, body)
}

/// A resource, or with `template` a family of them named by a URI template, that a package
/// serves (0.2.0's `resources` export), as it listed it at load.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceDecl {
    pub uri: String,
    pub template: bool,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: String,
    pub permissions: Vec<String>,
}

/// A prompt a package offers (0.2.0's `prompts` export), as it listed it at load.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptDecl {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Name, description and whether it is required, of each argument.
    pub arguments: Vec<(String, Option<String>, bool)>,
    pub permissions: Vec<String>,
}

/// What a package offers besides skills: nothing for a 0.1.0 package.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Offered {
    pub resources: Vec<ResourceDecl>,
    pub prompts: Vec<PromptDecl>,
}

/// A resource's contents as a package read them.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadContents {
    pub uri: String,
    pub mime_type: String,
    pub body: ContentBody,
}

/// One message of a prompt a package filled in: whether the assistant says it (else the
/// user), and its content.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptLine {
    pub assistant: bool,
    pub content: Content,
}

impl Loaded {
    /// What the package offers besides skills, read once at load.
    pub(super) fn offered<T>(&self, store: &mut Store<T>) -> wasmtime::Result<Offered> {
        let Loaded::V02 {
            resources, prompts, ..
        } = self
        else {
            return Ok(Offered::default());
        };
        let mut offered = Offered::default();
        if let Some(r) = resources {
            offered.resources = r
                .call_list_resources(&mut *store)?
                .into_iter()
                .map(|d| ResourceDecl {
                    uri: d.uri,
                    template: d.template,
                    name: d.name,
                    title: d.title,
                    description: d.description,
                    mime_type: d.mime_type,
                    permissions: d.permissions,
                })
                .collect();
        }
        if let Some(p) = prompts {
            offered.prompts = p
                .call_list_prompts(&mut *store)?
                .into_iter()
                .map(|d| PromptDecl {
                    name: d.name,
                    title: d.title,
                    description: d.description,
                    arguments: d
                        .arguments
                        .into_iter()
                        .map(|a| (a.name, a.description, a.required))
                        .collect(),
                    permissions: d.permissions,
                })
                .collect();
        }
        Ok(offered)
    }

    pub(super) fn read_resource<T>(
        &self,
        store: &mut Store<T>,
        uri: &str,
        ctx: &CallContext,
    ) -> wasmtime::Result<Result<Option<ReadContents>, SkillError>> {
        let Loaded::V02 {
            resources: Some(r), ..
        } = self
        else {
            return Ok(Ok(None));
        };
        Ok(r.call_read_resource(store, uri, ctx)?.map(|found| {
            found.map(|c| {
                let (uri, mime_type, body) = resource_contents(c);
                ReadContents {
                    uri,
                    mime_type,
                    body,
                }
            })
        }))
    }

    pub(super) fn get_prompt<T>(
        &self,
        store: &mut Store<T>,
        name: &str,
        arguments: &[(String, String)],
        ctx: &CallContext,
    ) -> wasmtime::Result<Result<Vec<PromptLine>, SkillError>> {
        let Loaded::V02 {
            prompts: Some(p), ..
        } = self
        else {
            return Ok(Err(SkillError::NotFound(format!(
                "the package serves no prompt `{name}`"
            ))));
        };
        Ok(p.call_get_prompt(store, name, arguments, ctx)?
            .map(|messages| {
                messages
                    .into_iter()
                    .map(|m| PromptLine {
                        assistant: matches!(m.role, prompts02::Role::Assistant),
                        content: content(m.content),
                    })
                    .collect()
            }))
    }

    /// Values the package completes `what` with, starting with `prefix`.
    pub(super) fn complete<T>(
        &self,
        store: &mut Store<T>,
        what: Completing<'_>,
        prefix: &str,
    ) -> wasmtime::Result<Vec<String>> {
        match (self, what) {
            (
                Loaded::V02 {
                    resources: Some(r), ..
                },
                Completing::Variable { template, variable },
            ) => r.call_complete_variable(store, template, variable, prefix),
            (
                Loaded::V02 {
                    prompts: Some(p), ..
                },
                Completing::Argument { prompt, argument },
            ) => p.call_complete_argument(store, prompt, argument, prefix),
            _ => Ok(Vec::new()),
        }
    }
}

/// What a completion is for.
#[derive(Debug, Clone, Copy)]
pub enum Completing<'a> {
    /// A variable of one of the package's URI templates.
    Variable {
        template: &'a str,
        variable: &'a str,
    },
    /// An argument of one of its prompts.
    Argument { prompt: &'a str, argument: &'a str },
}
