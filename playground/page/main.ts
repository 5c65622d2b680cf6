/** The in-page playground (S11.3): wiring between the page's MCP client and the DOM. */
import { initializeWebMCPPolyfill } from "@mcp-b/webmcp-polyfill";
import { RESULT_HANDLE_META_KEY, findModelContext, type Shape } from "mcp-result-handles";
import { InPageMcp, type CallResult, type Identity, type StoreKind } from "./in-page-mcp.js";
import { renderFound } from "./found-view.js";
import { renderJson, renderPlaceholder, renderShape } from "./json-view.js";
import { ViewerPanel } from "./viewer-panel.js";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const bytesOf = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
const number = new Intl.NumberFormat("en");

// WebMCP: the browser's own document.modelContext when it has one, the polyfill otherwise.
const nativeWebMcp = Boolean(findModelContext());
if (!nativeWebMcp) initializeWebMCPPolyfill({ installTestingShim: true });

const storeKind: StoreKind =
  new URLSearchParams(location.search).get("storage") === "indexeddb" ? "indexeddb" : "memory";
const warnings: string[] = [];
const mcp = new InPageMcp(storeKind, {
  warn: (message) => {
    warnings.push(message);
    const banner = document.getElementById("warnings"); // gone once the docs site navigated away
    if (banner) banner.textContent = `⚠ ${message}`;
    console.warn(message);
  },
});

/** The last handle in IndexedDB mode, so a reload can show that it still reads back (S9.1). */
const LAST_HANDLE_KEY = "mcp-result-handles-playground:last-handle";
interface HandleInfo {
  handle: string;
  expiresAt: number;
}
let current: HandleInfo | undefined;
const viewerPanel = new ViewerPanel(
  $("viewer-slot"),
  (text) => ($("viewer-told").textContent = `The viewer told the model: ${text}`),
);

function setBusy(button: HTMLButtonElement, busy: boolean): void {
  button.disabled = busy;
  button.classList.toggle("busy", busy);
}

/** The warning banner shows what the latest call warned, never an earlier call's warning. */
function clearWarnings(): void {
  warnings.length = 0;
  $("warnings").textContent = "";
}

async function callReport(identity: Identity, button: HTMLButtonElement): Promise<void> {
  setBusy(button, true);
  clearWarnings();
  try {
    const result = await mcp.call(identity, "report");
    showAnswer(identity, result);
    // The viewer reads on the caller's own connection, as an MCP Apps host calls result_view (S19.2).
    void viewerPanel
      .show(result, (name, args) => mcp.call(identity, name, args))
      .catch((error: unknown) => console.error(error));
  } catch (error) {
    showFailure(error);
  } finally {
    setBusy(button, false);
  }
}

function showAnswer(identity: Identity, result: CallResult): void {
  const data = result.structuredContent;
  const meta = result._meta?.[RESULT_HANDLE_META_KEY] as
    { handle: string; bytes: number; ttlSeconds: number } | undefined;
  $("answer-bytes").textContent = String(bytesOf(data));
  renderJson($("answer"), data);
  const who = identity === "anonymous" ? "Anonymous call" : "Signed in as alice";
  if (meta && data) {
    const folded = data as { preview: unknown; shape: Shape; handle: string };
    $("answer-kind").textContent = `folded from ${number.format(meta.bytes)} bytes`;
    $("answer-kind").dataset.kind = "folded";
    $("answer-note").textContent =
      `${who}: the ${number.format(meta.bytes)}-byte answer is kept encrypted ` +
      `in ${storeKind === "indexeddb" ? "IndexedDB" : "memory"} ` +
      `for ${meta.ttlSeconds} s; the model gets this small form instead.`;
    renderJson($("preview"), folded.preview);
    renderShape($("shape"), folded.shape);
    setHandle({ handle: meta.handle, expiresAt: Date.now() + meta.ttlSeconds * 1000 });
    $<HTMLInputElement>("query-handle").value = meta.handle;
    $("query-status").textContent = "Handle ready: choose a path and a range, then run the query.";
  } else {
    const rows = (data as { rows?: unknown[] } | undefined)?.rows;
    $("answer-kind").textContent = rows ? `full answer · ${rows.length} rows` : "full answer";
    $("answer-kind").dataset.kind = "full";
    $("answer-note").textContent =
      identity === "anonymous"
        ? `${who}: with no session and nobody signed in, nobody could read a handle back, so the whole answer is sent.`
        : `${who}: the answer was sent whole${warnings.length ? " — see the warning below" : ""}.`;
    renderPlaceholder($("preview"), "The whole answer was sent: no preview.");
    renderPlaceholder($("shape"), "No shape: nothing was folded.");
    setHandle(undefined);
  }
}

