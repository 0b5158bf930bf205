import { describe, expect, it } from "vitest";
import { type MatchInput, matchDeterministic, messageContains } from "@/lib/waits/matcher";

/**
 * Real-world shaped verification messages (wording after the senders' own mails) and what the
 * default matcher must extract: `null` for messages with no code (decoys only). Printed: hit rate
 * over the messages that carry one, false-positive rate (a wrong value, or a value where none is).
 */
type Row = [name: string, message: Partial<MatchInput>, instruction: string | null, expected: string | null];

const m = (text: string, subject = ""): Partial<MatchInput> => ({ subject, text });
const h = (html: string, subject = ""): Partial<MatchInput> => ({ subject, html });

const TABLE: Row[] = [
  ["github text", m("Here is your GitHub launch code: 48201937\nThis code expires in 15 minutes."), null, "48201937"],
  ["google subject", m("Google verification code\n\nG-482913 is your Google verification code."), null, "482913"],
  ["instagram", m("", "123456 is your Instagram code"), null, "123456"],
  [
    "slack mixed",
    m("Your confirmation code is below — enter it in your open browser window.\n\nK7Q-2ZP\n"),
    null,
    null,
  ],
  ["slack mixed whole", m("Your confirmation code: K7Q2ZP\nIt expires soon."), null, "K7Q2ZP"],
  ["aws", m("Verification code: 905817\n(This code will expire 10 minutes after it was sent.)"), null, "905817"],
  [
    "microsoft",
    m("Security code: 7391\nIf you didn't request this code, ignore this email.", "Microsoft account security code"),
    null,
    "7391",
  ],
  ["split space", m("Your verification code is 482 913. Do not share it."), null, "482913"],
  ["split dash", m("Use code 4829-1377 to sign in."), null, "48291377"],
  [
    "html only",
    h("<html><body><p>Your one-time passcode</p><div style='font-size:32px'><b>550 218</b></div></body></html>"),
    null,
    "550218",
  ],
  [
    "html td",
    h(
      "<table><tr><td>Verification code</td></tr><tr><td><strong>773205</strong></td></tr></table><p>Sent 10:45 AM</p>",
    ),
    null,
    "773205",
  ],
  ["html entities", h("<p>Your&nbsp;code&nbsp;is:&nbsp;<span>638104</span></p>"), null, "638104"],
  ["date decoy", m("On March 14, 2025 you requested a code. Your code is 834201."), null, "834201"],
  ["iso date decoy", m("Requested 2025-03-14 at 09:12. Verification code: 110934"), null, "110934"],
  ["price decoy", m("Your order total is $1299.00. Confirm with code 502817."), null, "502817"],
  ["price only", m("Confirm your purchase of $1299 — total 1299 USD. Thanks!"), null, null],
  ["phone decoy", m("Your code is 839201. Questions? Call +1 415 555 0100."), null, "839201"],
  ["phone only", m("Please verify your account by calling us at (415) 555-0100."), null, null],
  ["order decoy", m("Order #88812345 confirmed. Your verification code for the pickup is 4417."), null, "4417"],
  ["order only", m("Order number 88812345 has shipped. Confirm delivery in the app."), null, null],
  ["invoice only", m("Invoice 20250314 — please confirm receipt."), null, null],
  ["time decoy", m("Your sign-in code is 9931. Requested at 14:05 from Berlin."), null, "9931"],
  ["year only", m("Confirm your email address. © 2025 Example Inc."), null, null],
  ["no code", m("Welcome! Thanks for confirming your email. See you soon."), null, null],
  ["tracking", m("Tracking number 1Z999AA10123456784 — confirm the address."), null, null],
  ["german", m("Ihr Bestätigungscode lautet: 284617. Er ist 10 Minuten gültig."), null, "284617"],
  ["french", m("Votre code de vérification est 591024. Ne le partagez avec personne."), null, "591024"],
  ["spanish", m("Tu código de verificación es 730155. Caduca en 5 minutos."), null, "730155"],
  ["portuguese", m("Seu código de confirmação: 118290"), null, "118290"],
  ["italian", m("Il tuo codice di verifica è 664201."), null, "664201"],
  ["dutch", m("Je verificatiecode is 302918."), null, "302918"],
  ["russian", m("Ваш код подтверждения: 481903"), null, "481903"],
  ["japanese", m("認証コード：503218 をご入力ください。"), null, "503218"],
  ["chinese", m("您的验证码是 742019，5分钟内有效。"), null, "742019"],
  ["korean", m("[Web발신] 인증번호 [428193]을 입력해주세요."), null, "428193"],
  ["polish", m("Twój kod weryfikacyjny to 902114."), null, "902114"],
  ["otp sms", m("OTP for your transaction of INR 2,500.00 is 662310. Valid for 3 mins."), null, "662310"],
  ["pin", m("Your PIN is 4820. Never share it."), null, "4820"],
  ["instruction length", m("Your code 5529. Backup code 55291033."), "the 8-digit code", "55291033"],
  [
    "magic link html",
    h(
      '<p>Click to sign in:</p><a href="https://app.example.com/auth/magic?token=abc123">Sign in to Example</a><a href="https://example.com/unsubscribe">Unsubscribe</a>',
    ),
    "the sign-in link",
    "https://app.example.com/auth/magic?token=abc123",
  ],
  [
    "confirm link text",
    m("Confirm your email: https://example.com/confirm/8f3a9c\n\nPrivacy: https://example.com/privacy"),
    "the confirmation link",
    "https://example.com/confirm/8f3a9c",
  ],
  [
    "link by anchor text",
    h(
      '<a href="https://example.com/privacy">Privacy</a> <a href="https://e.example.com/c/xyz">Verify email address</a>',
    ),
    "the verification link",
    "https://e.example.com/c/xyz",
  ],
  [
    "link fallback",
    m("Verify your email by opening https://id.example.org/verify?t=QW12"),
    null,
    "https://id.example.org/verify?t=QW12",
  ],
  [
    "link decoy only",
    m("Manage preferences at https://example.com/preferences or unsubscribe."),
    "the sign-in link",
    null,
  ],
  ["code among many", m("Ref 20231115 / Case 778812\nYour one-time code: 301947\nCall 0800 123 4567"), null, "301947"],
  ["amount eur", m("Zahlung über 1.250,00 € bestätigen mit TAN 552019"), "the code", null],
  [
    "discord",
    m("Here is your verification code: 603 881\nThis code will only be valid for the next 5 minutes."),
    null,
    "603881",
  ],
  ["uber", m("Your Uber code is 7204. Never share this code."), null, "7204"],
];

