import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { rsaKeyPair } from '../../src/auth/key-pair.js';

/**
 * Tokens that are not valid tokens of a fake, made from one that is (CONTRACT 15): cut, extended, flipped,
 * re-encoded, segments that are not base64url JSON objects, other algorithms and keys, odd claims signed with the
 * fake's own key, extra and empty segments, whitespace, non-ASCII, very long. Each is named for the failure message.
 */
export interface Mutation {
  name: string;
  token: string;
}

const B64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const encode = (text: string): string => Buffer.from(text).toString('base64url');
const json = (value: unknown): string => encode(JSON.stringify(value));
/** Standard base64 with its padding: a JSON text whose length needs none gets a trailing space (the same JSON). */
const paddedBase64 = (text: string): string =>
  Buffer.from(Buffer.byteLength(text) % 3 === 0 ? `${text} ` : text).toString('base64');
const rs256 = (input: string, key: KeyObject): string => sign('sha256', Buffer.from(input), key).toString('base64url');
/** A raw JSON text signed RS256, as a key holder could sign anything (huge numbers written as text). */
const signedRaw = (header: string, payload: string, key: KeyObject): string => {
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${rs256(input, key)}`;
};

/** Every kind of mutation of `valid`, a token of a fake in this process (signed with its key pair). */
export function mutationsOf(valid: string): fc.Arbitrary<Mutation> {
  const [h, p, s] = valid.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  const segments = [h, p, s];
  const withSegment = (i: number, value: string) => segments.map((segment, j) => (j === i ? value : segment)).join('.');
  // the fake's own key: this process's key pair (src/auth/key-pair.ts), under the instance's kid
  const ownKey = rsaKeyPair().privateKey;
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const ownlySigned = (changed: Record<string, unknown>) =>
    signedRaw(JSON.stringify(header), JSON.stringify({ ...claims, ...changed }), ownKey);
  const without = (name: string) =>
    signedRaw(
      JSON.stringify(header),
      JSON.stringify(Object.fromEntries(Object.entries(claims).filter(([k]) => k !== name))),
      ownKey,
    );

  const segmentIndex = fc.integer({ min: 0, max: 2 });
  const cut = fc
    .tuple(segmentIndex, fc.integer({ min: 1, max: 400 }), fc.boolean())
    .map(([i, n, fromStart]): Mutation => {
      const segment = segments[i]!;
      const kept = fromStart
        ? segment.slice(Math.min(n, segment.length))
        : segment.slice(0, Math.max(0, segment.length - n));
      return { name: `segment ${i} cut by ${n} from its ${fromStart ? 'start' : 'end'}`, token: withSegment(i, kept) };
    });
  const extended = fc
    .tuple(
      segmentIndex,
      fc.nat(),
      fc.string({ unit: fc.constantFrom(...B64URL_ALPHABET, '=', '+', '/', '.', '~'), minLength: 1, maxLength: 8 }),
    )
    .map(([i, at, added]): Mutation => {
      const segment = segments[i]!;
      const position = at % (segment.length + 1);
      return {
        name: `segment ${i} with "${added}" added at ${position}`,
        token: withSegment(i, segment.slice(0, position) + added + segment.slice(position)),
      };
    });
  const flipped = fc
    .tuple(fc.nat(), fc.constantFrom(...B64URL_ALPHABET))
    .filter(([at, c]) => valid[at % valid.length] !== c && valid[at % valid.length] !== '.')
    .map(([at, c]): Mutation => {
      const position = at % valid.length;
      return {
        name: `character ${position} flipped to "${c}"`,
        token: valid.slice(0, position) + c + valid.slice(position + 1),
      };
    });
  const decodedHeader = Buffer.from(h, 'base64url').toString();
  const decodedPayload = Buffer.from(p, 'base64url').toString();
  const reencoded = fc.constantFrom<Mutation>(
    { name: 'header in standard base64 with padding', token: withSegment(0, paddedBase64(decodedHeader)) },
    { name: 'payload in standard base64 with padding', token: withSegment(1, paddedBase64(decodedPayload)) },
    {
      name: 'signature in standard base64 with padding',
      token: withSegment(2, Buffer.from(s, 'base64url').toString('base64')),
    },
    { name: 'payload with padding', token: withSegment(1, `${p}==`) },
    { name: 'header as other JSON (spaces)', token: withSegment(0, encode(JSON.stringify(header, null, 1))) },
    {
      name: 'payload as other JSON (keys reversed)',
      token: withSegment(1, json(Object.fromEntries(Object.entries(claims).reverse()))),
    },
    { name: 'payload with a claim added', token: withSegment(1, json({ ...claims, admin: true })) },
    {
      name: 'payload naming another client',
      token: withSegment(1, json({ ...claims, sub: 'other', client_id: 'other' })),
    },
  );
  const notObjects = ['null', '[]', '"x"', '1', 'true', '', '{', 'not json', '{"alg":', '\u0000', '[{"alg":"RS256"}]'];
  const notAnObject = fc.tuple(fc.constantFrom(0, 1), fc.constantFrom(...notObjects)).map(
    ([i, text]): Mutation => ({
      name: `segment ${i} is ${JSON.stringify(text)}`,
      token: withSegment(i, encode(text)),
    }),
  );
  const notBase64 = fc
    .tuple(segmentIndex, fc.constantFrom('!!!', 'a b', '%7B%7D', 'é', '{}', '*'))
    .map(([i, text]): Mutation => ({ name: `segment ${i} is ${JSON.stringify(text)}`, token: withSegment(i, text) }));
  const otherAlgorithms = fc.constantFrom<Mutation>(
    { name: 'alg none, no signature', token: `${json({ ...header, alg: 'none' })}.${p}.` },
    { name: 'alg none, the signature kept', token: `${json({ ...header, alg: 'none' })}.${p}.${s}` },
    { name: 'alg "None"', token: `${json({ ...header, alg: 'None' })}.${p}.` },
    ...(['HS256', 'RS512', 'PS256', 'ES256', 'EdDSA', 'rs256'] as const).map((alg) => ({
      name: `alg ${alg}, the signature kept`,
      token: `${json({ ...header, alg })}.${p}.${s}`,
    })),
    { name: 'alg missing', token: `${json({ kid: header.kid })}.${p}.${s}` },
    { name: 'alg a number', token: `${json({ ...header, alg: 256 })}.${p}.${s}` },
    { name: 'alg an object', token: `${json({ ...header, alg: { RS256: true } })}.${p}.${s}` },
    {
      name: 'kid of another instance',
      token: signedRaw(JSON.stringify({ ...header, kid: 'another' }), decodedPayload, ownKey),
    },
    { name: 'kid missing', token: signedRaw(JSON.stringify({ alg: 'RS256', typ: 'JWT' }), decodedPayload, ownKey) },
    { name: 'RS256 signed by another key', token: signedRaw(decodedHeader, decodedPayload, otherKey) },
  );
  const hs256Input = `${json({ ...header, alg: 'HS256' })}.${p}`;
  const publicKeyPem = rsaKeyPair().publicKey.export({ type: 'spki', format: 'pem' });
  const hs256WithThePublicKey: Mutation = {
    name: 'HS256 signed with the public key',
    token: `${hs256Input}.${createHmac('sha256', publicKeyPem).update(hs256Input).digest('base64url')}`,
  };
  const oddClaims = fc.constantFrom<Mutation>(
    { name: 'exp as a string', token: ownlySigned({ exp: String(claims.exp) }) },
    { name: 'exp missing', token: without('exp') },
    { name: 'iat missing', token: without('iat') },
    { name: 'sub missing', token: without('sub') },
    { name: 'client_id missing', token: without('client_id') },
    { name: 'client_id another client than sub', token: ownlySigned({ client_id: 'someone-else' }) },
    { name: 'sub a number', token: ownlySigned({ sub: 42 }) },
    { name: 'aud an array', token: ownlySigned({ aud: [claims.aud] }) },
    { name: 'iss an array', token: ownlySigned({ iss: [claims.iss] }) },
    { name: 'nbf in the future', token: ownlySigned({ nbf: (claims.iat as number) + 86_400 }) },
    { name: 'iat far in the future', token: ownlySigned({ iat: (claims.iat as number) + 10 * 365 * 86_400 }) },
    { name: 'exp huge', token: ownlySigned({ exp: 1e308 }) },
    { name: 'exp a fraction', token: ownlySigned({ exp: (claims.exp as number) + 0.5 }) },
    {
      name: 'exp and iat beyond JSON numbers',
      token: signedRaw(
        decodedHeader,
        decodedPayload.replace(/"exp":\d+/, '"exp":1e400').replace(/"iat":\d+/, '"iat":-1e400'),
        ownKey,
      ),
    },
    { name: 'scope an array', token: ownlySigned({ scope: String(claims.scope).split(' ') }) },
    { name: 'scope a number', token: ownlySigned({ scope: 1 }) },
    { name: 'scope null', token: ownlySigned({ scope: null }) },
    { name: 'jti an object', token: ownlySigned({ jti: {} }) },
    { name: 'control_until as a string', token: ownlySigned({ control_until: '9999999999' }) },
    { name: 'payload an array signed', token: signedRaw(decodedHeader, '[1]', ownKey) },
    { name: 'payload null signed', token: signedRaw(decodedHeader, 'null', ownKey) },
  );
  const shapes = fc.constantFrom<Mutation>(
    { name: 'a fourth segment', token: `${valid}.${s}` },
    { name: 'a trailing dot', token: `${valid}.` },
    { name: 'two segments', token: `${h}.${p}` },
    { name: 'empty header', token: `.${p}.${s}` },
    { name: 'empty payload', token: `${h}..${s}` },
    { name: 'empty signature', token: `${h}.${p}.` },
    { name: 'dots only', token: '..' },
    { name: 'JWE-like five segments', token: `${h}.${p}.${s}.${s}.${s}` },
  );
  const whitespace = fc
    .tuple(fc.integer({ min: 1, max: valid.length - 1 }), fc.constantFrom(' ', '\t', '  ', ' \t '))
    .map(
      ([at, space]): Mutation => ({
        name: `${JSON.stringify(space)} inserted at ${at}`,
        token: valid.slice(0, at) + space + valid.slice(at),
      }),
    );
  // header values carry bytes: a UTF-8 character arrives as its bytes read as Latin-1
  const nonAscii = fc
    .tuple(
      fc.integer({ min: 0, max: valid.length }),
      fc.constantFrom('é', 'ÿ', '\u00a0', Buffer.from('€').toString('latin1'), Buffer.from('😀').toString('latin1')),
    )
    .map(
      ([at, c]): Mutation => ({
        name: `${JSON.stringify(c)} inserted at ${at}`,
        token: valid.slice(0, at) + c + valid.slice(at),
      }),
    );
  const long = fc.tuple(segmentIndex, fc.integer({ min: 1_000, max: 9_000 })).map(
    ([i, n]): Mutation => ({
      name: `segment ${i} extended by ${n} characters`,
      token: withSegment(i, segments[i]! + 'A'.repeat(n)),
    }),
  );

  return fc.oneof(
    cut,
    extended,
    flipped,
    reencoded,
    notAnObject,
    notBase64,
    otherAlgorithms,
    fc.constant(hs256WithThePublicKey),
    oddClaims,
    shapes,
    whitespace,
    nonAscii,
    long,
  );
}
