#!/usr/bin/env bash
# Checks costlab-probe against fio, and against itself, on this machine.
#
#   bash crates/probe/compare-with-fio.sh            # all three parts
#   PARTS="fio" bash crates/probe/compare-with-fio.sh
#
# 1. fio: one test file written with random data (fio, direct, refill_buffers); fio and the
#    probe (--file F --reuse) read the same file with the same block size and queue depth:
#    psync, direct=1, numjobs=N for queue depth N, randrepeat=0 and norandommap (uniform
#    offsets with repeats, as the probe draws them). fio runs before and after the probe
#    (A-B-A) and the table compares the probe with the mean of the two fio runs.
# 2. twice: two default probe runs; for each figure, do the 95 % intervals overlap?
# 3. pg: a private PostgreSQL (initdb/pg_ctl as the postgres user, loopback port, removed
#    afterwards) and `costlab-probe postgres` on a table of PG_ROWS rows.
#
# Environment: DIR (where the test files go, default /tmp), SIZE (fio file, default 4g),
# RUNTIME (seconds per fio job, default 8), PG_ROWS (default 1000000), PG_REPS (default 5),
# OUT (where the JSON results go, default a new temporary directory).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${DIR:-/tmp}
SIZE=${SIZE:-4g}
RUNTIME=${RUNTIME:-8}
PG_ROWS=${PG_ROWS:-1000000}
PG_REPS=${PG_REPS:-5}
PARTS=${PARTS:-"fio twice pg"}
OUT=${OUT:-$(mktemp -d /tmp/costlab-compare-XXXXXX)}
mkdir -p "$OUT"
(cd "$ROOT" && cargo build -q -p costlab-probe --release)
PROBE="$ROOT/target/release/costlab-probe"
F="$DIR/costlab-fio-compare-$$.dat"
PGDIR=""
cleanup() {
    rm -f "$F"
    if [ -n "$PGDIR" ] && [ -d "$PGDIR" ]; then
        runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$PGDIR"
    fi
}
trap cleanup EXIT INT TERM
echo "results in $OUT"

fio_job() { # name rw bs numjobs
    fio --name="$1" --filename="$F" --size="$SIZE" --direct=1 --ioengine=psync \
        --rw="$2" --bs="$3" --numjobs="$4" --group_reporting --time_based \
        --runtime="$RUNTIME" --ramp_time=1 --randrepeat=0 --norandommap \
        --output-format=json --output="$OUT/fio-$1-$5.json"
}

if [[ " $PARTS " == *" fio "* ]]; then
    echo "== fio vs costlab-probe on $F ($SIZE)"
    fio --name=layout --filename="$F" --size="$SIZE" --rw=write --bs=4m --direct=1 \
        --ioengine=psync --refill_buffers --end_fsync=1 --output=/dev/null
    JOBS=("seq1m read 1m 1" "seq8k read 8k 1" "rand8k-qd1 randread 8k 1"
          "rand8k-qd32 randread 8k 32" "rand16k-qd1 randread 16k 1")
    for j in "${JOBS[@]}"; do fio_job $j a; done
    "$PROBE" --file "$F" --reuse --out "$OUT/probe-same-file.json" 2>"$OUT/probe-same-file.txt"
    for j in "${JOBS[@]}"; do fio_job $j b; done
    python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
p = json.load(open(f"{out}/probe-same-file.json"))
def fio(name):
    r = []
    for ab in "ab":
        j = json.load(open(f"{out}/fio-{name}-{ab}.json"))["jobs"][0]["read"]
        r.append(j)
    mean = lambda f: sum(f(x) for x in r) / len(r)
    return {
        "mbps": mean(lambda x: x["bw_bytes"] / 1e6),
        "iops": mean(lambda x: x["iops"]),
        "p50": mean(lambda x: x["clat_ns"]["percentile"]["50.000000"] / 1e3),
        "p99": mean(lambda x: x["clat_ns"]["percentile"]["99.000000"] / 1e3),
    }
def point(page, qd):
    s = next(s for s in p["random_reads"] if s["page_bytes"] == page)
    return next(x for x in s["points"] if x["queue_depth"] == qd)
