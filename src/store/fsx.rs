//! File I/O that names its path. Raw `std::fs` calls are banned elsewhere (clippy.toml), so every
//! I/O error cogmem reports says which file and what it was doing. Writes are atomic: a temp
//! file in the same folder, fsync, rename, then fsync of the folder — a reader sees the old
//! content or the new, never half of it.

#![expect(clippy::disallowed_methods, reason = "this module is the one place raw std::fs is used")]

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::ErrorKind;
use crate::store::StoreError;

/// An I/O failure on a named path.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot {op}: {source}", path.display())]
pub struct IoError {
    /// The file or folder.
    pub path: PathBuf,
    /// What was being done (`read`, `write`, `create folder`…).
    pub op: &'static str,
    /// The operating system's error.
    #[source]
    pub source: io::Error,
}

impl IoError {
    /// Wraps an `io::Error` with the path and operation.
    pub fn new(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        Self { path: path.into(), op, source }
    }

    pub(crate) fn kind(&self) -> ErrorKind {
        match self.source.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => ErrorKind::User,
            _ => ErrorKind::Internal,
        }
    }

    pub(crate) fn hint(&self) -> Option<String> {
        match self.source.kind() {
            io::ErrorKind::PermissionDenied => {
                Some("check the file's permissions and owner".into())
            }
            _ => None,
        }
    }

    pub(crate) fn is_broken_pipe(&self) -> bool {
        self.source.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Reads a whole file.
pub fn read(path: &Path) -> Result<Vec<u8>, IoError> {
    fs::read(path).map_err(|e| IoError::new(path, "read", e))
}

/// Reads a file, or `None` when it does not exist.
pub fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>, IoError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(IoError::new(path, "read", e)),
    }
}

/// Reads a UTF-8 text file.
///
/// A file that is not UTF-8 is a [`StoreError::NotUtf8`] naming the path.
pub fn read_text(path: &Path) -> crate::Result<String> {
    let bytes = read(path)?;
    String::from_utf8(bytes).map_err(|_| StoreError::NotUtf8 { path: path.to_owned() }.into())
}

/// Reads a UTF-8 text file, or `None` when it does not exist.
pub fn read_text_if_exists(path: &Path) -> crate::Result<Option<String>> {
    match read_if_exists(path)? {
        None => Ok(None),
        Some(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| StoreError::NotUtf8 { path: path.to_owned() }.into()),
    }
}

/// Creates a folder and its parents.
pub fn create_dir_all(path: &Path) -> Result<(), IoError> {
    fs::create_dir_all(path).map_err(|e| IoError::new(path, "create folder", e))
}

/// Removes a file; a file that is already gone is not an error.
pub fn remove_file(path: &Path) -> Result<(), IoError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(IoError::new(path, "remove", e)),
        _ => Ok(()),
    }
}

/// Replaces a file's content atomically, creating parent folders as needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_dir_all(parent)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".cogmem-tmp-")
        .tempfile_in(parent)
        .map_err(|e| IoError::new(parent, "create a temporary file in", e))?;
    tmp.write_all(bytes).map_err(|e| IoError::new(tmp.path(), "write", e))?;
    // A temp file is private (0600); give the file its old mode, or an ordinary file's.
    let mode = fs::metadata(path).map(|m| m.permissions()).ok();
    set_mode(tmp.as_file(), mode).map_err(|e| IoError::new(tmp.path(), "set permissions of", e))?;
    tmp.as_file().sync_all().map_err(|e| IoError::new(tmp.path(), "sync", e))?;
    tmp.persist(path).map_err(|e| IoError::new(path, "replace", e.error))?;
    sync_dir(parent);
    Ok(())
}

#[cfg(unix)]
fn set_mode(file: &File, old: Option<fs::Permissions>) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(old.unwrap_or_else(|| fs::Permissions::from_mode(0o644)))
}

#[cfg(not(unix))]
fn set_mode(file: &File, old: Option<fs::Permissions>) -> io::Result<()> {
    match old {
        Some(p) => file.set_permissions(p),
        None => Ok(()),
    }
}

/// Appends bytes to a file (creating it) and flushes them to disk.
pub fn append(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    if let Some(parent) = path.parent() {
        create_dir_all(parent)?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| IoError::new(path, "open for appending", e))?;
    file.write_all(bytes).map_err(|e| IoError::new(path, "append to", e))?;
    file.sync_data().map_err(|e| IoError::new(path, "sync", e))
}

/// Opens (creating) a file for locking.
pub fn open_lock_file(path: &Path) -> Result<File, IoError> {
    if let Some(parent) = path.parent() {
        create_dir_all(parent)?;
    }
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| IoError::new(path, "open", e))
}

/// Flushes a folder's entries (the rename) to disk; best effort, as some file systems refuse.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/file.md");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself remains");
    }

    #[cfg(unix)]
    #[test]
    fn write_atomic_keeps_or_sets_an_ordinary_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        write_atomic(&path, b"one").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[test]
    fn errors_name_the_path() {
        let err = read(Path::new("/nonexistent/cogmem/x.md")).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent/cogmem/x.md: cannot read"), "{err}");
    }
}
