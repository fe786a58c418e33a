-- wrk script for RouteLoadServer: each request carries an ID token from a
-- file (one a line) as `Authorization: Bearer`, so that no token is on a
-- command line.
--   wrk … -s .ci/route_load.lua URL -- TOKENS_FILE repeat|distinct
-- repeat: every request sends the file's first token (the cache's case);
-- distinct: each thread walks the whole file from its own starting point.
local tokens = {}
local index = 0

function init(args)
    local file = assert(io.open(args[1], "r"))
    for line in file:lines() do
        if #line > 0 then tokens[#tokens + 1] = line end
    end
    file:close()
    assert(#tokens > 0, "no token in " .. args[1])
    if args[2] == "repeat" then tokens = { tokens[1] } end
    math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16))
    index = math.random(#tokens)
end

function request()
    index = index % #tokens + 1
    return wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. tokens[index] })
end

-- One JSON line for the driver: requests/s, latency percentiles in
-- microseconds, and every kind of error (non-2xx answers among them).
function done(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        '{"requests":%d,"seconds":%.3f,"p50":%d,"p99":%d,"status_errors":%d,"socket_errors":%d}\n',
        summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
        errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