rows = []
for name, label, key, est in [
    ("seq1m", "seq read 1 MiB QD1, MB/s", "mbps", p["seq_read"]["large"]["mbps"]),
    ("seq8k", "seq read 8 kB QD1, MB/s", "mbps", p["seq_read"]["page"]["mbps"]),
    ("rand8k-qd1", "random 8 kB QD1, IOPS", "iops", point(8192, 1)["iops"]),
    ("rand8k-qd1", "random 8 kB QD1, p50 µs", "p50", point(8192, 1)["p50_us"]),
    ("rand8k-qd1", "random 8 kB QD1, p99 µs", "p99", point(8192, 1)["p99_us"]),
    ("rand8k-qd32", "random 8 kB QD32, IOPS", "iops", point(8192, 32)["iops"]),
    ("rand8k-qd32", "random 8 kB QD32, p50 µs", "p50", point(8192, 32)["p50_us"]),
    ("rand8k-qd32", "random 8 kB QD32, p99 µs", "p99", point(8192, 32)["p99_us"]),
    ("rand16k-qd1", "random 16 kB QD1, IOPS", "iops", point(16384, 1)["iops"]),
]:
    f = fio(name)[key]
    rows.append((label, f, est))
print(f"{'figure':28} {'fio (mean of 2)':>16} {'probe median [95 % CI]':>30} {'probe/fio':>9}")
for label, f, e in rows:
    ci = f"{e['median']:.1f} [{e['lo']:.1f}, {e['hi']:.1f}]"
    print(f"{label:28} {f:16.1f} {ci:>30} {e['median'] / f:9.3f}")
EOF
    rm -f "$F"
fi

if [[ " $PARTS " == *" twice "* ]]; then
    echo "== two default runs in $DIR"
    "$PROBE" --dir "$DIR" --out "$OUT/run1.json" 2>"$OUT/run1.txt"
    "$PROBE" --dir "$DIR" --out "$OUT/run2.json" 2>"$OUT/run2.txt"
    python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
a, b = (json.load(open(f"{out}/run{i}.json")) for i in (1, 2))
def figures(c):
    f = {"seq 1 MiB MB/s": c["seq_read"]["large"]["mbps"], "seq 8 kB MB/s": c["seq_read"]["page"]["mbps"]}
    for s in c["random_reads"]:
        for p in s["points"]:
            f[f"rand {s['page_bytes']//1024} kB QD{p['queue_depth']} IOPS"] = p["iops"]
    for k in ["buffer_hit_ns", "buffer_hit_16k_ns", "os_cache_hit_ns", "cpu_ns_per_row"]:
        f[k] = c[k]
    f["random/seq 8k ratio"] = c["ratios"]["random_over_seq_8k"]
    return f
fa, fb = figures(a), figures(b)
agree = 0
print(f"{'figure':26} {'run 1':>28} {'run 2':>28} overlap")
for k in fa:
    x, y = fa[k], fb[k]
    ok = x["lo"] <= y["hi"] and y["lo"] <= x["hi"]
    agree += ok
    s = lambda e: f"{e['median']:.1f} [{e['lo']:.1f}, {e['hi']:.1f}]"
    print(f"{k:26} {s(x):>28} {s(y):>28} {'yes' if ok else 'NO'}")
print(f"{agree} of {len(fa)} figures agree within their intervals")
EOF
fi

if [[ " $PARTS " == *" pg "* ]]; then
    PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [ -z "$PGBIN" ]; then
        echo "== no PostgreSQL under /usr/lib/postgresql: skipping the experiment"
        exit 0
    fi
    echo "== PostgreSQL experiment ($PGBIN, $PG_ROWS rows, $PG_REPS repetitions)"
    PGDIR=$(mktemp -d /tmp/costlab-pg-XXXXXX)
    chown postgres:postgres "$PGDIR"
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    runuser -u postgres -- "$PGBIN/initdb" -A trust -U postgres -E UTF8 --locale=C --no-sync \
        -D "$PGDIR/data" >/dev/null
    cat >>"$PGDIR/data/postgresql.conf" <<EOF
port = $PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PGDIR'
shared_buffers = 128MB
jit = off
autovacuum = off
max_wal_size = 4GB
EOF
    runuser -u postgres -- "$PGBIN/pg_ctl" -w -D "$PGDIR/data" -l "$PGDIR/log" start >/dev/null
    "$PROBE" postgres --dsn "host=127.0.0.1 port=$PORT user=postgres dbname=postgres" \
        --rows "$PG_ROWS" --repetitions "$PG_REPS" --out "$OUT/postgres.json"
fi
