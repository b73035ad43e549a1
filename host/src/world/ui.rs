//! UI panels as scene data: labels, bubbles, callouts and HUD panels with handles `ui_<n>`.

/// Every live panel (filled in by the `ui` skills).
#[derive(Debug, Default)]
pub struct UiState {}
