import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { errorFields, log } from "@/lib/log";
import { inboundFailureReply } from "@/lib/channels/email/inbound-policy";
import { receiveInbound, receivingMailbox } from "@/lib/channels/email/ingress";

/**
 * The built-in SMTP receiver: accepts mail only for active inboxes of this service (550 for
 * anything else), and hands each message to the email channel's ingress (`receiveInbound`: the adapter's `receive`, then the pipeline). Plain SMTP without TLS or AUTH: put
 * it behind an MTA or TLS terminator to face the internet.
 *
 * Resource limits, so one client cannot exhaust the process:
 * - a message is buffered only up to `maxBytes`: the chunk that passes it is dropped, 552 is
 *   answered at once (not after the end of DATA) and the connection is closed, so the rest of the
 *   message is never read into memory; clients that declare `SIZE` get 552 at MAIL FROM already;
 * - concurrent connections in all (`maxConnections`) and per client address
 *   (`maxConnectionsPerClient`), 421 above either;
 * - message bytes per client address per hour (`maxBytesPerClientHour`, 0 = none): 421 at MAIL
 *   FROM once spent, and mid-DATA the connection is closed with 421.
 * Mail that can never be accepted gets a permanent 5xx, other failures 451 (`inboundFailureReply`).
 */
export interface SmtpReceiverOptions {
  port: number;
  host: string;
  maxBytes: number;
  name: string;
  maxConnections?: number;
  maxConnectionsPerClient?: number;
  maxBytesPerClientHour?: number;
}

export interface SmtpReceiverStats {
  /** Open connections. */
  connections: number;
  /** Message bytes held in memory right now, and the most ever held at once. */
  bufferedBytes: number;
  peakBufferedBytes: number;
}

export interface SmtpReceiver {
  port: number;
  stats(): SmtpReceiverStats;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** The parts of smtp-server's connection object used to answer before the end of DATA. */
interface LiveConnection {
  session: SMTPServerSession;
  send(code: number, message: string): void;
  close(): void;
}

const HOUR_MS = 3_600_000;

export async function startSmtpReceiver(opts: SmtpReceiverOptions): Promise<SmtpReceiver> {
  const maxConnections = opts.maxConnections ?? 100;
  const perClient = opts.maxConnectionsPerClient ?? 10;
  const bytesPerHour = opts.maxBytesPerClientHour ?? 0;
  const open = new Map<string, Set<string>>(); // client address → session ids
  const spent = new Map<string, { since: number; bytes: number }>(); // client address → bytes this hour
  const stats = { bufferedBytes: 0, peakBufferedBytes: 0 };

  const addressOf = (session: SMTPServerSession) => session.remoteAddress || "unknown";
  const bytesSpent = (address: string) => {
    const now = Date.now();
    let entry = spent.get(address);
    if (!entry || now - entry.since >= HOUR_MS) {
      entry = { since: now, bytes: 0 };
      spent.set(address, entry);
    }
    return entry;
  };
  const pruneSpent = setInterval(() => {
    const now = Date.now();
    for (const [address, entry] of spent) if (now - entry.since >= HOUR_MS) spent.delete(address);
  }, 60_000);
  pruneSpent.unref();

  const server: SMTPServer = new SMTPServer({
    name: opts.name,
    banner: "svc mail receiver",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: opts.maxBytes,
    maxClients: maxConnections,
    logger: false,
    onConnect(session, callback) {
      const address = addressOf(session);
      const ids = open.get(address) ?? new Set<string>();
      if (ids.size >= perClient) {
        callback(smtpError(421, `4.7.0 too many connections from ${address}, try again later`));
        return;
      }
      ids.add(session.id);
      open.set(address, ids);
      callback();
    },
    onClose(session) {
      const address = addressOf(session);
      const ids = open.get(address);
      if (!ids) return;
      ids.delete(session.id);
      if (ids.size === 0) open.delete(address);
    },
    onMailFrom(_address, session, callback) {
      if (bytesPerHour > 0 && bytesSpent(addressOf(session)).bytes >= bytesPerHour) {
        callback(smtpError(421, "4.7.0 too much mail from your address this hour, try again later"));
        return;
      }
      callback();
    },
    onRcptTo(address, _session, callback) {
      receivingMailbox(address.address)
        .then((inbox) =>
          inbox ? callback() : callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`)),
        )
        .catch((err: unknown) => {
          log.error("smtp rcpt lookup failed", errorFields(err));
          callback(smtpError(451, "4.3.0 temporary failure, try again later"));
        });
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const address = addressOf(session);
      let chunks: Buffer[] = [];
      let buffered = 0;
      let refused: { code: number; message: string } | null = null;
      const release = () => {
        stats.bufferedBytes -= buffered;
        buffered = 0;
        chunks = [];
      };
      const refuse = (code: number, message: string) => {
        refused = { code, message };
        release();
        // Answer now; if the connection cannot be found, the rest is discarded and smtp-server
        // answers 552 itself at the end of DATA (its `size` check).
        answerAndClose(session, code, message);
      };
      stream.on("data", (chunk: Buffer) => {
        if (refused) return;
        if (bytesPerHour > 0) {
          const entry = bytesSpent(address);
          entry.bytes += chunk.length;
          if (entry.bytes > bytesPerHour)
            return refuse(421, "4.7.0 too much mail from your address this hour, try again later");
        }
        if (buffered + chunk.length > opts.maxBytes)
          return refuse(552, `5.3.4 message exceeds the ${opts.maxBytes}-byte limit`);
        chunks.push(chunk);
        buffered += chunk.length;
        stats.bufferedBytes += chunk.length;
        stats.peakBufferedBytes = Math.max(stats.peakBufferedBytes, stats.bufferedBytes);
      });
      stream.on("error", () => release()); // the client went away mid-message
      stream.on("end", () => {
        if (refused || stream.sizeExceeded) {
          release();
          const r = refused ?? { code: 552, message: `5.3.4 message exceeds the ${opts.maxBytes}-byte limit` };
          callback(smtpError(r.code, r.message));
          return;
        }
        const raw = Buffer.concat(chunks);
        release();
        receiveInbound(raw, {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          remoteAddress: session.remoteAddress ?? null,
          helo: session.hostNameAppearsAs ?? null,
        })
          .then(() => callback())
          .catch((err: unknown) => {
            const reply = inboundFailureReply(err);
            if (reply.permanent)
              log.warn("smtp message refused", { code: reply.code, reason: reply.message, remoteAddress: address });
            else log.error("smtp delivery failed", errorFields(err));
            callback(smtpError(reply.code, reply.message));
          });
      });
    },
  });
  /** Answers `code` now and closes the connection (the rest of the message is never read). */
  function answerAndClose(session: SMTPServerSession, code: number, message: string): boolean {
    const connections = server.connections as Set<LiveConnection>;
    const connection = [...connections].find((c) => c.session === session);
    if (!connection) return false;
    connection.send(code, message);
    if (code !== 421) connection.close(); // smtp-server closes after 421 itself
    return true;
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  server.on("error", (err) => log.error("smtp receiver error", errorFields(err)));
  const address = server.server.address();
  return {
    port: typeof address === "object" && address ? address.port : opts.port,
    stats: () => ({ connections: server.connections.size, ...stats }),
    close: () =>
      new Promise((resolve) => {
        clearInterval(pruneSpent);
        server.close(() => resolve());
      }),
  };
}
