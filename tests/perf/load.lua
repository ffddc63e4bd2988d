-- wrk script for bun run bench:load (tests/perf/load.bench.ts). BENCH_MODE=mix: a researcher's
-- mix against the product: list projects (40%), open results with filters (25%), ResponsesCount
-- while the filter sidebar debounces (25%), post a chat message (10%). BENCH_MODE=baseline: the
-- bare Bun + postgres.js handler's one path. BENCH_MODE=list, results, count or chat: one call of
-- the mix alone (to see what each costs). done() prints one BENCH {...} JSON line.
local mode = os.getenv("BENCH_MODE") or "mix"
local token = os.getenv("BENCH_TOKEN") or ""
local client = os.getenv("BENCH_CLIENT") or "3"
local project = os.getenv("BENCH_PROJECT") or "1"
local thread_id = os.getenv("BENCH_THREAD") or "1"
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local function enc(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function init(args)
  created = 0
  posted = 0
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
  local h = { ["authorization"] = "Bearer " .. token, ["clientId"] = client }
  local jh = { ["authorization"] = "Bearer " .. token, ["clientId"] = client, ["content-type"] = "application/json" }
  local filters = { '{"regionIds":[1]}', '{"regionIds":[2]}', '{}' }
  reqs = {}
  if mode == "baseline" then
    reqs.list = wrk.format("GET", "/projects")
    return
  end
  reqs.list = wrk.format("GET", "/api/v1/Projects?$top=20&$orderby=id%20desc&$select=id,projectName,statusCode&$expand=projectsRegions", h)
  reqs.results = {}
  reqs.count = {}
  for i, f in ipairs(filters) do
    reqs.results[i] = wrk.format("GET", "/api/v1/Responses/QualResults?projectId=" .. project .. "&benchmarkTypeId=1&filters=" .. enc(f), h)
    reqs.count[i] = wrk.format("GET", "/api/v1/Projects(" .. project .. ")/ResponsesCount?filters=" .. enc(f), h)
  end
  reqs.chat = wrk.format("POST", "/api/v1/ResultsAiMessages", jh, '{"resultsAiThreadId":' .. thread_id .. ',"content":"Which concept wins with women under 35?"}')
end

function request()
  if mode == "baseline" or mode == "list" then return reqs.list end
  if mode == "results" then return reqs.results[math.random(#reqs.results)] end
  if mode == "count" then return reqs.count[math.random(#reqs.count)] end
  if mode == "chat" then posted = posted + 1; return reqs.chat end
  local r = math.random(100)
  if r <= 40 then return reqs.list end
  if r <= 65 then return reqs.results[math.random(#reqs.results)] end
  if r <= 90 then return reqs.count[math.random(#reqs.count)] end
  posted = posted + 1
  return reqs.chat
end

function response(status, headers, body)
  if status == 201 then created = created + 1 end
end

function done(summary, latency, requests)
  local c, p = 0, 0
  for _, t in ipairs(threads) do
    c = c + (t:get("created") or 0)
    p = p + (t:get("posted") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"seconds":%.3f,"rps":%.1f,"p50ms":%.2f,"p99ms":%.2f,"maxms":%.2f,"non2xx":%d,"socketErrors":%d,"timeouts":%d,"created":%d,"posted":%d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.status, e.connect + e.read + e.write, e.timeout, c, p))
end
