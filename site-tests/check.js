// Opens the site `gridsched site` built in headless Chromium and checks it works as a reader
// uses it (run by .ci/run, step "site in a headless browser"):
//
// - every page reachable from the front page loads without a console error, a page error or a
//   failed request; every image on it has loaded and has alt text; every link inside the site
//   leads to a file, and its #fragment to an element of that page;
// - every experiment entry of the repository (experiments/<paper>/*.toml) has its page, reached
//   from the front page;
// - the claims index's filters (document, verdict, chapter, kind) and its text search show
//   exactly the rows they should (computed here from the page's HTML), from the form and from
//   a link's #fragment, and the page lists every claim with scripts off;
// - pages fit a phone's width, the print style hides the navigation;
// - screenshots of the front page and of one figure page go to the artefacts folder.
//
// Usage: node check.js SITE_DIR REPO_ROOT ARTEFACTS_DIR
// Chromium: $CHROMIUM, else /usr/bin/chromium.
"use strict";

const fs = require("fs");
const path = require("path");
const { pathToFileURL, fileURLToPath } = require("url");
const { chromium } = require("playwright-core");

const [siteDir, repoRoot, artefacts] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!siteDir || !repoRoot || !artefacts) {
  console.error("usage: node check.js SITE_DIR REPO_ROOT ARTEFACTS_DIR");
  process.exit(2);
}
const failures = [];
const fail = (msg) => {
  failures.push(msg);
  console.error("FAIL: " + msg);
};

// The experiment ids the repository's entries declare.
function experimentIds() {
  const ids = [];
  const root = path.join(repoRoot, "experiments");
  for (const paper of fs.readdirSync(root).sort()) {
    const dir = path.join(root, paper);
    if (!fs.statSync(dir).isDirectory() || ["src", "tests", "examples"].includes(paper)) continue;
    for (const f of fs.readdirSync(dir).sort()) {
      if (!f.endsWith(".toml") || f === "ledger.toml") continue;
      const m = /^id\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(path.join(dir, f), "utf8"));
      if (m) ids.push(m[1]);
    }
  }
  return ids;
}

