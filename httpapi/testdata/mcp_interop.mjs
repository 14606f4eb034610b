// An MCP client seokit did not write: the official TypeScript SDK over
// Streamable HTTP, through the OAuth flow the SDK runs itself (discovery
// from the 401, dynamic registration, PKCE, resource indicator). The
// consent step is a signed-in user pressing Allow: the script loads the
// consent page and posts its form. It then lists the tools, analyses a
// page, starts a site analysis, follows its progress, pages through its
// findings and reads its report resource, and prints what it saw as one
// JSON line for the Go test (TestMCPInteropTypeScriptSDK) to check.
//
// Environment: MCP_URL (the server's /mcp), SITE_URL (a loopback site),
// RELEASE_URL (fetched on the first progress notification; the site holds
// one page until then, so the crawl is still running when the client
// follows it).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const mcpURL = new URL(process.env.MCP_URL);
const siteURL = new URL(process.env.SITE_URL);
const releaseURL = process.env.RELEASE_URL;
const redirect = "http://127.0.0.1:9/callback";

// Every HTTP exchange the SDK makes, for the test to check the flow.
const exchanges = [];
const loggingFetch = async (input, init) => {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const method = (init && init.method) || "GET";
  let params = [];
  if (init && typeof init.body === "string" && url.pathname.startsWith("/v1/oauth/")) {
    try { params = [...new URLSearchParams(init.body).keys()]; } catch { /* JSON */ }
    if (init.body.startsWith("{")) params = Object.keys(JSON.parse(init.body));
  } else if (init && init.body instanceof URLSearchParams) {
    params = [...init.body.keys()];
  }
  const res = await fetch(input, init);
  exchanges.push({ method, path: url.pathname, status: res.status, params,
    www: res.headers.get("www-authenticate") || "" });
  return res;
};

class Provider {
  constructor() { this.info = undefined; this.toks = undefined; this.verifier = ""; this.authURL = undefined; }
  get redirectUrl() { return redirect; }
  get clientMetadata() {
    return { client_name: "seokit interop (TypeScript SDK)", redirect_uris: [redirect],
      grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() { return this.info; }
  saveClientInformation(i) { this.info = i; }
  tokens() { return this.toks; }
  saveTokens(t) { this.toks = t; }
  redirectToAuthorization(u) { this.authURL = u; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

function unescapeHTML(s) {
  return s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(+n))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCharCode(parseInt(n, 16)))
    .replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

// consent loads the consent page as the signed-in user and allows.
async function consent(authURL) {
  const page = await fetch(authURL, { redirect: "manual" });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page: HTTP ${page.status}: ${html.slice(0, 300)}`);
  const cookie = (page.headers.get("set-cookie") || "").split(";")[0];
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form.set(unescapeHTML(m[1]), unescapeHTML(m[2]));
  form.set("action", "allow");
  const res = await fetch(new URL("/v1/oauth/authorize", authURL), { method: "POST", body: form, redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" } });
  const loc = res.headers.get("location");
  if (res.status !== 303 || !loc) throw new Error(`consent: HTTP ${res.status}: ${await res.text()}`);
  const back = new URL(loc);
  if (back.searchParams.get("error")) throw new Error(`consent: ${back.searchParams.get("error")}: ${back.searchParams.get("error_description")}`);
  return { code: back.searchParams.get("code"), iss: back.searchParams.get("iss") };
}

function structured(res, tool) {
  if (res.isError) throw new Error(`${tool}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

const out = { exchanges };
const provider = new Provider();
const client = new Client({ name: "seokit-interop", version: "1.0.0" });

// 1. The first connection meets the 401 and runs discovery, registration
// and the authorization request; the SDK then waits for the code.
let transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider, fetch: loggingFetch });
try {
  await client.connect(transport);
  throw new Error("connected without authorization");
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
}
if (!provider.authURL) throw new Error("the SDK did not ask for authorization");
out.authorizationURL = provider.authURL.toString();
const { code, iss } = await consent(provider.authURL);
out.iss = iss;
await transport.finishAuth(code);
out.clientID = provider.info.client_id;
const payload = JSON.parse(Buffer.from(provider.toks.access_token.split(".")[1], "base64url").toString());
out.aud = payload.aud;
out.scope = provider.toks.scope;

// 2. Connected with the token.
transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider, fetch: loggingFetch });
await client.connect(transport);
const tools = await client.listTools();
out.tools = tools.tools.map((t) => t.name);
out.toolListBytes = JSON.stringify(tools).length;

const page = structured(await client.callTool({ name: "analyze_page", arguments: { url: new URL("/a", siteURL).toString() } }), "analyze_page");
out.page = { url: page.url, status: page.status, findings: page.findings.length, findingsOmitted: page.findingsOmitted };

const job = structured(await client.callTool({ name: "start_site_analysis", arguments: { domain: siteURL.host, options: { maxPages: 10 } } }), "start_site_analysis");
out.analysisID = job.id;

const progress = [];
let released = false;
const done = structured(await client.callTool({ name: "wait_site_analysis", arguments: { id: job.id, timeoutSeconds: 45 } }, undefined, {
  onprogress: async (p) => {
    progress.push({ progress: p.progress, total: p.total, message: p.message });
    if (!released) {
      released = true;
      await fetch(releaseURL);
    }
  },
  resetTimeoutOnProgress: true,
}), "wait_site_analysis");
out.progress = progress;
out.final = { status: done.analysis.status, pages: done.summary ? done.summary.pages : null, checks: done.summary ? done.summary.checks : null, timedOut: !!done.timedOut };

// Page through the findings one at a time, following the cursors.
const findingPages = [];
let cursor;
for (let i = 0; i < 100; i++) {
  const args = { id: job.id, limit: 1 };
  if (cursor) args.cursor = cursor;
  const fl = structured(await client.callTool({ name: "site_findings", arguments: args }), "site_findings");
  findingPages.push({ total: fl.page.total, returned: fl.page.returned, ids: fl.findings.map((f) => f.id) });
  cursor = fl.page.nextCursor;
  if (!cursor) break;
}
out.findingPages = findingPages;

const rep = await client.readResource({ uri: `seokit://analyses/${job.id}/report` });
const text = rep.contents[0].text;
const report = JSON.parse(text);
out.report = { uri: rep.contents[0].uri, mimeType: rep.contents[0].mimeType, bytes: text.length, pages: Array.isArray(report.pages) ? report.pages.length : null };

await client.close();
console.log(JSON.stringify(out));
