//! `sextant serve --stdio` for tests: the real binary as a child process, a
//! JSON-RPC client with LSP framing on its stdin/stdout, the addresses it
//! prints on stderr (HTTP, WebSocket) when started with more transports.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio as Pipe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::repo_root;

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The child, killed when dropped (also when a test fails).
pub struct Stdio {
    child: Child,
    stdin: Option<ChildStdin>,
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

impl Drop for Stdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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

impl Stdio {
    /// `sextant serve --stdio ARGS...` in the repository root.
    pub fn start(args: &[&str]) -> Stdio {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
            .args(["serve", "--stdio"])
            .args(args)
            .current_dir(repo_root())
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped())
            .spawn()
            .expect("starting sextant serve --stdio");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let (tx, incoming) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let log2 = log.clone();
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
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = stderr.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(l);
            }
        });
        Stdio {
            child,
            stdin,
            incoming,
            stash: VecDeque::new(),
            stderr,
            next_id: 0,
            log,
            sent: Vec::new(),
        }
    }

    /// Started and initialized (with `traceRoots` when given).
    pub fn initialized(args: &[&str], roots: &[&Path]) -> (Stdio, Value) {
        let mut s = Stdio::start(args);
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

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("writing to sextant");
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        self.sent.push(v.clone());
        self.send_raw(&frame(v));
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

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The exit status, within `TIMEOUT`.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let until = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < until, "sextant did not exit");
            std::thread::sleep(Duration::from_millis(10));
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
