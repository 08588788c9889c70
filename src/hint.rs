//! Commands suggested in messages (`kubectl jobset restart demo -n ml`). A hint carries
//! the namespace and context the user is working in, so that it runs as printed: after
//! `-n ml`, a hint without `-n` would act on the wrong namespace.

use std::sync::OnceLock;

/// What every hint of this process adds, set once from the command line after
/// connecting (unset in unit tests and before connecting: hints then add nothing).
#[derive(Debug, Clone, Default)]
pub struct HintFlags {
    /// `--context`, when the user passed it.
    pub context: Option<String>,
    /// The namespace commands act in without `-n` (the context's, else `default`).
    pub default_namespace: String,
    /// Whether the user passed `-n` (then every hint says it).
    pub namespace_passed: bool,
}

static FLAGS: OnceLock<HintFlags> = OnceLock::new();

/// Remembers the flags hints carry (the first call wins).
pub fn remember(flags: HintFlags) {
    let _ = FLAGS.set(flags);
}

/// `kubectl jobset WORDS`, with `-n NAMESPACE` and `--context` when they are needed to
/// reach a JobSet in `namespace`.
pub fn kubectl_jobset(words: &str, namespace: &str) -> String {
    with_flags(FLAGS.get(), words, namespace)
}

fn with_flags(flags: Option<&HintFlags>, words: &str, namespace: &str) -> String {
    let mut hint = format!("kubectl jobset {words}");
    if let Some(flags) = flags {
        if flags.namespace_passed || namespace != flags.default_namespace {
            hint.push_str(&format!(" -n {namespace}"));
        }
        if let Some(context) = &flags.context {
            hint.push_str(&format!(" --context {context}"));
        }
    }
    hint
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_carry_the_namespace_and_context_the_user_works_in() {
        let words = "restart demo";
        assert_eq!(with_flags(None, words, "ml"), "kubectl jobset restart demo");
        let mut flags =
            HintFlags { context: None, default_namespace: "default".into(), namespace_passed: false };
        assert_eq!(with_flags(Some(&flags), words, "default"), "kubectl jobset restart demo");
        // Another namespace (found with -A): the hint must name it.
        assert_eq!(with_flags(Some(&flags), words, "ml"), "kubectl jobset restart demo -n ml");
        flags.namespace_passed = true;
        flags.context = Some("prod".into());
        assert_eq!(
            with_flags(Some(&flags), words, "default"),
            "kubectl jobset restart demo -n default --context prod"
        );
    }
}
