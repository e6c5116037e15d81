#!/usr/bin/env bash
# Checks costlab-probe against fio, and against itself, on this machine.
#
#   bash crates/probe/compare-with-fio.sh                 # fio, default and twice
#   PARTS="fio" bash crates/probe/compare-with-fio.sh     # one part
#
# fio      The probe's read loops (`costlab-probe io`) and fio on the same file, with the same
#          block size, queue depth, direct I/O, duration and warm-up, interleaved
#          fio, probe, probe, fio, fio, probe ... (the order alternates every repetition, so
#          drift and the load of other processes hit both alike), REPS repetitions, medians.
#          Queue depth N is N threads each with one pread in flight, on both sides: fio
#          `ioengine=psync numjobs=N thread` is exactly what the probe does (its random reads
#          are N threads at QD1, like a database's N backends each waiting for its page);
#          libaio/io_uring iodepth=N would measure another submission path. Offsets: uniform
#          over the whole file with repeats (fio norandommap, randrepeat=0), as the probe draws
#          them. The test file is written once by fio with incompressible data.
# default  The calibration figures of a default probe run (`--file F --reuse`) beside fio on
#          the same file: fio, probe, fio, probe, fio (DEFAULT_REPS probe runs); the probe's
#          figures are medians of short runs spread over its 60 s, fio's of RUNTIME-second
#          runs, so this shows what the calibration file says against fio's sustained rates.
# twice    Two default probe runs (new test file each) and `costlab-probe compare`.
# pg       A private PostgreSQL (initdb/pg_ctl as the postgres user, loopback port, removed
#          afterwards) and `costlab-probe postgres` on a table of PG_ROWS rows.
#
# Environment: DIR (test files, default /tmp), SIZE (fio's file, default 4g), RUNTIME
# (measured seconds per run, default 3), RAMP (discarded seconds first, default 1), REPS
# (default 8: on a shared virtual disk two runs of the same loop a minute apart differ by
# up to 25 %, so many short pairs beat a few long ones), DEFAULT_REPS (default 2), ALL_JOBS,
# PG_ROWS (default 1000000), PG_REPS (default 5), OUT (results, default a new temporary
# directory), NO_BUILD=1 (use target/release/costlab-probe as it is).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${DIR:-/tmp}
SIZE=${SIZE:-4g}
RUNTIME=${RUNTIME:-3}
RAMP=${RAMP:-1}
REPS=${REPS:-8}
DEFAULT_REPS=${DEFAULT_REPS:-2}
PG_ROWS=${PG_ROWS:-1000000}
PG_REPS=${PG_REPS:-5}
PARTS=${PARTS:-"fio default twice"}
OUT=${OUT:-$(mktemp -d /tmp/costlab-compare-XXXXXX)}
mkdir -p "$OUT"
[ "${NO_BUILD:-0}" = 1 ] || (cd "$ROOT" && cargo build -q -p costlab-probe --release)
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
echo "results in $OUT; $(nproc) CPUs; $(uptime)"

# name rw bs qd: what issue 8 asks for (sequential, random 8 kB at QD1 and QD32), and the
# 8 kB sequential reads; ALL_JOBS=1 adds 16 kB at QD1 and QD32.
JOBS=("seq1m read 1m 1" "seq8k read 8k 1" "rand8k-qd1 randread 8k 1"
      "rand8k-qd32 randread 8k 32")
if [ "${ALL_JOBS:-0}" = 1 ]; then
    JOBS+=("rand16k-qd1 randread 16k 1" "rand16k-qd32 randread 16k 32")
fi

job_file() { # name rw bs qd -> the fio job text
    cat <<EOF
[global]
filename=$F
size=$SIZE
direct=1
ioengine=psync
thread
time_based
runtime=$RUNTIME
ramp_time=$RAMP
randrepeat=0
norandommap
group_reporting

[$1]
rw=$2
bs=$3
numjobs=$4
EOF
}

layout() {
    [ -f "$F" ] && return
    fio --name=layout --filename="$F" --size="$SIZE" --rw=write --bs=4m --direct=1 \
        --ioengine=psync --refill_buffers --end_fsync=1 --output=/dev/null
}

run_fio() { # name rw bs qd tag
    job_file "$1" "$2" "$3" "$4" >"$OUT/job-$1.fio"
    fio "$OUT/job-$1.fio" --output-format=json --output="$OUT/fio-$1-$5.json"
}

run_probe_io() { # name rw bs qd tag
    "$PROBE" io --file "$F" --rw "$2" --bs "$3" --qd "$4" --seconds "$RUNTIME" \
        --ramp "$RAMP" >"$OUT/probe-$1-$5.json"
}

if [[ " $PARTS " == *" fio "* ]]; then
    echo "== fio vs the probe's read loops on $F ($SIZE), $REPS repetitions of ${RUNTIME} s (+${RAMP} s warm-up)"
    layout
    for ((r = 1; r <= REPS; r++)); do
        for j in "${JOBS[@]}"; do
            if ((r % 2)); then run_fio $j "$r"; run_probe_io $j "$r"
            else run_probe_io $j "$r"; run_fio $j "$r"; fi
        done
        echo "   repetition $r done: $(uptime)"
    done
    for j in "${JOBS[@]}"; do
        set -- $j
        echo "-- fio job $1 ($OUT/job-$1.fio):"
        sed 's/^/   /' "$OUT/job-$1.fio"
        echo "-- probe: costlab-probe io --file $F --rw $2 --bs $3 --qd $4 --seconds $RUNTIME --ramp $RAMP"
    done
    python3 - "$OUT" "$REPS" "${JOBS[@]}" <<'EOF'
