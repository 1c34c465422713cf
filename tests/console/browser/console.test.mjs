// The dead-letter console in a real browser (Debian's chromium, headless,
// driven by playwright-core): a top-up parked because its account is missing
// is seen in the list, the account is created with SQL, the operator replays
// it, and the ledger holds it exactly once; the audit names the operator; an
// anonymous request and a cross-site POST are refused and change nothing. A
// dead letter of 8 MiB gives a small detail page and downloads whole; one that
// another tab purged meanwhile cannot be replayed (404, audited not_found);
// after three wrong secrets the login form answers 429.
//
//   node console.test.mjs IDEM_CLI WORK_DIR SCREENSHOT.png
//
// Synchronised on what the service logs (JSON lines) and on what the pages
// show, never on time. Exit 0 when every check passed.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [idem, work, screenshot] = process.argv.slice(2);
if (!idem || !work || !screenshot) {
  console.error('usage: node console.test.mjs IDEM_CLI WORK_DIR SCREENSHOT.png');
  process.exit(2);
}
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const queue = join(work, 'q.db');
const store = join(work, 's.db');

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}
// A click that submits a form or follows a link, resolved once the page it
// leads to has loaded: reading the page right after a bare click can read the
// page it left.
const follow = (page, selector) => Promise.all([page.waitForNavigation(), page.click(selector)]);
const sql = (text) => execFileSync('sqlite3', [store, text], { encoding: 'utf8' }).trim();

// The service's log, line by line; waitFor resolves on the first line that matches.
class Log {
  constructor(stream) {
    this.lines = [];
    this.waiters = [];
    createInterface({ input: stream }).on('line', (line) => {
      let j;
      try { j = JSON.parse(line); } catch { return; }
      this.lines.push(j);
      this.waiters = this.waiters.filter((w) => !(w.match(j) && (w.resolve(j), true)));
    });
    stream.on('end', () => this.waiters.forEach((w) => w.reject(new Error('idem run ended'))));
  }
  waitFor(match) {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => this.waiters.push({ match, resolve, reject }));
  }
}

const secret = 'correct horse battery';
const hash = execFileSync(idem, ['console', 'hash-secret'], { input: secret + '\n', encoding: 'utf8' }).trim();
const config = join(work, 'run.toml');
writeFileSync(config, `[broker]
url = "queue:${queue}"
[store]
url = "sqlite:${store}"
[service]
http_listen = "127.0.0.1:0"
[console]
[[console.operator]]
name = "alice"
role = "operator"
secret_hash = "${hash}"
[[consumer]]
group = "payments"
max_linger_ms = 0
handlers = ["payments"]
`);

