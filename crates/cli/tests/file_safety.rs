//! How `--out` files are written: secrets never replace a file without
//! `--force` (and then get mode 0600 whatever the old file had), every
//! output appears whole or not at all, and a command that fails part-way
//! leaves the old file intact and no temporary file behind.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
fn mode(path: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
fn set_mode(path: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A world-readable file with known contents at `path`.
fn old_file(path: &str) {
    std::fs::write(path, b"old contents\n").unwrap();
    #[cfg(unix)]
    set_mode(path, 0o644);
}

fn assert_old_file(path: &str) {
    assert_eq!(std::fs::read(path).unwrap(), b"old contents\n", "{path}");
    #[cfg(unix)]
    assert_eq!(mode(path), 0o644, "{path}: mode changed");
}

#[test]
fn secrets_never_replace_a_file_without_force() {
    let dir = scratch("no-clobber");
    let rsa = p(&dir, "rsa.pem");
    let params = p(&dir, "params.pem");
    ok(
        numcrypt(&[
            "dsa", "params", "--bits", "2048", "--qbits", "224", "--out", &params,
        ]),
        "dsa params",
    );
    let target = p(&dir, "target");
    let eg_key = p(&dir, "eg.pem");
    ok(numcrypt(&["elgamal", "keygen", "--out", &eg_key]), "keygen");
    ok(numcrypt(&["rsa", "keygen", "--out", &rsa]), "keygen");
    let (ct_rsa, ct_eg, msg) = (p(&dir, "ct-rsa"), p(&dir, "ct-eg"), p(&dir, "msg"));
    std::fs::write(&msg, b"plaintext").unwrap();
    ok(
        numcrypt(&[
            "rsa", "encrypt", "--pub", &rsa, "--in", &msg, "--out", &ct_rsa,
        ]),
        "rsa encrypt",
    );
    ok(
        numcrypt(&[
            "elgamal", "encrypt", "--pub", &eg_key, "--in", &msg, "--out", &ct_eg,
        ]),
        "elgamal encrypt",
    );
    let commands: Vec<Vec<&str>> = vec![
        vec!["rsa", "keygen", "--out", &target],
        vec!["dsa", "keygen", "--params", &params, "--out", &target],
        vec!["elgamal", "keygen", "--out", &target],
        vec![
            "rsa", "decrypt", "--key", &rsa, "--in", &ct_rsa, "--out", &target,
        ],
        vec![
            "elgamal", "decrypt", "--key", &eg_key, "--in", &ct_eg, "--out", &target,
        ],
    ];
    for args in &commands {
        old_file(&target);
        let before = listing(&dir);
        let out = numcrypt(args);
        assert_eq!(code(&out), 2, "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("already exists") && stderr.contains("--force"),
            "{args:?}: {stderr}"
        );
        assert_old_file(&target);
        assert_eq!(listing(&dir), before, "{args:?}: no temporary file left");

        // With --force the file is replaced, and only its owner can read it.
        let mut forced = args.clone();
        forced.push("--force");
        ok(numcrypt(&forced), &format!("{forced:?}"));
        assert_ne!(std::fs::read(&target).unwrap(), b"old contents\n");
        #[cfg(unix)]
        assert_eq!(mode(&target), 0o600, "{forced:?}");
        assert_eq!(listing(&dir), before, "{forced:?}: no temporary file left");
    }
    assert_eq!(
        std::fs::read(&target).unwrap(),
        b"plaintext",
        "the last command decrypted into it"
    );
}

#[test]
fn refusal_comes_before_the_work() {
    // A 16384-bit key takes minutes; the refusal must not wait for it.
    let dir = scratch("refuse-first");
    let target = p(&dir, "key.pem");
    old_file(&target);
    let start = std::time::Instant::now();
    let out = numcrypt(&["rsa", "keygen", "--bits", "16384", "--out", &target]);
    assert_eq!(code(&out), 2);
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    assert_old_file(&target);
}

#[test]
fn public_outputs_replace_atomically() {
    let dir = scratch("public");
    let (key, public, sig, msg) = (
        p(&dir, "key.pem"),
        p(&dir, "pub.pem"),
        p(&dir, "sig"),
        p(&dir, "msg"),
    );
    std::fs::write(&msg, b"signed").unwrap();
    ok(numcrypt(&["rsa", "keygen", "--out", &key]), "keygen");
    #[cfg(unix)]
    assert_eq!(mode(&key), 0o600);
    old_file(&public);
    old_file(&sig);
    ok(
        numcrypt(&["rsa", "pubkey", "--in", &key, "--out", &public]),
        "pubkey",
    );
    ok(
        numcrypt(&["rsa", "sign", "--key", &key, "--in", &msg, "--out", &sig]),
        "sign",
    );
    assert!(text(&std::fs::read(&public).unwrap()).starts_with("-----BEGIN PUBLIC KEY-----"));
    assert_eq!(std::fs::read(&sig).unwrap().len(), 256);
    #[cfg(unix)]
    assert_eq!(mode(&public) & 0o600, 0o600);
    assert_eq!(listing(&dir), ["key.pem", "msg", "pub.pem", "sig"]);
}

/// A decryption that fails after writing some chunks (a damaged last chunk,
/// or a full disk simulated with a file-size limit) leaves the old file as
/// it was and no temporary file.
#[cfg(unix)]
#[test]
fn failure_mid_write_leaves_the_old_file() {
    let dir = scratch("mid-write");
    let (key, public, msg, ct, target) = (
        p(&dir, "key.pem"),
        p(&dir, "pub.pem"),
        p(&dir, "msg"),
        p(&dir, "ct"),
        p(&dir, "target"),
    );
    ok(numcrypt(&["elgamal", "keygen", "--out", &key]), "keygen");
    ok(
        numcrypt(&["elgamal", "pubkey", "--in", &key, "--out", &public]),
        "pubkey",
    );
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&msg, &data).unwrap();
    ok(
        numcrypt(&[
            "elgamal", "encrypt", "--pub", &public, "--in", &msg, "--out", &ct,
        ]),
        "encrypt",
    );
    let sealed = std::fs::read(&ct).unwrap();

    // The last chunk damaged: four chunks are written before it fails.
    let mut damaged = sealed.clone();
    *damaged.last_mut().unwrap() ^= 1;
    let bad = p(&dir, "ct-damaged");
    std::fs::write(&bad, &damaged).unwrap();
    old_file(&target);
    let before = listing(&dir);
    let out = numcrypt(&[
        "elgamal", "decrypt", "--key", &key, "--in", &bad, "--out", &target, "--force",
    ]);
    assert_eq!(code(&out), 2, "{}", text(&out.stderr));
    assert_old_file(&target);
    assert_eq!(listing(&dir), before);

    // The disk "fills up" after 64 KiB: writes fail with EFBIG (SIGXFSZ
    // ignored), as they would with ENOSPC.
    let script = format!(
        "trap '' XFSZ; ulimit -f 64; exec '{}' elgamal decrypt --key '{key}' --in '{ct}' --out '{target}' --force",
        env!("CARGO_BIN_EXE_numcrypt")
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_eq!(code(&out), 2, "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("target"),
        "{}",
        text(&out.stderr)
    );
    assert_old_file(&target);
    assert_eq!(listing(&dir), before);

    // And with room, the same command succeeds.
    ok(
        numcrypt(&[
            "elgamal", "decrypt", "--key", &key, "--in", &ct, "--out", &target, "--force",
        ]),
        "decrypt",
    );
    assert_eq!(std::fs::read(&target).unwrap(), data);
}

/// Devices are written in place, and a symbolic link keeps pointing at the
/// file it names, which is the one replaced.
#[cfg(unix)]
#[test]
fn devices_and_symbolic_links() {
    let dir = scratch("links");
    let (key, real, link) = (p(&dir, "key.pem"), p(&dir, "real.pem"), p(&dir, "link.pem"));
    ok(numcrypt(&["rsa", "keygen", "--out", &key]), "keygen");
    ok(
        numcrypt(&["rsa", "pubkey", "--in", &key, "--out", "/dev/null"]),
        "pubkey to /dev/null",
    );
    ok(
        numcrypt(&["rsa", "keygen", "--bits", "2048", "--out", "/dev/null"]),
        "a key to /dev/null",
    );
    {
        use std::os::unix::fs::FileTypeExt;
        let null = std::fs::metadata("/dev/null").unwrap().file_type();
        assert!(null.is_char_device(), "/dev/null is still a device");
    }
    old_file(&real);
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(
        numcrypt(&["rsa", "pubkey", "--in", &key, "--out", &link]),
        "pubkey through a link",
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(text(&std::fs::read(&real).unwrap()).starts_with("-----BEGIN PUBLIC KEY-----"));
    assert_eq!(listing(&dir), ["key.pem", "link.pem", "real.pem"]);
}
