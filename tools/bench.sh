#!/usr/bin/env bash
# Performance benchmarks of the provider.
#
#   tools/bench.sh client      # BenchmarkList(Files): engine vs lower bound vs sequential pagers; files in range windows
#   tools/bench.sh polite      # BenchmarkListSmallStore: stores of 20 and 25 rps, one and three listings
#                              # at once, lenient and strict stores: 429 share and wall time vs ideal
#   tools/bench.sh far         # BenchmarkFarStore: 20,000 orders 150 ms away at stores of 100 and
#                              # 25 rps and no limit, requests in flight growing and held at 8,
#                              # side by side; 100,000 at 100 rps (a million projected from it)
#   tools/bench.sh provider    # in-process ReadDataSource, state building, framework overhead
#   tools/bench.sh cache       # a plan's read in full and through cache_dir, side by side, after
#                              # writes; reads of one listing against one; 4,000 ids in one in()
#   tools/bench.sh e2e [N...]  # real `terraform plan` and `apply` (default N: 10000 60000);
#                              # INCLUDE_RECORDS=false measures the ids-only mode
#   tools/bench.sh million     # e2e of 1,000,000 orders, include_records = false, the
#                              # emulator at zero latency (several minutes; not in make test)
#   tools/bench.sh floor [N...] # `terraform plan` on this provider and on the floor provider
#                              # (tools/floorprovider), side by side (default N: 60000 100000)
#   tools/bench.sh feed [N...] # N account ids fed into terraform_data in each HCL form a user
#                              # writes, from commerce_accounts and from a literal list (the floor:
#                              # Terraform alone); plan, apply, plan again (default N: 1000 5000
#                              # 20000). FEED_FORMS, FEED_SOURCES pick; FEED_APPLY=0 plans only;
#                              # a step over FEED_CAP seconds (900) stops that form for larger N;
#                              # FEED_BACKEND=http keeps the state in an http backend
#                              # (tools/stateserver) instead of the local file; FEED_CLI names
#                              # the CLI (tools/tf-cli.sh's names, default terraform)
#   tools/bench.sh all
#
# e2e builds the provider and the emulator, starts the emulator on 127.0.0.1
# with -latency 20ms, writes its own Terraform CLI configuration with
# dev_overrides in a temp dir (TF_CLI_CONFIG_FILE points at it; ~/.terraformrc
# is never touched), and for each N runs:
#   - terraform plan: wall time, peak RSS (VmHWM) and CPU time of the
#     provider process and of terraform itself, polled from /proc;
#   - terraform plan with TF_LOG_CORE=DEBUG TF_LOG_PROVIDER=TRACE: where the
#     time goes (Read called, listing finished, Read returned, framework
#     response sent, plan completed);
#   - terraform apply -auto-approve with a local state: state bytes per record.
# Results go to stdout and to $BENCH_OUT (default a temp dir, kept).
#
# floor runs the same main.tf against two providers, alternately, PLAN_RUNS
# times each (default 3), with the emulator at zero latency (FLOOR_LATENCY):
# this provider, and the floor provider, which serves the same schema and
# answers the read with the state this provider produced for the same
# records, recorded beforehand. The floor's plan time is Terraform's own
# for that state; the ratio of the two is what the provider adds.
#
# The machine is shared: the load average is printed next to each figure,
# since wall times on a loaded 2-core machine stretch with it.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BENCHTIME="${BENCHTIME:-3x}"
LATENCY="${LATENCY:-20ms}"

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

run_client() {
  echo "== BenchmarkList (load $(loadavg))"
  go test ./internal/listing -run '^$' -bench '^BenchmarkList(Files)?$' -benchtime "$BENCHTIME" -timeout 60m
}

run_polite() {
  echo "== BenchmarkListSmallStore (load $(loadavg))"
  go test ./internal/client -run '^$' -bench '^BenchmarkListSmallStore$' -benchtime "$BENCHTIME" -timeout 60m -v 2>&1 | grep -v '^=== '
  echo "== BenchmarkListingStart, ten runs (load $(loadavg))"
  go test ./internal/client -run '^$' -bench '^BenchmarkListingStart$' -benchtime 10x -timeout 60m -v 2>&1 | grep -v '^=== '
}

run_provider() {
  echo "== provider benchmarks (load $(loadavg))"
  go test ./internal/provider -run '^$' -bench '^(BenchmarkReadOrders|BenchmarkOrdersState|BenchmarkFrameworkOverhead)$' \
    -benchtime "${PROVIDER_BENCHTIME:-2x}" -timeout 60m
}

