//! `-o go-template=…`: the part of Go's `text/template` that kubectl users write, over the
//! JSON of the objects (as kubectl runs it: missing keys print `<no value>`). No maintained
//! Rust crate implements Go's dialect, so this is our own small interpreter. Covered: text
//! and `{{…}}` actions with `{{-`/`-}}` trimming and comments, `.` and field chains, `$` and
//! variables (`:=`, `=`), `if`/`else if`/`else`, `range` (arrays, maps in key order, integers,
//! `$i, $v :=`, `else`, `break`, `continue`), `with`/`else with`, pipelines and parentheses,
//! literals, and the functions `and or not len index slice print printf println eq ne lt le
//! gt ge html js urlquery` plus kubectl's `exists` and `base64decode`. Values print as Go's
//! `%v` prints them (`map[k:v]`, `[a b]`, `1e+06`). Not covered: `define`, `template`,
//! `block` and `call` (there are no named templates or functions in JSON).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

/// A parsed `-o go-template=` template.
#[derive(Debug, Clone)]
pub struct GoTemplate(Vec<Node>);

impl GoTemplate {
    pub fn parse(text: &str) -> Result<GoTemplate, String> {
        let items = lex(text)?;
        let mut parser = Parser { items, at: 0, range_depth: 0 };
        let (nodes, end) = parser.list()?;
        match end {
            Stop::Eof => Ok(GoTemplate(nodes)),
            Stop::End => Err(format!("line {}: unexpected {{{{end}}}}", parser.line())),
            Stop::Else(_) => Err(format!("line {}: unexpected {{{{else}}}}", parser.line())),
        }
    }

    /// Runs the template over `data` (with `$` and `.` both `data`), appending to `out`.
    pub fn execute(&self, data: &Value, out: &mut String) -> Result<(), String> {
        let mut run = Run { vars: vec![("$".to_owned(), Val::of(data))], out };
        run.nodes(&self.0, &Val::of(data)).map(|_| ())
    }
}

// ---------------------------------------------------------------------------------------
// Lexing: text and actions, each action a list of tokens.

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Dot,
    /// `.a.b`: fields of dot.
    Field(Vec<String>),
    /// `$x.a.b` (`$` alone is the data).
    Variable(String, Vec<String>),
    /// `.a.b` right after `)`: fields of the parenthesised value.
    Chain(Vec<String>),
    Ident(String),
    Literal(Value),
    Declare,
    Assign,
    Comma,
    Pipe,
    Open,
    Close,
}

#[derive(Debug)]
enum Item {
    Text(String),
    Action(Vec<Token>, usize),
}

fn lex(text: &str) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    let mut rest = text;
    let mut line = 1;
    let mut trim_next_text = false;
    while !rest.is_empty() {
        let (before, after) = match rest.find("{{") {
            Some(at) => (&rest[..at], Some(&rest[at + 2..])),
            None => (rest, None),
        };
        let mut chunk = before;
        if trim_next_text {
            chunk = chunk.trim_start_matches(is_space);
        }
        let Some(mut action) = after else {
            push_text(&mut items, chunk);
            break;
        };
        if action.starts_with('-') && action[1..].starts_with(is_space) {
            chunk = chunk.trim_end_matches(is_space);
            action = &action[1..];
        }
        push_text(&mut items, chunk);
        line += before.matches('\n').count();
        let (tokens, consumed, trim_after) = lex_action(action, line)?;
        line += action[..consumed].matches('\n').count();
        if let Some(tokens) = tokens {
            items.push(Item::Action(tokens, line));
        }
        trim_next_text = trim_after;
        rest = &action[consumed..];
    }
    Ok(items)
}

