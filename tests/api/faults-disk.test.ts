// Fault: the uploads disk is full. Uploads go to a 64 KiB tmpfs (mounted by this test; it needs
// root, as CI runs): a file that does not fit is refused with 507 InsufficientStorage and a clear
// message, its temporary file is gone, nothing is linked at its key and no row refers to it; a
// file that fits still uploads afterwards (the space was given back).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { LocalDiskStorage } from "../../api/src/storage/local.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
const dir = mkdtempSync(join(tmpdir(), "ideally-full-disk-"));
const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).exitCode === 0;

beforeAll(async () => {
  tdb = await createTestDb();
  const key = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  app = testApp(tdb.db, { storage: new LocalDiskStorage(dir, key) });
});
afterAll(async () => {
  if (mounted) Bun.spawnSync(["umount", dir]);
  await rm(dir, { recursive: true, force: true });
  await tdb.drop();
});

const PNG_HEAD = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const png = (bytes: number) => {
  const b = new Uint8Array(bytes);
  b.set(PNG_HEAD);
  return b;
};
const files = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? files(join(d, n)) : [join(d, n)]));

test.skipIf(!mounted)("a full uploads disk: 507 with a clear message, no temporary file, no file, no row; space comes back", async () => {
  const acme = (method: string, path: string, body?: unknown) => call(app, "acmeUser", 1003, method, path, body);
  const p = await acme("POST", "/api/v1/Projects", { projectName: "Full disk", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const projectId = p.body.id as number;
  const url = async (name: string) => (await acme("GET", `/api/v1/Projects(${projectId})/FileUploadUrl?fileName=${name}&fileType=image/png`)).body as { url: string; key: string };

  const big = await url("big.png");
  const res = await app.request(big.url, { method: "PUT", headers: { "content-type": "image/png" }, body: png(512 * 1024) });
  expect(res.status, "no space: 507").toBe(507);
  expect(res.headers.get("x-error-trace-id"), "a trace id to quote").toBeTruthy();
  expect(await res.json()).toEqual({ typename: "InsufficientStorage", message: "There is no space left to store the file; try again later" });
  expect(files(dir), "no temporary or partial file is left").toEqual([]);
  const listed = await acme("GET", `/api/v1/Projects(${projectId})/ProjectFileUrls`);
  expect(listed.body.value ?? listed.body, "no row refers to a file").toEqual([]);

  const small = await url("small.png");
  const ok = await app.request(small.url, { method: "PUT", headers: { "content-type": "image/png" }, body: png(4096) });
  expect(ok.status, "a file that fits uploads: the failed one's space was freed").toBe(201);
  expect(
    files(dir).map((f) => f.slice(dir.length + 1)),
    "only the stored file",
  ).toEqual([small.key]);
});
