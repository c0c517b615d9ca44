//! Files that live beside another: the one rule for their names.

use std::path::{Path, PathBuf};

/// `<file>SUFFIX` in `file`'s directory: `beside("out/run.jsonl", ".lock")` is
/// `out/run.jsonl.lock`. The suffix is appended to the whole file name, so files of two
/// outputs that differ only in extension never collide.
#[must_use]
pub fn beside(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    file.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suffix_follows_the_whole_file_name() {
        assert_eq!(
            beside(Path::new("out/run.jsonl"), ".lock"),
            PathBuf::from("out/run.jsonl.lock")
        );
        assert_eq!(beside(Path::new("run"), ".x"), PathBuf::from("run.x"));
    }
}
