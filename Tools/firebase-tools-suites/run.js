// node run.js MFA_BINARY spec1.js spec2.js ... : runs every test of the
// given (type-stripped) firebase-tools Auth emulator suites, each against a
// fresh `mfa emulator --project example`, over HTTP. Prints one line per
// failed test and a summary per file. SHARD=k/n runs every n-th test from
// the k-th (run.sh starts several workers); RESULTS=path writes the
// outcome of each test run as JSON, for report.py.
const { spawn, spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");
const rt = require("./runtime");

const [binary, ...specs] = process.argv.slice(2);
const filter = process.env.GREP ? new RegExp(process.env.GREP) : null;
const [shard, shards] = (process.env.SHARD || "0/1").split("/").map(Number);
// Whether this emulator takes --single-project-mode (the suites' SingleProjectMode.ERROR).
const singleProjectFlag = (spawnSync(binary, ["emulator", "--help"], { encoding: "utf8" }).stdout || "").includes("--single-project-mode");

function startEmulator(singleProjectMode) {
  return new Promise((resolve, reject) => {
    const args = ["emulator", "--port", "0", "--project", "example", "--disable-improved-email-privacy"];
    if (singleProjectMode === 2 && singleProjectFlag) args.push("--single-project-mode");
    // EMULATOR_FLAGS: more flags for every emulator (CI's second run: --google-compatible).
    for (const flag of (process.env.EMULATOR_FLAGS || "").split(" ")) if (flag) args.push(flag);
    const child = spawn(binary, args, {
      stdio: ["ignore", "pipe", "pipe"],
      // A crash ends the process at once instead of leaving swift-backtrace spinning.
      env: { ...process.env, SWIFT_BACKTRACE: "enable=no" },
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) resolve({ child, url: match[1] });
    });
    child.on("exit", (code) => reject(new Error(`emulator exited ${code}`)));
  });
}

/// The SingleProjectMode of the describeAuthEmulator suite a test is in.
function singleProjectModeOf(suite) {
  for (let s = suite; s; s = s.parent) if (s.singleProjectMode !== undefined) return s.singleProjectMode;
  return 0;
}

function collect(suite, prefix, file, list) {
  for (const test of suite.tests) list.push({ ...test, file, fullTitle: `${prefix}${test.title}` });
  for (const child of suite.suites) collect(child, `${prefix}${child.title} > `, file, list);
}

function hooks(suite, kind) {
  const chain = [];
  for (let s = suite; s; s = s.parent) chain.unshift(...s[kind]);
  return kind === "afterEach" ? chain.reverse() : chain;
}

function withTimeout(promise, ms) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timeout ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

(async () => {
  await rt.startBlockingFunctionServer();
  const tests = [];
  for (const spec of specs) {
    const before = rt.root.suites.length;
    require(path.resolve(spec));
    for (const suite of rt.root.suites.slice(before)) collect(suite, `${suite.title} > `, path.basename(spec), tests);
  }
  const results = {};
  const outcomes = [];
  let index = -1;
  for (const test of tests) {
    if (filter && !filter.test(test.fullTitle)) continue;
    index += 1;
    if (index % shards !== shard) continue;
    let emulator;
    try {
      emulator = await startEmulator(singleProjectModeOf(test.suite));
    } catch (e) {
      const entry = (results[test.file] ||= { pass: 0, fail: 0 });
      entry.fail += 1;
      outcomes.push({ index, file: test.file, title: test.fullTitle, passed: false, error: `the emulator did not start: ${e.message}` });
      console.log(`FAIL ${test.file} :: ${test.fullTitle}\n     the emulator did not start: ${e.message}`);
      continue;
    }
    const { child, url } = emulator;
    rt.setBaseURL(url);
    rt.last = "";
    rt.resetClock();
    let error = null;
    try {
      await fetch(`${url}/emulator/v1/clock`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer owner" },
        body: JSON.stringify({ setMillis: 0 }) });
      for (const h of hooks(test.suite, "beforeEach")) await withTimeout(Promise.resolve(h.call({ timeout() {} })), 20000);
      await withTimeout(Promise.resolve(test.fn.call({ timeout() {}, skip() { throw new Error("skipped"); } })), 20000);
      for (const h of hooks(test.suite, "afterEach")) await withTimeout(Promise.resolve(h.call({})), 20000);
    } catch (e) {
      error = e;
    }
    // An emulator that died during the test is a failure whatever the test said.
    if (child.exitCode !== null || child.signalCode !== null) error ||= new Error(`the emulator died (${child.exitCode ?? child.signalCode})`);
    child.kill("SIGKILL");
    const entry = (results[test.file] ||= { pass: 0, fail: 0 });
    outcomes.push({ index, file: test.file, title: test.fullTitle, passed: !error, error: error ? String(error && error.message || error).slice(0, 300) : undefined });
    if (error) {
      entry.fail += 1;
      console.log(`FAIL ${test.file} :: ${test.fullTitle}\n     ${String(error && error.message || error).split("\n").slice(0, 4).join(" | ").replace(/\s+/g, " ").slice(0, 300)}\n     last: ${rt.last}`);
    } else {
      entry.pass += 1;
      if (process.env.VERBOSE) console.log(`pass ${test.file} :: ${test.fullTitle}`);
    }
  }
  let pass = 0, fail = 0;
  for (const [file, r] of Object.entries(results)) {
    console.log(`${file}: ${r.pass}/${r.pass + r.fail}`);
    pass += r.pass; fail += r.fail;
  }
  console.log(`TOTAL ${pass}/${pass + fail} (${(100 * pass / Math.max(1, pass + fail)).toFixed(1)}%)`);
  if (process.env.RESULTS) fs.writeFileSync(process.env.RESULTS, JSON.stringify(outcomes));
  process.exit(0);
})();
