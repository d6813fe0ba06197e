-- wrk script for bench/router-overhead.sh: POSTs the JSON body in the file $WRK_BODY_FILE to the
-- URL given to wrk, and at the end writes one machine-readable line:
--   WRK <requests> <duration_us> <latency_p50_us> <latency_p99_us> <errors>
-- (errors: connect, read, write, timeout, and non-2xx/3xx answers).
local f = assert(io.open(os.getenv("WRK_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK %d %d %.1f %.1f %d\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), e.connect + e.read + e.write + e.timeout + e.status))
end
