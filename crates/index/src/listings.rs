//! The folder listings `cogmem status` keeps between runs (issue 20): `.cogmem/status/dirs`
//! holds, for each folder of the working tree, its stamp (mtime, ctime, inode) and its entries
//! (name and kind) as they were listed, sorted by name. A folder that has the same stamp now
//! has the same names: adding, removing or renaming a name changes the folder's mtime and
//! ctime, and a ctime
//! cannot be set back by hand ([`crate::index::scan`], which keeps the store folders' stamps
//! in the search manifest the same way). So such a folder is not read again; its entries are
//! still stat-ed, every one, every time (an edit in place changes nothing but the file).
//!
//! A listing is kept only when its stamp is older than the moment the walk began (git's
//! racy-clean rule, as in [`crate::summary`]): a name added in the same clock tick as the
//! listing could leave the stamp unchanged.
//!
//! The file is derived: binary, with a checksum at its end; one that does not read back whole
//! (another version, cut short, changed by hand) is ignored, and every folder is listed.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;

use crate::index::scan::{DirStamp, Kind};
use cogmem_store::store::fsx;

/// Version 3: each folder's entries sorted by name (version 2), checked with [`hash_bytes`].
const MAGIC: &[u8] = b"cogmem-status-dirs 3\n";
/// The largest file read back (a workspace with more listings lists its folders).
const LIMIT: u64 = 256 * 1024 * 1024;

/// A folder's entries: name and kind. The names of a kept listing are those of the file's bytes
/// (13,686 names copied one by one were most of the 1.1–1.6 ms a status at 100,000 memories
/// took to read its listings back, issue 20).
pub(crate) type Listing<'a> = Vec<(Cow<'a, [u8]>, Kind)>;

/// The bytes of the file of listings: `path` read, empty when it is missing or unreadable.
pub(crate) fn read(path: &Path) -> Vec<u8> {
    fsx::read_if_exists(path, LIMIT).ok().flatten().unwrap_or_default()
}

/// The listings read back, by folder (path relative to the root, `""` for the root).
#[derive(Default)]
pub(crate) struct Kept<'a> {
    dirs: HashMap<&'a [u8], (DirStamp, Listing<'a>)>,
}

impl<'a> Kept<'a> {
    /// The listings the file's `bytes` ([`read`]) hold; none when they do not read back whole.
    pub(crate) fn of(bytes: &'a [u8]) -> Self {
        decode(bytes).map(|dirs| Self { dirs }).unwrap_or_default()
    }

    /// The listing of folder `rel`, if it was kept with this `stamp` (taken out: each folder is
    /// walked once).
    pub(crate) fn take(&mut self, rel: &[u8], stamp: &DirStamp) -> Option<Listing<'a>> {
        match self.dirs.get(rel) {
            Some((kept, _)) if kept == stamp => self.dirs.remove(rel).map(|(_, l)| l),
            _ => None,
        }
    }
}

/// Writes the listings of `dirs` (folder, stamp, entries) to `path` (best effort: a file that
/// cannot be written only means the folders are listed next time).
pub(crate) fn save<'a>(
    path: &Path,
    dirs: impl Iterator<Item = (&'a [u8], DirStamp, &'a Listing<'a>)>,
) {
    let _ = fsx::write_derived(path, &encode(dirs), false);
}

/// A 64-bit hash of `bytes`, the same in every run of this build ([`hasher`]).
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = hasher();
    h.write(bytes);
    h.finish()
}

/// A hasher that gives the same hash in every run of this build: foldhash with a fixed seed,
/// which hashes long input an order of magnitude faster than std's SipHash (1.1–1.4 ms for the
/// 1.5 MB a status at 100,000 memories digests, issue 20). For what a status derives from its
/// own files, not a defence against crafted input: a collision only makes a status recount.
pub(crate) fn hasher() -> impl Hasher {
    foldhash::quality::FixedState::with_seed(0x636f_676d_656d).build_hasher()
}

fn encode<'a>(dirs: impl Iterator<Item = (&'a [u8], DirStamp, &'a Listing<'a>)>) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let put = |out: &mut Vec<u8>, bytes: &[u8]| {
        out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(bytes);
    };
    for (rel, stamp, entries) in dirs {
        // A name longer than 4 GiB cannot be: such a folder is simply not kept.
        if rel.len() > u32::MAX as usize || entries.len() > u32::MAX as usize {
            continue;
        }
        put(&mut out, rel);
        out.extend_from_slice(&stamp.mtime.to_le_bytes());
        out.extend_from_slice(&stamp.ctime.to_le_bytes());
        out.extend_from_slice(&stamp.ino.to_le_bytes());
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        for (name, kind) in entries {
            out.push(match kind {
                Kind::Dir => 0,
                Kind::File => 1,
                Kind::Link => 2,
                Kind::Other => 3,
            });
            put(&mut out, name);
        }
    }
    let sum = hash_bytes(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// A reader over the bytes of the file.
struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u32(&mut self) -> Option<usize> {
        usize::try_from(u32::from_le_bytes(self.array()?)).ok()
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()?;
        self.take(n)
    }
}

