//! JSON patch operations as typed `json_patch` values. Paths are built from unescaped
//! tokens, so `jsonptr` escapes keys such as `kubectl-jobset.io/format` (`/` → `~1`).

use json_patch::jsonptr::PointerBuf;
use json_patch::{AddOperation, PatchOperation, RemoveOperation, ReplaceOperation, TestOperation};
use serde_json::Value;

/// A JSON pointer from unescaped tokens: `["metadata", "annotations", "a/b"]` is
/// `/metadata/annotations/a~1b`.
pub fn pointer(tokens: &[&str]) -> PointerBuf {
    PointerBuf::from_tokens(tokens.iter().copied())
}

/// `{"op": "test", ...}`: the patch fails, changing nothing, unless `path` holds `value`.
pub fn test(path: PointerBuf, value: impl Into<Value>) -> PatchOperation {
    PatchOperation::Test(TestOperation { path, value: value.into() })
}

/// `{"op": "add", ...}`
pub fn add(path: PointerBuf, value: impl Into<Value>) -> PatchOperation {
    PatchOperation::Add(AddOperation { path, value: value.into() })
}

/// `{"op": "replace", ...}`
pub fn replace(path: PointerBuf, value: impl Into<Value>) -> PatchOperation {
    PatchOperation::Replace(ReplaceOperation { path, value: value.into() })
}

/// `{"op": "remove", ...}`
pub fn remove(path: PointerBuf) -> PatchOperation {
    PatchOperation::Remove(RemoveOperation { path })
}

/// The guard every first write of an object uses: it is still at `resource_version`.
pub fn test_resource_version(resource_version: impl Into<Value>) -> PatchOperation {
    test(pointer(&["metadata", "resourceVersion"]), resource_version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_escaped_and_ops_serialize_as_rfc_6902() {
        let ops = json_patch::Patch(vec![
            test(pointer(&["metadata", "annotations", "a/b~c"]), "x"),
            add(pointer(&["status", "conditions", "-"]), json!({})),
            replace(pointer(&["revision"]), 2),
        ]);
        assert_eq!(
            serde_json::to_value(&ops).unwrap(),
            json!([
                {"op": "test", "path": "/metadata/annotations/a~1b~0c", "value": "x"},
                {"op": "add", "path": "/status/conditions/-", "value": {}},
                {"op": "replace", "path": "/revision", "value": 2},
            ])
        );
    }
}
