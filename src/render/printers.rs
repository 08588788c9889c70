//! kubectl's template printers, for `list`: `-o jsonpath=…` (kubectl's JSONPath: text
//! with `{…}` actions, `range … end`, `[*]`, `[n]`, `['key']`, `[?(@.a=="b")]`),
//! `-o custom-columns=HEADER:.path,…` and `--sort-by=.path`. Pure: objects in, text out.

use serde_json::Value;

use super::gotemplate::GoTemplate;

/// kubectl's template printers, parsed (`-o jsonpath=…`, `-o custom-columns=…`,
/// `-o go-template=…`).
#[derive(Debug, Clone)]
pub enum Printer {
    JsonPath(JsonPath),
    Columns(Vec<(String, Path)>),
    GoTemplate(GoTemplate),
}

impl Printer {
    /// Prints as kubectl does: a template over `document` (the object, or the List of
    /// them), or a custom-columns table with one row per `rows` entry.
    pub fn write(
        &self,
        out: &mut dyn std::io::Write,
        document: &Value,
        rows: &[Value],
        no_headers: bool,
    ) -> crate::error::Result<()> {
        match self {
            Printer::JsonPath(template) => write!(out, "{}", template.render(document))?,
            Printer::GoTemplate(template) => {
                let mut text = String::new();
                template
                    .execute(document, &mut text)
                    .map_err(|why| crate::error::Error::Usage(format!("-o go-template: {why}")))?;
                out.write_all(text.as_bytes())?;
            }
            Printer::Columns(columns) => {
                let headers: Vec<&str> = columns.iter().map(|(h, _)| h.as_str()).collect();
                super::table::write_table(out, &headers, &custom_column_rows(columns, rows), no_headers)?;
            }
        }
        Ok(())
    }
}

/// One step of a path: `.name`, `['name']`, `[n]`, `[*]` or `[?(@.path=="value")]`.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    All,
    Filter(Vec<Step>, Value),
}

/// A parsed path such as `.items[*].metadata.name` (relative to the current object).
#[derive(Debug, Clone, PartialEq)]
pub struct Path(Vec<Step>);

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Text(String),
    Path(Path),
    Range(Path, Vec<Node>),
}

/// A parsed `-o jsonpath=` template.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath(Vec<Node>);

impl Path {
    /// Parses `.a.b[0]['c.d'][*]` (a leading `$` or `@` is the object itself).
    pub fn parse(text: &str) -> Result<Path, String> {
        let text = text.trim();
        let mut rest = text.strip_prefix('$').or_else(|| text.strip_prefix('@')).unwrap_or(text);
        let mut steps = Vec::new();
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('.') {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                let name = &after[..end];
                if name.is_empty() {
                    return Err(format!(
                        "empty field name in {text:?} (recursive descent `..` is not supported)"
                    ));
                }
                steps.push(Step::Field(name.to_owned()));
                rest = &after[end..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let end = closing_bracket(after).ok_or_else(|| format!("unclosed [ in {text:?}"))?;
                steps.push(bracket(&after[..end], text)?);
                rest = &after[end + 1..];
            } else {
                return Err(format!(
                    "unexpected {rest:?} in {text:?}: a path is .field, [n], [*] or ['key']"
                ));
            }
        }
        Ok(Path(steps))
    }

    /// Every value the path selects in `value`, in order.
    pub fn select<'a>(&self, value: &'a Value) -> Vec<&'a Value> {
        let mut current = vec![value];
        for step in &self.0 {
            current = current
                .into_iter()
                .flat_map(|v| -> Vec<&'a Value> {
                    match step {
                        Step::Field(name) => v.get(name).into_iter().collect(),
                        Step::Index(i) => {
                            let items = v.as_array().map(Vec::as_slice).unwrap_or_default();
                            let at = if *i < 0 { items.len() as i64 + i } else { *i };
                            usize::try_from(at).ok().and_then(|at| items.get(at)).into_iter().collect()
                        }
                        Step::All => match v {
                            Value::Array(items) => items.iter().collect(),
                            Value::Object(map) => map.values().collect(),
                            _ => vec![],
                        },
                        Step::Filter(path, want) => v
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|item| Path(path.clone()).select(item).first() == Some(&want))
                            .collect(),
                    }
                })
                .collect();
        }
        current
    }
}

/// The index of the `]` closing a bracket (quotes may hold `]`).
fn closing_bracket(text: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ']') => return Some(i),
            _ => {}
        }
    }
    None
}

