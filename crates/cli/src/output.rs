//! Where a command's output goes: standard output, or a file written as a
//! careful tool writes one. The bytes go to a temporary file in the target's
//! folder (mode 0600 from its creation for a secret), which is flushed to
//! disk and then renamed into place (through a symbolic link, over the file
//! it names), and the folder is synced: a reader, or a crash, sees the old
//! file or the whole new one, never a part. A command that fails drops its
//! `Output`, which removes the temporary file (a killed one can leave it
//! behind, named `.numcrypt-*.tmp`). An existing file is never replaced by a
//! secret (private keys, key shares, decrypted data) unless `--force` says
//! so; public outputs (public keys, signatures, ciphertexts) replace it.
//! Devices and pipes (`/dev/null`, `>(gzip)`) are written in place.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use tempfile::NamedTempFile;

/// `--out` and `--force` for a command whose output is a secret.
#[derive(Args, Clone, Debug)]
pub struct SecretOut {
    /// Write here instead of standard output: mode 0600, atomically, and
    /// never over an existing file unless --force.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file (still atomically, with mode 0600).
    #[arg(long)]
    pub force: bool,
}

impl SecretOut {
    /// Opens the output now, so that an existing file is refused before
    /// any work is done.
    pub fn open(&self) -> Result<Output, String> {
        Output::secret(self.out.as_deref(), self.force)
    }
}

/// A command's output: write to it, then [`commit`](Output::commit); a
/// file output that is dropped uncommitted leaves no trace.
pub struct Output {
    target: Target,
}

enum Target {
    Stdout(io::StdoutLock<'static>),
    /// A non-regular file, written in place.
    Device {
        file: fs::File,
        path: PathBuf,
    },
    File {
        file: BufWriter<NamedTempFile>,
        /// As given.
        path: PathBuf,
        /// With symbolic links resolved: what the rename replaces.
        real: PathBuf,
        folder: PathBuf,
        replace: bool,
        secret: bool,
    },
}

impl Output {
    /// An output for a secret (mode 0600); an existing `path` is an error
    /// unless `force`.
    pub fn secret(path: Option<&Path>, force: bool) -> Result<Self, String> {
        Self::open(path, true, force)
    }

    /// An output for public data: an existing `path` is replaced.
    pub fn public(path: Option<&Path>) -> Result<Self, String> {
        Self::open(path, false, true)
    }

    /// An output for public data that must not replace an existing file
    /// (the files of a deployment `init` writes, unless `--force`).
    pub fn public_new(path: Option<&Path>) -> Result<Self, String> {
        Self::open(path, false, false)
    }

    fn open(path: Option<&Path>, secret: bool, replace: bool) -> Result<Self, String> {
        let Some(path) = path else {
            return Ok(Self {
                target: Target::Stdout(io::stdout().lock()),
            });
        };
        // A device, pipe or other non-regular file (`/dev/null`, `>(gzip)`)
        // is written in place: there is nothing to replace atomically.
        if let Ok(meta) = fs::metadata(path)
            && !meta.is_file()
        {
            let file = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| error(Some(path), &e))?;
            return Ok(Self {
                target: Target::Device {
                    file,
                    path: path.to_owned(),
                },
            });
        }
        if !replace && path.symlink_metadata().is_ok() {
            return Err(exists(path));
        }
        // Through a symbolic link, the file it names is the one replaced.
        let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let folder = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".numcrypt-").suffix(".tmp");
        // tempfile creates files with mode 0600: right for a secret.
        #[cfg(unix)]
        if !secret {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o644));
        }
        let file = builder
            .tempfile_in(&folder)
            .map_err(|e| error(Some(path), &e))?;
        Ok(Self {
            target: Target::File {
                file: BufWriter::new(file),
                path: path.to_owned(),
                real,
                folder,
                replace,
                secret,
            },
        })
    }

    /// Finishes the output: flushes standard output or a device, or syncs
    /// the file and renames it into place.
    pub fn commit(self) -> Result<(), String> {
        match self.target {
            Target::Stdout(mut out) => out.flush().map_err(|e| error(None, &e)),
            Target::Device { mut file, path } => file.flush().map_err(|e| error(Some(&path), &e)),
            Target::File {
                file,
                path,
                real,
                folder,
                replace,
                secret,
            } => {
                let tmp = file
                    .into_inner()
                    .map_err(|e| error(Some(&path), e.error()))?;
                tmp.as_file()
                    .sync_all()
                    .map_err(|e| error(Some(&path), &e))?;
                let persisted = if replace {
                    tmp.persist(&real)
                } else {
                    tmp.persist_noclobber(&real)
                };
                if let Err(e) = persisted {
                    let why = match e.error.kind() {
                        io::ErrorKind::AlreadyExists => exists(&path),
                        _ => error(Some(&path), &e.error),
                    };
                    // A secret that cannot be put in place is kept where it
                    // is rather than lost (it may be a key share no one can
                    // make again).
                    return Err(match secret.then(|| e.file.keep()) {
                        Some(Ok((_, kept))) => {
                            format!("{why}; the output is in {}", kept.display())
                        }
                        _ => why,
                    });
                }
                // Make the rename durable (not every system syncs a folder).
                if let Ok(f) = fs::File::open(&folder) {
                    let _ = f.sync_all();
                }
                Ok(())
            }
        }
    }

    /// Names the output in an error: its path, or standard output.
    pub fn error(&self, e: &io::Error) -> String {
        match &self.target {
            Target::Stdout(_) => error(None, e),
            Target::Device { path, .. } | Target::File { path, .. } => error(Some(path), e),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.target {
            Target::Stdout(out) => out.write(buf),
            Target::Device { file, .. } => file.write(buf),
            Target::File { file, .. } => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout(out) => out.flush(),
            Target::Device { file, .. } => file.flush(),
            Target::File { file, .. } => file.flush(),
        }
    }
}

/// Writes `data` to a public output at `path` (or standard output).
pub fn write_public(path: Option<&Path>, data: &[u8]) -> Result<(), String> {
    write_all(Output::public(path)?, data)
}

/// Writes `data` to `out` and commits it.
pub fn write_all(mut out: Output, data: &[u8]) -> Result<(), String> {
    out.write_all(data).map_err(|e| out.error(&e))?;
    out.commit()
}

fn exists(path: &Path) -> String {
    format!(
        "{}: already exists; add --force to replace it",
        path.display()
    )
}

fn error(path: Option<&Path>, e: &io::Error) -> String {
    match path {
        Some(path) => format!("{}: {e}", path.display()),
        None => format!("standard output: {e}"),
    }
}