const run = spawn(idem, ['run', '--config', config], { stdio: ['ignore', 'pipe', 'inherit'] });
const log = new Log(run.stdout);
let browser;
try {
  const listening = await log.waitFor((j) => j.event === 'http_listening');
  const base = `http://127.0.0.1:${listening.port}`;
  execFileSync(idem, ['publish', '--queue', queue, '--topic', 'account.topup', '--key-fields', 'topup_id'],
    { input: '{"topup_id":"T-1001","user_id":"U-NEW","amount_cents":2500}\n' });
  const parked = await log.waitFor((j) => j.decision === 'PARKED');
  check(parked.reason.includes('no account U-NEW'), `parked because the account is missing: ${parked.reason}`);

  // Anonymous requests: the list sends to the login form, a replay is refused.
  const anonymous = await fetch(`${base}/console/`, { redirect: 'manual' });
  check(anonymous.status === 303 && anonymous.headers.get('location') === '/console/login',
    `anonymous GET /console/ -> ${anonymous.status} ${anonymous.headers.get('location')}`);
  const anonymousPost = await fetch(`${base}/console/replay`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: base }, body: 'all=1',
  });
  check(anonymousPost.status === 401, `anonymous POST /console/replay -> ${anonymousPost.status}`);

  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 520 } });
  const page = await context.newPage();
  await page.goto(`${base}/console/`);
  check(page.url().endsWith('/console/login'), `the browser lands on the login form: ${page.url()}`);
  await page.fill('input[name=name]', 'alice');
  await page.fill('input[name=secret]', 'wrong');
  await follow(page, 'button[type=submit]');
  check((await page.textContent('body')).includes('Wrong name or secret'), 'a wrong secret is refused');
  await page.fill('input[name=name]', 'alice');
  await page.fill('input[name=secret]', secret);
  await follow(page, 'button[type=submit]');
  const row = page.locator('tbody tr', { hasText: 'T-1001' });
  check(await row.count() === 1, 'the parked top-up is in the list');
  check((await row.textContent()).includes('no account U-NEW'), 'with its reason');
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'idem_session');
  check(session && session.httpOnly && session.sameSite === 'Strict', 'the session cookie is HttpOnly and SameSite=Strict');
  await page.screenshot({ path: screenshot });

  // A page on another origin (same site: 127.0.0.1, another port, so the
  // SameSite cookie is sent) posts a replay form to the console: refused.
  const evil = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<form id="f" method="post" action="${base}/console/replay"><input name="all" value="1"></form>` +
      '<script>document.getElementById("f").submit()</script>');
  });
  await new Promise((r) => evil.listen(0, '127.0.0.1', r));
  const attacker = await context.newPage();
  const [crossSite] = await Promise.all([
    attacker.waitForResponse((r) => r.url() === `${base}/console/replay`),
    attacker.goto(`http://127.0.0.1:${evil.address().port}/`),
  ]);
  check(crossSite.status() === 403, `a cross-site POST is refused: ${crossSite.status()}`);
  evil.close();
  await attacker.close();
  await page.reload();
  check(await page.locator('tbody tr', { hasText: 'T-1001' }).count() === 1, 'and the dead letter is still there');

  // Fix the data, then replay the one message.
  sql("INSERT INTO pay_accounts (user_id, balance_cents, opening_cents) VALUES ('U-NEW', 0, 0)");
  await row.locator('input[type=checkbox]').check();
  await follow(page, '#replay-selected');
  check((await page.textContent('#result')).includes('Replayed 1 message(s)'), 'the console says it replayed one');
  const applied = await log.waitFor((j) => j.decision === 'FIRST' && j.key.includes('T-1001'));
  check(applied.attempt >= 1, 'the replayed top-up ran again through the guard');
  check(sql("SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'T-1001'") === '1', 'the ledger holds it once');
  check(sql("SELECT balance_cents FROM pay_accounts WHERE user_id = 'U-NEW'") === '2500', 'the balance is credited once');

  await follow(page, 'text=Audit');
  const audit = page.locator('tbody tr').first();
  const auditText = await audit.textContent();
  check(auditText.includes('alice') && auditText.includes('console login') && auditText.includes('replay'),
    `the audit names the operator: ${auditText}`);
  check(sql("SELECT operator || '/' || authenticated_by || '/' || action || '/' || changed FROM idem_audit") ===
    'alice/console login/replay/1', 'one audit row in the store');

  const logged = log.lines.map((j) => JSON.stringify(j)).join('\n');
  check(log.lines.some((j) => j.event === 'console_replay' && j.operator === 'alice'), 'the log names who replayed');
  check(!logged.includes(secret) && !logged.includes(session.value) && !logged.includes('amount_cents'),
    'the log holds no secret, session id or body');

  // An 8 MiB line is parked by idem publish (larger than --max-payload-bytes), which exits 1 for it.
  const bigLine = `{"topup_id":"T-BIG","pad":"${'<'.repeat(8 << 20)}"}`;
  const published = spawnSync(idem, ['publish', '--queue', queue, '--topic', 'account.topup', '--key-fields', 'topup_id'],
    { input: bigLine + '\n', encoding: 'utf8' });
  check(published.status === 1 && published.stderr.includes('parked as dead letter'),
    `idem publish parks the 8 MiB line: ${published.stderr.split('\n')[0]}`);
  await page.goto(`${base}/console/`);
  const bigRow = page.locator('tbody tr', { hasText: 'max-payload-bytes' });
  check(await bigRow.count() === 1, 'the 8 MiB line is parked and listed');
  const bigId = (await bigRow.locator('a').first().textContent()).trim();
  const detail = page.url().replace(/\/console\/.*$/, `/console/dead/${bigId}`);
  const other = await context.newPage();
  await other.goto(detail);
  const shown = (await other.content()).length;
  check(shown < 512 * 1024, `its detail page is small: ${shown} characters`);
  const heading = await other.textContent('h2:has-text("Body")');
  check(heading.includes(`${bigLine.length} bytes, the first 65536 shown`), `the page says what it shows: ${heading}`);
  const [download] = await Promise.all([other.waitForEvent('download'), other.click('#download')]);
  check(download.suggestedFilename() === `dead-letter-${bigId}.bin`, `downloaded as ${download.suggestedFilename()}`);
  check(readFileSync(await download.path(), 'utf8') === bigLine, 'the download is the whole body, byte-exact');

  // The other tab purges it while the list still shows it; replaying it from the list is then refused.
  await follow(other, 'button[formaction="/console/purge"]');
  await follow(other, '#confirm-purge');
  check((await other.textContent('#result')).includes('Purged 1 dead letter(s)'), 'the other tab purged it');
  await other.close();
  await bigRow.locator('input[type=checkbox]').check();
  const [gone] = await Promise.all([page.waitForNavigation(), page.click('#replay-selected')]);
  check(gone.status() === 404, `replaying a dead letter that is gone -> ${gone.status()}`);
  check((await page.textContent('body')).includes(`no dead letter with id ${bigId}: nothing was replayed`),
    'the page says nothing was replayed');
  check(sql('SELECT action || \'/\' || outcome FROM idem_audit ORDER BY id DESC LIMIT 1') === 'replay/not_found',
    'the audit row says not_found');
  const missing = await page.goto(detail);
  const headers = await missing.allHeaders();
  check(missing.status() === 404 && (headers['content-security-policy'] || '').includes("default-src 'none'") &&
    headers['x-content-type-options'] === 'nosniff', `a 404 page carries the security headers: ${missing.status()}`);

  // Guessing: three wrong secrets are answered, then the form answers 429. Each
  // wrong secret let through doubles the wait, so the loop ends within a few tries
  // however slow the machine is.
  const guesser = await (await browser.newContext()).newPage();
  await guesser.goto(`${base}/console/login`);
  const statuses = [];
  let held;
  while (!held && statuses.length < 10) {
    await guesser.fill('input[name=name]', 'alice');
    await guesser.fill('input[name=secret]', `wrong guess ${statuses.length}`);
    const [r] = await Promise.all([guesser.waitForNavigation(), guesser.click('button[type=submit]')]);
    statuses.push(r.status());
    if (r.status() === 429) held = r;
  }
  check(statuses.slice(0, 3).join(',') === '401,401,401' && held,
    `three wrong secrets are answered, then 429: ${statuses.join(',')}`);
  check(held && Number(held.headers()['retry-after']) >= 1, `429 says when to retry: ${held && held.headers()['retry-after']}`);
  check((await guesser.textContent('body')).includes('Too many failed logins'), 'the page says why');
} catch (e) {
  console.error(e);
  failures++;
} finally {
  if (browser) await browser.close();
  run.kill('SIGTERM');
}
console.log(failures === 0 ? 'PASS' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