run_far() {
  echo "== BenchmarkFarStore (load $(loadavg))"
  go test ./internal/client -run '^$' -bench '^BenchmarkFarStore$' -benchtime "${FAR_BENCHTIME:-3x}" -timeout 60m
}

run_cache() {
  echo "== BenchmarkPlanThroughCache, BenchmarkReadsOfOneListing, BenchmarkOneReadAlone, BenchmarkLongIn (load $(loadavg))"
  go test ./internal/provider -run '^$' -bench '^(BenchmarkPlanThroughCache|BenchmarkReadsOfOneListing|BenchmarkOneReadAlone|BenchmarkLongIn)$' \
    -benchtime "${PROVIDER_BENCHTIME:-3x}" -timeout 60m
}

# ---------------------------------------------------------------- e2e

work=""
emulator_pid=""
cleanup() {
  local pid
  for pid in "$emulator_pid" "${stateserver_pid:-}"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  done
}

# now_ms prints the wall clock in milliseconds.
now_ms() { date +%s%3N; }

# proc_kb PID FIELD prints a /proc/PID/status field in kB (empty if gone).
proc_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || true; }

# proc_cpu_ms PID prints user+system CPU time of PID in ms (empty if gone).
proc_cpu_ms() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  # Fields after the command name, which is in parentheses.
  stat="${stat##*) }"
  # shellcheck disable=SC2086 # split the fields on purpose
  set -- $stat
  echo $(( (${12} + ${13}) * 1000 / $(getconf CLK_TCK) ))
}

# monitor CMD...: runs CMD, polling every 20 ms the peak RSS and CPU time of
# the provider process (found by its unique path) and of CMD itself. Sets
# M_WALL_MS, M_RC, M_PROV_HWM_KB, M_PROV_CPU_MS, M_TF_HWM_KB, M_TF_CPU_MS.
monitor() {
  local start end pid p hwm cpu
  M_PROV_HWM_KB=0 M_PROV_CPU_MS=0 M_TF_HWM_KB=0 M_TF_CPU_MS=0
  declare -A prov_hwm=() prov_cpu=()
  start="$(now_ms)"
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    hwm="$(proc_kb "$pid" VmHWM)"; [ -n "$hwm" ] && [ "$hwm" -gt "$M_TF_HWM_KB" ] && M_TF_HWM_KB="$hwm"
    cpu="$(proc_cpu_ms "$pid")"; [ -n "$cpu" ] && M_TF_CPU_MS="$cpu"
    for p in $(pgrep -f "^${PROVIDER_BIN:-$work/bin/terraform-provider-commerce}" || true); do
      hwm="$(proc_kb "$p" VmHWM)"; [ -n "$hwm" ] && prov_hwm[$p]="$hwm"
      cpu="$(proc_cpu_ms "$p")"; [ -n "$cpu" ] && prov_cpu[$p]="$cpu"
    done
    sleep 0.02
  done
  set +e
  wait "$pid"
  M_RC=$?
  set -e
  end="$(now_ms)"
  M_WALL_MS=$((end - start))
  # Terraform starts the provider more than once (validate, plan); report
  # the largest instance and the sum of CPU.
  for p in "${!prov_hwm[@]}"; do
    [ "${prov_hwm[$p]}" -gt "$M_PROV_HWM_KB" ] && M_PROV_HWM_KB="${prov_hwm[$p]}"
  done
  for p in "${!prov_cpu[@]}"; do
    M_PROV_CPU_MS=$((M_PROV_CPU_MS + prov_cpu[$p]))
  done
  M_PROV_INSTANCES="${#prov_hwm[@]}"
}

# ts_ms LINE prints the TF_LOG timestamp of LINE in ms since the epoch.
ts_ms() { date -d "$(echo "$1" | cut -d' ' -f1)" +%s%3N; }

# mark LOG PATTERN: the TF_LOG timestamp (ms since the epoch) of the first
# line matching PATTERN, or of the last one with -l.
mark() {
  local l
  if [ "$1" = -l ]; then shift; l="$(grep -E "$2" "$1" | tail -1 || true)"; else l="$(grep -m1 -E "$2" "$1" || true)"; fi
  [ -n "$l" ] && ts_ms "$l" || echo ""
}

