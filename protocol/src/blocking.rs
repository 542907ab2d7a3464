//! One request's work, run off the transports' async threads (sampling
//! states or running a model must not stall the other connections), by
//! every transport alike: cancelled when the request is dropped — an HTTP
//! client that disconnected, a `$/cancelRequest`, a closed WebSocket — and a
//! panic in it is that request's internal error (500), not the server's end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::service::{ErrorKind, Result, ServiceError};

/// Sets the work's cancel flag when the request's future is dropped before
/// the work ended.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `f` on a blocking thread, with the flag it must watch: set when the
/// returned future is dropped, after which `f` should stop at its next check.
pub async fn run<T: Send + 'static>(
    f: impl FnOnce(&AtomicBool) -> Result<T> + Send + 'static,
) -> Result<T> {
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(cancel.clone());
    tokio::task::spawn_blocking(move || f(&cancel))
        .await
        .unwrap_or_else(|e| {
            // A panic's message, not the task's number.
            let what = match e.try_into_panic() {
                Ok(p) => p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into()),
                Err(e) => e.to_string(),
            };
            eprintln!("sextant: a request failed: {what}");
            Err(ServiceError::new(
                ErrorKind::Internal,
                "Internal error",
                format!("the request failed: {what}"),
            ))
        })
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_panic_is_an_internal_error() {
        let e = runtime()
            .block_on(run(|_| -> Result<()> { panic!("boom at 42") }))
            .unwrap_err();
        assert_eq!(e.kind.http_status(), 500);
        assert_eq!(e.detail, "the request failed: boom at 42");
        let ok = runtime().block_on(run(|_| Ok(7)));
        assert_eq!(ok.unwrap(), 7);
    }

    #[test]
    fn dropping_the_request_cancels_the_work() {
        let (saw, seen) = mpsc::channel();
        let rt = runtime();
        let r = rt.block_on(async {
            let work = run(move |cancel| {
                while !cancel.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                saw.send(()).unwrap();
                Ok(())
            });
            tokio::time::timeout(Duration::from_millis(50), work).await
        });
        assert!(r.is_err(), "the work ended by itself");
        seen.recv_timeout(Duration::from_secs(5))
            .expect("the work never saw it was cancelled");
    }
}
