//! What a section's check returns: the key path and message of the first problem it found
//! (checks.rs adds the source and the line).

/// The key path and message of the first problem a check found.
pub(crate) type Problem = (String, String);

/// Fails a check at `key`.
pub(crate) fn problem<T>(key: &str, message: String) -> Result<T, Problem> {
    Err((key.to_string(), message))
}
