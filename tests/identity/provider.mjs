// A real OpenID provider for the tests: the certified `oidc-provider` package.
//
//   node tests/identity/provider.mjs SETTINGS.json
//
// SETTINGS.json holds {port, issuer, clients, accounts, jwks, id_token_ttl}: `clients` are
// oidc-provider client metadata, `accounts` maps a login (also the subject) to its claims,
// `jwks` is the private signing key set (the first key signs). The built-in development
// pages (devInteractions) sign anyone in who types a known login and any password.
//
// POST /_test/reload reads SETTINGS.json again and starts a new provider from it: the
// tests rotate the signing keys that way (the published JWKS changes at once).
// The line "listening <url>" on stdout says the provider answers.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

const settingsPath = process.argv[2] || process.env.OIDC_PROVIDER_SETTINGS;
if (!settingsPath) {
  console.error('usage: node provider.mjs SETTINGS.json');
  process.exit(2);
}

function build() {
  const settings = JSON.parse(readFileSync(settingsPath, 'utf8'));
  const accounts = settings.accounts || {};
  const provider = new Provider(settings.issuer, {
    clients: settings.clients,
    jwks: settings.jwks,
    // The tracker must send a PKCE challenge (S256 is the only method offered).
    pkce: { required: () => true },
    cookies: { keys: ['tests-only-cookie-key'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'groups'],
    },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    ttl: { IdToken: settings.id_token_ttl || 3600 },
    async findAccount(ctx, sub) {
      const claims = accounts[sub];
      if (!claims) return undefined;
      return { accountId: sub, async claims() { return { sub, ...claims }; } };
    },
  });
  // Refusals (a wrong redirect_uri, a missing PKCE challenge) show on stderr, for the test log.
  provider.on('server_error', (ctx, error) => console.error('server_error', error));
  provider.on('authorization.error', (ctx, error) => console.error('authorization.error', error.message, error.error_description || ''));
  provider.on('grant.error', (ctx, error) => console.error('grant.error', error.message, error.error_description || ''));
  return { settings, handler: provider.callback() };
}

let current = build();

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/_test/reload') {
    try {
      current = build();
      res.writeHead(204).end();
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
    return;
  }
  current.handler(req, res);
});

server.listen(current.settings.port, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${current.settings.port}`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
