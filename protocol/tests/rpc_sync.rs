//! Time synchronisation across transports in one process (`serve --stdio
//! --port 0 --ws 0`): a change from a client reaches the clients on the
//! other transports (stdio, WebSocket subscription, HTTP server-sent
//! events) and never comes back to its source; `sextant/getSelection`
//! answers the latest.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::rpc::Stdio;
use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

type Ws = WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>;

fn ws_connect(addr: &str) -> Ws {
    let (ws, _) =
        tungstenite::connect(format!("ws://{addr}")).expect("connecting to the WebSocket");
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
        s.set_read_timeout(Some(common::rpc::TIMEOUT)).unwrap();
    }
    ws
}

fn ws_send(ws: &mut Ws, v: Value) {
    ws.send(Message::text(v.to_string())).unwrap();
}

/// The next JSON message (skipping pings).
fn ws_next(ws: &mut Ws) -> Value {
    loop {
        match ws.read().expect("reading the WebSocket") {
            Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// The response to `id`, other messages kept in `stash`.
fn ws_call(ws: &mut Ws, stash: &mut Vec<Value>, id: i64, method: &str, params: Value) -> Value {
    ws_send(
        ws,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    );
    loop {
        let m = ws_next(ws);
        if m["id"] == id {
            return m;
        }
        stash.push(m);
    }
}

/// The next sync change the subscription delivers: `{method, params}`.
fn ws_change(ws: &mut Ws, stash: &mut Vec<Value>) -> Value {
    let m = if stash.is_empty() {
        ws_next(ws)
    } else {
        stash.remove(0)
    };
    assert_eq!(m["method"], "sextant/sync", "{m}");
    m["params"]["result"].clone()
}

/// A server-sent-events reader over a raw HTTP/1.1 connection.
struct Sse {
    r: BufReader<TcpStream>,
}

impl Sse {
    fn connect(addr: &str) -> Sse {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(common::rpc::TIMEOUT)).unwrap();
        write!(s, "GET /tsp/api/sync/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n").unwrap();
        let mut r = BufReader::new(s);
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert!(line.contains(" 200 "), "{line}");
        loop {
            line.clear();
            r.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
        }
        Sse { r }
    }

    /// The next chunk of the (chunked) body.
    fn chunk(&mut self) -> String {
        let mut size = String::new();
        self.r.read_line(&mut size).unwrap();
        let n = usize::from_str_radix(size.trim(), 16)
            .unwrap_or_else(|_| panic!("chunk size {size:?}"));
        let mut buf = vec![0; n + 2];
        self.r.read_exact(&mut buf).unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    /// The next event with data: (event name, data as JSON).
    fn next(&mut self) -> (String, Value) {
        let mut text = String::new();
        loop {
            text.push_str(&self.chunk());
            while let Some(end) = text.find("\n\n") {
                let block: String = text.drain(..end + 2).collect();
                let mut event = String::new();
                let mut data = String::new();
                for l in block.lines() {
                    if let Some(e) = l.strip_prefix("event:") {
                        event = e.trim().to_string();
                    } else if let Some(d) = l.strip_prefix("data:") {
                        data.push_str(d.trim());
                    }
                }
                if !data.is_empty() {
                    return (event, serde_json::from_str(&data).unwrap());
                }
            }
        }
    }
}

fn http_post(addr: &str, path: &str, body: &Value) -> Value {
    let mut s = TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(s, "POST /tsp/api{path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, rest) = resp.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{resp}");
    serde_json::from_str(rest).unwrap_or_else(|e| panic!("{e}: {rest}"))
}

fn range(exp: &str, start: i64, end: i64, source: &str) -> Value {
    json!({"experimentUUID": exp, "start": start, "end": end, "source": source})
}

#[test]
fn changes_cross_transports_without_echo() {
    let (mut tc, _) = Stdio::initialized(&["--port", "0", "--ws", "0"], &[]);
    let exp = tc.open_scenario_a("sync");
    let (http, ws_addr) = (tc.address("http"), tc.address("ws"));

    let mut ws = ws_connect(&ws_addr);
    let mut stash = Vec::new();
    let sub = ws_call(&mut ws, &mut stash, 1, "sextant/subscribeSync", json!([]));
    assert!(sub.get("result").is_some(), "{sub}");
    let mut sse = Sse::connect(&http);
    let (event, hello) = sse.next();
    assert_eq!(event, "sextant/connected");
    let sse_id = hello["clientId"].as_u64().unwrap();

    // stdio → WebSocket and SSE.
    tc.notify("sextant/selectionChanged", range(&exp, 100, 200, "tc"));
    let c = ws_change(&mut ws, &mut stash);
    assert_eq!(
        c,
        json!({"method": "sextant/selectionChanged", "params": range(&exp, 100, 200, "tc")})
    );
    assert_eq!(
        sse.next(),
        (
            "sextant/selectionChanged".into(),
            range(&exp, 100, 200, "tc")
        )
    );

    // WebSocket → stdio and SSE; not back to the WebSocket: the next change
    // it sees is the following one, from stdio.
    let r = ws_call(
        &mut ws,
        &mut stash,
        2,
        "sextant/windowChanged",
        range(&exp, 0, 5000, "ws"),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    let n = tc.wait_for("windowChanged on stdio", |v| {
        v["method"] == "sextant/windowChanged"
    });
    assert_eq!(n["params"], range(&exp, 0, 5000, "ws"));
    assert_eq!(
        sse.next(),
        ("sextant/windowChanged".into(), range(&exp, 0, 5000, "ws"))
    );
    tc.notify("sextant/windowChanged", range(&exp, 10, 20, "tc"));
    assert_eq!(
        ws_change(&mut ws, &mut stash)["params"],
        range(&exp, 10, 20, "tc")
    );
    assert_eq!(sse.next().1, range(&exp, 10, 20, "tc"));

    // REST (as the SSE client) → stdio and WebSocket; not back to the SSE
    // stream: its next event is the following change, from the WebSocket.
    let cur = http_post(
        &http,
        &format!("/sync/selection?clientId={sse_id}"),
        &range(&exp, 300, 400, "vscode"),
    );
    assert_eq!(cur["selection"], range(&exp, 300, 400, "vscode"));
    let n = tc.wait_for("selectionChanged on stdio", |v| {
        v["method"] == "sextant/selectionChanged"
    });
    assert_eq!(n["params"], range(&exp, 300, 400, "vscode"));
    assert_eq!(
        ws_change(&mut ws, &mut stash)["params"],
        range(&exp, 300, 400, "vscode")
    );
    ws_call(
        &mut ws,
        &mut stash,
        3,
        "sextant/selectionChanged",
        range(&exp, 500, 600, "ws"),
    );
    assert_eq!(sse.next().1, range(&exp, 500, 600, "ws"));

    // stdio never heard its own changes.
    std::thread::sleep(Duration::from_millis(200));
    for m in ["sextant/selectionChanged", "sextant/windowChanged"] {
        for n in tc.take_notifications(m) {
            assert_ne!(n["params"]["source"], "tc", "echo to stdio: {n}");
        }
    }
    let cur = tc.request("sextant/getSelection", json!({"experimentUUID": exp}));
    assert_eq!(
        cur,
        json!({"experimentUUID": exp, "selection": range(&exp, 500, 600, "ws"), "window": range(&exp, 10, 20, "tc")})
    );
    let r = ws_call(
        &mut ws,
        &mut stash,
        4,
        "sextant/getSelection",
        json!({"experimentUUID": exp}),
    );
    assert_eq!(r["result"], cur);
    // A bad range is refused as bad params, on every transport.
    let e = tc.call("sextant/getSelection", json!({})).unwrap_err();
    assert_eq!(e["code"], -32602);
    let r = ws_call(
        &mut ws,
        &mut stash,
        5,
        "sextant/windowChanged",
        json!({"experimentUUID": exp, "start": 9, "end": 1}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[test]
fn websocket_answers_the_endpoint_table() {
    let (mut tc, _) = Stdio::initialized(&["--ws", "0"], &[]);
    let exp = tc.open_scenario_a("ws");
    let mut ws = ws_connect(&tc.address("ws"));
    let mut stash = Vec::new();
    let r = ws_call(
        &mut ws,
        &mut stash,
        1,
        "tsp/experiments/get",
        json!({"expUUID": exp}),
    );
    assert_eq!(
        r["result"],
        tc.request("tsp/experiments/get", json!({"expUUID": exp}))
    );
    let r = ws_call(
        &mut ws,
        &mut stash,
        2,
        "tsp/experiments/get",
        json!({"expUUID": 1}),
    );
    assert_eq!(
        (&r["error"]["code"], &r["error"]["data"]["status"]),
        (&json!(-32602), &json!(400)),
        "{r}"
    );
    let r = ws_call(&mut ws, &mut stash, 3, "tsp/nothing", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
}