function showFailure(error: unknown): void {
  $("answer-kind").textContent = "call failed";
  $("answer-note").textContent = error instanceof Error ? error.message : String(error);
}

function setHandle(info: HandleInfo | undefined): void {
  current = info;
  $("handle").textContent = info?.handle ?? "";
  $("handle-none").hidden = Boolean(info);
  if (storeKind === "indexeddb" && info) localStorage.setItem(LAST_HANDLE_KEY, JSON.stringify(info));
  tick();
}

/** The handle's remaining lifetime, counted down each second. */
function tick(): void {
  // In the docs site, the site's own navigation takes the playground's elements away (S20.2): then the
  // count stops; coming back loads the page afresh, with a count of its own.
  const ttl = document.getElementById("handle-ttl");
  if (!ttl) return clearInterval(ticking);
  if (!current) {
    ttl.textContent = "";
    return;
  }
  const left = Math.max(0, Math.round((current.expiresAt - Date.now()) / 1000));
  ttl.textContent = left > 0 ? `expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` : "expired";
  ttl.classList.toggle("expired", left === 0);
}
const ticking = setInterval(tick, 1000);

/** The form's arguments: only the fields filled in, numbers as numbers, fields split on commas. */
function queryArguments(): Record<string, unknown> {
  const value = (id: string) => $<HTMLInputElement>(id).value.trim();
  const args: Record<string, unknown> = { handle: value("query-handle") };
  if (value("query-path")) args.path = value("query-path");
  for (const name of ["offset", "limit", "page"] as const) {
    const text = value(`query-${name}`);
    if (text !== "") args[name] = Number(text);
  }
  const fields = value("query-fields");
  if (fields)
    args.fields = fields
      .split(",")
      .map((field) => field.trim())
      .filter(Boolean);
  // Sent as typed (not trimmed): the text to find may start or end with a space.
  const search = $<HTMLInputElement>("query-search").value;
  if (search !== "") args.search = search;
  return args;
}

async function runQuery(event: Event): Promise<void> {
  event.preventDefault();
  const button = $<HTMLButtonElement>("query-run");
  const out = $("query-result");
  setBusy(button, true);
  clearWarnings();
  try {
    const args = queryArguments();
    const result = await mcp.call("alice", "result_query", args);
    renderJson(out, result.structuredContent);
    renderFound(
      $("query-found"),
      result.isError ? undefined : result.structuredContent,
      args.search as string | undefined,
    );
    const error = (result.structuredContent as { error?: { code: string; message: string } } | undefined)?.error;
    out.classList.toggle("error", Boolean(result.isError));
    if (error) {
      $("query-status").replaceChildren(badge(error.code, "bad"), ` ${error.message}`);
    } else {
      const slice = result.structuredContent as {
        path: string;
        total?: number;
        offset?: number;
        nextOffset?: number;
        value: unknown;
      };
      const unit = args.search !== undefined ? "hit" : "paths" in slice ? "node" : "item";
      const count = Array.isArray(slice.value)
        ? `${slice.value.length} ${unit}${slice.value.length === 1 ? "" : "s"}`
        : typeof slice.value;
      const range = slice.total !== undefined ? ` of ${slice.total}, from offset ${slice.offset}` : "";
      const next = slice.nextOffset !== undefined ? ` · next offset ${slice.nextOffset}` : "";
      $("query-status").replaceChildren(
        badge("OK", "good"),
        ` ${slice.path}: ${count}${range}${next} · ${number.format(bytesOf(slice))} bytes`,
      );
    }
  } catch (error) {
    out.classList.add("error");
    renderFound($("query-found"), undefined, undefined);
    renderPlaceholder(out, error instanceof Error ? error.message : String(error));
  } finally {
    setBusy(button, false);
  }
}

