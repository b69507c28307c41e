//! OAuth 2.1 at the servers that require it (feature `oauth`): the gateway is a client of a `url` server's
//! authorization server through rmcp's `auth` client — protected-resource and authorization-server metadata
//! discovery, PKCE, dynamic client registration when no `client_id` is given, refresh, and client credentials
//! for unattended deployments.
//!
//! A person authorizes once with [`login`] (`toolseal login`); the tokens are kept in a JSON file readable by its
//! owner only ([`store_path`]), per issuer (the authorization server that issued them), and under it per server
//! URL (tokens are bound to the server they were issued for): `{"https://auth.example": {"https://crm.example/mcp":
//! {…}}}`. Client-credentials tokens are never written: they are asked for again when
//! half their lifetime has passed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest, AuthorizationSession, ClientCredentialsConfig, CredentialStore, OAuthClientConfig, StoredCredentials,
};
use toolseal_runtime::mcp::manifest::{DeploymentServer, Grant, OAuth};

/// Why the gateway cannot be authorized at a server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// No token is stored for the server, or the stored one can no longer be refreshed.
    #[error("server `{server}` requires OAuth and {why}: run `{command}`")]
    LoginNeeded {
        /// The server's name.
        server: String,
        /// What is missing.
        why: &'static str,
        /// The command that authorizes it.
        command: String,
    },
    /// The token file cannot be read or written, or is readable by others.
    #[error("the OAuth token file {path}: {message}")]
    Store {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The authorization server or the protocol failed (rmcp's words; never a token or secret).
    #[error("OAuth at server `{server}`: {message}")]
    Protocol {
        /// The server's name.
        server: String,
        /// What failed.
        message: String,
    },
    /// `toolseal login` was given something it cannot do.
    #[error("{0}")]
    Usage(String),
}

/// Where the tokens of a server with this `oauth` table are kept: the manifest's `oauth_store`, or
/// `$XDG_CONFIG_HOME/toolseal/oauth.json` (`~/.config/toolseal/oauth.json`).
pub fn store_path(oauth: &OAuth) -> Result<PathBuf, OAuthError> {
    if let Some(path) = &oauth.store {
        return Ok(path.clone());
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|home| PathBuf::from(home).join(".config")))
        .ok_or_else(|| OAuthError::Usage("neither XDG_CONFIG_HOME nor HOME is set: give the manifest an `oauth_store`".to_owned()))?;
    Ok(config.join("toolseal").join("oauth.json"))
}

/// One process-wide lock over reading, changing and writing token files.
static FILE_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The token file: issuer → server URL → what rmcp stores (`""` for an issuer its metadata does not name).
type Entries = BTreeMap<String, BTreeMap<String, StoredCredentials>>;

/// Takes server `url`'s credentials out of `entries`, whichever issuer holds them.
fn take(entries: &mut Entries, url: &str) -> Option<StoredCredentials> {
    let taken = entries.values_mut().find_map(|servers| servers.remove(url));
    entries.retain(|_, servers| !servers.is_empty());
    taken
}

fn store_error(path: &Path, message: impl Into<String>) -> AuthError {
    AuthError::CredentialStoreError(format!("{}: {}", path.display(), message.into()))
}

/// The entries of the token file at `path` (none if it does not exist); refused if others can read it.
fn read_entries(path: &Path) -> Result<Entries, AuthError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Entries::new()),
        Err(e) => return Err(store_error(path, format!("cannot be read: {e}"))),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_err(|e| store_error(path, format!("cannot be read: {e}")))?.permissions().mode();
        if mode & 0o077 != 0 {
            return Err(store_error(path, format!("is readable by others (mode {:o}); `chmod 600` it", mode & 0o777)));
        }
    }
    // serde_json's error names a line and column, never the text.
    serde_json::from_str(&text).map_err(|e| store_error(path, format!("is not a token file ({e})")))
}

/// Writes `entries` to `path` through a file beside it (owner-only from its creation), then renames it.
fn write_entries(path: &Path, entries: &Entries) -> Result<(), AuthError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| store_error(dir, format!("cannot be created: {e}")))?;
    let text = serde_json::to_string_pretty(entries).map_err(|e| store_error(path, e.to_string()))?;
    let temporary = dir.join(format!(".{}.{}", path.file_name().map_or("oauth".into(), |n| n.to_string_lossy()), std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temporary).and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes())).and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        store_error(path, format!("cannot be written: {e}"))
    })
}

