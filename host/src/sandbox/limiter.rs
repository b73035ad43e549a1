//! The resource limiter: caps linear memory and tables per instance, and remembers the peak
//! and whether a growth was refused (so a trap that follows reads as a memory limit).

use crate::limits::MAX_TABLE_ELEMENTS;
use wasmtime::ResourceLimiter;

/// What a refused growth was of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Memory,
    Table,
}

/// Per-instance memory accounting.
#[derive(Debug, Clone)]
pub struct MemoryLimiter {
    limit_bytes: usize,
    peak_bytes: usize,
    refused: Option<Refused>,
}

impl MemoryLimiter {
    pub fn new(limit_bytes: u64) -> Self {
        MemoryLimiter {
            limit_bytes: limit_bytes as usize,
            peak_bytes: 0,
            refused: None,
        }
    }

    /// Largest linear memory seen so far, in bytes.
    pub fn peak_bytes(&self) -> usize {
        self.peak_bytes
    }

    /// The configured limit, in bytes.
    pub fn limit_bytes(&self) -> usize {
        self.limit_bytes
    }

    /// What growth was refused since the last reset, if any.
    pub fn refused(&self) -> Option<Refused> {
        self.refused
    }

    /// Sets the limit for the calls that follow (the package's, or less under a budget).
    pub fn set_limit(&mut self, limit_bytes: u64) {
        self.limit_bytes = limit_bytes as usize;
    }

    /// Clears the refusal flag before a call.
    pub fn reset_refusal(&mut self) {
        self.refused = None;
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit_bytes {
            self.refused = Some(Refused::Memory);
            return Ok(false);
        }
        self.peak_bytes = self.peak_bytes.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            self.refused = Some(Refused::Table);
            return Ok(false);
        }
        Ok(true)
    }
}
