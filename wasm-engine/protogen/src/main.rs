//! `cargo run -p schedlab-protogen`: rewrites the engine's generated Perfetto code.

fn main() {
    match schedlab_protogen::generate() {
        Ok(files) => {
            for (path, text) in files {
                let p = schedlab_protogen::repo_root().join(&path);
                std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                println!("wrote {path}");
            }
        }
        Err(e) => {
            eprintln!("schedlab-protogen: {e}");
            std::process::exit(1);
        }
    }
}
