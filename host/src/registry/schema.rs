//! Input and output schemas: compiled once per skill, defaults filled before validation, and
//! errors described by field and rule.

use jsonschema::Validator;
use serde_json::{Map, Value};

/// A compiled draft-07 schema with the source kept for defaults and listing.
pub struct Schema {
    pub source: Value,
    validator: Validator,
}

impl Schema {
    /// Compiles `source`; the error says what is wrong with the schema itself.
    pub fn compile(source: Value) -> Result<Schema, String> {
        let validator = jsonschema::draft7::new(&source).map_err(|e| e.to_string())?;
        Ok(Schema { source, validator })
    }

    /// Fills declared defaults into missing properties, recursively through objects.
    pub fn fill_defaults(&self, instance: &mut Value) {
        fill(&self.source, instance);
    }

    /// The first violation, as "`field`: what is wrong", or `None` when valid.
    pub fn check(&self, instance: &Value) -> Option<String> {
        if self.validator.is_valid(instance) {
            return None;
        }
        let error = self.validator.iter_errors(instance).next()?;
        let path = error
            .instance_path()
            .as_str()
            .trim_start_matches('/')
            .replace('/', ".");
        let message = error.to_string();
        Some(if path.is_empty() {
            message
        } else {
            format!("`{path}`: {message}")
        })
    }
}

fn fill(schema: &Value, instance: &mut Value) {
    let (Some(props), Value::Object(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        instance,
    ) else {
        return;
    };
    for (key, prop) in props {
        match obj.get_mut(key) {
            Some(value) => fill(prop, value),
            None => {
                if let Some(default) = prop.get("default") {
                    obj.insert(key.clone(), default.clone());
                }
            }
        }
    }
}

/// `{}` for an absent input; anything else passes through for validation.
pub fn normalize_input(input: Value) -> Value {
    match input {
        Value::Null => Value::Object(Map::new()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Schema {
        Schema::compile(json!({
            "type": "object",
            "properties": {
                "size": {"type": "number", "exclusiveMinimum": 0, "maximum": 50, "default": 1},
                "shape": {"type": "string", "enum": ["box", "sphere"], "default": "box"},
                "inner": {"type": "object", "properties": {"k": {"type": "integer", "default": 3}}}
            }
        }))
        .unwrap()
    }

    #[test]
    fn defaults_fill_missing_fields_and_nested_objects() {
        let mut v = json!({"inner": {}});
        schema().fill_defaults(&mut v);
        assert_eq!(v, json!({"size": 1, "shape": "box", "inner": {"k": 3}}));
    }

    #[test]
    fn violations_name_the_field_and_the_rule() {
        let s = schema();
        let zero = s.check(&json!({"size": 0})).unwrap();
        assert!(
            zero.starts_with("`size`:") && zero.contains("minimum"),
            "{zero}"
        );
        let big = s.check(&json!({"size": 51})).unwrap();
        assert!(
            big.starts_with("`size`:") && big.contains("maximum"),
            "{big}"
        );
        let cone = s.check(&json!({"shape": "cone"})).unwrap();
        assert!(
            cone.starts_with("`shape`:") && cone.contains("cone"),
            "{cone}"
        );
        assert_eq!(s.check(&json!({"size": 50})), None);
    }
}
