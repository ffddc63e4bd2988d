// The server hands out absolute addresses built from its configured PUBLIC_URL (signed upload
// links, the websocket), never from the request's Host header (docs/security.md). A page opened at
// another address of the same server (127.0.0.1 where PUBLIC_URL says localhost) cannot reach them:
// its Content-Security-Policy allows only its own origin, and the browser's refusal looks like a
// network failure, which the app does not report (issue 38: the upload dialog just stayed open).

/**
 * Why an address the server gave cannot be used from this page, in words; null when it can (same
 * host and port; the websocket's ws:/wss: scheme is the page's http:/https:).
 */
export function unreachableFromHere(url: string, here: { host: string; href: string } = location): string | null {
  const u = new URL(url, here.href);
  if (u.host === here.host) return null;
  const open = `${u.protocol.replace(/^ws/, "http")}//${u.host}`;
  return `This page is open at ${here.host}, but the server is set up to be reached at ${u.host} (its PUBLIC_URL). Open Ideally at ${open} to do this.`;
}
