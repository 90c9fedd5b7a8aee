//! The MCP wire: newline-delimited JSON-RPC on stdin and stdout, checked here before rmcp
//! sees it, so that every request gets an answer.
//!
//! rmcp drops what it cannot read without a word (a line over 16 MiB, JSON nested past
//! serde_json's 128 levels, a line that is not JSON) and answers a malformed request without
//! its id, so a client waits for ever. This layer reads stdin itself, a line at a time and
//! never more than [`MAX_LINE`] bytes of one, and answers:
//!
//! - a line longer than [`MAX_LINE`] bytes: `-32600` (invalid request);
//! - JSON nested deeper than [`MAX_DEPTH`] levels (measured without recursion): `-32600`;
//! - a line that is not JSON: `-32700` (parse error);
//! - JSON that is not a JSON-RPC 2.0 request: `-32600`;
//! - a request for a method rmcp knows whose params do not fit it (`tools/call` without a
//!   `name`): `-32602` (invalid params), naming the member, where rmcp would answer "method not
//!   found".
//!
//! A lone surrogate escape in a string (`"\ud83d"`, half of a cut emoji as JavaScript writes
//! it) is read as U+FFFD, as `cogmem hook` reads its stdin.
//!
//! Each error carries the request's `id` when it can be read (from the top level of the line,
//! even one too long or too deep to parse) and `null` otherwise, as JSON-RPC 2.0 asks. A
//! malformed notification (no `id`) gets no answer, as JSON-RPC 2.0 asks too. The server
//! keeps serving after every one of them. Good messages go to rmcp, parsed, through a channel
//! ([`Wire`]); rmcp's answers and this layer's go to stdout a whole line at a time, under one
//! lock, so they never interleave.

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc};

/// The longest message read, in bytes (without its newline): 16 MiB, rmcp's own limit.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// The deepest nesting of arrays and objects accepted. Well under serde_json's 128, so that
/// nothing this layer lets through is dropped by rmcp's parser for its depth.
pub(crate) const MAX_DEPTH: usize = 64;

/// JSON-RPC's "Parse error".
const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's "Invalid Request".
const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC's "Invalid params".
const INVALID_PARAMS: i32 = -32602;

