// Reading and checking what an admin gives us about their identity provider: a SAML metadata
// document, or its parts (entry point, signing certificate, issuer). Checked when configured, so
// a bad certificate is a 400 on the security page, not a failed sign-in for every user later.
import { X509Certificate } from "node:crypto";
import { DOMParser } from "@xmldom/xmldom";
import * as xpath from "xpath";
import { ApiError } from "../errors.ts";

export interface IdpSettings {
  entryPoint: string;
  idpIssuer: string;
  /** PEM certificates the IdP signs with. */
  certs: string[];
  wantAuthnRequestsSigned: boolean;
}

export interface CertInfo {
  subject: string;
  notAfter: string;
  fingerprintSha256: string;
}

const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";

export function invalid(field: string, message: string): ApiError {
  return new ApiError("ValidationError", `Invalid ${field}`, undefined, [{ path: field, message }]);
}

/** A certificate as PEM, or as the bare base64 of a metadata document; answers its PEM form. */
export function parseCertificate(text: string, field: string, now = Date.now()): string {
  const b64 = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
  if (!b64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw invalid(field, "is not a PEM or base64 X.509 certificate");
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0)));
  } catch {
    throw invalid(field, "is not a readable X.509 certificate");
  }
  const type = cert.publicKey.asymmetricKeyType;
  if (type !== "rsa" && type !== "ec") throw invalid(field, `has a ${type ?? "unknown"} key; SAML signatures need RSA or EC`);
  if (Date.parse(cert.validTo) <= now) throw invalid(field, `expired on ${new Date(cert.validTo).toISOString()}`);
  if (Date.parse(cert.validFrom) > now + 24 * 3600 * 1000) throw invalid(field, "is not valid yet");
  const lines = b64.match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n`;
}

/** What the security page shows of a stored certificate. */
export function certInfo(pem: string): CertInfo | null {
  try {
    const c = new X509Certificate(pem);
    return { subject: c.subject.replace(/\n/g, ", "), notAfter: new Date(c.validTo).toISOString(), fingerprintSha256: c.fingerprint256 };
  } catch {
    return null;
  }
}

export function parseEntryPoint(url: string, field: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalid(field, "is not a URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalid(field, "must be an http(s) URL");
  return u.toString();
}

const select = (expr: string, node: Node) => xpath.select(expr, node) as Node[];
const attr = (node: Node | undefined, name: string) => (node as Element | undefined)?.getAttribute?.(name) ?? null;

/** Reads an IdP's SAML 2.0 metadata document (an EntityDescriptor with an IDPSSODescriptor). */
export function parseIdpMetadata(xml: string, field = "metadataXml", now = Date.now()): IdpSettings {
  // No DTDs at all: entity expansion is the classic XML bomb, and metadata never needs one.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw invalid(field, "must not contain a DOCTYPE");
  const problems: string[] = [];
  const onError = (m: string) => problems.push(m.split("\n")[0]!);
  const doc = new DOMParser({ errorHandler: { warning: () => {}, error: onError, fatalError: onError } }).parseFromString(xml, "text/xml");
  if (problems.length || !doc?.documentElement) throw invalid(field, `is not well-formed XML (${problems[0] ?? "empty"})`);

  const entities = select("//*[local-name()='EntityDescriptor'][*[local-name()='IDPSSODescriptor']]", doc);
  if (entities.length !== 1) {
    throw invalid(field, entities.length ? "describes more than one identity provider" : "has no EntityDescriptor with an IDPSSODescriptor");
  }
  const entity = entities[0]!;
  const idpIssuer = attr(entity, "entityID");
  if (!idpIssuer) throw invalid(field, "has no entityID");
  const sso = select("./*[local-name()='IDPSSODescriptor']", entity)[0]!;

  const redirect = select("./*[local-name()='SingleSignOnService']", sso).find((n) => attr(n, "Binding") === REDIRECT_BINDING);
  const location = attr(redirect, "Location");
  if (!location) throw invalid(field, "has no SingleSignOnService with the HTTP-Redirect binding");
  const entryPoint = parseEntryPoint(location, field);

  const certNodes = select("./*[local-name()='KeyDescriptor'][not(@use) or @use='signing']//*[local-name()='X509Certificate']", sso);
  if (!certNodes.length) throw invalid(field, "has no signing certificate (KeyDescriptor with X509Certificate)");
  const certs: string[] = [];
  for (const n of certNodes) {
    try {
      certs.push(parseCertificate(n.textContent ?? "", field, now));
    } catch (e) {
      // An expired certificate beside a current one is a rollover in progress: keep the current.
      if (certNodes.length === 1) throw e;
    }
  }
  if (!certs.length) throw invalid(field, "has no signing certificate that is currently valid");
  return {
    entryPoint,
    idpIssuer,
    certs: [...new Set(certs)],
    wantAuthnRequestsSigned: attr(sso, "WantAuthnRequestsSigned") === "true",
  };
}
