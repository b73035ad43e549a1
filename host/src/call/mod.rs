//! A call's vocabulary: the words every room uses about a call — why it failed
//! ([`ErrorCode`], [`Failure`]), what travels with it ([`CallControl`]: cancellation and
//! progress), how its deadline is counted and cut ([`Interrupt`], [`Clock`]), and the stages
//! it went through ([`CallStages`]). It sits low in the floors (`crate`'s doc) so that the
//! registry, upstream servers, outbound networking, the sandbox and telemetry can all say
//! "this call failed" or "this call was cancelled" without importing one another.

mod content;
mod control;
mod failure;
mod interrupt;
mod stages;

pub use content::{Body as ContentBody, Content, check as check_content};
pub use control::{CallControl, ProgressSink};
pub use failure::{ErrorCode, Failure};
pub use interrupt::{Cancel, Clock, Cut, Interrupt, RUNNING_CAP_FACTOR, thread_cpu_time};
pub use stages::{CallStages, GuestStage, PolicyStage, Stage};
