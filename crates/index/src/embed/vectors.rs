//! The vectors of the indexed entries, derived like the index: `.cogmem/vectors/vectors.bin`,
//! one vector per entry of every file the index manifest lists. The file is a little-endian u64
//! header length, a JSON header (format, model fingerprint, dimensions, and per file its path,
//! its content hash as the manifest has it and its entries' ids), then the vectors as
//! little-endian f32 rows in header order.
//!
//! Incremental: a file whose manifest hash is the one recorded keeps its vectors; only changed
//! files are re-embedded, gone files dropped. A different model (its files' size and mtime) or
//! dimension, or a header that cannot be read, drops every vector. Written whole to a temporary
//! file and renamed over the old one, so a crash leaves the old vectors or the new ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::collector::DocSetCollector;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

use super::model::Model;
use crate::index::Index;
use cogmem_store::store::fsx;

/// The vectors folder, relative to the workspace root.
pub const DIR: &str = ".cogmem/vectors";
/// The vectors file in [`DIR`].
pub(crate) const FILE: &str = "vectors.bin";
const FORMAT: u32 = 1;
/// The largest vectors file read (8 GiB).
const LIMIT: u64 = 8 << 30;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Header {
    format: u32,
    model: String,
    dim: usize,
    files: Vec<FileVectors>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct FileVectors {
    path: String,
    hash: String,
    /// Each entry's id and 1-based line, in file order.
    entries: Vec<(String, u64)>,
}

/// What bringing the vectors up to date did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct VectorsReport {
    /// Whether every vector was dropped first.
    pub rebuilt: bool,
    /// Why, if they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Files whose entries were embedded now.
    pub embedded: Vec<String>,
    /// Files whose vectors were dropped (gone from the index).
    pub removed: Vec<String>,
    /// Entries with a vector now.
    pub vectors: usize,
}

/// The vectors, in memory.
#[derive(Debug, Default)]
pub(crate) struct Vectors {
    header: Header,
    data: Vec<f32>,
}

