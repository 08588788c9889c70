//! A list's answer cut into its items as the bytes arrive, so each item is parsed while
//! the rest of the page is still on the wire and no page is ever held whole.
//!
//! [`ListCutter`] knows only as much JSON as it takes to see where a value ends
//! (strings, escapes, nesting); each item is then parsed by serde_json from its own
//! bytes, as before. The list's `metadata` is handed on the moment it ends: built-in
//! lists (Jobs, ControllerRevisions) send it first, so the next page can be asked for
//! while this one is still arriving; custom resources' lists (JobSets) send it last.

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::de::Error as _;

/// The `continue` token of a list page read from its first and last bytes only (a few
/// KiB), for a reader that does not cut the page into items (the raw-floor bench, which
/// must do no more than the transfer). Built-in lists put their metadata before the
/// items; custom resources' lists (JobSets) are encoded with sorted keys, so theirs comes
/// last. A guess: a string inside an item could in principle fool it.
pub fn continue_token_at_edges(page: &[u8]) -> Option<String> {
    const EDGE: usize = 4096;
    let head = String::from_utf8_lossy(&page[..page.len().min(EDGE)]);
    let tail = String::from_utf8_lossy(&page[page.len().saturating_sub(EDGE)..]);
    let metadata_first = match (head.find("\"metadata\""), head.find("\"items\"")) {
        (Some(m), Some(i)) => m < i,
        (Some(_), None) => true,
        _ => false,
    };
    let metadata = if metadata_first {
        &head[head.find("\"metadata\"")?..]
    } else {
        &tail[tail.rfind("\"metadata\"")?..]
    };
    // ListMeta holds no nested object: it ends at its first `}`.
    let metadata = &metadata[..metadata.find('}').unwrap_or(metadata.len())];
    let after_key = &metadata[metadata.find("\"continue\"")? + "\"continue\"".len()..];
    let value = after_key.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(value[..value.find('"')?].to_owned()).filter(|t| !t.is_empty())
}

/// A whole top-level value of the list, as the cutter hands it on.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// The list's `metadata` (`{"continue": …, "resourceVersion": …}`).
    Metadata(&'a [u8]),
    /// One element of `items`.
    Item(&'a [u8]),
}

/// Where the cutter is in the list object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening `{`.
    Start,
    /// After `{` or a `,` between members: a key, or `}`.
    BeforeKey,
    /// Inside a member's key.
    Key,
    /// After a key: its `:`.
    Colon,
    /// After the `:`: the member's value begins.
    BeforeValue,
    /// Inside a member's value (`metadata`, or anything else, skipped).
    Value,
    /// `items` is an array: an element, or `]`.
    BeforeItem,
    /// Inside an element of `items`.
    Item,
    /// After an element: `,` or `]`.
    AfterItem,
    /// After a member's value: `,` or `}`.
    AfterValue,
    /// After the closing `}`.
    Done,
}

/// What the member being read is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Items,
    Metadata,
    Other,
}

/// Finds where one JSON value ends, across chunks.
#[derive(Debug, Default)]
struct ValueEnd {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// A number, `true`, `false` or `null`: it ends before the next delimiter.
    scalar: bool,
}

impl ValueEnd {
    /// Starts a value whose first byte is `first` (which `scan` then reads with the rest).
    fn begin(first: u8) -> ValueEnd {
        ValueEnd { scalar: !matches!(first, b'{' | b'[' | b'"'), ..ValueEnd::default() }
    }

