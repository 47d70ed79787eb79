//! Every call of a `_vartime` function (variable time in some input) is
//! listed in `tests/vartime_call_sites.txt` with the reason its
//! variable-time input is public, and every listed call exists. Calls made
//! inside functions that are `_vartime` themselves are their callers'
//! business and are not listed; neither are test modules and generated
//! code. A new call fails this test until someone writes down why it sees
//! no secret.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// (file, enclosing function, callee).
type Site = (String, String, String);

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "gen") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The identifier ending at byte `end` of `line`.
fn ident_before(line: &str, end: usize) -> &str {
    let start = line[..end]
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &line[start..end]
}

/// The name of the function declared on `line`, if it declares one.
fn declared_fn(line: &str) -> Option<&str> {
    let code = line.trim_start();
    let at = code.find("fn ")?;
    // `pub(in path)` and the like: drop what is in parentheses.
    let mut before = String::new();
    let mut depth = 0;
    for c in code[..at].chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => before.push(c),
            _ => {}
        }
    }
    let qualifier = |w: &str| {
        ["pub", "const", "unsafe", "extern", "async", "default"].contains(&w) || w.starts_with('"')
    };
    if !before.split_whitespace().all(qualifier) {
        return None;
    }
    let rest = &code[at + 3..];
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Every `_vartime` call site in the crates' sources, with its count.
fn sites_in_code(root: &Path) -> BTreeMap<Site, usize> {
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    files.sort();
    let mut sites = BTreeMap::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path
            .strip_prefix(root)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let lines: Vec<&str> = text.lines().collect();
        let mut current = String::new();
        for (i, line) in lines.iter().enumerate() {
            // A test module ends the file's production code.
            if line.trim() == "#[cfg(test)]"
                && lines.get(i + 1).is_some_and(|next| {
                    let next = next.trim_start();
                    next.starts_with("mod ") || next.starts_with("pub(crate) mod ")
                })
            {
                break;
            }
            if let Some(name) = declared_fn(line) {
                current = name.to_owned();
            }
            let code = line.split("//").next().unwrap_or("");
            for (at, _) in code.match_indices('(') {
                let callee = ident_before(code, at);
                let before = code[..at - callee.len()].trim_end();
                if !callee.ends_with("_vartime") || before.ends_with("fn") {
                    continue;
                }
                if current.ends_with("_vartime") {
                    continue;
                }
                *sites
                    .entry((file.clone(), current.clone(), callee.to_owned()))
                    .or_insert(0) += 1;
            }
        }
    }
    sites
}

#[test]
fn every_vartime_call_says_why_its_input_is_public() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let list = std::fs::read_to_string(root.join("tests/vartime_call_sites.txt")).unwrap();
    let mut listed = BTreeMap::new();
    for (n, line) in list.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (site, reason) = line
            .split_once(" — ")
            .unwrap_or_else(|| panic!("line {}: no ` — reason`: {line}", n + 1));
        let reason = reason.trim();
        assert!(!reason.is_empty(), "line {}: empty reason", n + 1);
        assert!(
            !reason.starts_with("SECRET"),
            "line {}: a vartime function sees a secret: {line}",
            n + 1
        );
        let parts: Vec<&str> = site.split_whitespace().collect();
        let [file, function, callee] = parts[..] else {
            panic!("line {}: expected `file function callee — reason`", n + 1);
        };
        let key = (file.to_owned(), function.to_owned(), callee.to_owned());
        assert!(
            listed.insert(key, reason.to_owned()).is_none(),
            "line {}: listed twice",
            n + 1
        );
    }
    let code = sites_in_code(root);
    let unlisted: Vec<_> = code.keys().filter(|k| !listed.contains_key(*k)).collect();
    let stale: Vec<_> = listed.keys().filter(|k| !code.contains_key(*k)).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "vartime call sites not in tests/vartime_call_sites.txt (add each with the reason its \
         input is public): {unlisted:#?}\nlisted but no longer in the code: {stale:#?}"
    );
    println!("{} vartime call sites, each with its reason", code.len());
}