# phases LOG START_MS: where a plan with TF_LOG_CORE=DEBUG and
# TF_LOG_PROVIDER=TRACE spent its time, from the log's own markers.
phases() {
  local log="$1" t0="$2" t1="$3" read_start token listed read_end fw_end core_end dur requests
  read_start="$(mark "$log" 'Received request:.*tf_rpc=ReadDataSource|tf_rpc=ReadDataSource.*Received request:|Received request: .*ReadDataSource')"
  token="$(mark "$log" 'obtained access token')"
  listed="$(mark "$log" 'listing finished')"
  dur="$(grep -m1 'listing finished' "$log" | grep -oE 'duration_ms=[0-9]+' | cut -d= -f2 || true)"
  requests="$(grep -m1 'read finished' "$log" | grep -oE ' requests=[0-9]+' | cut -d= -f2 || true)"
  read_end="$(mark "$log" 'state encoded')"
  fw_end="$(mark "$log" 'Received downstream response.*tf_rpc=ReadDataSource|tf_rpc=ReadDataSource.*Received downstream response|Received downstream response: .*ReadDataSource')"
  [ -n "$fw_end" ] || fw_end="$(mark -l "$log" 'Received downstream response')"
  core_end="$(mark -l "$log" 'plan operation completed')"
  echo "   phases of that plan (ms):"
  echo "     terraform start -> provider read requested      $((read_start - t0))"
  echo "     read requested -> listing finished (listing)    $((listed - read_start))   (engine's own duration_ms=$dur; the read sent $requests requests; token obtained at +$((token - read_start)))"
  echo "     listing finished -> state encoded (msgpack)      $((read_end - listed))"
  echo "     state encoded -> response sent                   $((fw_end - read_end))"
  echo "     response -> plan operation completed (core)      $((core_end - fw_end))"
  echo "     plan operation completed -> terraform exited     $((t1 - core_end))"
}

# start_emulator N LATENCY LOG: starts the emulator with N orders and sets
# emulator_pid and emulator_url.
start_emulator() {
  rm -f "$work/url"
  "$work/bin/commerce-emulator" -addr 127.0.0.1:0 -orders "$1" -files 1 -accounts 1 -latency "$2" \
    -ready-file "$work/url" >"$3" 2>&1 &
  emulator_pid=$!
  for _ in $(seq 200); do [ -s "$work/url" ] && break; sleep 0.05; done
  [ -s "$work/url" ] || { echo "the emulator did not start:"; cat "$3"; exit 1; }
  emulator_url="$(cat "$work/url")"
}

# write_main_tf DIR URL: the benchmark's configuration, one commerce_orders
# listing every order.
write_main_tf() {
  cat >"$1/main.tf" <<TF
terraform {
  required_providers {
    commerce = { source = "commerce-tf/commerce" }
  }
}

provider "commerce" {
  base_url      = "$2"
  client_id     = "emulator-client-id"
  client_secret = "emulator-client-secret"
}

data "commerce_orders" "all" {
  include_records = ${INCLUDE_RECORDS:-true}
}

output "n" {
  value = length(data.commerce_orders.all.ids)
}
TF
}

# cli_config FILE DIR: a Terraform CLI configuration with dev_overrides
# pointing at the provider binary in DIR.
cli_config() {
  cat >"$1" <<RC
provider_installation {
  dev_overrides {
    "commerce-tf/commerce" = "$2"
  }
  direct {}
}
RC
}

