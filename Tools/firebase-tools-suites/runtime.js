// A small mocha + chai + supertest + sinon stand-in, enough to run
// firebase-tools' Auth emulator suites over HTTP against another emulator.
const util = require("util");

// ---------------------------------------------------------------- clock
const RealDate = Date;
let fakeNow = 0;
let pendingTicks = 0;
class FakeDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(fakeNow);
    else super(...args);
  }
  static now() { return fakeNow; }
}
global.Date = FakeDate;
const clock = {
  tick(ms) { fakeNow += ms; pendingTicks += ms; return fakeNow; },
  get now() { return fakeNow; },
  restore() {},
};

// ---------------------------------------------------------------- chai
class AssertionError extends Error {}
function deepEqual(a, b) { return util.isDeepStrictEqual(a, b); }
function fmt(v) { return util.inspect(v, { depth: 4, breakLength: 160 }); }

class Assertion {
  constructor(obj) { this.obj = obj; this.negate = false; this.deepFlag = false; }
  assert(ok, msg) {
    if (this.negate ? ok : !ok) throw new AssertionError((this.negate ? "NOT: " : "") + msg);
    return this;
  }
  get to() { return this; } get be() { return this; } get been() { return this; } get is() { return this; }
  get that() { return this; } get which() { return this; } get and() { return this; } get has() { return this; }
  get have() { return this; } get with() { return this; } get at() { return this; } get of() { return this; }
  get same() { return this; } get does() { return this; }
  get not() { this.negate = !this.negate; return this; }
  get deep() { this.deepFlag = true; return this; }
  get null() { return this.assert(this.obj === null, `expected ${fmt(this.obj)} to be null`); }
  get undefined() { return this.assert(this.obj === undefined, `expected ${fmt(this.obj)} to be undefined`); }
  get true() { return this.assert(this.obj === true, `expected ${fmt(this.obj)} to be true`); }
  get false() { return this.assert(this.obj === false, `expected ${fmt(this.obj)} to be false`); }
  get ok() { return this.assert(!!this.obj, `expected ${fmt(this.obj)} to be truthy`); }
  get exist() { return this.assert(this.obj !== null && this.obj !== undefined, `expected ${fmt(this.obj)} to exist`); }
  get empty() {
    const o = this.obj;
    const isEmpty = typeof o === "string" || Array.isArray(o) ? o.length === 0 : o && typeof o === "object" ? Object.keys(o).length === 0 : false;
    return this.assert(isEmpty, `expected ${fmt(o)} to be empty`);
  }
  equal(v) {
    return this.assert(this.deepFlag ? deepEqual(this.obj, v) : this.obj === v, `expected ${fmt(this.obj)} to equal ${fmt(v)}`);
  }
  equals(v) { return this.equal(v); }
  eq(v) { return this.equal(v); }
  eql(v) { return this.assert(deepEqual(this.obj, v), `expected ${fmt(this.obj)} to deeply equal ${fmt(v)}`); }
  eqls(v) { return this.eql(v); }
  include(v) {
    const o = this.obj;
    let ok;
    if (typeof o === "string") ok = o.includes(v);
    else if (Array.isArray(o)) ok = o.some((x) => (this.deepFlag ? deepEqual(x, v) : x === v));
    else if (o && typeof o === "object") ok = Object.keys(v).every((k) => deepEqual(o[k], v[k]));
    else ok = false;
    return this.assert(ok, `expected ${fmt(o)} to include ${fmt(v)}`);
  }
  includes(v) { return this.include(v); }
  contain(v) { return this.include(v); }
  contains(v) { return this.include(v); }
  property(name, ...value) {
    const o = this.obj;
    const has = o !== null && o !== undefined && (typeof o === "object" || typeof o === "function" ? name in Object(o) : o[name] !== undefined);
    if (value.length) {
      const ok = has && (this.deepFlag ? deepEqual(o[name], value[0]) : o[name] === value[0]);
      this.assert(ok, `expected ${fmt(o)} to have property ${name} of ${fmt(value[0])}`);
    } else {
      this.assert(has, `expected ${fmt(o)} to have property ${name}`);
    }
    if (!this.negate) { const next = new Assertion(o[name]); return next; }
    return this;
  }
  members(list) {
    const o = this.obj || [];
    const ok = Array.isArray(o) && o.length === list.length && list.every((x) => o.some((y) => deepEqual(x, y)));
    return this.assert(ok, `expected ${fmt(o)} to have members ${fmt(list)}`);
  }
  keys(...names) {
    const list = Array.isArray(names[0]) ? names[0] : names;
    const o = this.obj || {};
    return this.assert(list.every((k) => k in o), `expected ${fmt(o)} to have keys ${fmt(list)}`);
  }
  checkType(type) {
    const o = this.obj;
    const actual = o === null ? "null" : Array.isArray(o) ? "array" : typeof o;
    return this.assert(actual === type.toLowerCase(), `expected ${fmt(o)} to be a ${type}`);
  }
  get a() {
    const self = this;
    const fn = (type) => self.checkType(type);
    return new Proxy(fn, { get: (target, prop) => { const v = self[prop]; return typeof v === "function" ? v.bind(self) : v; } });
  }
  get an() { return this.a; }
  get length() {
    const self = this;
    const fn = (n) => self.assert(self.obj != null && self.obj.length === n, `expected ${fmt(self.obj)} to have length ${n}`);
    fn.above = (n) => self.assert(self.obj.length > n, `expected length above ${n}`);
    fn.greaterThan = fn.above;
    fn.below = (n) => self.assert(self.obj.length < n, `expected length below ${n}`);
    fn.least = (n) => self.assert(self.obj.length >= n, `expected length at least ${n}`);
    return fn;
  }
  lengthOf(n) { return this.assert(this.obj != null && this.obj.length === n, `expected ${fmt(this.obj)} to have length ${n}`); }
  above(n) { return this.assert(this.obj > n, `expected ${fmt(this.obj)} above ${n}`); }
  greaterThan(n) { return this.above(n); }
  gt(n) { return this.above(n); }
  below(n) { return this.assert(this.obj < n, `expected ${fmt(this.obj)} below ${n}`); }
  lessThan(n) { return this.below(n); }
  lt(n) { return this.below(n); }
  least(n) { return this.assert(this.obj >= n, `expected ${fmt(this.obj)} at least ${n}`); }
  gte(n) { return this.least(n); }
  most(n) { return this.assert(this.obj <= n, `expected ${fmt(this.obj)} at most ${n}`); }
  lte(n) { return this.most(n); }
  within(a, b) { return this.assert(this.obj >= a && this.obj <= b, `expected ${fmt(this.obj)} within ${a}..${b}`); }
  matches(re) { return this.match(re); }
  match(re) { return this.assert(re.test(this.obj), `expected ${fmt(this.obj)} to match ${re}`); }
  oneOf(list) { return this.assert(list.some((x) => deepEqual(x, this.obj)), `expected ${fmt(this.obj)} to be one of ${fmt(list)}`); }
  satisfy(fn) { return this.assert(fn(this.obj), `expected ${fmt(this.obj)} to satisfy`); }
  instanceof(type) { return this.instanceOf(type); }
  instanceOf(type) { return this.assert(this.obj instanceof type, `expected instance of ${type.name}`); }
  string(s) { return this.include(s); }
}
function expect(obj) { return new Assertion(obj); }
expect.fail = (msg) => { throw new AssertionError(msg || "expect.fail"); };
const chai = { expect, AssertionError };

