//! The writers of the messages: the worker's (serde_json) and the page's (the browser's
//! `JSON.stringify`).

use serde::Serialize;

/// The worker's writer. Serialising these types cannot fail (no maps with non-string keys,
/// no custom code).
pub fn to_json<T: Serialize>(m: &T) -> String {
    serde_json::to_string(m).unwrap_or_default()
}

/// The page's writer, for what it sends the worker: serde-wasm-bindgen builds the message
/// as a JS value and the browser's `JSON.stringify` writes it, so the page's bundle carries
/// no JSON writer (serde_json's and its float printer's code) of its own. The text is the
/// same JSON serde_json reads, with numbers in JS's shortest round-trip form (exact):
/// `json_compatible` writes `None` as null and maps as objects, as serde_json does.
pub fn to_message<T: Serialize>(m: &T) -> String {
    m.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .ok()
        .and_then(|v| js_sys::JSON::stringify(&v).ok())
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}
