// Scale: a tenant with `scaleOrders` orders and `scaleAccounts` accounts (FIXTURE_ORDERS / FIXTURE_ACCOUNTS on the
// CLI, in its own process). Latency of GET /v1/orders filtered by account_id, isin, order_status, account_type, and
// with a deep skip, measured by the client: one keep-alive connection, requests one after another (so the client and
// the server never compete for a core), the filter value drawn from the world for each request. Plus the RSS of it.
import { fileURLToPath } from 'node:url';
import { benchConfig, fetchToken, json, percentile, progress, request, requireBuild, rssOf, startCli } from './lib.mjs';

const STATUSES = ['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'];
const ACCOUNT_TYPES = ['individual', 'business'];

/** A small seeded generator, so two runs ask the same questions. */
function lcg(seed) {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

export async function measureScale(config = benchConfig()) {
  requireBuild();
  const orders = config.scaleOrders;
  const accounts = config.scaleAccounts;
  progress(`scale: starting the CLI with ${orders} orders and ${accounts} accounts…`);
  const fake = await startCli({
    env: { FIXTURE_ORDERS: String(orders), FIXTURE_ACCOUNTS: String(accounts) },
    timeoutMs: 600_000,
  });
  try {
    const rssAfterStart = rssOf(fake.pid);
    const token = await fetchToken(fake.url);
    const headers = { authorization: `Bearer ${token}` };
    const get = async (path) => {
      const r = await request(fake.url + path, { headers });
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
      return r;
    };

    // Filter values from the world itself: pages spread over the whole order list.
    const accountIds = new Set();
    const isins = new Set();
    for (let skip = 0; skip < orders; skip += Math.max(1000, Math.floor(orders / 8))) {
      for (const order of json(await get(`/v1/orders?skip=${skip}&limit=1000`)).data) {
        accountIds.add(order.account_id);
        isins.add(order.isin);
      }
    }
    const pick = lcg(42);
    const ids = [...accountIds];
    const isinList = [...isins];
    const deepSkip = Math.floor(orders * 0.9);
    const shapes = [
      {
        key: 'account_id',
        label: 'by account_id',
        target: true,
        path: () => `/v1/orders?account_id=${ids[pick(ids.length)]}`,
      },
      { key: 'isin', label: 'by isin', target: true, path: () => `/v1/orders?isin=${isinList[pick(isinList.length)]}` },
      {
        key: 'order_status',
        label: 'by order_status',
        target: true,
        path: () => `/v1/orders?order_status=${STATUSES[pick(STATUSES.length)]}`,
      },
      {
        key: 'account_type',
        label: 'by account_type',
        target: true,
        path: () => `/v1/orders?account_type=${ACCOUNT_TYPES[pick(2)]}`,
      },
      { key: 'skip', label: `deep skip (skip=${deepSkip})`, target: true, path: () => `/v1/orders?skip=${deepSkip}` },
      // not in the targets: the worst case of an unindexed filter that matches nothing (a full scan), for context
      {
        key: 'nomatch',
        label: 'by currency matching nothing (full scan)',
        target: false,
        path: () => `/v1/orders?currency=XXX`,
      },
      {
        key: 'combined',
        label: 'account_type + order_status + skip=1000',
        target: false,
        path: () => `/v1/orders?account_type=business&order_status=COMPLETED&skip=1000`,
      },
    ];

    const results = [];
    for (const shape of shapes) {
      const warm = Math.min(30, config.scaleRequests);
      for (let i = 0; i < warm; i++) await get(shape.path());
      const times = [];
      let items = 0;
      for (let i = 0; i < config.scaleRequests; i++) {
        const r = await get(shape.path());
        times.push(r.ms);
        items += json(r).data.length;
      }
      const result = {
        ...shape,
        path: shape.path(),
        n: times.length,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        max: Math.max(...times),
        avgItems: items / times.length,
      };
      results.push(result);
      progress(
        `scale ${shape.label}: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms (${result.avgItems.toFixed(0)} items/answer)`,
      );
    }
    const rssAfterQueries = rssOf(fake.pid);
    return {
      orders,
      accounts,
      startupMs: fake.startupMs,
      distinctAccounts: ids.length,
      distinctIsins: isinList.length,
      rssAfterStart,
      rssAfterQueries,
      shapes: results,
    };
  } finally {
    await fake.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureScale(), null, 2));
}
