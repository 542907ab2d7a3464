//! LSP base-protocol framing (`Content-Length: N\r\n\r\n` then N bytes of
//! JSON), read so that a malformed frame costs that frame only: the reader
//! reports it and finds the next header. (tower-lsp-server's own codec ends
//! the session on the first malformed frame, which a long-lived sidecar
//! cannot afford.)

use tokio::io::{AsyncRead, AsyncReadExt};

/// Largest message accepted; a longer declared length is a framing error.
pub const MAX_MESSAGE: usize = 64 << 20;
/// Longest header block: more without a blank line is garbage.
const MAX_HEADER: usize = 8192;
const HEADER_NAME: &[u8] = b"Content-Length";

/// What the reader found next.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message's bytes (not yet checked to be JSON).
    Message(Vec<u8>),
    /// A malformed header, skipped up to the next one; what was wrong.
    Malformed(String),
}

pub struct FrameReader<R> {
    input: R,
    buf: Vec<u8>,
    /// After a malformed header: the bytes up to the next header name are
    /// what is left of that frame, dropped without another report.
    skipping: bool,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The declared length of a header block (without its blank line).
fn content_length(block: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(block).map_err(|_| "the header is not UTF-8".to_string())?;
    let mut length = None;
    for line in text.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("malformed header line {line:?}"));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n: usize = value
                .trim()
                .parse()
                .map_err(|_| format!("bad Content-Length {:?}", value.trim()))?;
            if n > MAX_MESSAGE {
                return Err(format!(
                    "Content-Length {n} is over the limit of {MAX_MESSAGE} bytes"
                ));
            }
            length = Some(n);
        }
        // Content-Type and unknown headers are ignored, as LSP allows.
    }
    length.ok_or_else(|| "missing Content-Length header".to_string())
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(input: R) -> Self {
        FrameReader {
            input,
            buf: Vec::with_capacity(16 << 10),
            skipping: false,
        }
    }

    /// Drops the bytes of a malformed header: up to the next header name
    /// after it, or all there is; what follows until a header is skipped.
    fn resync(&mut self) {
        let next = find(&self.buf[1..], HEADER_NAME).map(|p| p + 1);
        let cut = next.unwrap_or(self.buf.len());
        self.buf.drain(..cut);
        self.skipping = next.is_none();
    }

    /// The next frame; `None` at the end of the input.
    pub async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        loop {
            if self.skipping {
                match find(&self.buf, HEADER_NAME) {
                    Some(p) => {
                        self.buf.drain(..p);
                        self.skipping = false;
                    }
                    // Keep a tail that may be the start of a header name.
                    None => {
                        let keep = HEADER_NAME.len().min(self.buf.len());
                        self.buf.drain(..self.buf.len() - keep);
                    }
                }
            }
            if self.skipping {
                // Nothing to frame yet: read more.
            } else if let Some(h) = find(&self.buf, b"\r\n\r\n") {
                match content_length(&self.buf[..h]) {
                    Ok(n) => {
                        let start = h + 4;
                        if self.buf.len() >= start + n {
                            let body = self.buf[start..start + n].to_vec();
                            self.buf.drain(..start + n);
                            return Ok(Some(Frame::Message(body)));
                        }
                    }
                    Err(why) => {
                        self.resync();
                        return Ok(Some(Frame::Malformed(why)));
                    }
                }
            } else if self.buf.len() > MAX_HEADER {
                self.resync();
                return Ok(Some(Frame::Malformed(format!(
                    "no header end within {MAX_HEADER} bytes"
                ))));
            }
            self.buf.reserve(16 << 10);
            if self.input.read_buf(&mut self.buf).await? == 0 {
                // The end: a partial message left over is dropped, as its
                // sender is gone.
                return Ok(None);
            }
        }
    }
}

/// One message (JSON text), framed.
pub fn frame_text(body: &str) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &str) -> Vec<Frame> {
        let mut r = FrameReader::new(input.as_bytes());
        let mut out = Vec::new();
        while let Some(f) = r.next().await.unwrap() {
            out.push(f);
        }
        out
    }

    fn msg(s: &str) -> Frame {
        Frame::Message(s.as_bytes().to_vec())
    }

    #[tokio::test]
    async fn good_frames_in_a_row() {
        let got =
            frames("Content-Length: 2\r\n\r\n{}content-length: 3\r\nContent-Type: x\r\n\r\n[1]")
                .await;
        assert_eq!(got, vec![msg("{}"), msg("[1]")]);
    }

    #[tokio::test]
    async fn a_bad_header_costs_one_frame() {
        let got =
            frames("Content-Length: abc\r\n\r\n{}Content-Length: 2\r\n\r\n{}X-Other: 1\r\n\r\nContent-Length: 1\r\n\r\n1").await;
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(
            matches!(&got[0], Frame::Malformed(w) if w.contains("abc")),
            "{got:?}"
        );
        assert_eq!(got[1], msg("{}"));
        assert!(
            matches!(&got[2], Frame::Malformed(w) if w.contains("missing")),
            "{got:?}"
        );
        assert_eq!(got[3], msg("1"));
        assert_eq!(got.len(), 4);
    }

    #[tokio::test]
    async fn garbage_and_huge_lengths_are_reported() {
        let got = frames(&format!(
            "Content-Length: {}\r\n\r\nContent-Length: 2\r\n\r\n{{}}",
            MAX_MESSAGE + 1
        ))
        .await;
        assert!(matches!(&got[0], Frame::Malformed(w) if w.contains("limit")));
        assert_eq!(got[1], msg("{}"));
        let got = frames(&"x".repeat(MAX_HEADER + 10)).await;
        assert!(matches!(&got[0], Frame::Malformed(_)));
    }

    #[tokio::test]
    async fn the_rest_of_a_bad_frame_is_skipped_once() {
        // What follows a bad header until the next one is that frame's body.
        let got = frames("Content-Length: x\r\n\r\n{\"a\":1}").await;
        assert_eq!(got.len(), 1);
        let mut r = FrameReader::new(split_input());
        assert!(matches!(r.next().await.unwrap(), Some(Frame::Malformed(_))));
        assert_eq!(r.next().await.unwrap(), Some(msg("{}")));
    }

    /// A bad frame, its body, then a good frame, as separate reads.
    fn split_input() -> impl AsyncRead + Unpin {
        let (a, b, c): (&[u8], &[u8], &[u8]) = (
            b"Content-Length: x\r\n\r\n",
            b"{\"a\":1}",
            b"Content-Length: 2\r\n\r\n{}",
        );
        a.chain(b).chain(c)
    }

    #[test]
    fn encodes_with_the_byte_length() {
        let e = frame_text(&serde_json::json!({"a": "é"}).to_string());
        assert_eq!(e, "Content-Length: 10\r\n\r\n{\"a\":\"é\"}".as_bytes());
    }
}
