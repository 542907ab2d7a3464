//! A request that panics, in its work or in its handler, answers 500 and the
//! server goes on serving.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use axum::routing::get;

use super::*;

/// Status and body of `GET path`.
fn get_from(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

fn explode() -> StatusCode {
    panic!("in the handler")
}

#[test]
fn a_request_that_panics_answers_500_and_the_server_goes_on() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let addr = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let guard = guard::Guard::new(addr.ip(), addr.port(), &[]);
        let in_work = || async {
            reply(crate::blocking::run(|_| -> Result<Reply> { panic!("in the work") }).await)
        };
        let app = router(
            Arc::new(Service::new(Default::default())),
            Arc::new(Hub::default()),
        )
        .route("/in-work", get(in_work))
        .route("/in-handler", get(|| async { explode() }))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check));
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    });
    for _ in 0..3 {
        let (status, body) = get_from(addr, "/in-work");
        assert_eq!(status, 500, "{body}");
        assert!(body.contains("the request failed: in the work"), "{body}");
        let (status, body) = get_from(addr, "/in-handler");
        assert_eq!(status, 500, "{body}");
        assert!(
            body.contains("the request failed: in the handler"),
            "{body}"
        );
        let (status, body) = get_from(addr, "/tsp/api/health");
        assert_eq!(status, 200, "{body}");
    }
}