import json, statistics as st, sys
out, reps, jobs = sys.argv[1], int(sys.argv[2]), [j.split() for j in sys.argv[3:]]
med = st.median
print(f"{'job':13} {'figure':8} {'fio median':>11} {'probe median':>13} {'probe/fio':>9}  "
      f"{'paired probe/fio: median [2nd lowest, 2nd highest]':52} {'±10 %':6}")
for name, rw, bs, qd in jobs:
    f = [json.load(open(f"{out}/fio-{name}-{r}.json"))["jobs"][0]["read"] for r in range(1, reps + 1)]
    p = [json.load(open(f"{out}/probe-{name}-{r}.json")) for r in range(1, reps + 1)]
    figs = [("MB/s", [x["bw_bytes"] / 1e6 for x in f], [x["mbps"] for x in p])]
    if rw == "randread":
        figs = [("IOPS", [x["iops"] for x in f], [x["iops"] for x in p]),
                ("p50 µs", [x["clat_ns"]["percentile"]["50.000000"] / 1e3 for x in f], [x["p50_us"] for x in p]),
                ("p99 µs", [x["clat_ns"]["percentile"]["99.000000"] / 1e3 for x in f], [x["p99_us"] for x in p])]
    for fig, fv, pv in figs:
        ratio = med(pv) / med(fv)
        pairs = sorted(b / a for a, b in zip(fv, pv))
        k = 1 if len(pairs) >= 6 else 0
        paired = f"{med(pairs):.3f} [{pairs[k]:.3f}, {pairs[-1 - k]:.3f}] of {len(pairs)}"
        ok = "yes" if abs(ratio - 1) <= 0.10 else "NO"
        if "µs" in fig:
            ok = "(info)"
        print(f"{name:13} {fig:8} {med(fv):11.1f} {med(pv):13.1f} {ratio:9.3f}  {paired:52} {ok}")
print("probe/fio: ratio of the medians over the repetitions (the ±10 % test); paired: the"
      " repetitions' own ratios, whose spread is the run-to-run noise of this disk")
EOF
fi

if [[ " $PARTS " == *" default "* ]]; then
    echo "== fio vs a default probe run (the calibration file's figures) on $F"
    layout
    run_set() { for j in "${JOBS[@]}"; do run_fio $j "d$1"; done; }
    run_set 0
    for ((r = 1; r <= DEFAULT_REPS; r++)); do
        echo "   probe run $r: $(uptime)"
        "$PROBE" --file "$F" --reuse --out "$OUT/probe-default-$r.json" 2>"$OUT/probe-default-$r.txt"
        run_set "$r"
    done
    python3 - "$OUT" "$DEFAULT_REPS" "${JOBS[@]}" <<'EOF'
import json, statistics as st, sys
out, reps = sys.argv[1], int(sys.argv[2])
ran = {j.split()[0] for j in sys.argv[3:]}
med = st.median
def fio(name, key):
    v = []
    for r in range(0, reps + 1):
        x = json.load(open(f"{out}/fio-{name}-d{r}.json"))["jobs"][0]["read"]
        v.append(x["bw_bytes"] / 1e6 if key == "mbps" else x["iops"])
    return med(v)
cals = [json.load(open(f"{out}/probe-default-{r}.json")) for r in range(1, reps + 1)]
def point(c, page, qd):
    s = next(s for s in c["random_reads"] if s["page_bytes"] == page)
    return next(x for x in s["points"] if x["queue_depth"] == qd)["iops"]
rows = [("seq1m", "mbps", lambda c: c["seq_read"]["large"]["mbps"]),
        ("seq8k", "mbps", lambda c: c["seq_read"]["page"]["mbps"]),
        ("rand8k-qd1", "iops", lambda c: point(c, 8192, 1)),
        ("rand8k-qd32", "iops", lambda c: point(c, 8192, 32)),
        ("rand16k-qd1", "iops", lambda c: point(c, 16384, 1)),
        ("rand16k-qd32", "iops", lambda c: point(c, 16384, 32))]
print(f"{'job':13} {'fio median':>11}  {'probe runs: median [95 % CI]':60} {'probe/fio':>9} {'±10 %':5}")
for name, key, get in rows:
    if name not in ran:
        continue
    f = fio(name, key)
    es = [get(c) for c in cals]
    m = med([e["median"] for e in es])
    s = "; ".join(f"{e['median']:.0f} [{e['lo']:.0f}, {e['hi']:.0f}]" for e in es)
    print(f"{name:13} {f:11.1f}  {s:60} {m / f:9.3f} {'yes' if abs(m / f - 1) <= 0.1 else 'NO'}")
EOF
fi
rm -f "$F"

if [[ " $PARTS " == *" twice "* ]]; then
    echo "== two default runs in $DIR"
    for r in 1 2; do
        echo "   run $r: $(uptime)"
        "$PROBE" --dir "$DIR" --out "$OUT/run$r.json" 2>"$OUT/run$r.txt"
    done
    "$PROBE" compare "$OUT/run1.json" "$OUT/run2.json" || true
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