    /// Scans `bytes`; the index just past the value's end if it ends in them.
    fn scan(&mut self, bytes: &[u8]) -> Result<Option<usize>, serde_json::Error> {
        let mut i = 0;
        while i < bytes.len() {
            if self.escaped {
                self.escaped = false;
                i += 1;
                continue;
            }
            if self.in_string {
                // Most of a Kubernetes object's bytes are inside strings: skip to the
                // next quote or backslash at once.
                let Some(at) = memchr::memchr2(b'"', b'\\', &bytes[i..]) else { return Ok(None) };
                i += at;
                if bytes[i] == b'\\' {
                    self.escaped = true;
                } else {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Ok(Some(i + 1));
                    }
                }
                i += 1;
                continue;
            }
            let byte = bytes[i];
            if self.scalar {
                if matches!(byte, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                    return Ok(Some(i));
                }
                i += 1;
                continue;
            }
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.checked_sub(1).ok_or_else(|| malformed("a closing bracket"))?;
                    if self.depth == 0 {
                        return Ok(Some(i + 1));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Ok(None)
    }
}

fn malformed(what: &str) -> serde_json::Error {
    serde_json::Error::custom(format!("the list's answer is not JSON as expected: unexpected {what}"))
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\r' | b'\t')
}

/// Cuts a list's JSON (`{"kind": …, "metadata": {…}, "items": [{…}, …]}`) into its
/// metadata and items, chunk by chunk.
#[derive(Debug)]
pub struct ListCutter {
    state: State,
    member: Member,
    key: Vec<u8>,
    value: ValueEnd,
    /// The start of a value that began in an earlier chunk.
    held: Vec<u8>,
}

impl Default for ListCutter {
    fn default() -> Self {
        ListCutter {
            state: State::Start,
            member: Member::Other,
            key: Vec::new(),
            value: ValueEnd::default(),
            held: Vec::new(),
        }
    }
}

impl ListCutter {
    /// Reads the next chunk, handing each metadata and item that ends in it to `on`.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        mut on: impl FnMut(Piece<'_>) -> Result<(), serde_json::Error>,
    ) -> Result<(), serde_json::Error> {
        let mut i = 0;
        // Where the value being read began in this chunk (0 when it began earlier).
        let mut value_start = 0;
        while i < chunk.len() {
            let byte = chunk[i];
            match self.state {
                State::Value | State::Item => {
                    let Some(end) = self.value.scan(&chunk[i..])? else { break };
                    i += end;
                    let keep = self.state == State::Item || self.member == Member::Metadata;
                    if keep {
                        let bytes = if self.held.is_empty() {
                            &chunk[value_start..i]
                        } else {
                            self.held.extend_from_slice(&chunk[value_start..i]);
                            &self.held[..]
                        };
                        on(if self.state == State::Item {
                            Piece::Item(bytes)
                        } else {
                            Piece::Metadata(bytes)
                        })?;
                        self.held.clear();
                    }
                    self.state = if self.state == State::Item { State::AfterItem } else { State::AfterValue };
                    continue;
                }
                _ if is_space(byte) && self.state != State::Key => {}
                State::Start if byte == b'{' => self.state = State::BeforeKey,
                State::BeforeKey if byte == b'"' => {
                    self.key.clear();
                    self.state = State::Key;
                }
                State::BeforeKey if byte == b'}' => self.state = State::Done,
                State::Key => {
                    let end = memchr::memchr(b'"', &chunk[i..]);
                    let stop = end.map_or(chunk.len(), |at| i + at);
                    self.key.extend_from_slice(&chunk[i..stop]);
                    if end.is_none() {
                        break;
                    }
                    self.member = match &self.key[..] {
                        b"items" => Member::Items,
                        b"metadata" => Member::Metadata,
                        _ => Member::Other,
                    };
                    self.state = State::Colon;
                    i = stop;
                }
                State::Colon if byte == b':' => self.state = State::BeforeValue,
                State::BeforeValue if self.member == Member::Items && byte == b'[' => {
                    self.state = State::BeforeItem
                }
                State::BeforeValue => {
                    self.value = ValueEnd::begin(byte);
                    value_start = i;
                    self.state = State::Value;
                    continue;
                }
                State::BeforeItem if byte == b']' => self.state = State::AfterValue,
                State::BeforeItem => {
                    self.value = ValueEnd::begin(byte);
                    value_start = i;
                    self.state = State::Item;
                    continue;
                }
                State::AfterItem if byte == b',' => self.state = State::BeforeItem,
                State::AfterItem if byte == b']' => self.state = State::AfterValue,
                State::AfterValue if byte == b',' => self.state = State::BeforeKey,
                State::AfterValue if byte == b'}' => self.state = State::Done,
                _ => return Err(malformed(&format!("{:?} in {:?}", byte as char, self.state))),
            }
            i += 1;
        }
        let reading =
            self.state == State::Item || (self.state == State::Value && self.member == Member::Metadata);
        if reading {
            self.held.extend_from_slice(&chunk[value_start..]);
        }
        Ok(())
    }

