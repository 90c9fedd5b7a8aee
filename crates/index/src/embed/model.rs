//! A static embedding model in the model2vec layout: a folder with `model.safetensors` (one 2-D
//! matrix, a row per token, F32 or F16; named `embeddings` or the only tensor) and
//! `tokenizer.json` (a Hugging Face tokenizer). A text's vector is the mean of the rows of its
//! tokens (no special tokens added), L2-normalised. Nothing is downloaded: the folder is read
//! as it is, and a bad one is an [`EmbedError`] naming the file.

use std::fmt;
use std::path::{Path, PathBuf};

use cogmem_store::error::ErrorKind;
use cogmem_store::store::fsx::{self, IoError};
use safetensors::{Dtype, SafeTensors};
use tokenizers::Tokenizer;

/// The matrix file of a model folder.
pub const MATRIX_FILE: &str = "model.safetensors";
/// The tokenizer file of a model folder.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// The largest matrix read (4 GiB).
const MATRIX_LIMIT: u64 = 4 << 30;
/// The largest tokenizer read (256 MiB).
const TOKENIZER_LIMIT: u64 = 256 << 20;

/// Why an embedding model could not be used. Search goes on without it.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The folder or one of its two files is missing or unreadable.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The matrix is not one 2-D F32/F16 tensor in safetensors format.
    #[error("{}: not an embedding matrix: {message}", path.display())]
    Matrix {
        /// The matrix file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The tokenizer file could not be read as a Hugging Face `tokenizer.json`.
    #[error("{}: not a tokenizer: {message}", path.display())]
    Tokenizer {
        /// The tokenizer file.
        path: PathBuf,
        /// The tokenizers crate's message.
        message: String,
    },
}

impl EmbedError {
    /// A bad model folder is the user's to fix.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::User
    }

    /// The next step.
    pub fn hint(&self) -> String {
        "point `[search] embedding_model` in cogmem.toml (or COGMEM_EMBEDDING_MODEL) at a folder \
         holding `model.safetensors` and `tokenizer.json` (`scripts/convert-wordllama` writes \
         one), or remove it; search uses keywords alone meanwhile"
            .to_owned()
    }
}

/// A loaded model.
pub struct Model {
    tokenizer: Tokenizer,
    /// Row-major matrix, `rows × dim`.
    matrix: Vec<f32>,
    rows: usize,
    dim: usize,
    fingerprint: String,
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("rows", &self.rows)
            .field("dim", &self.dim)
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Loads the model folder `dir`.
    ///
    /// Errors: a missing or unreadable file, a matrix that is not one 2-D F32/F16 tensor, a
    /// tokenizer file the tokenizers crate refuses.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let matrix_path = dir.join(MATRIX_FILE);
        let tokenizer_path = dir.join(TOKENIZER_FILE);
        let fingerprint = fingerprint(dir)?;
        let bytes = fsx::read(&matrix_path, MATRIX_LIMIT)?;
        let bad = |message: String| EmbedError::Matrix { path: matrix_path.clone(), message };
        let tensors = SafeTensors::deserialize(&bytes).map_err(|e| bad(e.to_string()))?;
        let names = tensors.names();
        let name = if names.contains(&"embeddings") {
            "embeddings".to_owned()
        } else if names.len() == 1 {
            names[0].to_string()
        } else {
            return Err(bad(format!(
                "{} tensors and none named `embeddings`; keep only the token matrix",
                names.len()
            )));
        };
        let view = tensors.tensor(&name).map_err(|e| bad(e.to_string()))?;
        let [rows, dim] = view.shape()[..] else {
            return Err(bad(format!(
                "tensor `{name}` has shape {:?}, not [tokens, dims]",
                view.shape()
            )));
        };
        if rows == 0 || dim == 0 {
            return Err(bad(format!("tensor `{name}` is empty ({rows} × {dim})")));
        }
        let data = view.data();
        let matrix: Vec<f32> = match view.dtype() {
            Dtype::F32 => {
                data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
            }
            Dtype::F16 => {
                data.chunks_exact(2).map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]]))).collect()
            }
            other => {
                return Err(bad(format!(
                    "tensor `{name}` is {other:?}; only F32 and F16 are read"
                )));
            }
        };
        if matrix.len() != rows * dim {
            return Err(bad(format!(
                "tensor `{name}` holds {} values, not {rows} × {dim}",
                matrix.len()
            )));
        }
        drop(bytes);
        let tok_bytes = fsx::read(&tokenizer_path, TOKENIZER_LIMIT)?;
        let mut tokenizer = Tokenizer::from_bytes(&tok_bytes).map_err(|e| {
            EmbedError::Tokenizer { path: tokenizer_path.clone(), message: e.to_string() }
        })?;
        // Every token of a text counts, however long it is.
        let _ = tokenizer.with_truncation(None);
        tokenizer.with_padding(None);
        Ok(Self { tokenizer, matrix, rows, dim, fingerprint })
    }

    /// Dimensions of a vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// What identifies this model's files: when it changes, every vector is recomputed.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The text's vector: the mean of its tokens' rows, L2-normalised. `None` when no token of
    /// the text has a row (or the sum is zero).
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let encoding = self.tokenizer.encode(text, false).ok()?;
        let mut sum = vec![0f32; self.dim];
        let mut n = 0usize;
        for &id in encoding.get_ids() {
            let id = id as usize;
            if id >= self.rows {
                continue;
            }
            for (s, x) in sum.iter_mut().zip(&self.matrix[id * self.dim..(id + 1) * self.dim]) {
                *s += x;
            }
            n += 1;
        }
        if n == 0 {
            return None;
        }
        // The mean's direction is the sum's: normalising the sum is normalising the mean.
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return None;
        }
        sum.iter_mut().for_each(|x| *x /= norm);
        Some(sum)
    }
}

/// The size and mtime of both files of a model folder, as one string.
///
/// Errors: either file missing or unreadable.
pub fn fingerprint(dir: &Path) -> Result<String, EmbedError> {
    let mut out = String::new();
    for name in [MATRIX_FILE, TOKENIZER_FILE] {
        let path = dir.join(name);
        let md = std::fs::metadata(&path).map_err(|e| IoError::new(&path, "read", e))?;
        if !md.is_file() {
            let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file");
            return Err(IoError::new(&path, "read", e).into());
        }
        out.push_str(&format!("{name}:{}:{} ", md.len(), fsx::mtime_nanos(&md)));
    }
    Ok(out.trim_end().to_owned())
}

/// An IEEE half-precision number as single precision.
fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let frac = u32::from(h & 0x3ff);
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: value = frac × 2^-24.
            let v = frac as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000,
        _ => sign | ((exp + 112) << 23) | (frac << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::f16_to_f32;

    #[test]
    fn half_precision_values_convert() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3800), 0.5);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(0x7c00).is_infinite());
    }
}
