//! This process's stdin and stdout as a client's transport. When they are pipes
//! or sockets (as an MCP client starts a stdio server), they are read and
//! written through the runtime's reactor, like a server's pipes; tokio's
//! `stdin()`/`stdout()` (what rmcp's `stdio()` uses) hand every read and write to
//! the blocking thread pool instead (11 thread switches per call, 2 this way). A
//! terminal or a file keeps tokio's. The descriptions are made non-blocking while
//! the gateway serves (a parent may share them) and blocking again when the
//! transport is dropped.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// The reading half of the client's transport.
pub(crate) type Reader = Pin<Box<dyn AsyncRead + Send>>;
/// The writing half of the client's transport.
pub(crate) type Writer = Pin<Box<dyn AsyncWrite + Send>>;

/// stdin and stdout, each through the reactor when it can be.
pub(crate) fn streams() -> (Reader, Writer) {
    #[cfg(unix)]
    {
        (unix::reader().unwrap_or_else(|| Box::pin(tokio::io::stdin())), unix::writer().unwrap_or_else(|| Box::pin(tokio::io::stdout())))
    }
    #[cfg(not(unix))]
    {
        (Box::pin(tokio::io::stdin()), Box::pin(tokio::io::stdout()))
    }
}

#[cfg(unix)]
mod unix {
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

    use super::{Reader, Writer};

    /// What a standard stream is, and a descriptor of it of our own.
    enum Kind {
        Fifo(std::fs::File),
        Socket(OwnedFd),
    }

    fn kind(fd: std::os::fd::BorrowedFd<'_>) -> Option<Kind> {
        let owned = fd.try_clone_to_owned().ok()?;
        let file = std::fs::File::from(owned);
        let kind = file.metadata().ok()?.file_type();
        if kind.is_fifo() {
            Some(Kind::Fifo(file))
        } else if kind.is_socket() {
            Some(Kind::Socket(file.into()))
        } else {
            None
        }
    }

    fn socket(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
        let socket = std::os::unix::net::UnixStream::from(fd);
        socket.set_nonblocking(true).ok()?;
        tokio::net::UnixStream::from_std(socket).ok()
    }

    pub(super) fn reader() -> Option<Reader> {
        match kind(std::io::stdin().as_fd())? {
            Kind::Fifo(file) => Some(Box::pin(Restored(Some(tokio::net::unix::pipe::Receiver::from_file(file).ok()?)))),
            Kind::Socket(fd) => Some(Box::pin(Restored(Some(socket(fd)?)))),
        }
    }

    pub(super) fn writer() -> Option<Writer> {
        match kind(std::io::stdout().as_fd())? {
            Kind::Fifo(file) => Some(Box::pin(Restored(Some(tokio::net::unix::pipe::Sender::from_file(file).ok()?)))),
            Kind::Socket(fd) => Some(Box::pin(Restored(Some(socket(fd)?)))),
        }
    }

    /// A stream made non-blocking to be served, made blocking again when dropped.
    struct Restored<T: Blocking>(Option<T>);

    /// Back to a blocking descriptor.
    trait Blocking {
        fn restore(self);
    }

    impl Blocking for tokio::net::unix::pipe::Receiver {
        fn restore(self) {
            let _ = self.into_blocking_fd();
        }
    }

    impl Blocking for tokio::net::unix::pipe::Sender {
        fn restore(self) {
            let _ = self.into_blocking_fd();
        }
    }

    impl Blocking for tokio::net::UnixStream {
        fn restore(self) {
            if let Ok(socket) = self.into_std() {
                let _ = socket.set_nonblocking(false);
            }
        }
    }

    impl<T: Blocking> Drop for Restored<T> {
        fn drop(&mut self) {
            if let Some(stream) = self.0.take() {
                stream.restore();
            }
        }
    }

    impl<T: Blocking + AsyncRead + Unpin> AsyncRead for Restored<T> {
        fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
            match self.get_mut().0.as_mut() {
                Some(stream) => Pin::new(stream).poll_read(cx, buf),
                None => Poll::Ready(Ok(())),
            }
        }
    }

    impl<T: Blocking + AsyncWrite + Unpin> AsyncWrite for Restored<T> {
        fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
            match self.get_mut().0.as_mut() {
                Some(stream) => Pin::new(stream).poll_write(cx, buf),
                None => Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into())),
            }
        }

        fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            match self.get_mut().0.as_mut() {
                Some(stream) => Pin::new(stream).poll_flush(cx),
                None => Poll::Ready(Ok(())),
            }
        }

        fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            match self.get_mut().0.as_mut() {
                Some(stream) => Pin::new(stream).poll_shutdown(cx),
                None => Poll::Ready(Ok(())),
            }
        }
    }
}
