//! The budget suite (`cargo test --test budgets`): call, CPU and memory budgets tied to the
//! sandbox, quotas, revocation, session limits, and the audit trail of all of it.

#[path = "../all/support.rs"]
mod support;

mod in_process;
mod over_stdio;
mod trace_file;
