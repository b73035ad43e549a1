//! JSON values inside the world's binary records (checkpoints and the journal) as JSON text:
//! the binary format cannot describe a value of unknown shape, text can.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub(super) fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    let text = serde_json::to_string(value).map_err(serde::ser::Error::custom)?;
    s.serialize_str(&text)
}

pub(super) fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
    d: D,
) -> Result<T, D::Error> {
    let text = String::deserialize(d)?;
    serde_json::from_str(&text).map_err(serde::de::Error::custom)
}
