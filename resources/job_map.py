# SPDX-License-Identifier: MIT
"""The map step of `attnscope job --map`, on Dask: each trace's rank record is made where a Dask worker runs
(`attnscope summary --format rank`, AttnScope installed there), in batches of traces, and the records are
gathered here into a folder the reduce reads. Scheduling, retries when a worker dies and the transport of
results are Dask's; this file only says what to run. Carried inside AttnScope and written out when used.

Prints one JSON line on stdout at the end: what ran where (traces, batches, workers, seconds, each worker's
peak memory of the summaries it ran)."""
import argparse
import json
import math
import os
import sys
import time


def summarize(attnscope, paths, first_rank, threads):
    """On a worker: the records of a batch of traces, a JSON line each (a trace that cannot be read is a
    record with its error), and the peak memory of the summary that made them."""
    import subprocess
    import tempfile

    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        child = subprocess.Popen(
            [attnscope, "summary", "--format", "rank", "--first-rank", str(first_rank), "--threads", str(threads)]
            + list(paths),
            stdout=out,
            stderr=err,
        )
        # Its own high-water mark, sampled while it runs: getrusage would count this worker's memory too
        # (a child's peak includes what it was before it became attnscope).
        peak_kb = 0
        while child.poll() is None:
            try:
                with open("/proc/%d/status" % child.pid) as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            peak_kb = max(peak_kb, int(line.split()[1]))
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        out.seek(0)
        lines = [line for line in out.read().splitlines() if line.strip()]
        # Status 1: some traces could not be read, and their records say why.
        if child.returncode not in (0, 1) or len(lines) != len(paths):
            err.seek(0)
            raise RuntimeError(
                "attnscope summary ended with status %d: %s" % (child.returncode, err.read().strip()[-2000:])
            )
    return lines, peak_kb, "%s:%d" % (os.uname().nodename, os.getpid())


def flat(record):
    """A record as a table row, for Parquet."""
    return {
        "rank": record.get("rank"),
        "path": record.get("path"),
        "error": record.get("error"),
        "world_size": record.get("world_size"),
        "steps": len(record.get("steps", [])),
        "span_ns": record.get("span_ns"),
        "kernels": record.get("kernels"),
        "kernel_ns": record.get("kernel_ns"),
        "gpu_busy_ns": record.get("gpu_busy_ns"),
        "compute_busy_ns": record.get("compute_busy_ns"),
        "communication_ns": record.get("communication_ns"),
        "attention_calls": sum(a["calls"] for a in record.get("attention", [])),
        "attention_ns": sum(a["ns"] for a in record.get("attention", [])),
        "findings": len(record.get("findings", [])),
        "finding_ids": ",".join(f["id"] for f in record.get("findings", [])),
        "collectives": len(record.get("collectives", {}).get("arrivals", [])),
    }


def write_parquet(records, path):
    import pyarrow
    import pyarrow.parquet

    rows = [flat(r) for r in records]
    columns = {key: [row[key] for row in rows] for key in (rows[0] if rows else flat({}))}
    pyarrow.parquet.write_table(pyarrow.table(columns), path)


def main():
    p = argparse.ArgumentParser(prog="attnscope job --map")
    p.add_argument("--attnscope", required=True)
    p.add_argument("--records", required=True)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--scheduler", default="")
    p.add_argument("--batch", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--parquet", default="")
    p.add_argument("traces", nargs="+")
    a = p.parse_args()
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        print(
            "attnscope job --map: the engine is Dask, and this Python (%s) has no dask.distributed: "
            "pip install 'dask[distributed]' (and pyarrow for --parquet), or --python a Python that has it"
            % sys.executable,
            file=sys.stderr,
        )
        return 3
    started = time.monotonic()
    cluster = None
    if a.scheduler:
        try:
            client = Client(a.scheduler, timeout="10s")
        except (OSError, TimeoutError) as e:
            print("attnscope job --map: no Dask scheduler at %s: %s" % (a.scheduler, e), file=sys.stderr)
            return 3
    else:
        workers = a.workers or os.cpu_count() or 1
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        )
        client = Client(cluster)
    workers = len(client.scheduler_info()["workers"]) or 1
    n = len(a.traces)
    # A few batches per worker: each one summary process (its start paid once), small enough that the
    # workers stay busy to the end and a retried batch costs little.
    batch = a.batch or max(1, min(64, math.ceil(n / (workers * 4))))
    starts = list(range(0, n, batch))
    futures = client.map(
        summarize,
        [a.attnscope] * len(starts),
        [a.traces[s : s + batch] for s in starts],
        starts,
        [a.threads] * len(starts),
        retries=2,
        pure=False,
    )
    os.makedirs(a.records, exist_ok=True)
    peaks = {}
    records = []
    failed_batches = 0
    start_of = {future.key: start for future, start in zip(futures, starts)}
    for future in as_completed(futures):
        start = start_of[future.key]
        try:
            lines, peak_kb, worker = future.result()
        except Exception as e:  # the engine gave up on the batch after its retries
            failed_batches += 1
            lines = [
                json.dumps({"attnscope_rank_record": 1, "path": path, "rank": start + k, "error": str(e)})
                for k, path in enumerate(a.traces[start : start + batch])
            ]
            peak_kb, worker = 0, ""
        with open(os.path.join(a.records, "records-%08d.jsonl" % start), "w") as out:
            out.write("\n".join(lines) + "\n")
        if worker:
            peaks[worker] = max(peaks.get(worker, 0), peak_kb)
        if a.parquet:
            records.extend(json.loads(line) for line in lines)
    if a.parquet:
        records.sort(key=lambda r: (r.get("rank", 0), r.get("path", "")))
        write_parquet(records, a.parquet)
    client.close()
    if cluster is not None:
        cluster.close()
    print(
        json.dumps(
            {
                "traces": n,
                "batches": len(starts),
                "failed_batches": failed_batches,
                "workers": workers,
                "seconds": round(time.monotonic() - started, 3),
                "peak_rss_kb": peaks,
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