/**
 * Passes the folded rows to count_tickets as `{ "$result": handle, "path": "$.rows" }` (S15.1): a few bytes, not the 18
 * KB of rows.
 */
async function callByReference(): Promise<void> {
  const button = $<HTMLButtonElement>("call-reference");
  const handle = $<HTMLInputElement>("query-handle").value.trim();
  if (!handle) {
    $("reference-status").textContent = "No handle yet: sign in and call report first.";
    return;
  }
  setBusy(button, true);
  clearWarnings();
  const args = { tickets: { $result: handle, path: "$.rows" } };
  renderJson($("reference-args"), args);
  try {
    const result = await mcp.call("alice", "count_tickets", args);
    renderJson($("reference-result"), result.structuredContent);
    $("reference-result").classList.toggle("error", Boolean(result.isError));
    const error = (result.structuredContent as { error?: { code: string; message: string } } | undefined)?.error;
    if (result.isError) {
      const text = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? "";
      $("reference-status").replaceChildren(badge(error?.code ?? "ERROR", "bad"), ` ${error?.message ?? text}`);
    } else {
      const { count } = result.structuredContent as { count: number };
      $("reference-status").replaceChildren(
        badge("OK", "good"),
        ` ${number.format(bytesOf(args))} bytes of arguments carried ` +
          `${count} tickets: the server read them from the handle.`,
      );
    }
  } catch (error) {
    $("reference-status").textContent = error instanceof Error ? error.message : String(error);
  } finally {
    setBusy(button, false);
  }
}

function badge(text: string, tone: "good" | "bad"): HTMLElement {
  const element = document.createElement("span");
  element.className = `badge ${tone}`;
  element.textContent = text;
  return element;
}

function restoreLastHandle(): void {
  if (storeKind !== "indexeddb") return;
  const saved = localStorage.getItem(LAST_HANDLE_KEY);
  const info = saved ? (JSON.parse(saved) as HandleInfo) : undefined;
  if (!info || info.expiresAt <= Date.now()) return;
  setHandle(info);
  $<HTMLInputElement>("query-handle").value = info.handle;
  $("answer-note").textContent =
    "A handle from before the reload, still within its lifetime: run the query to read it back from IndexedDB.";
}

function wire(): void {
  const anonymous = $<HTMLButtonElement>("call-anonymous");
  const signedIn = $<HTMLButtonElement>("call-signed-in");
  anonymous.addEventListener("click", () => void callReport("anonymous", anonymous));
  signedIn.addEventListener("click", () => void callReport("alice", signedIn));
  $("query-form").addEventListener("submit", (event) => void runQuery(event));
  $("call-reference").addEventListener("click", () => void callByReference());
  for (const chip of document.querySelectorAll<HTMLButtonElement>(".chip")) {
    // A path chip reads that place; the search chip also fills the text to find (S14.7).
    chip.addEventListener("click", () => {
      $<HTMLInputElement>("query-path").value = chip.dataset.path!;
      $<HTMLInputElement>("query-search").value = chip.dataset.search ?? "";
      if (chip.dataset.search !== undefined) $<HTMLInputElement>("query-fields").value = "";
    });
  }
  const storage = $<HTMLSelectElement>("storage");
  storage.value = storeKind;
  storage.addEventListener("change", () => {
    const url = new URL(location.href);
    if (storage.value === "indexeddb") url.searchParams.set("storage", "indexeddb");
    else url.searchParams.delete("storage");
    location.assign(url);
  });
  restoreLastHandle();
}

async function startWebMcp(): Promise<void> {
  const status = $("webmcp-status");
  try {
    const outcome = await mcp.exposeThroughWebMcp();
    status.textContent =
      outcome === "registered"
        ? `WebMCP (${nativeWebMcp ? "native" : "polyfill"}): report, result_query`
        : "WebMCP: not available";
    status.dataset.state = outcome;
  } catch (error) {
    status.textContent = "WebMCP: registration failed";
    status.title = error instanceof Error ? error.message : String(error);
    status.dataset.state = "failed";
  }
}

wire();
void startWebMcp().then(() => document.body.setAttribute("data-ready", "true"));
