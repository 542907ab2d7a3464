//! Time synchronisation between clients, whatever their transport: the
//! current selection and window of each experiment, and a hub that relays a
//! change from one client to every other one (never back to its source).
//! Transports register as clients, publish what their client sends and
//! forward what their subscription yields.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};
use tokio::sync::{broadcast, watch};

use crate::service::{Result, ServiceError};

pub const SELECTION_CHANGED: &str = "sextant/selectionChanged";
pub const WINDOW_CHANGED: &str = "sextant/windowChanged";
pub const GET_SELECTION: &str = "sextant/getSelection";

/// Changes a slow subscriber may fall behind by before it misses some (it
/// then catches up with the latest ones, which are the ones that matter).
const BACKLOG: usize = 256;

/// What changed: the selected time range or the visible window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Selection,
    Window,
}

impl Kind {
    /// The JSON-RPC notification (and server-sent event) carrying it.
    pub fn method(self) -> &'static str {
        match self {
            Kind::Selection => SELECTION_CHANGED,
            Kind::Window => WINDOW_CHANGED,
        }
    }
}

/// A client of the hub: its transport and a number unique within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientId {
    pub transport: &'static str,
    pub n: u64,
}

/// One change, as relayed: `params` is `{experimentUUID, start, end, source}`.
#[derive(Debug, Clone)]
pub struct Change {
    pub kind: Kind,
    pub from: ClientId,
    pub params: Value,
}

#[derive(Default)]
struct Current {
    selection: Option<Value>,
    window: Option<Value>,
}

pub struct Hub {
    current: Mutex<HashMap<String, Current>>,
    changes: broadcast::Sender<Change>,
    next_client: AtomicU64,
    /// True once the server stops: subscriptions end, so that open event
    /// streams do not hold the shutdown.
    closed: watch::Sender<bool>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            current: Mutex::new(HashMap::new()),
            changes: broadcast::channel(BACKLOG).0,
            next_client: AtomicU64::new(1),
            closed: watch::channel(false).0,
        }
    }
}

/// `{experimentUUID, start, end, source?}` checked, in canonical form.
fn range(params: &Value) -> Result<(String, Value)> {
    let Some(o) = params.as_object() else {
        return Err(ServiceError::bad_request(
            "params must be an object {experimentUUID, start, end, source}",
        ));
    };
    let exp = match o.get("experimentUUID") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(_) => {
            return Err(ServiceError::bad_request(
                "experimentUUID: expected a non-empty string",
            ))
        }
        None => return Err(ServiceError::bad_request("missing field: experimentUUID")),
    };
    let time = |name: &str| match o.get(name) {
        Some(v) => v
            .as_i64()
            .ok_or_else(|| ServiceError::bad_request(format!("{name}: expected an integer (ns)"))),
        None => Err(ServiceError::bad_request(format!("missing field: {name}"))),
    };
    let (start, end) = (time("start")?, time("end")?);
    if start > end {
        return Err(ServiceError::bad_request(format!(
            "start ({start}) is after end ({end})"
        )));
    }
    let source = match o.get("source") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(ServiceError::bad_request("source: expected a string")),
    };
    let canonical = json!({"experimentUUID": exp, "start": start, "end": end, "source": source});
    Ok((exp, canonical))
}

