//! The manifest's file lines patched in place after a change (issue 20).
//!
//! A refresh after a change looks at the change's own files only, yet it used to parse every
//! file line of `manifest.tsv` into a map and render them all again, sorted: 12,000 lines at
//! 100,000 memories, read and rewritten by every write. The format is unchanged; what changes is
//! how a refresh after a change writes it: the lines of the files it looked at are parsed (by
//! binary search, as [`super::Meta::lookup`] does), and the new manifest is the old text with
//! those lines replaced, added or removed. The `#stamps` digest is a sum of one hash per file, so
//! it is updated by taking the old lines' hashes out and putting the new ones in.

use std::collections::BTreeMap;

use super::manifest_journal::{self, Patches};
use super::{Meta, Unparsed, file_hash, parse_file_line};

impl Meta {
    /// Prepares the manifest to be patched for `paths` only: their lines are parsed into
    /// `files` (the others stay text) and [`Meta::patched_lines`] splices them back. `false`
    /// when it cannot be (the file lines are already parsed, there is no `#stamps` line, or one
    /// of these lines is malformed): the caller then parses every line.
    pub(super) fn parse_only(&mut self, paths: &[String]) -> bool {
        let Some((text, body)) = self.unparsed.as_ref().and_then(Unparsed::get) else {
            return false;
        };
        if self.digest.is_none() {
            return false;
        }
        let mut old: BTreeMap<String, Option<(u64, u128)>> = BTreeMap::new();
        for p in paths {
            let stamp = match crate::graph::cache::find_line(text, (body, text.len()), p) {
                Some(line) => {
                    let Some((_, stamp)) = parse_file_line(line) else { return false };
                    Some(stamp)
                }
                None => None,
            };
            old.insert(p.clone(), stamp.as_ref().map(|s| (s.size, s.mtime)));
            if let Some(stamp) = stamp {
                self.files.insert(p.clone(), stamp);
            }
        }
        self.patch = Some(old);
        true
    }

    /// The `#stamps` line and the file lines of a manifest prepared by [`Meta::parse_only`]:
    /// the lines of other files copied as they were, those of the patched paths as `files`
    /// now has them. `None` when the manifest was not prepared so.
    pub(super) fn patched_lines(&self) -> Option<String> {
        let (stamps, patches) = self.patched_record()?;
        let (text, body) = self.unparsed.as_ref().and_then(Unparsed::get)?;
        let mut out = String::with_capacity(text.len() - body + stamps.len() + 256);
        out.push_str(&stamps);
        // The lines between the patched paths are copied whole (a line at a time, a million
        // memories' manifest took 30 ms to write after every change; issue 20).
        manifest_journal::splice(&text[body..], &patches, &mut out);
        Some(out)
    }

    /// The header lines (through `#stamps`) and the patched paths' lines of a manifest prepared
    /// by [`Meta::parse_only`]: a journal record ([`manifest_journal`]). `None` when the
    /// manifest was not prepared so.
    pub(super) fn journal_record(&self) -> Option<(String, Patches)> {
        let (stamps, patches) = self.patched_record()?;
        let mut header = self.header_text();
        header.push_str(&stamps);
        Some((header, patches))
    }

    /// The `#stamps` line of a manifest prepared by [`Meta::parse_only`], and each patched
    /// path's line as `files` now has it (`None`: the file is gone).
    fn patched_record(&self) -> Option<(String, Patches)> {
        let (Some(patch), Some(_), Some((n, sum))) =
            (&self.patch, self.unparsed.as_ref(), self.digest)
        else {
            return None;
        };
        let (mut n, mut sum) = (n, sum);
        let mut patches = Patches::new();
        for (path, old) in patch {
            if let Some(old) = old {
                n -= 1;
                sum = sum.wrapping_sub(file_hash(path, old.0, old.1));
            }
            let line = self.files.get(path).map(|s| {
                n += 1;
                sum = sum.wrapping_add(file_hash(path, s.size, s.mtime));
                format!("{path}\t{}\t{}\t{}", s.size, s.mtime, s.hash)
            });
            patches.insert(path.clone(), line);
        }
        Some((format!("#stamps {n} {sum:016x}\n"), patches))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Meta, Stamp};

    fn manifest(files: &[(&str, u64, u128)]) -> Meta {
        let mut meta = Meta { schema_version: 3, analyzer: "a".to_owned(), ..Meta::default() };
        for (p, size, mtime) in files {
            let stamp = Stamp { size: *size, mtime: *mtime, hash: format!("h{size}") };
            meta.files.insert((*p).to_owned(), stamp);
        }
        Meta::parse_header(meta.to_text()).expect("parses")
    }