describe("deterministic verification matcher", () => {
  it(`extracts codes and links from ${TABLE.length} real-world messages, refusing decoys`, () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    let carrying = 0;
    let hits = 0;
    let falsePositives = 0;
    const wrong: string[] = [];
    for (const [name, partial, instruction, expected] of TABLE) {
      const message: MatchInput = { subject: "", text: null, html: null, ...partial };
      const got = matchDeterministic(message, instruction)?.value ?? null;
      if (expected !== null) carrying++;
      if (got === expected) {
        if (expected !== null) hits++;
      } else {
        if (got !== null) falsePositives++;
        wrong.push(`${name}: expected ${expected}, got ${got}`);
      }
      if (got !== null)
        expect(messageContains(message, { kind: got.startsWith("http") ? "link" : "code", value: got })).toBe(true);
    }
    const hitRate = hits / carrying;
    const fpRate = falsePositives / TABLE.length;
    console.log(
      `matcher: ${TABLE.length} messages, hit rate ${(hitRate * 100).toFixed(1)}% (${hits}/${carrying}), false-positive rate ${(fpRate * 100).toFixed(1)}% (${falsePositives}/${TABLE.length})`,
    );
    if (wrong.length) console.log(wrong.join("\n"));
    expect(hitRate).toBeGreaterThanOrEqual(0.9);
    expect(fpRate).toBeLessThanOrEqual(0.05);
  });

  it("refuses results the message does not contain (substrings, invented codes, unknown links)", () => {
    const message: MatchInput = {
      subject: "",
      text: "Your code is 48201937, ref 123.",
      html: '<a href="https://x.example/verify">v</a>',
    };
    expect(messageContains(message, { kind: "code", value: "48201937" })).toBe(true);
    expect(messageContains(message, { kind: "code", value: "482019" })).toBe(false);
    expect(messageContains(message, { kind: "code", value: "999999" })).toBe(false);
    expect(messageContains(message, { kind: "link", value: "https://x.example/verify" })).toBe(true);
    expect(messageContains(message, { kind: "link", value: "https://evil.example/verify" })).toBe(false);
  });
});
