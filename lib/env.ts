import path from "node:path";
import { z } from "zod";

/**
 * The typed environment, parsed once when first imported. This is the only module that reads
 * `process.env`; everything else imports `env`. Every variable is documented in README.md.
 */
const boolish = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .transform((v) => v === "1" || v === "true" || v === "yes");

/** 32 key bytes from 64 hex characters or base64/base64url; null when it is neither. */
export function decodeKey(value: string): Buffer | null {
  const v = value.trim();
  if (/^[0-9a-f]{64}$/i.test(v)) return Buffer.from(v, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(v)) return null;
  const bytes = Buffer.from(v.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return bytes.length === 32 ? bytes : null;
}

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** PostgreSQL connection string. Unset: embedded PGlite in PGLITE_DIR. */
  DATABASE_URL: z.url().optional(),
  /** Connection pool size for PostgreSQL. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Data directory of the embedded database; `memory://` keeps it in memory (tests). */
  PGLITE_DIR: z.string().min(1).default(".data/pglite"),
  /** HTTP port and bind address of `npm run dev` / `npm start`. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("localhost"),
  /**
   * Server processes `npm start` runs (cluster mode: a primary forks that many workers sharing the
   * HTTP and SMTP ports; each runs the whole app). More than 1 needs PostgreSQL.
   */
  APP_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  /** Public base URL used in links and the OpenAPI `servers` entry. */
  PUBLIC_BASE_URL: z.url().optional(),
  /**
   * The Telegram Bot API root the telegram channel calls (`<root>/bot<token>/<method>`): the
   * operator's setting, so an http:// loopback root (a local Bot API server, a test fake) is allowed.
   */
  TELEGRAM_API_ROOT: z
    .url()
    .refine((v) => /^https?:$/.test(new URL(v).protocol), "must be an http(s) URL")
    .transform((v) => v.replace(/\/+$/, ""))
    .default("https://api.telegram.org"),
  /**
   * Text-to-speech for Telegram voice notes (lib/providers/tts): `espeak` speaks with espeak-ng
   * where it is installed (else a short silent note); `silent` always sends the silent note.
   */
  TTS_PROVIDER: z.enum(["espeak", "silent"]).default("espeak"),
  /** The espeak-ng program (a name on PATH or a path). */
  TTS_ESPEAK_PATH: z.string().min(1).default("espeak-ng"),
  /** Opus encoders tried in turn to make espeak-ng's WAV an Ogg Opus voice note (WAV is sent without either). */
  TTS_OPUSENC_PATH: z.string().min(1).default("opusenc"),
  TTS_FFMPEG_PATH: z.string().min(1).default("ffmpeg"),
  /**
   * Phone (lib/providers/telephony): the simulated carrier's clock — one step between an SMS's
   * status callbacks (queued → sent → delivered) — in milliseconds.
   */
  PHONE_SIM_STEP_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  /**
   * Letters (lib/letters, lib/providers/print): the simulated print centre's clock — the time between
   * a test letter's statuses (queued → processing → printable → submitted → in_transit → delivered).
   */
  LETTER_SIM_STEP_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  /** The simulated print centre's last status for test letters: `delivered`, or `undeliverable` to rehearse returns. */
  LETTER_SIM_END_STATE: z.enum(["delivered", "undeliverable"]).default("delivered"),
  /** Headless Chromium that renders letter templates to PDF (Debian's `chromium`, driven by playwright-core). */
  LETTER_CHROMIUM_PATH: z.string().min(1).default("/usr/bin/chromium"),
  /** Letter templates rendered at once per process (one warm browser, a page per render). */
  LETTER_RENDER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /**
   * The longest one PDF may take to read (lib/letters/pdf.ts: pdf-lib and pdfjs-dist parse it in a
   * worker thread, which is terminated past this): a slower PDF answers 422 instead of tying up the
   * server.
   */
  LETTER_PDF_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(10_000),
  /** PDFs read at once per process (each in its own worker thread; more wait in line). */
  LETTER_PDF_WORKERS: z.coerce.number().int().min(1).max(16).default(2),
  /** Letter price table (JSON merged over the defaults in lib/letters/price.ts), integer USD cents. */
  LETTER_PRICES: z.string().min(2).optional(),
  /**
   * Lob (lib/providers/print/lob.ts): with an API key, Lob prints the letters (`printMode` `live`)
   * instead of the simulated print centre. Lob's own `test_` keys make letters Lob never mails.
   */
  LOB_API_KEY: z.string().min(1).optional(),
  /** Lob's REST API root (a loopback fake in tests). */
  LOB_API_URL: z.url().default("https://api.lob.com/v1"),
  /** The secret of the Lob webhook that posts to `/v1/providers/lob/events` (`Lob-Signature`); unset: every Lob event is refused. */
  LOB_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Twilio: with an account SID the Twilio adapter is the telephony provider (else the simulated carrier). */
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  /**
   * Twilio's auth token: the key of `X-Twilio-Signature` on callbacks (and the Twilio adapter's
   * password). Unset: generated at first start and kept in the database (the simulated carrier signs with it).
   */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Twilio's REST API root (a loopback fake in tests). */
  TWILIO_API_URL: z.url().default("https://api.twilio.com"),
  /** A separate origin (ideally another site) that serves user content (signed attachment links);
   * when set, links are built on it and the console's origin refuses to serve user content. */
  USER_CONTENT_ORIGIN: z
    .url()
    .refine((v) => /^https?:$/.test(new URL(v).protocol), "must be an http(s) URL")
    .transform((v) => new URL(v).origin)
    .optional(),
  /** The CLI's API key (`svc <domain> <verb>`; `--key` overrides it). Read only by the CLI. */
  SVC_API_KEY: z.string().min(1).optional(),
  /** The base URL the CLI calls (`--url` overrides it; default http://localhost:3000). Checked by the CLI. */
  SVC_URL: z.string().min(1).optional(),
  /** Name of the shared sending domain every organization can use. */
  SHARED_DOMAIN: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/i)
    .default("svc.localhost"),
  /** Host name of this service's mail server: the MX target customers publish, and the SPF host. */
  MAIL_HOST: z.string().min(1).optional(),
  /** DNS servers for domain verification and mail authentication (comma-separated, `ip` or `ip:port`); unset: the system's. */
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    ),
  /** Where stored bytes (attachments, bucket objects) live: `filesystem` (STORAGE_DIR, the embedded
   * default) or `s3` (any S3-compatible service). Unset: `s3` when S3_BUCKET is set, else `filesystem`. */
  STORAGE_BACKEND: z.enum(["filesystem", "s3"]).optional(),
  /** Directory of the filesystem storage backend. */
  STORAGE_DIR: z.string().min(1).default(".data/storage"),
  /** S3 storage: bucket, region, endpoint of an S3-compatible service (unset: AWS), path-style
   * addressing, the endpoint put into presigned URLs when clients reach the service elsewhere, and
   * static credentials (unset: the AWS SDK's default chain). */
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ENDPOINT: z.url().optional(),
  S3_PUBLIC_ENDPOINT: z.url().optional(),
  S3_FORCE_PATH_STYLE: boolish.default(false),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** The Slack Web API root (@slack/web-api's slackApiUrl); a loopback fake's in tests. */
  SLACK_API_URL: z.url().default("https://slack.com/api/"),
  /** Slack's OAuth v2 authorize page, where install URLs point. */
  SLACK_AUTHORIZE_URL: z.url().default("https://slack.com/oauth/v2/authorize"),
  /** The operator's Slack app, used by `managed` Slack apps (all four, or managed apps are refused). */
  SLACK_APP_ID: z.string().min(1).optional(),
  SLACK_CLIENT_ID: z.string().min(1).optional(),
  SLACK_CLIENT_SECRET: z.string().min(1).optional(),
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  /** Stored bytes that no database row owns (a rolled-back transaction, an abandoned upload) are
   * deleted by the hourly sweep once they are this old, seconds. */
  STORAGE_ORPHAN_GRACE_SECONDS: z.coerce.number().int().min(60).default(3600),
  /** Malware scanner: ClamAV's clamd at a Unix socket path (`/run/clamav/clamd.ctl`) or `host:port`.
   * Unset: the built-in scanner (the EICAR test file and a SHA-256 block list). */
  CLAMD_ADDRESS: z.string().min(1).optional(),
  /** Time limit of one clamd scan, ms. */
  CLAMD_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  /** Built-in scanner: an extra block list file, one `sha256[:size[:name]]` per line (ClamAV's .hsb format). */
  SCANNER_BLOCKLIST_FILE: z.string().min(1).optional(),
  /** Verification waits' LLM matcher: an OpenAI-compatible chat completions server (`…/v1`), its key and model.
   * Unset LLM_BASE_URL: the deterministic matcher alone. */
  LLM_BASE_URL: z.url().optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).default("gpt-4o-mini"),
  /** Time limit of one LLM call, ms (on timeout or error the deterministic matcher answers). */
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /**
   * Verification waits: the schedule of the sweep that emits `verification.expired` for waits past
   * their deadline (a cron expression; a leading seconds field works with the embedded executor only).
   */
  WAITS_SWEEP_CRON: z.string().min(1).default("* * * * *"),
  /** Outbound mail: `embedded` (local outbox with simulated outcomes) or `smtp` (SMTP_RELAY_URL). */
  MAIL_TRANSPORT: z.enum(["embedded", "smtp", "ses"]).default("embedded"),
  /** Amazon SES (MAIL_TRANSPORT=ses): region, optional configuration set (its event destination
   * is the SNS topic that posts to /v1/providers/ses/events) and endpoint override. Credentials come
   * from the AWS SDK's default chain. */
  SES_REGION: z.string().min(1).default("us-east-1"),
  SES_CONFIGURATION_SET: z.string().min(1).optional(),
  SES_ENDPOINT: z.url().optional(),
  /** Only accept SES notifications from this SNS topic ARN (recommended). */
  SES_SNS_TOPIC_ARN: z.string().min(1).optional(),
  /** `smtp://user:pass@host:587` or `smtps://…:465` for MAIL_TRANSPORT=smtp. */
  SMTP_RELAY_URL: z.url().optional(),
  /** Directory of the embedded transport's outbox (one .eml per external send). */
  OUTBOX_DIR: z.string().min(1).default(".data/outbox"),
  /**
   * How long a handoff (an entry of the transactional outbox, e.g. a message to its transport) is
   * leased to the process performing it; past it a relay of any process may take it over.
   */
  OUTBOX_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Inbound SMTP receiver: port (0 = off) and bind address. */
  SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2525),
  SMTP_HOST: z.string().min(1).default("127.0.0.1"),
  /** Largest inbound message the receiver accepts, bytes. */
  SMTP_MAX_BYTES: z.coerce.number().int().min(1024).default(26_214_400),
  /** Most MIME parts one inbound message may have (552 above it). */
  SMTP_MAX_MIME_PARTS: z.coerce.number().int().min(2).default(500),
  /** Concurrent SMTP connections, in all and from one client address (421 above either). */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(100),
  SMTP_MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).default(10),
  /** Message bytes one client address may send per hour (421 once it is spent; 0 = no limit). */
  SMTP_MAX_BYTES_PER_CLIENT_HOUR: z.coerce.number().int().min(0).default(524_288_000),
  /** Number of reverse proxies in front of the server whose X-Forwarded-For may be trusted. */
  TRUST_PROXY: z
    .string()
    .default("0")
    .transform((v) => (v === "true" ? 1 : v === "false" ? 0 : Number(v)))
    .pipe(z.number().int().min(0).max(10)),
  /** Requests per minute allowed for one API key or console session (counted in the database, for all processes). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  /** Failed API-key authentications per minute from one client address (IPv6: one /64) before 429. */
  API_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Seconds an authenticated key is remembered in the process (lib/api-keys/cache.ts); 0: off. */
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  /** Largest JSON request body accepted by default, in bytes. */
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** Hours an Idempotency-Key and its stored response are kept (at least 24). */
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(24).default(24),
  /** Days the API request log (`GET /v1/logs`) keeps a request; housekeeping purges older rows. 0 records nothing. */
  REQUEST_LOG_DAYS: z.coerce.number().int().min(0).max(365).default(7),
  /** Storage quota reported by whoami, bytes. */
  STORAGE_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(10 * 1024 ** 3),
  /** Largest file one bucket upload URL accepts, bytes. */
  BUCKET_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(100 * 1024 ** 2),
  /**
   * Inngest. With both keys set, workflows run on Inngest (cloud, or self-hosted at
   * INNGEST_BASE_URL) and the embedded executor stays off. With only a signing key, the embedded
   * executor signs its calls and the SDK verifies them.
   */
  INNGEST_EVENT_KEY: z.string().min(1).optional(),
  /** Use the Inngest dev server: `1`, or its URL (default http://localhost:8288). Embedded executor off. */
  INNGEST_DEV: z.string().min(1).optional(),
  INNGEST_SIGNING_KEY: z
    .string()
    .regex(/^signkey-[a-z0-9]+-.+$/i, "must look like signkey-<env>-<key>")
    .optional(),
  INNGEST_BASE_URL: z.url().optional(),
  /** With Inngest: the origin Inngest reaches this app's serve endpoint at (default PUBLIC_BASE_URL, else INTERNAL_URL). */
  INNGEST_SERVE_ORIGIN: z.url().optional(),
  /** How this process reaches its own HTTP server (the embedded executor calls the app's serve endpoint). */
  INTERNAL_URL: z.url().optional(),
  /** Runs the embedded executor works on at once, per process. */
  WORKFLOW_WORKERS: z.coerce.number().int().min(1).max(64).default(4),
  /** Members per broadcast chunk: one transaction makes that many members' messages (lib/audiences/broadcast-fanout.ts). */
  BROADCAST_CHUNK_SIZE: z.coerce.number().int().min(1).max(5000).default(200),
  /** First retry delay of a failed function or step; doubles each attempt (with jitter), capped at 1 h. */
  WORKFLOW_RETRY_BASE_MS: z.coerce.number().int().min(1).default(1000),
  /** Webhooks: plain http:// to loopback addresses (development only). */
  WEBHOOK_ALLOW_LOOPBACK_HTTP: boolish.default(false),
  /** Delay before each delivery attempt, ms (Svix's schedule: now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default("0,5000,300000,1800000,7200000,18000000,36000000,36000000")
    .transform((v) => v.split(",").map((x) => Number(x.trim())))
    .pipe(z.array(z.number().int().min(0)).min(1).max(20)),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  /** Consecutive failed attempts after which the circuit breaker pauses an endpoint. */
  WEBHOOK_BREAKER_THRESHOLD: z.coerce.number().int().min(1).default(20),
  /** How long the previous secret keeps signing after a rotation, hours. */
  WEBHOOK_ROTATION_WINDOW_HOURS: z.coerce.number().min(0).default(24),
  /**
   * Console sign-in: the secret that encrypts session cookies and signs sign-in links. Unset: one
   * is generated on first start and kept in the database's system settings.
   */
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * Key-encryption key for secrets kept at rest (agent and service signing keys): 32 bytes as 64 hex
   * characters or base64/base64url. Unset: one is generated on first use and kept in the database's
   * system settings (zero setup, but then a copy of the database alone opens the secrets).
   */
  SECRETS_KEY: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === "" || decodeKey(v) !== null,
      "must be 32 bytes: 64 hex characters, or base64/base64url",
    ),
  /** The previous SECRETS_KEY while secrets are being re-encrypted under a new one (decryption only). */
  SECRETS_KEY_PREVIOUS: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === "" || decodeKey(v) !== null,
      "must be 32 bytes: 64 hex characters, or base64/base64url",
    ),
  /** Agent reputation (rolling 24 hours, recipient-denominated): bounce rate at which an agent is throttled. */
  REPUTATION_THROTTLE_BOUNCE_RATE: z.coerce.number().min(0).max(1).default(0.05),
  /** Bounce rate at which an agent is quarantined (its sends refused until an operator clears it). */
  REPUTATION_QUARANTINE_BOUNCE_RATE: z.coerce.number().min(0).max(1).default(0.1),
  /** Complaint rate at which an agent is throttled. */
  REPUTATION_THROTTLE_COMPLAINT_RATE: z.coerce.number().min(0).max(1).default(0.001),
  /** Complaint rate at which an agent is quarantined. */
  REPUTATION_QUARANTINE_COMPLAINT_RATE: z.coerce.number().min(0).max(1).default(0.005),
  /** Recipients an agent must have sent to in the window before its rates are judged. */
  REPUTATION_MIN_SENDS: z.coerce.number().int().min(1).default(20),
  /** Sends per rolling hour a throttled agent may make (more are 429 `rate_limited`). */
  REPUTATION_THROTTLED_SENDS_PER_HOUR: z.coerce.number().int().min(0).default(20),
  /** The region this deployment keeps its data in: audit export manifests and `GET /v1/compliance/residency` name it. */
  DATA_REGION: z.string().trim().min(1).max(64).default("local"),
  /** The data-residency posture `GET /v1/compliance/residency` states (unset: DATA_REGION). */
  DATA_RESIDENCY: z.string().trim().min(1).max(64).optional(),
  /** The company that controls this deployment's operator, when there is one (residency `controllerParent`). */
  CONTROLLER_PARENT: z.string().trim().min(1).max(200).optional(),
  /**
   * Subprocessors beyond those the configuration implies (SES, S3, an SMTP relay, Inngest Cloud), as a
   * JSON array of `{name, purpose, location, jurisdiction?, url?}`. Changing the list publishes a new
   * `subprocessorListVersion` and emits `subprocessor.changed`.
   */
  SUBPROCESSORS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v || v.trim() === "") return [];
      try {
        const parsed = z
          .array(
            z.strictObject({
              name: z.string().min(1).max(200),
              purpose: z.string().min(1).max(500),
              location: z.string().min(1).max(64),
              jurisdiction: z.string().length(2).nullable().optional(),
              url: z.url().nullable().optional(),
            }),
          )
          .max(100)
          .safeParse(JSON.parse(v));
        if (parsed.success) return parsed.data;
        ctx.addIssue({
          code: "custom",
          message: `must be a JSON array of {name, purpose, location, jurisdiction?, url?}: ${parsed.error.issues[0]?.message ?? ""}`,
        });
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON" });
      }
      return z.NEVER;
    }),
  /** Sender of the console's own mail (sign-in links, invitations). Unset: no-reply@<SHARED_DOMAIN>. */
  CONSOLE_MAIL_FROM: z.email().optional(),
  /** Who may create a console account: `open` (anyone) or `invite` (the first user, then invited addresses only). */
  CONSOLE_SIGNUP: z.enum(["open", "invite"]).default("open"),
  /**
   * Templates: the sandbox engine that renders react-email sources (`quickjs`, WebAssembly, installs
   * everywhere; or `isolated-vm`, which must be installed separately and needs `node --no-node-snapshot`),
   * its worker threads, and the time and memory one render may use.
   */
  TEMPLATE_SANDBOX: z.enum(["quickjs", "isolated-vm"]).default("quickjs"),
  TEMPLATE_RENDER_WORKERS: z.coerce.number().int().min(1).max(16).default(2),
  TEMPLATE_RENDER_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  TEMPLATE_RENDER_MEMORY_MB: z.coerce.number().int().min(16).max(1024).default(64),
  /** Renders one organization may run at once (default: half of TEMPLATE_RENDER_WORKERS, at least 1). */
  TEMPLATE_RENDER_TENANT_CONCURRENCY: z.coerce.number().int().min(1).max(16).optional(),
  /** Renders one organization may have waiting beyond those; more are refused with 429 rate_limited. */
  TEMPLATE_RENDER_TENANT_QUEUE: z.coerce.number().int().min(0).max(1000).default(16),
  /** Render workers reserved for the service's own mail (sign-in links, invitations). */
  TEMPLATE_RENDER_SYSTEM_WORKERS: z.coerce.number().int().min(0).max(4).default(1),
  /** Read only to check that isolated-vm's required `--no-node-snapshot` flag is in effect. */
  NODE_OPTIONS: z.string().optional(),
  /** Log level of the server's JSON logs. */
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Skip the boot-time migration (the app then expects an up-to-date schema). */
  SKIP_MIGRATIONS: boolish.default(false),
});