/// The methods rmcp reads into a type of its own. rmcp reads a request for one of them whose
/// params do not fit that type as a custom request and answers it "method not found" (with the
/// method as the message), so this layer answers it first.
const METHODS: [&str; 21] = [
    "initialize",
    "server/discover",
    "ping",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "subscriptions/listen",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// Where answers go: stdout, shared by rmcp's answers and this layer's.
pub(crate) type Out<W> = Arc<Mutex<W>>;

/// rmcp's side of the wire: the messages [`pump`] let through, and stdout for its answers.
pub(crate) struct Wire<W> {
    messages: mpsc::Receiver<ClientJsonRpcMessage>,
    out: Out<W>,
}

impl<W> Wire<W> {
    pub(crate) fn new(messages: mpsc::Receiver<ClientJsonRpcMessage>, out: Out<W>) -> Self {
        Self { messages, out }
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> Transport<RoleServer> for Wire<W> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            write_line(&out, &line).await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        // Cancel-safe: rmcp polls this inside a `select!`.
        self.messages.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.messages.close();
        Ok(())
    }
}

/// Writes one whole line and flushes it.
async fn write_line<W: AsyncWrite + Unpin>(out: &Out<W>, line: &[u8]) -> io::Result<()> {
    let mut w = out.lock().await;
    w.write_all(line).await?;
    w.flush().await
}

/// Reads `input` until it ends, answering every line it refuses on `out` and passing every
/// message it accepts to rmcp through `messages`. Returns when the input ends or rmcp has
/// stopped listening; fails only when reading or answering fails.
pub(crate) async fn pump<R, W>(
    input: R,
    messages: mpsc::Sender<ClientJsonRpcMessage>,
    out: Out<W>,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(input);
    let mut line: Vec<u8> = Vec::new();
    // Skipping the rest of a line already answered as too long.
    let mut skipping = false;
    loop {
        let (taken, verdict) = {
            let buf = reader.fill_buf().await?;
            if buf.is_empty() {
                // The input ended; a last line without a newline is still a message.
                if !skipping && !line.is_empty() {
                    let line = std::mem::take(&mut line);
                    if !answer(&line, &messages, &out).await? {
                        return Ok(());
                    }
                }
                return Ok(());
            }
            let newline = buf.iter().position(|&b| b == b'\n');
            let take = newline.map_or(buf.len(), |i| i + 1);
            let content = newline.map_or(take, |i| i);
            if skipping {
                skipping = newline.is_none();
                (take, Verdict::More)
            } else if line.len() + content > MAX_LINE {
                // Keep what fits, to read the id from; the rest is skipped unread.
                let room = MAX_LINE - line.len();
                line.extend_from_slice(&buf[..room.min(content)]);
                skipping = newline.is_none();
                (take, Verdict::TooLong)
            } else {
                line.extend_from_slice(&buf[..content]);
                (take, if newline.is_some() { Verdict::Line } else { Verdict::More })
            }
        };
        reader.consume(taken);
        match verdict {
            Verdict::More => {}
            Verdict::TooLong => {
                let id = scan(&line).id;
                line.clear();
                let message = format!(
                    "invalid request: a message may be at most {MAX_LINE} bytes (16 MiB); \
                     this one is longer and was not read"
                );
                write_line(&out, &error_line(id, INVALID_REQUEST, &message)).await?;
            }
            Verdict::Line => {
                let whole = std::mem::take(&mut line);
                if !answer(&whole, &messages, &out).await? {
                    return Ok(());
                }
            }
        }
    }
}

/// What one read of the input left.
enum Verdict {
    /// The line goes on.
    More,
    /// The line passed [`MAX_LINE`].
    TooLong,
    /// A whole line is in the buffer.
    Line,
}

/// Checks one line and either passes its message on or answers it. Returns `false` when rmcp
/// has stopped listening.
async fn answer<W: AsyncWrite + Unpin>(
    line: &[u8],
    messages: &mpsc::Sender<ClientJsonRpcMessage>,
    out: &Out<W>,
) -> io::Result<bool> {
    match check(line) {
        Checked::Blank => Ok(true),
        Checked::Message(m) => Ok(messages.send(*m).await.is_ok()),
        Checked::Refused(bytes) => {
            write_line(out, &bytes).await?;
            Ok(true)
        }
        Checked::Ignored => Ok(true),
    }
}

/// What to do with one line.
#[derive(Debug)]
enum Checked {
    /// Nothing there (an empty line).
    Blank,
    /// A message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// The error response to write.
    Refused(Vec<u8>),
    /// A malformed notification, which gets no answer.
    Ignored,
}

/// Checks one line (without its newline): depth first, without recursion, then JSON, then
/// the shape of a JSON-RPC message.
fn check(line: &[u8]) -> Checked {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Checked::Blank;
    }
    let scanned = scan(line);
    if scanned.depth > MAX_DEPTH {
        let message = format!("invalid request: JSON nested deeper than {MAX_DEPTH} levels");
        return Checked::Refused(error_line(scanned.id, INVALID_REQUEST, &message));
    }
    // Half of a surrogate pair (a cut emoji, as JavaScript's `JSON.stringify` writes it) is one
    // character lost, not the whole request.
    let replaced = std::str::from_utf8(line).ok().map(cogmem_text::json::lone_surrogates_replaced);
    let line = replaced.as_deref().map_or(line, str::as_bytes);
    let err = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(ClientJsonRpcMessage::Request(r)) => {
            if let ClientRequest::CustomRequest(c) = &r.request
                && METHODS.contains(&c.method.as_str())
            {
                let id = serde_json::to_value(&r.id).ok();
                let message = params_error(&c.method, c.params.as_ref());
                return Checked::Refused(error_line(id, INVALID_PARAMS, &message));
            }
            return Checked::Message(Box::new(ClientJsonRpcMessage::Request(r)));
        }
        Ok(m) => return Checked::Message(Box::new(m)),
        Err(e) => e,
    };
    match serde_json::from_slice::<Value>(line) {
        Err(e) => {
            let message = format!("parse error: the message is not JSON: {e}");
            Checked::Refused(error_line(scanned.id, PARSE_ERROR, &message))
        }
        // A notification is never answered, not even with an error.
        Ok(v) if v.get("id").is_none() && v.get("method").is_some_and(Value::is_string) => {
            Checked::Ignored
        }
        Ok(v) => {
            let id = v.get("id").filter(|id| id.is_number() || id.is_string()).cloned();
            let message = format!("invalid request: not a JSON-RPC 2.0 request: {err}");
            Checked::Refused(error_line(id, INVALID_REQUEST, &message))
        }
    }
}

