//! Measures the secret scanner's false positives: how many ordinary memories or messages it
//! would refuse. Every text goes through `cogmem::secrets::scan`, the scanner `remember`,
//! `hear`, `import` and `propose` use; a flagged text is printed with its rule and the redacted
//! excerpt, so each can be judged by eye.
//!
//! ```sh
//! # every memory unit of a workspace (e.g. one made by scripts/gen-workspace)
//! cargo run --example secrets_false_positives -- --workspace /tmp/ws20k
//! # every turn of LoCoMo conversations (only the samples named, or all)
//! cargo run --example secrets_false_positives -- --locomo locomo-dev.json [conv-26 …]
//! ```
//!
//! `scripts/secrets-false-positives` runs both; docs/benchmarks.md has the figures.

use std::io::Write;
use std::path::Path;

use cogmem::Workspace;
use cogmem::secrets::scan;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Counts what the scanner flags among `texts`, `(label, text)` pairs, printing each flagged one.
fn measure(what: &str, texts: &[(String, String)], out: &mut impl Write) -> Result<usize> {
    let mut flagged = 0;
    for (label, text) in texts {
        let found = scan(text);
        if let Some(f) = found.first() {
            flagged += 1;
            let shown: String = text.chars().take(160).collect();
            writeln!(out, "flagged {label}: {} ({}) in {shown:?}", f.rule, f.excerpt)?;
        }
    }
    writeln!(out, "{what}: {} scanned, {flagged} flagged", texts.len())?;
    Ok(flagged)
}

/// Every memory unit of the workspace at `dir`, and every file as a whole (what `verify` scans).
fn workspace(dir: &Path, out: &mut impl Write) -> Result<()> {
    let ws = Workspace::open(dir)?;
    let units = cogmem::store::units::list(&ws);
    let texts: Vec<(String, String)> =
        units.units.into_iter().map(|u| (format!("{}:{}", u.path, u.line), u.text)).collect();
    measure("memory units", &texts, out)?;
    let files = cogmem::secrets::scan_workspace(&ws);
    for (path, f) in &files {
        writeln!(out, "flagged file {path}:{}: {} ({})", f.line, f.rule, f.excerpt)?;
    }
    writeln!(out, "workspace files (verify): {} findings", files.len())?;
    Ok(())
}

/// Every turn (its text, and the caption of a shared image) of the LoCoMo samples in `file`
/// whose ids are in `only` (all when empty).
fn locomo(file: &Path, only: &[String], out: &mut impl Write) -> Result<()> {
    let data: serde_json::Value =
        serde_json::from_slice(&cogmem::store::fsx::read(file, 64 << 20)?)?;
    let mut texts = Vec::new();
    let samples = data.as_array().ok_or("expected a JSON array of samples")?;
    for sample in samples {
        let id = sample["sample_id"].as_str().unwrap_or("?");
        if !only.is_empty() && !only.iter().any(|o| o == id) {
            continue;
        }
        let Some(conv) = sample["conversation"].as_object() else { continue };
        for turns in conv.values().filter_map(serde_json::Value::as_array) {
            for t in turns {
                let dia = t["dia_id"].as_str().unwrap_or("?");
                for field in ["text", "blip_caption"] {
                    if let Some(text) = t[field].as_str() {
                        texts.push((format!("{id} {dia} {field}"), text.to_owned()));
                    }
                }
            }
        }
    }
    let name = if only.is_empty() { "all".to_owned() } else { only.join(", ") };
    measure(&format!("LoCoMo turns ({name})"), &texts, out)?;
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    match args.first().map(String::as_str) {
        Some("--workspace") if args.len() == 2 => workspace(Path::new(&args[1]), &mut out),
        Some("--locomo") if args.len() >= 2 => locomo(Path::new(&args[1]), &args[2..], &mut out),
        _ => Err("usage: secrets_false_positives --workspace DIR | --locomo FILE [SAMPLE…]".into()),
    }
}
