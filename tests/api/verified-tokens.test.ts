// The per-process memory of verified access tokens (auth/authenticate.ts verifiedTokens): a token
// verified once is not re-verified, but its expiry is checked on every use, and a token that was
// never verified (another signature, another key) is never taken from memory.
import { describe, expect, test } from "bun:test";
import { verifiedTokens } from "../../api/src/auth/authenticate.ts";
import { ACCESS_TOKEN_SECONDS, TokenError, hmacKey, signAccessToken } from "../../api/src/auth/jwt.ts";

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);

describe("verified tokens", () => {
  test("a remembered token is refused at its expiry (exp is the first refused instant), accepted 1 ms before", async () => {
    const key = await hmacKey("k1");
    const verify = verifiedTokens(key);
    const token = await signAccessToken(key, { sub: "9004", sid: "s" }, T0);
    const exp = Math.floor(T0 / 1000) * 1000 + ACCESS_TOKEN_SECONDS * 1000;
    expect((await verify(token, T0)).sub).toBe("9004");
    expect((await verify(token, exp - 1)).sub).toBe("9004");
    const late = await verify(token, exp).catch((e) => e);
    expect(late).toBeInstanceOf(TokenError);
    expect((late as TokenError).reason).toBe("expired");
    // And still refused afterwards (not put back by the refusal).
    expect(((await verify(token, exp + 1000).catch((e) => e)) as TokenError).reason).toBe("expired");
  });

  test("a token signed with another key is refused although a token with the same claims is remembered", async () => {
    const key = await hmacKey("k1");
    const other = await hmacKey("k2");
    const verify = verifiedTokens(key);
    const good = await signAccessToken(key, { sub: "9004", sid: "s" }, T0);
    const forged = await signAccessToken(other, { sub: "9004", sid: "s" }, T0);
    await verify(good, T0);
    expect(((await verify(forged, T0).catch((e) => e)) as TokenError).reason).toBe("signature");
    const [h, p] = good.split(".");
    expect(((await verify(`${h}.${p}.AAAA`, T0).catch((e) => e)) as TokenError).reason).toBe("signature");
  });

  test("beyond the kept number the oldest is forgotten and verified again (still accepted when valid)", async () => {
    const key = await hmacKey("k1");
    const verify = verifiedTokens(key, 2);
    const tokens = await Promise.all(["1", "2", "3"].map((sub) => signAccessToken(key, { sub, sid: "s" }, T0)));
    for (const t of tokens) await verify(t, T0);
    expect((await verify(tokens[0]!, T0 + 1000)).sub).toBe("1");
  });
});