    /// Succeeds only if the whole list was read.
    pub fn finish(&self) -> Result<(), serde_json::Error> {
        match self.state {
            State::Done => Ok(()),
            _ => Err(serde_json::Error::custom("the list's answer ended before its last item")),
        }
    }
}

/// What the first bytes of a list page say of its `continue` token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// The list's metadata came before any item (built-in lists): its token, if any.
    Metadata(Option<String>),
    /// An item came first (custom resources' lists, sorted keys): the token comes last.
    ItemsFirst,
}

/// Reads a page's first bytes as they arrive, on the task that receives them, until its
/// metadata or first item: the next page can be asked for before the parse thread, busy
/// with other pages, reaches this one. It stops scanning once it has its answer.
#[derive(Debug, Default)]
pub struct HeadReader {
    cutter: ListCutter,
    head: Option<Head>,
}

impl HeadReader {
    /// Reads one more chunk; the answer once the head has said it.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<&Head> {
        if self.head.is_none() {
            let head = &mut self.head;
            // Stopping early is an error to the cutter; a malformed list is the parse's to report.
            let _ = self.cutter.feed(chunk, |piece| {
                *head = Some(match piece {
                    Piece::Metadata(bytes) => Head::Metadata(token_of(bytes)?),
                    Piece::Item(_) => Head::ItemsFirst,
                });
                Err(serde_json::Error::custom("head read"))
            });
            if self.head.is_none() && self.cutter.state == State::Done {
                self.head = Some(Head::Metadata(None));
            }
        }
        self.head.as_ref()
    }
}

/// The `continue` token in a list's metadata (None when empty or absent).
fn token_of(metadata: &[u8]) -> Result<Option<String>, serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct ListMeta {
        #[serde(default, rename = "continue")]
        continue_token: Option<String>,
    }
    Ok(serde_json::from_slice::<ListMeta>(metadata)?.continue_token.filter(|t| !t.is_empty()))
}

/// A list page: its items, each reduced, and the token of the next page.
#[derive(Debug)]
pub struct Page<T> {
    pub continue_token: Option<String>,
    pub items: Vec<T>,
}