fn push_text(items: &mut Vec<Item>, text: &str) {
    if !text.is_empty() {
        items.push(Item::Text(text.to_owned()));
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Tokens of one action (`None` for a comment), how many bytes it used including `}}`,
/// and whether it ended with `-}}`.
fn lex_action(text: &str, line: usize) -> Result<(Option<Vec<Token>>, usize, bool), String> {
    let unclosed = || format!("line {line}: unclosed action");
    let start = text.len() - text.trim_start_matches(is_space).len();
    if text[start..].starts_with("/*") {
        let end =
            text[start..].find("*/").ok_or_else(|| format!("line {line}: unclosed comment"))? + start + 2;
        let after = &text[end..];
        if after.starts_with("}}") {
            return Ok((None, end + 2, false));
        }
        if let Some(rest) = after.strip_prefix(" -}}") {
            return Ok((None, text.len() - rest.len(), true));
        }
        return Err(format!("line {line}: comment ends before closing delimiter"));
    }
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    loop {
        let Some(&b) = bytes.get(i) else { return Err(unclosed()) };
        let c = b as char;
        if is_space(c) {
            let after = &text[i..].trim_start_matches(is_space);
            if let Some(rest) = after.strip_prefix("-}}") {
                return Ok((Some(tokens), text.len() - rest.len(), true));
            }
            i += 1;
            continue;
        }
        if text[i..].starts_with("}}") {
            return Ok((Some(tokens), i + 2, false));
        }
        match c {
            '.' if bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()) => {
                let (literal, used) = number(&text[i..], line)?;
                tokens.push(Token::Literal(literal));
                i += used;
            }
            '.' => {
                let (fields, used) = fields(&text[i..]);
                tokens.push(if fields.is_empty() { Token::Dot } else { Token::Field(fields) });
                i += used.max(1);
            }
            '$' => {
                let name_len = text[i + 1..].find(|c: char| !is_ident(c)).unwrap_or(text.len() - i - 1);
                let name = format!("${}", &text[i + 1..i + 1 + name_len]);
                i += 1 + name_len;
                let (fields, used) = fields(&text[i..]);
                tokens.push(Token::Variable(name, fields));
                i += used;
            }
            ':' if text[i..].starts_with(":=") => {
                tokens.push(Token::Declare);
                i += 2;
            }
            '=' | ',' | '|' | '(' => {
                tokens.push(match c {
                    '=' => Token::Assign,
                    ',' => Token::Comma,
                    '|' => Token::Pipe,
                    _ => Token::Open,
                });
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
                let (fields, used) = fields(&text[i..]);
                if !fields.is_empty() {
                    tokens.push(Token::Chain(fields));
                    i += used;
                }
            }
            '"' | '`' => {
                let (literal, used) = string(&text[i..], line)?;
                tokens.push(Token::Literal(Value::String(literal)));
                i += used;
            }
            '\'' => {
                let (literal, used) = string(&text[i..], line)?;
                let mut chars = literal.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => tokens.push(Token::Literal(Value::from(c as u32))),
                    _ => return Err(format!("line {line}: malformed character constant")),
                }
                i += used;
            }
            '-' | '+' | '0'..='9' => {
                let (literal, used) = number(&text[i..], line)?;
                tokens.push(Token::Literal(literal));
                i += used;
            }
            c if is_ident(c) => {
                let len = text[i..].find(|c: char| !is_ident(c)).unwrap_or(text.len() - i);
                let word = &text[i..i + len];
                tokens.push(match word {
                    "true" => Token::Literal(Value::Bool(true)),
                    "false" => Token::Literal(Value::Bool(false)),
                    "nil" => Token::Literal(Value::Null),
                    _ => Token::Ident(word.to_owned()),
                });
                i += len;
            }
            other => return Err(format!("line {line}: unexpected {other:?} in action")),
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `.a.b.c` at the start of `text`: the names, and the bytes they used.
fn fields(text: &str) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut used = 0;
    while let Some(rest) = text[used..].strip_prefix('.') {
        let len = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if len == 0 {
            break;
        }
        names.push(rest[..len].to_owned());
        used += 1 + len;
    }
    (names, used)
}

fn number(text: &str, line: usize) -> Result<(Value, usize), String> {
    let len = text
        .char_indices()
        .skip(1)
        .find(|&(_, c)| {
            !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')) || c == '-' || c == '+'
        })
        .map(|(at, _)| at)
        .unwrap_or(text.len());
    // Exponents carry a sign: `1e+06`.
    let mut len = len;
    while text[..len].ends_with(['e', 'E']) && text[len..].starts_with(['+', '-']) && !text.starts_with("0x")
    {
        len += 1 + text[len + 1..].find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len() - len - 1);
    }
    let word = &text[..len];
    let clean = word.replace('_', "");
    let (sign, digits) = match clean.strip_prefix('-') {
        Some(rest) => (-1i64, rest.to_owned()),
        None => (1, clean.strip_prefix('+').unwrap_or(&clean).to_owned()),
    };
    let radix = [("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)]
        .iter()
        .find_map(|(prefix, radix)| digits.strip_prefix(prefix).map(|d| (d.to_owned(), *radix)));
    let integer = match &radix {
        Some((d, radix)) => i64::from_str_radix(d, *radix).ok(),
        None if digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit()) => {
            i64::from_str_radix(&digits[1..], 8).ok()
        }
        None => digits.parse::<i64>().ok(),
    };
    if let Some(n) = integer {
        return Ok((Value::from(sign * n), len));
    }
    match clean.parse::<f64>() {
        Ok(f) if radix.is_none() => Ok((Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null), len)),
        _ => Err(format!("line {line}: bad number syntax: {word:?}")),
    }
}

/// A quoted string at the start of `text` (`"…"` with Go's escapes, `` `…` `` raw, `'…'`).
fn string(text: &str, line: usize) -> Result<(String, usize), String> {
    let quote = text.chars().next().unwrap_or('"');
    if quote == '`' {
        let end =
            text[1..].find('`').ok_or_else(|| format!("line {line}: unterminated raw quoted string"))?;
        return Ok((text[1..1 + end].to_owned(), end + 2));
    }
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((out, at + 1)),
            '\n' => break,
            '\\' => {
                let Some((_, e)) = chars.next() else { break };
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    '\\' | '"' | '\'' => out.push(e),
                    'x' | 'u' | 'U' => {
                        let width = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = (0..width).filter_map(|_| chars.next().map(|(_, c)| c)).collect();
                        let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                        out.push(code.ok_or_else(|| format!("line {line}: bad escape \\{e}{hex}"))?);
                    }
                    other => return Err(format!("line {line}: unknown escape sequence \\{other}")),
                }
            }
            c => out.push(c),
        }
    }
    Err(format!("line {line}: unterminated quoted string"))
}

// ---------------------------------------------------------------------------------------
// Parsing: actions into a tree.

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Print(Pipeline),
    If(Pipeline, Vec<Node>, Vec<Node>),
    With(Pipeline, Vec<Node>, Vec<Node>),
    Range(Pipeline, Vec<Node>, Vec<Node>),
    Break,
    Continue,
}

#[derive(Debug, Clone)]
struct Pipeline {
    /// `$x :=` / `$i, $v :=` (declare) or `$x =` (assign).
    vars: Vec<String>,
    declare: bool,
    commands: Vec<Vec<Operand>>,
}

#[derive(Debug, Clone)]
enum Operand {
    Dot,
    Field(Vec<String>),
    Variable(String, Vec<String>),
    Function(String),
    Literal(Value),
    Nested(Box<Pipeline>, Vec<String>),
}

const FUNCTIONS: &[&str] = &[
    "and",
    "or",
    "not",
    "len",
    "index",
    "slice",
    "print",
    "printf",
    "println",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "html",
    "js",
    "urlquery",
    "exists",
    "base64decode",
];

enum Stop {
    Eof,
    End,
    /// `{{else}}`, `{{else if …}}`, `{{else with …}}`.
    Else(Option<(String, Pipeline)>),
}

struct Parser {
    items: Vec<Item>,
    at: usize,
    range_depth: usize,
}

impl Parser {
    fn line(&self) -> usize {
        match self.items.get(self.at.saturating_sub(1)) {
            Some(Item::Action(_, line)) => *line,
            _ => 1,
        }
    }

