//! Request and response bodies as the host passes them on: counted into their request's
//! record, capped (past the cap the body ends in an error, never silently cut), and cut at
//! the call's deadline or cancellation even while the peer sends nothing (a server trickling
//! bytes cannot hold a call past its deadline).

use super::ledger::Record;
use crate::call::Interrupt;
use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use wasmtime_wasi_http::Error;

/// How often a waiting body looks for its call's deadline or cancellation.
const WATCH_TICK: Duration = Duration::from_millis(5);

/// Which way a body flows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flow {
    /// The guest's request body, to the server.
    Out,
    /// The server's response body, to the guest.
    In,
}

/// A body watched for its request's record, cap and call.
pub struct Watched<B> {
    inner: Pin<Box<B>>,
    record: Arc<Record>,
    flow: Flow,
    cap: u64,
    seen: u64,
    interrupt: Interrupt,
    tick: Pin<Box<tokio::time::Sleep>>,
}

impl<B> Watched<B> {
    pub fn new(inner: B, record: Arc<Record>, flow: Flow, cap: u64, interrupt: Interrupt) -> Self {
        Watched {
            inner: Box::pin(inner),
            record,
            flow,
            cap,
            seen: 0,
            interrupt,
            tick: Box::pin(tokio::time::sleep(WATCH_TICK)),
        }
    }

    fn too_big(&self) -> Error {
        match self.flow {
            Flow::Out => Error::HttpRequestBodySize(Some(self.cap)),
            Flow::In => Error::HttpResponseBodySize(Some(self.cap)),
        }
    }
}

impl<B> Body for Watched<B>
where
    B: Body<Data = Bytes, Error = Error>,
{
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        if self.record.is_closed() {
            return Poll::Ready(Some(Err(Error::ConnectionTerminated)));
        }
        if let Some(cut) = self.interrupt.check() {
            self.record.fail(format!("{cut}"));
            return Poll::Ready(Some(Err(Error::ConnectionReadTimeout)));
        }
        match self.inner.as_mut().poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let n = frame.data_ref().map_or(0, |d| d.len() as u64);
                self.seen += n;
                if self.seen > self.cap {
                    let why = match self.flow {
                        Flow::Out => {
                            format!("the request body passed the cap of {} bytes", self.cap)
                        }
                        Flow::In => {
                            format!("the response body passed the cap of {} bytes", self.cap)
                        }
                    };
                    self.record.fail(why);
                    return Poll::Ready(Some(Err(self.too_big())));
                }
                match self.flow {
                    Flow::Out => self.record.add_out(n),
                    Flow::In => self.record.add_in(n),
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => {
                if self.flow == Flow::In {
                    self.record.finish();
                }
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(e))) => {
                self.record.fail(e.to_string());
                Poll::Ready(Some(Err(e)))
            }
            Poll::Pending => {
                // Nothing yet: wake again shortly to look for the deadline or a cancel.
                if self.tick.as_mut().poll(cx).is_ready() {
                    let next = tokio::time::Instant::now() + WATCH_TICK;
                    self.tick.as_mut().reset(next);
                    cx.waker().wake_by_ref();
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
