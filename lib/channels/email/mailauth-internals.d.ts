/**
 * The parts of mailauth's DKIM signer that `signDkim` (./mime.ts) reuses: its header parsing,
 * relaxed canonicalization and signature header formatting. CommonJS modules without typings of
 * their own; only what is called is declared.
 */
declare module "mailauth/lib/tools" {
  interface ParsedHeader {
    key: string;
    casedKey: string;
    line: Buffer;
  }
  export function parseHeaders(buf: Buffer): { parsed: ParsedHeader[]; original: Buffer };
  export function getSigningHeaderLines(
    parsed: ParsedHeader[],
    fieldNames: string,
  ): { keys: string; headers: ParsedHeader[] };
  export function formatSignatureHeaderLine(type: "DKIM", values: Record<string, unknown>, folded: boolean): string;
}

declare module "mailauth/lib/dkim/body" {
  export function dkimBody(
    canonicalization: string,
    hashAlgo: string,
    maxBodyLength: number | false,
  ): { update(chunk: Buffer): void; digest(encoding: "base64"): string };
}

declare module "mailauth/lib/dkim/header" {
  export function generateCanonicalizedHeader(
    type: "DKIM",
    lines: { keys: string; headers: unknown[] },
    options: {
      signingDomain: string;
      selector: string;
      algorithm: string;
      canonicalization: string;
      signTime?: Date;
      bodyHash: string;
    },
  ): { canonicalizedHeader: Buffer; signatureHeaderLine: string; dkimHeaderOpts: Record<string, unknown> };
}
