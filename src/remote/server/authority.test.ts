import assert from "node:assert/strict";
import { test } from "node:test";
import { isIpv6Address, parseAuthority } from "./authority.js";

test("parseAuthority: host[:port] as RFC 3986 spells them, lower-cased", () => {
  assert.deepEqual(parseAuthority("Example.COM:8080"), { host: "example.com", hostname: "example.com", port: 8080 });
  assert.deepEqual(parseAuthority("127.0.0.1"), { host: "127.0.0.1", hostname: "127.0.0.1", port: undefined });
  assert.deepEqual(parseAuthority("[::1]:65535"), { host: "[::1]", hostname: "::1", port: 65535 });
  assert.deepEqual(parseAuthority("[::FFFF:127.0.0.1]"), {
    host: "[::ffff:127.0.0.1]",
    hostname: "::ffff:127.0.0.1",
    port: undefined,
  });
  assert.deepEqual(parseAuthority("app.localhost:"), {
    host: "app.localhost",
    hostname: "app.localhost",
    port: undefined,
  });
  assert.equal(parseAuthority("a-b_c~d.e!$&'()*+,;=%2e")?.hostname, "a-b_c~d.e!$&'()*+,;=%2e");
});

test("parseAuthority refuses what is not an authority: text after an IPv6 literal, paths, fragments, userinfo", () => {
  for (const value of [
    "[::1].evil.example",
    "[::1]evil",
    "[::1]:80:80",
    "127.0.0.1:8080/acp#",
    "127.0.0.1:8080/acp",
    "host/path",
    "host?query",
    "host#fragment",
    "user@host",
    "user:pass@host:80",
    "",
    ":80",
    "host:port",
    "host:65536",
    "host:123456",
    "host:-1",
    "[::1",
    "[fe80::1%25eth0]",
    "[1:2:3:4:5:6:7:8:9]",
    "[:::]",
    "[12345::]",
    "ho st",
    "host\t",
    "127.1",
    "127.0.0.01",
    "256.0.0.1",
    "1.2.3.4.5",
  ]) {
    assert.equal(parseAuthority(value), undefined, JSON.stringify(value));
  }
});

test("isIpv6Address: the RFC 3986 forms, with '::' and an IPv4 tail", () => {
  for (const good of [
    "::",
    "::1",
    "1::",
    "1:2:3:4:5:6:7:8",
    "1::8",
    "::ffff:1.2.3.4",
    "1:2:3:4:5:6:1.2.3.4",
    "fe80::a:b",
  ])
    assert.equal(isIpv6Address(good), true, good);
  for (const bad of ["1:2:3:4:5:6:7", "1::2::3", "1:2:3:4:5:6:7:8:9", "::1.2.3", "g::", "1:2:3:4:5:6:7:1.2.3.4", ":1"])
    assert.equal(isIpv6Address(bad), false, bad);
});
