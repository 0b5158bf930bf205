import {
  Body,
  Button,
  Column,
  Container,
  Head,
  Heading,
  Hr,
  Html,
  Img,
  Link,
  Preview,
  Row,
  Section,
  Text,
} from "@react-email/components";

/** A typical transactional email (the benchmark's template): header, greeting, order lines, button, footer. */
export interface WelcomeProps {
  name: string;
  product?: string;
  url: string;
  items?: { title: string; qty: number; price: string }[];
}

export default function Welcome({ name, product = "Svc", url, items = [] }: WelcomeProps) {
  return (
    <Html lang="en">
      <Head />
      <Preview>
        Welcome to {product}, {name}
      </Preview>
      <Body style={{ backgroundColor: "#f6f7f9", fontFamily: "ui-sans-serif, system-ui, sans-serif" }}>
        <Container
          style={{ margin: "32px auto", maxWidth: 520, backgroundColor: "#ffffff", borderRadius: 8, padding: 32 }}
        >
          <Img src="https://example.com/logo.png" width="48" height="48" alt={product} />
          <Heading as="h1" style={{ fontSize: 22 }}>
            Hi {name}, welcome aboard
          </Heading>
          <Text>Thanks for signing up to {product}. Here is what you ordered:</Text>
          <Section>
            {items.map((item) => (
              <Row key={item.title}>
                <Column>{item.title}</Column>
                <Column align="right">
                  {item.qty} × {item.price}
                </Column>
              </Row>
            ))}
          </Section>
          <Button
            href={url}
            style={{ backgroundColor: "#111827", borderRadius: 6, color: "#ffffff", padding: "10px 18px" }}
          >
            Get started
          </Button>
          <Hr style={{ borderColor: "#e5e7eb", margin: "24px 0" }} />
          <Text style={{ color: "#6b7280", fontSize: 12 }}>
            Or open <Link href={url}>{url}</Link>. You received this because you signed up at {product}.
          </Text>
        </Container>
      </Body>
    </Html>
  );
}