    fn list(&mut self) -> Result<(Vec<Node>, Stop), String> {
        let mut nodes = Vec::new();
        while self.at < self.items.len() {
            self.at += 1;
            let (tokens, line) = match &self.items[self.at - 1] {
                Item::Text(text) => {
                    nodes.push(Node::Text(text.clone()));
                    continue;
                }
                Item::Action(tokens, line) => (tokens.clone(), *line),
            };
            let keyword = match tokens.first() {
                Some(Token::Ident(word)) => word.as_str(),
                None => return Err(format!("line {line}: missing value for command")),
                _ => "",
            };
            let rest = &tokens[1.min(tokens.len())..];
            match keyword {
                "end" => return Ok((nodes, Stop::End)),
                "else" => {
                    let chained = match rest.first() {
                        None => None,
                        Some(Token::Ident(word)) if word == "if" || word == "with" => {
                            Some((word.clone(), pipeline(&rest[1..], line)?))
                        }
                        _ => return Err(format!("line {line}: unexpected tokens after else")),
                    };
                    return Ok((nodes, Stop::Else(chained)));
                }
                "if" | "with" | "range" => {
                    let pipe = pipeline(rest, line)?;
                    nodes.push(self.block(keyword, pipe, line)?);
                }
                "break" | "continue" => {
                    if self.range_depth == 0 {
                        return Err(format!("line {line}: {{{{{keyword}}}}} outside {{{{range}}}}"));
                    }
                    nodes.push(if keyword == "break" { Node::Break } else { Node::Continue });
                }
                "define" | "template" | "block" => {
                    return Err(format!(
                        "line {line}: {{{{{keyword}}}}} is not supported (there are no named templates here)"
                    ));
                }
                _ => nodes.push(Node::Print(pipeline(&tokens, line)?)),
            }
        }
        Ok((nodes, Stop::Eof))
    }

    /// The body of `if`/`with`/`range` up to its `end`, with its `else` branch.
    fn block(&mut self, keyword: &str, pipe: Pipeline, line: usize) -> Result<Node, String> {
        if keyword == "range" {
            self.range_depth += 1;
        }
        let body = self.list();
        if keyword == "range" {
            self.range_depth -= 1;
        }
        let (body, stop) = body?;
        let otherwise = match stop {
            Stop::Eof => {
                return Err(format!("line {line}: unexpected EOF: {{{{{keyword}}}}} has no {{{{end}}}}"));
            }
            Stop::End => Vec::new(),
            Stop::Else(None) => match self.list()? {
                (nodes, Stop::End) => nodes,
                _ => return Err(format!("line {line}: expected {{{{end}}}} after {{{{else}}}}")),
            },
            // `{{else if …}}` is an `if` inside the else branch that shares our `end`.
            Stop::Else(Some((inner, pipe))) => vec![self.block(&inner, pipe, line)?],
        };
        Ok(match keyword {
            "if" => Node::If(pipe, body, otherwise),
            "with" => Node::With(pipe, body, otherwise),
            _ => Node::Range(pipe, body, otherwise),
        })
    }
}

fn pipeline(tokens: &[Token], line: usize) -> Result<Pipeline, String> {
    let mut rest = tokens;
    let mut vars = Vec::new();
    let mut declare = true;
    // `$x :=`, `$x =`, `$i, $v :=`.
    let mut at = 0;
    let mut names = Vec::new();
    while let Some(Token::Variable(name, fields)) = rest.get(at)
        && fields.is_empty()
    {
        names.push(name.clone());
        match rest.get(at + 1) {
            Some(Token::Comma) if names.len() == 1 => at += 2,
            Some(Token::Declare) | Some(Token::Assign) => {
                declare = rest[at + 1] == Token::Declare;
                vars = std::mem::take(&mut names);
                rest = &rest[at + 2..];
                break;
            }
            _ => break,
        }
    }
    let mut commands = Vec::new();
    let mut command = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let operand = match &rest[i] {
            Token::Pipe => {
                if command.is_empty() {
                    return Err(format!("line {line}: missing command before |"));
                }
                commands.push(std::mem::take(&mut command));
                i += 1;
                continue;
            }
            Token::Dot => Operand::Dot,
            Token::Field(fields) => Operand::Field(fields.clone()),
            Token::Variable(name, fields) => Operand::Variable(name.clone(), fields.clone()),
            Token::Literal(value) => Operand::Literal(value.clone()),
            Token::Ident(name) if FUNCTIONS.contains(&name.as_str()) => Operand::Function(name.clone()),
            Token::Ident(name) => return Err(format!("line {line}: function {name:?} not defined")),
            Token::Open => {
                let close =
                    matching_close(&rest[i..]).ok_or_else(|| format!("line {line}: unclosed left paren"))?;
                let inner = pipeline(&rest[i + 1..i + close], line)?;
                if !inner.vars.is_empty() {
                    return Err(format!(
                        "line {line}: variables may only be declared at the start of an action"
                    ));
                }
                i += close;
                let chain = match rest.get(i + 1) {
                    Some(Token::Chain(fields)) => {
                        i += 1;
                        fields.clone()
                    }
                    _ => Vec::new(),
                };
                Operand::Nested(Box::new(inner), chain)
            }
            Token::Close => return Err(format!("line {line}: unexpected right paren")),
            other => return Err(format!("line {line}: unexpected {other:?} in command")),
        };
        command.push(operand);
        i += 1;
    }
    if command.is_empty() {
        return Err(format!("line {line}: missing value for command"));
    }
    commands.push(command);
    Ok(Pipeline { vars, declare, commands })
}