run_e2e() {
  local sizes=("$@")
  [ "${#sizes[@]}" -gt 0 ] || sizes=(10000 60000)
  local tf
  tf="$(tools/tf-cli.sh terraform)"
  work="$(mktemp -d /tmp/commerce-bench.XXXXXX)"
  BENCH_OUT="${BENCH_OUT:-$work}"
  trap cleanup EXIT INT TERM
  echo "== e2e: building the provider and the emulator (work dir $work)"
  go build -o "$work/bin/terraform-provider-commerce" .
  go build -o "$work/bin/commerce-emulator" ./cmd/commerce-emulator
  cli_config "$work/terraformrc" "$work/bin"
  export TF_CLI_CONFIG_FILE="$work/terraformrc" TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1
  unset TF_LOG TF_LOG_PATH TF_LOG_PROVIDER TF_LOG_CORE

  for n in "${sizes[@]}"; do
    local dir="$work/n$n"
    mkdir -p "$dir"
    start_emulator "$n" "$LATENCY" "$dir/emulator.log"
    write_main_tf "$dir" "$emulator_url"
    echo "== e2e N=$n (emulator -latency $LATENCY)"
    local run
    for run in $(seq "${PLAN_RUNS:-2}"); do
      echo "   load $(loadavg)"
      monitor "$tf" -chdir="$dir" plan -no-color -compact-warnings -input=false >"$dir/plan.log" 2>&1
      [ "$M_RC" -eq 0 ] || { echo "plan failed:"; tail -30 "$dir/plan.log"; exit 1; }
      grep -q "n = $n" "$dir/plan.log" || { echo "plan output lacks n = $n:"; tail -20 "$dir/plan.log"; exit 1; }
      printf '   plan %d: wall %6d ms | provider peak RSS %5d MB, CPU %6d ms (%d processes) | terraform peak RSS %5d MB, CPU %6d ms\n' \
        "$run" "$M_WALL_MS" $((M_PROV_HWM_KB / 1024)) "$M_PROV_CPU_MS" "$M_PROV_INSTANCES" $((M_TF_HWM_KB / 1024)) "$M_TF_CPU_MS"
      echo "plan N=$n run=$run wall_ms=$M_WALL_MS provider_hwm_kb=$M_PROV_HWM_KB provider_cpu_ms=$M_PROV_CPU_MS terraform_hwm_kb=$M_TF_HWM_KB terraform_cpu_ms=$M_TF_CPU_MS load=\"$(loadavg)\"" >>"$BENCH_OUT/results.txt"
    done

    local t0
    t0="$(now_ms)"
    TF_LOG_CORE=DEBUG TF_LOG_PROVIDER=TRACE TF_LOG_PATH="$dir/plan-debug.log" "$tf" -chdir="$dir" plan -no-color -input=false >/dev/null 2>&1
    local t1
    t1="$(now_ms)"
    echo "   plan with TF_LOG_CORE=DEBUG TF_LOG_PROVIDER=TRACE: wall $((t1 - t0)) ms"
    phases "$dir/plan-debug.log" "$t0" "$t1"

    monitor "$tf" -chdir="$dir" apply -no-color -auto-approve -input=false -state="$dir/terraform.tfstate" >"$dir/apply.log" 2>&1
    [ "$M_RC" -eq 0 ] || { echo "apply failed:"; tail -30 "$dir/apply.log"; exit 1; }
    local size
    size="$(stat -c %s "$dir/terraform.tfstate")"
    printf '   apply: wall %6d ms | provider peak RSS %5d MB | terraform peak RSS %5d MB | state %d bytes = %d bytes/record\n' \
      "$M_WALL_MS" $((M_PROV_HWM_KB / 1024)) $((M_TF_HWM_KB / 1024)) "$size" $((size / n))
    echo "apply N=$n wall_ms=$M_WALL_MS provider_hwm_kb=$M_PROV_HWM_KB terraform_hwm_kb=$M_TF_HWM_KB state_bytes=$size" >>"$BENCH_OUT/results.txt"

    kill "$emulator_pid" 2>/dev/null || true
    wait "$emulator_pid" 2>/dev/null || true
    emulator_pid=""
  done
  echo "== e2e logs and results in $work"
}

