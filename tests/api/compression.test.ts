// Compression on the wire (api/src/web/compress.ts, static.ts): the app's answers above 1 KB gzipped
// when the client accepts gzip, the built files sent as their brotli or gzip copies, Vary on both.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, gunzipSync, gzipSync } from "node:zlib";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import { chooseEncoding, COMPRESS_MIN_BYTES, compressedText, PACED_BYTES, pacedBytes, pacedText } from "../../api/src/web/compress.ts";
import { webFiles } from "../../api/src/web/static.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

describe("choosing an encoding (RFC 9110 12.5.3)", () => {
  test.each([
    ["gzip, deflate, br, zstd", ["br", "gzip"], "br"],
    ["gzip, deflate", ["br", "gzip"], "gzip"],
    ["br;q=0.5, gzip;q=0.8", ["br", "gzip"], "gzip"],
    ["br;q=0, gzip;q=0", ["br", "gzip"], undefined],
    ["*", ["br", "gzip"], "br"],
    ["*;q=0.1, br;q=0", ["br", "gzip"], "gzip"],
    ["identity", ["br", "gzip"], undefined],
    ["", ["gzip"], undefined],
    ["GZIP", ["gzip"], "gzip"],
  ] as const)("Accept-Encoding %p with %p gives %p", (accept, have, want) => {
    expect(chooseEncoding(accept, have)).toBe(want);
  });
});

