import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from './clock.js';
import { DomainError, notFound } from '../api/errors.js';
import { findAsset } from './catalog.js';
import { paginate, type Page } from './paginate.js';
import { renderPdf } from './pdf.js';
import type { Document, DocumentLink, DocumentRecord } from '../api/types.js';
import type { WorldStore } from '../store/world-store.js';

const LINK_LIFETIME_SECONDS = 15 * 60;

/** Signs and checks document links: hex HMAC-SHA256 of `<path>?expires=<unix_time>`. */
export class LinkSigner {
  constructor(private readonly secret: Buffer) {}

  sign(path: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${path}?expires=${expires}`).digest('hex');
  }

  isValid(path: string, expires: string, signature: string): boolean {
    if (!/^[0-9]{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
    return timingSafeEqual(Buffer.from(this.sign(path, Number(expires)), 'hex'), Buffer.from(signature, 'hex'));
  }
}

/** What a tenant's document links are made of. */
export interface LinkContext {
  clientId: string;
  docsUrl: string;
  clock: Clock;
  signer: LinkSigner;
}

const filePath = (clientId: string, documentId: string): string =>
  `${encodeURIComponent(clientId)}/${encodeURIComponent(documentId)}.pdf`;

function toDocument(record: DocumentRecord, links: LinkContext): Document {
  const path = filePath(links.clientId, record.id);
  const expires = links.clock.nowSeconds() + LINK_LIFETIME_SECONDS;
  const signature = links.signer.sign(path, expires);
  return {
    id: record.id,
    url: `${links.docsUrl}/${path}?expires=${expires}&signature=${signature}`,
    type: record.type,
  };
}

/** Every document of the tenant's world with its signed link (the control plane's view: every owner at once). */
export function listDocumentLinks(store: WorldStore, links: LinkContext): DocumentLink[] {
  return store.documents.map((record) => {
    const { id, type, title, feeder_fund_id, custom_offering_id } = record;
    return { id, type, title, feeder_fund_id, custom_offering_id, url: toDocument(record, links).url };
  });
}

export function listFundDocuments(
  store: WorldStore,
  abbreviation: string,
  links: LinkContext,
  page: Page = {},
): Document[] {
  const fund = store.feederFundByAbbreviation.get(abbreviation);
  if (!fund) throw notFound(`A feeder fund with abbreviation "${abbreviation}"`);
  return paginate(store.documentsByOwner.get(fund.id) ?? [], page).map((d) => toDocument(d, links));
}

export function listCustomOfferingDocuments(
  store: WorldStore,
  isin: string,
  customOfferingId: string,
  links: LinkContext,
  page: Page = {},
): Document[] {
  const asset = findAsset(store, isin);
  const offering = store.customOfferingById.get(customOfferingId);
  if (!offering || offering.asset_id !== asset.id) {
    throw notFound(`Custom offering "${customOfferingId}" of asset "${isin}"`);
  }
  return paginate(store.documentsByOwner.get(offering.id) ?? [], page).map((d) => toDocument(d, links));
}

export interface DownloadRequest {
  fileName: string;
  expires: string | undefined;
  signature: string | undefined;
  /** Told once the signature holds: the link proves its tenant, whether it has expired or not. */
  proven?: () => void;
}

/** Checks a signed link and answers the document as a PDF: 403 for a bad or expired link, 404 for a gone document. */
export function downloadDocument(store: WorldStore, links: LinkContext, request: DownloadRequest): Buffer {
  const documentId = request.fileName.endsWith('.pdf') ? request.fileName.slice(0, -4) : undefined;
  const path = filePath(links.clientId, documentId ?? request.fileName);
  if (!documentId || !links.signer.isValid(path, request.expires ?? '', request.signature ?? '')) {
    throw new DomainError(403, 'invalid_signature', 'The document link is not signed by this server, or was changed.');
  }
  request.proven?.();
  if (Number(request.expires) < links.clock.nowSeconds()) {
    throw new DomainError(
      403,
      'link_expired',
      'The document link has expired; list the documents again for a fresh one.',
    );
  }
  const document = store.documentById.get(documentId);
  if (!document) throw notFound(`Document "${documentId}"`);
  const owner = document.feeder_fund_id
    ? store.feederFunds.find((f) => f.id === document.feeder_fund_id)?.name
    : store.customOfferingById.get(document.custom_offering_id ?? '')?.name;
  return renderPdf([
    document.title,
    owner ?? '',
    `Document ${document.id} (${document.type})`,
    'Issued by investment-api-fake: sample content, not a real document.',
  ]);
}
