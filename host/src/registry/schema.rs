//! Input and output schemas: made standard and compiled once per skill, defaults filled before
//! validation, and errors described by field and rule.

use jsonschema::Validator;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// A draft-07 schema in its standard form (see [`standardize`]): kept as compact JSON text,
/// which listings write as is, and as a tree for defaults and validation once something
/// needs it, compiled on first use unless [`Schema::compile`] compiled it at once.
pub struct Schema {
    text: Box<RawValue>,
    /// Parsed from `text` on first use for [`Schema::standard_text`]: a start with a warm
    /// cache parses no schema until a call or a search needs it.
    source: OnceLock<Value>,
    validator: OnceLock<Result<Validator, String>>,
}

impl Schema {
    /// Compiles `source` after rewriting it into standard JSON Schema (see [`standardize`]);
    /// the error says what is wrong with the schema itself.
    pub fn compile(source: Value) -> Result<Schema, String> {
        let schema = Schema::compiled_before(source);
        schema.compiles().map_err(str::to_string)?;
        Ok(schema)
    }

    /// A schema this host build compiled before (the host's own, or one whose text is not at
    /// hand): made standard now, and compiled on its first use, so a start compiles no
    /// schema of a skill it never calls.
    pub fn compiled_before(mut source: Value) -> Schema {
        standardize(&mut source);
        Schema {
            text: raw(&source),
            source: OnceLock::from(source),
            validator: OnceLock::new(),
        }
    }

    /// The standard form this host build made and compiled before, as [`Schema::text`] gave
    /// it (a description read back from the compiled cache, kept only once its schemas
    /// compiled): taken as it is, parsed and compiled on first use. Text that is not JSON
    /// is refused.
    pub fn standard_text(text: String) -> Result<Schema, String> {
        Ok(Schema {
            text: RawValue::from_string(text).map_err(|e| e.to_string())?,
            source: OnceLock::new(),
            validator: OnceLock::new(),
        })
    }

    /// The standard form as compact JSON.
    pub fn text(&self) -> &RawValue {
        &self.text
    }

    /// The standard form as a tree.
    pub fn source(&self) -> &Value {
        self.source.get_or_init(|| {
            serde_json::from_str(self.text.get())
                .expect("a schema's text is JSON: checked when made")
        })
    }

    /// Whether its tree has been made (a start with a warm cache makes none).
    pub fn parsed(&self) -> bool {
        self.source.get().is_some()
    }

    /// Compiles it now if it is not yet; why it does not compile, if so.
    pub fn compiles(&self) -> Result<(), &str> {
        self.validator().map(|_| ())
    }

