//! Paths a scenario names (a trace directory, a fabric file) are read beside the scenario file
//! when they are relative and exist there, so a scenario and its files move together.

/// `path` as written in the scenario at `source`: joined to the scenario's directory when it is
/// relative and the joined path exists, else unchanged (relative to the working directory).
pub fn resolve_beside(path: &str, source: &str) -> String {
    let p = std::path::Path::new(path);
    if p.is_relative() {
        if let Some(dir) = std::path::Path::new(source).parent().filter(|d| d.is_dir() && !d.as_os_str().is_empty()) {
            let joined = dir.join(p);
            if joined.exists() {
                return joined.display().to_string();
            }
        }
    }
    path.to_string()
}
