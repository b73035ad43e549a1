//! Debian's `docker-registry` (distribution 2.8) on a free loopback port, storing into a
//! folder of its own, for the registry tests. Installed by the project's scripts when missing
//! (`limina_guest_build::containers`); stopped (its own child, by its handle) on drop.

use crate::support::repo;
use limina_guest_build::containers::{Containers, REGISTRY_BINARY};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running registry.
pub struct LocalRegistry {
    child: Option<Child>,
    /// `127.0.0.1:PORT`.
    pub address: String,
    /// Where it stores blobs and manifests.
    pub storage: PathBuf,
    _dir: tempfile::TempDir,
}

impl LocalRegistry {
    /// Starts one and waits until `/v2/` answers.
    pub fn start() -> LocalRegistry {
        Containers::ensure(&repo()).expect("installing Debian's docker-registry");
        let dir = tempfile::tempdir().unwrap();
        let storage = dir.path().join("storage");
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let address = format!("127.0.0.1:{port}");
        let config = dir.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {address}\n",
                storage.display()
            ),
        )
        .unwrap();
        let child = Command::new(REGISTRY_BINARY)
            .arg("serve")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting docker-registry");
        let registry = LocalRegistry {
            child: Some(child),
            address,
            storage,
            _dir: dir,
        };
        let started = Instant::now();
        while registry.get("/v2/").0 != 200 {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the registry did not answer /v2/ within 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        registry
    }

    /// A plain GET on the registry: (status, body); status 0 when nothing answers.
    pub fn get(&self, path: &str) -> (u16, String) {
        let Ok(mut stream) = TcpStream::connect(&self.address) else {
            return (0, String::new());
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/vnd.oci.image.manifest.v1+json\r\nConnection: close\r\n\r\n",
            self.address
        );
        if stream.write_all(request.as_bytes()).is_err() {
            return (0, String::new());
        }
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        let status = answer
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = answer
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (status, body)
    }

    /// The file the registry keeps a blob's bytes in.
    pub fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.trim_start_matches("sha256:");
        self.storage
            .join("docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// Stops it (nothing answers on its address afterwards).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for LocalRegistry {
    fn drop(&mut self) {
        self.stop();
    }
}
