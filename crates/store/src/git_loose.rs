//! Large trees and blobs written loose with their bytes stored, not compressed (issue 20).
//!
//! libgit2 compresses every loose object it writes (zlib, fastest level). A tree is mostly
//! 20-byte ids, which compress slowly and little: the 526 KB tree of `memory/graph/entities/`
//! at 100,000 memories took 11 ms of a write's 12 ms on it to compress (zlib level 1: 8.3 ms,
//! to 52%), where a busy entity's 340 KB file takes 3.2 ms (to 24%) and a decay shard 0.9 ms
//! (to 8%). So a tree from [`STORED_FROM`] bytes up that the repository does not hold yet is
//! written as git writes a loose object (`objects/xx/…`, a zlib stream of `tree LEN\0` and the
//! bytes, through a temporary file renamed into place) with the stream's blocks stored. Any
//! zlib reader reads them; `git repack` compresses them into a pack as it does every loose
//! object. Its id is libgit2's own hash (SHA-1 with collision detection).
//!
//! A blob from [`STORED_BLOB_FROM`] bytes up that a commit plans (the busy entity, the decay
//! shard of a large workspace) is written stored too: compressed, it would be compressed twice —
//! once now, in the write a person waits for, and again when `git repack` packs it (a pack
//! entry is deflated anew) — and the repack runs in the background once the loose objects take
//! `git.auto_pack_loose_mb`. Smaller blobs and trees, objects the repository already has
//! (libgit2 refreshes their time, so a `git gc` does not prune one a new commit names) and any
//! failure here go to libgit2's writer.

use std::path::PathBuf;

use git2::{ObjectType, Odb, Oid, Repository};

use crate::store::fsx;

/// From this size up a tree is written stored: below it compression costs little.
pub(crate) const STORED_FROM: usize = 16 * 1024;

/// From this size up a new blob a commit plans is written stored ([`Writer::write`]).
pub(crate) const STORED_BLOB_FROM: usize = 64 * 1024;

/// Writes objects into one repository ([`Writer::write`]).
pub(crate) struct Writer<'r> {
    odb: Odb<'r>,
    /// The repository's object folder (the common folder's, for a linked worktree).
    dir: PathBuf,
}

impl<'r> Writer<'r> {
    pub(crate) fn new(repo: &'r Repository) -> Result<Self, git2::Error> {
        Ok(Self { odb: repo.odb()?, dir: repo.commondir().join("objects") })
    }

    /// The object database, for reads.
    pub(crate) fn odb(&self) -> &Odb<'r> {
        &self.odb
    }

    /// Writes an object and returns its id: stored when a large new tree or blob, else through
    /// libgit2.
    pub(crate) fn write(&self, kind: ObjectType, data: &[u8]) -> Result<Oid, git2::Error> {
        let from = match kind {
            ObjectType::Tree => STORED_FROM,
            ObjectType::Blob => STORED_BLOB_FROM,
            _ => usize::MAX,
        };
        if data.len() >= from
            && let Some(id) = self.write_stored(kind, data)
        {
            return Ok(id);
        }
        self.odb.write(kind, data)
    }

    /// The stored write; `None` when the object is already there or the write failed (the
    /// caller then lets libgit2 write it), and when the repository does not find the object
    /// where it was written (its objects live elsewhere).
    fn write_stored(&self, kind: ObjectType, data: &[u8]) -> Option<Oid> {
        let id = Oid::hash_object(kind, data).ok()?;
        if self.odb.exists(id) {
            return None;
        }
        let hex = id.to_string();
        let path = self.dir.join(&hex[..2]).join(&hex[2..]);
        fsx::write_derived(&path, &stored_stream(kind, data), false).ok()?;
        self.odb.exists(id).then_some(id)
    }
}

/// The loose object's bytes: a zlib stream whose deflate blocks store `KIND LEN\0DATA` as it is.
fn stored_stream(kind: ObjectType, data: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(data.len() + 32);
    raw.extend_from_slice(kind.str().as_bytes());
    raw.extend_from_slice(format!(" {}\0", data.len()).as_bytes());
    raw.extend_from_slice(data);
    zlib_stored(&raw)
}

/// `bytes` as a zlib stream (RFC 1950) of stored deflate blocks (RFC 1951, type 00).
fn zlib_stored(bytes: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 0xFFFF;
    let blocks = bytes.len().div_ceil(BLOCK).max(1);
    let mut out = Vec::with_capacity(bytes.len() + blocks * 5 + 6);
    // CMF 0x78 (deflate, 32 KB window), FLG 0x01 (fastest; the header is a multiple of 31).
    out.extend_from_slice(&[0x78, 0x01]);
    let mut chunks = bytes.chunks(BLOCK).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let len = chunk.len() as u16;
        out.push(u8::from(last));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&adler32(bytes).to_be_bytes());
    out
}

