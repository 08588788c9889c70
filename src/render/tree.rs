//! `kubectl jobset tree NAME`: one JobSet as a tree (JobSet → replicatedJobs → Jobs →
//! Pods) with each Job's attempt, template revision and readiness, as `kubectl argo
//! rollouts get rollout` shows a Rollout. Pure: the model in, text out.

use std::io::Write;

use jiff::Timestamp;

use crate::age::format_age;
use crate::error::Result;

/// One row of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    pub kind: &'static str,
    pub status: String,
    /// `ready/expected`, when it has a meaning.
    pub ready: String,
    pub created: Option<Timestamp>,
    /// Attempt, revision, what differs: the last column.
    pub info: String,
    pub children: Vec<Node>,
}

/// The header lines above the tree: `(label, value)`.
pub type Header = Vec<(&'static str, String)>;

pub fn write_tree(out: &mut dyn Write, header: &Header, root: &Node, now: Timestamp) -> Result<()> {
    let width = header.iter().map(|(label, _)| label.len()).max().unwrap_or(0) + 1;
    for (label, value) in header {
        writeln!(out, "{:<width$} {value}", format!("{label}:"), width = width)?;
    }
    writeln!(out)?;
    let mut rows = Vec::new();
    flatten(root, String::new(), String::new(), &mut rows);
    let name_width =
        rows.iter().map(|(prefix, n)| prefix.chars().count() + n.name.len()).max().unwrap_or(4).max(4);
    let kind_width = rows.iter().map(|(_, n)| n.kind.len()).max().unwrap_or(4).max(4);
    let status_width = rows.iter().map(|(_, n)| n.status.len()).max().unwrap_or(6).max(6);
    let ready_width = rows.iter().map(|(_, n)| n.ready.len()).max().unwrap_or(5).max(5);
    let line = |name: &str, kind: &str, status: &str, ready: &str, age: &str, info: &str| {
        let name_pad = name_width.saturating_sub(name.chars().count());
        format!(
            "{name}{}   {kind:<kind_width$}   {status:<status_width$}   {ready:<ready_width$}   {age:<5}   {info}",
            " ".repeat(name_pad)
        )
        .trim_end()
        .to_owned()
    };
    writeln!(out, "{}", line("NAME", "KIND", "STATUS", "READY", "AGE", "INFO"))?;
    for (prefix, node) in rows {
        let name = format!("{prefix}{}", node.name);
        let age = if node.created.is_some() { format_age(node.created, now) } else { String::new() };
        writeln!(out, "{}", line(&name, node.kind, &node.status, &node.ready, &age, &node.info))?;
    }
    Ok(())
}

/// Depth-first rows with their tree prefix (`├── `, `└── `, `│   `).
fn flatten<'a>(node: &'a Node, prefix: String, child_prefix: String, rows: &mut Vec<(String, &'a Node)>) {
    rows.push((prefix, node));
    for (i, child) in node.children.iter().enumerate() {
        let last = i + 1 == node.children.len();
        let (branch, rest) = if last { ("└── ", "    ") } else { ("├── ", "│   ") };
        flatten(child, format!("{child_prefix}{branch}"), format!("{child_prefix}{rest}"), rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, kind: &'static str, status: &str, children: Vec<Node>) -> Node {
        Node {
            name: name.into(),
            kind,
            status: status.into(),
            ready: String::new(),
            created: None,
            info: String::new(),
            children,
        }
    }

    #[test]
    fn a_jobset_as_a_tree() {
        let mut job0 =
            node("train-w-0", "Job", "Active", vec![node("train-w-0-0-abc", "Pod", "Running", vec![])]);
        job0.ready = "1/1".into();
        job0.info = "attempt 1, revision 2".into();
        let job1 = node("train-w-1", "Job", "Active", vec![]);
        let root = node("train", "JobSet", "Running", vec![node("w", "ReplicatedJob", "", vec![job0, job1])]);
        let header = vec![("Name", "train".to_owned()), ("Namespace", "ml".to_owned())];
        let mut out = Vec::new();
        write_tree(&mut out, &header, &root, Timestamp::now()).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap(), @r"
        Name:      train
        Namespace: ml

        NAME                          KIND            STATUS    READY   AGE     INFO
        train                         JobSet          Running
        └── w                         ReplicatedJob
            ├── train-w-0             Job             Active    1/1             attempt 1, revision 2
            │   └── train-w-0-0-abc   Pod             Running
            └── train-w-1             Job             Active
        ");
    }
}
