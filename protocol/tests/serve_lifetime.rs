//! A server runs until it is stopped: `sextant serve` over HTTP (and with
//! WebSocket beside it) still answers after the time it grants requests in
//! flight at a stop (`DRAIN`, 20 s), then SIGTERM ends it with status 0.

mod common;

use std::time::Duration;

use common::server::Server;

/// Longer than the drain granted at a stop, so a drain counted from the
/// start instead of the stop shows as a server that is gone.
const PAST_DRAIN: Duration = Duration::from_secs(23);

#[test]
fn http_server_keeps_serving_until_it_is_stopped() {
    let mut srv = Server::start_with(&["--ws", "0"]);
    let (st, _) = srv.get("/health");
    assert_eq!(st, 200);
    std::thread::sleep(PAST_DRAIN);
    assert!(
        srv.wait_exit(Duration::from_millis(10)).is_none(),
        "sextant serve ended by itself {} s after it started",
        PAST_DRAIN.as_secs()
    );
    let (st, health) = srv.get("/health");
    assert_eq!(st, 200, "{health}");
    let r = unsafe { libc::kill(srv.pid() as i32, libc::SIGTERM) };
    assert_eq!(r, 0);
    let st = srv
        .wait_exit(Duration::from_secs(10))
        .expect("still running 10 s after SIGTERM");
    assert_eq!(st.code(), Some(0));
}
