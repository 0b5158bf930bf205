import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { errorFields, log } from "@/lib/log";
import { receiveInbound, receivingInbox } from "@/lib/messages/receive";

/**
 * The built-in SMTP receiver: accepts mail only for active inboxes of this service (550 for
 * anything else), enforces a size limit (552), and hands each message to `receiveInbound`.
 * Plain SMTP without TLS or AUTH: put it behind an MTA or TLS terminator to face the internet.
 */
export interface SmtpReceiver {
  port: number;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startSmtpReceiver(opts: { port: number; host: string; maxBytes: number; name: string }): Promise<SmtpReceiver> {
  const server = new SMTPServer({
    name: opts.name,
    banner: "svc mail receiver",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: opts.maxBytes,
    logger: false,
    onRcptTo(address, _session, callback) {
      receivingInbox(address.address)
        .then((inbox) => (inbox ? callback() : callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`))))
        .catch((err: unknown) => {
          log.error("smtp rcpt lookup failed", errorFields(err));
          callback(smtpError(451, "4.3.0 temporary failure, try again later"));
        });
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (stream.sizeExceeded) {
          callback(smtpError(552, `5.3.4 message exceeds the ${opts.maxBytes}-byte limit`));
          return;
        }
        receiveInbound(Buffer.concat(chunks), {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          remoteAddress: session.remoteAddress ?? null,
          helo: session.hostNameAppearsAs ?? null,
        })
          .then(() => callback())
          .catch((err: unknown) => {
            log.error("smtp delivery failed", errorFields(err));
            callback(smtpError(451, "4.3.0 temporary failure, try again later"));
          });
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  server.on("error", (err) => log.error("smtp receiver error", errorFields(err)));
  const address = server.server.address();
  return {
    port: typeof address === "object" && address ? address.port : opts.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
