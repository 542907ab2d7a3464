//! JSON-RPC clients of the real binary for tests, one type for both
//! transports: `sextant serve --stdio` as a child process (LSP framing on
//! its stdin/stdout), or a WebSocket connection to `sextant serve --ws`.
//! The addresses the server prints on stderr (HTTP, WebSocket) are read
//! from there.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ExitStatus, Stdio as Pipe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::Message;

use super::repo_root;

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Which transport a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    WebSocket,
}

/// Where the client's messages go.
enum Wire {
    /// The child's stdin; `None` once closed.
    Pipe(Option<ChildStdin>),
    /// The WebSocket's thread; `None` once closed.
    Ws(Option<Sender<Vec<u8>>>),
}

/// The stdio client, by its old name.
pub type Stdio = Rpc;

/// A client; the server process it started (if any) is killed when dropped
/// (also when a test fails).
pub struct Rpc {
    child: Option<Child>,
    wire: Wire,
    incoming: Receiver<Value>,
    /// Messages read while waiting for another one.
    stash: VecDeque<Value>,
    stderr: Arc<Mutex<Vec<String>>>,
    next_id: i64,
    /// Every message the server sent, in order (for schema checks).
    pub log: Arc<Mutex<Vec<Value>>>,
    /// Every message sent to the server that was JSON.
    pub sent: Vec<Value>,
}