/// The message of the `-32602` error for a request to one of [`METHODS`] whose params do not
/// fit: the member that is missing or of the wrong type, where one is.
fn params_error(method: &str, params: Option<&Value>) -> String {
    // (member, required, what it must be)
    let members: &[(&str, bool, &str)] = match method {
        "tools/call" | "prompts/get" => {
            &[("name", true, "a string"), ("arguments", false, "an object")]
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            &[("uri", true, "a string")]
        }
        _ => &[],
    };
    let fits = |v: &Value, kind: &str| match kind {
        "a string" => v.is_string(),
        _ => v.is_object() || v.is_null(),
    };
    let why = match params.filter(|p| !p.is_null()) {
        Some(Value::Object(o)) => {
            members.iter().find_map(|(name, required, kind)| match o.get(*name) {
                None if *required => Some(format!("`{name}` is missing")),
                Some(v) if !fits(v, kind) => {
                    Some(format!("`{name}` must be {kind}, not {}", json_type(v)))
                }
                _ => None,
            })
        }
        Some(other) => Some(format!("`params` must be an object, not {}", json_type(other))),
        None => members
            .iter()
            .find(|(_, required, _)| *required)
            .map(|(name, ..)| format!("`params` is missing, and with it `{name}`")),
    };
    let why = why.unwrap_or_else(|| "they do not fit the method's parameters".to_owned());
    format!("invalid params: {method}: {why}")
}

/// What kind of JSON value `v` is, with its article: `a string`, `an array`.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON-RPC error response line, with the request's id or `null`.
fn error_line(id: Option<Value>, code: i32, message: &str) -> Vec<u8> {
    let response = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code, "message": message },
    });
    let mut line = serde_json::to_vec(&response).expect("a JSON value always serialises");
    line.push(b'\n');
    line
}

/// What [`scan`] found in a line.
#[derive(Debug, PartialEq)]
struct Scanned {
    /// The deepest nesting of arrays and objects.
    depth: usize,
    /// The top-level `id` member, when it is a number or a string.
    id: Option<Value>,
}

/// The longest `id` value read from a line that cannot be parsed whole.
const MAX_ID_BYTES: usize = 256;

