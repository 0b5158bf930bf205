import type { z } from "zod";
import type { Db } from "@/db";
import type { Scope } from "@/lib/auth/scopes";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

/**
 * Who may call an operation: `public` (no key), `key` (any valid key, e.g. whoami), a scope, or
 * `session` (a signed-in console user's session cookie, never an API key; the handler checks the
 * organization role).
 */
export type Access = "public" | "key" | "session" | Scope;

/**
 * One operation of the API: everything a route handler, the OpenAPI document, the security suite
 * and the SDKs need to know about it. Request schemas are strict (unknown fields are rejected);
 * response schemas strip whatever a service returns beyond them, so internal columns never leak.
 */
export interface ContractSpec {
  /** operationId, unique. */
  id: string;
  method: Method;
  /** OpenAPI-style path, e.g. `/v1/api-keys/{keyId}`. */
  path: string;
  access: Access;
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
  /** Honour Idempotency-Key. Defaults to true for every method but GET. */
  idempotent?: boolean;
  /** A body field that serves as the idempotency key when the header is absent (`idempotencyKey`). */
  idempotencyKeyField?: string;
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

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** The typed input a handler of contract `C` receives. */
export interface HandlerInput<C extends ContractSpec, P> {
  /** The database, handed to services (route files never import `db/`). */
  db: Db;
  principal: P;
  params: Out<C["params"]>;
  query: Out<C["query"]>;
  body: Out<C["body"]>;
  requestId: string;
  ip: string | null;
}

/** What a `binary` operation's handler returns. */
export class BinaryBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly contentType: string,
    readonly filename: string | null = null,
  ) {}
}
