// A small mocha + chai + supertest + sinon stand-in (see run.sh).
// Resolves the test files' imports to local shims (the runner is not
// firebase-tools: every request goes over HTTP to the emulator under test).
const rt = require("./runtime");

const operations = {
  SESSION_COOKIE_MAX_VALID_DURATION: 14 * 24 * 60 * 60,
  CUSTOM_TOKEN_AUDIENCE: "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
  // The event's claims, read without checking the signature (as the suites do).
  parseBlockingFunctionJwt: (token) => rt.jwt.decode(token),
};
const state = {
  PROVIDER_PASSWORD: "password",
  PROVIDER_PHONE: "phone",
  PROVIDER_CUSTOM: "custom",
  PROVIDER_ANONYMOUS: "anonymous",
  SIGNIN_METHOD_EMAIL_LINK: "emailLink",
  decodeRefreshToken: (token) => JSON.parse(Buffer.from(token, "base64").toString()),
  encodeRefreshToken: (record) => Buffer.from(JSON.stringify(record)).toString("base64"),
};

module.exports = function resolve(name) {
  switch (name) {
    case "chai": return rt.chai;
    case "./testing/setup": case "./setup": return rt.setup;
    case "./testing/helpers": return require("./helpers");
    case "supertest": return {};
    case "jsonwebtoken": return rt.jwt;
    case "http": return require("http");
    case "util": return require("util");
    case "url": return require("url");
    case "../../test/helpers/nock": return { default: rt.nock };
    case "./operations": case "../operations": return operations;
    case "./state": case "../state": return state;
    case "./utils": return { toUnixTimestamp: (date) => Math.floor(date.getTime() / 1000) };
    case ".": return { SingleProjectMode: { NO_WARNING: 0, WARNING: 1, ERROR: 2 } };
    default: return {};
  }
};
