import type { z } from "zod";
import type { Scope } from "@/lib/auth/scopes";
import type { ErrorCode } from "./errors";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

/**
 * Who may call an operation: `public` (anyone), `key` (any organization actor, e.g. whoami), a
 * scope (an organization actor holding it: a key's scopes, a console role's scopes), or `session`
 * (a signed-in console user, never an API key; the service checks the organization role).
 */
export type Access = "public" | "key" | "session" | Scope;

/**
 * One operation: everything the adapters (HTTP, console, CLI, MCP), the OpenAPI document, the
 * security suite and the SDKs need to know about it. Client-safe: zod schemas and plain data only.
 * Request schemas are strict (unknown fields are rejected); response schemas strip whatever a
 * service returns beyond them, so internal columns never leak.
 */
export interface ContractSpec {
  /** operationId, unique. */
  id: string;
  method: Method;
  /** OpenAPI-style path, e.g. `/v1/api-keys/{keyId}`. */
  path: string;
  access: Access;
  /**
   * A `public` operation that also reads an API key when one is sent (MCP discovery): the key is
   * authenticated like any other (a bad one is 401) and the handler sees its principal.
   */
  acceptsKey?: boolean;
  summary: string;
  description?: string;
  tag: string;
  status?: "live" | "planned";
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  successStatus?: number;
  /**
   * The operation answers with bytes, not JSON: the handler returns a `BinaryBody` and `response`
   * is ignored except in the OpenAPI document.
   */
  binary?: boolean;
  /**
   * Media types the handler may also answer with instead of JSON, as a `RawReply` (a provider's
   * webhook that must be answered in its own format: Twilio's voice webhook takes TwiML,
   * `text/xml`). The JSON `response` stays the usual answer; the OpenAPI document lists both.
   */
  rawReplies?: readonly string[];
  /** Honour Idempotency-Key. Defaults to true for every method but GET. */
  idempotent?: boolean;
  /** A body field that serves as the idempotency key when the header is absent (`idempotencyKey`). */
  idempotencyKeyField?: string;
  /**
   * Top-level response fields that carry a secret shown once (`secret`). They are never stored under
   * an Idempotency-Key (the rest of the response is); a replay answers 409
   * `idempotency_key_replay_secret`, naming what the first request made.
   */
  secretFields?: readonly string[];
  /**
   * Error codes the operation's service can answer with, beyond the ones every operation of its
   * kind can get (400 `invalid_request`, 401, 403, 404 for path parameters, 409 in-use key, 413,
   * 429, 500), which the OpenAPI generator adds itself.
   */
  errors?: readonly ErrorCode[];
  /** Largest request body, bytes (defaults to MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** A valid request body: documentation, and what the generated security suite sends. */
  example?: unknown;
}

export type Contract<C extends ContractSpec = ContractSpec> = C & {
  status: "live" | "planned";
  successStatus: number;
  idempotent: boolean;
};

export function defineContract<const C extends ContractSpec>(spec: C): Contract<C> {
  return {
    ...spec,
    status: spec.status ?? "live",
    successStatus: spec.successStatus ?? 200,
    idempotent: spec.idempotent ?? spec.method !== "GET",
  };
}

/** What a `binary` operation's handler returns. */
export class BinaryBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly contentType: string,
    readonly filename: string | null = null,
  ) {}
}

/**
 * What a handler returns to answer in one of its contract's `rawReplies` media types instead of
 * JSON: the text is sent as it is, with `contentType`.
 */
export class RawReply {
  constructor(
    readonly body: string,
    readonly contentType: string,
  ) {}

  /** The media type without parameters, lower case (`text/xml`). */
  get mediaType(): string {
    return (this.contentType.split(";")[0] ?? "").trim().toLowerCase();
  }
}
