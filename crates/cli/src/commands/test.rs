//! (being written)

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn execute(_args: Args) -> u8 {
    eprintln!("not implemented yet");
    crate::exit::RUN_FAILURE
}
