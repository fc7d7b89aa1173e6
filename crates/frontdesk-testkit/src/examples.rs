//! The official examples and the digests' labelled examples.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{data_dir, read_json, spec_dir};

/// The only revision with an official `examples/` folder.
pub const EXAMPLES_REVISION: &str = "2026-07-28";

/// `data/spec/2026-07-28/examples/`: one folder per `$defs` entry.
pub fn examples_dir() -> PathBuf {
    spec_dir().join(EXAMPLES_REVISION).join("examples")
}

/// The names of the example folders (each a `$defs` entry), sorted.
pub fn example_folders() -> BTreeSet<String> {
    let dir = examples_dir();
    assert!(dir.is_dir(), "examples folder missing at {}", dir.display());
    read_dir(&dir)
        .into_iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect()
}

/// The `.json` files of one example folder, sorted by name.
pub fn example_files(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = read_dir(&examples_dir().join(folder))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// One official example, by its path under the examples folder
/// (`"ListRootsRequest/list-roots-request.json"`).
pub fn example(relative: &str) -> Value {
    read_json(&examples_dir().join(relative))
}

/// A labelled JSON example of one of the project's protocol digests
/// (`<!-- schema: <revision>#<Def> -->` above a fenced block; see `data/digests/README.md`).
#[derive(Debug, Clone)]
pub struct DigestExample {
    /// The digest's file name (`"ELICITATION.md"`).
    pub digest: String,
    /// The 1-based line of the label in the digest.
    pub line: usize,
    /// The labelled protocol revision.
    pub revision: String,
    /// The labelled `$defs` entry.
    pub def: String,
    /// The example.
    pub value: Value,
}

/// Every labelled example of the digests, by digest then line.
pub fn digest_examples() -> Vec<DigestExample> {
    let mut out = Vec::new();
    let mut digests: Vec<PathBuf> = read_dir(&data_dir().join("digests"))
        .into_iter()
        .filter(|p| p.is_dir())
        .collect();
    digests.sort();
    for dir in digests {
        let digest = format!("{}.md", file_name(&dir));
        let mut files: Vec<PathBuf> = read_dir(&dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for path in files {
            let name = file_name(&path);
            let stem = name.strip_suffix(".json").unwrap_or(&name);
            let mut parts = stem.splitn(3, '_');
            let (Some(line), Some(revision), Some(def)) =
                (parts.next(), parts.next(), parts.next())
            else {
                panic!("{}: not named <line>_<revision>_<Def>.json", path.display());
            };
            let line = line
                .parse()
                .unwrap_or_else(|e| panic!("{}: bad line number: {e}", path.display()));
            out.push(DigestExample {
                digest: digest.clone(),
                line,
                revision: revision.to_owned(),
                def: def.to_owned(),
                value: read_json(&path),
            });
        }
    }
    out
}

/// The example of ELICITATION.md §3.4: a form (`ElicitRequestFormParams`, 2026-07-28)
/// exercising every definition of the schema subset.
pub fn elicitation_form_example() -> Value {
    read_json(
        &data_dir()
            .join("digests/ELICITATION")
            .join("0305_2026-07-28_ElicitRequestFormParams.json"),
    )
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
                .path()
        })
        .collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