/// One server's entry of a token file, as rmcp's credential store.
struct FileEntry {
    path: PathBuf,
    url: String,
}

#[async_trait::async_trait]
impl CredentialStore for FileEntry {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let _held = FILE_LOCK.lock().await;
        Ok(take(&mut read_entries(&self.path)?, &self.url))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let _held = FILE_LOCK.lock().await;
        let mut entries = read_entries(&self.path)?;
        take(&mut entries, &self.url);
        entries.entry(credentials.issuer.clone().unwrap_or_default()).or_default().insert(self.url.clone(), credentials);
        write_entries(&self.path, &entries)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let _held = FILE_LOCK.lock().await;
        let mut entries = read_entries(&self.path)?;
        if take(&mut entries, &self.url).is_some() {
            write_entries(&self.path, &entries)?;
        }
        Ok(())
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Client-credentials tokens as rmcp's credential store: a token is asked for when there is none or half its
/// lifetime has passed (before rmcp's own refresh would look for a refresh token there is none of), and kept in
/// memory only.
struct ClientCredentials {
    /// A manager configured for the exchange (its own store is in memory).
    manager: AuthorizationManager,
    config: ClientCredentialsConfig,
    client_id: String,
    current: tokio::sync::Mutex<Option<StoredCredentials>>,
}

impl ClientCredentials {
    fn fresh(credentials: &StoredCredentials, now: u64) -> bool {
        let Some(token) = &credentials.token_response else { return false };
        match (oauth2::TokenResponse::expires_in(token), credentials.token_received_at) {
            (Some(lifetime), Some(at)) => now.saturating_sub(at) + 1 < lifetime.as_secs() / 2,
            _ => true,
        }
    }
}

#[async_trait::async_trait]
impl CredentialStore for ClientCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let mut current = self.current.lock().await;
        if let Some(credentials) = current.as_ref().filter(|c| Self::fresh(c, now())) {
            return Ok(Some(credentials.clone()));
        }
        let token = self.manager.exchange_client_credentials(&self.config).await?;
        let scopes = oauth2::TokenResponse::scopes(&token).map(|s| s.iter().map(|s| s.to_string()).collect()).unwrap_or_default();
        let credentials = StoredCredentials::new(self.client_id.clone(), Some(token), scopes, Some(now()));
        *current = Some(credentials.clone());
        Ok(Some(credentials))
    }

    async fn save(&self, _credentials: StoredCredentials) -> Result<(), AuthError> {
        Ok(())
    }

    async fn clear(&self) -> Result<(), AuthError> {
        *self.current.lock().await = None;
        Ok(())
    }
}

/// The HTTP client under rmcp's: no redirect is followed (a token never goes to another origin) and no idle
/// connection is reused (rmcp's own default, against delayed-ACK stalls).
fn http_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).pool_max_idle_per_host(0).build().map_err(|e| e.to_string())
}