fn matching_close(tokens: &[Token]) -> Option<usize> {
    let mut depth = 0;
    for (at, token) in tokens.iter().enumerate() {
        match token {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

// ---------------------------------------------------------------------------------------
// Running.

/// A value while the template runs: JSON (borrowed from the data, or made here), or the
/// result of a key that is not there (Go's invalid value, printed `<no value>`).
#[derive(Debug, Clone)]
enum Val<'a> {
    Missing,
    Json(Cow<'a, Value>),
}

impl<'a> Val<'a> {
    fn of(value: &'a Value) -> Val<'a> {
        Val::Json(Cow::Borrowed(value))
    }

    fn own(value: Value) -> Val<'a> {
        Val::Json(Cow::Owned(value))
    }

    fn json(&self) -> Option<&Value> {
        match self {
            Val::Missing => None,
            Val::Json(value) => Some(value),
        }
    }

    /// As a function argument: Go passes a missing value as nil.
    fn or_null(&self) -> Value {
        self.json().cloned().unwrap_or(Value::Null)
    }

    fn field(self, name: &str) -> Result<Val<'a>, String> {
        match self {
            Val::Missing => Ok(Val::Missing),
            Val::Json(Cow::Borrowed(Value::Object(map))) => Ok(map.get(name).map_or(Val::Missing, Val::of)),
            Val::Json(Cow::Owned(Value::Object(mut map))) => {
                Ok(map.remove(name).map_or(Val::Missing, Val::own))
            }
            Val::Json(value) if value.is_null() => {
                Err(format!("nil pointer evaluating interface {{}}.{name}"))
            }
            Val::Json(_) => Err(format!("can't evaluate field {name} in type interface {{}}")),
        }
    }
}

fn truth(value: &Val) -> bool {
    match value.json() {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

enum Flow {
    Normal,
    Break,
    Continue,
}

struct Run<'a, 'o> {
    vars: Vec<(String, Val<'a>)>,
    out: &'o mut String,
}

impl<'a> Run<'a, '_> {
    fn nodes(&mut self, nodes: &'a [Node], dot: &Val<'a>) -> Result<Flow, String> {
        for node in nodes {
            match node {
                Node::Text(text) => self.out.push_str(text),
                Node::Print(pipe) => {
                    let value = self.pipeline(pipe, dot)?;
                    if pipe.vars.is_empty() {
                        match value.json() {
                            None | Some(Value::Null) => self.out.push_str("<no value>"),
                            Some(value) => go_print(value, self.out),
                        }
                    }
                }
                Node::If(pipe, body, otherwise) | Node::With(pipe, body, otherwise) => {
                    let mark = self.vars.len();
                    let value = self.pipeline(pipe, dot)?;
                    // `with` runs its body on the value; `if`, and both else branches, on dot.
                    let flow = match (truth(&value), node) {
                        (true, Node::With(..)) => self.nodes(body, &value),
                        (true, _) => self.nodes(body, dot),
                        (false, _) => self.nodes(otherwise, dot),
                    };
                    self.vars.truncate(mark);
                    match flow? {
                        Flow::Normal => {}
                        stop => return Ok(stop),
                    }
                }
                Node::Range(pipe, body, otherwise) => {
                    let mark = self.vars.len();
                    let flow = self.range(pipe, body, otherwise, dot);
                    self.vars.truncate(mark);
                    flow?;
                }
                Node::Break => return Ok(Flow::Break),
                Node::Continue => return Ok(Flow::Continue),
            }
        }
        Ok(Flow::Normal)
    }

    fn range(
        &mut self,
        pipe: &'a Pipeline,
        body: &'a [Node],
        otherwise: &'a [Node],
        dot: &Val<'a>,
    ) -> Result<(), String> {
        // The range's own variables are set per element, not to the whole value.
        let value = self.commands(&pipe.commands, dot)?;
        let entries: Vec<(Val<'a>, Val<'a>)> = match value {
            Val::Missing => Vec::new(),
            Val::Json(Cow::Borrowed(value)) => borrowed_entries(value)?,
            Val::Json(Cow::Owned(value)) => owned_entries(value)?,
        };
        if entries.is_empty() {
            self.nodes(otherwise, dot)?;
            return Ok(());
        }
        let mark = self.vars.len();
        for (key, element) in entries {
            self.vars.truncate(mark);
            match pipe.vars.as_slice() {
                [] => {}
                [value] => self.set(value, element.clone(), pipe.declare)?,
                [index, value, ..] => {
                    self.set(index, key, pipe.declare)?;
                    self.set(value, element.clone(), pipe.declare)?;
                }
            }
            match self.nodes(body, &element)? {
                Flow::Break => break,
                Flow::Normal | Flow::Continue => {}
            }
        }
        Ok(())
    }

    fn set(&mut self, name: &str, value: Val<'a>, declare: bool) -> Result<(), String> {
        if declare {
            self.vars.push((name.to_owned(), value));
            return Ok(());
        }
        match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            Some(slot) => {
                slot.1 = value;
                Ok(())
            }
            None => Err(format!("undefined variable: {name}")),
        }
    }

    fn variable(&self, name: &str) -> Result<Val<'a>, String> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| format!("undefined variable: {name}"))
    }

    fn pipeline(&mut self, pipe: &'a Pipeline, dot: &Val<'a>) -> Result<Val<'a>, String> {
        let value = self.commands(&pipe.commands, dot)?;
        if let Some(name) = pipe.vars.first() {
            self.set(name, value.clone(), pipe.declare)?;
        }
        Ok(value)
    }

    /// `a | b c | d`: each command's value is the last argument of the next.
    fn commands(&mut self, commands: &'a [Vec<Operand>], dot: &Val<'a>) -> Result<Val<'a>, String> {
        let mut value: Option<Val<'a>> = None;
        for command in commands {
            value = Some(self.command(command, dot, value)?);
        }
        Ok(value.unwrap_or(Val::Missing))
    }

    fn command(
        &mut self,
        command: &'a [Operand],
        dot: &Val<'a>,
        piped: Option<Val<'a>>,
    ) -> Result<Val<'a>, String> {
        if let Operand::Function(name) = &command[0] {
            return self.call(name, &command[1..], dot, piped);
        }
        if command.len() > 1 || piped.is_some() {
            if let Operand::Field(fields) | Operand::Variable(_, fields) = &command[0]
                && let Some(last) = fields.last()
            {
                return Err(format!("{last} is not a method but has arguments"));
            }
            return Err(format!("can't give argument to non-function {}", describe(&command[0])));
        }
        self.operand(&command[0], dot)
    }

    fn operand(&mut self, operand: &'a Operand, dot: &Val<'a>) -> Result<Val<'a>, String> {
        let (mut value, fields) = match operand {
            Operand::Dot => return Ok(dot.clone()),
            Operand::Literal(value) => return Ok(Val::of(value)),
            Operand::Field(fields) => (dot.clone(), fields),
            Operand::Variable(name, fields) => (self.variable(name)?, fields),
            Operand::Nested(pipe, fields) => (self.pipeline(pipe, dot)?, fields),
            Operand::Function(name) => return self.call(name, &[], dot, None),
        };
        for name in fields {
            value = value.field(name)?;
        }
        Ok(value)
    }

    fn call(
        &mut self,
        name: &str,
        args: &'a [Operand],
        dot: &Val<'a>,
        piped: Option<Val<'a>>,
    ) -> Result<Val<'a>, String> {
        let count = args.len() + usize::from(piped.is_some());
        if name == "and" || name == "or" {
            if count == 0 {
                return Err(format!("wrong number of args for {name}: want at least 1 got 0"));
            }
            let mut last = Val::Missing;
            for arg in args {
                last = self.operand(arg, dot)?;
                if truth(&last) != (name == "and") {
                    return Ok(last);
                }
            }
            return Ok(piped.unwrap_or(last));
        }
        let mut values = Vec::with_capacity(count);
        for arg in args {
            values.push(self.operand(arg, dot)?);
        }
        values.extend(piped);
        call_function(name, &values).map(Val::own)
    }
}

