// The OpenID Connect provider fairval's single sign-on tests start (tests/oidc/provider.py): node-oidc-provider,
// an OpenID Certified implementation, on 127.0.0.1 only. `node provider.mjs SETTINGS.json` reads
// {port, clients: [...], accounts: {id: claims}} and prints "listening <issuer>" once it answers.
// Its own sign-in page is the library's development one (any password for a listed account); a listed
// account's claims go into the ID token (conformIdTokenClaims off, as Google's, Entra's and Keycloak's do).
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const settings = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${settings.port}`;

const provider = new Provider(issuer, {
  clients: settings.clients,
  async findAccount(ctx, id) {
    const claims = settings.accounts[id];
    if (!claims) return undefined;
    return { accountId: id, async claims() { return { sub: id, ...claims }; } };
  },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'fairval_role'] },
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  // a first-party client: the researcher is not asked to consent, as a lab's own provider does for its apps
  async loadExistingGrant(ctx) {
    const { client, session } = ctx.oidc;
    const known = session.grantIdFor(client.clientId);
    if (known) return ctx.oidc.provider.Grant.find(known);
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    grant.addOIDCScope('openid email profile');
    grant.addOIDCClaims(['email', 'email_verified', 'name', 'fairval_role']);
    await grant.save();
    return grant;
  },
  ttl: { IdToken: settings.id_token_seconds || 3600 },
  cookies: { keys: ['fairval tests: a key for this provider\'s own cookies'] },
});
provider.on('server_error', (ctx, error) => console.error('server_error', error));
provider.listen(settings.port, '127.0.0.1', () => console.log(`listening ${issuer}`));
