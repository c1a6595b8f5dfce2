import { useEffect, useState } from 'preact/hooks';
import type { DocumentLink, Schemas } from '../api.js';
import { useApp } from '../app.js';
import { Badge, Fields, money, ProblemView, show } from '../components.js';

const pct = (v: number | null): string => (v === null ? '—' : `${(v * 100).toFixed(2)} %`);

const LIST_KEYS = ['id', 'name', 'abbreviation', 'lock_up', 'redemption_window', 'feeder_fund_id', 'created'];
const BY_ISIN_KEYS = ['id', 'name', 'abbreviation', 'lock_up_duration', 'redemption_cycle', 'next_redemption_date', 'feeder_fund_id', 'created'];

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
          <h4>As GET /v1/share-classes/{'{isin}'} answers it{assets[0] ? ` (${assets[0].isin})` : ''}</h4>
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
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Abbreviation</th>
            <th scope="col">Share classes</th>
            <th scope="col">Documents</th>
          </tr>
        </thead>
        <tbody>
          {w.feeder_funds.map((f) => (
            <tr key={f.id}>
              <td>{f.name}</td>
              <td>
                <code>{f.abbreviation}</code>
              </td>
              <td class="num">{w.share_classes.filter((s) => s.feeder_fund_id === f.id).length}</td>
              <td class="num">{w.documents.filter((d) => d.feeder_fund_id === f.id).length}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Share classes</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Fund</th>
            <th scope="col">Management fee</th>
            <th scope="col">Subscription fee</th>
            <th scope="col">Target return</th>
            <th scope="col">Min. investment</th>
            <th scope="col">Lock-up</th>
            <th scope="col">Redemption</th>
          </tr>
        </thead>
        <tbody>
          {w.share_classes.map((s) => {
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
          })}
        </tbody>
      </table>
      <h3>Both representations</h3>
      {w.share_classes.map((s) => (
        <ShareClass key={s.id} sc={s} assets={w.assets.filter((a) => a.share_class_id === s.id)} />
      ))}
      <h2>Assets</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">ISIN</th>
            <th scope="col">Currency</th>
            <th scope="col">Share class</th>
            <th scope="col">Markets</th>
            <th scope="col">Custom offerings</th>
          </tr>
        </thead>
        <tbody>
          {w.assets.map((a) => (
            <tr key={a.id}>
              <td class="mono">{a.isin}</td>
              <td>{a.currency}</td>
              <td>{w.share_classes.find((s) => s.id === a.share_class_id)?.name ?? '—'}</td>
              <td class="badges">
                <Badge on={a.subscribeable}>subscribeable</Badge> <Badge on={a.redeemable}>redeemable</Badge> <Badge on={a.tradeable}>tradeable</Badge>
              </td>
              <td>
                {w.custom_offerings
                  .filter((c) => c.asset_id === a.id)
                  .map((c) => c.name)
                  .join(', ') || '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Documents</h2>
      <p>
        Each title downloads the PDF through a link signed for {app.clientId}, as the API's document lists sign them: valid for 15 minutes of the
        tenant's clock.
      </p>
      <ProblemView error={documentLinks.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Type</th>
            <th scope="col">Of</th>
            <th scope="col">Id</th>
          </tr>
        </thead>
        <tbody>
          {w.documents.map((d) => {
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
          })}
        </tbody>
      </table>
    </>
  );
}