fn bracket(inside: &str, whole: &str) -> Result<Step, String> {
    let inside = inside.trim();
    if inside == "*" {
        return Ok(Step::All);
    }
    if let Some(quoted) = unquote(inside) {
        return Ok(Step::Field(quoted));
    }
    if let Some(filter) = inside.strip_prefix("?(").and_then(|f| f.strip_suffix(')')) {
        let (left, right) =
            filter.split_once("==").ok_or_else(|| format!("only == filters are supported in {whole:?}"))?;
        let Path(steps) = Path::parse(left.trim())?;
        let right = right.trim();
        let want = match unquote(right) {
            Some(text) => Value::String(text),
            None => serde_json::from_str(right).map_err(|_| format!("cannot read {right:?} in {whole:?}"))?,
        };
        return Ok(Step::Filter(steps, want));
    }
    inside.parse().map(Step::Index).map_err(|_| format!("unsupported [{inside}] in {whole:?}"))
}

fn unquote(text: &str) -> Option<String> {
    let quoted = |q: char| text.strip_prefix(q).and_then(|t| t.strip_suffix(q));
    quoted('\'').or_else(|| quoted('"')).map(str::to_owned)
}

impl JsonPath {
    pub fn parse(template: &str) -> Result<JsonPath, String> {
        let mut stack: Vec<(Option<Path>, Vec<Node>)> = vec![(None, Vec::new())];
        let mut rest = template;
        while !rest.is_empty() {
            let Some(open) = rest.find('{') else {
                stack.last_mut().expect("root").1.push(Node::Text(rest.to_owned()));
                break;
            };
            if open > 0 {
                stack.last_mut().expect("root").1.push(Node::Text(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after.find('}').ok_or_else(|| format!("unclosed {{ in jsonpath {template:?}"))?;
            let action = after[..close].trim();
            rest = &after[close + 1..];
            if let Some(path) = action.strip_prefix("range ") {
                stack.push((Some(Path::parse(path)?), Vec::new()));
            } else if action == "end" {
                let (Some(path), body) = stack.pop().expect("root") else {
                    return Err(format!("{{end}} without {{range}} in jsonpath {template:?}"));
                };
                stack.last_mut().ok_or("unbalanced range")?.1.push(Node::Range(path, body));
            } else if let Some(text) = unquote(action) {
                stack.last_mut().expect("root").1.push(Node::Text(unescape(&text)));
            } else {
                stack.last_mut().expect("root").1.push(Node::Path(Path::parse(action)?));
            }
        }
        match stack.pop() {
            Some((None, nodes)) if stack.is_empty() => Ok(JsonPath(nodes)),
            _ => Err(format!("{{range}} without {{end}} in jsonpath {template:?}")),
        }
    }

    /// The template applied to `value`.
    pub fn render(&self, value: &Value) -> String {
        let mut out = String::new();
        render_nodes(&self.0, value, &mut out);
        out
    }
}

fn render_nodes(nodes: &[Node], value: &Value, out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Path(path) => {
                let words: Vec<String> = path.select(value).into_iter().map(text_of).collect();
                out.push_str(&words.join(" "));
            }
            Node::Range(path, body) => {
                for item in path.select(value).into_iter().flat_map(|v| match v {
                    Value::Array(items) => items.iter().collect::<Vec<_>>(),
                    other => vec![other],
                }) {
                    render_nodes(body, item, out);
                }
            }
        }
    }
}

/// `\n`, `\t` and `\\` in a quoted template literal, as kubectl reads them.
fn unescape(text: &str) -> String {
    text.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
}

/// A value as kubectl prints it: strings bare, anything else as JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `-o custom-columns=NAME:.metadata.name,IMAGES:.spec…`: headers and their paths.
pub fn parse_custom_columns(spec: &str) -> Result<Vec<(String, Path)>, String> {
    spec.split(',')
        .map(|column| {
            let (header, path) = column
                .split_once(':')
                .ok_or_else(|| format!("custom-columns needs HEADER:PATH pairs, got {column:?}"))?;
            let path = path.trim().trim_start_matches('{').trim_end_matches('}');
            // As kubectl: `metadata.name` is `.metadata.name`.
            let path = match path.starts_with(['.', '[', '$', '@']) {
                true => path.to_owned(),
                false => format!(".{path}"),
            };
            Ok((header.trim().to_owned(), Path::parse(&path)?))
        })
        .collect()
}

/// A `custom-columns-file` as kubectl reads it: a line of headers and a line of paths,
/// each separated by whitespace, as `HEADER:PATH,…`.
pub fn custom_columns_from_file(text: &str) -> Result<String, String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let (Some(headers), Some(paths), None) = (lines.next(), lines.next(), lines.next()) else {
        return Err("a custom-columns file has two lines: the headers, then their paths".into());
    };
    let (headers, paths): (Vec<&str>, Vec<&str>) =
        (headers.split_whitespace().collect(), paths.split_whitespace().collect());
    if headers.len() != paths.len() {
        return Err(format!("{} headers but {} paths", headers.len(), paths.len()));
    }
    Ok(headers.iter().zip(&paths).map(|(h, p)| format!("{h}:{p}")).collect::<Vec<_>>().join(","))
}

