//! Draft-07 JSON Schemas derived from Rust types, inlined so that clients see one
//! self-contained object schema per skill.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// Whether a schema describes what callers send or what the skill returns.
#[derive(Clone, Copy, PartialEq)]
pub enum Direction {
    Input,
    Output,
}

/// The draft-07 schema of `T` as JSON text, with every subschema inlined. For inputs an
/// optional field is optional by being absent, so `null` is not accepted for it; outputs keep
/// `null`, which is how an absent `Option` serializes.
pub fn schema_json<T: JsonSchema>(direction: Direction) -> String {
    let mut settings = SchemaSettings::draft07();
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if direction == Direction::Input {
        optional_means_absent(&mut value);
    }
    serde_json::to_string(&value).expect("a generated schema is always serializable")
}

/// An `Option` field is optional by being absent, so it should not also accept `null`: drop
/// `null` from the type, enum and default of properties that are not required, recursively.
fn optional_means_absent(schema: &mut Value) {
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        if !required.contains(name) {
            strip_null(prop);
        }
        optional_means_absent(prop);
        if let Some(items) = prop.get_mut("items") {
            optional_means_absent(items);
        }
    }
}

fn strip_null(prop: &mut Value) {
    let Some(obj) = prop.as_object_mut() else {
        return;
    };
    if obj.get("default") == Some(&Value::Null) {
        obj.remove("default");
    }
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types[0].clone();
            obj.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    // `Option<Struct>` comes out as anyOf [struct, null].
    if let Some(Value::Array(any)) = obj.get_mut("anyOf") {
        any.retain(|s| s.get("type").and_then(Value::as_str) != Some("null"));
        if any.len() == 1 {
            let only = any.remove(0);
            obj.remove("anyOf");
            if let Value::Object(inner) = only {
                for (k, v) in inner {
                    obj.entry(k).or_insert(v);
                }
            }
        }
    }
}