fn borrowed_entries(value: &Value) -> Result<Vec<(Val<'_>, Val<'_>)>, String> {
    Ok(match value {
        Value::Null => Vec::new(),
        Value::Array(items) => {
            items.iter().enumerate().map(|(i, v)| (Val::own(Value::from(i)), Val::of(v))).collect()
        }
        Value::Object(map) => {
            sorted(map).into_iter().map(|(k, v)| (Val::own(Value::from(k.as_str())), Val::of(v))).collect()
        }
        other => integer_entries(other)?,
    })
}

fn owned_entries<'a>(value: Value) -> Result<Vec<(Val<'a>, Val<'a>)>, String> {
    Ok(match value {
        Value::Null => Vec::new(),
        Value::Array(items) => {
            items.into_iter().enumerate().map(|(i, v)| (Val::own(Value::from(i)), Val::own(v))).collect()
        }
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.into_iter().map(|(k, v)| (Val::own(Value::from(k)), Val::own(v))).collect()
        }
        other => integer_entries(&other)?,
    })
}

/// `{{range 3}}` counts 0, 1, 2 (Go 1.22).
fn integer_entries<'a>(value: &Value) -> Result<Vec<(Val<'a>, Val<'a>)>, String> {
    match value.as_i64() {
        Some(n) => Ok((0..n.max(0)).map(|i| (Val::own(Value::from(i)), Val::own(Value::from(i)))).collect()),
        None => Err(format!("range can't iterate over {}", go_string(value))),
    }
}

fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn describe(operand: &Operand) -> String {
    match operand {
        Operand::Dot => ".".into(),
        Operand::Field(fields) => format!(".{}", fields.join(".")),
        Operand::Variable(name, fields) => {
            std::iter::once(name.clone()).chain(fields.iter().cloned()).collect::<Vec<_>>().join(".")
        }
        Operand::Literal(value) => go_string(value),
        Operand::Nested(..) => "(…)".into(),
        Operand::Function(name) => name.clone(),
    }
}

// ---------------------------------------------------------------------------------------
// Functions.

fn call_function(name: &str, args: &[Val]) -> Result<Value, String> {
    let want = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!("wrong number of args for {name}: want {n} got {}", args.len()))
        }
    };
    let json: Vec<Value> = args.iter().map(Val::or_null).collect();
    match name {
        "not" => {
            want(1)?;
            Ok(Value::Bool(!truth(&args[0])))
        }
        "len" => {
            want(1)?;
            match &json[0] {
                Value::String(s) => Ok(Value::from(s.len())),
                Value::Array(a) => Ok(Value::from(a.len())),
                Value::Object(o) => Ok(Value::from(o.len())),
                other => Err(format!("error calling len: len of type {}", go_type(other))),
            }
        }
        "index" => {
            if json.is_empty() {
                return Err("wrong number of args for index: want at least 1 got 0".into());
            }
            let mut item = json[0].clone();
            for key in &json[1..] {
                item = index(&item, key)?;
            }
            Ok(item)
        }
        "slice" => slice(&json),
        "print" => Ok(Value::String(sprint(&json))),
        "println" => {
            let mut text = json.iter().map(go_string).collect::<Vec<_>>().join(" ");
            text.push('\n');
            Ok(Value::String(text))
        }
        "printf" => {
            let Some(Value::String(format)) = json.first() else {
                return Err("error calling printf: the format must be a string".into());
            };
            Ok(Value::String(sprintf(format, &json[1..])))
        }
        "eq" => {
            if json.len() < 2 {
                return Err("missing argument for comparison".into());
            }
            for other in &json[1..] {
                if compare(&json[0], other, true)? == Some(std::cmp::Ordering::Equal) {
                    return Ok(Value::Bool(true));
                }
            }
            Ok(Value::Bool(false))
        }
        "ne" | "lt" | "le" | "gt" | "ge" => {
            want(2)?;
            let order = compare(&json[0], &json[1], name == "ne")?;
            use std::cmp::Ordering::*;
            Ok(Value::Bool(match name {
                "ne" => order != Some(Equal),
                "lt" => order == Some(Less),
                "le" => matches!(order, Some(Less | Equal)),
                "gt" => order == Some(Greater),
                _ => matches!(order, Some(Greater | Equal)),
            }))
        }
        "html" => Ok(Value::String(html_escape(&sprint(&json)))),
        "js" => Ok(Value::String(js_escape(&sprint(&json)))),
        "urlquery" => Ok(Value::String(query_escape(&sprint(&json)))),
        "exists" => {
            if json.is_empty() {
                return Err("wrong number of args for exists: want at least 1 got 0".into());
            }
            let mut item = &json[0];
            for key in &json[1..] {
                let next = match (item, key) {
                    (Value::Object(map), Value::String(k)) => map.get(k),
                    (Value::Array(a), Value::Number(n)) => n.as_u64().and_then(|i| a.get(i as usize)),
                    _ => None,
                };
                match next {
                    Some(next) => item = next,
                    None => return Ok(Value::Bool(false)),
                }
            }
            Ok(Value::Bool(true))
        }
        "base64decode" => {
            want(1)?;
            let Value::String(text) = &json[0] else {
                return Err(format!(
                    "error calling base64decode: wrong type for value; expected string; got {}",
                    go_type(&json[0])
                ));
            };
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| format!("error calling base64decode: base64 decode failed: {e}"))?;
            Ok(Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        }
        other => Err(format!("function {other:?} not defined")),
    }
}