/// Reads a page from its chunks as they come, each item parsed as `I` and passed
/// through `reduce`; `on_token` is told the page's `continue` token (empty: none) as
/// soon as its metadata has been read, so the next page can be asked for early.
pub fn read_chunks<I: DeserializeOwned, T>(
    chunks: impl IntoIterator<Item = Bytes>,
    reduce: &impl Fn(I) -> T,
    mut on_token: impl FnMut(Option<String>),
) -> Result<Page<T>, serde_json::Error> {
    let mut cutter = ListCutter::default();
    let mut page = Page { continue_token: None, items: Vec::new() };
    for chunk in chunks {
        cutter.feed(&chunk, |piece| {
            match piece {
                Piece::Metadata(bytes) => {
                    page.continue_token = token_of(bytes)?;
                    on_token(page.continue_token.clone());
                }
                Piece::Item(bytes) => page.items.push(reduce(serde_json::from_slice::<I>(bytes)?)),
            }
            Ok(())
        })?;
    }
    cutter.finish()?;
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Every piece of `text`, fed in chunks of `size` bytes, as owned JSON.
    fn cut(text: &[u8], size: usize) -> Result<(Vec<Value>, Vec<Value>), serde_json::Error> {
        let mut cutter = ListCutter::default();
        let (mut metadata, mut items) = (Vec::new(), Vec::new());
        for chunk in text.chunks(size.max(1)) {
            cutter.feed(chunk, |piece| {
                match piece {
                    Piece::Metadata(b) => metadata.push(serde_json::from_slice(b)?),
                    Piece::Item(b) => items.push(serde_json::from_slice(b)?),
                }
                Ok(())
            })?;
        }
        cutter.finish()?;
        Ok((metadata, items))
    }

    #[test]
    fn items_and_metadata_come_out_whole_in_any_chunking() {
        let list = json!({
            "apiVersion": "batch/v1",
            "kind": "JobList",
            "metadata": {"continue": "abc", "resourceVersion": "12"},
            "items": [
                {"metadata": {"name": "a\"b\\c}]", "labels": {"x": "[{"}}, "spec": {"n": -1.5e3, "ok": true}},
                {"metadata": {"name": "\u{2028}é"}, "list": [1, [2, [3]], {}], "null": null},
                "a string item",
                42
            ]
        });
        for text in [serde_json::to_vec(&list).unwrap(), serde_json::to_vec_pretty(&list).unwrap()] {
            for size in [1, 2, 3, 7, 64, text.len()] {
                let (metadata, items) = cut(&text, size).unwrap();
                assert_eq!(metadata, vec![list["metadata"].clone()], "chunks of {size}");
                assert_eq!(Value::Array(items), list["items"], "chunks of {size}");
            }
        }
    }

    #[test]
    fn metadata_after_the_items_and_null_or_empty_items_are_read() {
        let text = br#"{"items":[{"a":1}],"kind":"JobSetList","metadata":{"continue":"t"}}"#;
        let (metadata, items) = cut(text, 5).unwrap();
        assert_eq!(metadata, vec![json!({"continue": "t"})]);
        assert_eq!(items, vec![json!({"a": 1})]);
        for text in [&br#"{"items":null,"metadata":{}}"#[..], br#"{"items":[],"metadata":{}}"#, b"{}"] {
            assert_eq!(cut(text, 3).unwrap().1, Vec::<Value>::new());
        }
    }

    #[test]
    fn an_answer_cut_short_or_not_json_fails() {
        let text = br#"{"metadata":{},"items":[{"a":1},{"b":2}]}"#;
        for end in [0, 1, 10, 20, 30, text.len() - 1] {
            assert!(cut(&text[..end], 4).is_err(), "cut at {end}");
        }
        for bad in [&b"[1,2]"[..], b"{\"items\":[1]]", b"{\"items\":[{]}", b"{\"items\" [1]}"] {
            assert!(cut(bad, 2).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn the_token_is_told_as_soon_as_the_metadata_ends() {
        let text = br#"{"metadata":{"continue":"next"},"items":[{"a":1},{"a":2}]}"#;
        let chunks: Vec<Bytes> = text.chunks(6).map(Bytes::copy_from_slice).collect();
        let told = std::cell::RefCell::new(Vec::new());
        let read = std::cell::Cell::new(0);
        let reduce = |v: Value| {
            read.set(read.get() + 1);
            v["a"].as_i64().unwrap()
        };
        let page = read_chunks(chunks, &reduce, |t| told.borrow_mut().push((t, read.get()))).unwrap();
        assert_eq!(page.items, vec![1, 2]);
        assert_eq!(page.continue_token.as_deref(), Some("next"));
        assert_eq!(*told.borrow(), vec![(Some("next".to_owned()), 0)], "told before any item was read");
        let last =
            read_chunks([Bytes::from_static(br#"{"metadata":{"continue":""},"items":[]}"#)], &reduce, |_| {});
        assert_eq!(last.unwrap().continue_token, None);
    }

    #[test]
    fn the_head_says_the_token_of_a_metadata_first_list_from_its_first_bytes() {
        let head_of = |text: &[u8], size: usize| {
            let mut reader = HeadReader::default();
            let mut fed = 0;
            for chunk in text.chunks(size) {
                fed += chunk.len();
                if let Some(head) = reader.feed(chunk) {
                    return (head.clone(), fed);
                }
            }
            panic!("no answer from {}", String::from_utf8_lossy(text));
        };
        let items =
            format!(r#"[{{"metadata":{{"name":"a","continue":"no"}},"pad":"{}"}}]"#, "x".repeat(10_000));
        let job_page = format!(
            r#"{{"kind":"JobList","metadata":{{"continue":"next","resourceVersion":"9"}},"items":{items}}}"#
        );
        for size in [1, 7, 100] {
            let (head, fed) = head_of(job_page.as_bytes(), size);
            assert_eq!(head, Head::Metadata(Some("next".into())), "chunks of {size}");
            assert!(fed <= 100, "answered at the metadata's end, not after the items ({fed} bytes)");
        }
        let last = br#"{"kind":"JobList","metadata":{"continue":"","resourceVersion":"9"},"items":[]}"#;
        assert_eq!(head_of(last, 4).0, Head::Metadata(None));
        // Sorted keys: an item comes first, and the reader says so at that item's end.
        let jobset_page = format!(r#"{{"apiVersion":"x/v1","items":{items},"metadata":{{"continue":"t"}}}}"#);
        let (head, fed) = head_of(jobset_page.as_bytes(), 1000);
        assert_eq!(head, Head::ItemsFirst);
        assert!(fed < 12_000);
        assert_eq!(head_of(b"{}", 1).0, Head::Metadata(None));
    }

    #[test]
    fn the_continue_token_is_read_off_the_edges_of_either_kind_of_list() {
        let job_page = br#"{"kind":"JobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"9","continue":"eyJ2Ijoi","remainingItemCount":3},"items":[{"metadata":{"name":"a","continue":"no"}}]}"#;
        assert_eq!(continue_token_at_edges(job_page).as_deref(), Some("eyJ2Ijoi"));
        // Sorted keys (custom resources): the list's metadata comes after the items, which
        // here are longer than the edge that is read.
        let items = format!(r#"[{{"metadata":{{"name":"a"}},"pad":"{}"}}]"#, "x".repeat(10_000));
        let jobset_page = format!(
            r#"{{"apiVersion":"jobset.x-k8s.io/v1alpha2","items":{items},"kind":"JobSetList","metadata":{{"continue":"abc","remainingItemCount":8,"resourceVersion":"22101"}}}}"#
        );
        assert_eq!(continue_token_at_edges(jobset_page.as_bytes()).as_deref(), Some("abc"));
        let last = br#"{"apiVersion":"x/v1","items":[{"metadata":{"name":"a"}}],"kind":"XList","metadata":{"resourceVersion":"9"}}"#;
        assert_eq!(continue_token_at_edges(last), None);
        let empty = br#"{"kind":"JobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"9","continue":""},"items":[]}"#;
        assert_eq!(continue_token_at_edges(empty), None);
        let pretty = b"{\n  \"kind\": \"JobList\",\n  \"metadata\": {\n    \"continue\": \"t1\"\n  },\n  \"items\": []\n}";
        assert_eq!(continue_token_at_edges(pretty).as_deref(), Some("t1"));
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
            any::<String>().prop_map(Value::String),
            "[\"\\\\{}\\[\\],: ]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map("[a-z\"\\\\{]{0,5}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// The cutter finds the same items and metadata serde_json does, whatever the
        /// values and wherever the chunks break.
        #[test]
        fn cutting_agrees_with_parsing_the_whole(
            items in prop::collection::vec(json_value(), 0..6),
            metadata in json_value(),
            metadata_first in any::<bool>(),
            pretty in any::<bool>(),
            size in 1usize..40,
        ) {
            let mut list = serde_json::Map::new();
            if metadata_first {
                list.insert("metadata".into(), metadata.clone());
                list.insert("items".into(), Value::Array(items.clone()));
            } else {
                list.insert("items".into(), Value::Array(items.clone()));
                list.insert("kind".into(), json!("List"));
                list.insert("metadata".into(), metadata.clone());
            }
            let list = Value::Object(list);
            let text = if pretty { serde_json::to_vec_pretty(&list) } else { serde_json::to_vec(&list) }.unwrap();
            // Against serde_json's own reading of the whole text: its float parsing is
            // not an exact round trip, so the values generated are not the reference.
            let whole: Value = serde_json::from_slice(&text).unwrap();
            let (got_metadata, got_items) = cut(&text, size).unwrap();
            prop_assert_eq!(got_metadata, vec![whole["metadata"].clone()]);
            prop_assert_eq!(Value::Array(got_items), whole["items"].clone());
        }
    }
}
