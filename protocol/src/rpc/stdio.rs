//! `sextant serve --stdio`: JSON-RPC 2.0 with LSP framing on stdin/stdout,
//! for an IDE plugin that runs sextant as a child process the way an editor
//! runs a language server. The session (`session`) is the WebSocket's; here
//! are the framing, the exit code (1 when `exit` comes without `shutdown`
//! or the client's process died) and the end of stdin ending the session.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::frames::{frame_text, FrameReader};
use super::session::{self, Ended, Transport};
use super::Shared;

/// How long queued messages may take to reach stdout once the session ends.
const FLUSH: Duration = Duration::from_millis(500);

async fn write_out<W: AsyncWrite + Unpin>(
    mut out: W,
    mut rx: mpsc::UnboundedReceiver<String>,
) -> std::io::Result<()> {
    let mut batch = Vec::new();
    while rx.recv_many(&mut batch, 256).await > 0 {
        for m in batch.drain(..) {
            out.write_all(&frame_text(&m)).await?;
        }
        out.flush().await?;
    }
    Ok(())
}

/// Runs one session over `input`/`output` until `exit`, the end of input or
/// the client's death.
pub async fn serve<R, W>(shared: Arc<Shared>, input: R, output: W) -> std::io::Result<Ended>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, out_rx) = mpsc::unbounded_channel();
    let writer = tokio::spawn(write_out(output, out_rx));
    let frames = futures::stream::unfold(FrameReader::new(input), |mut r| async move {
        r.next().await.transpose().map(|f| (f, r))
    });
    let ended = session::run(shared, Transport::Stdio, Box::pin(frames), out).await;
    // Answers already computed still go out; work still running was
    // dropped with the session.
    let _ = tokio::time::timeout(FLUSH, writer).await;
    ended
}