/// One row per object: each column's values joined by commas, `<none>` for none.
pub fn custom_column_rows(columns: &[(String, Path)], objects: &[Value]) -> Vec<Vec<String>> {
    objects
        .iter()
        .map(|object| {
            columns
                .iter()
                .map(|(_, path)| {
                    let values: Vec<String> = path.select(object).into_iter().map(text_of).collect();
                    if values.is_empty() { "<none>".into() } else { values.join(",") }
                })
                .collect()
        })
        .collect()
}

/// Orders `objects` (with their index) by the value at `path`: numbers as numbers, the
/// rest as text; stable, objects without the field first (as kubectl's --sort-by).
pub fn sort_order(path: &Path, objects: &[Value]) -> Vec<usize> {
    let key = |v: &Value| -> (u8, f64, String) {
        match path.select(v).first() {
            None => (0, 0.0, String::new()),
            Some(Value::Number(n)) => (1, n.as_f64().unwrap_or(0.0), String::new()),
            Some(other) => (2, 0.0, text_of(other)),
        }
    };
    let mut order: Vec<usize> = (0..objects.len()).collect();
    order.sort_by(|a, b| {
        let (ka, kb) = (key(&objects[*a]), key(&objects[*b]));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(ka.2.cmp(&kb.2))
    });
    order
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn list() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"team": "ml", "app.kubernetes.io/name": "x"}},
             "spec": {"replicatedJobs": [{"name": "w", "replicas": 2}, {"name": "d", "replicas": 1}]},
             "status": {"restarts": 3}},
            {"metadata": {"name": "b"}, "spec": {"replicatedJobs": [{"name": "w", "replicas": 8}]},
             "status": {"restarts": 1}}]})
    }

    #[test]
    fn jsonpath_as_kubectl_prints_it() {
        let render = |t: &str| JsonPath::parse(t).unwrap().render(&list());
        assert_eq!(render("{.items[*].metadata.name}"), "a b");
        assert_eq!(render("{.items[0].spec.replicatedJobs[*].replicas}"), "2 1");
        assert_eq!(render("{.items[-1].metadata.name}"), "b");
        assert_eq!(
            render(r#"{range .items[*]}{.metadata.name}{"\t"}{.status.restarts}{"\n"}{end}"#),
            "a\t3\nb\t1\n"
        );
        assert_eq!(render("{.items[0].metadata.labels['app.kubernetes.io/name']}"), "x");
        assert_eq!(render(r#"{.items[?(@.metadata.name=="b")].status.restarts}"#), "1");
        assert_eq!(render("names: {.items[*].metadata.name}!"), "names: a b!");
        assert_eq!(render("{.items[0].spec.replicatedJobs[1]}"), r#"{"name":"d","replicas":1}"#);
        assert_eq!(render("{.items[5].metadata.name}"), "", "nothing selected prints nothing");
    }

    #[test]
    fn bad_templates_say_why() {
        assert!(JsonPath::parse("{.items[*]").unwrap_err().contains("unclosed"));
        assert!(JsonPath::parse("{range .items[*]}{.a}").unwrap_err().contains("without {end}"));
        assert!(JsonPath::parse("{end}").unwrap_err().contains("without {range}"));
        assert!(JsonPath::parse("{..name}").unwrap_err().contains("recursive descent"));
    }

    #[test]
    fn custom_columns_and_sort_by() {
        let columns =
            parse_custom_columns("NAME:.metadata.name,RESTARTS:.status.restarts,TEAM:.metadata.labels.team")
                .unwrap();
        let items = list()["items"].as_array().unwrap().clone();
        assert_eq!(custom_column_rows(&columns, &items), [["a", "3", "ml"], ["b", "1", "<none>"]]);
        assert_eq!(sort_order(&Path::parse(".status.restarts").unwrap(), &items), [1, 0]);
        assert_eq!(
            sort_order(&Path::parse("{.metadata.name}".trim_matches(['{', '}'])).unwrap(), &items),
            [0, 1]
        );
        assert!(parse_custom_columns("NAME").unwrap_err().contains("HEADER:PATH"));
    }
}
