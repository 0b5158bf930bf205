import { DrizzleAdapter } from "@auth/drizzle-adapter";
import NextAuth from "next-auth";
import { headers } from "next/headers";
import Credentials from "next-auth/providers/credentials";
import { getDb } from "@/db";
import { authAccounts, authSessions, authVerificationTokens, users } from "@/db/schema";
import { sendSystemEmail } from "@/lib/mail/system";
import { hasPendingInvitation } from "@/lib/organizations/invitations";
import { env, publicBaseUrl } from "@/lib/env";
import { errorFields, log } from "@/lib/log";
import { readClientIp } from "@/lib/http/client-ip";
import { clearUnprovenPassword, getUser, isFreshInstall, signInBody, verifyCredentials } from "./accounts";
import { authSecret } from "./secret";
import { authAttempt, SignInThrottled, THROTTLED_ERROR } from "./throttle";

const MAGIC_LINK_MINUTES = 15;

/** `url` with its scheme, host and port taken from PUBLIC_BASE_URL (or this server's own URL). */
function onPublicOrigin(url: string): string {
  const link = new URL(url);
  const base = new URL(publicBaseUrl());
  link.protocol = base.protocol;
  link.host = base.host;
  return link.toString();
}

/**
 * Auth.js (next-auth v5) for the console: email and password (Argon2id) and a magic link whose
 * email goes through the product's own mail pipeline. Sessions are encrypted JWT cookies; the
 * drizzle adapter keeps users and one-time sign-in tokens in the service's database.
 */
export const { handlers, auth, signIn, signOut } = NextAuth(async (req) => {
  const db = await getDb();
  // Auth.js's routes pass the request; server actions (the console's forms) do not, but run inside one.
  const clientIp = async () => readClientIp(req ? req.headers : await headers());
  return {
    secret: await authSecret(db),
    trustHost: true,
    adapter: DrizzleAdapter(db, {
      usersTable: users,
      accountsTable: authAccounts,
      sessionsTable: authSessions,
      verificationTokensTable: authVerificationTokens,
    }),
    session: { strategy: "jwt", maxAge: 30 * 24 * 3600 },
    // A wrong password is an answer, not a server error; everything else goes to the JSON log.
    logger: {
      error(error: Error) {
        // Auth.js errors carry their kind in `type` (class names do not survive minification).
        if ((error as Error & { type?: string }).type !== "CredentialsSignin")
          log.error("auth error", errorFields(error));
      },
      warn(code: string) {
        log.warn("auth warning", { code });
      },
    },
    pages: { signIn: "/sign-in", verifyRequest: "/sign-in/check-email", error: "/sign-in" },
    providers: [
      Credentials({
        id: "password",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(raw, request) {
          const parsed = signInBody.safeParse({ email: raw?.email, password: raw?.password });
          if (!parsed.success) return null;
          // Throttled here, not only in the console's form: Auth.js's own route reaches this too.
          const verdict = await authAttempt(db, "sign-in", parsed.data.email, readClientIp(request.headers));
          if (!verdict.allowed) throw new SignInThrottled(`retry after ${verdict.resetSeconds} seconds`);
          return verifyCredentials(db, parsed.data.email, parsed.data.password);
        },
      }),
      {
        id: "email",
        type: "email",
        name: "Email link",
        maxAge: MAGIC_LINK_MINUTES * 60,
        async sendVerificationRequest({ identifier, url: requested }) {
          // Auth.js builds the link from the request's Host; the link must point at this service
          // whatever a caller claims its host is, so its origin is replaced with the public base URL.
          const url = onPublicOrigin(requested);
          const host = new URL(url).host;
          await sendSystemEmail(db, {
            to: identifier,
            subject: `Sign in to ${host}`,
            email: "magic-link",
            props: { url, host, expiresMinutes: MAGIC_LINK_MINUTES },
            link: url,
          });
        },
      },
    ],
    callbacks: {
      async signIn({ user, account, email }) {
        if (account?.provider !== "email") return true;
        // A sign-in email is about to be sent (Auth.js calls sendVerificationRequest right after this
        // callback): throttled per address and per client, in the shared store. A throttled request
        // sends nothing and creates no token; it lands on the sign-in page with the reason.
        if (email?.verificationRequest && user.email) {
          const verdict = await authAttempt(db, "email-link", user.email, await clientIp());
          if (!verdict.allowed) return `/sign-in?error=${THROTTLED_ERROR}`;
        }
        // Following the link proves the address: a password set before that is not the owner's.
        if (!email?.verificationRequest && user.id) await clearUnprovenPassword(db, user.id);
        // Invite-only installations: an email link creates an account only for the first user or an invited address.
        if (env.CONSOLE_SIGNUP === "open" || !user.email) return true;
        if (user.id && (await getUser(db, user.id))) return true;
        return (await isFreshInstall(db)) || (await hasPendingInvitation(db, user.email));
      },
      jwt({ token, user }) {
        if (user?.id) token.sub = user.id;
        return token;
      },
      session({ session, token }) {
        if (token.sub) session.user.id = token.sub;
        return session;
      },
    },
  };
});
