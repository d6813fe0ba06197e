# Summarises the zero pass of bench/router-overhead.sh. Input lines (tab separated):
#   client connections mode setup round requests req_per_s p50_ms p99_ms errors proxy_cpu_ms
#   [proxy_sys_ms]
# (requests: every request of the run, for CPU per request; latencies of the whole answer).
# Prints one Markdown row per cell (client, connections, mode) and setup: medians over rounds, and
# the throughput and CPU ratios to nginx and the p50 added over direct as medians of per-round
# (paired, same round) values; then each proxy's CPU per request non-streaming / streaming, and
# disaggregated mode ("disagg") against round-robin ("tandem") where both ran, and where the runs
# have proxy_sys_ms, each proxy's CPU per request split into user and system (kernel) time.
# -v setups="direct nginx tandem" gives the setups and their order.
function median(arr, n,    i, j, t) {
  for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
  return (n % 2) ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
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
BEGIN { FS = "\t"; if (setups == "") setups = "direct nginx tandem"; ns = split(setups, order, " ") }
{
  c = $1 SUBSEP $2 SUBSEP $3
  if (!(c in seen)) { seen[c] = 1; cells[++nc] = c }
  rounds[$5] = 1
  v[c, $4, $5, "rps"] = $7; v[c, $4, $5, "p50"] = $8; v[c, $4, $5, "p99"] = $9
  if ($4 != "direct" && $6 > 0) v[c, $4, $5, "cpu"] = $11 / $6
  if ($4 != "direct" && $6 > 0 && NF >= 12) v[c, $4, $5, "sys"] = $12 / $6
  err[c, $4] += $10
}
END {
  print "| client | conns | mode | setup | req/s | vs nginx | p50 ms | p50 added | p99 ms | CPU/req ms | CPU vs nginx | errors |"
  print "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= nc; i++) {
    c = cells[i]; split(c, k, SUBSEP)
    for (j = 1; j <= ns; j++) {
      s = order[j]
      if (med(c, s, "rps") == "") continue
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", k[1], k[2], k[3], s,
        f(med(c, s, "rps"), "%.0f"), s == "nginx" ? "1" : f(paired(c, s, "nginx", "rps", "/"), "%.3f"),
        f(med(c, s, "p50"), "%.3f"), s == "direct" ? "" : f(paired(c, s, "direct", "p50", "-"), "%+.3f"),
        f(med(c, s, "p99"), "%.2f"), f(med(c, s, "cpu"), "%.3f"),
        s == "direct" ? "" : s == "nginx" ? "1" : f(paired(c, s, "nginx", "cpu", "/"), "%.2f"), err[c, s]
    }
  }
  print ""
  print "(medians over rounds; \"vs nginx\" and \"p50 added\" (over direct, ms): medians of per-round paired values;"
  print "latency of the whole answer; CPU per request: user + system time of the proxy's processes over the run / its requests)"
  for (i = 1; i <= nc; i++) {
    c = cells[i]; split(c, k, SUBSEP)
    if (k[3] != "plain") continue
    sc = k[1] SUBSEP k[2] SUBSEP "stream"
    if (!(sc in seen)) continue
    line = ""
    for (j = 1; j <= ns; j++) {
      s = order[j]; if (s == "direct") continue
      x = med(c, s, "cpu"); y = med(sc, s, "cpu")
      line = line sprintf(" %s %s", s, (x != "" && y > 0) ? sprintf("%.2f", x / y) : "-")
    }
    printf "CPU per request non-streaming / streaming, %s %s connection(s):%s\n", k[1], k[2], line
  }
  # Disaggregated mode (three MicroServing calls) against round-robin (one call), paired per round.
  for (i = 1; i <= nc; i++) {
    c = cells[i]; split(c, k, SUBSEP)
    if (med(c, "disagg", "rps") == "" || med(c, "tandem", "rps") == "") continue
    printf "disagg / tandem, %s %s %s: req/s %s, CPU per request %s, p50 %s ms more\n", k[1], k[2], k[3],
      f(paired(c, "disagg", "tandem", "rps", "/"), "%.3f"), f(paired(c, "disagg", "tandem", "cpu", "/"), "%.2f"),
      f(paired(c, "disagg", "tandem", "p50", "-"), "%+.3f")
  }
  # User (the proxy's own code) and system (kernel) time per request, medians over rounds.
  for (i = 1; i <= nc; i++) {
    c = cells[i]; split(c, k, SUBSEP)
    line = ""
    for (j = 1; j <= ns; j++) {
      s = order[j]; x = med(c, s, "cpu"); y = med(c, s, "sys")
      if (s == "direct" || x == "" || y == "") continue
      line = line sprintf(" %s %.3f/%.3f", s, x - y, y)
    }
    if (line != "") printf "user/system CPU per request (ms), %s %s %s:%s\n", k[1], k[2], k[3], line
  }
}
