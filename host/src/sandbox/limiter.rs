//! The resource limiter: caps linear memory and tables per instance, and remembers the peak
//! and whether a growth was refused (so a trap that follows reads as a memory limit).

use crate::limits::MAX_TABLE_ELEMENTS;
use wasmtime::ResourceLimiter;

/// Per-instance memory accounting.
#[derive(Debug, Clone)]
pub struct MemoryLimiter {
    limit_bytes: usize,
    peak_bytes: usize,
    refused: bool,
}

impl MemoryLimiter {
    pub fn new(limit_bytes: u64) -> Self {
        MemoryLimiter {
            limit_bytes: limit_bytes as usize,
            peak_bytes: 0,
            refused: false,
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

    /// Whether a growth was refused since the last reset.
    pub fn refused(&self) -> bool {
        self.refused
    }

    /// Sets the limit for the calls that follow (the package's, or less under a budget).
    pub fn set_limit(&mut self, limit_bytes: u64) {
        self.limit_bytes = limit_bytes as usize;
    }

    /// Clears the refusal flag before a call.
    pub fn reset_refusal(&mut self) {
        self.refused = false;
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
            self.refused = true;
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
            self.refused = true;
            return Ok(false);
        }
        Ok(true)
    }
}
