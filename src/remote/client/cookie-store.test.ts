import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryAcpCookieStore, parseSetCookie, setCookieLines } from "./cookie-store.js";

function response(...setCookies: string[]): Headers {
  const headers = new Headers();
  for (const line of setCookies) headers.append("Set-Cookie", line);
  return headers;
}

function cookieHeader(store: MemoryAcpCookieStore, existing?: string): string | null {
  const headers = new Headers(existing === undefined ? {} : { Cookie: existing });
  store.apply(headers);
  return headers.get("Cookie");
}

test("cookies set by the server come back on the next request, latest value per name", () => {
  const store = new MemoryAcpCookieStore();
  store.store(response("affinity=node-1; Path=/acp; HttpOnly; Secure; SameSite=Strict", "lb=a"));
  assert.equal(cookieHeader(store), "affinity=node-1; lb=a");
  store.store(response("lb=b"));
  assert.equal(cookieHeader(store), "affinity=node-1; lb=b");
  assert.equal(store.size, 2);
});

test("a caller's own Cookie header is kept and wins for the same name", () => {
  const store = new MemoryAcpCookieStore();
  store.store(response("affinity=server", "other=1"));
  assert.equal(cookieHeader(store, "affinity=mine; extra=2"), "affinity=mine; other=1; extra=2");
  assert.equal(cookieHeader(new MemoryAcpCookieStore(), "x=1"), "x=1", "an empty store leaves the header alone");
  assert.equal(cookieHeader(new MemoryAcpCookieStore()), null, "and adds none");
});

test("Max-Age=0, a negative Max-Age and a past Expires delete the cookie", () => {
  const store = new MemoryAcpCookieStore();
  store.store(response("a=1", "b=2", "c=3", "d=4"));
  store.store(response("a=gone; Max-Age=0", "b=gone; Max-Age=-1", "c=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT"));
  assert.equal(cookieHeader(store), "d=4");
});

test("a cookie expires when its Max-Age or Expires passes; Max-Age wins over Expires", () => {
  let now = Date.parse("2030-01-01T00:00:00Z");
  const store = new MemoryAcpCookieStore({ now: () => now });
  store.store(
    response(
      "short=1; Max-Age=10",
      "dated=2; Expires=Tue, 01 Jan 2030 00:01:00 GMT",
      "both=3; Max-Age=120; Expires=Tue, 01 Jan 2030 00:00:01 GMT",
      "session=4",
    ),
  );
  assert.equal(cookieHeader(store), "short=1; dated=2; both=3; session=4");
  now += 11_000;
  assert.equal(cookieHeader(store), "dated=2; both=3; session=4");
  now += 60_000;
  assert.equal(cookieHeader(store), "both=3; session=4");
  now += 60_000;
  assert.equal(cookieHeader(store), "session=4");
});

test("malformed Set-Cookie lines are ignored", () => {
  for (const line of ["novalue", "=value", "bad name=1", "semi=a\u0001b", ""]) {
    assert.equal(parseSetCookie(line, 0), undefined, JSON.stringify(line));
  }
  assert.deepEqual(parseSetCookie(' q="quoted value" ; Max-Age=oops', 0), {
    name: "q",
    value: '"quoted value"',
    expires: undefined,
  });
});

test("a folded Set-Cookie header splits per cookie, not at the comma of an Expires date", () => {
  const folded = {
    get: (name: string) => (name === "Set-Cookie" ? "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT, b=2" : null),
  } as unknown as Headers;
  assert.deepEqual(setCookieLines(folded), ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2"]);
});

test("clear() forgets everything", () => {
  const store = new MemoryAcpCookieStore();
  store.store(response("a=1"));
  store.clear();
  assert.equal(cookieHeader(store), null);
  assert.equal(store.get("a"), undefined);
});
