//! A derived file of sorted lines searched where it lies: a binary search that reads only the
//! few lines it probes (positioned reads), so a search at a million memories does not read the
//! whole decay or graph cache, tens of megabytes, to look up the hundred lines it needs
//! (issue 20). Read-only; the files are written whole by their owners (`decay_cache`,
//! `graph::cache`).

use std::fs::File;
use std::path::Path;

use cogmem_store::store::fsx;

/// Below this size a cache file is simply read whole: a few reads cost more than one.
pub(crate) const READ_WHOLE: u64 = 256 * 1024;

/// Bytes read at a time while looking for the end of a line.
const CHUNK: usize = 512;

/// The blocks positioned reads fetch and keep: the first probes of every lookup are the same
/// few positions, so a search's hundred lookups read each block once.
const BLOCK: u64 = 4096;

/// An open file whose bytes `start..end` hold lines sorted by their first tab-separated field.
pub(crate) struct LineFile {
    file: File,
    start: u64,
    end: u64,
    /// The blocks read so far, by their index (`pos / BLOCK`).
    blocks: std::sync::Mutex<std::collections::HashMap<u64, std::sync::Arc<Vec<u8>>>>,
}

impl LineFile {
    /// Opens `path` (not through a link leading out of the workspace, as [`fsx::read`]),
    /// searching its bytes from `start` to the end.
    pub(crate) fn open(path: &Path, start: u64) -> Option<Self> {
        fsx::check_inside(path, "read").ok()?;
        Self::of_file(File::open(path).ok()?, start)
    }

    /// A file already open (by its caller's rules), searched from `start` to the end.
    pub(crate) fn of_file(file: File, start: u64) -> Option<Self> {
        let end = file.metadata().ok()?.len();
        Some(Self { file, start: start.min(end), end, blocks: Default::default() })
    }

    /// The same file searched from `start` (the blocks read so far are kept).
    pub(crate) fn from(self, start: u64) -> Self {
        Self { start: start.min(self.end), ..self }
    }

    /// Reads up to `len` bytes at `pos` (fewer at the end of the file), through the blocks
    /// kept.
    pub(crate) fn read_at(&self, pos: u64, len: usize) -> Option<Vec<u8>> {
        let stop = pos.saturating_add(len as u64).min(self.end);
        let mut out = Vec::with_capacity(usize::try_from(stop.saturating_sub(pos)).unwrap_or(0));
        let mut at = pos;
        while at < stop {
            let block = self.block(at / BLOCK)?;
            let offset = usize::try_from(at % BLOCK).unwrap_or(0);
            if offset >= block.len() {
                break; // the file is shorter than it was when opened
            }
            let take = (block.len() - offset).min(usize::try_from(stop - at).unwrap_or(0));
            out.extend_from_slice(&block[offset..offset + take]);
            at += take as u64;
        }
        Some(out)
    }

    /// Block `index` of the file, read once.
    fn block(&self, index: u64) -> Option<std::sync::Arc<Vec<u8>>> {
        let mut kept = self.blocks.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(b) = kept.get(&index) {
            return Some(b.clone());
        }
        let pos = index * BLOCK;
        let len = usize::try_from(BLOCK.min(self.end.saturating_sub(pos))).unwrap_or(0);
        let mut buf = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let n = self.read_into(pos + done as u64, &mut buf[done..])?;
            if n == 0 {
                break;
            }
            done += n;
        }
        buf.truncate(done);
        let b = std::sync::Arc::new(buf);
        kept.insert(index, b.clone());
        Some(b)
    }

    /// One positioned read (`pread` where there is one).
    #[cfg(unix)]
    fn read_into(&self, pos: u64, buf: &mut [u8]) -> Option<usize> {
        std::os::unix::fs::FileExt::read_at(&self.file, buf, pos).ok()
    }

    #[cfg(not(unix))]
    fn read_into(&self, pos: u64, buf: &mut [u8]) -> Option<usize> {
        let mut f = &self.file;
        f.seek(SeekFrom::Start(pos)).ok()?;
        f.read(buf).ok()
    }

    /// The position of the first `\n` at or after `pos` (before `limit`), if any.
    fn newline_from(&self, mut pos: u64, limit: u64) -> Option<u64> {
        while pos < limit {
            let want = usize::try_from((limit - pos).min(CHUNK as u64)).unwrap_or(CHUNK);
            let buf = self.read_at(pos, want)?;
            if buf.is_empty() {
                return None;
            }
            if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                return Some(pos + i as u64);
            }
            pos += buf.len() as u64;
        }
        None
    }

    /// The line starting at `pos` (without its `\n`); `None` past the end or when it is not
    /// UTF-8.
    pub(crate) fn line_at(&self, pos: u64) -> Option<String> {
        if pos >= self.end {
            return None;
        }
        // Read on in growing chunks, keeping what was read: a hub's edge line runs to
        // hundreds of kilobytes.
        let mut bytes: Vec<u8> = Vec::new();
        let mut chunk = CHUNK;
        loop {
            let at = pos + bytes.len() as u64;
            let want = usize::try_from((self.end - at).min(chunk as u64)).unwrap_or(chunk);
            let buf = self.read_at(at, want)?;
            if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                bytes.extend_from_slice(&buf[..i]);
                break;
            }
            bytes.extend_from_slice(&buf);
            if buf.is_empty() || pos + bytes.len() as u64 >= self.end {
                break;
            }
            chunk = (chunk * 4).min(1 << 20);
        }
        String::from_utf8(bytes).ok()
    }

    /// The line whose first tab-separated field is `key`, by binary search.
    pub(crate) fn find(&self, key: &str) -> Option<String> {
        let (mut lo, mut hi) = (self.start, self.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // The first line that starts at or after `mid`.
            let start =
                if mid == lo { lo } else { self.newline_from(mid - 1, hi).map_or(hi, |n| n + 1) };
            if start >= hi {
                hi = mid;
                continue;
            }
            let line = self.line_at(start)?;
            let next = start + line.len() as u64 + 1;
            match line.split('\t').next().unwrap_or("").cmp(key) {
                std::cmp::Ordering::Equal if !line.is_empty() => return Some(line),
                std::cmp::Ordering::Less | std::cmp::Ordering::Equal => lo = next,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_found_and_no_other() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("sorted.tsv");
        let mut keys: Vec<String> = (0..3_000).map(|i| format!("k{i:05}")).collect();
        keys.push("a-long-one".to_owned());
        keys.sort();
        let mut text = String::from("#header\tx\n");
        let start = text.len() as u64;
        for (i, k) in keys.iter().enumerate() {
            // Some lines longer than a chunk, so a probe must read on to find their end.
            let pad = if i % 97 == 0 { "p".repeat(1_500) } else { String::new() };
            text.push_str(&format!("{k}\t{i}\t{pad}\n"));
        }
        fsx::write_atomic(&path, text.as_bytes()).expect("written");
        let f = LineFile::open(&path, start).expect("opens");
        for (i, k) in keys.iter().enumerate() {
            let line = f.find(k).unwrap_or_else(|| panic!("{k} not found"));
            assert_eq!(line.split('\t').nth(1), Some(i.to_string().as_str()), "{k}");
        }
        for missing in ["", "#header", "a", "k", "k00000x", "k99999", "zzz"] {
            assert_eq!(f.find(missing), None, "{missing}");
        }
        assert_eq!(f.line_at(0).as_deref(), Some("#header\tx"));
        assert_eq!(f.line_at(text.len() as u64), None);
    }
}