export type Env = z.infer<typeof schema>;

/** Settings that are valid one by one but not together. */
const checked = schema.superRefine((v, ctx) => {
  if (v.APP_PROCESSES > 1 && !v.DATABASE_URL) {
    ctx.addIssue({
      code: "custom",
      path: ["APP_PROCESSES"],
      message:
        "must be 1 on the embedded database (PGlite is opened by one process); set DATABASE_URL to a PostgreSQL database to run several processes",
    });
  }
});

function parseEnv(source: NodeJS.ProcessEnv): Env {
  const parsed = checked.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export const env: Env = parseEnv(process.env);

/** Absolute path of the embedded database directory, or null when it lives in memory. */
export function pgliteDir(): string | null {
  if (env.PGLITE_DIR.startsWith("memory://")) return null;
  return path.resolve(env.PGLITE_DIR);
}

/** True when workflows run on Inngest itself rather than the embedded executor. */
export const inngestHosted = (): boolean =>
  Boolean(
    (env.INNGEST_DEV && env.INNGEST_DEV !== "0" && env.INNGEST_DEV !== "false") ||
      (env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY),
  );

/** The MX target and SPF host of this deployment. */
export const mailHost = (): string => (env.MAIL_HOST ?? `mail.${env.SHARED_DOMAIN}`).toLowerCase();

/** The base URL this process uses to call its own HTTP server. */
export function internalUrl(): string {
  if (env.INTERNAL_URL) return env.INTERNAL_URL.replace(/\/$/, "");
  const host = env.HOST === "0.0.0.0" || env.HOST === "::" ? "127.0.0.1" : env.HOST;
  return `http://${host.includes(":") ? `[${host}]` : host}:${env.PORT}`;
}

/** The base URL people reach this service at (links in emails, signed downloads). */
export function publicBaseUrl(): string {
  return (env.PUBLIC_BASE_URL ?? internalUrl()).replace(/\/$/, "");
}

/** The base URL of user content links: USER_CONTENT_ORIGIN when configured, else the public base URL. */
export function userContentBaseUrl(): string {
  return env.USER_CONTENT_ORIGIN ?? publicBaseUrl();
}

/** The working directory the app was started from (migrations are found relative to it). */
export const projectRoot = process.cwd();