impl Hub {
    /// A new client of `transport`, for publishing and subscribing.
    pub fn client(&self, transport: &'static str) -> ClientId {
        ClientId {
            transport,
            n: self.next_client.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Records a change from `from` and relays it to every other client.
    pub fn publish(&self, from: ClientId, kind: Kind, params: &Value) -> Result<()> {
        let (exp, params) = range(params)?;
        {
            let mut current = self.current.lock().expect("not poisoned");
            let c = current.entry(exp).or_default();
            match kind {
                Kind::Selection => c.selection = Some(params.clone()),
                Kind::Window => c.window = Some(params.clone()),
            }
        }
        // No subscriber is not an error.
        let _ = self.changes.send(Change { kind, from, params });
        Ok(())
    }

    /// `sextant/getSelection {experimentUUID}`: `{experimentUUID, selection,
    /// window}`, each null until some client set it.
    pub fn current(&self, params: &Value) -> Result<Value> {
        let exp = match params.get("experimentUUID") {
            Some(Value::String(s)) => s,
            Some(_) => {
                return Err(ServiceError::bad_request(
                    "experimentUUID: expected a string",
                ))
            }
            None => return Err(ServiceError::bad_request("missing field: experimentUUID")),
        };
        let current = self.current.lock().expect("not poisoned");
        let c = current.get(exp);
        let mut out = Map::new();
        out.insert("experimentUUID".into(), json!(exp));
        out.insert(
            "selection".into(),
            c.and_then(|c| c.selection.clone()).unwrap_or(Value::Null),
        );
        out.insert(
            "window".into(),
            c.and_then(|c| c.window.clone()).unwrap_or(Value::Null),
        );
        Ok(Value::Object(out))
    }

    /// The changes other clients than `me` publish from now on.
    pub fn subscribe(&self, me: ClientId) -> Subscription {
        Subscription {
            me,
            changes: self.changes.subscribe(),
            closed: self.closed.subscribe(),
        }
    }

    /// Ends every subscription (the server is stopping).
    pub fn close(&self) {
        self.closed.send_replace(true);
    }

    /// Resolves once the hub is closed: the server is stopping.
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut closed = self.closed.subscribe();
        async move {
            let _ = closed.wait_for(|c| *c).await;
        }
    }
}

pub struct Subscription {
    me: ClientId,
    changes: broadcast::Receiver<Change>,
    closed: watch::Receiver<bool>,
}

impl Subscription {
    /// The next change from another client; `None` once the hub closes.
    pub async fn next(&mut self) -> Option<Change> {
        loop {
            tokio::select! {
                r = self.changes.recv() => match r {
                    Ok(c) if c.from == self.me => continue,
                    Ok(c) => return Some(c),
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        eprintln!("sextant: a sync client fell behind by {n} changes");
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                _ = self.closed.wait_for(|c| *c) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn relays_to_others_only_and_keeps_the_latest() {
        let hub = Hub::default();
        let (a, b) = (hub.client("stdio"), hub.client("ws"));
        let (mut sa, mut sb) = (hub.subscribe(a), hub.subscribe(b));
        let p = json!({"experimentUUID": "e", "start": 1, "end": 2, "source": "tc"});
        hub.publish(a, Kind::Selection, &p).unwrap();
        let got = sb.next().await.unwrap();
        assert_eq!((got.kind, got.from, got.params), (Kind::Selection, a, p));
        // a's own change never comes back to it: the next thing a sees is b's.
        let w = json!({"experimentUUID": "e", "start": 0, "end": 10, "source": "vscode"});
        hub.publish(b, Kind::Window, &w).unwrap();
        assert_eq!(sa.next().await.unwrap().from, b);
        let cur = hub.current(&json!({"experimentUUID": "e"})).unwrap();
        assert_eq!(cur["selection"]["start"], 1);
        assert_eq!(cur["window"]["end"], 10);
        assert_eq!(
            hub.current(&json!({"experimentUUID": "x"})).unwrap()["selection"],
            Value::Null
        );
        hub.close();
        assert!(sa.next().await.is_none());
    }

    #[test]
    fn bad_ranges_are_refused() {
        let hub = Hub::default();
        let c = hub.client("t");
        for bad in [
            json!({"start": 1, "end": 2}),
            json!({"experimentUUID": "e", "start": "1", "end": 2}),
            json!({"experimentUUID": "e", "start": 3, "end": 2}),
            json!([1]),
        ] {
            assert!(hub.publish(c, Kind::Window, &bad).is_err(), "{bad}");
        }
    }
}
