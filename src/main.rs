//! The `tsq` binary: thin `main` over `cli::run`.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    tsq::embed::configure_process();
    tsq::share::install_crypto_provider();
    match cli::run() {
        Ok(status) => status.into(),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("tsq: error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            cli::ExitStatus::Error.into()
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