// ---------------------------------------------------------------- jwt
const jwt = {
  decode(token, options = {}) {
    if (typeof token !== "string") return null;
    const parts = token.split(".");
    if (parts.length < 2) return null;
    try {
      const header = JSON.parse(Buffer.from(parts[0], "base64url").toString());
      const payload = JSON.parse(Buffer.from(parts[1], "base64url").toString());
      return options.complete ? { header, payload, signature: parts[2] } : payload;
    } catch (e) { return null; }
  },
  sign(payload, _key, options = {}) {
    const header = { alg: options.algorithm || "none", typ: "JWT" };
    const body = { ...payload };
    const now = Math.floor(Date.now() / 1000);
    if (body.iat === undefined && !options.noTimestamp) body.iat = now;
    if (options.expiresIn !== undefined) body.exp = (body.iat ?? now) + options.expiresIn;
    if (options.audience) body.aud = options.audience;
    if (options.issuer) body.iss = options.issuer;
    if (options.subject) body.sub = options.subject;
    const enc = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
    return `${enc(header)}.${enc(body)}.`;
  },
};

// ---------------------------------------------------------------- nock over a real server
// The suites' blocking functions are nock interceptors in firebase-tools'
// own process; the emulator under test is another process, so they are
// served here by a local HTTP server instead, each reply used once.
// helpers.js's BLOCKING_FUNCTION_HOST is rewritten to it (run.sh).
const http = require("http");
const interceptors = [];
const blockingCalls = [];
async function startBlockingFunctionServer() {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => { body += chunk; });
    req.on("end", () => {
      blockingCalls.push({ method: req.method, path: req.url, body });
      let parsed;
      try { parsed = JSON.parse(body); } catch (e) { parsed = body; }
      // nock's `.post(path, (body) => …)`: the interceptor matches when the function says so.
      const index = interceptors.findIndex((x) => x.method === req.method && x.path === req.url && (!x.matches || x.matches(parsed)));
      if (index < 0) { res.writeHead(501, { "content-type": "text/plain" }); res.end("no interceptor"); return; }
      const [reply] = interceptors.splice(index, 1);
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(reply.body === undefined ? "" : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  process.env.BLOCKING_FUNCTION_HOST = `http://127.0.0.1:${server.address().port}`;
}
function nock() {
  const scope = {
    post(path, matches) { return { reply(status, body) { interceptors.push({ method: "POST", path, matches, status, body }); return scope; } }; },
  };
  return scope;
}
nock.cleanAll = () => { interceptors.length = 0; };
nock.isDone = () => interceptors.length === 0;
nock.disableNetConnect = () => {};
nock.enableNetConnect = () => {};
nock.calls = blockingCalls;

// ---------------------------------------------------------------- supertest over fetch
let baseURL = "";
async function flushClock() {
  if (pendingTicks === 0) return;
  const seconds = pendingTicks / 1000;
  pendingTicks = 0;
  await fetch(`${baseURL}/emulator/v1/clock`, {
    method: "POST", headers: { "content-type": "application/json", authorization: "Bearer owner" },
    body: JSON.stringify({ advanceSeconds: seconds }),
  });
}
class TestRequest {
  constructor(method, path) { this.method = method; this.path = path; this.headers = {}; this.queryParams = []; this.body = undefined; this.contentType = undefined; }
  query(obj) {
    if (typeof obj === "string") { for (const [k, v] of new URLSearchParams(obj)) this.queryParams.push([k, v]); }
    else for (const [k, v] of Object.entries(obj || {})) { if (v !== undefined) this.queryParams.push([k, String(v)]); }
    return this;
  }
  set(name, value) { if (typeof name === "object") Object.assign(this.headers, name); else this.headers[name] = value; return this; }
  type(t) { this.contentType = t === "form" ? "application/x-www-form-urlencoded" : t === "json" ? "application/json" : t; return this; }
  redirects() { return this; }
  send(body) {
    if (typeof body === "string") { this.body = body; if (!this.contentType) this.contentType = "application/x-www-form-urlencoded"; }
    else if (this.contentType === "application/x-www-form-urlencoded") { this.body = new URLSearchParams(body).toString(); }
    else { this.body = JSON.stringify(body ?? {}); if (!this.contentType) this.contentType = "application/json"; }
    return this;
  }
  async execute() {
    await flushClock();
    const url = new URL(baseURL + this.path);
    for (const [k, v] of this.queryParams) url.searchParams.append(k, v);
    const headers = { ...this.headers };
    if (this.contentType && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = this.contentType;
    const payload = this.method === "GET" || this.method === "HEAD" ? undefined : this.body;
    const response = await fetch(url, { method: this.method, headers, body: payload, redirect: "manual" });
    const text = await response.text();
    const header = {};
    response.headers.forEach((v, k) => { header[k] = v; });
    let body = {};
    if ((header["content-type"] || "").includes("json")) { try { body = JSON.parse(text); } catch (e) { body = {}; } }
    module.exports.last = `${this.method} ${this.path} -> ${response.status} ${(body.error && body.error.message) || text.slice(0, 120)}`;
    return { status: response.status, statusCode: response.status, body, text, header, headers: header, type: (header["content-type"] || "").split(";")[0] };
  }
  then(onFulfilled, onRejected) { return this.execute().then(onFulfilled, onRejected); }
  catch(onRejected) { return this.execute().catch(onRejected); }
}
function agent() {
  const make = (method) => (path) => new TestRequest(method, path);
  return { get: make("GET"), post: make("POST"), put: make("PUT"), patch: make("PATCH"), delete: make("DELETE"), del: make("DELETE"), options: make("OPTIONS"), head: make("HEAD") };
}

// ---------------------------------------------------------------- mocha
const root = { title: "", suites: [], tests: [], before: [], beforeEach: [], afterEach: [], after: [], parent: null };
let current = root;
const suiteContext = { timeout() {}, slow() {}, retries() {} };
function describe(title, fn) {
  const suite = { title, suites: [], tests: [], before: [], beforeEach: [], afterEach: [], after: [], parent: current };
  current.suites.push(suite);
  const previous = current;
  current = suite;
  try { fn.call(suiteContext); } finally { current = previous; }
  // `describe(…).timeout(ms)`, as phone.spec.ts calls it.
  suite.timeout = () => suite;
  return suite;
}
describe.skip = () => {};
describe.only = describe;
const testHandle = { timeout() { return testHandle; }, slow() { return testHandle; }, retries() { return testHandle; } };
function it(title, fn) { current.tests.push({ title, fn, suite: current }); return testHandle; }
it.skip = () => testHandle;
it.only = it;
function hook(kind) { return (nameOrFn, maybeFn) => current[kind].push(typeof nameOrFn === "function" ? nameOrFn : maybeFn); }
Object.assign(global, { describe, context: describe, it, specify: it, beforeEach: hook("beforeEach"), afterEach: hook("afterEach"),
  before: hook("before"), after: hook("after") });

const setup = {
  PROJECT_ID: "example",
  // The third argument (SingleProjectMode: 0 no warning, 1 warning, 2
  // error) is kept on the suite: the runner starts that suite's emulators
  // in single-project mode when it is 2.
  describeAuthEmulator(title, fn, singleProjectMode = 0) {
    const suite = describe(`Auth Emulator: ${title}`, function () {
      return fn.call(this, { authApi: agent, getClock: () => clock });
    });
    suite.singleProjectMode = singleProjectMode;
    return suite;
  },
};

function setBaseURL(url) { baseURL = url; }
function resetClock() { fakeNow = 0; pendingTicks = 0; }

module.exports = { chai, jwt, nock, setup, root, setBaseURL, resetClock, RealDate, startBlockingFunctionServer };