/// The client the gateway reaches `url` (server `name`) with, holding a usable token: the stored one (refreshed
/// when due) for the authorization code grant, a new one for client credentials.
pub(crate) async fn authorized_client(name: &str, url: &str, oauth: &OAuth) -> Result<AuthClient<reqwest::Client>, OAuthError> {
    let protocol = |e: AuthError| OAuthError::Protocol { server: name.to_owned(), message: e.to_string() };
    crate::downstream::install_tls();
    let mut manager = AuthorizationManager::new(url).await.map_err(protocol)?;
    match oauth.grant {
        Grant::ClientCredentials => {
            let (Some(client_id), Some(secret)) = (&oauth.client_id, &oauth.client_secret) else {
                return Err(OAuthError::Usage(format!("server `{name}`: client credentials need `client_id` and `client_secret`")));
            };
            let mut exchanger = AuthorizationManager::new(url).await.map_err(protocol)?;
            let resolution = exchanger.resolve_metadata().await.map_err(protocol)?;
            exchanger.set_metadata(resolution.metadata);
            let config =
                ClientCredentialsConfig::ClientSecret { client_id: client_id.clone(), client_secret: secret.expose().to_owned(), scopes: oauth.scopes.clone(), resource: Some(url.to_owned()) };
            exchanger.configure_client_credentials(&config).map_err(protocol)?;
            manager.set_credential_store(ClientCredentials { manager: exchanger, config, client_id: client_id.clone(), current: tokio::sync::Mutex::new(None) });
        }
        _ => {
            let path = store_path(oauth)?;
            manager.set_credential_store(FileEntry { path: path.clone(), url: url.to_owned() });
            let login = |why| OAuthError::LoginNeeded { server: name.to_owned(), why, command: oauth.login_command.clone() };
            match manager.initialize_from_store().await {
                Ok(true) => {}
                Ok(false) => return Err(login("no token is stored for it")),
                Err(AuthError::CredentialStoreError(message)) => return Err(OAuthError::Store { path, message }),
                Err(e) => return Err(protocol(e)),
            }
            if let (Some(client_id), Some(secret)) = (&oauth.client_id, &oauth.client_secret) {
                manager.configure_client(OAuthClientConfig::new(client_id.clone(), url.to_owned()).with_client_secret(secret.expose().to_owned())).map_err(protocol)?;
            }
        }
    }
    match manager.get_access_token().await {
        Ok(_) => {}
        Err(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)) => {
            return Err(OAuthError::LoginNeeded { server: name.to_owned(), why: "its stored token can no longer be refreshed", command: oauth.login_command.clone() });
        }
        Err(e) => return Err(protocol(e)),
    }
    Ok(AuthClient::new(http_client().map_err(|message| OAuthError::Protocol { server: name.to_owned(), message })?, manager))
}

/// What [`login`] did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Login {
    /// The file the tokens were written to.
    pub store: PathBuf,
    /// The authorization server that issued them, as its metadata names it.
    pub issuer: Option<String>,
}

/// Authorizes the gateway at `server` (authorization code with PKCE): discovers its authorization server,
/// registers a client unless the manifest names one, hands `show` the address a person opens in a browser,
/// waits up to `wait` for the redirect to a loopback listener, exchanges the code and stores the tokens.
pub async fn login(server: &DeploymentServer, wait: Duration, show: impl FnOnce(&str)) -> Result<Login, OAuthError> {
    let name = server.name.as_str();
    let (Some(url), Some(oauth)) = (&server.url, &server.oauth) else {
        return Err(OAuthError::Usage(format!("server `{name}` has no `url` and `oauth` in the manifest: there is nothing to log in to")));
    };
    if oauth.grant == Grant::ClientCredentials {
        return Err(OAuthError::Usage(format!("server `{name}` uses client credentials: the gateway asks for its tokens itself, no login is needed")));
    }
    let protocol = |e: AuthError| OAuthError::Protocol { server: name.to_owned(), message: e.to_string() };
    let store = store_path(oauth)?;
    crate::downstream::install_tls();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", oauth.callback_port.unwrap_or(0)))
        .await
        .map_err(|e| OAuthError::Usage(format!("cannot listen on 127.0.0.1:{} for the redirect: {e}", oauth.callback_port.unwrap_or(0))))?;
    let port = listener.local_addr().map_err(|e| OAuthError::Usage(e.to_string()))?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");

    let mut manager = AuthorizationManager::new(url.as_str()).await.map_err(protocol)?;
    manager.set_credential_store(FileEntry { path: store.clone(), url: url.clone() });
    let resolution = manager.resolve_metadata().await.map_err(protocol)?;
    let issuer = resolution.metadata.issuer.clone();
    manager.set_metadata(resolution.metadata);
    let mut request = AuthorizationRequest::new(redirect.as_str()).with_client_name("toolseal");
    if !oauth.scopes.is_empty() {
        request = request.with_scopes(oauth.scopes.iter());
    }
    if let Some(client_id) = &oauth.client_id {
        request = request.with_preregistered_client(client_id.as_str());
    }
    if let Some(secret) = &oauth.client_secret {
        request = request.with_client_secret(secret.expose());
    }
    let session = AuthorizationSession::new(manager, request).await.map_err(|(_, e)| protocol(e))?;
    show(session.get_authorization_url());
    let callback = tokio::time::timeout(wait, redirected(listener, &redirect)).await.map_err(|_| OAuthError::Usage(format!("no authorization came back within {} s", wait.as_secs())))??;
    session.handle_callback_with_issuer(&callback.code, &callback.csrf_token, callback.issuer.as_deref()).await.map_err(|e| match e {
        AuthError::CredentialStoreError(message) => OAuthError::Store { path: store.clone(), message },
        e => protocol(e),
    })?;
    Ok(Login { store, issuer })
}

