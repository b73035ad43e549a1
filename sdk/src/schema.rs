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

/// The draft-07 schema of `T` as JSON text, with every subschema inlined. A field that is not
/// required is optional by being absent, so `null` is not accepted for it: for inputs because
/// absence is how to leave it out, for outputs because only a field skipped when `None` is not
/// required (outputs describe serialization, so an `Option` always written stays nullable).
pub fn schema_json<T: JsonSchema>(direction: Direction) -> String {
    let mut settings = SchemaSettings::draft07();
    settings.inline_subschemas = true;
    if direction == Direction::Output {
        settings = settings.for_serialize();
    }
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    optional_means_absent(&mut value);
    tidy(&mut value, direction);
    serde_json::to_string(&value).expect("a generated schema is always serializable")
}

/// Cleans every subschema: an exclusive bound makes an inclusive one it implies redundant (an
/// unsigned `x > 0` should read `exclusiveMinimum: 0`, not also `minimum: 0`); a doc comment's
/// wrapped lines become one line; and the serde annotation meaningless in this direction goes
/// (`writeOnly` on an input, `readOnly` on an output).
fn tidy(schema: &mut Value, direction: Direction) {
    match schema {
        Value::Object(obj) => {
            drop_implied_bound(obj, "minimum", "exclusiveMinimum", |inc, exc| inc <= exc);
            drop_implied_bound(obj, "maximum", "exclusiveMaximum", |inc, exc| inc >= exc);
            obj.remove(match direction {
                Direction::Input => "writeOnly",
                Direction::Output => "readOnly",
            });
            if let Some(Value::String(text)) = obj.get_mut("description") {
                *text = one_line(text);
            }
            for (key, child) in obj.iter_mut() {
                // Inside `properties` the keys are field names, not keywords.
                if key == "properties" {
                    if let Value::Object(props) = child {
                        props.values_mut().for_each(|p| tidy(p, direction));
                    }
                } else if key != "default" && key != "enum" && key != "const" {
                    tidy(child, direction);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| tidy(i, direction)),
        _ => {}
    }
}

fn drop_implied_bound(
    obj: &mut serde_json::Map<String, Value>,
    inclusive: &str,
    exclusive: &str,
    implied: fn(f64, f64) -> bool,
) {
    let bounds = (
        obj.get(inclusive).and_then(Value::as_f64),
        obj.get(exclusive).and_then(Value::as_f64),
    );
    if let (Some(inc), Some(exc)) = bounds
        && implied(inc, exc)
    {
        obj.remove(inclusive);
    }
}

/// Joins the lines a doc comment was wrapped at; a blank line stays a paragraph break.
fn one_line(text: &str) -> String {
    text.split("\n\n")
        .map(|para| para.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
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
