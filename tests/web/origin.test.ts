// A page opened at another address of the server (127.0.0.1 where PUBLIC_URL says localhost): the
// upload link and the websocket the server gives are refused by the page's CSP, which looked like a
// network failure and was not reported (issue 38). The check that names it instead.
import { expect, test } from "bun:test";
import { unreachableFromHere } from "../../web/src/lib/origin.ts";

const at = (href: string) => ({ href, host: new URL(href).host });

test("the same host and port: usable, for http and for the websocket", () => {
  expect(unreachableFromHere("http://localhost:3000/api/files/upload?token=x", at("http://localhost:3000/1/projects/2"))).toBeNull();
  expect(unreachableFromHere("ws://localhost:3000/ws?t=1", at("http://localhost:3000/1/home"))).toBeNull();
  expect(unreachableFromHere("wss://ideally.example/ws", at("https://ideally.example/1/home"))).toBeNull();
  expect(unreachableFromHere("/api/files/upload", at("http://127.0.0.1:3000/"))).toBeNull();
});

test("another host or port: says where the page is, where the server is, and where to open it", () => {
  expect(unreachableFromHere("http://localhost:3000/api/files/upload?token=x", at("http://127.0.0.1:3000/1/projects/2"))).toBe(
    "This page is open at 127.0.0.1:3000, but the server is set up to be reached at localhost:3000 (its PUBLIC_URL). Open Ideally at http://localhost:3000 to do this.",
  );
  expect(unreachableFromHere("wss://ideally.example/ws", at("http://10.0.0.5:3000/"))).toBe(
    "This page is open at 10.0.0.5:3000, but the server is set up to be reached at ideally.example (its PUBLIC_URL). Open Ideally at https://ideally.example to do this.",
  );
  expect(unreachableFromHere("http://localhost:3001/x", at("http://localhost:3000/"))).not.toBeNull();
});
