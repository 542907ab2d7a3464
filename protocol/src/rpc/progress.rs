//! LSP work-done progress for a request whose client gave a
//! `workDoneToken`: `begin`, a `report` whenever the per cent grows, `end`
//! when the request ends — also when it is cancelled.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::Client;

use super::dispatch::Percent;

/// How often the per cent is looked at.
const TICK: Duration = Duration::from_millis(50);

/// `$/progress`, its token passed on as the client gave it.
pub enum WorkDone {}

impl Notification for WorkDone {
    type Params = Value;
    const METHOD: &'static str = "$/progress";
}

/// Sends `end` when dropped: the request finished or was cancelled.
struct EndOnDrop {
    client: Client,
    token: Value,
    message: &'static str,
}

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        let client = self.client.clone();
        let params =
            json!({"token": self.token, "value": {"kind": "end", "message": self.message}});
        // Drop cannot wait: the notification goes out from a task of its own.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { client.send_notification::<WorkDone>(params).await });
        }
    }
}

/// Runs `work`, reporting `percent` under `token`.
pub async fn reported<F: Future>(
    client: &Client,
    token: Value,
    title: &str,
    percent: Percent,
    work: F,
) -> F::Output {
    client
        .send_notification::<WorkDone>(json!({"token": token, "value": {
            "kind": "begin", "title": title, "cancellable": true, "percentage": 0}}))
        .await;
    let mut end = EndOnDrop {
        client: client.clone(),
        token: token.clone(),
        message: "cancelled",
    };
    tokio::pin!(work);
    let mut last = 0;
    let mut tick = tokio::time::interval(TICK);
    loop {
        tokio::select! {
            out = &mut work => {
                end.message = "done";
                return out;
            }
            _ = tick.tick() => {
                let p = percent.load(Ordering::Relaxed);
                if p > last {
                    last = p;
                    client
                        .send_notification::<WorkDone>(json!({"token": token, "value": {
                            "kind": "report", "percentage": p}}))
                        .await;
                }
            }
        }
    }
}