    fn validator(&self) -> Result<&Validator, &str> {
        self.validator
            .get_or_init(|| jsonschema::draft7::new(self.source()).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Fills declared defaults into missing properties, recursively through objects.
    pub fn fill_defaults(&self, instance: &mut Value) {
        fill(self.source(), instance);
    }

    /// The first violation, as "`field`: what is wrong", or `None` when valid.
    pub fn check(&self, instance: &Value) -> Option<String> {
        let validator = match self.validator() {
            Ok(validator) => validator,
            // Fail closed: nothing passes a schema that does not compile.
            Err(e) => return Some(format!("the skill's schema does not compile: {e}")),
        };
        if validator.is_valid(instance) {
            return None;
        }
        let error = validator.iter_errors(instance).next()?;
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

/// Keywords of draft-07 (with `$defs` and `deprecated` from later drafts, which clients read as
/// annotations). Anything else in a schema position is dropped before publishing.
const KEYWORDS: [&str; 49] = [
    "$schema",
    "$id",
    "$ref",
    "$comment",
    "$defs",
    "title",
    "description",
    "default",
    "readOnly",
    "writeOnly",
    "examples",
    "deprecated",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "additionalItems",
    "items",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxProperties",
    "minProperties",
    "required",
    "additionalProperties",
    "definitions",
    "properties",
    "patternProperties",
    "dependencies",
    "propertyNames",
    "const",
    "enum",
    "type",
    "format",
    "contentMediaType",
    "contentEncoding",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "$anchor",
];

/// The formats JSON Schema defines (draft-07 and 2019-09's `duration` and `uuid`).
const FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The bounds a Rust-style integer format (schemars writes `uint32`, `int64`, …) stands for;
/// a bound past 2^53, which not every JSON reader holds exactly, is `None`.
fn integer_bounds(format: &str) -> Option<(Option<i64>, Option<i64>)> {
    let (signed, bits) = match format {
        "int" => (true, 64),
        "uint" => (false, 64),
        _ => {
            let (signed, digits) = match format.strip_prefix("uint") {
                Some(d) => (false, d),
                None => (true, format.strip_prefix("int")?),
            };
            let bits = digits.parse::<u32>().ok()?;
            ([8, 16, 32, 64, 128].contains(&bits)).then_some((signed, bits))?
        }
    };
    let exact = |value_bits: u32, value: i64| (value_bits < 53).then_some(value);
    Some(if signed {
        (
            exact(bits - 1, -(1i64 << (bits - 1).min(62))),
            exact(bits - 1, (1i64 << (bits - 1).min(62)) - 1),
        )
    } else {
        (Some(0), exact(bits, (1i64 << bits.min(62)) - 1))
    })
}

fn raw(source: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(source).expect("a JSON value serializes")
}

/// Rewrites a schema, in place, into what every client accepts: keywords outside
/// [`KEYWORDS`] are dropped; an integer format is replaced by the `minimum`/`maximum` it
/// implies (a bound already tighter is kept, and one past 2^53 is left out); `float`, `double`
/// and other unknown formats are dropped; standard formats stay.
pub fn standardize(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    map.retain(|k, _| KEYWORDS.contains(&k.as_str()));
    if let Some(format) = map.get("format").and_then(Value::as_str).map(str::to_owned)
        && !FORMATS.contains(&format.as_str())
    {
        map.remove("format");
        if let Some((low, high)) = integer_bounds(&format) {
            if let Some(low) = low {
                tighten(map, "minimum", "exclusiveMinimum", low, |have, want| {
                    have >= want
                });
            }
            if let Some(high) = high {
                tighten(map, "maximum", "exclusiveMaximum", high, |have, want| {
                    have <= want
                });
            }
        }
    }
    for key in [
        "properties",
        "patternProperties",
        "definitions",
        "$defs",
        "dependencies",
    ] {
        if let Some(Value::Object(children)) = map.get_mut(key) {
            // `dependencies` may also map to a list of names, which `standardize` leaves.
            children.values_mut().for_each(standardize);
        }
    }
    for key in [
        "items",
        "additionalItems",
        "additionalProperties",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "not",
        "allOf",
        "anyOf",
        "oneOf",
    ] {
        match map.get_mut(key) {
            Some(Value::Array(list)) => list.iter_mut().for_each(standardize),
            Some(child) => standardize(child),
            None => {}
        }
    }
}

/// Sets `key` to `bound` unless the schema already bounds at least as tightly (through `key`
/// or `exclusive`).
fn tighten(
    map: &mut Map<String, Value>,
    key: &str,
    exclusive: &str,
    bound: i64,
    tighter: fn(f64, f64) -> bool,
) {
    let held = [key, exclusive]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_f64))
        .any(|have| tighter(have, bound as f64));
    if !held {
        map.insert(key.to_string(), Value::from(bound));
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

    #[test]
    fn integer_formats_become_standard_bounds() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "format": "uint32", "minimum": 0.0},
                "sides": {"type": "integer", "format": "uint32", "minimum": 2, "maximum": 1000},
                "big": {"type": "integer", "format": "uint64", "minimum": 0.0},
                "size": {"type": "integer", "format": "uint"},
                "delta": {"type": ["integer", "null"], "format": "int32"},
                "wide": {"type": "integer", "format": "int64"},
                "byte": {"type": "integer", "format": "uint8", "exclusiveMinimum": 0},
                "ratio": {"type": "number", "format": "double"},
                "scale": {"type": "number", "format": "float"},
                "when": {"type": "string", "format": "date-time"},
                "link": {"type": "string", "format": "uri"}
            }
        });
        standardize(&mut s);
        let p = &s["properties"];
        assert_eq!(
            p["count"],
            json!({"type": "integer", "minimum": 0.0, "maximum": 4294967295u64})
        );
        assert_eq!(
            p["sides"],
            json!({"type": "integer", "minimum": 2, "maximum": 1000})
        );
        assert_eq!(p["big"], json!({"type": "integer", "minimum": 0.0}));
        assert_eq!(p["size"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(
            p["delta"],
            json!({"type": ["integer", "null"], "minimum": -2147483648i64, "maximum": 2147483647})
        );
        assert_eq!(p["wide"], json!({"type": "integer"}));
        assert_eq!(
            p["byte"],
            json!({"type": "integer", "exclusiveMinimum": 0, "maximum": 255})
        );
        assert_eq!(p["ratio"], json!({"type": "number"}));
        assert_eq!(p["scale"], json!({"type": "number"}));
        assert_eq!(p["when"]["format"], "date-time");
        assert_eq!(p["link"]["format"], "uri");
    }

    #[test]
    fn every_schema_position_is_rewritten_and_data_is_left_alone() {
        let mut s = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "x-vendor": true,
            "nullable": true,
            "definitions": {"Id": {"type": "integer", "format": "uint16"}},
            "properties": {
                "list": {"type": "array", "items": {"type": "integer", "format": "uint8"}},
                "pair": {"type": "array", "items": [{"format": "uint8"}, {"format": "int8"}]},
                "either": {"anyOf": [{"$ref": "#/definitions/Id"}, {"type": "integer", "format": "uint32"}]},
                "map": {"type": "object", "additionalProperties": {"type": "integer", "format": "uint32"}},
                "data": {"default": {"format": "uint32", "x-vendor": 1}, "enum": [{"format": "int8"}]}
            }
        });
        standardize(&mut s);
        assert!(
            s.get("x-vendor").is_none() && s.get("nullable").is_none(),
            "{s}"
        );
        assert_eq!(
            s["definitions"]["Id"],
            json!({"type": "integer", "minimum": 0, "maximum": 65535})
        );
        let p = &s["properties"];
        assert_eq!(p["list"]["items"]["maximum"], 255);
        assert_eq!(
            p["pair"]["items"][1],
            json!({"minimum": -128, "maximum": 127})
        );
        assert_eq!(p["either"]["anyOf"][1]["maximum"], 4294967295u64);
        assert_eq!(p["map"]["additionalProperties"]["minimum"], 0);
        // Defaults and enum values are data, not schemas.
        assert_eq!(
            p["data"]["default"],
            json!({"format": "uint32", "x-vendor": 1})
        );
        assert_eq!(p["data"]["enum"], json!([{"format": "int8"}]));
        for rewritten in [
            &p["list"]["items"],
            &p["either"]["anyOf"][1],
            &s["definitions"]["Id"],
        ] {
            assert!(rewritten.get("format").is_none(), "{rewritten}");
        }
    }

    #[test]
    fn compiled_schemas_are_standard_and_validate_the_bounds_the_format_implied() {
        let s = Schema::compile(json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "format": "uint32", "minimum": 0.0}}
        }))
        .unwrap();
        assert!(s.source()["properties"]["n"].get("format").is_none());
        assert_eq!(s.check(&json!({"n": 4294967295u64})), None);
        let over = s.check(&json!({"n": 4294967296u64})).unwrap();
        assert!(
            over.starts_with("`n`:") && over.contains("maximum"),
            "{over}"
        );
        let under = s.check(&json!({"n": -1})).unwrap();
        assert!(
            under.starts_with("`n`:") && under.contains("minimum"),
            "{under}"
        );
    }

    #[test]
    fn a_standard_text_read_back_lists_parses_and_checks_as_the_schema_it_came_from() {
        let made = schema();
        let text = made.text().get().to_string();
        assert!(
            !text.contains(' ') && !text.contains('\n'),
            "compact: {text}"
        );
        let back = Schema::standard_text(text.clone()).unwrap();
        assert_eq!(back.text().get(), text, "listed as it was written");
        assert!(
            !back.parsed(),
            "nothing parsed until something needs the tree"
        );
        assert_eq!(back.source(), made.source());
        for input in [
            json!({"size": 0}),
            json!({"size": 3}),
            json!({"shape": "cone"}),
        ] {
            assert_eq!(back.check(&input), made.check(&input), "{input}");
        }
        let (mut filled, mut expected) = (json!({}), json!({}));
        back.fill_defaults(&mut filled);
        made.fill_defaults(&mut expected);
        assert_eq!(filled, expected);
        let refused = Schema::standard_text("{\"type\": \"object\"".into())
            .err()
            .unwrap();
        assert!(refused.contains("EOF"), "{refused}");
    }

    #[test]
    fn a_schema_compiled_before_checks_like_one_compiled_now_and_fails_closed_if_it_cannot() {
        let source = schema().source().clone();
        let later = Schema::compiled_before(source);
        assert_eq!(
            later.source(),
            schema().source(),
            "made standard at once, for listing"
        );
        for input in [
            json!({"size": 0}),
            json!({"size": 3}),
            json!({"shape": "cone"}),
        ] {
            assert_eq!(later.check(&input), schema().check(&input), "{input}");
        }
        let broken = Schema::compiled_before(json!({"type": "object", "pattern": "("}));
        let refused = broken.check(&json!({})).expect("nothing passes");
        assert!(
            refused.starts_with("the skill's schema does not compile: "),
            "{refused}"
        );
    }
}