// The claims index's rows as the HTML has them (no script involved): filter data and text.
function staticRows() {
  const html = fs.readFileSync(path.join(siteDir, "claims.html"), "utf8");
  const rows = [];
  const re = /<tr data-doc="([^"]*)" data-verdict="([^"]*)" data-chapter="([^"]*)" data-kind="([^"]*)">(.*?)<\/tr>/g;
  let m;
  while ((m = re.exec(html))) {
    const cells = m[5].split("</td><td>").map((c) => c
      .replace(/<[^>]*>/g, "")
      .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'").replace(/&amp;/g, "&"));
    const link = /href="([^"]*#claim-[^"]*)"/.exec(m[5]);
    rows.push({
      doc: m[1], verdict: m[2], chapter: m[3].replace(/&amp;/g, "&"), kind: m[4],
      text: cells.join(" ").toLowerCase(), quote: cells[6] || "", href: link ? link[1] : "",
    });
  }
  return rows;
}

// A page's file:// address; a `#fragment` stays a fragment.
const siteUrl = (rel) => {
  const [file, hash] = rel.split("#");
  return pathToFileURL(path.join(siteDir, file)).href + (hash === undefined ? "" : "#" + hash);
};

async function main() {
  fs.mkdirSync(artefacts, { recursive: true });
  const started = Date.now();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Nothing leaves the machine: a request to the network is refused (the site's external
    // links are not followed, only counted).
    await context.route(/^https?:/, (route) => route.abort());
    const page = await context.newPage();
    let current = "";
    page.on("console", (msg) => {
      if (msg.type() === "error") fail(`${current}: console error: ${msg.text()}`);
    });
    page.on("pageerror", (err) => fail(`${current}: page error: ${err.message}`));
    page.on("requestfailed", (req) => {
      if (req.url().startsWith("file:")) fail(`${current}: failed to load ${req.url()}: ${req.failure().errorText}`);
    });

    // Crawl from the front page.
    const queue = ["index.html"];
    const seen = new Set(queue);
    const links = []; // [from, absolute file URL with fragment]
    let external = 0;
    while (queue.length) {
      const rel = queue.shift();
      current = rel;
      await page.goto(siteUrl(rel), { waitUntil: "load" });
      const info = await page.evaluate(() => ({
        hrefs: Array.from(document.querySelectorAll("a[href]"), (a) => a.href),
        images: Array.from(document.images, (i) => ({ src: i.src, ok: i.complete && i.naturalWidth > 0, alt: i.getAttribute("alt") })),
        h1: document.querySelectorAll("h1").length,
        lang: document.documentElement.lang,
        title: document.title,
      }));
      if (info.h1 !== 1) fail(`${rel}: ${info.h1} h1 headings (want 1)`);
      if (!info.lang) fail(`${rel}: no lang on <html>`);
      if (!info.title) fail(`${rel}: no title`);
      for (const img of info.images) {
        if (!img.ok) fail(`${rel}: image did not load: ${img.src}`);
        if (!img.alt || !img.alt.trim()) fail(`${rel}: image without alt text: ${img.src}`);
      }
      for (const href of info.hrefs) {
        if (!href.startsWith("file:")) {
          external += 1;
          continue;
        }
        links.push([rel, href]);
        const file = fileURLToPath(href.replace(/#.*$/, ""));
        const target = path.relative(siteDir, file).split(path.sep).join("/");
        if (target.startsWith("..")) {
          fail(`${rel}: link leaves the site: ${href}`);
          continue;
        }
        if (target.endsWith(".html") && !seen.has(target) && fs.existsSync(file)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    console.log(`crawled ${seen.size} pages, ${links.length} links inside the site, ${external} external links (not followed)`);

    // Every link leads to a file, and its fragment to an element there.
    const idsOf = new Map();
    for (const [from, href] of links) {
      const [fileUrl, fragment] = href.split("#");
      const file = fileURLToPath(fileUrl);
      if (!fs.existsSync(file)) {
        fail(`${from}: broken link ${href}`);
        continue;
      }
      if (!fragment || fragment.includes("=") || !file.endsWith(".html")) continue;
      if (!idsOf.has(file)) {
        const html = fs.readFileSync(file, "utf8");
        const ids = new Set();
        for (const m of html.matchAll(/ id="([^"]*)"/g)) {
          ids.add(m[1].replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&"));
        }
        idsOf.set(file, ids);
      }
      if (!idsOf.get(file).has(decodeURIComponent(fragment))) fail(`${from}: no #${fragment} in ${path.relative(siteDir, file)}`);
    }

    // Every experiment has its page, reached from the front page.
    const ids = experimentIds();
    const missing = ids.filter((id) => !seen.has(`exp/${id}.html`));
    if (missing.length) fail(`experiment pages not reached from the front page: ${missing.join(", ")}`);
    console.log(`${ids.length - missing.length} of ${ids.length} experiment pages reached`);

    // The claims index: filters and search against the rows computed from the HTML.
    current = "claims.html";
    const rows = staticRows();
    if (rows.length < 1) fail("claims.html: no claims");
    const expect = (want) => rows.filter((r) =>
      (!want.doc || r.doc === want.doc) && (!want.verdict || r.verdict === want.verdict) &&
      (!want.chapter || r.chapter === want.chapter) && (!want.kind || r.kind === want.kind) &&
      (!want.q || want.q.toLowerCase().split(/\s+/).filter(Boolean).every((w) => r.text.includes(w)))).length;
    const visible = () => page.evaluate(() =>
      Array.from(document.querySelectorAll("#claims tbody tr")).filter((r) => !r.hidden).length);
    const check = async (label, want) => {
      const got = await visible();
      const should = expect(want);
      if (got !== should) fail(`claims.html ${label}: ${got} rows shown, ${should} expected`);
      const count = await page.textContent("#count");
      if (!count.startsWith(`${should} of ${rows.length}`)) fail(`claims.html ${label}: count says "${count}"`);
      return should;
    };
    await page.goto(siteUrl("claims.html"), { waitUntil: "load" });
    if (await page.isHidden("#filters")) fail("claims.html: the filters stay hidden with scripts on");
    await check("unfiltered", {});
    // From a link's fragment (what the front page's counts link to).
    const docs = [...new Set(rows.map((r) => r.doc))];
    const known = { doc: docs.includes("singh") ? "singh" : docs[0], verdict: "FAIL", chapter: "6" };
    await page.goto(siteUrl(`claims.html#doc=${known.doc}&verdict=FAIL&chapter=6`), { waitUntil: "load" });
    const n = await check(`#doc=${known.doc}&verdict=FAIL&chapter=6`, known);
    console.log(`claims: ${rows.length} in all; ${known.doc} FAIL in chapter 6: ${n}`);
    // One of those claims, found in the HTML, is among the rows shown, and is hidden by
    // another verdict.
    const shownRow = (href) => page.evaluate((h) => {
      const a = document.querySelector(`#claims a[href="${h}"]`);
      return !!a && !a.closest("tr").hidden;
    }, href);
    const target = rows.find((r) => r.doc === known.doc && r.verdict === "FAIL" && r.chapter === "6");
    if (target) {
      if (!(await shownRow(target.href))) fail(`claims.html: ${target.href} not shown under its own filter`);
      await page.goto(siteUrl(`claims.html#doc=${known.doc}&verdict=PASS&chapter=6`), { waitUntil: "load" });
      if (await shownRow(target.href)) fail(`claims.html: ${target.href} (FAIL) shown under verdict PASS`);
    }
    // From the form, by keyboard and by selection.
    await page.goto(siteUrl("claims.html"), { waitUntil: "load" });
    await page.focus("#f-doc");
    await page.selectOption("#f-doc", known.doc);
    await check(`document ${known.doc}`, { doc: known.doc });
    await page.selectOption("#f-verdict", "PASS");
    await check(`document ${known.doc}, PASS`, { doc: known.doc, verdict: "PASS" });
    await page.selectOption("#f-kind", "ours");
    await check(`document ${known.doc}, PASS, ours`, { doc: known.doc, verdict: "PASS", kind: "ours" });
    await page.click("button[type=reset]");
    await page.waitForTimeout(50);
    await check("after Clear", {});
    if (!page.url().endsWith("claims.html")) fail(`claims.html: Clear left the address at ${page.url()}`);
    // Text search: words of one known claim's sentence find it, and only rows with them.
    const sample = rows.find((r) => r.doc === known.doc && r.quote.length > 40) || rows[0];
    const words = sample.quote.toLowerCase().replace(/[^a-z0-9 ]/g, " ").split(/\s+/).filter((w) => w.length > 5).slice(0, 3).join(" ");
    await page.focus("#f-q");
    await page.keyboard.type(words);
    const found = await check(`search "${words}"`, { q: words });
    if (found < 1) fail(`claims.html: search "${words}" finds nothing`);
    if (!(await shownRow(sample.href))) fail(`claims.html: search "${words}" misses ${sample.href}`);
    await page.keyboard.press("Control+A");
    await page.keyboard.type("zzqx-no-such-claim");
    await check("search with no match", { q: "zzqx-no-such-claim" });
    // The state is kept in the address, so a filtered view can be shared.
    await page.selectOption("#f-verdict", "FAIL");
    if (!/verdict=FAIL/.test(page.url())) fail(`claims.html: the filter is not in the address: ${page.url()}`);

    // Keyboard: the skip link is the first stop and leads to the content.
    await page.goto(siteUrl("index.html"), { waitUntil: "load" });
    await page.keyboard.press("Tab");
    const first = await page.evaluate(() => document.activeElement && document.activeElement.textContent);
    if (first !== "Skip to content") fail(`index.html: first Tab stop is "${first}", not the skip link`);

    // Scripts off: every claim listed, the (inert) form hidden, the notice shown.
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noJs.newPage();
    await plain.goto(siteUrl("claims.html"), { waitUntil: "load" });
    const plainRows = await plain.evaluate(() =>
      Array.from(document.querySelectorAll("#claims tbody tr")).filter((r) => r.offsetParent !== null).length);
    if (plainRows !== rows.length) fail(`claims.html without scripts: ${plainRows} of ${rows.length} rows visible`);
    if (await plain.isVisible("#filters")) fail("claims.html without scripts: the inert filters are shown");
    await noJs.close();

    // A phone: nothing wider than the screen (wide tables scroll inside their own box).
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 });
    const small = await phone.newPage();
    const figurePage = ids.includes("castillo-fig-3.4") ? "exp/castillo-fig-3.4.html" : `exp/${ids[0]}.html`;
    for (const rel of ["index.html", "claims.html", figurePage, "benchmarks.html"]) {
      await small.goto(siteUrl(rel), { waitUntil: "load" });
      const [scroll, width] = await small.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      if (scroll > width + 1) fail(`${rel} on a phone: ${scroll} px wide for a ${width} px screen`);
    }
    await small.goto(siteUrl(figurePage), { waitUntil: "load" });
    await small.screenshot({ path: path.join(artefacts, "figure-page-phone.png"), fullPage: false });
    await phone.close();

    // Print: no navigation on paper.
    await page.goto(siteUrl(figurePage), { waitUntil: "load" });
    await page.emulateMedia({ media: "print" });
    if (await page.isVisible("header.site")) fail(`${figurePage}: the navigation is printed`);
    await page.emulateMedia({ media: "screen" });

    // Screenshots for the CI artefacts.
    await page.goto(siteUrl("index.html"), { waitUntil: "load" });
    await page.screenshot({ path: path.join(artefacts, "front-page.png"), fullPage: true });
    await page.goto(siteUrl(figurePage), { waitUntil: "load" });
    await page.screenshot({ path: path.join(artefacts, "figure-page.png"), fullPage: true });
    console.log(`screenshots in ${artefacts}`);
  } finally {
    await browser.close();
  }
  console.log(`${failures.length} failures in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
