//! Where the index keeps its files: tantivy's memory-mapped directory, without waiting for the
//! disk. tantivy syncs every segment file, every update of its file list and its `meta.json` to
//! disk as it commits: about fifteen `fsync`s for a one-memory change, a sixth of what a
//! `remember` cost. The index is derived from the files, so it only needs to be *right*, not
//! durable: what a killed process wrote is in the page cache and survives; only an operating
//! system crash or power loss can lose it. Such a loss is detected, not trusted: the manifest
//! records the boot the index was last written in ([`boot_id`]), and an index written in
//! another boot is rebuilt from the files. Where the boot cannot be told (no
//! `/proc/sys/kernel/random/boot_id`), the index keeps tantivy's syncing directory.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cogmem_store::store::fsx;
use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, FileSlice, Lock, MmapDirectory,
    TerminatingWrite, WatchCallback, WatchHandle, WritePtr,
};

/// The current boot's id, when the system says it (Linux).
pub(crate) fn boot_id() -> Option<String> {
    let id = cogmem_store::store::fsx::read_text_if_exists(
        Path::new("/proc/sys/kernel/random/boot_id"),
        cogmem_store::store::fsx::DEFAULT_FILE_LIMIT,
    )
    .ok()??;
    let id = id.trim();
    (!id.is_empty() && !id.contains(char::is_whitespace)).then(|| id.to_owned())
}

/// tantivy's [`MmapDirectory`] with writes that do not wait for the disk.
#[derive(Clone, Debug)]
pub(crate) struct UnsyncedDirectory {
    inner: MmapDirectory,
    root: PathBuf,
}

impl UnsyncedDirectory {
    /// Opens the directory at `root` (which must exist).
    pub(crate) fn open(root: &Path) -> Result<Self, OpenDirectoryError> {
        Ok(Self { inner: MmapDirectory::open(root)?, root: root.to_owned() })
    }
}

/// A file being written: flushed when tantivy is done with it, not synced.
struct Unsynced(File);

impl Write for Unsynced {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TerminatingWrite for Unsynced {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()
    }
}

impl Directory for UnsyncedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn open_read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        self.inner.open_read(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        // `create_new` never follows a link at the file itself; the folders on the way are
        // checked up to the workspace root.
        fsx::check_no_link(&self.root.join(path), "write")
            .map_err(|e| OpenWriteError::wrap_io_error(e.io, path.to_owned()))?;
        let file =
            OpenOptions::new().write(true).create_new(true).open(self.root.join(path)).map_err(
                |e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        OpenWriteError::FileAlreadyExists(path.to_owned())
                    } else {
                        OpenWriteError::wrap_io_error(e, path.to_owned())
                    }
                },
            )?;
        Ok(BufWriter::new(Box::new(Unsynced(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        fsx::check_no_link(&self.root.join(path), "write").map_err(|e| e.io)?;
        // Still atomic (a reader sees the old or the new file), just not synced.
        let mut tmp = tempfile::Builder::new().tempfile_in(&self.root)?;
        tmp.write_all(data)?;
        tmp.flush()?;
        tmp.into_temp_path().persist(self.root.join(path))?;
        Ok(())
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}
