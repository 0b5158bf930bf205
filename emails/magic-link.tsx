import { Button, Heading, Link, Text } from "@react-email/components";
import { buttonStyle, EmailLayout } from "./layout";

export interface MagicLinkEmailProps {
  url: string;
  host: string;
  expiresMinutes: number;
}

/** The sign-in link Auth.js's email provider sends (through the product's own mail pipeline). */
export default function MagicLinkEmail({ url, host, expiresMinutes }: MagicLinkEmailProps) {
  return (
    <EmailLayout preview={`Sign in to ${host}`}>
      <Heading as="h1" style={{ fontSize: 20 }}>
        Sign in to {host}
      </Heading>
      <Text>Use the button below to sign in. The link works once and expires in {expiresMinutes} minutes.</Text>
      <Button href={url} style={buttonStyle}>
        Sign in
      </Button>
      <Text style={{ fontSize: 12, color: "#6b7280" }}>
        Or paste this address into your browser: <Link href={url}>{url}</Link>
      </Text>
    </EmailLayout>
  );
}

MagicLinkEmail.PreviewProps = {
  url: "http://localhost:3000/api/auth/callback/email?token=example",
  host: "localhost:3000",
  expiresMinutes: 15,
};