/// Measures a line's nesting and reads its top-level `id`, in one pass and without recursion,
/// so that it works on any line: too deep to parse, cut short at [`MAX_LINE`], or not JSON.
fn scan(bytes: &[u8]) -> Scanned {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut string_start = 0usize;
    // At depth 1 of a top-level object: whether a key comes next, the last key, and where the
    // value of an `id` key starts.
    let top_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let mut want_key = false;
    let mut key_is_id = false;
    let mut id_start: Option<usize> = None;
    let mut id = None;
    let take_id = |start: Option<usize>, end: usize| {
        let raw = start.map(|s| bytes[s..end].trim_ascii()).filter(|r| r.len() <= MAX_ID_BYTES);
        raw.and_then(|r| serde_json::from_slice::<Value>(r).ok())
            .filter(|v| v.is_number() || v.is_string())
    };
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if depth == 1 && top_object && want_key {
                    key_is_id = &bytes[string_start..i] == b"id";
                    want_key = false;
                }
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                string_start = i + 1;
            }
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
                want_key = depth == 1 && b == b'{';
            }
            b'}' | b']' => {
                if depth == 1 && id.is_none() {
                    id = take_id(id_start.take(), i);
                }
                depth = depth.saturating_sub(1);
            }
            b':' if depth == 1 && top_object => {
                id_start = key_is_id.then_some(i + 1);
                key_is_id = false;
            }
            b',' if depth == 1 && top_object => {
                if id.is_none() {
                    id = take_id(id_start.take(), i);
                }
                want_key = true;
            }
            _ => {}
        }
    }
    Scanned { depth: deepest, id }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"params\":{}0{}}}",
            "[".repeat(levels),
            "]".repeat(levels)
        )
    }

    #[test]
    fn scan_measures_depth_and_reads_the_top_level_id() {
        let cases: [(&str, usize, Option<Value>); 11] = [
            (r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#, 1, Some(7.into())),
            (r#"{"id":"a-1","method":"x","params":{"id":9}}"#, 2, Some("a-1".into())),
            (r#"{"method":"x","params":{"id":9},"id":4}"#, 2, Some(4.into())),
            (r#"{"method":"x","params":{"id":9}}"#, 2, None),
            (r#"{"text":"{[\"id\":1]","id":5}"#, 1, Some(5.into())),
            (r#"{"id":{"a":1}}"#, 2, None),
            (r#"{"id":null,"method":"x"}"#, 1, None),
            (r#"[{"id":1}]"#, 2, None),
            ("not json at all", 0, None),
            (
                r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"text":"aaaa"#,
                2,
                Some(12.into()),
            ),
            (r#"{"a\"id":1,"id":2}"#, 1, Some(2.into())),
        ];
        for (line, depth, id) in cases {
            assert_eq!(scan(line.as_bytes()), Scanned { depth, id }, "line: {line}");
        }
        assert_eq!(scan(nested(200).as_bytes()), Scanned { depth: 201, id: Some(3.into()) });
    }

    #[test]
    fn check_answers_what_it_refuses() {
        let refused = |line: &str| match check(line.as_bytes()) {
            Checked::Refused(bytes) => serde_json::from_slice::<Value>(&bytes).unwrap(),
            other => panic!("{line}: {other:?}"),
        };
        let v = refused("garbage");
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (Value::Null, (-32700).into()));
        let v = refused(&nested(MAX_DEPTH));
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (3.into(), (-32600).into()));
        let v = refused(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"x"}"#);
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (9.into(), (-32600).into()));
        let v = refused("[1,2]");
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (Value::Null, (-32600).into()));
        assert!(matches!(check(b""), Checked::Blank));
        assert!(matches!(check(b"\r"), Checked::Blank));
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}"#),
            Checked::Ignored | Checked::Message(_)
        ));
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Checked::Message(_)
        ));
        assert!(matches!(check(nested(MAX_DEPTH - 2).as_bytes()), Checked::Refused(_)));
    }

    #[test]
    fn check_reads_lone_surrogates_and_answers_bad_params_with_the_id() {
        let refused = |line: &[u8]| match check(line) {
            Checked::Refused(bytes) => serde_json::from_slice::<Value>(&bytes).unwrap(),
            other => panic!("{}: {other:?}", String::from_utf8_lossy(line)),
        };
        let call = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{params}}}"#)
        };
        // Half of a cut emoji is read as U+FFFD; the request goes to rmcp.
        let cut = call(r#"{"name":"search","arguments":{"query":"tea \ud83d"}}"#);
        match check(cut.as_bytes()) {
            Checked::Message(m) => {
                assert!(serde_json::to_string(&m).unwrap().contains("tea \u{FFFD}"), "{m:?}");
            }
            other => panic!("{other:?}"),
        }
        // Not UTF-8, or cut short: still a parse error, but with the id.
        let v = refused(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"x\":\"caf\xe9\"}");
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (4.into(), (-32700).into()));
        let v = refused(br#"{"jsonrpc":"2.0","id":2,"#);
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (2.into(), (-32700).into()));
        // Params that do not fit the method: invalid params, naming the member.
        let cases = [
            (
                call(r#"{"name":"search","arguments":"tea"}"#),
                "`arguments` must be an object, not a string",
            ),
            (
                call(r#"{"name":"search","arguments":[]}"#),
                "`arguments` must be an object, not an array",
            ),
            (call(r#"{"arguments":{"query":"tea"}}"#), "tools/call: `name` is missing"),
            (call(r#"{"name":5}"#), "`name` must be a string, not a number"),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":5}}"#
                    .to_owned(),
                "resources/read: `uri` must be a string, not a number",
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{}}"#.to_owned(),
                "prompts/get: `name` is missing",
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"prompts/get"}"#.to_owned(),
                "prompts/get: `params` is missing, and with it `name`",
            ),
        ];
        for (line, words) in cases {
            let v = refused(line.as_bytes());
            assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (5.into(), (-32602).into()));
            let message = v["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("invalid params: ") && message.contains(words),
                "{line}: {message}"
            );
        }
        // Requests as hosts send them go to rmcp, params or none.
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"k":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        ] {
            assert!(matches!(check(line.as_bytes()), Checked::Message(_)), "{line}");
        }
        // A method rmcp does not know is its to answer.
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":1,"method":"x/y","params":{}}"#),
            Checked::Message(_)
        ));
    }
}