fn index(item: &Value, key: &Value) -> Result<Value, String> {
    match (item, key) {
        (Value::Object(map), Value::String(k)) => Ok(map.get(k).cloned().unwrap_or(Value::Null)),
        (Value::Array(a), Value::Number(n)) => {
            let i = n.as_i64().ok_or("error calling index: cannot index slice/array with a non-integer")?;
            usize::try_from(i)
                .ok()
                .and_then(|i| a.get(i))
                .cloned()
                .ok_or_else(|| format!("error calling index: index out of range: {i}"))
        }
        (Value::String(s), Value::Number(n)) => {
            let i = n.as_i64().unwrap_or(-1);
            usize::try_from(i)
                .ok()
                .and_then(|i| s.as_bytes().get(i))
                .map(|b| Value::from(*b))
                .ok_or_else(|| format!("error calling index: index out of range: {i}"))
        }
        (Value::Null, _) => Err("error calling index: index of untyped nil".into()),
        (item, key) => {
            Err(format!("error calling index: cannot index {} with {}", go_type(item), go_type(key)))
        }
    }
}

fn slice(args: &[Value]) -> Result<Value, String> {
    let Some(item) = args.first() else {
        return Err("wrong number of args for slice: want at least 1 got 0".into());
    };
    let len = match item {
        Value::String(s) => s.len(),
        Value::Array(a) => a.len(),
        other => return Err(format!("error calling slice: can't slice item of type {}", go_type(other))),
    };
    let mut bounds = Vec::new();
    for arg in &args[1..] {
        let i = arg.as_i64().ok_or("error calling slice: cannot index slice/array with a non-integer")?;
        bounds.push(usize::try_from(i).map_err(|_| format!("error calling slice: index out of range: {i}"))?);
    }
    let (start, end) = match bounds.as_slice() {
        [] => (0, len),
        [start] => (*start, len),
        [start, end] => (*start, *end),
        _ => return Err("error calling slice: too many slice indexes".into()),
    };
    if start > end || end > len {
        return Err(format!("error calling slice: index out of range: {start}:{end}"));
    }
    Ok(match item {
        Value::String(s) => Value::String(
            s.get(start..end).ok_or("error calling slice: not at a character boundary")?.to_owned(),
        ),
        Value::Array(a) => Value::Array(a[start..end].to_vec()),
        _ => unreachable!("checked above"),
    })
}

/// Go's `eq`/`lt` on basic values: numbers with numbers (integers and floats apart, as in
/// Go), strings with strings, booleans only for equality.
fn compare(a: &Value, b: &Value, equality: bool) -> Result<Option<std::cmp::Ordering>, String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() != y.is_f64() {
                return Err("incompatible types for comparison".into());
            }
            match (x.as_i64(), y.as_i64()) {
                (Some(x), Some(y)) => Ok(Some(x.cmp(&y))),
                _ => Ok(x.as_f64().partial_cmp(&y.as_f64())),
            }
        }
        (Value::String(x), Value::String(y)) => Ok(Some(x.cmp(y))),
        (Value::Bool(x), Value::Bool(y)) if equality => Ok(Some(x.cmp(y))),
        // nil equals only nil (a missing key is nil here), and is never an error for eq/ne.
        (Value::Null, Value::Null) if equality => Ok(Some(std::cmp::Ordering::Equal)),
        (Value::Null, _) | (_, Value::Null) if equality => Ok(None),
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
            Err("non-comparable type".into())
        }
        (Value::Null, _) | (_, Value::Null) => Err("invalid type for comparison".into()),
        _ if equality => Err("incompatible types for comparison".into()),
        _ => Err("invalid type for comparison".into()),
    }
}

// ---------------------------------------------------------------------------------------
// Printing as Go's fmt does.

fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

fn go_string(value: &Value) -> String {
    let mut text = String::new();
    go_print(value, &mut text);
    text
}

/// `fmt.Print` of a decoded JSON value.
fn go_print(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) if !n.is_f64() => write!(out, "{i}").unwrap_or(()),
            (_, Some(u)) if !n.is_f64() => write!(out, "{u}").unwrap_or(()),
            _ => out.push_str(&go_float(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                go_print(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push_str("map[");
            for (i, (key, item)) in sorted(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(key);
                out.push(':');
                go_print(item, out);
            }
            out.push(']');
        }
    }
}

/// Go's `%v` of a float64: the shortest digits, in exponent form below 1e-4 and from 1e6
/// (as `%g` decides for the shortest precision).
fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `1.2345e6`.
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    format!("{f}")
}

/// `fmt.Sprint`: spaces between operands when neither side is a string.
fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 && !arg.is_string() && !args[i - 1].is_string() {
            out.push(' ');
        }
        go_print(arg, &mut out);
    }
    out
}

