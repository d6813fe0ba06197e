# Summarises paired benchmark rounds. Input lines (tab separated):
#   setup round req_per_s out_tok_per_s ttft_p50 ttft_p99 e2e_p50 e2e_p99 tpot_p50 tpot_p99 errors
# The first setup named by -v base=NAME is the reference; -v others="a b" lists the rest.
# Prints the median of each metric per setup, then for each other setup the median over rounds of
# its paired difference (same round) from the reference, and its throughput ratio.
function median(arr, n,    i, j, t) {
  for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
  return (n % 2) ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
function fmt(x) { return (x == "" || x == "null") ? "-" : sprintf("%.3f", x) }
BEGIN { FS = "\t"; split("req_per_s out_tok_per_s ttft_p50 ttft_p99 e2e_p50 e2e_p99 tpot_p50 tpot_p99 errors", names, " ") }
{
  s = $1; r = $2; rounds[r] = 1; setups[s] = 1
  for (k = 1; k <= 9; k++) v[s, r, names[k]] = $(k + 2)
}
END {
  n = split(base " " others, order, " ")
  printf "%-8s %9s %11s %9s %9s %9s %9s %9s %9s %7s\n", "setup", "req/s", "out tok/s", "ttft p50", "ttft p99", "e2e p50", "e2e p99", "tpot p50", "tpot p99", "errors"
  for (i = 1; i <= n; i++) {
    s = order[i]; line = sprintf("%-8s", s)
    for (k = 1; k <= 9; k++) {
      m = 0; for (r in rounds) if ((s, r, names[k]) in v && v[s, r, names[k]] != "null") a[++m] = v[s, r, names[k]]
      if (k == 9) { tot = 0; for (j = 1; j <= m; j++) tot += a[j]; med[s, names[k]] = tot }
      else med[s, names[k]] = m ? median(a, m) : ""
      line = line sprintf(k == 2 ? " %11s" : k == 9 ? " %7s" : " %9s", k == 9 ? med[s, names[k]] : fmt(med[s, names[k]]))
    }
    print line
  }
  print ""
  print "added vs " base " (median over rounds of the paired per-round difference, ms; throughput as a ratio):"
  printf "%-8s %9s %9s %9s %9s %11s\n", "setup", "ttft p50", "ttft p99", "e2e p50", "e2e p99", "req/s ratio"
  for (i = 2; i <= n; i++) {
    s = order[i]; line = sprintf("%-8s", s)
    split("ttft_p50 ttft_p99 e2e_p50 e2e_p99", dm, " ")
    for (k = 1; k <= 4; k++) {
      m = 0; for (r in rounds) if ((s, r, dm[k]) in v && (base, r, dm[k]) in v) a[++m] = v[s, r, dm[k]] - v[base, r, dm[k]]
      added[s, dm[k]] = m ? median(a, m) : ""
      line = line sprintf(" %+9.3f", added[s, dm[k]])
    }
    m = 0; for (r in rounds) if ((s, r, "req_per_s") in v && v[base, r, "req_per_s"] > 0) a[++m] = v[s, r, "req_per_s"] / v[base, r, "req_per_s"]
    ratio[s] = m ? median(a, m) : ""
    print line sprintf(" %11.3f", ratio[s])
  }
  # Pairwise throughput ratio of the first two non-reference setups, e.g. tandem / nginx.
  if (n >= 3) {
    m = 0; for (r in rounds) if (v[order[3], r, "req_per_s"] > 0) a[++m] = v[order[2], r, "req_per_s"] / v[order[3], r, "req_per_s"]
    printf "\nthroughput %s / %s (median of per-round ratios): %.3f\n", order[2], order[3], median(a, m)
  }
}