/// The Adler-32 checksum zlib ends its stream with.
fn adler32(bytes: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    // The largest run of bytes whose sums cannot overflow a u32 before the modulo.
    const RUN: usize = 5_552;
    let (mut a, mut b) = (1u32, 0u32);
    for run in bytes.chunks(RUN) {
        for &byte in run {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
        std::process::Command::new("git").current_dir(dir).args(args).output().expect("git runs")
    }

    #[test]
    fn adler32_is_zlibs() {
        // Reference values of zlib's adler32().
        assert_eq!(adler32(b""), 1);
        assert_eq!(adler32(b"a"), 0x0062_0062);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        // A run longer than the modulo's interval, of the largest bytes.
        let ff = vec![0xFFu8; 100_000];
        let (mut a, mut b) = (1u64, 0u64);
        for &x in &ff {
            a = (a + u64::from(x)) % 65_521;
            b = (b + a) % 65_521;
        }
        assert_eq!(u64::from(adler32(&ff)), (b << 16) | a);
    }

    #[test]
    fn stored_objects_are_read_by_libgit2_and_by_git_at_every_block_boundary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Repository::init(dir.path()).expect("init");
        let writer = Writer::new(&repo).expect("writer");
        for len in [0usize, 1, STORED_FROM, 0xFFFF - 12, 0xFFFF, 0x1_0000, 3 * 0xFFFF + 7, 300_001]
        {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 256) as u8).collect();
            let id = writer.write_stored(ObjectType::Blob, &data).expect("written stored");
            assert_eq!(id, Oid::hash_object(ObjectType::Blob, &data).expect("hash"));
            // Read back by libgit2 (a fresh handle: nothing cached) and by git itself.
            let again = Repository::open(dir.path()).expect("open");
            assert_eq!(again.find_blob(id).expect("libgit2 reads it").content(), &data[..]);
            let out = git(dir.path(), &["cat-file", "blob", &id.to_string()]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.stdout, data, "{len} bytes");
            // Already there: left to libgit2, which refreshes it.
            assert_eq!(writer.write_stored(ObjectType::Blob, &data), None);
        }
        let fsck = git(dir.path(), &["fsck", "--strict", "--unreachable"]);
        assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
    }

    /// A blob from [`STORED_BLOB_FROM`] bytes up is written stored, a smaller one compressed
    /// by libgit2; git reads both.
    #[test]
    fn a_large_blob_is_written_stored_and_a_small_one_compressed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Repository::init(dir.path()).expect("init");
        let writer = Writer::new(&repo).expect("writer");
        let loose = |id: Oid| {
            let hex = id.to_string();
            let path = dir.path().join(".git/objects").join(&hex[..2]).join(&hex[2..]);
            std::fs::metadata(path).expect("a loose object").len() as usize
        };
        // Text that compresses well, as memory files do.
        let text = |len: usize| -> Vec<u8> {
            b"- a fact about the garden (2026-12-03)\n".iter().copied().cycle().take(len).collect()
        };
        for (len, stored) in
            [(STORED_BLOB_FROM - 1, false), (STORED_BLOB_FROM, true), (300_000, true)]
        {
            let data = text(len);
            let id = writer.write(ObjectType::Blob, &data).expect("written");
            assert_eq!(id, Oid::hash_object(ObjectType::Blob, &data).expect("hash"));
            assert_eq!(loose(id) > len, stored, "{len} bytes: {} on disk", loose(id));
            let out = git(dir.path(), &["cat-file", "blob", &id.to_string()]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.stdout, data, "{len} bytes");
        }
        let fsck = git(dir.path(), &["fsck", "--strict", "--unreachable"]);
        assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
    }

    #[test]
    fn a_large_tree_written_stored_is_a_tree_git_reads() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Repository::init(dir.path()).expect("init");
        let writer = Writer::new(&repo).expect("writer");
        let blob = writer.write(ObjectType::Blob, b"one line\n").expect("blob");
        let mut tree = Vec::new();
        for i in 0..1000 {
            tree.extend_from_slice(format!("100644 person--n{i:04}.md\0").as_bytes());
            tree.extend_from_slice(blob.as_bytes());
        }
        assert!(tree.len() >= STORED_FROM);
        let id = writer.write(ObjectType::Tree, &tree).expect("tree");
        let hex = id.to_string();
        assert!(dir.path().join(".git/objects").join(&hex[..2]).join(&hex[2..]).is_file());
        let out = git(dir.path(), &["ls-tree", &hex]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1000);
        let fsck = git(dir.path(), &["fsck", "--strict", "--unreachable"]);
        assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
    }
}