/// `fmt.Sprintf` for the verbs templates use: `%v %s %d %q %t %f %e %g %x %X %%`, with
/// `-`, `+`, `0` and space flags, width and precision.
fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let mut args_used = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let (mut left, mut zero, mut plus, mut space) = (false, false, false, false);
        while let Some(&flag) = chars.peek() {
            match flag {
                '-' => left = true,
                '0' => zero = true,
                '+' => plus = true,
                ' ' => space = true,
                '#' => {}
                _ => break,
            }
            chars.next();
        }
        let mut width = None;
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            width = Some(width.unwrap_or(0) * 10 + d as usize);
            chars.next();
        }
        let mut precision = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                p = p * 10 + d as usize;
                chars.next();
            }
            precision = Some(p);
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(args_used) else {
            write!(out, "%!{verb}(MISSING)").unwrap_or(());
            continue;
        };
        args_used += 1;
        let text = match (verb, arg) {
            ('v', _) => go_string(arg),
            ('s', Value::String(s)) => precision.map_or(s.clone(), |p| s.chars().take(p).collect()),
            ('q', Value::String(s)) => go_quote(s),
            ('t', Value::Bool(b)) => b.to_string(),
            ('d', Value::Number(n)) if !n.is_f64() => signed(&go_string(arg), plus, space),
            ('x' | 'X', Value::Number(n)) if !n.is_f64() => {
                let i = n.as_i64().unwrap_or(0);
                let hex = if i < 0 { format!("-{:x}", i.unsigned_abs()) } else { format!("{i:x}") };
                if verb == 'X' { hex.to_uppercase() } else { hex }
            }
            ('x' | 'X', Value::String(s)) => {
                let hex: String = s.bytes().map(|b| format!("{b:02x}")).collect();
                if verb == 'X' { hex.to_uppercase() } else { hex }
            }
            ('f' | 'F', Value::Number(n)) => {
                signed(&format!("{:.*}", precision.unwrap_or(6), n.as_f64().unwrap_or(0.0)), plus, space)
            }
            ('e', Value::Number(n)) => {
                let f = n.as_f64().unwrap_or(0.0);
                let text = format!("{:.*e}", precision.unwrap_or(6), f);
                let (m, e) = text.split_once('e').unwrap_or((&text, "0"));
                let e: i32 = e.parse().unwrap_or(0);
                signed(&format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()), plus, space)
            }
            ('g', Value::Number(n)) => signed(&go_float(n.as_f64().unwrap_or(0.0)), plus, space),
            ('s', _) if !matches!(arg, Value::Number(_) | Value::Bool(_)) => go_string(arg),
            _ => format!("%!{verb}({}={})", go_type(arg), go_string(arg)),
        };
        let pad = width.unwrap_or(0).saturating_sub(text.chars().count());
        if left {
            out.push_str(&text);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if zero && matches!(verb, 'd' | 'f' | 'F' | 'e' | 'g' | 'x' | 'X') {
            let (sign, digits) = match text.strip_prefix(['-', '+']) {
                Some(rest) => (&text[..1], rest),
                None => ("", text.as_str()),
            };
            out.push_str(sign);
            out.extend(std::iter::repeat_n('0', pad));
            out.push_str(digits);
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&text);
        }
    }
    if args_used < args.len() {
        out.push_str("%!(EXTRA ");
        let extra: Vec<String> =
            args[args_used..].iter().map(|a| format!("{}={}", go_type(a), go_string(a))).collect();
        out.push_str(&extra.join(", "));
        out.push(')');
    }
    out
}

fn signed(text: &str, plus: bool, space: bool) -> String {
    if text.starts_with('-') {
        text.to_owned()
    } else if plus {
        format!("+{text}")
    } else if space {
        format!(" {text}")
    } else {
        text.to_owned()
    }
}

