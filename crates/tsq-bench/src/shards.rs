//! `tsq-bench shards <indexed dir> --to <url> --jobs N`: how a monorepo too
//! big for one CI job publishes its index in shards, with Lance's own
//! distributed write, measured on a real tsq index.
//!
//! Each of N jobs writes its share of every table's rows as data files of
//! the one shared dataset (`InsertBuilder::execute_uncommitted`: data
//! files, no manifest) and hands the fragments' metadata over through the
//! store (`<url>/jobs/<table>/<job>.json`); one commit step reads them and
//! commits every fragment in one transaction per table (`CommitBuilder`),
//! so readers see all shards or none, and no row is copied twice. Beside
//! it, in the same run, one writer writes every row
//! (`InsertBuilder::execute`). The committed tables are checked to hold
//! exactly the local index's rows. (Here the jobs are tasks of one
//! process, splitting rows by batch; in CI each is its own job indexing a
//! subset of the projects, and only the fragment metadata travels.)

use std::path::Path;
use std::time::Instant;

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use lance::dataset::transaction::{Operation, TransactionBuilder};
use lance::dataset::{CommitBuilder, Dataset, InsertBuilder, WriteMode, WriteParams};
use lance::table::format::Fragment;
use tsq::share::remote::Remote;

use crate::ExitStatus;

pub fn run(dir: &Path, to: &str, jobs: usize) -> anyhow::Result<ExitStatus> {
    tsq::share::install_crypto_provider();
    let jobs = jobs.max(1);
    let index = dir.join(".tsq");
    let mut tables: Vec<String> = std::fs::read_dir(&index)?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".lance")).map(str::to_string))
        .collect();
    tables.sort();
    anyhow::ensure!(!tables.is_empty(), "{}: no index (run `tsq index --root {}` first)", index.display(), dir.display());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let remote = Remote::open(to).await?;
        let to = remote.url().to_string();
        println!("| table | rows | {jobs} jobs: write (s) | commit (s) | one writer (s) | rows committed |");
        println!("|---|---|---|---|---|---|");
        let (mut sharded, mut single) = (0.0, 0.0);
        for table in &tables {
            let local = Dataset::open(index.join(format!("{table}.lance")).to_str().unwrap()).await?;
            let batches: Vec<RecordBatch> = local.scan().try_into_stream().await?.try_collect().await?;
            let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
            if rows == 0 {
                continue;
            }
            let uri = format!("{to}/shards/{table}.lance");
            let create = WriteParams { mode: WriteMode::Create, ..Default::default() };
            // The jobs: data files only, then their fragments to the store.
            let started = Instant::now();
            let writes = (0..jobs).map(|job| {
                let mine: Vec<RecordBatch> = batches.iter().skip(job).step_by(jobs).cloned().collect();
                let (uri, remote, create, table) = (&uri, &remote, &create, table);
                async move {
                    if mine.is_empty() {
                        return anyhow::Ok(());
                    }
                    let txn = InsertBuilder::new(uri.as_str()).with_params(create).execute_uncommitted(mine).await?;
                    let fragments = match txn.operation {
                        Operation::Overwrite { fragments, .. } | Operation::Append { fragments } => fragments,
                        other => anyhow::bail!("job {job}: unexpected operation {other:?}"),
                    };
                    remote.put(&format!("jobs/{table}/{job}.json"), &serde_json::to_vec(&fragments)?).await?;
                    Ok(())
                }
            });
            futures::future::try_join_all(writes).await?;
            let wrote = started.elapsed().as_secs_f64();
            // The commit step: every job's fragments, one transaction.
            let started = Instant::now();
            let mut fragments: Vec<Fragment> = Vec::new();
            for job in 0..jobs {
                if let Some(bytes) = remote.get(&format!("jobs/{table}/{job}.json")).await? {
                    fragments.extend(serde_json::from_slice::<Vec<Fragment>>(&bytes)?);
                }
            }
            let schema = lance::datatypes::Schema::try_from(batches[0].schema().as_ref())?;
            let txn = TransactionBuilder::new(0, Operation::Overwrite { fragments, schema, config_upsert_values: None, initial_bases: None }).build();
            let committed = CommitBuilder::new(uri.as_str()).execute(txn).await?;
            let commit = started.elapsed().as_secs_f64();
            let got = committed.count_rows(None).await?;
            anyhow::ensure!(got == rows, "{table}: {got} rows committed, {rows} written");
            // The baseline: one writer, every row.
            let started = Instant::now();
            InsertBuilder::new(format!("{to}/single/{table}.lance").as_str()).with_params(&create).execute(batches.clone()).await?;
            let one = started.elapsed().as_secs_f64();
            sharded += wrote + commit;
            single += one;
            println!("| {table} | {rows} | {wrote:.2} | {commit:.2} | {one:.2} | {got} |");
        }
        println!("\nall tables: {jobs} jobs + commit {sharded:.2} s, one writer {single:.2} s (2 cores: the jobs share them here)");
        anyhow::Ok(())
    })?;
    Ok(ExitStatus::Success)
}