    /// Replaced, added (before, between and after the others, `x-y` < `x.md` < `x/y`) and
    /// removed lines give the manifest a full render gives, digest included.
    #[test]
    fn a_patched_manifest_is_the_one_rendered_whole() {
        let start = [
            ("memory/a.md", 1, 10),
            ("memory/x-y.md", 2, 20),
            ("memory/x/y.md", 3, 30),
            ("memory/z.md", 4, 40),
        ];
        let changed = ["memory/x.md", "memory/a.md", "memory/0.md", "memory/zz.md", "memory/z.md"];
        let edit = |meta: &mut Meta| {
            for (p, size) in [("memory/x.md", 5), ("memory/a.md", 6), ("memory/0.md", 7)] {
                let stamp = Stamp { size, mtime: 99, hash: format!("h{size}") };
                meta.files.insert(p.to_owned(), stamp);
            }
            meta.files.insert(
                "memory/zz.md".to_owned(),
                Stamp { size: 8, mtime: 1, hash: "h8".to_owned() },
            );
            meta.files.remove("memory/z.md");
        };
        let mut whole = manifest(&start);
        assert!(whole.parse_files());
        edit(&mut whole);
        let mut patched = manifest(&start);
        let paths: Vec<String> = changed.iter().map(|p| (*p).to_owned()).collect();
        assert!(patched.parse_only(&paths));
        assert_eq!(patched.files.len(), 2, "only the changed paths the manifest had are parsed");
        edit(&mut patched);
        assert_eq!(patched.to_text(), whole.to_text());
        // Before it is written, the patched manifest answers for its paths as the whole one
        // does (a folder's `#dir` stamp is recorded from these paths).
        let sorted = |meta: &Meta| {
            let mut paths: Vec<String> = meta.paths().map(str::to_owned).collect();
            paths.sort_unstable();
            paths
        };
        assert_eq!(sorted(&patched), sorted(&whole));
        for p in start.iter().map(|s| s.0).chain(changed) {
            assert_eq!(patched.lookup(p), whole.lookup(p), "{p}");
        }
        // And it reads back as the same manifest.
        let mut again = Meta::parse_header(patched.to_text()).expect("parses");
        assert!(again.parse_files());
        assert_eq!(again.files, whole.files);
        assert_eq!(again.digest, Meta::parse_header(whole.to_text()).expect("parses").digest);
    }

    /// Seeded random manifests and changes (replaced, added anywhere, removed, several next to
    /// each other, the first and the last line): the patched text is the whole render's.
    #[test]
    fn random_patches_give_the_whole_render() {
        let mut rng = crate::test_rng::Xorshift(0x6d61_6e69);
        let mut below = |n: u64| rng.below(n);
        for case in 0..200 {
            let n = below(30);
            let start: Vec<(String, u64, u128)> =
                (0..n).map(|i| (format!("memory/d{}/f{:03}.md", i % 3, i * 3), i, 7)).collect();
            let start_refs: Vec<(&str, u64, u128)> =
                start.iter().map(|(p, s, m)| (p.as_str(), *s, *m)).collect();
            let mut changed: Vec<String> = Vec::new();
            for _ in 0..=below(6) {
                changed.push(match below(3) {
                    0 if n > 0 => start[below(n) as usize].0.clone(),
                    _ => format!("memory/d{}/f{:03}.md", below(4), below(n * 3 + 3)),
                });
            }
            let edit = |meta: &mut Meta| {
                for (k, p) in changed.iter().enumerate() {
                    if k % 3 == 2 {
                        meta.files.remove(p);
                    } else {
                        let stamp = Stamp { size: 1000 + k as u64, mtime: 9, hash: "new".into() };
                        meta.files.insert(p.clone(), stamp);
                    }
                }
            };
            let mut whole = manifest(&start_refs);
            assert!(whole.parse_files());
            edit(&mut whole);
            let mut patched = manifest(&start_refs);
            assert!(patched.parse_only(&changed), "case {case}");
            edit(&mut patched);
            assert_eq!(patched.to_text(), whole.to_text(), "case {case}: {changed:?}");
            // Its paths before it is written (what a folder's stamp is recorded from).
            let mut paths: Vec<&str> = patched.paths().collect();
            paths.sort_unstable();
            let mut want: Vec<&str> = whole.files.keys().map(String::as_str).collect();
            want.sort_unstable();
            assert_eq!(paths, want, "case {case}: {changed:?}");
        }
    }

    /// A manifest without a `#stamps` line (an older one) cannot be patched: every line is
    /// parsed, as before.
    #[test]
    fn an_older_manifest_is_parsed_whole() {
        let meta = manifest(&[("memory/a.md", 1, 10)]);
        let text = meta.to_text();
        let old: String =
            text.lines().filter(|l| !l.starts_with("#stamps")).map(|l| format!("{l}\n")).collect();
        let mut meta = Meta::parse_header(old).expect("parses");
        assert!(!meta.parse_only(&["memory/a.md".to_owned()]));
    }
}
