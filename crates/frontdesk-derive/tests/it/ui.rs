//! Compile-fail tests: each shape outside the subset, with its expected message.
