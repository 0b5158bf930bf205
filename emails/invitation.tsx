import { Button, Heading, Link, Text } from "@react-email/components";
import { buttonStyle, EmailLayout } from "./layout";

export interface InvitationEmailProps {
  url: string;
  organization: string;
  role: string;
  invitedBy: string | null;
  expiresDays: number;
}

/** An invitation to join an organization; the link opens the console's accept page. */
export default function InvitationEmail({ url, organization, role, invitedBy, expiresDays }: InvitationEmailProps) {
  return (
    <EmailLayout preview={`Join ${organization}`}>
      <Heading as="h1" style={{ fontSize: 20 }}>
        Join {organization}
      </Heading>
      <Text>
        {invitedBy ?? "Someone"} invited you to the organization <strong>{organization}</strong> as{" "}
        <strong>{role}</strong>. The invitation expires in {expiresDays} days.
      </Text>
      <Button href={url} style={buttonStyle}>
        Accept invitation
      </Button>
      <Text style={{ fontSize: 12, color: "#6b7280" }}>
        Or paste this address into your browser: <Link href={url}>{url}</Link>
      </Text>
    </EmailLayout>
  );
}

InvitationEmail.PreviewProps = {
  url: "http://localhost:3000/invitations/example",
  organization: "Acme",
  role: "member",
  invitedBy: "ada@example.com",
  expiresDays: 7,
};