fn decode(bytes: &[u8]) -> Option<HashMap<&[u8], (DirStamp, Listing<'_>)>> {
    let body = bytes.strip_prefix(MAGIC)?;
    let (body, sum) = body.split_at_checked(body.len().checked_sub(8)?)?;
    if hash_bytes(&bytes[..MAGIC.len() + body.len()]).to_le_bytes() != sum {
        return None;
    }
    let mut c = Cursor { bytes: body };
    let mut dirs = HashMap::new();
    while !c.bytes.is_empty() {
        let rel = c.bytes()?;
        let stamp = DirStamp {
            mtime: u128::from_le_bytes(c.array()?),
            ctime: u128::from_le_bytes(c.array()?),
            ino: u64::from_le_bytes(c.array()?),
        };
        let n = c.u32()?;
        // Each entry takes at least five bytes: a count past what is left is no listing.
        if n > c.bytes.len() / 5 {
            return None;
        }
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let kind = match c.take(1)?[0] {
                0 => Kind::Dir,
                1 => Kind::File,
                2 => Kind::Link,
                3 => Kind::Other,
                _ => return None,
            };
            entries.push((Cow::Borrowed(c.bytes()?), kind));
        }
        dirs.insert(rel, (stamp, entries));
    }
    Some(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(Vec<u8>, DirStamp, Listing<'static>)> {
        let s = |n| DirStamp { mtime: n, ctime: n + 1, ino: 7 };
        vec![
            (
                Vec::new(),
                s(1),
                vec![(b"memory"[..].into(), Kind::Dir), (b"a\n\tb"[..].into(), Kind::File)],
            ),
            (
                b"memory".to_vec(),
                s(2),
                vec![(b"x"[..].into(), Kind::Link), (b"\xff"[..].into(), Kind::Other)],
            ),
            (b"memory/empty".to_vec(), s(3), Vec::new()),
        ]
    }

    fn encoded(dirs: &[(Vec<u8>, DirStamp, Listing<'static>)]) -> Vec<u8> {
        encode(dirs.iter().map(|(r, s, l)| (r.as_slice(), *s, l)))
    }

    #[test]
    fn listings_read_back_as_written_and_only_with_their_stamp() {
        let dirs = sample();
        let bytes = encoded(&dirs);
        let mut kept = Kept { dirs: decode(&bytes).expect("reads back") };
        assert_eq!(kept.dirs.len(), 3);
        let other = DirStamp { mtime: 2, ctime: 3, ino: 8 };
        assert_eq!(kept.take(b"memory", &other), None, "another inode is another folder");
        assert_eq!(kept.take(b"memory", &dirs[1].1), Some(dirs[1].2.clone()));
        assert_eq!(kept.take(b"memory", &dirs[1].1), None, "taken once");
        assert_eq!(kept.take(b"", &dirs[0].1), Some(dirs[0].2.clone()));
        assert_eq!(kept.take(b"memory/empty", &dirs[2].1), Some(Vec::new()));
    }

    #[test]
    fn a_file_that_does_not_read_back_whole_is_no_listing() {
        let bytes = encoded(&sample());
        // Cut anywhere, one byte changed anywhere, another version: nothing is trusted.
        for cut in [0, 1, MAGIC.len(), bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        for at in [MAGIC.len() + 3, bytes.len() / 2, bytes.len() - 9] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert!(decode(&bad).is_none(), "byte {at} changed");
        }
        let mut other = bytes.clone();
        other[MAGIC.len() - 2] = b'4';
        assert!(decode(&other).is_none());
        // Version 1's files (entries in the order listed, not sorted) and version 2's (another
        // checksum) are not read.
        for old in [b'1', b'2'] {
            let mut earlier = bytes.clone();
            earlier[MAGIC.len() - 2] = old;
            assert!(decode(&earlier).is_none());
        }
        assert_eq!(decode(&encoded(&[])).map(|d| d.len()), Some(0));
    }

    #[test]
    fn hostile_bytes_are_no_listing_and_never_a_panic() {
        // Seeded: the same bytes every run. Random bodies behind the right header, with and
        // without a checksum that matches them (so the body parser itself is exercised).
        let mut rng = crate::test_rng::Xorshift(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next();
        for round in 0..2_000 {
            let len = usize::try_from(next() % 300).unwrap();
            let mut body: Vec<u8> = (0..len).map(|_| next().to_le_bytes()[0]).collect();
            if round % 3 == 0 {
                // Small lengths, so that some bodies parse part of the way.
                for b in body.iter_mut().step_by(4) {
                    *b %= 8;
                }
            }
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&body);
            let _ = decode(&bytes);
            let sum = hash_bytes(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            if let Some(dirs) = decode(&bytes) {
                // Whatever reads back is what encoding it again writes.
                let again = encode(dirs.iter().map(|(r, (s, l))| (*r, *s, l)));
                assert_eq!(decode(&again).map(|d| d.len()), Some(dirs.len()));
            }
        }
    }
}
