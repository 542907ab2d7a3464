//! `sextant serve` for tests: the real binary on a free loopback port
//! (`--port 0`, address read from its first line on stderr), killed when
//! dropped, and a minimal HTTP/1.1 client for it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::repo_root;

/// The server process, killed when dropped (also when a test fails).
pub struct Server {
    child: Child,
    pub addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `sextant serve --port 0` in the repository root and reads the
    /// address it prints.
    pub fn start() -> Server {
        Server::start_with(&[])
    }

    /// `sextant serve --port 0` with more options.
    pub fn start_with(args: &[&str]) -> Server {
        let mut child = super::command()
            .args(["serve", "--port", "0"])
            .args(args)
            .current_dir(repo_root())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting sextant serve");
        let stderr = child.stderr.take().expect("piped");
        let mut server = Server {
            child,
            addr: String::new(),
        };
        let mut lines = BufReader::new(stderr).lines();
        let first = lines
            .next()
            .expect("sextant serve printed nothing")
            .expect("reading its stderr");
        let url = first
            .split("http://")
            .nth(1)
            .unwrap_or_else(|| panic!("no address in {first:?}"));
        server.addr = url.split('/').next().unwrap().to_string();
        // Keep draining stderr so that the server never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        server
    }

    pub fn request(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let (status, text) = self.raw(method, path, body);
        let v = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text}"));
        (status, v)
    }

    /// One HTTP/1.1 request on a fresh connection; (status, body).
    pub fn raw(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connecting to the server");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let body = body.unwrap_or("");
        let req = format!(
            "{method} /tsp/api{path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        // The server may answer (413) and close before reading it all.
        let _ = s.write_all(req.as_bytes());
        let mut resp = Vec::new();
        let _ = s.read_to_end(&mut resp);
        let text = String::from_utf8(resp).expect("UTF-8 response");
        let (head, rest) = text.split_once("\r\n\r\n").expect("a header");
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        let body = if chunked {
            dechunk(rest)
        } else {
            rest.to_string()
        };
        (status, body)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits at most `limit` for the process to end.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(st) = self.child.try_wait().expect("waiting for the server") {
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        self.request("GET", path, None)
    }

    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.request("POST", path, Some(&body.to_string()))
    }

    pub fn delete(&self, path: &str) -> (u16, Value) {
        self.request("DELETE", path, None)
    }
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = s.split_once("\r\n").expect("chunk size");
        let n = usize::from_str_radix(size.trim(), 16).expect("hex chunk size");
        if n == 0 {
            return out;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
}

impl Server {
    /// Opens scenario-a as the viewer does and waits for the experiment to be
    /// indexed; (experiment UUID, experiment).
    pub fn open_scenario_a(&self, name: &str) -> (String, Value) {
        self.open_trace(name, "fixtures/scenario-a/ctf")
    }

    /// Opens the trace at `uri` (relative to the repository) in an experiment
    /// of its own, named `{name}-exp`, and waits for it to be indexed.
    pub fn open_trace(&self, name: &str, uri: &str) -> (String, Value) {
        let (st, trace) = self.post(
            "/traces",
            &json!({"parameters": {"name": name, "uri": uri}}),
        );
        assert_eq!(st, 200, "{trace}");
        self.experiment(&format!("{name}-exp"), &[trace["UUID"].clone()])
    }

    /// Creates the experiment `name` of the opened traces `uuids` and waits
    /// for it to be indexed; (experiment UUID, experiment).
    pub fn experiment(&self, name: &str, uuids: &[Value]) -> (String, Value) {
        let (st, exp) = self.post(
            "/experiments",
            &json!({"parameters": {"name": name, "traces": uuids}}),
        );
        assert_eq!(st, 200, "{exp}");
        let euuid = exp["UUID"].as_str().unwrap().to_string();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (st, exp) = self.get(&format!("/experiments/{euuid}"));
            assert_eq!(st, 200, "{exp}");
            match exp["indexingStatus"].as_str().unwrap() {
                "COMPLETED" => return (euuid, exp),
                "RUNNING" => {
                    assert!(exp["statusMessage"].is_string());
                    assert!(Instant::now() < deadline, "indexing takes too long");
                    std::thread::sleep(Duration::from_millis(50));
                }
                other => panic!("indexing ended {other}: {exp}"),
            }
        }
    }
}