describe("the app's answers", () => {
  test("/openapi.json is gzipped for a client that accepts gzip, and decodes to the same document", async () => {
    const plain = await app.request("/openapi.json");
    expect(plain.headers.get("content-encoding"), "not asked: not compressed").toBeNull();
    expect(plain.headers.get("vary") ?? "").toContain("Accept-Encoding");
    const text = await plain.text();
    expect(text.length).toBeGreaterThan(100_000);

    const gz = await app.request("/openapi.json", { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(gz.status).toBe(200);
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("content-length"), "the plain length is not sent with the gzipped body").toBeNull();
    expect(gz.headers.get("vary") ?? "").toContain("Accept-Encoding");
    const bytes = new Uint8Array(await gz.arrayBuffer());
    expect(bytes.length, "gzip shrinks the document at least fourfold").toBeLessThan(text.length / 4);
    expect(gunzipSync(bytes).toString("utf8")).toBe(text);
  });

  test("a JSON answer at the threshold is compressed, one byte below it is not", async () => {
    // A JSON error body grows with the path it names: find paths whose 404 bodies are 1023 and 1024 bytes.
    const body = async (path: string) => (await app.request(path)).text();
    const base = (await body("/api/v2/")).length;
    const pathOf = (n: number) => `/api/v2/${"x".repeat(n - base)}`;
    const atEdge = await app.request(pathOf(COMPRESS_MIN_BYTES), { headers: { "accept-encoding": "gzip" } });
    expect(atEdge.headers.get("content-encoding"), `${COMPRESS_MIN_BYTES} bytes: compressed`).toBe("gzip");
    expect(gunzipSync(new Uint8Array(await atEdge.arrayBuffer())).length).toBe(COMPRESS_MIN_BYTES);
    const below = await app.request(pathOf(COMPRESS_MIN_BYTES - 1), { headers: { "accept-encoding": "gzip" } });
    expect(below.headers.get("content-encoding"), `${COMPRESS_MIN_BYTES - 1} bytes: sent as is`).toBeNull();
    expect((await below.text()).length).toBe(COMPRESS_MIN_BYTES - 1);
    expect(below.headers.get("x-error-trace-id"), "the error keeps its trace id").toBeTruthy();
  });

  test("a signed-in API list is gzipped and still parses", async () => {
    const res = await app.request("/api/v1/StandardQuestions", { headers: { authorization: "Bearer acmeUser", "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    const raw = new Uint8Array(await res.arrayBuffer());
    const json = res.headers.get("content-encoding") === "gzip" ? JSON.parse(gunzipSync(raw).toString("utf8")) : JSON.parse(new TextDecoder().decode(raw));
    expect(Array.isArray(json.value)).toBe(true);
    if (raw.length >= COMPRESS_MIN_BYTES) expect(res.headers.get("content-encoding")).toBe("gzip");
  });
});

describe("an answer made from its text (the lean collection read)", () => {
  const json = () => new Headers({ "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff" });
  /** A JSON string literal of exactly n UTF-8 bytes, its characters `ch` (1 or 2 bytes each) padded with "x". */
  const textOf = (n: number, ch = "x") => {
    const per = new TextEncoder().encode(ch).length;
    const k = Math.floor((n - 2) / per);
    return JSON.stringify(ch.repeat(k) + "x".repeat(n - 2 - k * per));
  };

  test("the threshold counts UTF-8 bytes: 1024 bytes of two-byte characters are gzipped, 1023 are not", async () => {
    for (const ch of ["x", "é"]) {
      const at = textOf(COMPRESS_MIN_BYTES, ch);
      expect(new TextEncoder().encode(at).length).toBe(COMPRESS_MIN_BYTES);
      if (ch === "é") expect(at.length).toBeLessThan(COMPRESS_MIN_BYTES);
      const big = compressedText("gzip, deflate, br", at, json());
      expect(big.status).toBe(200);
      expect(big.headers.get("content-encoding"), `${ch}: at the threshold`).toBe("gzip");
      expect(big.headers.get("vary")).toBe("Accept-Encoding");
      expect(big.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(big.headers.get("x-content-type-options")).toBe("nosniff");
      expect(gunzipSync(new Uint8Array(await big.arrayBuffer())).toString("utf8")).toBe(at);

      const below = textOf(COMPRESS_MIN_BYTES - 1, ch);
      const small = compressedText("gzip", below, json());
      expect(small.headers.get("content-encoding"), `${ch}: one byte below`).toBeNull();
      expect(small.headers.get("vary")).toBe("Accept-Encoding");
      expect(await small.text()).toBe(below);
    }
  });

  test("a client that does not take gzip gets the text as is, still with Vary", async () => {
    const text = textOf(5000);
    for (const accept of [null, "", "identity", "gzip;q=0, br", "br"]) {
      const res = compressedText(accept, text, json());
      expect(res.headers.get("content-encoding"), String(accept)).toBeNull();
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
      expect(await res.text()).toBe(text);
    }
  });

  test("a text of PACED_BYTES characters or more is sent a slice at a time, the same bytes gzipped or not", async () => {
    // 65,535 ASCII characters, then an emoji (a surrogate pair: the first slice of 65,536 characters
    // would end between its halves), then two-byte characters up past PACED_BYTES.
    const text = JSON.stringify(`${"x".repeat(65_535 - 1)}\u{1F600}${"é".repeat(PACED_BYTES)}`);
    expect(text.length).toBeGreaterThanOrEqual(PACED_BYTES);
    expect(text.charCodeAt(65_535)).toBe(0xd83d); // the high half at the last place of the first slice
    const gz = compressedText("gzip", text, json());
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("vary")).toBe("Accept-Encoding");
    expect(gunzipSync(new Uint8Array(await gz.arrayBuffer())).toString("utf8")).toBe(text);
    // The same text in pieces (a costly read's answer, entities/service.ts): the same bytes, never joined.
    const cut = [text.slice(0, 10), text.slice(10, 65_535), text.slice(65_535, 65_537), text.slice(65_537)];
    expect(gunzipSync(new Uint8Array(await compressedText("gzip", cut, json()).arrayBuffer())).toString("utf8")).toBe(text);
    expect(await compressedText(null, ["", "[1,", "2]"], json()).text(), "a short text in pieces").toBe("[1,2]");
    const plain = compressedText(null, text, json());
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    expect(await plain.text()).toBe(text);
  });

  test("between two slices the event loop runs other work", async () => {
    const order: string[] = [];
    const read = async (stream: ReadableStream<Uint8Array>) => {
      const reader = stream.getReader();
      let out = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return out;
        order.push("slice");
        out += Buffer.from(value).toString("utf8");
      }
    };
    // Work queued for the next turn before reading: it runs after the first slice, before the second.
    setImmediate(() => order.push("other"));
    expect(await read(pacedText("abcdef", 2))).toBe("abcdef");
    expect(order.slice(0, 2)).toEqual(["slice", "other"]);
    expect(order.filter((o) => o === "slice")).toHaveLength(3);
    order.length = 0;
    setImmediate(() => order.push("other"));
    expect(await read(pacedBytes(new TextEncoder().encode("abcdef"), 4))).toBe("abcdef");
    expect(order).toEqual(["slice", "other", "slice"]);
  });

  test("only a compressible type is taken", () => {
    expect(() => compressedText("gzip", "x".repeat(2000), new Headers({ "content-type": "application/zip" }))).toThrow("not a compressible type");
  });
});

describe("the built web app's files", () => {
  const dir = mkdtempSync(join(tmpdir(), "ideally-web-"));
  const js = `console.log(${JSON.stringify("a".repeat(5000))});`;
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><script type=module src=/assets/app-1.js></script>");
  writeFileSync(join(dir, "assets/app-1.js"), js);
  writeFileSync(join(dir, "assets/app-1.js.br"), brotliCompressSync(js));
  writeFileSync(join(dir, "assets/app-1.js.gz"), gzipSync(js));
  writeFileSync(join(dir, "assets/only-gz-2.js"), js);
  writeFileSync(join(dir, "assets/only-gz-2.js.gz"), gzipSync(js));
  const web = webFiles(dir)!;

  test("brotli when accepted, else gzip, else the file; the type is the file's, Vary always", async () => {
    const br = (await web("/assets/app-1.js", "gzip, deflate, br"))!;
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("content-type")).toContain("javascript");
    expect(br.headers.get("vary")).toBe("Accept-Encoding");
    expect(br.headers.get("cache-control")).toContain("immutable");
    expect(Buffer.from(await br.arrayBuffer()).equals(brotliCompressSync(js))).toBe(true);

    const gz = (await web("/assets/app-1.js", "gzip"))!;
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(new Uint8Array(await gz.arrayBuffer())).toString()).toBe(js);

    const plain = (await web("/assets/app-1.js", null))!;
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(js);

    const onlyGz = (await web("/assets/only-gz-2.js", "br, gzip"))!;
    expect(onlyGz.headers.get("content-encoding"), "brotli asked but only gzip built").toBe("gzip");
    expect((await web("/assets/missing-3.js", "br"))!.status).toBe(404);
  });

  test("through the app: an asset keeps its precompressed encoding (not gzipped twice)", async () => {
    const withWeb = testApp(tdb.db, { web });
    const res = await withWeb.request("/assets/app-1.js", { headers: { "accept-encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(new Uint8Array(await res.arrayBuffer())).toString()).toBe(js);
    const page = await withWeb.request("/3/home", { headers: { "accept-encoding": "br, gzip" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy"), "index.html still gets its CSP").toContain("script-src");
    expect(await page.text()).toContain("/assets/app-1.js");
  });
});
