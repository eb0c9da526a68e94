//! The committed generated code is what the vendored protos generate.

#[test]
fn generated_code_is_fresh() {
    let files = schedlab_protogen::generate().expect("generate");
    assert_eq!(files.len(), 2);
    for (path, text) in files {
        let p = schedlab_protogen::repo_root().join(&path);
        let committed = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            committed == text,
            "{path} is stale: run `cargo run -p schedlab-protogen` after changing wasm-engine/engine/proto/perfetto"
        );
    }
}
