# Summarises paired benchmark rounds. Input lines (tab separated, "null" for absent values):
#   setup round req_per_s out_tok_per_s ttft_p50 ttft_p99 e2e_p50 e2e_p99 tpot_p50 tpot_p99 errors
#   xttft_p50 xttft_p99 xe2e_p50 xe2e_p99
# (x = time outside the engine: client latency minus the engine's own, from usage.extra).
# -v base=NAME names the reference setup, -v others="a b" the rest, in display order.
# Prints the median of each metric per setup, then for each other setup the median over rounds of
# its paired difference (same round) from the reference, and its throughput ratio.
function median(arr, n,    i, j, t) {
  for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
  return (n % 2) ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
function fmt(x) { return (x == "" || x == "null") ? "-" : sprintf("%.3f", x) }
function sfmt(x) { return (x == "") ? "-" : sprintf("%+.3f", x) }
# Median over rounds of setup s minus base for metric k; "" when no round has both.
function added(s, k,    m, r) {
  m = 0
  for (r in rounds) if (v[s, r, k] != "null" && v[base, r, k] != "null" && v[s, r, k] != "" && v[base, r, k] != "") a[++m] = v[s, r, k] - v[base, r, k]
  return m ? median(a, m) : ""
}
BEGIN {
  FS = "\t"
  nk = split("req_per_s out_tok_per_s ttft_p50 ttft_p99 e2e_p50 e2e_p99 tpot_p50 tpot_p99 errors xttft_p50 xttft_p99 xe2e_p50 xe2e_p99", names, " ")
}
{
  rounds[$2] = 1
  for (k = 1; k <= nk; k++) v[$1, $2, names[k]] = $(k + 2)
}
END {
  n = split(base " " others, order, " ")
  printf "%-8s %9s %10s %9s %9s %9s %9s %9s %9s %6s\n", "setup", "req/s", "out tok/s", "ttft p50", "ttft p99", "e2e p50", "e2e p99", "tpot p50", "tpot p99", "errors"
  for (i = 1; i <= n; i++) {
    s = order[i]; line = sprintf("%-8s", s)
    for (k = 1; k <= 9; k++) {
      m = 0; tot = 0
      for (r in rounds) if (v[s, r, names[k]] != "null" && v[s, r, names[k]] != "") { a[++m] = v[s, r, names[k]]; tot += a[m] }
      if (k == 9) line = line sprintf(" %6d", tot)
      else line = line sprintf(k == 2 ? " %10s" : " %9s", m ? fmt(median(a, m)) : "-")
    }
    print line
  }
  print ""
  print "added vs " base ": median over rounds of the paired (same round) difference, ms;"
  print "x- columns: time outside the engine (client latency minus the engine's own, per request)"
  printf "%-8s %9s %9s %9s %9s %10s %10s %10s %10s %9s\n", "setup", "ttft p50", "ttft p99", "e2e p50", "e2e p99", "x-ttft p50", "x-ttft p99", "x-e2e p50", "x-e2e p99", "req/s x"
  for (i = 2; i <= n; i++) {
    s = order[i]
    line = sprintf("%-8s %9s %9s %9s %9s %10s %10s %10s %10s", s, sfmt(added(s, "ttft_p50")), sfmt(added(s, "ttft_p99")),
      sfmt(added(s, "e2e_p50")), sfmt(added(s, "e2e_p99")), sfmt(added(s, "xttft_p50")), sfmt(added(s, "xttft_p99")),
      sfmt(added(s, "xe2e_p50")), sfmt(added(s, "xe2e_p99")))
    m = 0; for (r in rounds) if (v[base, r, "req_per_s"] > 0) a[++m] = v[s, r, "req_per_s"] / v[base, r, "req_per_s"]
    print line sprintf(" %9s", m ? sprintf("%.3f", median(a, m)) : "-")
  }
  if (n >= 3) {
    m = 0; for (r in rounds) if (v[order[3], r, "req_per_s"] > 0) a[++m] = v[order[2], r, "req_per_s"] / v[order[3], r, "req_per_s"]
    printf "\nthroughput %s / %s (median of per-round ratios): %s\n", order[2], order[3], m ? sprintf("%.3f", median(a, m)) : "-"
  }
}
