# Summarises the zero pass of bench/router-overhead.sh. Input lines (tab separated):
#   client connections mode setup round requests req_per_s p50_ms p99_ms errors proxy_cpu_ms
# (requests: every request of the run, for CPU per request; latencies of the whole answer).
# Prints one Markdown row per cell (client, connections, mode): medians over rounds per setup, and
# the Tandem / nginx throughput ratio, the p50 added over direct and the Tandem / nginx CPU ratio
# as medians of per-round (paired, same round) values; then Tandem's CPU per request
# non-streaming / streaming.
function median(arr, n,    i, j, t) {
  for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
  return (n % 2) ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
# Median over rounds of setup s's metric k in cell c.
function med(c, s, k,    m, r) { m = 0; for (r in rounds) if ((c, s, r, k) in v) a[++m] = v[c, s, r, k]; return m ? median(a, m) : "" }
# Median over rounds of s's metric k minus (op "-") or over (op "/") base's, same round.
function paired(c, s, base, k, op,    m, r, x, y) {
  m = 0
  for (r in rounds) if ((c, s, r, k) in v && (c, base, r, k) in v) {
    x = v[c, s, r, k]; y = v[c, base, r, k]
    if (op == "-") a[++m] = x - y; else if (y > 0) a[++m] = x / y
  }
  return m ? median(a, m) : ""
}
function f(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
BEGIN { FS = "\t" }
{
  c = $1 SUBSEP $2 SUBSEP $3
  if (!(c in seen)) { seen[c] = 1; cells[++nc] = c }
  rounds[$5] = 1
  v[c, $4, $5, "rps"] = $7; v[c, $4, $5, "p50"] = $8; v[c, $4, $5, "p99"] = $9
  if ($4 != "direct" && $6 > 0) v[c, $4, $5, "cpu"] = $11 / $6
  err[c] += $10
}
END {
  print "| client | conns | mode | req/s direct | req/s nginx | req/s Tandem | **Tandem / nginx** | p50 direct | p50 added nginx | **p50 added Tandem** | p99 direct / nginx / Tandem | CPU/req nginx | CPU/req Tandem | **CPU Tandem / nginx** | errors |"
  print "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= nc; i++) {
    c = cells[i]; split(c, k, SUBSEP)
    printf "| %s | %s | %s | %s | %s | %s | **%s** | %s | %s | **%s** | %s / %s / %s | %s | %s | **%s** | %d |\n", k[1], k[2], k[3],
      f(med(c, "direct", "rps"), "%.0f"), f(med(c, "nginx", "rps"), "%.0f"), f(med(c, "tandem", "rps"), "%.0f"),
      f(paired(c, "tandem", "nginx", "rps", "/"), "%.3f"),
      f(med(c, "direct", "p50"), "%.3f ms"), f(paired(c, "nginx", "direct", "p50", "-"), "%+.3f ms"),
      f(paired(c, "tandem", "direct", "p50", "-"), "%+.3f ms"),
      f(med(c, "direct", "p99"), "%.2f"), f(med(c, "nginx", "p99"), "%.2f"), f(med(c, "tandem", "p99"), "%.2f"),
      f(med(c, "nginx", "cpu"), "%.3f ms"), f(med(c, "tandem", "cpu"), "%.3f ms"),
      f(paired(c, "tandem", "nginx", "cpu", "/"), "%.2f"), err[c]
  }
  print ""
  print "(medians over rounds; ratios and added latency: medians of per-round paired values; latency of the"
  print "whole answer in ms; CPU per request: user + system time of the proxy's processes over the run / its requests)"
  for (i = 1; i <= nc; i++) {
    c = cells[i]; split(c, k, SUBSEP)
    if (k[3] != "plain") continue
    s = k[1] SUBSEP k[2] SUBSEP "stream"
    if (!(s in seen)) continue
    x = med(c, "tandem", "cpu"); y = med(s, "tandem", "cpu"); xn = med(c, "nginx", "cpu"); yn = med(s, "nginx", "cpu")
    printf "CPU per request non-streaming / streaming, %s %s connection(s): Tandem %s, nginx %s\n", k[1], k[2],
      (x != "" && y > 0) ? sprintf("%.2f", x / y) : "-", (xn != "" && yn > 0) ? sprintf("%.2f", xn / yn) : "-"
  }
}
