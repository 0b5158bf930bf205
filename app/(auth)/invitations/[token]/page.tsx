import Link from "next/link";
import { AcceptInvitationButton } from "@/components/console/accept-invitation";
import { ErrorNotice } from "@/components/console/ui";
import { auth } from "@/lib/console/auth";
import { describeInvitation } from "@/lib/console/reads";

export const metadata = { title: "Invitation — svc console" };

/** The accept link of an invitation email: shows what it is for, then accepts as the signed-in user. */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await describeInvitation(token);
  if (!invitation) {
    return (
      <>
        <h1 className="text-xl font-semibold">Invitation not found</h1>
        <ErrorNotice>This invitation link is not valid. Ask for a new invitation.</ErrorNotice>
      </>
    );
  }
  const session = await auth();
  const here = `/invitations/${token}`;
  return (
    <>
      <div>
        <h1 className="text-xl font-semibold">Join {invitation.organization}</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          {invitation.invitedBy ?? "Someone"} invited <strong>{invitation.email}</strong> as{" "}
          <strong>{invitation.role}</strong>.
        </p>
      </div>
      {invitation.status !== "pending" ? (
        <ErrorNotice>This invitation is {invitation.status}.</ErrorNotice>
      ) : session?.user?.id ? (
        <>
          {session.user.email && session.user.email.toLowerCase() !== invitation.email ? (
            <ErrorNotice>
              You are signed in as {session.user.email}. Sign out and sign in as {invitation.email} to accept.
            </ErrorNotice>
          ) : null}
          <AcceptInvitationButton token={token} />
        </>
      ) : (
        <div className="space-y-3 text-sm">
          <p>Sign in or create an account as {invitation.email} to accept.</p>
          <div className="flex gap-3">
            <Link
              className="link"
              href={`/sign-up?next=${encodeURIComponent(here)}&email=${encodeURIComponent(invitation.email)}`}
            >
              Create account
            </Link>
            <Link className="link" href={`/sign-in?next=${encodeURIComponent(here)}`}>
              Sign in
            </Link>
          </div>
        </div>
      )}
    </>
  );
}
