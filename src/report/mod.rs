//! Turning models and results into text people paste and files tools read.

pub mod topology_text;
