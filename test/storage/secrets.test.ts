// The S8.3 search itself: it must find a secret in every form it claims to look for, or its silence proves nothing.
import { describe, expect, it } from "vitest";
import { expectNoSecrets } from "./secrets.js";

const secrets = {
  handles: ["0f8e2a4c-1b3d-4e5f-9a7b-6c5d4e3f2a1b"],
  session: "session-x",
  caller: "caller-y",
  marker: "MARKER-z-plaintext",
};
const bytes = (text: string) => new TextEncoder().encode(`padding ${text} padding`);

describe("S8.3 secret search", () => {
  it.each([
    ["raw", "MARKER-z-plaintext"],
    ["base64", btoa("caller-y")],
    ["hex", Array.from(new TextEncoder().encode("session-x"), (b) => b.toString(16).padStart(2, "0")).join("")],
    ["without dashes", "0f8e2a4c1b3d4e5f9a7b6c5d4e3f2a1b"],
  ])("finds a secret in %s form", (_, planted) => {
    expect(() => expectNoSecrets([{ where: "blob", bytes: bytes(planted) }], secrets)).toThrow(/found in blob/);
  });

  it("passes a blob without any", () => {
    expect(() => expectNoSecrets([{ where: "blob", bytes: bytes("nothing to see") }], secrets)).not.toThrow();
  });
});
