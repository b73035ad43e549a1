//! Who may do what: permissions, profiles and the decisions made from them. Pure: no I/O, no
//! JSON-RPC, no wasm.

pub mod approve;
mod budget;
mod engine;
pub mod glob;
mod permissions;
mod profiles;
mod quota;
mod tier;

pub use approve::{Approval, ApproveRule, Outcome};
pub use budget::{Budget, BudgetDimension, BudgetLimits, BudgetUsage, Reservation};
pub use engine::{
    CallRequest, PackageFacts, PolicyConfig, PolicyEngine, PolicyMark, Tally, Verdict,
};
pub use permissions::{Permission, Permissions};
pub use profiles::{DEFAULT_PROFILE, Profile, Profiles};
pub use quota::{QuotaRule, QuotaSnapshot};
pub use tier::{LatencyPolicy, LatencyTier, TierEnforcement, TierThresholds};
