//! The library crates export nothing hidden for tests or benchmarks: what
//! only a measurement needs lives behind the `insecure-bench-hooks`
//! feature (`bench_hooks` modules), and no public function changes
//! process-wide state. Before this test, `numcrypt_prime` had a hidden
//! public function that lowered MR64's rounds for every later call in the
//! process.

use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_hidden_hooks_in_the_public_api() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            sources(&src, &mut files);
        }
    }
    let mut found = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            let next = lines.get(i + 1).map_or("", |l| l.trim_start());
            let hidden_pub = code.starts_with("#[doc(hidden)]") && next.starts_with("pub ");
            let hook_name = (code.starts_with("pub fn") || code.starts_with("pub use"))
                && (code.contains("_for_benchmark") || code.contains("_for_tuning"));
            if hidden_pub || hook_name {
                found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "test or benchmark hooks in the public API (put them in a `bench_hooks` \
         module behind `insecure-bench-hooks`):\n{}",
        found.join("\n")
    );
}

#[test]
fn bench_hooks_exist_only_with_their_feature() {
    for krate in ["prime", "rsa"] {
        let lib = std::fs::read_to_string(format!(
            "{}/crates/{krate}/src/lib.rs",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let at = lib
            .find("pub mod bench_hooks")
            .expect("a bench_hooks module");
        let before = &lib[..at];
        let attribute = before.rfind("#[cfg(").map(|i| &before[i..]).unwrap_or("");
        assert!(
            attribute.starts_with("#[cfg(feature = \"insecure-bench-hooks\")]"),
            "numcrypt-{krate}'s bench_hooks must be behind the insecure-bench-hooks feature"
        );
        let manifest = std::fs::read_to_string(format!(
            "{}/crates/{krate}/Cargo.toml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let default = manifest
            .lines()
            .find(|l| l.starts_with("default ="))
            .unwrap_or("");
        assert!(
            !default.contains("insecure-bench-hooks"),
            "numcrypt-{krate} enables its bench hooks by default"
        );
    }
}