run_floor() {
  local sizes=("$@")
  [ "${#sizes[@]}" -gt 0 ] || sizes=(60000 100000)
  local tf latency="${FLOOR_LATENCY:-0s}" runs="${PLAN_RUNS:-3}"
  tf="$(tools/tf-cli.sh terraform)"
  work="$(mktemp -d /tmp/commerce-floor.XXXXXX)"
  BENCH_OUT="${BENCH_OUT:-$work}"
  trap cleanup EXIT INT TERM
  echo "== floor: building the provider, the floor provider and the emulator (work dir $work)"
  go build -o "$work/bin/terraform-provider-commerce" .
  go build -o "$work/floor/terraform-provider-commerce" ./tools/floorprovider
  go build -o "$work/bin/commerce-emulator" ./cmd/commerce-emulator
  cli_config "$work/rc-provider" "$work/bin"
  cli_config "$work/rc-floor" "$work/floor"
  export TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1
  unset TF_LOG TF_LOG_PATH TF_LOG_PROVIDER TF_LOG_CORE

  local n
  for n in "${sizes[@]}"; do
    local dir="$work/n$n"
    mkdir -p "$dir"
    start_emulator "$n" "$latency" "$dir/emulator.log"
    write_main_tf "$dir" "$emulator_url"
    "$work/floor/terraform-provider-commerce" record -base-url "$emulator_url" -out "$dir/state.msgpack" \
      -include-records="${INCLUDE_RECORDS:-true}"
    echo "== floor N=$n (emulator -latency $latency, recorded state $(stat -c %s "$dir/state.msgpack") bytes)"
    local run which walls_provider=() walls_floor=()
    for run in $(seq "$runs"); do
      for which in floor provider; do
        echo "   load $(loadavg)"
        PROVIDER_BIN="$work/$([ "$which" = floor ] && echo floor || echo bin)/terraform-provider-commerce" \
          TF_CLI_CONFIG_FILE="$work/rc-$which" COMMERCE_FLOOR_STATE="$dir/state.msgpack" \
          monitor "$tf" -chdir="$dir" plan -no-color -compact-warnings -input=false >"$dir/plan-$which.log" 2>&1
        [ "$M_RC" -eq 0 ] || { echo "plan with the $which failed:"; tail -30 "$dir/plan-$which.log"; exit 1; }
        grep -q "n = $n" "$dir/plan-$which.log" || { echo "plan output lacks n = $n:"; tail -20 "$dir/plan-$which.log"; exit 1; }
        printf '   %-8s plan %d: wall %6d ms | provider peak RSS %5d MB, CPU %6d ms | terraform peak RSS %5d MB, CPU %6d ms\n' \
          "$which" "$run" "$M_WALL_MS" $((M_PROV_HWM_KB / 1024)) "$M_PROV_CPU_MS" $((M_TF_HWM_KB / 1024)) "$M_TF_CPU_MS"
        echo "floor N=$n which=$which run=$run wall_ms=$M_WALL_MS provider_hwm_kb=$M_PROV_HWM_KB terraform_hwm_kb=$M_TF_HWM_KB load=\"$(loadavg)\"" >>"$BENCH_OUT/results.txt"
        if [ "$which" = floor ]; then walls_floor+=("$M_WALL_MS"); else walls_provider+=("$M_WALL_MS"); fi
      done
    done
    # Medians, and the ratio of each run to the floor run just before it.
    local median_p median_f
    median_p="$(printf '%s\n' "${walls_provider[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    median_f="$(printf '%s\n' "${walls_floor[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    local ratios="" i
    for i in "${!walls_provider[@]}"; do
      ratios+="$(awk -v p="${walls_provider[$i]}" -v f="${walls_floor[$i]}" 'BEGIN {printf "%.2f ", p / f}')"
    done
    echo "   N=$n: provider median $median_p ms, floor median $median_f ms, ratio of medians $(awk -v p="$median_p" -v f="$median_f" 'BEGIN {printf "%.2f", p / f}') (per run: $ratios)"
    kill "$emulator_pid" 2>/dev/null || true
    wait "$emulator_pid" 2>/dev/null || true
    emulator_pid=""
  done
  echo "== floor logs and results in $work"
}

# ---------------------------------------------------------------- feed

# feed_ids N: N random version-4 UUIDs as an HCL list, one per line: the
# floor's ids, shaped as the service's.
feed_ids() {
  awk -v n="$1" 'BEGIN {
    srand(1)
    for (i = 0; i < n; i++) {
      s = ""
      for (j = 0; j < 32; j++) s = s sprintf("%x", int(rand() * 16))
      printf "    \"%s-%s-4%s-a%s-%s\",\n", substr(s, 1, 8), substr(s, 9, 4), substr(s, 14, 3), substr(s, 18, 3), substr(s, 21, 12)
    }
  }'
}

# write_feed_tf DIR FORM SOURCE URL N: a configuration that feeds every
# account id into terraform_data in FORM: one instance per id with
# for_each = toset(ids), an inline { for id in ids : id => id }, that map
# in a local, or module instances by the id's last two characters
# (modules); or one instance holding the list (one), or holding it as one
# JSON string (json). The ids come from
# commerce_accounts (SOURCE provider) or from a literal list of N (SOURCE
# floor: Terraform alone).
write_feed_tf() {
  local dir="$1" form="$2" source="$3" url="$4" n="$5" ids
  mkdir -p "$dir/group"
  if [ "$source" = provider ]; then
    ids="data.commerce_accounts.all.ids"
    cat >"$dir/source.tf" <<TF
terraform {
  required_providers {
    commerce = { source = "commerce-tf/commerce" }
  }
}

provider "commerce" {
  base_url      = "$url"
  client_id     = "emulator-client-id"
  client_secret = "emulator-client-secret"
}

data "commerce_accounts" "all" {
  include_records = false
}
TF
  else
    ids="local.ids"
    { echo "locals {"; echo "  ids = ["; feed_ids "$n"; echo "  ]"; echo "}"; } >"$dir/source.tf"
  fi
  cat >"$dir/group/main.tf" <<'TF'
variable "ids" {
  type = list(string)
}

resource "terraform_data" "each" {
  for_each = toset(var.ids)
  input    = each.key
}
TF
  case "$form" in
    toset) printf 'resource "terraform_data" "each" {\n  for_each = toset(%s)\n  input    = each.key\n}\n' "$ids" ;;
    for) printf 'resource "terraform_data" "each" {\n  for_each = { for id in %s : id => id }\n  input    = each.key\n}\n' "$ids" ;;
    local) printf 'locals {\n  by_id = { for id in %s : id => id }\n}\n\nresource "terraform_data" "each" {\n  for_each = local.by_id\n  input    = each.key\n}\n' "$ids" ;;
    modules) printf 'locals {\n  groups = { for id in %s : substr(id, -2, 2) => id... }\n}\n\nmodule "group" {\n  source   = "./group"\n  for_each = local.groups\n  ids      = each.value\n}\n' "$ids" ;;
    one) printf 'resource "terraform_data" "every" {\n  input = %s\n}\n' "$ids" ;;
    json) printf 'resource "terraform_data" "every" {\n  input = jsonencode(%s)\n}\n' "$ids" ;;
    *) echo "unknown form $form" >&2; exit 2 ;;
  esac >"$dir/main.tf"
}

