#!/usr/bin/env bash
# Throughput of `qapital-tui serve` beside nginx and Python's ThreadingHTTPServer serving the same
# bytes, with wrk, on 127.0.0.1 only; prints a Markdown table (docs/performance.md).
#
#   bash bench/serve-throughput.sh [BINARY] [SECONDS]
#
# BINARY defaults to .build/release/qapital-tui (build it first: swift build -c release).
# Needs wrk and nginx (Debian: apt-get install wrk nginx-light) and python3. Every run is
# bounded (SECONDS each, default 5) and every server it starts is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/release/qapital-tui}
seconds=${2:-5}
concurrencies=(10 50 100 500)
for tool in wrk nginx python3 curl; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install wrk nginx-light curl)" >&2; exit 1; }
done
[ -x "$binary" ] || { echo "bench: no $binary (swift build -c release)" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; echo "bench: nothing on port $1" >&2; exit 1; }

# serve (its log to a file: one line a request)
serve_port=$(free_port)
"$binary" serve --port "$serve_port" 2>"$work/serve.log" &
pids+=($!)
wait_for "$serve_port"

# The same bytes, saved from serve: the goal list and a two-week activity window.
to=$(date -u +%Y-%m-%dT00:00:00)
from=$(date -u -d '14 days ago' +%Y-%m-%dT00:00:00)
activities="/activities?from=${from}%2B00:00&to=${to}%2B00:00"
mkdir -p "$work/files"
curl -sf -o "$work/files/savingsgoals" "http://127.0.0.1:$serve_port/savingsgoals"
curl -sf -o "$work/files/activities" "http://127.0.0.1:$serve_port$activities"
chmod -R a+rX "$work"

python_port=$(free_port)
python3 bench/static_server.py "$work/files" "$python_port" &
pids+=($!)
wait_for "$python_port"

nginx_port=$(free_port)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
user root;
events { worker_connections 2048; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/files;
        location / { default_type "application/json; charset=utf-8"; try_files \$uri =404; }
    }
}
CONF
nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
wait_for "$nginx_port"

# The bytes must be the same everywhere.
for port in "$python_port" "$nginx_port"; do
    cmp -s <(curl -sf "http://127.0.0.1:$port/savingsgoals") "$work/files/savingsgoals"
    cmp -s <(curl -sf "http://127.0.0.1:$port$activities") "$work/files/activities"
done

rate() {  # port path connections -> "req/s p99"
    local out
    out=$(wrk -t2 -c"$3" -d"${seconds}s" --latency "http://127.0.0.1:$1$2")
    local rps p99 errors
    rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    errors=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
    [ -n "$errors" ] && echo "bench: $1$2 c=$3: $errors" >&2
    echo "$rps $p99"
}

echo "| path | connections | serve req/s (p99) | Python req/s (p99) | nginx req/s (p99) | serve / Python | serve / nginx |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for path in /savingsgoals "$activities"; do
    label=${path%%\?*}
    for c in "${concurrencies[@]}"; do
        read -r s sp <<<"$(rate "$serve_port" "$path" "$c")"
        read -r p pp <<<"$(rate "$python_port" "$path" "$c")"
        read -r n np <<<"$(rate "$nginx_port" "$path" "$c")"
        printf "| %s | %s | %s (%s) | %s (%s) | %s (%s) | %.2f | %.2f |\n" "$label" "$c" "$s" "$sp" "$p" "$pp" "$n" "$np" \
            "$(awk "BEGIN {print $s / $p}")" "$(awk "BEGIN {print $s / $n}")"
    done
done
echo
echo "sizes: /savingsgoals $(wc -c <"$work/files/savingsgoals") B, /activities $(wc -c <"$work/files/activities") B; ${seconds} s a run, wrk -t2"
