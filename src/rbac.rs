//! The ClusterRoles kubectl-jobset needs, built into the binary so that `kubectl jobset
//! rbac` (and every Forbidden error) can point at something a krew user has.

use crate::cli::RbacRole;

const USER: &str = include_str!("../rbac/kubectl-jobset-clusterrole.yaml");
const READONLY: &str = include_str!("../rbac/kubectl-jobset-readonly-clusterrole.yaml");
const HANDOVER: &str = include_str!("../rbac/kubectl-jobset-handover-clusterrole.yaml");

/// The role, or all three as one multi-document YAML (for `kubectl apply -f -`).
pub fn roles(role: Option<RbacRole>) -> String {
    match role {
        Some(RbacRole::User) => USER.to_owned(),
        Some(RbacRole::Readonly) => READONLY.to_owned(),
        Some(RbacRole::Handover) => HANDOVER.to_owned(),
        None => [USER, READONLY, HANDOVER].map(|doc| doc.trim_end()).join("\n---\n") + "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_three_apply_as_one_stream() {
        let all = roles(None);
        let names: Vec<&str> = all.lines().filter_map(|l| l.strip_prefix("  name: ")).collect();
        assert_eq!(names, ["kubectl-jobset", "kubectl-jobset-readonly", "kubectl-jobset-handover"]);
        assert_eq!(all.matches("\n---\n").count(), 2);
        assert!(roles(Some(RbacRole::Readonly)).contains("name: kubectl-jobset-readonly\n"));
    }
}
