pub fn run(_d: &[std::path::PathBuf], _a: BenchArgs) -> anyhow::Result<super::ExitStatus> { todo!() }
pub struct BenchArgs { pub runs: usize, pub workers: Option<usize>, pub node: bool }