/// Serves `listener` until a browser is redirected to `/callback` with a code (or an error), and answers it.
async fn redirected(listener: tokio::net::TcpListener, redirect: &str) -> Result<AuthorizationCallback, OAuthError> {
    let (found, mut heard) = tokio::sync::mpsc::channel::<Result<AuthorizationCallback, String>>(1);
    let base = Arc::<str>::from(redirect);
    let router = axum::Router::new().route(
        "/callback",
        axum::routing::get(move |axum::extract::RawQuery(query): axum::extract::RawQuery| {
            let (found, base) = (found.clone(), base.clone());
            async move {
                let url = format!("{base}?{}", query.unwrap_or_default());
                let denied = url::Url::parse(&url).ok().and_then(|u| u.query_pairs().find(|(k, _)| k == "error").map(|(_, v)| v.into_owned()));
                let outcome = match denied {
                    Some(error) => Err(format!("the authorization server refused: {error}")),
                    None => AuthorizationCallback::from_redirect_url(&url).map_err(|e| e.to_string()),
                };
                let page = match &outcome {
                    Ok(_) => "toolseal: authorized. You can close this page.",
                    Err(_) => "toolseal: the authorization failed; see the terminal.",
                };
                let _ = found.send(outcome).await;
                page
            }
        }),
    );
    let stop = tokio_util::sync::CancellationToken::new();
    let serving = tokio::spawn(axum::serve(listener, router).with_graceful_shutdown(stop.clone().cancelled_owned()).into_future());
    let outcome = heard.recv().await;
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(2), serving).await;
    match outcome {
        Some(Ok(callback)) => Ok(callback),
        Some(Err(message)) => Err(OAuthError::Usage(message)),
        None => Err(OAuthError::Usage("the redirect listener stopped".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_is_private_and_refused_when_others_can_read_it() {
        let dir = std::env::temp_dir().join(format!("toolseal-oauth-{}", std::process::id()));
        let path = dir.join("nested").join("oauth.json");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(read_entries(&path).unwrap().is_empty(), "a missing file holds no token");
        let mut entries = Entries::new();
        let credentials = StoredCredentials::new("client".to_owned(), None, vec!["read".to_owned()], Some(1)).with_issuer(Some("http://127.0.0.1:2".to_owned()));
        entries.entry("http://127.0.0.1:2".to_owned()).or_default().insert("http://127.0.0.1:1/mcp".to_owned(), credentials);
        write_entries(&path, &entries).unwrap();
        let mut read = read_entries(&path).unwrap();
        assert_eq!(read.keys().collect::<Vec<_>>(), ["http://127.0.0.1:2"], "per issuer");
        assert_eq!(take(&mut read, "http://127.0.0.1:1/mcp").map(|c| c.client_id).as_deref(), Some("client"), "then per server");
        assert!(read.is_empty() && take(&mut read, "http://127.0.0.1:1/mcp").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let refused = read_entries(&path).unwrap_err().to_string();
            assert!(refused.contains("readable by others (mode 644)"), "{refused}");
        }
        std::fs::write(&path, "{not json").unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        assert!(read_entries(&path).unwrap_err().to_string().contains("is not a token file"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn client_credentials_are_asked_for_again_at_half_their_lifetime() {
        let token: rmcp::transport::auth::OAuthTokenResponse = serde_json::from_value(serde_json::json!({"access_token": "a", "token_type": "bearer", "expires_in": 60})).unwrap();
        let credentials = StoredCredentials::new("ci".to_owned(), Some(token), vec![], Some(1_000));
        assert!(ClientCredentials::fresh(&credentials, 1_000));
        assert!(ClientCredentials::fresh(&credentials, 1_028));
        assert!(!ClientCredentials::fresh(&credentials, 1_029));
        assert!(!ClientCredentials::fresh(&StoredCredentials::new("ci".to_owned(), None, vec![], None), 0));
    }
}
