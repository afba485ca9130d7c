import { expect } from 'chai';
import { findMissingScopes, grantsScope, isExplicitOnlyScope, parseScopes, ALL_SCOPES, READ_SCOPES } from '../../src/identity/scopes.js';

describe('grantsScope(granted, required)', () => {
  const table: { given: string; required: string; want: boolean }[] = [
    { given: 'finance.payables', required: 'finance.payables', want: true },
    { given: 'finance.payables.write', required: 'finance.payables', want: true },
    { given: 'finance.payables.write', required: 'finance.payables.write', want: true },
    { given: 'finance.payables', required: 'finance.payables.write', want: false },
    { given: 'finance.receivables', required: 'finance.payables', want: false },
    { given: 'finance.receivables.write', required: 'finance.payables.write', want: false },
    { given: 'finance.all', required: 'finance.payables', want: true },
    // Seguridad is reachable only through its own scopes, never through finance.all(.write).
    { given: 'finance.all', required: 'finance.security', want: false },
    { given: 'finance.all', required: 'finance.security.write', want: false },
    { given: 'finance.all.write', required: 'finance.security', want: false },
    { given: 'finance.all.write', required: 'finance.security.write', want: false },
    { given: 'finance.all finance.all.write finance.money.write', required: 'finance.security.write', want: false },
    { given: 'finance.security', required: 'finance.security', want: true },
    { given: 'finance.security', required: 'finance.security.write', want: false },
    { given: 'finance.security.write', required: 'finance.security', want: true },
    { given: 'finance.security.write', required: 'finance.security.write', want: true },
    { given: 'finance.security.write', required: 'finance.payables', want: false },
    { given: 'finance.security.write', required: 'finance.money.write', want: false },
    { given: 'finance.all.write finance.security.write', required: 'finance.security.write', want: true },
    { given: 'finance.all.write', required: 'finance.workspaces', want: true },
    { given: 'finance.all.write', required: 'finance.all', want: true },
    { given: 'finance.all', required: 'finance.payables.write', want: false },
    { given: 'finance.all', required: 'finance.money.write', want: false },
    { given: 'finance.all.write', required: 'finance.payables.write', want: true },
    { given: 'finance.all.write', required: 'finance.money.write', want: true },
    { given: 'finance.all.write', required: 'finance.activity', want: true },
    { given: 'finance.money.write', required: 'finance.money.write', want: true },
    { given: 'finance.money.write', required: 'finance.payables', want: false },
    { given: 'finance.payables.write', required: 'finance.money.write', want: false },
    { given: '', required: 'finance.payables', want: false },
    { given: 'finance.payablesx', required: 'finance.payables', want: false },
  ];
  for (const { given, required, want } of table) {
    it(`${want ? 'grants' : 'refuses'} ${required} given "${given}"`, () => {
      expect(grantsScope(parseScopes(given), required)).to.equal(want);
    });
  }
});

describe('findMissingScopes(granted, required)', () => {
  it('names the money scope a settle lacks with only resource write access', () => {
    expect(findMissingScopes(parseScopes('finance.payables.write'), ['finance.payables.write', 'finance.money.write']))
      .to.deep.equal(['finance.money.write']);
  });

  it('finds nothing missing when resource write and money write are granted', () => {
    expect(findMissingScopes(parseScopes('finance.payables.write finance.money.write'), ['finance.payables.write', 'finance.money.write']))
      .to.deep.equal([]);
  });

  it('names the security scope an "everything" token lacks', () => {
    expect(findMissingScopes(parseScopes('finance.all finance.all.write'), ['finance.security.write'])).to.deep.equal(['finance.security.write']);
    expect(findMissingScopes(parseScopes('finance.all.write'), ['finance.security'])).to.deep.equal(['finance.security']);
  });

  it('takes any finance.* scope when none is required (security: [{oauth2: []}], workspaces.list), and no other', () => {
    for (const scope of ['finance.payables', 'finance.security', 'finance.all']) expect(findMissingScopes(parseScopes(scope), []), scope).to.deep.equal([]);
    expect(findMissingScopes(parseScopes('openid profile'), [])).to.deep.equal(['finance.*']);
    expect(findMissingScopes(parseScopes(''), [])).to.deep.equal(['finance.*']);
  });
});

describe('isExplicitOnlyScope(scope)', () => {
  it('marks exactly the security scopes and finance.approvals.write (deciding another person\'s approval request)', () => {
    expect(ALL_SCOPES.filter(isExplicitOnlyScope)).to.deep.equal(['finance.security', 'finance.security.write', 'finance.approvals.write']);
  });

  it('lets finance.all.write reach finance.approvals (read) but never finance.approvals.write', () => {
    expect(grantsScope(parseScopes('finance.all.write'), 'finance.approvals')).to.equal(true);
    expect(grantsScope(parseScopes('finance.all'), 'finance.approvals')).to.equal(true);
    expect(grantsScope(parseScopes('finance.all.write'), 'finance.approvals.write')).to.equal(false);
    expect(grantsScope(parseScopes('finance.approvals.write'), 'finance.approvals')).to.equal(true);
    expect(grantsScope(parseScopes('finance.approvals.write'), 'finance.approvals.write')).to.equal(true);
  });
});

describe('parseScopes(claim)', () => {
  it('splits on spaces and drops empty entries', () => {
    expect([...parseScopes('  finance.all   finance.money.write ')]).to.deep.equal(['finance.all', 'finance.money.write']);
  });
});

describe('scope catalogue', () => {
  it('lists only read scopes in READ_SCOPES and every read scope in ALL_SCOPES', () => {
    expect(READ_SCOPES.every((s) => !s.endsWith('.write'))).to.equal(true);
    expect(READ_SCOPES.every((s) => ALL_SCOPES.includes(s))).to.equal(true);
    expect(ALL_SCOPES).to.include.members(['finance.all.write', 'finance.money.write', 'finance.payables.write']);
    expect(ALL_SCOPES).to.include.members(['finance.security', 'finance.security.write']);
  });
});
