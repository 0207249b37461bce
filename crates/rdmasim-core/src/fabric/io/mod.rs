//! File formats operators already have: one file per format, read and write.