# feed_step DIR LABEL CMD...: runs one terraform command under the cap,
# prints and records its wall time; returns 1 when it hit the cap.
feed_step() {
  local dir="$1" label="$2"
  shift 2
  # The wall time of the command, under timeout(1): the peak memory of
  # such plans is the e2e mode's subject.
  monitor timeout "${FEED_CAP:-900}" "$@" >"$dir/$label.log" 2>&1
  if [ "$M_RC" -eq 124 ]; then
    printf '     %-12s over %d s (stopped)\n' "$label" "${FEED_CAP:-900}"
    echo "feed $FEED_KEY step=$label wall_ms=over_${FEED_CAP:-900}s load=\"$(loadavg)\"" >>"$BENCH_OUT/results.txt"
    return 1
  fi
  [ "$M_RC" -eq 0 ] || { echo "$label failed:"; tail -30 "$dir/$label.log"; exit 1; }
  printf '     %-12s %8d ms\n' "$label" "$M_WALL_MS"
  echo "feed $FEED_KEY step=$label wall_ms=$M_WALL_MS load=\"$(loadavg)\"" >>"$BENCH_OUT/results.txt"
}

run_feed() {
  local sizes=("$@")
  [ "${#sizes[@]}" -gt 0 ] || sizes=(1000 5000 20000)
  local tf forms sources
  read -r -a forms <<<"${FEED_FORMS:-one modules local for toset}"
  read -r -a sources <<<"${FEED_SOURCES:-floor provider}"
  local backend="${FEED_BACKEND:-local}" states=""
  case "$backend" in local | http) ;; *) echo "FEED_BACKEND is local or http, not $backend" >&2; exit 2 ;; esac
  tf="$(tools/tf-cli.sh "${FEED_CLI:-terraform}")"
  work="$(mktemp -d /tmp/commerce-feed.XXXXXX)"
  BENCH_OUT="${BENCH_OUT:-$work}"
  trap cleanup EXIT INT TERM
  echo "== feed: $("$tf" version 2>/dev/null | grep -m1 -E '^(Terraform|OpenTofu) v'), state $backend, building the provider and the emulator (work dir $work)"
  go build -o "$work/bin/terraform-provider-commerce" .
  go build -o "$work/bin/commerce-emulator" ./cmd/commerce-emulator
  if [ "$backend" = http ]; then
    # A backend needs terraform init, which dev_overrides cannot serve: the
    # provider comes from a filesystem mirror of this build instead.
    tools/local-mirror.sh "$work/mirror" >"$work/mirror.log"
    export TF_CLI_CONFIG_FILE="$work/mirror/cli.tfrc"
    go build -o "$work/bin/stateserver" ./tools/stateserver
    "$work/bin/stateserver" -ready-file "$work/states" >"$work/stateserver.log" 2>&1 &
    stateserver_pid=$!
    for _ in $(seq 200); do [ -s "$work/states" ] && break; sleep 0.05; done
    [ -s "$work/states" ] || { echo "the state server did not start:"; cat "$work/stateserver.log"; exit 1; }
    states="$(cat "$work/states")"
  else
    cli_config "$work/terraformrc" "$work/bin"
    export TF_CLI_CONFIG_FILE="$work/terraformrc"
  fi
  export TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1
  unset TF_LOG TF_LOG_PATH TF_LOG_PROVIDER TF_LOG_CORE
  declare -A capped=()
  local n form source
  for n in "${sizes[@]}"; do
    rm -f "$work/url"
    "$work/bin/commerce-emulator" -addr 127.0.0.1:0 -accounts "$n" -orders 1 -files 1 -latency 0s \
      -ready-file "$work/url" >"$work/emulator-$n.log" 2>&1 &
    emulator_pid=$!
    for _ in $(seq 200); do [ -s "$work/url" ] && break; sleep 0.05; done
    [ -s "$work/url" ] || { echo "the emulator did not start:"; cat "$work/emulator-$n.log"; exit 1; }
    for form in "${forms[@]}"; do
      for source in "${sources[@]}"; do
        FEED_KEY="N=$n form=$form source=$source"
        [ "$backend" = local ] || FEED_KEY="$FEED_KEY backend=$backend"
        echo "== feed $FEED_KEY (load $(loadavg))"
        if [ -n "${capped[$form-$source]:-}" ]; then
          echo "     skipped: over ${FEED_CAP:-900} s at a smaller N"
          continue
        fi
        local dir="$work/n$n-$form-$source"
        write_feed_tf "$dir" "$form" "$source" "$(cat "$work/url")" "$n"
        if [ "$backend" = http ]; then
          printf 'terraform {\n  backend "http" {}\n}\n' >"$dir/backend.tf"
          "$tf" -chdir="$dir" init -no-color -input=false -backend-config="address=$states/n$n-$form-$source" >"$dir/init.log" 2>&1 ||
            { cat "$dir/init.log"; exit 1; }
        elif [ "$form" = modules ]; then
          # Local modules need installing; `get` does only that (init would
          # also look up the dev_overrides provider in the registry). The
          # builtin terraform_data needs nothing.
          "$tf" -chdir="$dir" get -no-color >"$dir/get.log" 2>&1 || { cat "$dir/get.log"; exit 1; }
        fi
        feed_step "$dir" plan "$tf" -chdir="$dir" plan -no-color -input=false -compact-warnings || { capped[$form-$source]=1; continue; }
        local adds="$n"
        case "$form" in one | json) adds=1 ;; esac
        grep -q "Plan: $adds to add" "$dir/plan.log" || { echo "the plan does not add $adds:"; tail -20 "$dir/plan.log"; exit 1; }
        [ "${FEED_APPLY:-1}" = 1 ] || continue
        feed_step "$dir" apply "$tf" -chdir="$dir" apply -no-color -input=false -auto-approve -compact-warnings || { capped[$form-$source]=1; continue; }
        feed_step "$dir" plan-again "$tf" -chdir="$dir" plan -no-color -input=false -compact-warnings -detailed-exitcode || { capped[$form-$source]=1; continue; }
      done
    done
    kill "$emulator_pid" 2>/dev/null || true
    wait "$emulator_pid" 2>/dev/null || true
    emulator_pid=""
  done
  echo "== feed logs and results in $work"
}

cmd="${1:-all}"
shift || true
case "$cmd" in
  client) run_client ;;
  polite) run_polite ;;
  far) run_far ;;
  provider) run_provider ;;
  cache) run_cache ;;
  e2e) run_e2e "$@" ;;
  million) LATENCY=0s INCLUDE_RECORDS=false run_e2e 1000000 ;;
  floor) run_floor "$@" ;;
  feed) run_feed "$@" ;;
  all) run_client; run_polite; run_far; run_provider; run_cache; run_e2e "$@" ;;
  *) echo "usage: $0 client|polite|far|provider|cache|e2e [N...]|million|floor [N...]|feed [N...]|all" >&2; exit 2 ;;
esac