impl Vectors {
    fn read(path: &Path) -> Option<Self> {
        let bytes = fsx::read_if_exists(path, LIMIT).ok()??;
        let len = usize::try_from(u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?)).ok()?;
        let header: Header =
            serde_json::from_slice(bytes.get(8..8usize.checked_add(len)?)?).ok()?;
        let body = &bytes[8 + len..];
        let rows: usize = header.files.iter().map(|f| f.entries.len()).sum();
        if header.format != FORMAT || body.len() != rows.checked_mul(header.dim)?.checked_mul(4)? {
            return None;
        }
        let data =
            body.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        Some(Self { header, data })
    }

    fn to_bytes(&self) -> Vec<u8> {
        // Serializing plain strings and numbers cannot fail.
        let header = serde_json::to_vec(&self.header).unwrap_or_default();
        let mut out = Vec::with_capacity(8 + header.len() + self.data.len() * 4);
        out.extend_from_slice(&(header.len() as u64).to_le_bytes());
        out.extend_from_slice(&header);
        for x in &self.data {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// Every entry as (path, line) with its vector.
    fn rows(&self) -> impl Iterator<Item = ((&str, u64), &[f32])> {
        let entries = self
            .header
            .files
            .iter()
            .flat_map(|f| f.entries.iter().map(move |(_, line)| (f.path.as_str(), *line)));
        entries.zip(self.data.chunks_exact(self.header.dim.max(1)))
    }

    /// The `limit` entries nearest to `query` (a unit vector) by cosine, as (path, line,
    /// cosine), best first (ties by path and line), none at or below 0.
    pub(crate) fn nearest(&self, query: &[f32], limit: usize) -> Vec<(String, u64, f32)> {
        if self.header.dim != query.len() || query.is_empty() {
            return Vec::new();
        }
        let mut scored: Vec<(f32, (&str, u64))> = Vec::new();
        for (at, row) in self.rows() {
            let cos: f32 = row.iter().zip(query).map(|(a, b)| a * b).sum();
            if cos > 0.0 {
                scored.push((cos, at));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(limit);
        scored.into_iter().map(|(c, (path, line))| (path.to_owned(), line, c)).collect()
    }

    /// The cosine of the vector of the entry at `path`:`line` with `query`, when it has one.
    pub(crate) fn cosine(&self, path: &str, line: u64, query: &[f32]) -> Option<f32> {
        if self.header.dim != query.len() {
            return None;
        }
        let (_, row) = self.rows().find(|(at, _)| *at == (path, line))?;
        Some(row.iter().zip(query).map(|(a, b)| a * b).sum())
    }
}

/// The vectors file of an index folder's workspace.
fn file_of(index: &Index) -> PathBuf {
    // The index folder is `.cogmem/index`; the vectors live beside it.
    let derived = index.dir().parent().unwrap_or_else(|| index.dir());
    derived.join("vectors").join(FILE)
}

/// Brings the vectors up to date with the index and `model`, writing them when anything
/// changed.
///
/// Errors: the index cannot be read, or the vectors file cannot be written.
pub(crate) fn sync(index: &Index, model: &Model) -> crate::Result<(Vectors, VectorsReport)> {
    let path = file_of(index);
    let mut report = VectorsReport::default();
    let old = match Vectors::read(&path) {
        Some(v) if v.header.model != model.fingerprint() => {
            report.reason = Some("the embedding model changed".to_owned());
            None
        }
        Some(v) if v.header.dim != model.dim() => {
            report.reason = Some("the embedding model's dimensions changed".to_owned());
            None
        }
        Some(v) => Some(v),
        None => {
            report.reason = Some("no vectors yet".to_owned());
            None
        }
    };
    report.rebuilt = old.is_none();
    let old = old.unwrap_or_default();
    let dim = model.dim();
    let mut kept: HashMap<&str, (usize, &FileVectors)> = HashMap::new();
    let mut row = 0;
    for f in &old.header.files {
        kept.insert(&f.path, (row, f));
        row += f.entries.len();
    }
    let wanted = crate::index::file_hashes(index)?;
    let mut new = Vectors {
        header: Header {
            format: FORMAT,
            model: model.fingerprint().to_owned(),
            dim,
            files: vec![],
        },
        data: Vec::with_capacity(old.data.len()),
    };
    let searcher = index.searcher();
    let f = index.fields();
    let tantivy_err = |e: tantivy::TantivyError| crate::index::IndexError::Tantivy {
        path: index.dir().to_owned(),
        message: e.to_string(),
    };
    for (rel, hash) in &wanted {
        if let Some((start, fv)) = kept.get(rel.as_str()).filter(|(_, fv)| fv.hash == *hash) {
            new.data.extend_from_slice(&old.data[start * dim..(start + fv.entries.len()) * dim]);
            new.header.files.push((*fv).clone());
            continue;
        }
        let q = TermQuery::new(Term::from_field_text(f.path, rel), IndexRecordOption::Basic);
        let addrs = searcher.search(&q, &DocSetCollector).map_err(tantivy_err)?;
        let mut entries: Vec<(u64, String, String)> = Vec::new();
        for addr in addrs {
            let doc: TantivyDocument = searcher.doc(addr).map_err(tantivy_err)?;
            let get =
                |field| doc.get_first(field).and_then(|v| v.as_str()).unwrap_or("").to_owned();
            let line = doc.get_first(f.line).and_then(|v| v.as_u64()).unwrap_or(0);
            entries.push((line, get(f.id), get(f.raw)));
        }
        entries.sort();
        let mut ids = Vec::with_capacity(entries.len());
        for (line, id, raw) in entries {
            let v = model
                .embed(&crate::index::without_comments(&raw))
                .unwrap_or_else(|| vec![0.0; dim]);
            new.data.extend_from_slice(&v);
            ids.push((id, line));
        }
        new.header.files.push(FileVectors { path: rel.clone(), hash: hash.clone(), entries: ids });
        report.embedded.push(rel.clone());
    }
    let wanted_paths: std::collections::HashSet<&str> =
        wanted.iter().map(|(p, _)| p.as_str()).collect();
    report.removed = old
        .header
        .files
        .iter()
        .filter(|f| !wanted_paths.contains(f.path.as_str()))
        .map(|f| f.path.clone())
        .collect();
    report.vectors = new.data.len() / dim.max(1);
    if report.rebuilt || !report.embedded.is_empty() || !report.removed.is_empty() {
        let dir = path.parent().unwrap_or(&path);
        fsx::create_dir_all(dir)?;
        fsx::write_derived(&path, &new.to_bytes(), false)?;
    }
    Ok((new, report))
}
