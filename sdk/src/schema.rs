//! Draft-07 JSON Schemas derived from Rust types, inlined so that clients see one
//! self-contained object schema per skill.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;

/// The draft-07 schema of `T` as JSON text, with every subschema inlined.
pub fn schema_json<T: JsonSchema>() -> String {
    let mut settings = SchemaSettings::draft07();
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    serde_json::to_string(&schema).expect("a generated schema is always serializable")
}
