// File storage: the signed tokens, the local-disk store (atomic writes, type and size checks),
// SigV4 presigning for S3-compatible stores, and the file calls through the API: upload URLs,
// the upload and download routes, and a project's file URLs, with their error and security cases.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp, testStorage } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { isSafeKey, matchesSignature, safeFileName } from "../../api/src/storage/storage.ts";
import { LocalDiskStorage, WriteError } from "../../api/src/storage/local.ts";
import { presign, S3Storage } from "../../api/src/storage/s3.ts";
import { signFileToken, verifyFileToken } from "../../api/src/storage/tokens.ts";
import { storageFromEnv } from "../../api/src/storage/index.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const PDF = new TextEncoder().encode("%PDF-1.7\n%...\n");

const hmacKey = () => crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);

describe("tokens", () => {
  test("a token verifies for its purpose until it expires; a changed one never", async () => {
    const key = await hmacKey();
    const exp = Math.floor(Date.now() / 1000) + 60;
    const token = await signFileToken(key, { p: "put", k: "clients/1/a.png", t: "image/png", m: 100, exp });
    const ok = await verifyFileToken(key, token, "put");
    expect(ok).toEqual({ ok: true, claims: { p: "put", k: "clients/1/a.png", t: "image/png", m: 100, exp } });
    expect(await verifyFileToken(key, token, "get"), "a put token is not a get token").toEqual({ ok: false, problem: "wrong-purpose" });
    expect(await verifyFileToken(key, token, "put", (exp + 1) * 1000)).toEqual({ ok: false, problem: "expired" });
    const [body, sig] = token.split(".");
    const claims = JSON.parse(atob(body!.replace(/-/g, "+").replace(/_/g, "/")));
    const forged = btoa(JSON.stringify({ ...claims, m: 10 ** 12 }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    expect(await verifyFileToken(key, `${forged}.${sig}`, "put"), "changed claims").toEqual({ ok: false, problem: "invalid" });
    expect(await verifyFileToken(await hmacKey(), token, "put"), "another key").toEqual({ ok: false, problem: "invalid" });
    for (const junk of ["", "x", "a.b.c", "!!.??", `${body}.`]) expect((await verifyFileToken(key, junk, "put")).ok, junk).toBe(false);
  });
});

describe("keys and types", () => {
  test("keys are relative paths without dot segments", () => {
    expect(isSafeKey("clients/1003/projects/1/abc/bar.png")).toBe(true);
    for (const bad of ["", "/etc/passwd", "../x", "clients/../../x", "clients//x", "clients/./x", "a\\b", "a b", "clients/1/ü.png"]) {
      expect(isSafeKey(bad), bad).toBe(false);
    }
  });

  test("file names become safe segments with the type's extension", () => {
    expect(safeFileName("Bar shot #1.PNG", "image/png")).toBe("Bar-shot-1.png");
    expect(safeFileName("../../etc/passwd", "application/pdf")).toBe("etc-passwd.pdf");
    expect(safeFileName("évian.jpeg", "image/jpeg")).toBe("evian.jpg");
    expect(safeFileName("....", "video/mp4")).toBe("file.mp4");
  });

  test("content signatures", () => {
    expect(matchesSignature("image/png", PNG)).toBe(true);
    expect(matchesSignature("image/jpeg", JPEG)).toBe(true);
    expect(matchesSignature("application/pdf", PDF)).toBe(true);
    expect(matchesSignature("image/gif", new TextEncoder().encode("GIF89a...."))).toBe(true);
    expect(matchesSignature("image/webp", new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBe(true);
    expect(matchesSignature("video/mp4", new TextEncoder().encode("\0\0\0\x18ftypmp42"))).toBe(true);
    expect(matchesSignature("image/png", JPEG)).toBe(false);
    expect(matchesSignature("image/svg+xml", new TextEncoder().encode("<svg/>"))).toBe(false);
  });
});

describe("local disk", () => {
  let root: string;
  let store: LocalDiskStorage;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "ideally-storage-"));
    store = new LocalDiskStorage(root, await hmacKey());
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const stream = (...chunks: Uint8Array[]) => new Blob(chunks as BlobPart[]).stream();

  test("a write lands whole under its key and never overwrites", async () => {
    const size = await store.write("clients/1/a/x.png", stream(PNG, PNG), "image/png", 1000);
    expect(size).toBe(PNG.length * 2);
    expect(new Uint8Array(await readFile(join(root, "clients/1/a/x.png")))).toEqual(new Uint8Array([...PNG, ...PNG]));
    await expect(store.write("clients/1/a/x.png", stream(PNG), "image/png", 1000)).rejects.toThrow(WriteError);
    expect((await readdir(join(root, "clients/1/a"))).sort(), "no temporary files left").toEqual(["x.png"]);
  });

  test("oversize, wrong content and empty bodies are refused and leave nothing behind", async () => {
    const big = new Uint8Array(2000).fill(1);
    big.set(PNG);
    for (const [what, body, type, problem] of [
      ["oversize", stream(big), "image/png", "too-large"],
      ["a JPEG sent as PNG", stream(JPEG), "image/png", "wrong-type"],
      ["empty", stream(), "image/png", "empty"],
    ] as const) {
      const err = await store.write(`clients/1/b/${what.replace(/\W/g, "")}.png`, body, type, 1000).catch((e) => e);
      expect(err, what).toBeInstanceOf(WriteError);
      expect((err as WriteError).problem, what).toBe(problem);
    }
    expect(await readdir(join(root, "clients/1/b")), "nothing written").toEqual([]);
  });

  test("keys cannot leave the root", async () => {
    expect(() => store.pathOf("../outside.png")).toThrow();
    expect(() => store.pathOf("/etc/passwd")).toThrow();
    expect(await store.read("clients/1/none.png")).toBe(null);
  });
});

describe("S3 presigning (SigV4)", () => {
  test("AWS's published example of a presigned URL", async () => {
    // Amazon S3 API Reference, "Authenticating Requests: Using Query Parameters", example.
    const url = await presign({
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/test.txt",
      region: "us-east-1",
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      expiresIn: 86400,
      date: new Date("2013-05-24T00:00:00Z"),
    });
    expect(url).toBe(
      "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    );
  });

  test("upload URLs sign the content type (and the length when known); path style by default", async () => {
    const s3 = new S3Storage({ endpoint: "http://127.0.0.1:9000", bucket: "ideally", accessKeyId: "AK", secretAccessKey: "SK", region: "us-east-1", virtualHosted: false });
    const up = await s3.uploadUrl({ key: "clients/1/projects/2/u/bar.png", contentType: "image/png", maxBytes: 100, size: 42, baseUrl: "http://api" });
    const u = new URL(up.url);
    expect(u.origin + u.pathname).toBe("http://127.0.0.1:9000/ideally/clients/1/projects/2/u/bar.png");
    expect(u.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect(u.searchParams.get("X-Amz-Expires")).toBe("900");
    expect(up.headers).toEqual({ "content-type": "image/png", "content-length": "42" });
    const down = await s3.downloadUrl({ key: "clients/1/x.pdf", contentType: "application/pdf", fileName: "Brief.pdf", baseUrl: "http://api" });
    expect(new URL(down.url).searchParams.get("response-content-disposition")).toContain("Brief.pdf");
    const vh = new S3Storage({ endpoint: "https://s3.eu-west-1.amazonaws.com", bucket: "b", accessKeyId: "AK", secretAccessKey: "SK", region: "eu-west-1", virtualHosted: true });
    expect(vh.objectUrl("k/x.png")).toBe("https://b.s3.eu-west-1.amazonaws.com/k/x.png");
  });

  test("configuration: all four S3 variables or none", async () => {
    const key = await hmacKey();
    expect(storageFromEnv({}, { dataDir: "/tmp/x", signingKey: key }).kind).toBe("local");
    expect(() => storageFromEnv({ S3_ENDPOINT: "http://minio:9000", S3_BUCKET: "b" }, { dataDir: "/tmp/x", signingKey: key })).toThrow(/S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY/);
    const s3 = storageFromEnv({ S3_ENDPOINT: "http://minio:9000/", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "a", S3_SECRET_ACCESS_KEY: "s" }, { dataDir: "/tmp/x", signingKey: key });
    expect(s3.kind).toBe("s3");
    expect(() => storageFromEnv({ S3_ENDPOINT: "minio", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "a", S3_SECRET_ACCESS_KEY: "s" }, { dataDir: "/tmp/x", signingKey: key })).toThrow(/http/);
  });
});

describe("the file calls", () => {
  let tdb: TestDb;
  let app: App;
  beforeAll(async () => {
    tdb = await createTestDb();
    app = testApp(tdb.db);
  });
  afterAll(async () => {
    await tdb.drop();
    await rm(testStorage.root, { recursive: true, force: true });
  });

  const acme = (method: string, path: string, body?: unknown) => call(app, "acmeUser", 1003, method, path, body);
  const uploadUrl = async (projectId: number, fileName: string, fileType: string, extra = "") => {
    const res = await acme("GET", `/api/v1/Projects(${projectId})/FileUploadUrl?fileName=${encodeURIComponent(fileName)}&fileType=${encodeURIComponent(fileType)}${extra}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { url: string; method: string; headers: Record<string, string>; key: string; expiresAt: string; maxBytes: number };
  };
  const put = (url: string, body: BodyInit, contentType: string) => app.request(url, { method: "PUT", headers: { "content-type": contentType }, body });

  test("round trip: two test options with uploaded images, read back through ProjectFileUrls", async () => {
    const p = await acme("POST", "/api/v1/Projects", { projectName: "With pictures", projectTypeId: 1, frameworkId: 1000, regionIds: [1, 2] });
    const projectId = p.body.id as number;
    const files = [
      { name: "Protein bar.png", type: "image/png", bytes: PNG },
      { name: "Berry bar.jpg", type: "image/jpeg", bytes: JPEG },
    ];
    for (const [i, f] of files.entries()) {
      const u = await uploadUrl(projectId, f.name, f.type);
      expect(u.method).toBe("PUT");
      expect(u.key.startsWith(`clients/1003/projects/${projectId}/`), "the key names the tenant and project").toBe(true);
      expect(u.url.startsWith("http://localhost/api/files/upload?token=")).toBe(true);
      expect(u.maxBytes).toBe(20 * 1024 * 1024);
      expect(Date.parse(u.expiresAt) - Date.now()).toBeGreaterThan(14 * 60 * 1000);
      const up = await put(u.url, f.bytes, u.headers["content-type"]!);
      expect(up.status, await up.clone().text()).toBe(201);
      expect(await up.json()).toEqual({ key: u.key, fileType: f.type, size: f.bytes.length });
      const t = await acme("POST", "/api/v1/TestOptions", { projectId, conceptText: `Option ${i + 1}`, file: { key: u.key, fileType: f.type, fileName: f.name } });
      expect(t.status).toBe(201);
    }
    // A question with a PDF too.
    const pdf = await uploadUrl(projectId, "Brief.pdf", "application/pdf");
    expect((await put(pdf.url, PDF, "application/pdf")).status).toBe(201);
    const q = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Does this brief make sense?",
      questionTypeId: 3,
      questionPositionId: 6,
      s3File: { key: pdf.key, fileType: "application/pdf", fileName: "Brief.pdf" },
    });
    expect(q.status, JSON.stringify(q.body)).toBe(201);

    const urls = await call(app, "acmeViewer", 1003, "GET", `/api/v1/Projects(${projectId})/ProjectFileUrls`);
    expect(urls.status, JSON.stringify(urls.body)).toBe(200);
    const value = urls.body.value as { source: string; key: string; fileType: string; fileName: string; signedUrl: string; expiresAt: string }[];
    expect(value.map((v) => [v.source, v.fileName])).toEqual([
      ["testOption", "Protein bar.png"],
      ["testOption", "Berry bar.jpg"],
      ["question", "Brief.pdf"],
    ]);
    for (const [i, f] of [...files, { name: "Brief.pdf", type: "application/pdf", bytes: PDF }].entries()) {
      const res = await app.request(value[i]!.signedUrl);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(f.type);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toContain("sandbox");
      expect(res.headers.get("content-disposition")).toContain("inline");
      expect(new Uint8Array(await res.arrayBuffer()), f.name).toEqual(f.bytes);
    }
  });

  test("upload refusals: tampered and expired tokens, wrong type, oversize, wrong content, a second upload", async () => {
    const teamB = await acme("GET", "/api/v1/Projects(1004)/FileUploadUrl?fileName=x.png&fileType=image/png");
    expect(teamB.status, "project 1004 is Team B's: not Team A's to upload to").toBe(404);
    const p = await acme("POST", "/api/v1/Projects", { projectName: "Refusals", projectTypeId: 1, frameworkId: 1000 });
    const good = await uploadUrl(p.body.id, "x.png", "image/png");

    const token = new URL(good.url, "http://localhost").searchParams.get("token")!;
    const tampered = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    const t1 = await put(`/api/files/upload?token=${tampered}`, PNG, "image/png");
    expect(t1.status, "tampered").toBe(403);
    expect((await t1.json()).message).toBe("This file link is not valid");

    const expired = await testStorage.uploadUrl({ key: `clients/1003/projects/${p.body.id}/old/x.png`, contentType: "image/png", maxBytes: 100, baseUrl: "", expiresIn: -1 });
    const t2 = await put(expired.url, PNG, "image/png");
    expect(t2.status, "expired").toBe(403);
    expect((await t2.json()).message).toBe("This file link has expired: ask for a new one");

    const t3 = await put(good.url, PNG, "image/jpeg");
    expect(t3.status, "sent as another type than signed").toBe(400);
    expect((await t3.json()).message).toBe("The upload must be sent as image/png");

    const small = await testStorage.uploadUrl({ key: `clients/1003/projects/${p.body.id}/small/x.png`, contentType: "image/png", maxBytes: 10, baseUrl: "" });
    const t4 = await put(small.url, PNG, "image/png");
    expect(t4.status, "oversize").toBe(413);
    const streamed = new Blob([PNG]).stream();
    const t4b = await app.request(small.url, { method: "PUT", headers: { "content-type": "image/png" }, body: streamed, duplex: "half" } as RequestInit);
    expect(t4b.status, "oversize without a content-length").toBe(413);

    const t5 = await put(good.url, JPEG, "image/png");
    expect(t5.status, "a JPEG body sent as PNG").toBe(400);

    expect((await put(good.url, PNG, "image/png")).status).toBe(201);
    const again = await put(good.url, PNG, "image/png");
    expect(again.status, "the link uploads once").toBe(409);
    expect((await again.json()).message).toBe("A file was already uploaded with this link");

    const getToken = new URL((await testStorage.downloadUrl({ key: good.key, baseUrl: "" })).url, "http://localhost").searchParams.get("token")!;
    expect((await put(`/api/files/upload?token=${getToken}`, PNG, "image/png")).status, "a download token does not upload").toBe(403);
    expect((await app.request(`/api/files/download?token=${token}`)).status, "an upload token does not download").toBe(403);
    expect((await app.request("/api/files/upload", { method: "PUT" })).status, "no token").toBe(400);
  });

  test("an upload may not exceed the size declared for its link: at the size 201, one byte over 413 (issue 19)", async () => {
    const p = await acme("POST", "/api/v1/Projects", { projectName: "Declared sizes", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
    const exact = await uploadUrl(p.body.id, "a.png", "image/png", `&fileSize=${PNG.length}`);
    expect(exact.maxBytes).toBe(PNG.length);
    expect((await put(exact.url, PNG, "image/png")).status).toBe(201);
    const under = await uploadUrl(p.body.id, "b.png", "image/png", `&fileSize=${PNG.length - 1}`);
    expect(under.maxBytes).toBe(PNG.length - 1);
    const over = await put(under.url, PNG, "image/png");
    expect(over.status).toBe(413);
    expect(((await over.json()) as { typename: string }).typename).toBe("PayloadTooLarge");
  });

  test("a crafted file key (clients/1003/../1004/...) is never signed, and a link naming one is a 400, not a 500 (issue 19)", async () => {
    const p = await acme("POST", "/api/v1/Projects", { projectName: "Crafted key", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
    const crafted = "clients/1003/../1004/projects/1/x.png";
    await tdb.db`insert into test_options (client_id, project_id, concept_text, sort_order, file) values (1003, ${p.body.id}, 'Crafted', 1, ${tdb.db.json({ key: crafted, fileType: "image/png", fileName: "x.png" })})`;
    const urls = await call(app, "acmeViewer", 1003, "GET", `/api/v1/Projects(${p.body.id})/ProjectFileUrls`);
    expect(urls.status).toBe(200);
    expect(urls.body.value ?? urls.body, "the crafted key is not signed").toEqual([]);
    // A link for such a key (signed before this fix, or by a bug) is refused as a bad link.
    const signed = await testStorage.downloadUrl({ key: crafted, baseUrl: "http://localhost" });
    const res = await app.request(signed.url);
    expect(res.status).toBe(400);
    expect((await res.json()) as { typename: string; message: string }).toMatchObject({ typename: "BadRequest", message: "This file link names a key that is not a plain file key" });
    expect(res.headers.get("x-error-trace-id")).toBeTruthy();
  });

  test("FileUploadUrl refusals: type, size, Viewer, another tenant", async () => {
    const bad = await acme("GET", "/api/v1/Projects(1001)/FileUploadUrl?fileName=x.svg&fileType=image/svg%2Bxml");
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("fileType");
    expect(bad.body.message).toBe("Files of type image/svg+xml are not accepted");
    const big = await acme("GET", `/api/v1/Projects(1001)/FileUploadUrl?fileName=x.png&fileType=image/png&fileSize=${21 * 1024 * 1024}`);
    expect(big.status).toBe(413);
    const video = await acme("GET", `/api/v1/Projects(1001)/FileUploadUrl?fileName=ad.mp4&fileType=video/mp4&fileSize=${50 * 1024 * 1024}`);
    expect(video.status, "videos may be larger").toBe(200);
    expect((await acme("GET", "/api/v1/Projects(1001)/FileUploadUrl?fileType=image/png")).status, "no fileName").toBe(400);
    expect((await call(app, "acmeViewer", 1003, "GET", "/api/v1/Projects(1001)/FileUploadUrl?fileName=x.png&fileType=image/png")).status).toBe(403);
    expect((await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1001)/FileUploadUrl?fileName=x.png&fileType=image/png")).status, "shared, read only").toBe(404);
    expect((await call(app, "globexAdmin", 1003, "GET", "/api/v1/Projects(1001)/FileUploadUrl?fileName=x.png&fileType=image/png")).status).toBe(403);
  });

  test("Clients FileUploadUrl: the client named by the header, members who write", async () => {
    const ok = await acme("GET", "/api/v1/Clients(1003)/FileUploadUrl?fileName=logo.png&fileType=image/png");
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.key.startsWith("clients/1003/files/")).toBe(true);
    expect((await put(ok.body.url, PNG, "image/png")).status).toBe(201);
    const otherClient = await acme("GET", "/api/v1/Clients(2001)/FileUploadUrl?fileName=logo.png&fileType=image/png");
    expect(otherClient.status, "another client than the header").toBe(400);
    expect(otherClient.body.message).toBe("Name the same client in the clientId header");
    expect((await call(app, "acmeUser", 2001, "GET", "/api/v1/Clients(2001)/FileUploadUrl?fileName=logo.png&fileType=image/png")).status).toBe(403);
    expect((await call(app, "acmeViewer", 1003, "GET", "/api/v1/Clients(1003)/FileUploadUrl?fileName=logo.png&fileType=image/png")).status).toBe(403);
  });

  test("ProjectFileUrls: signs only the project's own client's keys; other tenants see nothing; links expire", async () => {
    // A test option whose JSON names another tenant's file (written around the API) is skipped.
    await tdb.db`update test_options set file = '{"key": "clients/2001/secret.png", "fileType": "image/png"}' where id = 1002`;
    const res = await acme("GET", "/api/v1/Projects(1001)/ProjectFileUrls");
    expect(res.status).toBe(200);
    expect(res.body.value.map((v: { key: string }) => v.key)).toEqual(["clients/1003/bar1.png"]);
    const missing = await app.request(res.body.value[0].signedUrl);
    expect(missing.status, "signed, but never uploaded").toBe(404);
    expect((await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(2002)/ProjectFileUrls")).body.value).toEqual([]);
    expect((await acme("GET", "/api/v1/Projects(2001)/ProjectFileUrls")).status, "Globex's project").toBe(404);
    const shared = await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1001)/ProjectFileUrls");
    expect(shared.status, "a project shared with Globex shows its files").toBe(200);
    const expired = await testStorage.downloadUrl({ key: "clients/1003/bar1.png", baseUrl: "", expiresIn: -1 });
    expect((await app.request(expired.url)).status).toBe(403);
    expect((await app.request("/api/files/download?token=abc.def")).status).toBe(403);
  });
});
