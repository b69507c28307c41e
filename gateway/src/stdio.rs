//! This process's stdin and stdout as a client's transport. When they are pipes
//! or sockets (as an MCP client starts a stdio server), they are read and
//! written through the runtime's reactor, like a server's pipes; tokio's
//! `stdin()`/`stdout()` (what rmcp's `stdio()` uses) hand every read and write to
//! the blocking thread pool instead, which cost each call four thread switches
//! and about a third of the gateway's hop. A terminal or a file keeps tokio's.

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
            Kind::Fifo(file) => Some(Box::pin(tokio::net::unix::pipe::Receiver::from_file(file).ok()?)),
            Kind::Socket(fd) => Some(Box::pin(socket(fd)?)),
        }
    }

    pub(super) fn writer() -> Option<Writer> {
        match kind(std::io::stdout().as_fd())? {
            Kind::Fifo(file) => Some(Box::pin(tokio::net::unix::pipe::Sender::from_file(file).ok()?)),
            Kind::Socket(fd) => Some(Box::pin(socket(fd)?)),
        }
    }
}
