// Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
// signed in to an account with its right password gets a cookie naming a device id, signed for that
// account. Its later sign-ins to that account are limited by their own failures only, never by
// failures elsewhere: an attacker rotating addresses slows the account for everyone else (the
// account-wide spacing, auth.service.ts) but cannot keep its owner out on their own device
// (issue 38). The cookie proves nothing but a past sign-in: the password is still checked.
const enc = new TextEncoder();

export const DEVICE_COOKIE = "ideally_device";
/** How long a device stays known without signing in again. */
export const DEVICE_DAYS = 365;

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function signature(key: CryptoKey, email: string, deviceId: string): Promise<string> {
  // Its own prefix: a device signature is never a valid signature of anything else this key signs.
  return b64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`device-cookie|${email.trim().toLowerCase()}|${deviceId}`))));
}

/** The cookie's value for this account: the device id given (the device kept) or a new one. */
export async function deviceCookieValue(key: CryptoKey, email: string, deviceId: string = crypto.randomUUID()): Promise<string> {
  return `${deviceId}.${await signature(key, email, deviceId)}`;
}

/** The device id of a cookie signed for this account; null for none, another account's, or a forged one. */
export async function trustedDevice(key: CryptoKey, email: string, value: string | undefined | null): Promise<string | null> {
  const m = value ? /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!m) return null;
  const expected = await signature(key, email, m[1]!);
  // Compared as HMACs of both, so the time taken says nothing of where they differ.
  const [a, b] = await Promise.all([m[2]!, expected].map(async (s) => new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(s)))));
  return a!.every((x, i) => x === b![i]) ? m[1]! : null;
}