impl Drop for Rpc {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// One LSP frame from `r`; `None` at the end.
pub fn read_frame(r: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let mut body = vec![0; length.expect("the server framed a message without Content-Length")];
    r.read_exact(&mut body).ok()?;
    Some(body)
}

pub fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Runs a WebSocket client on its own thread: what `out` yields is sent as
/// text messages (closing when `out` ends), what arrives goes to `tx` and
/// `log`.
fn ws_thread(addr: &str, out: Receiver<Vec<u8>>, tx: Sender<Value>, log: Arc<Mutex<Vec<Value>>>) {
    let (mut ws, _) =
        tungstenite::connect(format!("ws://{addr}")).expect("connecting to the WebSocket");
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
        // Short reads, so that one thread both reads and writes.
        s.set_read_timeout(Some(Duration::from_millis(5))).unwrap();
    }
    std::thread::spawn(move || {
        let mut open = true;
        loop {
            while open {
                match out.try_recv() {
                    Ok(m) => {
                        let text = String::from_utf8_lossy(&m).into_owned();
                        if ws.send(Message::text(text)).is_err() {
                            return;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        let _ = ws.close(None);
                        open = false;
                    }
                }
            }
            match ws.read() {
                Ok(Message::Text(t)) => {
                    let v: Value = serde_json::from_str(t.as_str())
                        .unwrap_or_else(|e| panic!("the server sent invalid JSON ({e}): {t}"));
                    log.lock().unwrap().push(v.clone());
                    if tx.send(v).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                // Closed, by either side.
                Err(_) => return,
            }
        }
    });
}

impl Rpc {
    /// `sextant serve --stdio ARGS...` (`Transport::Stdio`), or `sextant
    /// serve --port 0 --ws 0 ARGS...` and a WebSocket client of it, in the
    /// repository root.
    pub fn start_on(transport: Transport, args: &[&str]) -> Rpc {
        let lead: &[&str] = match transport {
            Transport::Stdio => &["serve", "--stdio"],
            Transport::WebSocket => &["serve", "--port", "0", "--ws", "0"],
        };
        let mut child = super::command()
            .args(lead)
            .args(args)
            .current_dir(repo_root())
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped())
            .spawn()
            .expect("starting sextant serve");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let (tx, incoming) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = stderr.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(l);
            }
        });
        let mut rpc = Rpc {
            child: Some(child),
            wire: Wire::Pipe(None),
            incoming,
            stash: VecDeque::new(),
            stderr,
            next_id: 0,
            log: log.clone(),
            sent: Vec::new(),
        };
        match transport {
            Transport::Stdio => {
                rpc.wire = Wire::Pipe(stdin);
                rpc.read_stdout(stdout, tx, log);
            }
            Transport::WebSocket => {
                let addr = rpc.address("ws");
                let (out, out_rx) = mpsc::channel();
                ws_thread(&addr, out_rx, tx, log);
                rpc.wire = Wire::Ws(Some(out));
            }
        }
        rpc
    }

    /// A WebSocket client of a server already running at `addr`.
    pub fn connect_ws(addr: &str) -> Rpc {
        let (tx, incoming) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (out, out_rx) = mpsc::channel();
        ws_thread(addr, out_rx, tx, log.clone());
        Rpc {
            child: None,
            wire: Wire::Ws(Some(out)),
            incoming,
            stash: VecDeque::new(),
            stderr: Arc::new(Mutex::new(Vec::new())),
            next_id: 0,
            log,
            sent: Vec::new(),
        }
    }

    /// `sextant serve --stdio ARGS...` in the repository root.
    pub fn start(args: &[&str]) -> Rpc {
        Rpc::start_on(Transport::Stdio, args)
    }

    pub fn transport(&self) -> Transport {
        match self.wire {
            Wire::Pipe(_) => Transport::Stdio,
            Wire::Ws(_) => Transport::WebSocket,
        }
    }

    /// The server's process id (of the process this client started).
    pub fn server_pid(&self) -> u32 {
        self.child.as_ref().expect("a server started here").id()
    }

    fn read_stdout(
        &self,
        stdout: std::process::ChildStdout,
        tx: Sender<Value>,
        log: Arc<Mutex<Vec<Value>>>,
    ) {
        let log2 = log;
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(body) = read_frame(&mut r) {
                let v: Value = serde_json::from_slice(&body).unwrap_or_else(|e| {
                    panic!(
                        "the server sent invalid JSON ({e}): {}",
                        String::from_utf8_lossy(&body)
                    )
                });
                log2.lock().unwrap().push(v.clone());
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
    }

    /// Started and initialized (with `traceRoots` when given).
    pub fn initialized(args: &[&str], roots: &[&Path]) -> (Rpc, Value) {
        Rpc::initialized_on(Transport::Stdio, args, roots)
    }

    /// `start_on`, then initialized (with `traceRoots` when given).
    pub fn initialized_on(transport: Transport, args: &[&str], roots: &[&Path]) -> (Rpc, Value) {
        let mut s = Rpc::start_on(transport, args);
        let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        let init = s.request(
            "initialize",
            json!({"processId": std::process::id(), "clientInfo": {"name": "rpc test"},
                   "capabilities": {"window": {"workDoneProgress": true}},
                   "initializationOptions": {"traceRoots": roots}}),
        );
        s.notify("initialized", json!({}));
        (s, init)
    }

    /// The line of stderr containing `needle`, waiting for it.
    pub fn stderr_line(&self, needle: &str) -> String {
        let until = Instant::now() + TIMEOUT;
        loop {
            if let Some(l) = self
                .stderr
                .lock()
                .unwrap()
                .iter()
                .find(|l| l.contains(needle))
            {
                return l.clone();
            }
            assert!(Instant::now() < until, "no {needle:?} on stderr");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `host:port` of the address printed after `scheme://`.
    pub fn address(&self, scheme: &str) -> String {
        let line = self.stderr_line(&format!("{scheme}://"));
        let rest = line.split(&format!("{scheme}://")).nth(1).unwrap();
        rest.split('/').next().unwrap().trim().to_string()
    }

    /// Bytes as they are: on stdio into the pipe (framing is the
    /// caller's), on WebSocket as one text message.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        match &mut self.wire {
            Wire::Pipe(stdin) => {
                let stdin = stdin.as_mut().expect("stdin still open");
                stdin.write_all(bytes).expect("writing to sextant");
                stdin.flush().unwrap();
            }
            Wire::Ws(out) => out
                .as_ref()
                .expect("the WebSocket still open")
                .send(bytes.to_vec())
                .expect("the WebSocket thread is running"),
        }
    }

    /// One message's bytes, framed for the transport (LSP framing on stdio).
    pub fn send_message(&mut self, body: &[u8]) {
        match self.wire {
            Wire::Pipe(_) => {
                let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
                framed.extend_from_slice(body);
                self.send_raw(&framed);
            }
            Wire::Ws(_) => self.send_raw(body),
        }
    }

    pub fn send(&mut self, v: &Value) {
        self.sent.push(v.clone());
        self.send_message(v.to_string().as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// An id for a request the test frames itself.
    pub fn next_id_for_test(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request and returns its id without waiting.
    pub fn start_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message matching `pred`, others kept for later.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.stash.iter().position(&pred) {
            return self.stash.remove(i).unwrap();
        }
        let until = Instant::now() + TIMEOUT;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(v) if pred(&v) => return v,
                Ok(v) => self.stash.push_back(v),
                Err(RecvTimeoutError::Timeout) => panic!("timed out waiting for {what}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("sextant closed its output waiting for {what}")
                }
            }
        }
    }

    /// The response with this id (a response has no method).
    pub fn response(&mut self, id: &Value) -> Value {
        self.wait_for(&format!("the response to {id}"), |v| {
            v.get("method").is_none() && v.get("id") == Some(id)
        })
    }

    /// Result or error object.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.start_request(method, params);
        let r = self.response(&json!(id));
        match r.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(r["result"].clone()),
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.call(method, params)
            .unwrap_or_else(|e| panic!("{method} failed: {e}"))
    }

    /// Notifications of `method` received so far (taken out of the stash).
    pub fn take_notifications(&mut self, method: &str) -> Vec<Value> {
        while let Ok(v) = self.incoming.try_recv() {
            self.stash.push_back(v);
        }
        let (mine, rest): (Vec<_>, Vec<_>) = self.stash.drain(..).partition(|v| {
            v.get("method").and_then(Value::as_str) == Some(method) && v.get("id").is_none()
        });
        self.stash = rest.into();
        mine
    }

    /// Closes the client's side: stdin, or the WebSocket.
    pub fn close_stdin(&mut self) {
        match &mut self.wire {
            Wire::Pipe(stdin) => *stdin = None,
            Wire::Ws(out) => *out = None,
        }
    }

    /// The exit status of the server this client started, within `TIMEOUT`.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let child = self.child.as_mut().expect("a server started here");
        let until = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < until, "sextant did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The server's exit status if it has ended.
    pub fn try_exit(&mut self) -> Option<ExitStatus> {
        let child = self.child.as_mut().expect("a server started here");
        child.try_wait().unwrap()
    }

    /// Waits for the server to end the session: on stdio the process's exit
    /// code, on WebSocket the connection's close (`None`).
    pub fn wait_end(&mut self) -> Option<i32> {
        if self.transport() == Transport::Stdio {
            return self.wait_exit().code();
        }
        let until = Instant::now() + TIMEOUT;
        loop {
            match self
                .incoming
                .recv_timeout(until.saturating_duration_since(Instant::now()))
            {
                Ok(v) => self.stash.push_back(v),
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => panic!("the server kept the session open"),
            }
        }
    }

    /// Opens scenario-a (trace, experiment, indexed); the experiment UUID.
    pub fn open_scenario_a(&mut self, name: &str) -> String {
        let t = self.request(
            "tsp/traces/open",
            json!({"parameters": {"name": name, "uri": "fixtures/scenario-a/ctf"}, "workDoneToken": format!("{name}-t")}),
        );
        let e = self.request(
            "tsp/experiments/create",
            json!({"parameters": {"name": format!("{name}-exp"), "traces": [t["UUID"]]}, "workDoneToken": format!("{name}-e")}),
        );
        assert_eq!(e["indexingStatus"], "COMPLETED", "{e}");
        e["UUID"].as_str().unwrap().to_string()
    }
}
