import { useEffect, useState } from 'preact/hooks';
import type { DocumentLink, Schemas } from '../api.js';
import { useApp } from '../app.js';
import { Badge, Fields, money, ProblemView, show, Table } from '../components.js';

const pct = (v: number | null): string => (v === null ? '—' : `${(v * 100).toFixed(2)} %`);

const LIST_KEYS = ['id', 'name', 'abbreviation', 'lock_up', 'redemption_window', 'feeder_fund_id', 'created'];
const BY_ISIN_KEYS = [
  'id',
  'name',
  'abbreviation',
  'lock_up_duration',
  'redemption_cycle',
  'next_redemption_date',
  'feeder_fund_id',
  'created',
];

function ShareClass({ sc, assets }: { sc: Schemas['ShareClassRecord']; assets: Schemas['AssetRecord'][] }) {
  return (
    <details class="share-class">
      <summary>
        {sc.name} <span class="muted">({sc.abbreviation})</span>
      </summary>
      <div class="two">
        <section>
          <h4>As GET /v1/share-classes lists it</h4>
          <Fields record={sc} keys={LIST_KEYS} />
        </section>
        <section>
          <h4>
            As GET /v1/share-classes/{'{isin}'} answers it{assets[0] ? ` (${assets[0].isin})` : ''}
          </h4>
          <Fields record={sc} keys={BY_ISIN_KEYS} />
        </section>
      </div>
    </details>
  );
}

/**
 * The tenant's documents with signed links from the control plane. A link lives 15 minutes of the tenant's clock,
 * so they are signed again whenever the world or the clock is read again.
 */
function useDocumentLinks(): { links: Map<string, string>; error: unknown } {
  const app = useApp();
  const [links, setLinks] = useState(new Map<string, string>());
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let current = true;
    app.api.documents().then(
      (documents: DocumentLink[]) => {
        if (!current) return;
        setLinks(new Map(documents.map((d) => [d.id, d.url])));
        setError(undefined);
      },
      (e: unknown) => current && setError(e),
    );
    return () => {
      current = false;
    };
  }, [app.api, app.world, app.clock]);
  return { links, error };
}

export function Catalog() {
  const app = useApp();
  const documentLinks = useDocumentLinks();
  const w = app.world;
  if (!w) return <p>Loading…</p>;
  const fundOf = (id: string | null) => w.feeder_funds.find((f) => f.id === id);
  return (
    <>
      <h1>Catalog</h1>
      <h2>Feeder funds</h2>
      <Table
        headings={['Name', 'Abbreviation', 'Share classes', 'Documents']}
        rows={w.feeder_funds}
        row={(f) => (
          <tr key={f.id}>
            <td>{f.name}</td>
            <td>
              <code>{f.abbreviation}</code>
            </td>
            <td class="num">{w.share_classes.filter((s) => s.feeder_fund_id === f.id).length}</td>
            <td class="num">{w.documents.filter((d) => d.feeder_fund_id === f.id).length}</td>
          </tr>
        )}
      />
      <h2>Share classes</h2>
      <Table
        headings={[
          'Name',
          'Fund',
          'Management fee',
          'Subscription fee',
          'Target return',
          'Min. investment',
          'Lock-up',
          'Redemption',
        ]}
        rows={w.share_classes}
        row={(s) => {
          const currency = w.assets.find((a) => a.share_class_id === s.id)?.currency ?? 'EUR';
          return (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td>{fundOf(s.feeder_fund_id)?.abbreviation ?? '—'}</td>
              <td class="num">{pct(s.management_fee)}</td>
              <td class="num">{pct(s.subscription_fee)}</td>
              <td class="num">{pct(s.target_return_net)}</td>
              <td class="num">{s.min_investment === null ? '—' : money(s.min_investment, currency)}</td>
              <td>{s.lock_up} months</td>
              <td>{show(s.redemption_cycle ?? s.redemption_window)}</td>
            </tr>
          );
        }}
      />
      <h3>Both representations</h3>
      {w.share_classes.map((s) => (
        <ShareClass key={s.id} sc={s} assets={w.assets.filter((a) => a.share_class_id === s.id)} />
      ))}
      <h2>Assets</h2>
      <Table
        headings={['ISIN', 'Currency', 'Share class', 'Markets', 'Custom offerings']}
        rows={w.assets}
        row={(a) => (
          <tr key={a.id}>
            <td class="mono">{a.isin}</td>
            <td>{a.currency}</td>
            <td>{w.share_classes.find((s) => s.id === a.share_class_id)?.name ?? '—'}</td>
            <td class="badges">
              <Badge on={a.subscribeable}>subscribeable</Badge> <Badge on={a.redeemable}>redeemable</Badge>{' '}
              <Badge on={a.tradeable}>tradeable</Badge>
            </td>
            <td>
              {w.custom_offerings
                .filter((c) => c.asset_id === a.id)
                .map((c) => c.name)
                .join(', ') || '—'}
            </td>
          </tr>
        )}
      />
      <h2>Documents</h2>
      <p>
        Each title downloads the PDF through a link signed for {app.clientId}, as the API's document lists sign them:
        valid for 15 minutes of the tenant's clock.
      </p>
      <ProblemView error={documentLinks.error} />
      <Table
        headings={['Title', 'Type', 'Of', 'Id']}
        rows={w.documents}
        row={(d) => {
          const fund = fundOf(d.feeder_fund_id);
          const offering = w.custom_offerings.find((c) => c.id === d.custom_offering_id);
          const url = documentLinks.links.get(d.id);
          return (
            <tr key={d.id}>
              <td>
                {url ? (
                  <a href={url} download={`${d.id}.pdf`} type="application/pdf">
                    {d.title}
                  </a>
                ) : (
                  d.title
                )}
              </td>
              <td>{d.type}</td>
              <td>{fund ? fund.abbreviation : offering ? offering.name : '—'}</td>
              <td class="mono">{d.id}</td>
            </tr>
          );
        }}
      />
    </>
  );
}