/// Go's `strconv.Quote`.
fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => write!(out, "\\x{:02x}", c as u32).unwrap_or(()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04X}", c as u32).unwrap_or(()),
            c => out.push(c),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b' ' => out.push('+'),
            b => write!(out, "%{b:02X}").unwrap_or(()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str, data: &Value) -> String {
        let mut out = String::new();
        GoTemplate::parse(template).unwrap().execute(data, &mut out).unwrap();
        out
    }

    fn fails(template: &str, data: &Value) -> String {
        match GoTemplate::parse(template) {
            Err(why) => why,
            Ok(t) => t.execute(data, &mut String::new()).unwrap_err(),
        }
    }

    fn list() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"team": "x", "tier": "1"}}, "spec": {"replicas": 3, "suspend": false}},
            {"metadata": {"name": "b"}, "spec": {"replicas": 0, "suspend": true, "ratio": 0.5}},
        ]})
    }

    #[test]
    fn fields_ranges_and_trimming() {
        let data = list();
        assert_eq!(run("{{range .items}}{{.metadata.name}}{{\"\\n\"}}{{end}}", &data), "a\nb\n");
        assert_eq!(run("{{range .items -}}\n  {{ .metadata.name }}\n{{- end}}", &data), "ab");
        assert_eq!(run("{{range $i, $js := .items}}{{$i}}={{$js.metadata.name}} {{end}}", &data), "0=a 1=b ");
        assert_eq!(
            run("{{range $k, $v := (index .items 0).metadata.labels}}{{$k}}:{{$v}};{{end}}", &data),
            "team:x;tier:1;"
        );
        assert_eq!(run("{{range .nothing}}x{{else}}none{{end}}", &data), "none");
        assert_eq!(run("{{range 3}}{{.}}{{end}}", &data), "012");
        assert_eq!(
            run("{{range .items}}{{if .spec.suspend}}{{break}}{{end}}{{.metadata.name}}{{end}}", &data),
            "a"
        );
        assert_eq!(
            run(
                "{{range .items}}{{if not .spec.suspend}}{{continue}}{{end}}{{.metadata.name}}{{end}}",
                &data
            ),
            "b"
        );
        assert_eq!(run("{{/* a comment */}}x {{- /* trimmed */ -}} y", &data), "xy");
        assert_eq!(run("{{.kind}} {{$.kind}} {{$}}", &json!({"kind": "L"})), "L L map[kind:L]");
    }

    #[test]
    fn conditions_with_and_variables() {
        let data = list();
        let t = "{{range .items}}{{if eq .spec.replicas 0}}idle{{else if gt .spec.replicas 2}}big{{else}}small{{end}} {{end}}";
        assert_eq!(run(t, &data), "big idle ");
        assert_eq!(run("{{with (index .items 1).spec}}{{.ratio}}{{else}}no{{end}}", &data), "0.5");
        assert_eq!(run("{{with .missing}}yes{{else with .kind}}{{.}}{{end}}", &data), "List");
        assert_eq!(run("{{$n := 0}}{{range .items}}{{$n = .metadata.name}}{{end}}{{$n}}", &data), "b");
        assert_eq!(
            run("{{if and .kind .items}}both{{end}} {{or .missing \"fallback\"}}", &data),
            "both fallback"
        );
        assert_eq!(
            run("{{eq .kind \"Pod\" \"List\"}} {{ne 1 2}} {{lt \"a\" \"b\"}} {{ge 2 2}}", &data),
            "true true true true"
        );
        assert_eq!(run("{{len .items}} {{len .kind}} {{.kind | len}}", &data), "2 4 4");
    }

    #[test]
    fn missing_keys_print_no_value_and_nil_fields_fail() {
        let data = json!({"a": {"b": null}, "n": null});
        assert_eq!(
            run("{{.x}} {{.x.y.z}} {{.n}} {{.a.b}}", &data),
            "<no value> <no value> <no value> <no value>"
        );
        assert_eq!(run("{{print .x}} {{index .a \"zz\"}}", &data), "<nil> <no value>");
        assert!(fails("{{.n.y}}", &data).contains("nil pointer evaluating interface {}.y"));
        assert!(
            fails("{{.a.b.c}}", &json!({"a": {"b": "s"}}))
                .contains("can't evaluate field c in type interface {}")
        );
    }

    #[test]
    fn values_print_as_go_prints_them() {
        let data = json!({"i": 3, "f": 1.5, "big": 1.0e21, "small": 0.00001, "mid": 1234567.5,
            "arr": ["x", 1, null, true], "obj": {"b": [1], "a": {"c": "d"}}});
        assert_eq!(
            run("{{.i}} {{.f}} {{.big}} {{.small}} {{.mid}}", &data),
            "3 1.5 1e+21 1e-05 1.2345675e+06"
        );
        assert_eq!(run("{{.arr}} {{.obj}}", &data), "[x 1 <nil> true] map[a:map[c:d] b:[1]]");
        assert_eq!(run("{{print 1 2 \"a\" 3 \"b\" \"c\"}}|{{println 1 \"a\"}}", &data), "1 2a3bc|1 a\n");
        assert_eq!(
            run(
                "{{printf \"%s=%d %5s|%-4s|%05d %.2f %q %v %t %x\" \"k\" .i \"r\" \"l\" 42 .f \"q\\\"\" .arr true 255}}",
                &data
            ),
            "k=3     r|l   |00042 1.50 \"q\\\"\" [x 1 <nil> true] true ff"
        );
        assert_eq!(
            run("{{printf \"%d %d\" .i}} {{printf \"%s\" .i .i}}", &data),
            "3 %!d(MISSING) %!s(int64=3)%!(EXTRA int64=3)"
        );
        assert_eq!(
            run("{{printf \"%e %g %+d %x %X %8.3f|%-8v|\" .f .mid .i \"hi\" 255 .f .i}}", &data),
            "1.500000e+00 1.2345675e+06 +3 6869 FF    1.500|3       |"
        );
    }

    #[test]
    fn functions_kubectl_adds_and_escapes() {
        let data = json!({"data": {"token": "aGVsbG8="}, "s": "<a href='x'>&</a>", "list": [1, 2, 3, 4]});
        assert_eq!(run("{{base64decode .data.token}} {{.data.token | base64decode}}", &data), "hello hello");
        assert_eq!(
            run("{{exists . \"data\" \"token\"}} {{exists . \"data\" \"nope\"}} {{exists .list 3}}", &data),
            "true false true"
        );
        assert_eq!(run("{{html .s}}", &data), "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
        assert_eq!(run("{{js .s}}", &data), "\\u003Ca href\\u003D\\'x\\'\\u003E\\u0026\\u003C/a\\u003E");
        assert_eq!(run("{{urlquery \"a b&c=d/é\"}}", &data), "a+b%26c%3Dd%2F%C3%A9");
        assert_eq!(run("{{slice .list 1 3}} {{slice \"hello\" 1}} {{index .list 2}}", &data), "[2 3] ello 3");
        assert_eq!(run("{{0x1F}} {{'a'}} {{-2}} {{1e3}} {{`raw\\n`}}", &data), "31 97 -2 1000 raw\\n");
    }

    #[test]
    fn bad_templates_say_why() {
        let data = json!({});
        assert!(fails("{{.metadata.name", &data).contains("unclosed action"));
        assert!(fails("{{if .a}}x", &data).contains("has no {{end}}"));
        assert!(fails("x{{end}}", &data).contains("unexpected {{end}}"));
        assert!(fails("{{nosuch .a}}", &data).contains("function \"nosuch\" not defined"));
        assert!(fails("{{template \"x\"}}", &data).contains("not supported"));
        assert!(fails("{{break}}", &data).contains("outside {{range}}"));
        assert!(fails("{{.a 1}}", &data).contains("a is not a method but has arguments"));
        assert!(fails("{{1 | 2}}", &data).contains("can't give argument to non-function 2"));
        assert!(fails("{{index .list 9}}", &json!({"list": []})).contains("index out of range: 9"));
        assert!(fails("{{$x}}", &data).contains("undefined variable: $x"));
        assert!(fails("{{eq 1 1.5}}", &data).contains("incompatible types"));
        assert!(fails("{{lt .x 0}}", &data).contains("invalid type for comparison"));
        assert_eq!(run("{{eq .x 0}} {{eq .x .y}} {{ne .x 0}} {{eq .x nil}}", &data), "false true true true");
        assert!(
            fails("{{range .s}}{{end}}", &json!({"s": "text"})).contains("range can't iterate over text")
        );
    }
}
